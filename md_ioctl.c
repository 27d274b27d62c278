// SPDX-License-Identifier: GPL-2.0
/*
 * md ioctls (<linux/raid/md_u.h>) as issued by mdadm.
 *
 * Design.  mdadm writes the superblocks (1.x or 0.90) itself before
 * ADD_NEW_DISK, so an array with superblocks is described by them, not
 * by SET_ARRAY_INFO: that ioctl then only records which format to read.
 * The one exception is an array without superblocks (mdadm --build),
 * which SET_ARRAY_INFO describes in full.  Every argument is copied in and checked before
 * anything changes; unknown or inconsistent values get -EINVAL.  All
 * state-changing commands run under reconfig_mutex; the layouts are the
 * same for 32-bit callers, so compat only converts the pointer.
 */
#include <linux/blkdev.h>
#include <linux/capability.h>
#include <linux/compat.h>
#include <linux/file.h>
#include <linux/major.h>
#include <linux/random.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>

#include "md_core.h"

/*
 * mdadm marks a member being built as a replacement so in ADD_NEW_DISK
 * (bit 17; the kernel headers of 6.1 name no such bit).  Its superblock
 * says so too, and that is what the core reads (md_super.c), so the bit
 * is accepted and changes nothing, as in-tree.
 */
#ifndef MD_DISK_REPLACEMENT
#define MD_DISK_REPLACEMENT	17
#endif

/* desc_nr bound of an array without superblocks (none on disk limits it) */
#define MD_NOSB_MAX_DISKS	384

static int md_get_version(void __user *arg)
{
	mdu_version_t ver = {
		.major = MD_MAJOR_VERSION,
		.minor = MD_MINOR_VERSION,
		.patchlevel = MD_PATCHLEVEL_VERSION,
	};

	return copy_to_user(arg, &ver, sizeof(ver)) ? -EFAULT : 0;
}

static int md_get_array_info(struct mddev *mddev, void __user *arg)
{
	int nr = 0, active = 0, working = 0, failed = 0, spare = 0;
	mdu_array_info_t info;
	struct md_rdev *rdev;
	sector_t kib = mddev->dev_sectors / 2;

	rdev_for_each(rdev, mddev) {
		nr++;
		if (test_bit(RD_FAULTY, &rdev->flags)) {
			failed++;
			continue;
		}
		working++;
		if (test_bit(RD_IN_SYNC, &rdev->flags))
			active++;
		else
			spare++;
	}

	memset(&info, 0, sizeof(info));
	info.major_version = mddev->major_version;
	info.minor_version = mddev->minor_version;
	info.patch_version = MD_PATCHLEVEL_VERSION;
	info.ctime = clamp_t(u64, mddev->ctime, 0, U32_MAX);
	info.level = mddev->level;
	info.size = kib > INT_MAX ? -1 : (int)kib;
	info.nr_disks = nr;
	info.raid_disks = mddev->raid_disks;
	info.md_minor = mddev->unit;
	info.not_persistent = !mddev->persistent;
	info.utime = clamp_t(u64, mddev->utime, 0, U32_MAX);
	info.state = 0;
	if (mddev->in_sync)
		info.state |= 1 << MD_SB_CLEAN;
	/* an internal bitmap; a file is told by GET_BITMAP_FILE */
	if (md_internal_bitmap(mddev))
		info.state |= 1 << MD_SB_BITMAP_PRESENT;
	info.active_disks = active;
	info.working_disks = working;
	info.failed_disks = failed;
	info.spare_disks = spare;
	info.layout = mddev->layout;
	info.chunk_size = mddev->chunk_sectors << 9;

	return copy_to_user(arg, &info, sizeof(info)) ? -EFAULT : 0;
}

