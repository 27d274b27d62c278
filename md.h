/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The contract between the md core (md_*.c) and the RAID personalities
 * (linear.c, raid0.c, raid1.c, raid5.c).
 *
 * Objects:
 *   struct mddev     one array (/dev/mdN); owns the member list, the
 *                    superblock state, the md thread and the sync thread.
 *   struct md_rdev   one member device, with its superblock copy.
 *   struct md_personality  a RAID level's operations; its private state
 *                    hangs off mddev->private.
 *
 * Threads:
 *   md thread ("mdN_<pers>")  one per running array, owned by the core.
 *     Each wake-up it does core housekeeping (superblock writes, the
 *     safe-mode clean check, starting/reaping the sync thread, removing
 *     failed members) and then calls pers->daemon() for the
 *     personality's deferred work (retries, error handling).
 *   sync thread ("mdN_resync")  runs resync/recovery/check/repair by
 *     calling pers->sync_request() in a loop paced by resync_throttle.
 *
 * Locking (details beside each field):
 *   reconfig_mutex   configuration: member list changes, personality
 *                    start/stop, sysfs/ioctl writes that change state.
 *   mddev->lock      short spinlock for state read by the IO path and
 *                    /proc/mdstat (in_sync, sb_flags updates, degraded).
 *   RCU              IO path walks of the member list and of the
 *                    personality's member arrays.
 */
#ifndef _MD_H
#define _MD_H

#include <linux/badblocks.h>
#include <linux/blkdev.h>
#include <linux/bio.h>
#include <linux/kobject.h>
#include <linux/list.h>
#include <linux/mempool.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/sched/prio.h>
#include <linux/spinlock.h>
#include <linux/timekeeping.h>
#include <linux/timer.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/seq_file.h>
#include <linux/raid/md_p.h>
#include <linux/raid/md_u.h>

#include "md_compat.h"
#include "writes_pending.h"
#include "resync_throttle.h"

/* MODULE_VERSION of every module of the stack; Kbuild takes the number from dkms.conf */
#define MD_VERSION_STRING MD_FORK_VERSION "-fork"

/* md_rdev.flags bits */
enum md_rdev_flag {
	RD_FAULTY,		/* failed: no IO is sent to it any more */
	RD_IN_SYNC,		/* data valid over the whole array */
	RD_WRITE_MOSTLY,	/* avoid for reads when another mirror can */
	RD_WANT_REMOVE,		/* detach from its slot at next chance */
	RD_READ_ERRORS_SEEN,	/* a read error was corrected on it */
	RD_FAILFAST,		/* raid1: REQ_FAILFAST_DEV, failed on error */
	RD_WRITE_ERROR,		/* a write failed on it (sysfs "write_error") */
	RD_BITMAP_READD,	/* former member: only bitmap-dirty chunks stale */
	RD_WANT_REPLACEMENT,	/* a spare should be built to take its place */
	RD_REPLACEMENT,		/* built to replace the member of its slot */
};

struct md_rdev {
	/* in mddev->disks; reconfig_mutex, list_*_rcu for IO-path readers */
	struct list_head same_set;
	struct mddev *mddev;
	struct block_device *bdev;	/* opened exclusively by the core */
	dev_t dev;

	/*
	 * Superblock location and usable data sectors (from data_offset).
	 * On a running array they change only in dev-XXX/size (a grown
	 * device), under reconfig_mutex and the core's sb_mutex; sysfs
	 * reads sectors with READ_ONCE.
	 */
	sector_t sb_start;
	sector_t data_offset;		/* start of data on the member */
	/*
	 * Where the data starts in the new geometry of a reshape that
	 * moves it (dev-XXX/new_offset, MD_FEATURE_NEW_OFFSET); equal to
	 * data_offset otherwise.  Changed under reconfig_mutex with no
	 * reshape running; the reshape reads it plainly.
	 */
	sector_t new_data_offset;
	sector_t sectors;
	struct page *sb_page;		/* superblock image, core only */
	u64 sb_events;			/* events in its superblock */

	int desc_nr;			/* index into sb dev_roles */
	/* role/slot, -1 for a spare; changed under reconfig_mutex */
	int raid_disk;
	int saved_raid_disk;		/* slot before removal, for re-add */
	unsigned long flags;		/* enum md_rdev_flag, atomic bitops */
	/*
	 * Rebuilt up to here (not In_sync).  raid1: the core advances it
	 * as curr_resync_completed does and sets it >= dev_sectors
	 * (MD_MAX_SECTOR) when recovery completed, before spare_active();
	 * raid1 serves reads below it from the member.
	 */
	sector_t recovery_offset;

	atomic_t nr_pending;		/* IO in flight to this member */
	atomic_t read_errors;		/* corrected read errors */
	atomic_t errors;		/* sysfs "errors" */

	struct kobject kobj;		/* /sys/block/mdN/md/dev-XXX */
	struct kernfs_node *sysfs_state;

	/*
	 * Bad-block log (md_badblocks.c): absolute member sectors, its own
	 * seqlock.  shift < 0: no log on this member (0.90, no superblock,
	 * a 1.x superblock without a log area); sector/size: where the log
	 * lives on the member, set by the superblock code at load (sector
	 * moves with a 1.0 superblock: md_bb_move()).
	 */
	struct badblocks badblocks;
};

