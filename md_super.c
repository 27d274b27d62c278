// SPDX-License-Identifier: GPL-2.0
/*
 * Version-1 md superblocks (1.0, 1.1, 1.2).
 *
 * Design
 *
 * Compatibility.  The layout is struct mdp_superblock_1 from
 * <linux/raid/md_p.h>; its location depends on the minor version (1.0:
 * 8-12 KiB before the end, 4 KiB aligned; 1.1: sector 0; 1.2: 4 KiB).
 * Every member keeps the image it was loaded from (rdev->sb_page) and
 * each update rewrites only the fields this stack owns inside that
 * image, so whatever mdadm put there that we do not interpret (device
 * UUID, bad block log reservation, name, ctime, reshape fields that are
 * idle) survives byte for byte.  A reshape in progress (RAID4/5/6 only)
 * is imported and written back while it runs (md_reshape.c).  Anything
 * we cannot honour (journal, PPL, unknown feature or padding bits) is
 * refused at load time with a message, never silently dropped.
 *
 * Events.  Every write increments the event counter, clean<->dirty
 * changes included.  In-tree md sometimes lowers it by one when marking
 * clean; we never do, which in-tree and mdadm both accept (they only
 * require monotonic counts and tolerate members one event behind).
 *
 * Crash safety.  A superblock saying "dirty" is written with its
 * resync_offset at 0, and md_write_start() must not let data writes
 * through before md_super_write_all() has returned.  A superblock
 * saying "clean" is written in two phases: first an empty cache flush
 * to every member, then the superblocks themselves (FUA).  So no member
 * can carry a clean superblock while another member still holds array
 * data only in a volatile cache.  If the array goes dirty during the
 * flushes, "clean" is dropped before anything of it is sent and "dirty"
 * is written straight away, so the waiting writer pays one superblock
 * write, not two.  Each superblock write is also
 * REQ_PREFLUSH|REQ_FUA, so a recovery_offset checkpoint is durable only
 * after the rebuilt data below it.  A crash between members leaves
 * some one event behind, which assembly tolerates (the freshest one's
 * roles decide).
 *
 * Growth.  A member's device may grow under a running array (a cloud
 * disk resized, a dm table reloaded); dev-XXX/size then lets its data
 * use the new room (md_super_resize_rdev(), the format's resize_room)
 * and the next write round records it: data_size for 1.x, and for 1.0
 * (0.90 likewise) a superblock at the new end, super_offset with it.
 * The superblock left at the old place is inside the data area from
 * then on and is never looked at again: a superblock is only searched
 * for where the format puts it for the device's current size.  Only a
 * later change of md/component_size makes the array use the room.
 */
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>

#include "md.h"
#include "md_super.h"
#include "md_super_ops.h"
#include "md_badblocks.h"
#include "md_bitmap.h"

/* One page is read; a superblock with its roles table must fit in it. */
#define SB_IO_BYTES		4096
#define SB_IO_SECTORS		(SB_IO_BYTES >> 9)
#define SB_HEADER_BYTES		256
#define SB_MAX_DEV		((SB_IO_BYTES - SB_HEADER_BYTES) / 2)

/* Feature bits this stack understands; everything else is refused. */
#define SB_FEATURES_OK		(MD_FEATURE_RECOVERY_OFFSET | \
				 MD_FEATURE_REPLACEMENT | \
				 MD_FEATURE_RAID0_LAYOUT | \
				 MD_FEATURE_BITMAP_OFFSET | \
				 MD_FEATURE_RECOVERY_BITMAP)
/* Feature bits we keep as found when rewriting. */
#define SB_FEATURES_KEEP	MD_FEATURE_RAID0_LAYOUT

static struct mdp_superblock_1 *rdev_sb(struct md_rdev *rdev)
{
	return page_address(rdev->sb_page);
}

static unsigned int sb_bytes(const struct mdp_superblock_1 *sb)
{
	return SB_HEADER_BYTES + 2 * le32_to_cpu(sb->max_dev);
}

/* Bytes written back: the superblock rounded up to a logical block. */
static unsigned int sb1_io_bytes(struct md_rdev *rdev)
{
	return round_up(sb_bytes(rdev_sb(rdev)),
			bdev_logical_block_size(rdev->bdev));
}

/*
 * 32-bit sum of the little-endian words of the first 256 + 2 * max_dev
 * bytes, sb_csum counted as zero, a trailing half word added as is, the
 * carry folded back in once.
 */
static __le32 sb_checksum(const struct mdp_superblock_1 *sb)
{
	const __le32 *word = (const __le32 *)sb;
	unsigned int csum_idx = offsetof(struct mdp_superblock_1, sb_csum) / 4;
	unsigned int bytes = sb_bytes(sb);
	unsigned int i;
	u64 sum = 0;

	for (i = 0; i < bytes / 4; i++)
		if (i != csum_idx)
			sum += le32_to_cpu(word[i]);
	if (bytes & 2)
		sum += le16_to_cpu(*(const __le16 *)&word[i]);

	return cpu_to_le32((u32)((sum & 0xffffffff) + (sum >> 32)));
}

int md_super_read_page(struct md_rdev *rdev, sector_t sector)
{
	struct bio_vec bvec;
	struct bio bio;
	int ret;

	bio_init(&bio, rdev->bdev, &bvec, 1, REQ_OP_READ | REQ_META);
	bio.bi_iter.bi_sector = sector;
	__bio_add_page(&bio, rdev->sb_page, SB_IO_BYTES, 0);
	ret = submit_bio_wait(&bio);
	bio_uninit(&bio);
	return ret;
}

/* Was the member in sync, or rebuilt from the bitmap, when it left? */
static bool sb_readd_whole(u32 features)
{
	return !(features & MD_FEATURE_RECOVERY_OFFSET) ||
	       (features & MD_FEATURE_RECOVERY_BITMAP);
}

