/* SPDX-License-Identifier: GPL-2.0 */
/*
 * State private to the md core (md_core.c, md_ioctl.c,
 * md_sysfs.c, md_sync.c).
 *
 * The core allocates every struct mddev and struct md_rdev itself, so it
 * wraps them (struct md_core, struct md_core_rdev) and keeps its own
 * bookkeeping beside the shared fields of md.h without widening the
 * contract that the personalities see.
 *
 * Lock order: reconfig_mutex -> open_mutex; reconfig_mutex -> sb_mutex ->
 * mddev->lock.
 * The md thread never sleeps on reconfig_mutex (it uses trylock); it
 * does take sb_mutex, which is never held while waiting for array IO.
 */
#ifndef _MD_CORE_H
#define _MD_CORE_H

#include <linux/kthread.h>
#include <linux/percpu-refcount.h>
#include <linux/workqueue.h>
#include "md.h"
#include "md_super.h"

#define MD_MAJOR_NR		9
/* Sync checkpoint (curr_resync_completed, superblock) interval. */
#define MD_CHECKPOINT_JIFFIES	(5 * HZ)
/* Speed window for /proc/mdstat and sync_speed. */
#define MD_MARK_JIFFIES		(3 * HZ)

/* The sync files md_notify_sync() wakes pollers of. */
enum md_sync_kn {
	MD_KN_ACTION,		/* sync_action */
	MD_KN_DEGRADED,		/* degraded */
	MD_KN_COMPLETED,	/* sync_completed */
	MD_SYNC_KN_NR,
};

/* md_core.core_flags bits (atomic bitops) */
enum md_core_flag {
	MDC_SAFEMODE_FIRED,	/* timer expired: md thread runs clean check */
	MDC_CLOSING,		/* being stopped: refuse new opens */
	MDC_RETRY,		/* md thread should retry config work soon */
	MDC_CHECKPOINT,		/* sync thread asks for a superblock update */
	MDC_DELETED,		/* gendisk going away: refuse opens */
	/*
	 * md_delete_work() found reconfig_mutex held: mddev_unlock()
	 * queues it again
	 */
	MDC_DEL_AGAIN,
	/* mddev->pers changed: mddev_unlock() adds or removes sync files */
	MDC_SYNC_FILES,
};

struct md_core {
	struct mddev mddev;

	unsigned long core_flags;	/* enum md_core_flag */

	/*
	 * Serialises md_super_write_all() between the md thread and
	 * reconfig_mutex holders; member list changes take it too, so the
	 * md thread sees a stable list while writing superblocks.
	 */
	struct mutex sb_mutex;

	/*
	 * IO gate.  A submitter holds a reference on active_io while it is
	 * inside md_submit_bio() (percpu_ref_tryget_live(), so the common
	 * case touches only this CPU's counter).  md_suspend() sets
	 * suspended, kills the ref (from then on every tryget fails) and
	 * sleeps on suspend_wq until the ref reaches zero; md_resume()
	 * revives the ref, then clears suspended with a release store and
	 * wakes the submitters sleeping on suspend_wq for that.  The gate
	 * covers submission only: requests still in flight afterwards are
	 * the personality's, drained by pers->quiesce(1).  suspended and the
	 * ref's kill/revive change under reconfig_mutex only.
	 */
	struct percpu_ref active_io;
	int suspended;
	wait_queue_head_t suspend_wq;
	/*
	 * Writes into mdadm's suspended range (suspend_lo/hi), parked here
	 * rather than waiting inside md_submit_bio(), where they would hold
	 * the queue's usage count and stall a queue freeze (a limits
	 * update) until mdadm moves the range; md_set_suspend() submits
	 * them again.  Under parked_lock.
	 */
	spinlock_t parked_lock;
	struct bio_list parked;

	int notified_degraded;		/* md thread only */

	/* sync thread progress; written by the sync thread */
	atomic64_t sync_done;		/* cumulative sectors completed */
	atomic_t sync_reqs;		/* sync requests in flight */
	atomic_t sync_seq;		/* bumped on sync completions */
	unsigned long mark_jiffies[2];	/* [0] older speed mark */
	sector_t mark_sectors[2];
	bool sync_error;		/* md_done_sync(ok == false) seen */
	/*
	 * How the pass ended, for the reaper: sync_ended is cleared before
	 * the thread starts and set once sync_pass_done (the pass reached
	 * its end) is final; kthread_stop() orders both before the reaper.
	 */
	bool sync_ended, sync_pass_done;
	/*
	 * Turns (md_sync.c): turn_node is on md_turn_holders or
	 * md_turn_waiters, under md_turn_lock; sync_delayed, set by the sync
	 * thread while it waits, is read locklessly for /proc/mdstat and
	 * sync_completed.
	 */
	struct list_head turn_node;
	bool sync_delayed;
	/*
	 * Neighbours (md_sync.c): running_node is on md_running while the
	 * array runs (RCU; md_running_lock); nb is the sync thread's own.
	 */
	struct list_head running_node;
	struct md_neighbours {
		unsigned long gen, at;	/* md_running_gen, jiffies found */
		int n;
		struct mddev *m[8];
	} nb;