/* mddev.recovery bits: what the sync thread is doing or should do */
enum md_recovery_flag {
	MDR_RUNNING,		/* sync thread exists */
	MDR_NEEDED,		/* md thread should consider starting it */
	MDR_SYNC,		/* resync, check or repair (not recovery) */
	MDR_REQUESTED,		/* user asked via sync_action */
	MDR_CHECK,		/* check: count mismatches, don't fix */
	MDR_RECOVER,		/* rebuilding spare(s) */
	MDR_INTR,		/* stop the sync thread early */
	MDR_DONE,		/* sync thread finished; md thread reaps */
	MDR_FROZEN,		/* sync_action "frozen" */
	MDR_RESHAPE,		/* the pass is a reshape (md_reshape.c) */
};

/* mddev.flags bits */
enum md_flag {
	/*
	 * More members failed than the level survives (raid4/5/6 sets it in
	 * its error handler, as in-tree sets MD_BROKEN; raid1 when it fails
	 * its last working mirror under MDF_FAIL_LAST_DEV): the core refuses
	 * writes, starts no recovery, array_state reads "broken" where it
	 * would read "clean", and failing a member answers -EBUSY.  Cleared
	 * when the array starts and stops.
	 */
	MDF_BROKEN,
	/*
	 * md/fail_last_dev: raid1 may fail its last working mirror.  Set
	 * and cleared by its store (reconfig_mutex, running array only),
	 * tested by raid1's error handler under mddev->lock; reset with
	 * the other flags when the array starts and stops.
	 */
	MDF_FAIL_LAST_DEV,
};

/* mddev.sb_flags bits: superblock writes wanted */
enum md_sb_flag {
	MD_SB_CHANGE_DEVS,	/* member roles changed */
	MD_SB_CHANGE_CLEAN,	/* clean/dirty state changed */
	MD_SB_CHANGE_PENDING,	/* dirty must be durable before writes */
	/*
	 * A member failed and the superblocks on disk do not say so yet.
	 * Personalities hold the completion of every write while it is set
	 * (raid1 conf->bb_wait, raid5 conf->sb_held): a write acknowledged
	 * before the failure is durable could be lost to a power cut, after
	 * which assembly trusts the member that missed it.  Set with the
	 * member's RD_FAULTY under mddev->lock (md_mark_faulty()); cleared
	 * by the superblock round whose snapshot saw that member failed.
	 */
	MD_SB_FAIL_PENDING,
};

struct md_personality;
struct md_bitmap;

/*
 * A takeover's result (md_personality.takeover): the new description;
 * a member in slot drop_slot (-1: none) leaves its slot as a spare,
 * slots at and above the old raid_disks start empty.
 */
struct md_takeover {
	int level, layout, chunk_sectors, raid_disks;
	int drop_slot;
	/*
	 * Where the members go: slot s becomes s * slot_mul / slot_div
	 * (1 and 1: where they are).  RAID0 -> RAID10 near-2 doubles it,
	 * the way back halves it.
	 */
	int slot_mul, slot_div;
	/*
	 * Sectors each member's data uses at the new level, 0 for as now;
	 * where set, members' data areas are cut to it (RAID0 runs on the
	 * members' whole data areas)
	 */
	sector_t dev_sectors;
};

struct file;

/* One CPU's share of the foreground IO counts (struct mddev.fg). */
struct md_fg_count {
	unsigned long started;
	unsigned long completed;
	u64 lat_ns;		/* sum of the completed requests' latencies */
	unsigned long slow;	/* completed in more than mddev->fg_slow_ns */
};

/* When a request the personality serves started (md_io_start()). */
struct md_io_stamp {
	unsigned long jiffies;	/* for the disk statistics */
	u64 ns;			/* for the throttle's latency sums */
};

struct mddev {
	struct gendisk *gendisk;
	int unit;			/* N in mdN */
	struct kobject kobj;		/* /sys/block/mdN/md */
	struct list_head all_mddevs;	/* global list; all_mddevs_lock */
	atomic_t active;		/* references */
	int openers;			/* open_mutex */
	struct mutex open_mutex;

	struct mutex reconfig_mutex;	/* see file comment */
	spinlock_t lock;		/* see file comment */