static const char *sb_feature_refusal(u32 features, u32 level)
{
	if (features & ~MD_FEATURE_ALL)
		return "unknown superblock feature bits";
	/*
	 * An internal bitmap is md_bitmap.c's; RECOVERY_BITMAP (rebuild
	 * only dirty chunks above recovery_offset) is read as a full
	 * rebuild from recovery_offset, which covers more.
	 */
	if ((features & MD_FEATURE_RECOVERY_BITMAP) &&
	    !(features & MD_FEATURE_BITMAP_OFFSET))
		return "bitmap-based recovery without a bitmap";
	if ((features & (MD_FEATURE_RESHAPE_BACKWARDS |
			 MD_FEATURE_NEW_OFFSET)) &&
	    !(features & MD_FEATURE_RESHAPE_ACTIVE))
		return "reshape fields without a reshape in progress";
	if ((features & MD_FEATURE_RESHAPE_ACTIVE) &&
	    level != 4 && level != 5 && level != 6)
		return "reshape in progress on a level this stack cannot reshape";
	if (features & MD_FEATURE_CLUSTERED)
		return "clustered md not supported";
	if (features & MD_FEATURE_JOURNAL)
		return "write journal not supported";
	if (features & (MD_FEATURE_PPL | MD_FEATURE_MULTIPLE_PPLS))
		return "partial parity log not supported";
	if ((features & MD_FEATURE_RAID0_LAYOUT) && level != 0)
		return "raid0 layout flag on a non-raid0 array";
	return NULL;
}

/* Check a superblock just read at @sb_start of a @dev_sectors device. */
static int sb_validate(struct md_rdev *rdev, struct mdp_superblock_1 *sb,
		       int minor_version, sector_t sb_start,
		       sector_t dev_sectors)
{
	u32 features = le32_to_cpu(sb->feature_map);
	u32 max_dev = le32_to_cpu(sb->max_dev);
	u64 data_offset = le64_to_cpu(sb->data_offset);
	u64 data_size = le64_to_cpu(sb->data_size);
	u64 data_limit;
	const char *why;
	__le32 csum;

	if (le32_to_cpu(sb->magic) != MD_SB_MAGIC) {
		pr_warn("md: %pg: bad superblock magic 0x%08x\n",
			rdev->bdev, le32_to_cpu(sb->magic));
		return -EINVAL;
	}
	if (le32_to_cpu(sb->major_version) != 1) {
		pr_warn("md: %pg: unsupported superblock major version %u\n",
			rdev->bdev, le32_to_cpu(sb->major_version));
		return -EINVAL;
	}
	if (max_dev == 0 || max_dev > SB_MAX_DEV) {
		pr_warn("md: %pg: superblock max_dev %u out of range\n",
			rdev->bdev, max_dev);
		return -EINVAL;
	}
	csum = sb_checksum(sb);
	if (csum != sb->sb_csum) {
		pr_warn("md: %pg: bad superblock checksum 0x%08x (computed 0x%08x)\n",
			rdev->bdev, le32_to_cpu(sb->sb_csum), le32_to_cpu(csum));
		return -EINVAL;
	}
	if (le64_to_cpu(sb->super_offset) != sb_start) {
		pr_warn("md: %pg: super_offset %llu does not match the 1.%d location %llu\n",
			rdev->bdev, le64_to_cpu(sb->super_offset),
			minor_version, (u64)sb_start);
		return -EINVAL;
	}
	if (sb->pad0 || memchr_inv(sb->pad3, 0, sizeof(sb->pad3))) {
		pr_warn("md: %pg: reserved superblock fields are not zero (newer format?)\n",
			rdev->bdev);
		return -EINVAL;
	}
	why = sb_feature_refusal(features, le32_to_cpu(sb->level));
	if (!why && (features & MD_FEATURE_BITMAP_OFFSET) &&
	    !le32_to_cpu(sb->bitmap_offset))
		why = "bitmap_offset 0 overlaps the superblock";
	if (why) {
		pr_warn("md: %pg: %s (feature_map 0x%x)\n",
			rdev->bdev, why, features);
		return -EINVAL;
	}
	if (le32_to_cpu(sb->dev_number) >= max_dev) {
		pr_warn("md: %pg: dev_number %u not below max_dev %u\n",
			rdev->bdev, le32_to_cpu(sb->dev_number), max_dev);
		return -EINVAL;
	}
	if (minor_version == 0) {
		data_limit = sb_start;
	} else {
		data_limit = dev_sectors;
		if (data_offset < sb_start + DIV_ROUND_UP(sb_bytes(sb), 512)) {
			pr_warn("md: %pg: data_offset %llu overlaps the superblock\n",
				rdev->bdev, data_offset);
			return -EINVAL;
		}
	}
	if (data_size < 10 || data_offset > data_limit ||
	    data_size > data_limit - data_offset) {
		pr_warn("md: %pg: data area %llu+%llu does not fit the device (limit %llu)\n",
			rdev->bdev, data_offset, data_size, data_limit);
		return -EINVAL;
	}
	return 0;
}

/*
 * The bad-block log area named by @sb (bblog_offset sectors from the
 * superblock, bblog_size sectors): check it lies on the device clear of
 * the superblock and the data, then hand it to md_badblocks.c, with its
 * entries if MD_FEATURE_BAD_BLOCKS says there are any.
 */
static int sb1_load_bblog(struct md_rdev *rdev, struct mdp_superblock_1 *sb,
			  sector_t sb_start, sector_t dev_sectors)
{
	u32 features = le32_to_cpu(sb->feature_map);
	s64 off = (s32)le32_to_cpu(sb->bblog_offset);
	u64 size = le16_to_cpu(sb->bblog_size);
	u64 data_start = le64_to_cpu(sb->data_offset);
	u64 data_end = data_start + le64_to_cpu(sb->data_size);
	u64 sb_end = sb_start + DIV_ROUND_UP(sb_bytes(sb), 512);
	s64 start = (s64)sb_start + off;
	const char *why = NULL;

	if (!off || !size) {
		if (!(features & MD_FEATURE_BAD_BLOCKS))
			return 0;	/* no log area: failures fail the member */
		why = "bad block log flagged but no log area";
	} else if (start < 0 || start + size > dev_sectors) {
		why = "bad block log outside the device";
	} else if ((u64)start < data_end && (u64)start + size > data_start) {
		why = "bad block log overlaps the data";
	} else if ((u64)start < sb_end && (u64)start + size > sb_start) {
		why = "bad block log overlaps the superblock";
	} else if (sb->bblog_shift > 16) {
		why = "bad block log shift out of range";
	}
	if (why) {
		pr_warn("md: %pg: %s (offset %lld, size %llu)\n",
			rdev->bdev, why, off, size);
		return -EINVAL;
	}
	return md_bb_load(rdev, start, size,
			  (features & MD_FEATURE_BAD_BLOCKS) ?
			  sb->bblog_shift : -1);
}

