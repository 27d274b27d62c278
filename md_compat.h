/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel compatibility: the kernel interfaces that changed between the
 * kernels this stack builds against (Debian's 6.1 and 6.12), behind one
 * name each.
 *
 * What varies.  These interfaces the stack uses changed shape in between:
 *  - the exclusive open of a member returns a struct file (6.9) where it
 *    returned the block device, and is given back with bdev_fput();
 *  - queue limits are changed in one update, started, edited as a
 *    struct queue_limits and committed, or handed to blk_alloc_disk()
 *    (6.9), where each limit had a setter that wrote the live queue; the
 *    volatile write cache and FUA became limit features (6.11);
 *  - a shrinker is allocated by the kernel and passes its callbacks the
 *    owner's private_data (6.7), where the owner embedded it;
 *  - block_device_operations .open gets the gendisk and a blk_mode_t,
 *    .release no mode, and the ioctls a blk_mode_t (6.5);
 *  - register_sysctl() counts a table's entries (6.6), where it looked
 *    for an empty one at the end, and refuses such an entry (6.11);
 *  - "this disk takes REQ_NOWAIT" became a limit feature (6.11), where it
 *    was a queue flag.
 *
 * How each is picked.  By what the target headers compile, not by their
 * version: md_compat_probe.sh, run by Kbuild before any object compiles
 * (so by make, DKMS and sparse builds alike), compiles a snippet per
 * interface with the module's flags and -Werror and writes a HAVE_* line
 * into md_compat_gen.h in the build directory for each that compiles.  A
 * snippet uses everything its variant below uses, so a backport is
 * followed and a partial one fails to build at the wrapper.  A plain
 * LINUX_VERSION_CODE test is for an interface that was only added or
 * removed, where a probe would test nothing but the version; none of the
 * differences above is such a case.  Where the headers themselves say
 * which shape they have (register_sysctl is a macro or a function), the
 * wrapper reads that.
 *
 * Why that is enough.  Each wrapper does on the new interface what the old
 * one did: the same limits, the same exclusive holder, the same shrinker
 * callbacks.  The rest of the stack calls only these names and never tests
 * a kernel version or a HAVE_*: the next kernel change is one more probe
 * and one more wrapper here, and no caller changes.
 */
#ifndef _MD_COMPAT_H
#define _MD_COMPAT_H

#include <linux/blkdev.h>
#include <linux/blk-mq.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/shrinker.h>
#include <linux/sysctl.h>

#include "md_compat_gen.h"

/* ---- a member's exclusive open ------------------------------------- */

/*
 * What giving back an exclusive open needs: the open file (6.9) or the
 * block device.  Set by md_bdev_open_excl(), used once by
 * md_bdev_close_excl(); the owner serialises the two (the core does it
 * under reconfig_mutex, or before the member is visible).
 */
struct md_bdev_excl {
#ifdef HAVE_BDEV_FILE_OPEN_BY_DEV
	struct file *file;
#else
	struct block_device *bdev;
#endif
};

#ifdef HAVE_BDEV_FILE_OPEN_BY_DEV
/*
 * Open @dev for reading and writing, exclusively for @holder (a holder
 * makes the open exclusive).  Returns the block device or an ERR_PTR.
 */
static inline struct block_device *
md_bdev_open_excl(dev_t dev, void *holder, struct md_bdev_excl *excl)
{
	struct file *file;

	file = bdev_file_open_by_dev(dev, BLK_OPEN_READ | BLK_OPEN_WRITE,
				     holder, NULL);
	if (IS_ERR(file))
		return ERR_CAST(file);
	excl->file = file;
	return file_bdev(file);
}

/* Give the claim back now (fput() would defer it) and close. */
static inline void md_bdev_close_excl(struct md_bdev_excl *excl)
{
	bdev_fput(excl->file);
	excl->file = NULL;
}
#else
static inline struct block_device *
md_bdev_open_excl(dev_t dev, void *holder, struct md_bdev_excl *excl)
{
	struct block_device *bdev;

	bdev = blkdev_get_by_dev(dev, FMODE_READ | FMODE_WRITE | FMODE_EXCL,
				 holder);
	if (!IS_ERR(bdev))
		excl->bdev = bdev;
	return bdev;
}

static inline void md_bdev_close_excl(struct md_bdev_excl *excl)
{
	blkdev_put(excl->bdev, FMODE_READ | FMODE_WRITE | FMODE_EXCL);
	excl->bdev = NULL;
}
#endif

/* ---- queue limits --------------------------------------------------- */

/*
 * One update of a disk's queue limits: md_limits_start(), any of the
 * md_limits_*() setters, then md_limits_commit() or
 * md_limits_commit_frozen(), always one of them.
 *
 * With the update interface the setters edit a copy (lim) that the
 * commit validates and installs at once; the disk's limits_lock is held
 * from start to commit, so two updates never interleave.  Before it, each
 * setter is the old blk_queue_*() call on the live queue, as the stack
 * always did, and the commit has nothing left to do.  The caller keeps
 * the updates of one disk apart in both cases (md: reconfig_mutex).
 */
struct md_limits {
	struct gendisk *disk;
#ifdef HAVE_QUEUE_LIMITS_UPDATE
	struct queue_limits lim;
#endif
};

#ifdef HAVE_QUEUE_LIMITS_UPDATE
/*
 * The stacking defaults for a disk that is never zoned.  They leave the
 * zone append limit at its maximum for the members' limits to lower, and
 * the commit's validation (6.12) warns about and refuses any zone limit
 * of a disk that is not zoned: so it starts at zero, which is what
 * stacking a member that is not zoned gives anyway.
 */
static inline void md_set_stacking_limits(struct queue_limits *lim)
{
	blk_set_stacking_limits(lim);
	lim->max_zone_append_sectors = 0;
	/* /sys/block/mdX/queue/iostats reads 1, as in-tree md's */
	lim->features |= BLK_FEAT_IO_STAT;
}

/*
 * A bio-based disk whose limits start as the stacking defaults, with a
 * volatile write cache if @wc and FUA if @fua.  Returns an ERR_PTR on
 * failure.
 */
static inline struct gendisk *md_alloc_stacking_disk(int node, bool wc,
						     bool fua)
{
	struct queue_limits lim;

	md_set_stacking_limits(&lim);
	if (wc)
		lim.features |= BLK_FEAT_WRITE_CACHE;
	if (fua)
		lim.features |= BLK_FEAT_FUA;
	return blk_alloc_disk(&lim, node);
}

static inline void md_limits_start(struct md_limits *ml,
				   struct gendisk *disk)
{
	ml->disk = disk;
	ml->lim = queue_limits_start_update(disk->queue);
}

/*
 * Install the update under limits_lock only.  For callers that cannot
 * freeze the queue (see md_limits_commit_frozen()).
 */
static inline int md_limits_commit(struct md_limits *ml)
{
	return queue_limits_commit_update(ml->disk->queue, &ml->lim);
}

/*
 * Install the update with the queue frozen, as the update interface asks
 * of a queue that may see IO: no submitter is inside ->submit_bio() while
 * the limits change.  Freezing waits for every such submitter to return,
 * so the caller must not be anyone a submitter may be waiting for.
 * limits_lock is taken before the freeze, the block layer's own order.
 */
static inline int md_limits_commit_frozen(struct md_limits *ml)
{
	struct request_queue *q = ml->disk->queue;
	int err;

	blk_mq_freeze_queue(q);
	err = queue_limits_commit_update(q, &ml->lim);
	blk_mq_unfreeze_queue(q);
	return err;
}

/*
 * Back to the stacking defaults, features (write cache, FUA) cleared,
 * and REQ_NOWAIT taken until a member that lacks it stacks.
 */
static inline void md_limits_set_stacking(struct md_limits *ml)
{
	md_set_stacking_limits(&ml->lim);
	ml->lim.features |= BLK_FEAT_NOWAIT;
}

/* The disk no longer takes REQ_NOWAIT (a member that lacks it joined). */
static inline void md_limits_clear_nowait(struct md_limits *ml)
{
	ml->lim.features &= ~BLK_FEAT_NOWAIT;
}

/*
 * Stack the limits of @bdev, whose data starts @offset sectors in; a
 * misaligned member is reported under the disk's name.  A member without
 * REQ_NOWAIT takes it from the disk; cleared here too rather than trust
 * the block layer's stacking to do it.
 */
static inline void md_limits_stack_bdev(struct md_limits *ml,
					struct block_device *bdev,
					sector_t offset)
{
	queue_limits_stack_bdev(&ml->lim, bdev, offset, ml->disk->disk_name);
	if (!bdev_nowait(bdev))
		md_limits_clear_nowait(ml);
}

static inline void md_limits_set_write_cache(struct md_limits *ml, bool wc,
					     bool fua)
{
	ml->lim.features &= ~(BLK_FEAT_WRITE_CACHE | BLK_FEAT_FUA);
	if (wc)
		ml->lim.features |= BLK_FEAT_WRITE_CACHE;
	if (fua)
		ml->lim.features |= BLK_FEAT_FUA;
}

/* The commit derives max_sectors from this, as the old setter did. */
static inline void md_limits_max_hw_sectors(struct md_limits *ml,
					    unsigned int sectors)
{
	ml->lim.max_hw_sectors = sectors;
}

static inline void md_limits_max_segments(struct md_limits *ml,
					  unsigned short segments)
{
	ml->lim.max_segments = segments;
}

static inline void md_limits_io_min(struct md_limits *ml, unsigned int bytes)
{
	ml->lim.io_min = bytes;
}

static inline void md_limits_io_opt(struct md_limits *ml, unsigned int bytes)
{
	ml->lim.io_opt = bytes;
}

/* The commit derives max_discard_sectors from the hardware limit. */
static inline void md_limits_max_discard_sectors(struct md_limits *ml,
						 unsigned int sectors)
{
	ml->lim.max_hw_discard_sectors = sectors;
}

static inline void md_limits_discard_granularity(struct md_limits *ml,
						 unsigned int bytes)
{
	ml->lim.discard_granularity = bytes;
}

static inline void md_limits_max_secure_erase_sectors(struct md_limits *ml,
						      unsigned int sectors)
{
	ml->lim.max_secure_erase_sectors = sectors;
}

static inline void md_limits_max_write_zeroes_sectors(struct md_limits *ml,
						      unsigned int sectors)
{
	ml->lim.max_write_zeroes_sectors = sectors;
}
#else
static inline struct gendisk *md_alloc_stacking_disk(int node, bool wc,
						     bool fua)
{
	struct gendisk *disk = blk_alloc_disk(node);

	if (!disk)
		return ERR_PTR(-ENOMEM);
	blk_set_stacking_limits(&disk->queue->limits);
	blk_queue_write_cache(disk->queue, wc, fua);
	/* /sys/block/mdX/queue/iostats reads 1, as in-tree md's */
	blk_queue_flag_set(QUEUE_FLAG_IO_STAT, disk->queue);
	return disk;
}

static inline void md_limits_start(struct md_limits *ml,
				   struct gendisk *disk)
{
	ml->disk = disk;
}

/* The setters changed the live queue already. */
static inline int md_limits_commit(struct md_limits *ml)
{
	return 0;
}

/* 6.1 never froze the queue for limits; nor does this. */
static inline int md_limits_commit_frozen(struct md_limits *ml)
{
	return 0;
}

/*
 * Back to the stacking defaults (the write cache is a queue flag here);
 * non-rotational until a rotational member stacks, as 6.12's stacking
 * inherits the feature, and REQ_NOWAIT taken until a member that lacks
 * it stacks.  The flags change the live queue one at a time, so a
 * nowait bio may slip in before a member without it has cleared the
 * flag: harmless, the personalities never pass REQ_NOWAIT to a member.
 */
static inline void md_limits_set_stacking(struct md_limits *ml)
{
	blk_set_stacking_limits(&ml->disk->queue->limits);
	blk_queue_flag_set(QUEUE_FLAG_NONROT, ml->disk->queue);
	blk_queue_flag_set(QUEUE_FLAG_NOWAIT, ml->disk->queue);
}

static inline void md_limits_clear_nowait(struct md_limits *ml)
{
	blk_queue_flag_clear(QUEUE_FLAG_NOWAIT, ml->disk->queue);
}

static inline void md_limits_stack_bdev(struct md_limits *ml,
					struct block_device *bdev,
					sector_t offset)
{
	disk_stack_limits(ml->disk, bdev, offset << SECTOR_SHIFT);
	if (!bdev_nonrot(bdev))
		blk_queue_flag_clear(QUEUE_FLAG_NONROT, ml->disk->queue);
	if (!bdev_nowait(bdev))
		md_limits_clear_nowait(ml);
}

static inline void md_limits_set_write_cache(struct md_limits *ml, bool wc,
					     bool fua)
{
	blk_queue_write_cache(ml->disk->queue, wc, fua);
}

static inline void md_limits_max_hw_sectors(struct md_limits *ml,
					    unsigned int sectors)
{
	blk_queue_max_hw_sectors(ml->disk->queue, sectors);
}

static inline void md_limits_max_segments(struct md_limits *ml,
					  unsigned short segments)
{
	blk_queue_max_segments(ml->disk->queue, segments);
}

static inline void md_limits_io_min(struct md_limits *ml, unsigned int bytes)
{
	blk_queue_io_min(ml->disk->queue, bytes);
}

static inline void md_limits_io_opt(struct md_limits *ml, unsigned int bytes)
{
	blk_queue_io_opt(ml->disk->queue, bytes);
}

static inline void md_limits_max_discard_sectors(struct md_limits *ml,
						 unsigned int sectors)
{
	blk_queue_max_discard_sectors(ml->disk->queue, sectors);
}

static inline void md_limits_discard_granularity(struct md_limits *ml,
						 unsigned int bytes)
{
	ml->disk->queue->limits.discard_granularity = bytes;
}

static inline void md_limits_max_secure_erase_sectors(struct md_limits *ml,
						      unsigned int sectors)
{
	blk_queue_max_secure_erase_sectors(ml->disk->queue, sectors);
}

static inline void md_limits_max_write_zeroes_sectors(struct md_limits *ml,
						      unsigned int sectors)
{
	blk_queue_max_write_zeroes_sectors(ml->disk->queue, sectors);
}
#endif

/* ---- shrinker ------------------------------------------------------- */

/*
 * A shrinker for one owner.  md_shrinker_register() sets it up once
 * (the owner's setup, before anything can see it); the callbacks may then
 * run from reclaim on any CPU until md_shrinker_unregister() returns,
 * which waits for running ones.  They find their owner with
 * md_shrinker_private(), which is written before registration and never
 * after.  Unregistering one that never registered (zeroed) does nothing.
 */
struct md_shrinker {
#ifdef HAVE_SHRINKER_ALLOC
	struct shrinker *shrinker;
#else
	struct shrinker shrinker;
	void *private_data;
#endif
};

typedef unsigned long (*md_shrink_fn)(struct shrinker *shrinker,
				      struct shrink_control *sc);

#ifdef HAVE_SHRINKER_ALLOC
/*
 * Register @count and @scan for @private_data, named "@kind:@name" in
 * debugfs.  0 or a negative errno; on failure nothing is registered.
 */
static inline int md_shrinker_register(struct md_shrinker *ms,
				       md_shrink_fn count, md_shrink_fn scan,
				       void *private_data, const char *kind,
				       const char *name)
{
	struct shrinker *shrinker;

	shrinker = shrinker_alloc(0, "%s:%s", kind, name);
	if (!shrinker)
		return -ENOMEM;
	shrinker->count_objects = count;
	shrinker->scan_objects = scan;
	shrinker->seeks = DEFAULT_SEEKS;
	shrinker->private_data = private_data;
	ms->shrinker = shrinker;
	shrinker_register(shrinker);
	return 0;
}

static inline void md_shrinker_unregister(struct md_shrinker *ms)
{
	/* waits for running callbacks; NULL if it never registered */
	shrinker_free(ms->shrinker);
	ms->shrinker = NULL;
}

static inline void *md_shrinker_private(struct shrinker *shrinker)
{
	return shrinker->private_data;
}
#else
static inline int md_shrinker_register(struct md_shrinker *ms,
				       md_shrink_fn count, md_shrink_fn scan,
				       void *private_data, const char *kind,
				       const char *name)
{
	ms->shrinker.count_objects = count;
	ms->shrinker.scan_objects = scan;
	ms->shrinker.seeks = DEFAULT_SEEKS;
	ms->private_data = private_data;
	return register_shrinker(&ms->shrinker, "%s:%s", kind, name);
}

static inline void md_shrinker_unregister(struct md_shrinker *ms)
{
	/* waits for running callbacks; does nothing if never registered */
	unregister_shrinker(&ms->shrinker);
}

static inline void *md_shrinker_private(struct shrinker *shrinker)
{
	return container_of(shrinker, struct md_shrinker,
			    shrinker)->private_data;
}
#endif

/* ---- block device methods ------------------------------------------ */

/*
 * The core's methods, in the arguments it uses (md_core.c, md_ioctl.c),
 * and the block_device_operations methods of this kernel that call them
 * (md_fops).  None of them looks at the open mode.
 */
int md_open(struct gendisk *disk);
void md_release(struct gendisk *disk);
int md_ioctl(struct block_device *bdev, unsigned int cmd, unsigned long arg);
int md_compat_ioctl(struct block_device *bdev, unsigned int cmd,
		    unsigned long arg);

#ifdef HAVE_BDOPS_OPEN_GENDISK
#define MD_BDOPS_MODE	blk_mode_t

static inline int md_bdops_open(struct gendisk *disk, blk_mode_t mode)
{
	return md_open(disk);
}

static inline void md_bdops_release(struct gendisk *disk)
{
	md_release(disk);
}
#else
#define MD_BDOPS_MODE	fmode_t

static inline int md_bdops_open(struct block_device *bdev, fmode_t mode)
{
	return md_open(bdev->bd_disk);
}

static inline void md_bdops_release(struct gendisk *disk, fmode_t mode)
{
	md_release(disk);
}
#endif

/* The ioctls differ only in the type of the mode they ignore. */
static inline int md_bdops_ioctl(struct block_device *bdev,
				 MD_BDOPS_MODE mode, unsigned int cmd,
				 unsigned long arg)
{
	return md_ioctl(bdev, cmd, arg);
}

static inline int md_bdops_compat_ioctl(struct block_device *bdev,
					MD_BDOPS_MODE mode, unsigned int cmd,
					unsigned long arg)
{
	return md_compat_ioctl(bdev, cmd, arg);
}

/* ---- sysctl table --------------------------------------------------- */

/*
 * The last entry of a sysctl table's initializer.  Where register_sysctl()
 * is a function it finds the table's end by an empty entry; where it is a
 * macro it passes ARRAY_SIZE() of the table on, an empty entry would be
 * one more, and 6.11 refuses that ("procname is null").
 */
#ifdef register_sysctl
#define MD_SYSCTL_TABLE_END
#else
#define MD_SYSCTL_TABLE_END	{ }
#endif

#endif /* _MD_COMPAT_H */