	/* array description; reconfig_mutex */
	int major_version, minor_version;
	bool persistent;		/* superblock owned by the core */
	int level, layout, chunk_sectors, raid_disks;
	/*
	 * Reshape (md_reshape.c).  The geometry asked for or being reshaped
	 * to; equal to level/layout/chunk_sectors and delta_disks 0 while
	 * none is.  During a reshape raid_disks is the new count and
	 * raid_disks - delta_disks the old, as the superblocks say.
	 * reshape_position: the next array sector to move (forwards: below
	 * it the new geometry holds the data; backwards: at and above it),
	 * MD_MAX_SECTOR with no reshape; the checkpoint the superblocks
	 * record, advanced by the sync thread under mddev->lock.  The rest
	 * under reconfig_mutex.
	 */
	int new_level, new_layout, new_chunk_sectors, delta_disks;
	bool reshape_backwards;
	sector_t reshape_position;
	/*
	 * The array sectors the reshape walks (the larger geometry's: rows
	 * past the old data are written too), and how many of them make one
	 * sector of its progress (the new geometry's data members): the
	 * sync thread counts progress per member, as in-tree, so speeds and
	 * sync_speed_min compare with a resync's.  Set by the personality
	 * (start_reshape(), run()); md_reshape_pos()/md_reshape_progress().
	 */
	sector_t reshape_end;
	unsigned int reshape_unit;
	/*
	 * Writes to array sectors [suspend_lo, suspend_hi) wait in the core
	 * (an empty range when lo >= hi): mdadm holds a region there while
	 * it backs it up for a reshape that rewrites it in place (parked
	 * in the core meanwhile).  Written under reconfig_mutex and the
	 * core's parked_lock (md_set_suspend()), read with READ_ONCE.
	 */
	sector_t suspend_lo, suspend_hi;
	sector_t dev_sectors;		/* used sectors on each member */
	sector_t array_sectors;
	u8 uuid[16];
	char set_name[32];
	u64 ctime, utime;
	u64 events;			/* reconfig_mutex + lock */
	int max_disks;
	struct list_head disks;		/* struct md_rdev.same_set */
	int degraded;			/* lock; members missing/failed */

	struct md_personality *pers;	/* set under reconfig_mutex */
	void *private;			/* personality state */
	/*
	 * md_run() copies the start_dirty_degraded module parameter here
	 * for the personality's run(); reconfig_mutex.
	 */
	bool ok_start_degraded;

	/* state; lock */
	int ro;				/* 0 rw, 1 readonly, 2 read-auto */
	int in_sync;			/* superblock may say clean */
	unsigned long sb_flags;		/* enum md_sb_flag, atomic bitops */
	unsigned long flags;		/* enum md_flag, atomic bitops */
	wait_queue_head_t sb_wait;	/* superblock written, wp opened */

	/* write accounting and safe mode */
	struct writes_pending wp;
	unsigned int safe_mode_delay;	/* jiffies, 0 = never mark clean */
	struct timer_list safe_mode_timer;

	/* threads */
	struct task_struct *thread;	/* md thread */
	unsigned long thread_flags;	/* bit 0: wake-up pending */
	wait_queue_head_t thread_wq;
	struct task_struct *sync_thread;

	/* sync; recovery bits are atomic bitops */
	unsigned long recovery;
	/*
	 * Resync needed from here, in the resync space; MaxSector when
	 * clean (nothing at or past resync_max_sectors is pending).  raid1
	 * reads from its first mirror above it, and sets it clean in run()
	 * when only one mirror works.
	 */
	sector_t resync_offset;
	/*
	 * Length of the resync space, which resync, check and repair walk
	 * and in which resync_offset, the bitmap's chunks and, during such
	 * a pass, sync_min/sync_max count: pers->sync_sectors(dev_sectors),
	 * else dev_sectors (raid1, raid4/5/6).  Recovery walks dev_sectors
	 * (member sectors).  Set by the core under reconfig_mutex before
	 * run() and by md_set_dev_sectors() with the array suspended and no
	 * sync thread, so a pass reads it unlocked; others READ_ONCE.
	 */
	sector_t resync_max_sectors;
	sector_t curr_resync;		/* sync thread position */
	sector_t curr_resync_completed;	/* checkpointed position */
	atomic_t sync_active;		/* sync sectors in flight */
	/*
	 * Most sync sectors in flight, 0: no bound (the personality keeps
	 * its own window).  Set by the personality from run() on, cleared
	 * by the core before run(); READ_ONCE.
	 */
	unsigned int sync_window;
	wait_queue_head_t sync_wait;	/* sync IO completions */
	atomic64_t resync_mismatches;	/* sectors, check/repair */
	int sync_speed_min, sync_speed_max, sync_io_depth; /* 0: default */
	struct resync_throttle throttle;
	/*
	 * The CPU weight the sync's work runs at (enum md_sync_prio), from
	 * the sync thread's last decision.  Written by the sync thread only,
	 * MD_SYNC_PRIO_OWN outside a pass; READ_ONCE.
	 */
	u8 sync_prio;

	/*
	 * Foreground IO on the md device, for the resync throttle: per-CPU
	 * counts and latency sums bumped by md_io_start()/md_io_end() with
	 * this_cpu ops, so no CPU writes a cache line another CPU writes.
	 * A completion adds its latency just before its count, so a racy
	 * read is off by at most the requests completing meanwhile, and
	 * the next read makes up for it.  Only the sums
	 * mean anything; the core reads them (md_fg_sample()) a few times a
	 * second.  Allocated with the mddev, never reset.
	 */
	struct md_fg_count __percpu *fg;
	/*
	 * A completion slower than this counts in fg->slow: the throttle's
	 * tail test (rt_decision.slow_ns), published by the sync thread;
	 * U64_MAX while none.  READ_ONCE.
	 */
	u64 fg_slow_ns;

	struct kernfs_node *sysfs_state;