	/*
	 * safe_mode_adaptive: sysfs knob, 0 or 1; WRITE_ONCE() by its store,
	 * READ_ONCE() by md_write_start().  sm_late: clean checks come late
	 * (wp_safe_mode_late()); written under mddev->lock, read without it
	 * by md_write_end(): a stale value only picks the other instant of
	 * the same allowed range.  clean_at: jiffies when the array was last
	 * marked clean; mddev->lock.
	 */
	int safe_mode_adaptive;
	bool sm_late;
	unsigned long clean_at;

	/* statistics; mddev->lock */
	u64 dirty_transitions;
	u64 write_wait_ns_total, write_wait_ns_max;
	u64 clean_check_ns_total, clean_check_ns_max;
	u64 bitmap_wait_ns_total, bitmap_wait_ns_max;	/* md_bitmap_waited() */

	/*
	 * The sync files (sync_action, degraded, sync_completed, the rest
	 * of md_sync_group) exist, as in-tree, only while a personality
	 * with a sync runs.  sync_files_work adds or removes them to match
	 * (md_sysfs_sync_work()), queued by mddev_unlock() after a start
	 * or stop: removing a file waits for its stores in progress, and
	 * those may be waiting for reconfig_mutex, so nothing holding it,
	 * and no store of a sync file, may wait for the work.  An ioctl
	 * and a store of any other md file wait for it after unlocking
	 * (md_sysfs_sync_settle()), so mdadm finds the files in place
	 * when RUN_ARRAY or array_state returns.  The work holds a
	 * reference on mddev->kobj while queued.  sysfs_mutex serialises
	 * the work with md_delete(); sync_shown (sysfs_mutex) says what is
	 * there.  sync_kn[] are the nodes md_notify_sync() wakes: RCU,
	 * replaced under sysfs_mutex, put after a grace period.
	 */
	struct work_struct sync_files_work;
	struct mutex sysfs_mutex;	/* the work against md_delete() */
	bool sync_shown;
	struct kernfs_node __rcu *sync_kn[MD_SYNC_KN_NR];

	/*
	 * Per-array throttle knobs (0: follow the /proc/sys/dev/raid
	 * default).  Written by sysfs stores with WRITE_ONCE() after
	 * rt_knob_check(), read by the sync thread with READ_ONCE(); no lock,
	 * each is one int and every decision re-reads it.
	 */
	int sync_busy_pct, sync_idle_ms;

	/*
	 * sysfs knobs kept for mdadm; written under reconfig_mutex, and only
	 * while no sync thread runs (sync_min: its store refuses then; the
	 * reaper records an interrupted check/repair's position in it).
	 * sync_min is where a check/repair starts, sync_max where a pass
	 * pauses; sync_force_parallel exempts the array from turns (READ_ONCE
	 * under md_turn_lock).
	 */
	int sync_force_parallel;
	sector_t sync_min_sectors, sync_max_sectors;

	/*
	 * md/array_size was given a number: array_sectors is that size and
	 * not what the personality's size() gives, until "default" is
	 * written or the array description is cleared; a component size
	 * change keeps it (and is refused below it).  reconfig_mutex;
	 * array_size_show() reads it with READ_ONCE().
	 */
	bool external_size;

	/*
	 * md/last_sync_action: enum md_sync_kind of the last sync pass
	 * started (MD_SYNC_NONE until one is), WRITE_ONCE() by the sync
	 * thread as it starts, READ_ONCE() by the show; reset when the
	 * array description is cleared.
	 */
	int last_sync_action;

	/*
	 * md/max_read_errors: corrected read errors a member may have
	 * (default MD_DEFAULT_MAX_READ_ERRORS, set again at every start).
	 * Written by its store (reconfig_mutex) with WRITE_ONCE(), read with
	 * READ_ONCE().  Nothing in this stack consults it yet: raid1 counts
	 * corrected reads in rdev->read_errors and fails a member when a
	 * rewrite fails (at once with failfast), never on that count, as
	 * in-tree 6.1's raid1 does.
	 */
	unsigned int max_read_errors;

	/*
	 * md/bitmap/space: sectors an internal bitmap may take from its
	 * offset on, as written (0: not given; the members' layout alone
	 * bounds it).  md_bitmap_resize() keeps the image within it.
	 * Written by its store under reconfig_mutex with WRITE_ONCE()
	 * (with a bitmap, never below the image), which md_bitmap_resize()
	 * also holds; its show reads it with READ_ONCE().
	 */
	sector_t bitmap_space;