static int md_get_disk_info(struct mddev *mddev, void __user *arg)
{
	mdu_disk_info_t info;
	struct md_rdev *rdev, *found = NULL;

	if (copy_from_user(&info, arg, sizeof(info)))
		return -EFAULT;
	if (info.number < 0)
		return -EINVAL;

	rdev_for_each(rdev, mddev) {
		if (rdev->desc_nr == info.number) {
			found = rdev;
			break;
		}
	}
	if (found) {
		info.major = MAJOR(found->dev);
		info.minor = MINOR(found->dev);
		info.raid_disk = found->raid_disk;
		info.state = 0;
		if (test_bit(RD_FAULTY, &found->flags))
			info.state |= 1 << MD_DISK_FAULTY;
		else if (test_bit(RD_IN_SYNC, &found->flags))
			info.state |= (1 << MD_DISK_ACTIVE) | (1 << MD_DISK_SYNC);
		if (test_bit(RD_WRITE_MOSTLY, &found->flags))
			info.state |= 1 << MD_DISK_WRITEMOSTLY;
		if (test_bit(RD_FAILFAST, &found->flags))
			info.state |= 1 << MD_DISK_FAILFAST;
	} else {
		info.major = 0;
		info.minor = 0;
		info.raid_disk = -1;
		info.state = 1 << MD_DISK_REMOVED;
	}
	return copy_to_user(arg, &info, sizeof(info)) ? -EFAULT : 0;
}

/*
 * SET_ARRAY_INFO on a running array asks for one change (size,
 * raid_disks, layout or the bitmap bit) with everything else as it is.
 * raid_disks and layout may ask for a reshape (md_reshape_ask()), which
 * sync_action "reshape" starts; anything else is malformed.
 */
static int md_update_array_info(struct mddev *mddev, mdu_array_info_t *info)
{
	int changes = 0;

	if (info->major_version != mddev->major_version ||
	    info->minor_version != mddev->minor_version ||
	    info->level != mddev->level ||
	    info->chunk_size != mddev->chunk_sectors << 9 ||
	    info->not_persistent != !mddev->persistent ||
	    (info->state & ~((1 << MD_SB_CLEAN) | (1 << MD_SB_BITMAP_PRESENT))))
		return -EINVAL;
	if (info->size != (int)min_t(sector_t, mddev->dev_sectors / 2, INT_MAX))
		changes++;
	if (info->raid_disks != mddev->raid_disks)
		changes++;
	if (info->layout != mddev->layout)
		changes++;
	if (!(info->state & (1 << MD_SB_BITMAP_PRESENT)) !=
	    !md_internal_bitmap(mddev))
		changes++;
	if (!changes)
		return 0;
	if (changes > 1)
		return -EINVAL;
	if (info->raid_disks != mddev->raid_disks)
		return md_set_raid_disks(mddev, info->raid_disks);
	if (info->size != (int)min_t(sector_t, mddev->dev_sectors / 2, INT_MAX))
		return info->size >= 0 ?
			md_set_dev_sectors(mddev, (sector_t)info->size * 2) :
			-EINVAL;
	if (!(info->state & (1 << MD_SB_BITMAP_PRESENT)) !=
	    !md_internal_bitmap(mddev)) {
		/* removing is the same as md/bitmap/location "none" */
		if (md_internal_bitmap(mddev))
			return md_change_bitmap(mddev, 0);
		pr_warn("md: %s: add an internal bitmap through md/bitmap/location\n",
			mdname(mddev));
		return -EINVAL;
	}
	/* a layout change: a reshape asked for, started by sync_action */
	return md_reshape_ask(mddev, info->layout, mddev->new_chunk_sectors,
			      mddev->raid_disks + mddev->delta_disks);
}

/*
 * An array without superblocks (mdadm --build): SET_ARRAY_INFO carries
 * the whole description and ADD_NEW_DISK each member's slot.  Only
 * levels this stack serves without superblocks (linear, raid0, raid1)
 * are accepted; a raid0 has no layout then (see raid0.c).
 * As in-tree, the description is reported as version 0.90, not
 * persistent, with a random UUID; state CLEAN means no initial resync.
 */