	/*
	 * Write-intent bitmap (md_bitmap.h), internal: sectors from each
	 * member's sb_start, 0 for none; both change under reconfig_mutex
	 * with no array IO in flight, so the IO path reads them unlocked;
	 * bitmap is also set under the core's sb_mutex and mddev->lock,
	 * for superblock writes and /proc/mdstat.
	 */
	s32 bitmap_offset;
	struct md_bitmap *bitmap;
	/*
	 * A bitmap kept in a file instead (SET_BITMAP_FILE; bitmap_offset
	 * is then 0): our reference, held until the bitmap is removed or
	 * the array description is cleared; reconfig_mutex, like the
	 * offset.
	 */
	struct file *bitmap_file;
};

#define MD_MAX_SECTOR	(~(sector_t)0)
/*
 * mddev->layout of a raid0 array that records none (0.90, a 1.x
 * superblock without MD_FEATURE_RAID0_LAYOUT, no superblock): written
 * back as it is (0xffffffff), as in-tree md does.
 */
#define MD_LAYOUT_UNKNOWN	(-1)
/* How the sync's CPU work is weighed against the foreground's. */
enum md_sync_prio {
	MD_SYNC_PRIO_OWN,	/* the task's own nice */
	MD_SYNC_PRIO_FLOOR,	/* late for the floor: SCHED_FIFO, lowest */
	MD_SYNC_PRIO_YIELD,	/* beside a light foreground: _YIELD_NICE */
};

#define MD_SYNC_YIELD_NICE	MAX_NICE
void md_sync_nice(struct task_struct *p, enum md_sync_prio prio, long nice);

/* md_reshape.c, for personalities: record @pos, on disk on return */
void md_reshape_checkpoint(struct mddev *mddev, sector_t pos);
bool md_sync_wait_backup(struct mddev *mddev, sector_t j_end, sector_t a,
			 sector_t n);
/* md_reshape.c, for takeovers from RAID0 */
bool md_takeover_one_zone(struct mddev *mddev, sector_t *sectors);

/*
 * A reshape's progress (the sync thread's position, per member, from
 * where it starts) and the array position it stands for, both ways: the
 * moved part is below the position forwards, at and above it backwards.
 * Exact at the rows a reshape moves (multiples of reshape_unit, counted
 * from its start) and at its two ends.
 */
static inline sector_t md_reshape_span(struct mddev *mddev)
{
	return DIV_ROUND_UP(mddev->reshape_end, mddev->reshape_unit);
}

/*
 * Slots the members may hold: during a reshape to fewer members the
 * old count, whose last slots still hold old data until it ends.
 */
static inline int md_slots(struct mddev *mddev)
{
	if (mddev->reshape_position != MD_MAX_SECTOR && mddev->delta_disks < 0)
		return mddev->raid_disks - mddev->delta_disks;
	return mddev->raid_disks;
}

/* Does [@a, @a + @n) meet the suspended range?  Lockless, READ_ONCE. */
static inline bool md_suspended_range(struct mddev *mddev, sector_t a,
				      sector_t n)
{
	sector_t lo = READ_ONCE(mddev->suspend_lo);
	sector_t hi = READ_ONCE(mddev->suspend_hi);

	return lo < hi && a < hi && a + n > lo;
}

static inline sector_t md_reshape_pos(struct mddev *mddev, sector_t j)
{
	sector_t e = mddev->reshape_end, span = md_reshape_span(mddev);

	j = min(j, span);
	if (mddev->reshape_backwards)
		return min_t(sector_t, e, (span - j) * mddev->reshape_unit);
	return min_t(sector_t, e, j * mddev->reshape_unit);
}

static inline sector_t md_reshape_progress(struct mddev *mddev,
					   sector_t pos)
{
	sector_t j = DIV_ROUND_UP(min(pos, mddev->reshape_end),
				  mddev->reshape_unit);

	return mddev->reshape_backwards ? md_reshape_span(mddev) - j : j;
}

/* A bitmap on the members (not in a file): what superblocks announce. */
static inline bool md_internal_bitmap(struct mddev *mddev)
{
	return mddev->bitmap && !mddev->bitmap_file;
}

/*
 * The personality's error handler fails @rdev; mddev->lock held.  (F1)
 * MD_SB_FAIL_PENDING is set before RD_FAULTY: a write that left the
 * member out because it saw it faulty reads the flag after its own
 * completion (through a full barrier, its remaining count) and so
 * sees it set.  A superblock round clears MD_SB_CHANGE_DEVS under the
 * same lock before its snapshot and clears the pending bit only if
 * DEVS stayed clear (md_super_write_all()), so the round that clears it
 * recorded this member as failed.
 */
static inline void md_mark_faulty(struct mddev *mddev, struct md_rdev *rdev)
{
	lockdep_assert_held(&mddev->lock);
	set_bit(MD_SB_CHANGE_DEVS, &mddev->sb_flags);
	set_bit(MD_SB_FAIL_PENDING, &mddev->sb_flags);
	smp_mb__before_atomic();			/* (F1) */
	set_bit(RD_FAULTY, &rdev->flags);
}

/* Hold write completions: a failure is not on disk yet (see above). */
static inline bool md_fail_pending(struct mddev *mddev)
{
	return test_bit(MD_SB_FAIL_PENDING, &mddev->sb_flags);
}

/* Too many members failed: see MDF_BROKEN. */
static inline bool md_broken(struct mddev *mddev)
{
	return test_bit(MDF_BROKEN, &mddev->flags);
}