	/*
	 * The device is kept until its array is stopped (hold cleared under
	 * reconfig_mutex); then the last close queues del_work, which
	 * deletes it unless it was reused meanwhile.
	 */
	bool hold;
	struct work_struct del_work;
};

/* md/last_sync_action values (struct md_core.last_sync_action) */
enum md_sync_kind {
	MD_SYNC_NONE,
	MD_SYNC_RESYNC,
	MD_SYNC_RECOVERY,
	MD_SYNC_CHECK,
	MD_SYNC_REPAIR,
};

/* in-tree's default for md/max_read_errors */
#define MD_DEFAULT_MAX_READ_ERRORS	20

struct md_core_rdev {
	struct md_rdev rdev;
	/*
	 * Gives back the exclusive open of rdev.bdev: set by md_import_rdev()
	 * before anyone else sees the rdev, used once by md_export_rdev()
	 * (reconfig_mutex) or md_drop_rdev() (never bound).
	 */
	struct md_bdev_excl excl;
	struct work_struct del_work;	/* drops the kobject off-lock */
	bool holder_linked;
	bool kobj_added;
};

static inline struct md_core *to_core(struct mddev *mddev)
{
	return container_of(mddev, struct md_core, mddev);
}

static inline struct md_core_rdev *to_core_rdev(struct md_rdev *rdev)
{
	return container_of(rdev, struct md_core_rdev, rdev);
}

/* A sync pass of this kind starts (md/last_sync_action); sync thread. */
static inline void md_note_sync_start(struct mddev *mddev, bool resync,
				      bool requested, bool check)
{
	int kind = !resync ? MD_SYNC_RECOVERY : !requested ? MD_SYNC_RESYNC :
		   check ? MD_SYNC_CHECK : MD_SYNC_REPAIR;

	WRITE_ONCE(to_core(mddev)->last_sync_action, kind);
}

/*
 * The end of the pass that @recovery (a snapshot of mddev->recovery)
 * describes: resync, check and repair walk the resync space, recovery
 * the members.  Exact while MDR_RUNNING: neither length changes then.
 */
static inline sector_t md_sync_end(struct mddev *mddev,
				   unsigned long recovery)
{
	if (recovery & BIT(MDR_SYNC))
		return READ_ONCE(mddev->resync_max_sectors);
	if (recovery & BIT(MDR_RESHAPE))
		return md_reshape_span(mddev);
	return READ_ONCE(mddev->dev_sectors);
}

static inline void md_notify(struct kernfs_node *kn)
{
	if (kn)
		sysfs_notify_dirent(kn);
}

void md_sysfs_sync_files(struct mddev *mddev, bool show);
void md_sysfs_sync_work(struct work_struct *ws);
void md_sysfs_sync_settle(struct mddev *mddev);

/* Wake pollers of a sync file, if it exists now.  Any context. */
static inline void md_notify_sync(struct mddev *mddev, enum md_sync_kn which)
{
	struct md_core *core = to_core(mddev);
	struct kernfs_node *kn;

	rcu_read_lock();
	kn = rcu_dereference(core->sync_kn[which]);
	if (kn)
		sysfs_notify_dirent(kn);
	rcu_read_unlock();
}

/* md_core.c */
extern int md_speed_limit_min;
extern int md_speed_limit_max;
extern int md_sync_io_depth_default;
extern int md_sync_busy_pct_default;
extern int md_sync_idle_ms_default;
extern struct workqueue_struct *md_misc_wq;
extern spinlock_t md_pers_lock;
extern struct list_head md_pers_list;

int mddev_lock(struct mddev *mddev);
int mddev_lock_live(struct mddev *mddev);
void md_wait_member_dirs(void);
void mddev_unlock(struct mddev *mddev);
void md_new_event(void);
void md_update_sb(struct mddev *mddev);
int md_run(struct mddev *mddev);
/*
 * An admin asked to fail @rdev (SET_DISK_FAULTY, or "faulty" written to
 * a member's state): md_error(), then -EBUSY if the member was kept or
 * the array is now broken (failed all the same), as in-tree answers.
 */
int md_fail_request(struct mddev *mddev, struct md_rdev *rdev);
int md_stop(struct mddev *mddev, int mode, struct block_device *bdev);
int md_set_readonly(struct mddev *mddev, struct block_device *bdev);
int md_restart_rw(struct mddev *mddev);
int md_sync_may_start(struct mddev *mddev);
int md_set_raid_disks(struct mddev *mddev, int raid_disks);
void md_resized(struct mddev *mddev);
void md_suspend(struct mddev *mddev);
void md_set_suspend(struct mddev *mddev, sector_t lo, sector_t hi);
void md_resume(struct mddev *mddev);
sector_t md_sync_sectors(struct mddev *mddev, struct md_personality *pers,
			 sector_t sectors);