static int md_set_array_nosb(struct mddev *mddev, const mdu_array_info_t *info)
{
	if (!info->not_persistent) {
		pr_warn("md: %s: SET_ARRAY_INFO array descriptions are only supported without superblocks (mdadm --build); mdadm writes superblocks itself\n",
			mdname(mddev));
		return -EINVAL;
	}
	if (info->level != 1 && info->level != 0 &&
	    info->level != LEVEL_LINEAR) {
		pr_warn("md: %s: arrays without superblock are supported for linear, raid0 and raid1 only, not level %d\n",
			mdname(mddev), info->level);
		return -EINVAL;
	}
	if (info->raid_disks < 1 || info->raid_disks > MD_SB_DISKS * 2 ||
	    info->size < 0 || info->chunk_size < 0 || info->layout ||
	    (info->state & ~(1 << MD_SB_CLEAN))) {
		pr_warn("md: %s: SET_ARRAY_INFO: bad description (raid_disks %d, size %d, chunk %d, layout %d, state %#x)\n",
			mdname(mddev), info->raid_disks, info->size,
			info->chunk_size, info->layout, info->state);
		return -EINVAL;
	}
	mddev->major_version = MD_MAJOR_VERSION;
	mddev->minor_version = MD_MINOR_VERSION;
	mddev->persistent = false;
	mddev->level = info->level;
	mddev->layout = info->level == 0 ? MD_LAYOUT_UNKNOWN : 0;
	mddev->chunk_sectors = info->chunk_size >> 9;
	mddev->raid_disks = info->raid_disks;
	mddev->reshape_position = MD_MAX_SECTOR;
	mddev->delta_disks = 0;
	mddev->reshape_backwards = false;
	mddev->dev_sectors = (sector_t)info->size * 2;
	mddev->max_disks = MD_NOSB_MAX_DISKS;
	mddev->ctime = ktime_get_real_seconds();
	mddev->utime = mddev->ctime;
	mddev->events = 0;
	get_random_bytes(mddev->uuid, sizeof(mddev->uuid));
	mddev->resync_offset = (info->state & (1 << MD_SB_CLEAN)) ?
			       MD_MAX_SECTOR : 0;
	return 0;
}

/*
 * Before the members are added: with raid_disks 0 only the superblock
 * version is set (what mdadm does to create or assemble: it writes the
 * superblocks itself, 1.0/1.1/1.2 or 0.90, and the kernel reads them at
 * ADD_NEW_DISK); with a description, an array without superblocks.
 * On a running array, one change (md_update_array_info).
 */
static int md_set_array_info(struct mddev *mddev, void __user *arg)
{
	mdu_array_info_t info;

	if (copy_from_user(&info, arg, sizeof(info)))
		return -EFAULT;
	if (mddev->pers)
		return md_update_array_info(mddev, &info);
	if (!list_empty(&mddev->disks)) {
		pr_warn("md: %s: array already has members\n", mdname(mddev));
		return -EBUSY;
	}
	if (mddev->raid_disks) {
		pr_warn("md: %s: array already described\n", mdname(mddev));
		return -EBUSY;
	}
	if (info.raid_disks)
		return md_set_array_nosb(mddev, &info);
	if (info.level || info.size || info.nr_disks || info.layout ||
	    info.chunk_size || info.not_persistent) {
		pr_warn("md: %s: SET_ARRAY_INFO without raid_disks sets only the superblock version\n",
			mdname(mddev));
		return -EINVAL;
	}
	if (!md_sb_version_ok(info.major_version, &info.minor_version)) {
		pr_warn("md: %s: superblock version %d.%d not supported (0.90, 1.0, 1.1, 1.2 only)\n",
			mdname(mddev), info.major_version, info.minor_version);
		return -EINVAL;
	}
	mddev->major_version = info.major_version;
	mddev->minor_version = info.minor_version;
	mddev->persistent = true;
	return 0;
}

static int md_ioctl_add_new_disk(struct mddev *mddev, void __user *arg)
{
	mdu_disk_info_t info;
	int readd_slot;
	dev_t dev;

	if (copy_from_user(&info, arg, sizeof(info)))
		return -EFAULT;
	dev = MKDEV(info.major, info.minor);
	if (info.major < 0 || info.minor < 0 || MAJOR(dev) != info.major ||
	    MINOR(dev) != info.minor)
		return -EOVERFLOW;
	if (info.state & ~((1 << MD_DISK_FAULTY) | (1 << MD_DISK_ACTIVE) |
			   (1 << MD_DISK_SYNC) | (1 << MD_DISK_REMOVED) |
			   (1 << MD_DISK_WRITEMOSTLY) | (1 << MD_DISK_FAILFAST) |
			   (1 << MD_DISK_REPLACEMENT))) {
		pr_warn("md: %s: ADD_NEW_DISK with unknown state bits %#x\n",
			mdname(mddev), info.state);
		return -EINVAL;
	}
	readd_slot = -1;
	if (mddev->pers && (info.state & (1 << MD_DISK_SYNC))) {
		if (info.raid_disk < 0 ||
		    info.raid_disk >= md_slot_limit(mddev))
			return -EINVAL;
		readd_slot = info.raid_disk;
	}
	if (!mddev->persistent && mddev->raid_disks)
		return md_add_nosb_disk(mddev, dev, &info);
	return md_add_new_disk(mddev, dev, &info, readd_slot);
}