/* Where 1.0 keeps its superblock: 8-12 KiB before the end, 4 KiB aligned. */
static sector_t sb1_end_start(sector_t dev_sectors)
{
	return (dev_sectors - 2 * SB_IO_SECTORS) &
	       ~(sector_t)(SB_IO_SECTORS - 1);
}

static int sb1_load(struct md_rdev *rdev, int minor_version)
{
	sector_t dev_sectors = bdev_nr_sectors(rdev->bdev);
	struct mdp_superblock_1 *sb;
	sector_t sb_start;
	int ret;

	switch (minor_version) {
	case 0:
		if (dev_sectors < 2 * SB_IO_SECTORS + SB_IO_SECTORS) {
			pr_warn("md: %pg: too small for a superblock\n",
				rdev->bdev);
			return -EINVAL;
		}
		sb_start = sb1_end_start(dev_sectors);
		break;
	case 1:
		sb_start = 0;
		break;
	case 2:
		sb_start = SB_IO_SECTORS;
		break;
	default:
		pr_warn("md: %pg: superblock version 1.%d unknown\n",
			rdev->bdev, minor_version);
		return -EINVAL;
	}
	if (sb_start + SB_IO_SECTORS > dev_sectors) {
		pr_warn("md: %pg: too small for a superblock\n", rdev->bdev);
		return -EINVAL;
	}

	ret = md_super_read_page(rdev, sb_start);
	if (ret) {
		pr_warn("md: %pg: cannot read the superblock (%d)\n",
			rdev->bdev, ret);
		return ret;
	}
	sb = rdev_sb(rdev);
	ret = sb_validate(rdev, sb, minor_version, sb_start, dev_sectors);
	if (ret)
		return ret;
	ret = sb1_load_bblog(rdev, sb, sb_start, dev_sectors);
	if (ret)
		return ret;

	rdev->sb_start = sb_start;
	rdev->data_offset = le64_to_cpu(sb->data_offset);
	rdev->new_data_offset = rdev->data_offset;
	if (le32_to_cpu(sb->feature_map) & MD_FEATURE_NEW_OFFSET)
		rdev->new_data_offset += (s32)le32_to_cpu(sb->new_offset);
	rdev->sectors = le64_to_cpu(sb->data_size);
	rdev->desc_nr = le32_to_cpu(sb->dev_number);
	rdev->sb_events = le64_to_cpu(sb->events);
	return 0;
}

static int sb1_same_array(struct md_rdev *ref, struct md_rdev *rdev)
{
	struct mdp_superblock_1 *rsb = rdev_sb(ref);
	struct mdp_superblock_1 *sb = rdev_sb(rdev);

	if (memcmp(sb->set_uuid, rsb->set_uuid, sizeof(sb->set_uuid))) {
		pr_warn("md: %pg: has a different array UUID, not adding\n",
			rdev->bdev);
		return -EINVAL;
	}
	if (sb->level != rsb->level || sb->layout != rsb->layout ||
	    sb->chunksize != rsb->chunksize) {
		pr_warn("md: %pg: level/layout/chunk differ from %pg, not adding\n",
			rdev->bdev, ref->bdev);
		return -EINVAL;
	}
	return 0;
}

static int sb1_import_array(struct mddev *mddev, struct md_rdev *freshest)
{
	struct mdp_superblock_1 *sb = rdev_sb(freshest);
	u32 raid_disks = le32_to_cpu(sb->raid_disks);
	u32 max_dev = le32_to_cpu(sb->max_dev);
	u64 size = le64_to_cpu(sb->size);

	if (raid_disks == 0 || raid_disks > max_dev) {
		pr_warn("md: %pg: raid_disks %u out of range (max_dev %u)\n",
			freshest->bdev, raid_disks, max_dev);
		return -EINVAL;
	}
	if (size > freshest->sectors) {
		pr_warn("md: %pg: array size %llu exceeds data_size %llu\n",
			freshest->bdev, size, (u64)freshest->sectors);
		return -EINVAL;
	}

	mddev->major_version = 1;
	mddev->level = (int)le32_to_cpu(sb->level);
	mddev->layout = (int)le32_to_cpu(sb->layout);
	/* a raid0 layout counts only where the feature bit says so */
	if (!mddev->level &&
	    !(le32_to_cpu(sb->feature_map) & MD_FEATURE_RAID0_LAYOUT))
		mddev->layout = MD_LAYOUT_UNKNOWN;
	mddev->chunk_sectors = le32_to_cpu(sb->chunksize);
	mddev->raid_disks = raid_disks;
	mddev->new_level = mddev->level;
	mddev->new_layout = mddev->layout;
	mddev->new_chunk_sectors = mddev->chunk_sectors;
	mddev->delta_disks = 0;
	mddev->reshape_backwards = false;
	mddev->reshape_position = MD_MAX_SECTOR;
	if (le32_to_cpu(sb->feature_map) & MD_FEATURE_RESHAPE_ACTIVE) {
		mddev->reshape_position = le64_to_cpu(sb->reshape_position);
		mddev->new_level = (int)le32_to_cpu(sb->new_level);
		mddev->new_layout = (int)le32_to_cpu(sb->new_layout);
		mddev->new_chunk_sectors = le32_to_cpu(sb->new_chunk);
		mddev->delta_disks = (s32)le32_to_cpu(sb->delta_disks);
		/* as in-tree: to fewer members it is backwards, flag or not */
		mddev->reshape_backwards = mddev->delta_disks < 0 ||
			(!mddev->delta_disks &&
			 (le32_to_cpu(sb->feature_map) &
			  MD_FEATURE_RESHAPE_BACKWARDS));
		if (mddev->delta_disks >= (int)raid_disks ||
		    (int)raid_disks - mddev->delta_disks > (int)max_dev ||
		    mddev->new_level != mddev->level) {
			pr_warn("md: %pg: reshape from %d to %u members, level %d to %d, not supported\n",
				freshest->bdev,
				(int)raid_disks - mddev->delta_disks,
				raid_disks, mddev->level, mddev->new_level);
			return -EINVAL;
		}
	}
	mddev->dev_sectors = size;
	memcpy(mddev->uuid, sb->set_uuid, sizeof(mddev->uuid));
	strscpy(mddev->set_name, sb->set_name,
		min(sizeof(mddev->set_name), sizeof(sb->set_name)));
	/* low 40 bits are seconds, the rest microseconds we do not keep */
	mddev->ctime = le64_to_cpu(sb->ctime) & ((1ULL << 40) - 1);
	mddev->utime = le64_to_cpu(sb->utime) & ((1ULL << 40) - 1);
	mddev->events = le64_to_cpu(sb->events);
	mddev->resync_offset = le64_to_cpu(sb->resync_offset);
	mddev->max_disks = max_dev;
	mddev->bitmap_offset = 0;
	if (le32_to_cpu(sb->feature_map) & MD_FEATURE_BITMAP_OFFSET)
		mddev->bitmap_offset = (s32)le32_to_cpu(sb->bitmap_offset);
	return 0;
}