/* Usable for IO of any kind: present and not failed. */
static inline bool md_rdev_alive(struct md_rdev *rdev)
{
	return rdev && !test_bit(RD_FAULTY, &rdev->flags);
}

/* Alive and in sync: holds the array's data everywhere. */
static inline bool md_rdev_working(struct md_rdev *rdev)
{
	return md_rdev_alive(rdev) && test_bit(RD_IN_SYNC, &rdev->flags);
}

/* Holds valid data over [@sector, @sector + @sectors) (member sectors). */
static inline bool md_rdev_readable(struct md_rdev *rdev, sector_t sector,
				    sector_t sectors)
{
	if (!md_rdev_alive(rdev))
		return false;
	if (test_bit(RD_IN_SYNC, &rdev->flags))
		return true;
	return READ_ONCE(rdev->recovery_offset) >= sector + sectors;
}

struct md_personality {
	const char *name;
	int level;
	struct module *owner;
	struct list_head list;		/* core's personality list */

	/*
	 * Set up mddev->private from mddev->disks; may fail.  Called with
	 * reconfig_mutex held and mddev->gendisk already allocated, its
	 * limits stacked from every member, with a write cache and FUA so
	 * that flushes and FUA reach us; a personality changes them further
	 * with md_limits_begin()/md_limits_end().
	 */
	int (*run)(struct mddev *mddev);
	void (*free)(struct mddev *mddev, void *priv);
	/*
	 * Handle a bio on the array (already split to the queue limits).
	 * The personality ends @bio itself, with md_io_start() when it takes
	 * each request (the bio or a piece it splits off) and md_io_end()
	 * right before ending that request.  The core's suspend waits only
	 * for make_request calls to return; quiesce(1) must wait for the
	 * requests still in flight.
	 */
	void (*make_request)(struct mddev *mddev, struct bio *bio);
	/* Deferred work, called from the md thread after core work. */
	void (*daemon)(struct mddev *mddev);
	/* /proc/mdstat tail of the array line, e.g. " [2/2] [UU]" */
	void (*status)(struct seq_file *seq, struct mddev *mddev);
	/* A member failed (from md_error); mark it, update degraded. */
	void (*error_handler)(struct mddev *mddev, struct md_rdev *rdev);
	/*
	 * Attach a spare to a free slot (sets rdev->raid_disk).  This and
	 * hot_remove_disk/spare_active run under reconfig_mutex.
	 */
	int (*hot_add_disk)(struct mddev *mddev, struct md_rdev *rdev);
	/*
	 * Detach a faulty/spare member from its slot; -EBUSY if in use.
	 * Leaves rdev->raid_disk alone: core sets it to -1 on success.
	 * raid1 sets MDR_NEEDED and wakes the md thread when a faulty
	 * member's last IO finishes, so the core can retry.
	 */
	int (*hot_remove_disk)(struct mddev *mddev, struct md_rdev *rdev);
	/* Recovery finished: mark rebuilt members In_sync; returns count. */
	int (*spare_active)(struct mddev *mddev);
	/*
	 * Schedule sync IO starting at @sector_nr (< @max_sector), in the
	 * resync space for resync, check and repair (MDR_SYNC), in member
	 * sectors for recovery.  Returns sectors covered; sets *skipped if
	 * nothing needed doing there (no md_done_sync() then).  Otherwise
	 * md_done_sync() is called for those sectors when the IO finishes.
	 * Must exclude racing normal writes to the region itself.  Core:
	 * don't call it with sector_nr >= max_sector (raid1 returns 0,
	 * skipped, then).
	 */
	sector_t (*sync_request)(struct mddev *mddev, sector_t sector_nr,
				 sector_t max_sector, bool *skipped);
	/* Sync thread finished or was interrupted. */
	void (*close_sync)(struct mddev *mddev);
	/*
	 * Optional, sync thread only: mddev->sync_prio just went up to
	 * MD_SYNC_PRIO_FLOOR.  Give the tasks doing the sync's work now that
	 * weight (md_sync_nice()): one sharing the CPU with a busy
	 * foreground may not get far enough to see the change itself.  They
	 * restore their own nice when they stop.
	 */
	void (*sync_raise)(struct mddev *mddev);
	/* Array size for this member size and count. */
	sector_t (*size)(struct mddev *mddev, sector_t sectors, int raid_disks);
	/*
	 * Optional: the resync space's length (mddev->resync_max_sectors)
	 * for members of @sectors; without it, @sectors.  A level whose
	 * resync walks array sectors (raid10) returns its array size for
	 * them, rounded as run() rounds.  Called under reconfig_mutex
	 * before the bitmap is loaded and run() is called (mddev->private
	 * is not set up: use level, layout, chunk_sectors, raid_disks) and
	 * when the component size changes.  run() leaves
	 * resync_max_sectors alone: the bitmap was sized by it.
	 */
	sector_t (*sync_sectors)(struct mddev *mddev, sector_t sectors);
	/* 1: stop all IO and wait for in-flight; 0: resume. */
	void (*quiesce)(struct mddev *mddev, int quiesce);
	/*
	 * Optional: reshape (md_reshape.c), all under reconfig_mutex.
	 * check_reshape() validates the change in mddev->new_layout,
	 * new_chunk_sectors and delta_disks (0 or an error that says why;
	 * the core puts the old values back).  start_reshape() begins it:
	 * places the spares the new geometry needs, sets raid_disks,
	 * reshape_position and reshape_end.  finish_reshape() runs once
	 * the sync thread moved everything, with the array suspended: the
	 * new geometry becomes the only one (the core then sets the
	 * description, the data offsets and the size).  run() continues a
	 * reshape the superblocks record (reshape_position set).
	 */
	int (*check_reshape)(struct mddev *mddev);
	/*
	 * Optional, on the personality of the level asked for (sysfs level
	 * on a running array): the array's description at this level with
	 * no data moved (a takeover), in @t; -EINVAL with a log line if
	 * it cannot take the array over.  The core then stops the old
	 * personality and runs this one (md_takeover()).
	 */
	int (*takeover)(struct mddev *mddev, struct md_takeover *t);
	int (*start_reshape)(struct mddev *mddev);
	void (*finish_reshape)(struct mddev *mddev);
	/*
	 * Optional: change the number of slots to @raid_disks without
	 * moving data (raid1: add or drop mirror slots).  Called under
	 * reconfig_mutex with the array suspended (quiesce(1) done) and no
	 * sync thread; sets mddev->raid_disks, may renumber members'
	 * raid_disk (the core relinks rdN afterwards).  -EBUSY if members
	 * occupy more slots than @raid_disks.  Only for a level whose
	 * resync space does not depend on raid_disks: it stays as it is.
	 */
	int (*resize_disks)(struct mddev *mddev, int raid_disks);
	/*
	 * Optional: @rdev extends the array at once in slot raid_disks
	 * (linear: mdadm --grow --add wrote its superblock with that role
	 * and asks with ADD_NEW_DISK in sync).  Called under
	 * reconfig_mutex with the array suspended (quiesce(1) done); sets
	 * rdev->raid_disk, mddev->raid_disks and mddev->array_sectors (the
	 * core announces the new capacity and writes the superblocks).
	 */
	int (*append_disk)(struct mddev *mddev, struct md_rdev *rdev);
	/*
	 * The array maps straight onto the members' first dev_sectors
	 * (raid1; raid4/5/6, whose rows are numbered by member sector):
	 * the core may change dev_sectors while the array runs (mdadm
	 * --grow --size), with the array suspended and no sync thread,
	 * and resyncs what growing added.
	 */
	bool resize_in_place;
	/*
	 * Optional, with resize_in_place: round_dev_sectors() says what
	 * members of @sectors would use (raid4/5/6: whole chunks; raid10:
	 * its geometry's size), 0 where the level cannot change it in place
	 * (nothing has changed; raid10 logs why); dev_sectors_changed(), for
	 * a level whose geometry depends on dev_sectors (raid10), re-places
	 * it once the core has set dev_sectors, with the array suspended and
	 * no sync thread.
	 */
	sector_t (*round_dev_sectors)(struct mddev *mddev, sector_t sectors);
	void (*dev_sectors_changed)(struct mddev *mddev);
	/*
	 * Each piece of a request goes unchanged to one member (linear,
	 * raid0: md_remap.c), so the core hands bios over without cutting
	 * them to the array's limits: the member's own submission cuts a
	 * piece to its limits (blk-mq and every bio-based driver do).
	 */
	bool members_split;
	/*
	 * Serves replacement members (RD_REPLACEMENT): a spare built beside
	 * a member that wants replacing, written like it, which takes its
	 * slot once whole.  Without it want_replacement is refused and a
	 * replacement found at assembly stays a spare.
	 */
	bool replacement;
};