static int md_ioctl_hot_remove(struct mddev *mddev, dev_t dev)
{
	struct md_rdev *rdev = md_find_rdev(mddev, dev);

	if (!rdev)
		return -ENXIO;
	return md_remove_rdev(mddev, rdev);
}

static int md_ioctl_set_faulty(struct mddev *mddev, dev_t dev)
{
	struct md_rdev *rdev = md_find_rdev(mddev, dev);

	if (!rdev)
		return -ENODEV;
	return md_fail_request(mddev, rdev);
}

/* HOT_ADD_DISK: the device must carry a superblock of this array. */
static int md_ioctl_hot_add(struct mddev *mddev, dev_t dev)
{
	if (!mddev->pers)
		return -ENODEV;
	return md_add_new_disk(mddev, dev, NULL, -1);
}

/* The bitmap file's path, or an empty one (no bitmap, or internal). */
static int md_get_bitmap_file(struct mddev *mddev, void __user *arg)
{
	mdu_bitmap_file_t *file;
	char *path;
	int err = 0;

	file = kzalloc(sizeof(*file), GFP_KERNEL);
	if (!file)
		return -ENOMEM;
	if (mddev->bitmap_file) {
		path = file_path(mddev->bitmap_file, file->pathname,
				 sizeof(file->pathname));
		if (IS_ERR(path))
			err = PTR_ERR(path);
		else
			memmove(file->pathname, path, strlen(path) + 1);
	}
	if (!err && copy_to_user(arg, file, sizeof(*file)))
		err = -EFAULT;
	kfree(file);
	return err;
}

/*
 * mdadm opens the file it wrote (O_RDWR) and passes the descriptor; -1
 * removes a bitmap file.  Only a regular file that nothing but that
 * descriptor has open for writing: two arrays or a second writer would
 * overwrite each other's bits.
 */
static int md_set_bitmap_file(struct mddev *mddev, int fd)
{
	const char *why = NULL;
	struct file *f;

	if (fd < 0)
		return md_change_bitmap_file(mddev, NULL);
	f = fget(fd);
	if (!f)
		return -EBADF;
	if (!S_ISREG(file_inode(f)->i_mode))
		why = "not a regular file";
	else if (!(f->f_mode & FMODE_WRITE))
		why = "not open for writing";
	else if (atomic_read(&file_inode(f)->i_writecount) != 1)
		why = "open for writing elsewhere too (in use?)";
	if (why) {
		pr_warn("md: %s: bitmap file refused: %s\n", mdname(mddev),
			why);
		fput(f);
		return -EBADF;
	}
	return md_change_bitmap_file(mddev, f);
}

static bool md_ioctl_known(unsigned int cmd)
{
	switch (cmd) {
	case RAID_VERSION:
	case GET_ARRAY_INFO:
	case GET_DISK_INFO:
	case GET_BITMAP_FILE:
	case SET_ARRAY_INFO:
	case ADD_NEW_DISK:
	case HOT_REMOVE_DISK:
	case HOT_ADD_DISK:
	case SET_DISK_FAULTY:
	case RUN_ARRAY:
	case STOP_ARRAY:
	case STOP_ARRAY_RO:
	case RESTART_ARRAY_RW:
	case SET_BITMAP_FILE:
		return true;
	default:
		return false;
	}
}

/* Commands taking a dev_t value rather than a pointer. */
static bool md_ioctl_arg_is_value(unsigned int cmd)
{
	return cmd == HOT_REMOVE_DISK || cmd == HOT_ADD_DISK ||
	       cmd == SET_DISK_FAULTY || cmd == SET_BITMAP_FILE;
}