struct md_rdev *md_super_freshest(struct mddev *mddev)
{
	struct md_rdev *rdev;

	rdev_for_each(rdev, mddev)
		if (rdev->sb_page && rdev->sb_events == mddev->events)
			return rdev;
	return NULL;
}

static bool role_is_slot(unsigned int role)
{
	return role < MD_DISK_ROLE_MAX;
}

static int sb1_import_rdev(struct mddev *mddev, struct md_rdev *rdev)
{
	struct mdp_superblock_1 *sb = rdev_sb(rdev);
	u32 features = le32_to_cpu(sb->feature_map);
	u64 events = le64_to_cpu(sb->events);
	struct md_rdev *fresh;
	unsigned int role;

	rdev->raid_disk = -1;
	rdev->saved_raid_disk = -1;
	rdev->recovery_offset = 0;
	clear_bit(RD_REPLACEMENT, &rdev->flags);
	clear_bit(RD_FAULTY, &rdev->flags);
	clear_bit(RD_IN_SYNC, &rdev->flags);
	clear_bit(RD_BITMAP_READD, &rdev->flags);
	assign_bit(RD_WRITE_MOSTLY, &rdev->flags, sb->devflags & WriteMostly1);
	assign_bit(RD_FAILFAST, &rdev->flags, sb->devflags & FailFast1);
	/* corrected read errors: what dev-XXX/errors shows, as in-tree */
	atomic_set(&rdev->errors, le32_to_cpu(sb->cnt_corrected_read));
	atomic_set(&rdev->read_errors, le32_to_cpu(sb->cnt_corrected_read));

	if (rdev->sectors < mddev->dev_sectors) {
		pr_warn("md: %s: %pg: data_size %llu smaller than the array's %llu\n",
			mdname(mddev), rdev->bdev, (u64)rdev->sectors,
			(u64)mddev->dev_sectors);
		return -EINVAL;
	}
	if (rdev->desc_nr < 0 || rdev->desc_nr >= le32_to_cpu(sb->max_dev))
		return 0;	/* no recorded role: a spare */
	role = le16_to_cpu(sb->dev_roles[rdev->desc_nr]);

	if (mddev->pers) {
		/*
		 * Hot-add to a running array: never trusted as in sync
		 * without a bitmap; a fresh former member remembers its slot
		 * so the personality can prefer it.
		 */
		if (events == mddev->events && role_is_slot(role) &&
		    role < md_slot_limit(mddev))
			rdev->saved_raid_disk = role;
		/*
		 * With a bitmap, a former member that left no earlier than
		 * the last clearing misses only chunks whose bits are set.
		 * Not one that left part-way through a full rebuild (a
		 * recovery offset, and no RECOVERY_BITMAP saying the rebuild
		 * was itself the bitmap's): past that offset it never held
		 * the data, whatever the bits say.  It is rebuilt in full.
		 */
		if (role_is_slot(role) && role < md_slots(mddev) &&
		    sb_readd_whole(features) &&
		    md_bitmap_readd_ok(mddev, events)) {
			rdev->saved_raid_disk = role;
			set_bit(RD_BITMAP_READD, &rdev->flags);
		}
		return 0;
	}

	/* Assembling: like mdadm, allow one event behind the freshest. */
	if (role_is_slot(role) && events + 1 < mddev->events) {
		pr_warn("md: %s: %pg: kicking non-fresh member (events %llu, array %llu)\n",
			mdname(mddev), rdev->bdev, events, mddev->events);
		return -ESTALE;
	}
	/*
	 * One behind: our own superblock may predate the write that marked
	 * us faulty, so the freshest member's view of our role decides.
	 */
	fresh = events < mddev->events ? md_super_freshest(mddev) : NULL;
	if (fresh) {
		struct mdp_superblock_1 *fsb = rdev_sb(fresh);

		if (rdev->desc_nr >= le32_to_cpu(fsb->max_dev)) {
			pr_warn("md: %s: %pg: dev_number %d unknown to freshest member %pg\n",
				mdname(mddev), rdev->bdev, rdev->desc_nr,
				fresh->bdev);
			return -EINVAL;
		}
		role = le16_to_cpu(fsb->dev_roles[rdev->desc_nr]);
	}

	switch (role) {
	case MD_DISK_ROLE_SPARE:
		break;
	case MD_DISK_ROLE_FAULTY:
		set_bit(RD_FAULTY, &rdev->flags);
		break;
	case MD_DISK_ROLE_JOURNAL:
		pr_warn("md: %s: %pg: journal device not supported\n",
			mdname(mddev), rdev->bdev);
		return -EINVAL;
	default:
		if (!role_is_slot(role) || role >= md_slots(mddev)) {
			pr_warn("md: %s: %pg: role %u beyond raid_disks %d, treating as spare\n",
				mdname(mddev), rdev->bdev, role,
				md_slots(mddev));
			break;
		}
		rdev->raid_disk = role;
		/* built beside the member of the same role (md_core.c) */
		if (features & MD_FEATURE_REPLACEMENT)
			set_bit(RD_REPLACEMENT, &rdev->flags);
		if (features & MD_FEATURE_RECOVERY_OFFSET) {
			rdev->recovery_offset = le64_to_cpu(sb->recovery_offset);
		} else {
			rdev->saved_raid_disk = role;
			set_bit(RD_IN_SYNC, &rdev->flags);
		}
		break;
	}
	return 0;
}