/*
 * A file in /sys/block/mdN/md/.  The core's own files and a
 * personality's (added with sysfs_create_group() on mddev->kobj in its
 * run(), removed in its free()) share this type.  store() runs under
 * reconfig_mutex unless ->unlocked: a personality's files must set it,
 * because free() removes them under reconfig_mutex and removal waits
 * for stores in progress.  Such a store finds its state through
 * mddev->private under mddev->lock (NULL once the personality stops)
 * and may use it until it returns: free() runs after private is
 * cleared and the removal waits for the store.
 */
struct md_sysfs_entry {
	struct attribute attr;
	ssize_t (*show)(struct mddev *mddev, char *page);
	ssize_t (*store)(struct mddev *mddev, const char *page, size_t len);
	bool unlocked;
};

int md_register_personality(struct md_personality *p);
void md_unregister_personality(struct md_personality *p);

/*
 * Bracket one request the personality serves (see make_request): disk
 * statistics (/proc/diskstats) and the foreground counts that the resync
 * throttle samples.  md_io_end() goes right before bio_endio(@bio), with
 * the value md_io_start() returned.  Any context, hardirq included.
 */
static inline struct md_io_stamp md_io_start(struct mddev *mddev,
					     struct bio *bio)
{
	struct md_io_stamp st = {
		.jiffies = bio_start_io_acct(bio),
		.ns = ktime_get_ns(),
	};

	this_cpu_inc(mddev->fg->started);
	return st;
}

static inline void md_io_end(struct mddev *mddev, struct bio *bio,
			     struct md_io_stamp start)
{
	u64 lat = ktime_get_ns() - start.ns;