static dev_t md_arg_dev(unsigned long arg)
{
	return new_decode_dev(arg);
}

int md_ioctl(struct block_device *bdev, unsigned int cmd, unsigned long arg)
{
	struct mddev *mddev = bdev->bd_disk->private_data;
	void __user *argp = (void __user *)arg;
	bool configured;
	int err;

	if (!md_ioctl_known(cmd))
		return -ENOTTY;
	if (cmd == RAID_VERSION)
		return md_get_version(argp);
	if (cmd != GET_ARRAY_INFO && cmd != GET_DISK_INFO &&
	    cmd != GET_BITMAP_FILE && !capable(CAP_SYS_ADMIN))
		return -EACCES;

	/* flush the page cache before the array goes away or read-only */
	if (cmd == STOP_ARRAY || cmd == STOP_ARRAY_RO)
		sync_blockdev(bdev);

	/* a removed member's directory of the same name must be gone */
	if (cmd == ADD_NEW_DISK || cmd == HOT_ADD_DISK)
		md_wait_member_dirs();

	err = mddev_lock(mddev);
	if (err)
		return err;

	configured = mddev->pers || mddev->raid_disks;
	switch (cmd) {
	case GET_ARRAY_INFO:
		err = configured ? md_get_array_info(mddev, argp) : -ENODEV;
		break;
	case GET_DISK_INFO:
		err = configured ? md_get_disk_info(mddev, argp) : -ENODEV;
		break;
	case GET_BITMAP_FILE:
		err = md_get_bitmap_file(mddev, argp);
		break;
	case SET_ARRAY_INFO:
		err = md_set_array_info(mddev, argp);
		break;
	case ADD_NEW_DISK:
		err = md_ioctl_add_new_disk(mddev, argp);
		break;
	case RUN_ARRAY:
		err = md_run(mddev);
		break;
	case STOP_ARRAY:
		err = md_stop(mddev, 0, bdev);
		if (!err)
			invalidate_bdev(bdev);
		break;
	case STOP_ARRAY_RO:
		err = md_set_readonly(mddev, bdev);
		break;
	case RESTART_ARRAY_RW:
		err = md_restart_rw(mddev);
		break;
	case HOT_REMOVE_DISK:
		err = configured ? md_ioctl_hot_remove(mddev, md_arg_dev(arg)) :
			-ENODEV;
		break;
	case HOT_ADD_DISK:
		err = md_ioctl_hot_add(mddev, md_arg_dev(arg));
		break;
	case SET_DISK_FAULTY:
		err = mddev->pers ? md_ioctl_set_faulty(mddev, md_arg_dev(arg)) :
			-ENODEV;
		break;
	case SET_BITMAP_FILE:
		err = md_set_bitmap_file(mddev, (int)arg);
		break;
	}
	mddev_unlock(mddev);
	/* RUN_ARRAY and STOP_ARRAY return with the sync files in place */
	md_sysfs_sync_settle(mddev);
	return err;
}

/*
 * BLKROSET (blockdev --setro / --setrw).  The block layer records the
 * flag on the device it was issued to; clearing it on a read-only array
 * also makes the array read-auto, as in-tree, so the first write makes
 * it read-write.  Setting it changes nothing of the array.
 */
int md_set_read_only(struct block_device *bdev, bool ro)
{
	struct mddev *mddev = bdev->bd_disk->private_data;
	int err;

	err = mddev_lock(mddev);
	if (err)
		return err;
	if (!mddev->pers && !mddev->raid_disks) {
		err = -ENODEV;
		goto unlock;
	}
	if (!ro && mddev->pers && mddev->ro == 1) {
		spin_lock_irq(&mddev->lock);
		mddev->ro = 2;
		spin_unlock_irq(&mddev->lock);
		set_disk_ro(mddev->gendisk, 0);
		md_notify(mddev->sysfs_state);
		md_new_event();
	}
unlock:
	mddev_unlock(mddev);
	return err;
}

#ifdef CONFIG_COMPAT
int md_compat_ioctl(struct block_device *bdev, unsigned int cmd,
		    unsigned long arg)
{
	if (!md_ioctl_arg_is_value(cmd))
		arg = (unsigned long)compat_ptr(arg);
	return md_ioctl(bdev, cmd, arg);
}
#endif