static bool desc_nr_free(struct mddev *mddev, struct md_rdev *rdev, int nr)
{
	struct md_rdev *other;

	if (nr < 0 || nr >= mddev->max_disks)
		return false;
	rdev_for_each(other, mddev)
		if (other != rdev && other->desc_nr == nr)
			return false;
	return true;
}

int md_super_pick_desc_nr(struct mddev *mddev, struct md_rdev *rdev)
{
	int nr;

	if (desc_nr_free(mddev, rdev, rdev->desc_nr))
		return 0;
	/* the recorded number is unusable: take the first free one */
	for (nr = 0; nr < mddev->max_disks; nr++) {
		if (desc_nr_free(mddev, rdev, nr)) {
			rdev->desc_nr = nr;
			return 0;
		}
	}
	return -ENOSPC;
}

static u16 rdev_role(struct md_rdev *rdev)
{
	if (test_bit(RD_FAULTY, &rdev->flags))
		return MD_DISK_ROLE_FAULTY;
	if (rdev->raid_disk >= 0)
		return rdev->raid_disk;
	return MD_DISK_ROLE_SPARE;
}

/*
 * Make room for dev_roles[@need - 1] if the superblock may grow there:
 * within the page, before the data (1.1/1.2) and before a bad block
 * log placed after it.
 */
static bool sb_grow_roles(struct md_rdev *rdev, struct mdp_superblock_1 *sb,
			  u32 need)
{
	unsigned int bytes = SB_HEADER_BYTES + 2 * need;
	s32 bblog = (s32)le32_to_cpu(sb->bblog_offset);
	u32 i;

	if (need > SB_MAX_DEV)
		return false;
	if (rdev->data_offset > rdev->sb_start &&
	    rdev->sb_start + DIV_ROUND_UP(bytes, 512) > rdev->data_offset)
		return false;
	if (bblog > 0 && DIV_ROUND_UP(bytes, 512) > bblog)
		return false;
	for (i = le32_to_cpu(sb->max_dev); i < need; i++)
		sb->dev_roles[i] = cpu_to_le16(MD_DISK_ROLE_SPARE);
	sb->max_dev = cpu_to_le32(need);
	return true;
}

static void sb1_fill(struct mddev *mddev, struct md_rdev *rdev,
		     const struct md_sb_state *st)
{
	struct mdp_superblock_1 *sb = rdev_sb(rdev);
	u32 features = le32_to_cpu(sb->feature_map) & SB_FEATURES_KEEP;
	struct md_rdev *other;
	u32 max_dev, i;

	sb->pad0 = 0;
	memset(sb->pad3, 0, sizeof(sb->pad3));

	sb->level = cpu_to_le32((u32)mddev->level);
	sb->layout = cpu_to_le32((u32)mddev->layout);
	sb->chunksize = cpu_to_le32(mddev->chunk_sectors);
	sb->raid_disks = cpu_to_le32(mddev->raid_disks);
	sb->size = cpu_to_le64(mddev->dev_sectors);

	sb->data_offset = cpu_to_le64(rdev->data_offset);
	sb->data_size = cpu_to_le64(rdev->sectors);
	sb->super_offset = cpu_to_le64(rdev->sb_start);
	sb->dev_number = cpu_to_le32(rdev->desc_nr);
	sb->cnt_corrected_read = cpu_to_le32(atomic_read(&rdev->errors));
	if (test_bit(RD_WRITE_MOSTLY, &rdev->flags))
		sb->devflags |= WriteMostly1;
	else
		sb->devflags &= ~WriteMostly1;
	if (test_bit(RD_FAILFAST, &rdev->flags))
		sb->devflags |= FailFast1;
	else
		sb->devflags &= ~FailFast1;

	/* a member being rebuilt records how far it got */
	sb->recovery_offset = 0;
	if (rdev->raid_disk >= 0 && !test_bit(RD_IN_SYNC, &rdev->flags) &&
	    !test_bit(RD_FAULTY, &rdev->flags)) {
		features |= MD_FEATURE_RECOVERY_OFFSET;
		sb->recovery_offset = cpu_to_le64(rdev->recovery_offset);
	}
	if (rdev->raid_disk >= 0 && test_bit(RD_REPLACEMENT, &rdev->flags))
		features |= MD_FEATURE_REPLACEMENT;
	/* md_bb_write() stores the log with shift 0, before this goes out */
	if (rdev->badblocks.shift >= 0 && READ_ONCE(rdev->badblocks.count)) {
		features |= MD_FEATURE_BAD_BLOCKS;
		sb->bblog_shift = 0;
	}
	if (md_internal_bitmap(mddev)) {
		features |= MD_FEATURE_BITMAP_OFFSET;
		sb->bitmap_offset = cpu_to_le32((u32)mddev->bitmap_offset);
	}
	if (mddev->reshape_position != MD_MAX_SECTOR) {
		features |= MD_FEATURE_RESHAPE_ACTIVE;
		sb->reshape_position = cpu_to_le64(mddev->reshape_position);
		sb->new_level = cpu_to_le32((u32)mddev->new_level);
		sb->new_layout = cpu_to_le32((u32)mddev->new_layout);
		sb->new_chunk = cpu_to_le32(mddev->new_chunk_sectors);
		sb->delta_disks = cpu_to_le32((u32)mddev->delta_disks);
		if (mddev->reshape_backwards)
			features |= MD_FEATURE_RESHAPE_BACKWARDS;
		if (rdev->new_data_offset != rdev->data_offset) {
			features |= MD_FEATURE_NEW_OFFSET;
			sb->new_offset = cpu_to_le32((u32)(s32)
				(rdev->new_data_offset - rdev->data_offset));
		}
	}
	sb->feature_map = cpu_to_le32(features);

	sb->utime = cpu_to_le64(st->utime);
	sb->events = cpu_to_le64(st->events);
	/* a dirty array knows nothing to be in sync: resync all of it */
	sb->resync_offset = cpu_to_le64(st->clean ? (u64)st->resync_offset : 0);

	max_dev = 0;
	rdev_for_each(other, mddev)
		if (other->desc_nr >= 0)
			max_dev = max_t(u32, max_dev, other->desc_nr + 1);
	if (max_dev > le32_to_cpu(sb->max_dev) &&
	    !sb_grow_roles(rdev, sb, max_dev))
		pr_warn_ratelimited("md: %s: %pg: no room for %u roles in the superblock\n",
				    mdname(mddev), rdev->bdev, max_dev);
	max_dev = le32_to_cpu(sb->max_dev);

	for (i = 0; i < max_dev; i++)
		sb->dev_roles[i] = cpu_to_le16(MD_DISK_ROLE_SPARE);
	rdev_for_each(other, mddev)
		if (other->desc_nr >= 0 && other->desc_nr < max_dev)
			sb->dev_roles[other->desc_nr] =
				cpu_to_le16(rdev_role(other));

	sb->sb_csum = sb_checksum(sb);
}