	bio_end_io_acct(bio, start.jiffies);
	this_cpu_add(mddev->fg->lat_ns, lat);
	if (lat > READ_ONCE(mddev->fg_slow_ns))
		this_cpu_inc(mddev->fg->slow);
	this_cpu_inc(mddev->fg->completed);
}

/*
 * Before a write reaches members (may sleep until the array is dirty).
 * False only for a REQ_NOWAIT bio that would have to sleep: then nothing
 * is owed (no md_write_end()) and the caller ends it with
 * bio_wouldblock_error().
 */
bool md_write_start(struct mddev *mddev, struct bio *bio);
/* raid1 calls it from bio completion (any context, hardirq too). */
void md_write_end(struct mddev *mddev);

/*
 * raid1 calls md_error() from its retry workqueue (process context) and
 * waits for nothing else there, but quiesce(1) waits for that worker: so
 * md_error() must not sleep on reconfig_mutex.  After pers->error_handler
 * the member is RD_FAULTY, unless it was raid1's last working mirror and
 * md/fail_last_dev is 0 (left In_sync, as in-tree): core should then fail
 * the request (EBUSY).
 */
void md_error(struct mddev *mddev, struct md_rdev *rdev);
/*
 * An empty PREFLUSH to @rdev, waited for: what it acknowledged before
 * leaves its volatile cache.  0 or the errno; sleeps.  The caller keeps
 * @rdev->bdev open (a pin, or the lock that keeps the member list).
 */
int md_rdev_flush(struct md_rdev *rdev);
/*
 * Change the array's queue limits (run, hot add; under reconfig_mutex):
 * md_limits_begin(), then md_limits_stack_rdev() and md_compat.h's
 * md_limits_*() setters on @ml, then md_limits_end(), which makes the
 * whole change visible at once and returns 0 or the errno of limits the
 * block layer refused (nothing changed then).  md_limits_begin() returns
 * false, and there is nothing to end, when the array has no gendisk.
 * md_limits_stack_rdev() stacks a member's limits: discard, secure erase
 * and write-zeroes stay advertised only while every member stacked so far
 * serves them.
 */
bool md_limits_begin(struct mddev *mddev, struct md_limits *ml);
void md_limits_stack_rdev(struct md_limits *ml, struct md_rdev *rdev);
int md_limits_end(struct mddev *mddev, struct md_limits *ml);

/*
 * Member slots of personalities that keep an array of RCU pointers the
 * IO path reads (raid1 mirrors, raid5 disks).  reconfig_mutex held.
 * md_slot_fill(): HOT_ADD_DISK put @rdev in slot @slot, *@p: out of
 * sync, recovered from 0.  md_slot_empty(): HOT_REMOVE_DISK, -EBUSY
 * (and *@p unchanged) if IO still holds @rdev.  md_slot_activate():
 * spare_active for one member, under mddev->lock: in sync if its
 * recovery reached the end; returns whether it changed.
 */
void md_slot_fill(struct md_rdev __rcu **p, struct md_rdev *rdev, int slot);
int md_slot_empty(struct md_rdev __rcu **p, struct md_rdev *rdev);
bool md_slot_activate(struct mddev *mddev, struct md_rdev *rdev);
/*
 * md_slot_activate_pair(): spare_active for a slot's member @rdev and
 * the replacement @repl built beside it (either may be NULL), under
 * mddev->lock: each rebuilt one goes in sync, and a whole replacement
 * fails the member it replaces (whose removal hands it the slot).
 * Returns 1 if the slot works now and did not, else 0.
 */
int md_slot_activate_pair(struct mddev *mddev, struct md_rdev *rdev,
			  struct md_rdev *repl);
/*
 * md_slot_pick(): HOT_ADD_DISK's slot for spare @rdev among @nslots,
 * @state giving each slot's enum md_slot_state: the one asked for
 * (rdev->raid_disk >= 0: sysfs slot) only; else its former slot if free,
 * the first free one, the first whose member wants a replacement (then
 * *@repl: as that replacement).  The slot, or -EINVAL (asked beyond
 * @nslots), -EBUSY (asked for a taken one), -EEXIST (none left).
 */
enum md_slot_state {
	MD_SLOT_TAKEN,
	MD_SLOT_FREE,
	MD_SLOT_WANTS_REPLACEMENT,	/* a working member asked for one */
};

int md_slot_pick(struct mddev *mddev, struct md_rdev *rdev, int nslots,
		 int (*state)(struct mddev *mddev, int slot), bool *repl);

/* The state of a slot holding member @rdev and replacement @repl. */
static inline int md_slot_state(struct md_rdev *rdev, struct md_rdev *repl)
{
	if (!rdev)
		return MD_SLOT_FREE;
	if (md_rdev_working(rdev) &&
	    test_bit(RD_WANT_REPLACEMENT, &rdev->flags) && !repl)
		return MD_SLOT_WANTS_REPLACEMENT;
	return MD_SLOT_TAKEN;
}