/*
 * Superblock versions served: 0.90, 1.0, 1.1, 1.2.  0.91 is a 0.90 array
 * whose superblocks record a reshape: the array keeps 0.90 (*@minor).
 */
static inline bool md_sb_version_ok(int major, int *minor)
{
	if (major == 0 && (*minor == 90 || *minor == 91)) {
		*minor = 90;
		return true;
	}
	return major == 1 && *minor >= 0 && *minor <= 2;
}

/* md_reshape.c */
int md_reshape_ask(struct mddev *mddev, int layout, int chunk_sectors,
		   int raid_disks);
int md_reshape_start(struct mddev *mddev);
void md_reshape_finish(struct mddev *mddev);
int md_takeover(struct mddev *mddev, int level);
struct md_personality *md_get_pers_ref(int level);
/*
 * md/bitmap/location: add the internal bitmap mdadm wrote at @offset
 * sectors from every member's superblock, or remove the bitmap, a file
 * too (@offset 0), on a running array (suspended meanwhile); on an
 * inactive array only record the offset.  reconfig_mutex held.
 */
int md_change_bitmap(struct mddev *mddev, s32 offset);
/*
 * SET_BITMAP_FILE: take @file (our reference, consumed either way) as
 * the array's bitmap; on a running array it is loaded at once (array
 * suspended meanwhile), else at RUN.  NULL removes a bitmap file
 * (-ENOENT if there is none).  reconfig_mutex held.
 */
int md_change_bitmap_file(struct mddev *mddev, struct file *file);
/* A writer waited @ns for bitmap bits to reach the disk (md/stats/). */
void md_bitmap_waited(struct mddev *mddev, u64 ns);
int md_set_dev_sectors(struct mddev *mddev, sector_t sectors);
/*
 * md/array_size: @dflt, the size the level gives (and forget a size
 * written before), or @sectors, which must not be above it (-E2BIG).
 * On a running array the capacity follows at once; on one that is not
 * running the size is checked and used at RUN.  reconfig_mutex held.
 */
int md_set_array_size(struct mddev *mddev, bool dflt, sector_t sectors);
int md_set_rdev_sectors(struct mddev *mddev, struct md_rdev *rdev,
			sector_t sectors);
int md_mark_clean(struct mddev *mddev);
struct md_rdev *md_find_rdev(struct mddev *mddev, dev_t dev);
int md_add_new_disk(struct mddev *mddev, dev_t dev,
		    const mdu_disk_info_t *info, int readd_slot);
int md_add_bare_disk(struct mddev *mddev, dev_t dev);
int md_add_nosb_disk(struct mddev *mddev, dev_t dev,
		     const mdu_disk_info_t *info);
int md_remove_rdev(struct mddev *mddev, struct md_rdev *rdev);
void md_rdev_link_slot(struct md_rdev *rdev);
void md_rdev_unlink_slot(struct md_rdev *rdev);
void md_rdev_leave_slot(struct md_rdev *rdev);
int md_add_spare(struct mddev *mddev, struct md_rdev *rdev);
const char *md_level_name(int level);
/* md_ioctl(), md_compat_ioctl(): see md_compat.h's block device methods */
int md_set_read_only(struct block_device *bdev, bool ro);
int md_level_from_name(const char *name, int *level);
/*
 * Foreground IO for the throttle: cumulative completions, in flight now,
 * cumulative latency and completions slower than mddev->fg_slow_ns.
 */
void md_fg_sample(struct mddev *mddev, u64 *completed, u32 *inflight,
		  u64 *lat_ns, u64 *slow);

/* md_sysfs.c */
extern const struct kobj_type md_ktype;
extern const struct kobj_type md_rdev_ktype;
int md_sysfs_add_rdev(struct md_rdev *rdev);
/* Parse "S", "S.m", "S.mmm" seconds into milliseconds. */
int md_parse_msec(const char *buf, unsigned int *msec);

/* md_sync.c */
void md_check_recovery(struct mddev *mddev);
void md_stop_sync(struct mddev *mddev);
void md_reap_sync(struct mddev *mddev);
void md_sync_turns_changed(void);
void md_sync_register(struct mddev *mddev);
void md_sync_unregister(struct mddev *mddev);
int md_sync_status(struct seq_file *seq, struct mddev *mddev);
unsigned int md_sync_speed(struct mddev *mddev);
int md_speed_min(struct mddev *mddev);
int md_speed_max(struct mddev *mddev);
int md_io_depth(struct mddev *mddev);
int md_busy_pct(struct mddev *mddev);
int md_idle_ms(struct mddev *mddev);

#endif