/* Lower *@end to @start if an area at @start lies in the data's way. */
static void sb1_clamp_end(struct md_rdev *rdev, s64 start, sector_t *end)
{
	if (start >= (s64)rdev->data_offset && start < (s64)*end)
		*end = start;
}

/*
 * 1.1 and 1.2 keep the superblock (and mdadm the bad-block log and the
 * bitmap) before the data, which may then reach the end of the device.
 * 1.0 keeps it at the end: it moves to the new end, and whatever lies
 * between the data and it (the log, mdadm's bitmap reserve) moves with
 * it, the gap kept as recorded.  A log or bitmap found in the data's
 * way at its new place (never where mdadm puts them) bounds the data.
 */
static int sb1_resize_room(struct mddev *mddev, struct md_rdev *rdev,
			   sector_t *sb_start, sector_t *room)
{
	struct mdp_superblock_1 *sb = rdev_sb(rdev);
	sector_t dev_sectors = bdev_nr_sectors(rdev->bdev);
	sector_t data_end = rdev->data_offset + rdev->sectors;
	sector_t new_sb = rdev->sb_start, end = dev_sectors;
	s32 bblog = (s32)le32_to_cpu(sb->bblog_offset);

	if (rdev->sb_start > rdev->data_offset) {
		if (dev_sectors < 3 * SB_IO_SECTORS)
			return -ENOSPC;
		new_sb = sb1_end_start(dev_sectors);
		if (new_sb != rdev->sb_start && md_internal_bitmap(mddev)) {
			pr_warn("md: %s: %pg: the 1.0 superblock cannot move with an internal bitmap\n",
				mdname(mddev), rdev->bdev);
			return -EBUSY;
		}
		end = data_end + new_sb >= rdev->sb_start ?
		      data_end + new_sb - rdev->sb_start : 0;
	}
	if (bblog && le16_to_cpu(sb->bblog_size))
		sb1_clamp_end(rdev, (s64)new_sb + bblog, &end);
	if (md_internal_bitmap(mddev))
		sb1_clamp_end(rdev, (s64)new_sb + mddev->bitmap_offset, &end);

	*sb_start = new_sb;
	*room = end > rdev->data_offset ? end - rdev->data_offset : 0;
	return 0;
}

const struct md_super_ops md_super_1_ops = {
	.name		= "1.x",
	.load		= sb1_load,
	.same_array	= sb1_same_array,
	.import_array	= sb1_import_array,
	.import_rdev	= sb1_import_rdev,
	.fill		= sb1_fill,
	.io_bytes	= sb1_io_bytes,
	.resize_room	= sb1_resize_room,
};

/* ---------------------------------------------------------------- */
/* Front end: the calls of md_super.h, dispatched on the format */

static const struct md_super_ops *sb_ops(int major_version)
{
	switch (major_version) {
	case 0:
		return &md_super_090_ops;
	case 1:
		return &md_super_1_ops;
	default:
		return NULL;
	}
}

/* The format of @mddev's superblocks; NULL for arrays without them. */
static const struct md_super_ops *mddev_sb_ops(struct mddev *mddev)
{
	return mddev->persistent ? sb_ops(mddev->major_version) : NULL;
}

int md_super_load(struct md_rdev *rdev, int major_version, int minor_version)
{
	const struct md_super_ops *ops = sb_ops(major_version);
	bool own_page = false;
	int ret;

	if (!ops) {
		pr_warn("md: %pg: superblock version %d.%d not supported\n",
			rdev->bdev, major_version, minor_version);
		return -EINVAL;
	}
	if (!rdev->sb_page) {
		rdev->sb_page = alloc_page(GFP_KERNEL);
		if (!rdev->sb_page)
			return -ENOMEM;
		own_page = true;
	}
	ret = ops->load(rdev, minor_version);
	if (ret && own_page) {
		__free_page(rdev->sb_page);
		rdev->sb_page = NULL;
	}
	return ret;
}

int md_super_same_array(struct md_rdev *ref, struct md_rdev *rdev)
{
	const struct md_super_ops *ops = mddev_sb_ops(ref->mddev);

	return ops ? ops->same_array(ref, rdev) : -EINVAL;
}

int md_super_import_array(struct mddev *mddev, struct md_rdev *freshest)
{
	const struct md_super_ops *ops = mddev_sb_ops(mddev);

	return ops ? ops->import_array(mddev, freshest) : -EINVAL;
}

int md_super_import_rdev(struct mddev *mddev, struct md_rdev *rdev)
{
	const struct md_super_ops *ops = mddev_sb_ops(mddev);

	return ops ? ops->import_rdev(mddev, rdev) : -EINVAL;
}