/*
 * A slot's member *@p and the replacement *@rp built beside it;
 * reconfig_mutex held.  md_slot_hand_over(): a replacement whose member
 * is gone (at assembly, or once it left) becomes the member; returns it,
 * or NULL.  md_slot_release(): HOT_REMOVE_DISK for @rdev, which holds *@p
 * or *@rp: -EBUSY while it works, as md_slot_empty() while IO holds it,
 * and a member that leaves hands the slot to its replacement.
 */
struct md_rdev *md_slot_hand_over(struct mddev *mddev,
				  struct md_rdev __rcu **p,
				  struct md_rdev __rcu **rp);
int md_slot_release(struct mddev *mddev, struct md_rdev __rcu **p,
		    struct md_rdev __rcu **rp, struct md_rdev *rdev);
/*
 * Bad blocks of a member, in sectors relative to its data_offset.
 * md_rdev_set_badblocks() records [s, s + sectors) unacknowledged and asks
 * for a superblock write, which stores the log and acknowledges it; false
 * if the member keeps no log or it is full (then fail the member).
 * md_rdev_badblocks_acked(): no unacknowledged entry is left in the range
 * (the record is durable).  md_rdev_is_badblock(): badblocks_check() (0
 * none, 1 acknowledged, -1 unacknowledged), *first_bad data-relative.
 * Any context but hardirq for set; check anywhere.
 */
bool md_rdev_set_badblocks(struct md_rdev *rdev, sector_t s, int sectors);
bool md_rdev_badblocks_acked(struct md_rdev *rdev, sector_t s, int sectors);
int md_rdev_is_badblock(struct md_rdev *rdev, sector_t s, int sectors,
			sector_t *first_bad, int *bad_sectors);

/*
 * Requests that go to one member each (linear, raid0): see md_remap.c.
 * md_remap_init() in run(), md_remap_exit() in free().  make_request
 * hands a REQ_PREFLUSH bio to md_remap_flush() (true: taken; its data
 * comes back through @map without the flag), and @map hands the rest to
 * md_remap_bio() with the array's end and @locate, which gives the member
 * holding a sector, the sector on it (data relative) and the sectors
 * left before the geometry cuts (a chunk's or a member's end); each
 * piece goes to md_remap_submit().  quiesce calls md_remap_quiesce().
 */
struct md_remap {
	struct mddev *mddev;
	void (*map)(struct mddev *mddev, struct bio *bio);
	struct bio_set clone_bs;	/* front pad: md_remap.c's clone */
	struct bio_set split_bs;	/* for the personality's splits */
	struct bio_set flush_bs;	/* empty flushes to members */
	mempool_t flush_pool;
	struct workqueue_struct *wq;	/* maps a flush's data */
	atomic_t inflight;		/* clones and flushes not done */
	wait_queue_head_t wait;		/* inflight reached zero */
};

int md_remap_init(struct md_remap *rm, struct mddev *mddev,
		  void (*map)(struct mddev *mddev, struct bio *bio));
void md_remap_exit(struct md_remap *rm);
bool md_remap_flush(struct md_remap *rm, struct bio *bio,
		    struct md_rdev *const *members, int nr);
void md_remap_submit(struct md_remap *rm, struct bio *piece,
		     struct md_rdev *rdev, sector_t sector);
void md_remap_bio(struct md_remap *rm, struct bio *bio, sector_t end,
		  struct md_rdev *(*locate)(struct mddev *mddev, sector_t sector,
					    sector_t *dev, sector_t *room));
void md_remap_quiesce(struct md_remap *rm, int quiesce);
/* pers->error_handler of such a personality: the array is broken. */
void md_remap_error(struct mddev *mddev, struct md_rdev *rdev);

/* raid1 calls these two from any context, hardirq included. */
void md_done_sync(struct mddev *mddev, int sectors, bool ok);
void md_wakeup_thread(struct mddev *mddev);

/*
 * Drop an IO pin (nr_pending) on a member; a failed member losing its
 * last one may now leave its slot, so the md thread is told.  The flags
 * are read inside an RCU section: md_slot_empty() waits a grace period
 * after it sees the count at 0, so the member cannot be freed between
 * the decrement and that look.  Any context.
 */
static inline void md_rdev_unpin(struct md_rdev *rdev)
{
	struct mddev *mddev = rdev->mddev;

	rcu_read_lock();
	if (atomic_dec_and_test(&rdev->nr_pending) &&
	    test_bit(RD_FAULTY, &rdev->flags) && mddev) {
		set_bit(MDR_NEEDED, &mddev->recovery);
		md_wakeup_thread(mddev);
	}
	rcu_read_unlock();
}

static inline const char *mdname(struct mddev *mddev)
{
	return mddev->gendisk ? mddev->gendisk->disk_name : "mdX";
}

/*
 * Slots a member joining the running array may name: its slots, and the
 * one after them where the personality appends (pers->append_disk).
 */
static inline int md_slot_limit(struct mddev *mddev)
{
	return mddev->raid_disks + (mddev->pers && mddev->pers->append_disk);
}

/* Walk members for IO (caller holds rcu_read_lock()). */
#define rdev_for_each_rcu(rdev, mddev) \
	list_for_each_entry_rcu(rdev, &(mddev)->disks, same_set)
#define rdev_for_each(rdev, mddev) \
	list_for_each_entry(rdev, &(mddev)->disks, same_set)

#endif