static void sb_snapshot(struct mddev *mddev, struct md_sb_state *st, bool bump)
{
	spin_lock_irq(&mddev->lock);
	if (bump) {
		mddev->events++;
		mddev->utime = ktime_get_real_seconds();
	}
	st->events = mddev->events;
	st->utime = mddev->utime;
	st->clean = mddev->in_sync;
	st->resync_offset = mddev->resync_offset;
	spin_unlock_irq(&mddev->lock);
}

void md_super_fill(struct mddev *mddev, struct md_rdev *rdev)
{
	const struct md_super_ops *ops = mddev_sb_ops(mddev);
	struct md_sb_state st;

	if (!ops)
		return;
	sb_snapshot(mddev, &st, false);
	ops->fill(mddev, rdev, &st);
}

int md_super_resize_rdev(struct mddev *mddev, struct md_rdev *rdev,
			 sector_t sectors)
{
	const struct md_super_ops *ops = mddev_sb_ops(mddev);
	sector_t sb_start, room, dev_sectors;
	int err;

	if (ops) {
		if (!rdev->sb_page)
			return -EINVAL;
		err = ops->resize_room(mddev, rdev, &sb_start, &room);
		if (err)
			return err;
	} else {
		/* no superblock: all of the device after data_offset is data */
		dev_sectors = bdev_nr_sectors(rdev->bdev);
		sb_start = dev_sectors;
		room = dev_sectors > rdev->data_offset ?
		       dev_sectors - rdev->data_offset : 0;
	}
	if (!sectors)
		sectors = room;
	if (sectors > room) {
		pr_warn("md: %s: %pg has room for %llu KiB of data, not %llu\n",
			mdname(mddev), rdev->bdev, (u64)room / 2,
			(u64)sectors / 2);
		return -ENOSPC;
	}
	if (sectors < mddev->dev_sectors) {
		pr_warn("md: %s: %pg: %llu KiB is less than the array uses (%llu)\n",
			mdname(mddev), rdev->bdev, (u64)sectors / 2,
			(u64)mddev->dev_sectors / 2);
		return -EBUSY;
	}
	if (sectors == rdev->sectors && sb_start == rdev->sb_start)
		return 0;
	if (sb_start != rdev->sb_start) {
		/* the log lies at a fixed distance from the superblock */
		md_bb_move(rdev, rdev->badblocks.sector + sb_start -
			   rdev->sb_start);
		rdev->sb_start = sb_start;
	}
	pr_info("md: %s: %pg offers %llu KiB of data (was %llu)\n",
		mdname(mddev), rdev->bdev, (u64)sectors / 2,
		(u64)rdev->sectors / 2);
	WRITE_ONCE(rdev->sectors, sectors);
	return 1;
}

/* Members that get a superblock: every live one, spares included. */
static bool rdev_writable(struct md_rdev *rdev)
{
	return rdev->bdev && rdev->sb_page && rdev->desc_nr >= 0 &&
	       !test_bit(RD_FAULTY, &rdev->flags);
}

struct sb_batch {
	atomic_t pending;
	struct completion done;
};

struct sb_io {
	struct bio bio;
	struct bio_vec bvec;
	struct md_rdev *rdev;
	struct sb_batch *batch;
};

static void sb_io_end(struct bio *bio)
{
	struct sb_io *io = container_of(bio, struct sb_io, bio);

	if (atomic_dec_and_test(&io->batch->pending))
		complete(&io->batch->done);
}

/* A superblock write, or with @flush_only an empty cache flush. */
static void sb_io_init(struct sb_io *io, const struct md_super_ops *ops,
		       struct md_rdev *rdev, bool flush_only)
{
	blk_opf_t opf = REQ_OP_WRITE | REQ_SYNC | REQ_PREFLUSH;

	io->rdev = rdev;
	if (flush_only) {
		bio_init(&io->bio, rdev->bdev, NULL, 0, opf);
		return;
	}
	bio_init(&io->bio, rdev->bdev, &io->bvec, 1, opf | REQ_FUA | REQ_META);
	io->bio.bi_iter.bi_sector = rdev->sb_start;
	__bio_add_page(&io->bio, rdev->sb_page, ops->io_bytes(rdev), 0);
}

/*
 * Run one phase on all live members, in parallel when memory allows,
 * else one by one.  Returns how many members failed and were passed to
 * md_error(); *new_faulty is set if that marked any of them Faulty.
 */
static int sb_phase(struct mddev *mddev, const struct md_super_ops *ops,
		    bool flush_only, bool *new_faulty)
{
	struct sb_batch batch;
	struct md_rdev *rdev;
	struct sb_io *ios, one;
	int n = 0, i, failed = 0;

	rdev_for_each(rdev, mddev)
		if (rdev_writable(rdev))
			n++;
	if (!n)
		return 0;

	ios = kcalloc(n, sizeof(*ios), GFP_NOIO);
	if (!ios) {
		/* no memory: write members one at a time */
		rdev_for_each(rdev, mddev) {
			if (!rdev_writable(rdev))
				continue;
			sb_io_init(&one, ops, rdev, flush_only);
			if (submit_bio_wait(&one.bio)) {
				failed++;
				md_error(mddev, rdev);
				if (test_bit(RD_FAULTY, &rdev->flags))
					*new_faulty = true;
			}
			bio_uninit(&one.bio);
		}
		return failed;
	}

	atomic_set(&batch.pending, 1);
	init_completion(&batch.done);
	i = 0;
	rdev_for_each(rdev, mddev) {
		if (!rdev_writable(rdev) || i == n)
			continue;
		sb_io_init(&ios[i], ops, rdev, flush_only);
		ios[i].batch = &batch;
		ios[i].bio.bi_end_io = sb_io_end;
		atomic_inc(&batch.pending);
		submit_bio(&ios[i].bio);
		i++;
	}
	if (!atomic_dec_and_test(&batch.pending))
		wait_for_completion_io(&batch.done);

	while (i--) {
		if (ios[i].bio.bi_status) {
			failed++;
			pr_warn("md: %s: %pg: superblock %s failed (%d)\n",
				mdname(mddev), ios[i].rdev->bdev,
				flush_only ? "flush" : "write",
				blk_status_to_errno(ios[i].bio.bi_status));
			md_error(mddev, ios[i].rdev);
			if (test_bit(RD_FAULTY, &ios[i].rdev->flags))
				*new_faulty = true;
		}
		bio_uninit(&ios[i].bio);
	}
	kfree(ios);
	return failed;
}

/*
 * Store the bad-block logs that changed, before the superblocks that
 * describe them (md_badblocks.c); a member whose log cannot be stored
 * is failed, as it could not keep its bad blocks.
 */
static void sb_write_logs(struct mddev *mddev, bool *new_faulty)
{
	struct md_rdev *rdev;
	int err;

	rdev_for_each(rdev, mddev) {
		if (!rdev_writable(rdev))
			continue;
		err = md_bb_write(rdev);
		if (!err)
			continue;
		pr_warn("md: %s: %pg: bad block log write failed (%d)\n",
			mdname(mddev), rdev->bdev, err);
		md_error(mddev, rdev);
		if (test_bit(RD_FAULTY, &rdev->flags))
			*new_faulty = true;
	}
}

void md_super_write_all(struct mddev *mddev)
{
	const struct md_super_ops *ops = mddev_sb_ops(mddev);
	struct md_rdev *rdev;
	struct md_sb_state st;
	bool new_faulty, again;

	if (mddev->ro)
		return;
	if (!ops) {
		/* no superblock: nothing to record, just let waiters go */
		clear_bit(MD_SB_CHANGE_DEVS, &mddev->sb_flags);
		clear_bit(MD_SB_CHANGE_CLEAN, &mddev->sb_flags);
		clear_bit(MD_SB_CHANGE_PENDING, &mddev->sb_flags);
		clear_bit(MD_SB_FAIL_PENDING, &mddev->sb_flags);
		wake_up(&mddev->sb_wait);
		return;
	}
repeat:
	/* under the lock md_mark_faulty() holds: see (F1) in md.h */
	spin_lock_irq(&mddev->lock);
	clear_bit(MD_SB_CHANGE_DEVS, &mddev->sb_flags);
	clear_bit(MD_SB_CHANGE_CLEAN, &mddev->sb_flags);
	spin_unlock_irq(&mddev->lock);
	sb_snapshot(mddev, &st, true);

	rdev_for_each(rdev, mddev)
		if (rdev_writable(rdev))
			ops->fill(mddev, rdev, &st);
	/* the bitmap's events first: a bitmap behind the array is stale */
	md_bitmap_update_sb(mddev, st.events);

	new_faulty = false;
	/*
	 * Clean: no member may say so while another's cache holds data, so
	 * flush all first; if a flush fails, "clean" is not written at all
	 * (the dirty superblock on disk stays, which is safe).
	 */
	if (st.clean) {
		if (sb_phase(mddev, ops, true, &new_faulty))
			goto written;
		/*
		 * A write that arrived during the flushes made the array
		 * dirty and waits for that superblock: drop "clean", which
		 * nothing has been sent for yet, and write "dirty" at once
		 * instead of one after the other.  (A "clean" already sent
		 * must complete before "dirty" is sent: two writes of one
		 * sector in flight may land in either order.)  A racy read:
		 * the check under the lock below catches what it misses.
		 */
		if (!READ_ONCE(mddev->in_sync) && !new_faulty)
			goto repeat;
	}
	sb_write_logs(mddev, &new_faulty);
	if (!sb_phase(mddev, ops, false, &new_faulty))
		rdev_for_each(rdev, mddev)
			if (rdev_writable(rdev))
				md_bb_written(rdev);
written:
	spin_lock_irq(&mddev->lock);
	/*
	 * Rewrite at once if a member dropped out (the others must record
	 * it) or the array went dirty while we wrote "clean": writers are
	 * waiting for a dirty superblock.  Each member can fail only once,
	 * and going dirty needs new writes, so this ends.
	 */
	again = new_faulty || (st.clean && !mddev->in_sync);
	if (!again)
		clear_bit(MD_SB_CHANGE_PENDING, &mddev->sb_flags);
	/*
	 * Members failed after this round's snapshot set DEVS again: the
	 * next round records them; only then may held writes complete.
	 */
	if (!again && !test_bit(MD_SB_CHANGE_DEVS, &mddev->sb_flags))
		clear_bit(MD_SB_FAIL_PENDING, &mddev->sb_flags);
	spin_unlock_irq(&mddev->lock);
	if (again)
		goto repeat;
	wake_up(&mddev->sb_wait);
}

/*
 * The lowest data offset @rdev could move its data to (a reshape's
 * dev-XXX/new_offset): past its 1.1/1.2 superblock and a bad block log
 * before the data.  MD_MAX_SECTOR where the data cannot move down (1.0,
 * whose data starts the device, and 0.90).
 */
/* Where @rdev's data area must end: its 1.0 superblock, else the device's end. */
sector_t md_super_data_limit(struct md_rdev *rdev)
{
	if (rdev->sb_page && rdev->sb_start > rdev->data_offset)
		return rdev->sb_start;
	return bdev_nr_sectors(rdev->bdev);
}

sector_t md_super_data_floor(struct md_rdev *rdev)
{
	struct mdp_superblock_1 *sb;
	sector_t floor;
	s64 off;

	if (!rdev->sb_page || rdev->mddev->major_version != 1 ||
	    rdev->sb_start >= rdev->data_offset)
		return MD_MAX_SECTOR;
	sb = rdev_sb(rdev);
	floor = rdev->sb_start + DIV_ROUND_UP(sb_bytes(sb), 512);
	off = (s32)le32_to_cpu(sb->bblog_offset);
	if (off > 0 && le16_to_cpu(sb->bblog_size) &&
	    rdev->sb_start + off < rdev->data_offset)
		floor = max_t(sector_t, floor, rdev->sb_start + off +
			      le16_to_cpu(sb->bblog_size));
	return floor;
}

void md_super_free(struct md_rdev *rdev)
{
	if (rdev->sb_page) {
		__free_page(rdev->sb_page);
		rdev->sb_page = NULL;
	}
}
