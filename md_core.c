// SPDX-License-Identifier: GPL-2.0
/*
 * md core: arrays as block devices on major 9, their life cycle, the
 * bio entry, safe mode, member failure, /proc/mdstat and the md thread.
 *
 * Design.
 *  - An mddev (wrapped in struct md_core) is created by opening
 *    /dev/mdN (block probe) or by writing "mdN" to the new_array module
 *    parameter, and lives until the module is unloaded: stopping an
 *    array clears it but keeps the empty gendisk, so nothing is torn
 *    down while a racing open or sysfs reader could still see it.
 *  - Every configuration change runs under reconfig_mutex.  IO never
 *    takes it: it sees mddev->pers through READ_ONCE and is fenced off
 *    by an IO gate (active_io/suspended) before the personality goes.
 *  - The md thread does the array's housekeeping.  It never sleeps on
 *    reconfig_mutex (trylock; mddev_unlock() wakes it to redo missed
 *    work) but it always writes superblocks (serialised by sb_mutex), so
 *    a writer waiting in md_write_start() for "dirty" to be durable
 *    cannot deadlock against a reconfiguration waiting for IO to drain.
 *  - Safe mode: writers are counted by writes_pending; marking clean is
 *    wp_try_close() under mddev->lock, marking dirty is the failed
 *    wp_start() setting in_sync = 0 under the same lock, so the two
 *    decisions are ordered and "clean" never hides a write.
 */
#include <linux/module.h>
#include <linux/blkdev.h>
#include <linux/bio.h>
#include <linux/ctype.h>
#include <linux/delay.h>
#include <linux/file.h>
#include <linux/hdreg.h>
#include <linux/kthread.h>
#include <linux/sched/clock.h>
#include <linux/poll.h>
#include <linux/proc_fs.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sysctl.h>

#include "md_core.h"
#include "md_badblocks.h"
#include "md_bitmap.h"

#define MD_MAX_UNIT		BIT(MINORBITS)
#define MD_PROBE_MAX_MINOR	512

/* /proc/sys/dev/raid; read with READ_ONCE */
int md_speed_limit_min = RT_DEFAULT_SPEED_MIN;
int md_speed_limit_max = RT_DEFAULT_SPEED_MAX;
int md_sync_io_depth_default = RT_DEFAULT_IO_DEPTH;
int md_sync_busy_pct_default = RT_DEFAULT_BUSY_PCT;
int md_sync_idle_ms_default = RT_DEFAULT_IDLE_MS;

/*
 * start_dirty_degraded (same name and meaning as in-tree md): let a
 * parity array start while it is dirty (resync_offset short of the end)
 * and degraded.  Its parity may not match its data, so a block rebuilt
 * from it can be wrong: refused unless this is 1 (only 0 and 1 are
 * accepted).  Sampled by md_run(); written by the module parameter code,
 * read with READ_ONCE.
 */
static int start_dirty_degraded;

static int md_sdd_set(const char *val, const struct kernel_param *kp)
{
	int v;
	int err = kstrtoint(val, 0, &v);

	if (err)
		return err;
	if (v != 0 && v != 1)
		return -EINVAL;
	WRITE_ONCE(start_dirty_degraded, v);
	return 0;
}

static const struct kernel_param_ops md_sdd_ops = {
	.set = md_sdd_set,
	.get = param_get_int,
};
module_param_cb(start_dirty_degraded, &md_sdd_ops, &start_dirty_degraded, 0644);
MODULE_PARM_DESC(start_dirty_degraded,
		 "1: start a dirty and degraded parity array anyway (data may be corrupt)");

struct workqueue_struct *md_misc_wq;
/* Deletes unused arrays; separate so it may flush md_misc_wq. */
static struct workqueue_struct *md_del_wq;

/* Registered personalities; md_pers_lock. */
DEFINE_SPINLOCK(md_pers_lock);
LIST_HEAD(md_pers_list);

/* All arrays; all_mddevs_mutex (creation sleeps). */
static LIST_HEAD(all_mddevs);
static DEFINE_MUTEX(all_mddevs_mutex);

static struct ctl_table_header *md_sysctl_header;

/* /proc/mdstat poll: bumped on every array event */
static atomic_t md_event_count;
static DECLARE_WAIT_QUEUE_HEAD(md_event_waiters);

void md_new_event(void)
{
	atomic_inc(&md_event_count);
	wake_up(&md_event_waiters);
}

int mddev_lock(struct mddev *mddev)
{
	return mutex_lock_interruptible(&mddev->reconfig_mutex);
}

/* mddev_lock() for sysfs stores: none once md_delete_work() decided. */
int mddev_lock_live(struct mddev *mddev)
{
	int err = mddev_lock(mddev);

	if (err)
		return err;
	if (test_bit(MDC_DELETED, &to_core(mddev)->core_flags)) {
		mddev_unlock(mddev);
		return -ENODEV;
	}
	return 0;
}

/*
 * Work the md thread skipped while we held the lock gets redone, and a
 * deletion that found the lock taken (md_delete_work()) is tried again.
 */
void mddev_unlock(struct mddev *mddev)
{
	struct md_core *core = to_core(mddev);

	mutex_unlock(&mddev->reconfig_mutex);
	/*
	 * Full barrier: the unlock before reading MDC_DEL_AGAIN; pairs with
	 * md_delete_work()'s between setting it and testing the lock.
	 */
	smp_mb();
	if (test_and_clear_bit(MDC_DEL_AGAIN, &core->core_flags))
		queue_work(md_del_wq, &core->del_work);
	if (test_and_clear_bit(MDC_SYNC_FILES, &core->core_flags) &&
	    !test_bit(MDC_DELETED, &core->core_flags)) {
		/* the work's reference; a work already queued has its own */
		kobject_get(&mddev->kobj);
		if (!queue_work(md_misc_wq, &core->sync_files_work))
			kobject_put(&mddev->kobj);
	}
	md_wakeup_thread(mddev);
}

void md_wakeup_thread(struct mddev *mddev)
{
	set_bit(0, &mddev->thread_flags);
	wake_up(&mddev->thread_wq);
}
EXPORT_SYMBOL_GPL(md_wakeup_thread);

const char *md_level_name(int level)
{
	switch (level) {
	case LEVEL_LINEAR:	return "linear";
	case 0:			return "raid0";
	case 1:			return "raid1";
	case 4:			return "raid4";
	case 5:			return "raid5";
	case 6:			return "raid6";
	case 10:		return "raid10";
	default:		return NULL;
	}
}

int md_level_from_name(const char *name, int *level)
{
	static const int levels[] = { LEVEL_LINEAR, 0, 1, 4, 5, 6, 10 };
	int i, n;

	for (i = 0; i < ARRAY_SIZE(levels); i++) {
		if (sysfs_streq(name, md_level_name(levels[i]))) {
			*level = levels[i];
			return 0;
		}
	}
	if (kstrtoint(name, 10, &n))
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(levels); i++) {
		if (levels[i] == n) {
			*level = n;
			return 0;
		}
	}
	return -EINVAL;
}

/* ---------------------------------------------------------------- */
/* Personalities */

int md_register_personality(struct md_personality *p)
{
	spin_lock(&md_pers_lock);
	list_add_tail(&p->list, &md_pers_list);
	spin_unlock(&md_pers_lock);
	pr_info("md: %s personality registered for level %d\n",
		p->name, p->level);
	return 0;
}
EXPORT_SYMBOL_GPL(md_register_personality);

void md_unregister_personality(struct md_personality *p)
{
	spin_lock(&md_pers_lock);
	list_del_init(&p->list);
	spin_unlock(&md_pers_lock);
	pr_info("md: %s personality unregistered\n", p->name);
}
EXPORT_SYMBOL_GPL(md_unregister_personality);

static struct md_personality *md_find_pers(int level)
{
	struct md_personality *p, *found = NULL;

	spin_lock(&md_pers_lock);
	list_for_each_entry(p, &md_pers_list, list) {
		if (p->level == level && try_module_get(p->owner)) {
			found = p;
			break;
		}
	}
	spin_unlock(&md_pers_lock);
	return found;
}

static struct md_personality *md_get_pers(int level)
{
	struct md_personality *p = md_find_pers(level);

	if (!p && level != LEVEL_NONE) {
		request_module("md-level-%d", level);
		p = md_find_pers(level);
	}
	return p;
}

/* The personality of @level, with a reference on its module, or NULL. */
struct md_personality *md_get_pers_ref(int level)
{
	return md_get_pers(level);
}

/* ---------------------------------------------------------------- */
/* IO gate and the bio entry */

/* Last reference on a killed gate dropped; any context. */
static void md_active_io_release(struct percpu_ref *ref)
{
	struct md_core *core = container_of(ref, struct md_core, active_io);

	wake_up_all(&core->suspend_wq);
}

/* Allocate the IO gate and the foreground counts of a new mddev. */
static int md_io_init(struct md_core *core)
{
	int err;

	core->mddev.fg = alloc_percpu(struct md_fg_count);
	if (!core->mddev.fg)
		return -ENOMEM;
	core->mddev.fg_slow_ns = U64_MAX;
	/* revived after every suspend: keep the per-CPU counters */
	err = percpu_ref_init(&core->active_io, md_active_io_release,
			      PERCPU_REF_ALLOW_REINIT, GFP_KERNEL);
	if (err) {
		free_percpu(core->mddev.fg);
		core->mddev.fg = NULL;
	}
	return err;
}

/* The gate is open and no IO can reach this mddev any more. */
static void md_io_exit(struct md_core *core)
{
	percpu_ref_exit(&core->active_io);
	free_percpu(core->mddev.fg);
	core->mddev.fg = NULL;
}

void md_fg_sample(struct mddev *mddev, u64 *completed, u32 *inflight,
		  u64 *lat_ns, u64 *slow)
{
	unsigned long started = 0, done = 0, nslow = 0;
	u64 lat = 0;
	int cpu;

	for_each_possible_cpu(cpu) {
		struct md_fg_count *c = per_cpu_ptr(mddev->fg, cpu);

		done += READ_ONCE(c->completed);
		lat += READ_ONCE(c->lat_ns);
		nslow += READ_ONCE(c->slow);
	}
	/*
	 * A request's start is counted before its completion, so reading
	 * every completion before any start never shows more completed
	 * than started; only a request moving in the meantime can make
	 * the difference a little high.
	 */
	smp_rmb();
	for_each_possible_cpu(cpu)
		started += READ_ONCE(per_cpu_ptr(mddev->fg, cpu)->started);
	*completed = done;
	*lat_ns = lat;
	*slow = nslow;
	*inflight = (long)(started - done) > 0 ?
		    min_t(unsigned long, started - done, U32_MAX) : 0;
}

/* Stop new IO and wait for submitters inside the gate, then quiesce pers. */
void md_suspend(struct mddev *mddev)
{
	struct md_core *core = to_core(mddev);

	lockdep_assert_held(&mddev->reconfig_mutex);
	if (WARN_ON_ONCE(core->suspended))
		return;
	WRITE_ONCE(core->suspended, 1);
	/* every tryget after this fails; the RCU switch orders the rest */
	percpu_ref_kill(&core->active_io);
	wait_event(core->suspend_wq, percpu_ref_is_zero(&core->active_io));
	if (mddev->pers && mddev->pers->quiesce)
		mddev->pers->quiesce(mddev, 1);
}

static bool md_gate_closed(struct md_core *core)
{
	/* pairs with the release in md_gate_open(): the ref is live again */
	return smp_load_acquire(&core->suspended);
}

/* Reopen the gate (without touching the personality). */
static void md_gate_open(struct md_core *core)
{
	lockdep_assert_held(&core->mddev.reconfig_mutex);
	if (!core->suspended)
		return;
	percpu_ref_resurrect(&core->active_io);
	/* pairs with smp_load_acquire() in md_submit_bio(): ref live first */
	smp_store_release(&core->suspended, 0);
	wake_up_all(&core->suspend_wq);
}

void md_resume(struct mddev *mddev)
{
	lockdep_assert_held(&mddev->reconfig_mutex);
	if (mddev->pers && mddev->pers->quiesce)
		mddev->pers->quiesce(mddev, 0);
	md_gate_open(to_core(mddev));
}

/*
 * Park a write into the suspended range until the range moves.  The
 * check is made again under parked_lock, which md_set_suspend() takes
 * after it moved the range: a write either sees the new range or is
 * on the list the store then submits again.
 */
static void md_park(struct mddev *mddev, struct bio *bio)
{
	struct md_core *core = to_core(mddev);

	spin_lock_irq(&core->parked_lock);
	if (md_suspended_range(mddev, bio->bi_iter.bi_sector,
			       bio_sectors(bio))) {
		bio_list_add(&core->parked, bio);
		bio = NULL;
	}
	spin_unlock_irq(&core->parked_lock);
	if (bio)
		submit_bio_noacct(bio);
}

/* Submit the parked writes again (each parks again if still held). */
static void md_unpark(struct mddev *mddev, bool fail)
{
	struct md_core *core = to_core(mddev);
	struct bio_list bl;
	struct bio *bio;

	spin_lock_irq(&core->parked_lock);
	bl = core->parked;
	bio_list_init(&core->parked);
	spin_unlock_irq(&core->parked_lock);
	while ((bio = bio_list_pop(&bl))) {
		if (fail)
			bio_io_error(bio);
		else
			submit_bio_noacct(bio);
	}
}

/*
 * suspend_lo/suspend_hi: set the range writes wait for.  A range that
 * now covers sectors it did not is set with the array suspended, so no
 * write into them is still in flight when this returns (mdadm reads
 * the region off the members next); a smaller one just lets the
 * waiters go.
 */
void md_set_suspend(struct mddev *mddev, sector_t lo, sector_t hi)
{
	struct md_core *core = to_core(mddev);
	sector_t olo = mddev->suspend_lo, ohi = mddev->suspend_hi;
	bool grows = lo < hi && (olo >= ohi || lo < olo || hi > ohi);

	lockdep_assert_held(&mddev->reconfig_mutex);
	if (grows && mddev->pers)
		md_suspend(mddev);
	/* parked_lock: pairs with md_park()'s check under it */
	spin_lock_irq(&core->parked_lock);
	WRITE_ONCE(mddev->suspend_lo, lo);
	WRITE_ONCE(mddev->suspend_hi, hi);
	spin_unlock_irq(&core->parked_lock);
	if (grows && mddev->pers)
		md_resume(mddev);
	md_unpark(mddev, false);
	/* a reshape may wait for the range (md_sync_wait_backup()) */
	wake_up(&mddev->sync_wait);
}

/* read-auto: the first write makes the array read-write. */
static void md_enter_rw(struct mddev *mddev)
{
	bool changed = false;

	spin_lock_irq(&mddev->lock);
	if (mddev->ro == 2) {
		mddev->ro = 0;
		changed = true;
	}
	spin_unlock_irq(&mddev->lock);
	if (changed) {
		set_bit(MDR_NEEDED, &mddev->recovery);
		md_wakeup_thread(mddev);
		md_notify(mddev->sysfs_state);
	}
}

/*
 * The bio goes to the personality cut to the array's queue limits, or
 * whole where each piece the personality makes goes unchanged to one
 * member (members_split: linear, raid0), whose own submission cuts it
 * to that member's limits; cutting here first would cost every piece a
 * clone and an accounting for nothing.  The personality does the
 * accounting (md_io_start/md_io_end) on the requests it serves, so the
 * core needs no clone of its own to see completions.
 *
 * REQ_NOWAIT (the queue takes it when every member does: md_compat.h's
 * md_limits_*): wherever the submitter would sleep for the array (the
 * gate here, the clean->dirty superblock write in md_write_start(), a
 * personality's barriers, gates and stripes), the bio ends with
 * BLK_STS_AGAIN instead and whatever it had taken is given back.  Waits
 * that are bounded by IO already in flight (mempools and biosets with
 * reserves) stay, each said where it is.  Members never see REQ_NOWAIT:
 * the personalities clear it on every bio they send down, since a
 * member's BLK_STS_AGAIN would read as a member error.
 */
static void md_submit_bio(struct bio *bio)
{
	struct mddev *mddev = bio->bi_bdev->bd_disk->private_data;
	struct md_core *core = to_core(mddev);
	struct md_personality *pers;

	while (!percpu_ref_tryget_live(&core->active_io)) {
		/* suspended: nothing taken yet, so nothing to give back */
		if (bio->bi_opf & REQ_NOWAIT) {
			bio_wouldblock_error(bio);
			return;
		}
		wait_event(core->suspend_wq, !md_gate_closed(core));
	}

	pers = READ_ONCE(mddev->pers);
	if (!pers) {
		bio_io_error(bio);
		goto put;
	}
	if (!pers->members_split) {
		/* the rest is submitted again, after this returns */
		bio = bio_split_to_limits(bio);
		if (!bio)
			goto put;
	}
	if (op_is_write(bio_op(bio))) {
		if (READ_ONCE(mddev->ro) == 1) {
			if (bio_sectors(bio))
				bio_io_error(bio);
			else
				bio_endio(bio);
			goto put;
		}
		/* a write would land on too few members to be read back */
		if (unlikely(md_broken(mddev))) {
			bio_io_error(bio);
			goto put;
		}
		if (READ_ONCE(mddev->ro) == 2)
			md_enter_rw(mddev);
		/* mdadm holds this range while it backs it up */
		if (unlikely(md_suspended_range(mddev, bio->bi_iter.bi_sector,
						bio_sectors(bio)))) {
			if (bio->bi_opf & REQ_NOWAIT)
				bio_wouldblock_error(bio);
			else
				md_park(mddev, bio);
			goto put;
		}
	}
	pers->make_request(mddev, bio);
put:
	percpu_ref_put(&core->active_io);
}

/* ---------------------------------------------------------------- */
/* Superblock updates, safe mode */

void md_update_sb(struct mddev *mddev)
{
	struct md_core *core = to_core(mddev);

	mutex_lock(&core->sb_mutex);
	/* without superblocks it only clears the flags and wakes waiters */
	if (mddev->pers)
		md_super_write_all(mddev);
	mutex_unlock(&core->sb_mutex);
	md_notify(mddev->sysfs_state);
}

static void md_safe_mode_arm(struct mddev *mddev);

/* safe_mode_adaptive: a write ends a clean period; was it too short? */
static void md_clean_period_ended(struct mddev *mddev)
{
	struct md_core *core = to_core(mddev);

	lockdep_assert_held(&mddev->lock);
	if (READ_ONCE(core->safe_mode_adaptive))
		WRITE_ONCE(core->sm_late,
			   wp_safe_mode_late(jiffies - core->clean_at,
					     READ_ONCE(mddev->safe_mode_delay)));
}

bool md_write_start(struct mddev *mddev, struct bio *bio)
{
	struct md_core *core = to_core(mddev);
	bool marked;
	u64 t0 = 0, dt;

	if (bio_data_dir(bio) != WRITE)
		return true;
	if (READ_ONCE(mddev->ro) == 2)
		md_enter_rw(mddev);
	if (test_bit(MDC_SAFEMODE_FIRED, &core->core_flags))
		clear_bit(MDC_SAFEMODE_FIRED, &core->core_flags);

	while (!wp_start(&mddev->wp)) {
		/* scheduler clock: a clocksource read may cost more than the wait */
		if (!t0)
			t0 = local_clock();
		marked = false;
		spin_lock_irq(&mddev->lock);
		if (mddev->in_sync) {
			/* closed and clean: go dirty, durably, first */
			mddev->in_sync = 0;
			set_bit(MD_SB_CHANGE_CLEAN, &mddev->sb_flags);
			set_bit(MD_SB_CHANGE_PENDING, &mddev->sb_flags);
			core->dirty_transitions++;
			md_clean_period_ended(mddev);
			marked = true;
		} else if (!test_bit(MD_SB_CHANGE_PENDING, &mddev->sb_flags)) {
			/*
			 * "dirty" is on disk; the clean check cannot close
			 * the counter again before it sees in_sync == 0 under
			 * this lock, so reopening here is safe.
			 */
			wp_open(&mddev->wp);
			spin_unlock_irq(&mddev->lock);
			continue;
		}
		spin_unlock_irq(&mddev->lock);
		/* the superblock write first, the poll notification after */
		md_wakeup_thread(mddev);
		if (marked)
			md_notify(mddev->sysfs_state);
		/*
		 * REQ_NOWAIT: no count was taken (wp_start() failed).  The
		 * dirty mark stays and the md thread writes it, so a retry
		 * finds it done; should none come, the safe-mode timer
		 * marks the array clean again, as after a write.
		 */
		if (bio->bi_opf & REQ_NOWAIT) {
			md_safe_mode_arm(mddev);
			return false;
		}
		wait_event(mddev->sb_wait,
			   !test_bit(MD_SB_CHANGE_PENDING, &mddev->sb_flags));
	}
	if (t0) {
		/* two CPUs' clocks may disagree by a little: never below 0 */
		dt = local_clock();
		dt = dt > t0 ? dt - t0 : 0;
		spin_lock_irq(&mddev->lock);
		core->write_wait_ns_total += dt;
		if (dt > core->write_wait_ns_max)
			core->write_wait_ns_max = dt;
		spin_unlock_irq(&mddev->lock);
	}
	return true;
}
EXPORT_SYMBOL_GPL(md_write_start);

/*
 * The safe-mode timer expires at the end of the delay-long window after
 * the one the write ended in: delay to 2 * delay - 1 jiffies after the
 * last write, the same instant in-tree md picks.  Every write end in
 * one window asks for the same expiry, so mod_timer() returns on its
 * lockless "already pending with that expiry" test instead of taking
 * the timer base lock (and moving the timer to this CPU) once a jiffy.
 * With safe_mode_adaptive, after a clean period shorter than the delay
 * the expiry moves to the end of that same range (wp_safe_mode_expiry()).
 */
static void md_safe_mode_arm(struct mddev *mddev)
{
	struct md_core *core = to_core(mddev);
	unsigned long delay = READ_ONCE(mddev->safe_mode_delay);

	if (delay)
		mod_timer(&mddev->safe_mode_timer,
			  wp_safe_mode_expiry(jiffies, delay,
					      READ_ONCE(core->sm_late)));
}

void md_write_end(struct mddev *mddev)
{
	if (wp_end(&mddev->wp))
		md_safe_mode_arm(mddev);
}
EXPORT_SYMBOL_GPL(md_write_end);

static void md_safe_mode_timeout(struct timer_list *t)
{
	struct mddev *mddev = from_timer(mddev, t, safe_mode_timer);

	set_bit(MDC_SAFEMODE_FIRED, &to_core(mddev)->core_flags);
	md_wakeup_thread(mddev);
}

/* md thread: mark the array clean if no write is in flight. */
static void md_clean_check(struct mddev *mddev)
{
	struct md_core *core = to_core(mddev);
	bool marked = false;
	u64 t0, dt;

	if (READ_ONCE(mddev->ro) || !READ_ONCE(mddev->safe_mode_delay))
		return;
	spin_lock_irq(&mddev->lock);
	/*
	 * The time writers can be held: inside the lock, on this CPU, with
	 * the scheduler clock (a clocksource read such as HPET costs tens
	 * of microseconds under emulation and would inflate what it times).
	 */
	t0 = local_clock();
	if (!mddev->in_sync &&
	    !test_bit(MD_SB_CHANGE_PENDING, &mddev->sb_flags) &&
	    wp_try_close(&mddev->wp)) {
		mddev->in_sync = 1;
		set_bit(MD_SB_CHANGE_CLEAN, &mddev->sb_flags);
		core->clean_at = jiffies;
		marked = true;
	}
	dt = local_clock() - t0;
	core->clean_check_ns_total += dt;
	if (dt > core->clean_check_ns_max)
		core->clean_check_ns_max = dt;
	spin_unlock_irq(&mddev->lock);
	if (marked)
		md_notify(mddev->sysfs_state);
}

/*
 * Mark clean now (stop, readonly, array_state=clean).  -EBUSY if writes
 * are in flight.  Caller holds reconfig_mutex.
 */
int md_mark_clean(struct mddev *mddev)
{
	int err = 0;

	lockdep_assert_held(&mddev->reconfig_mutex);
	if (!mddev->pers || mddev->ro)
		return 0;
	spin_lock_irq(&mddev->lock);
	if (!mddev->in_sync) {
		if (wp_try_close(&mddev->wp)) {
			mddev->in_sync = 1;
			set_bit(MD_SB_CHANGE_CLEAN, &mddev->sb_flags);
			to_core(mddev)->clean_at = jiffies;
		} else {
			err = -EBUSY;
		}
	}
	spin_unlock_irq(&mddev->lock);
	/* an array already clean on disk is not rewritten (events kept) */
	if (!err && (READ_ONCE(mddev->sb_flags) &
		     (BIT(MD_SB_CHANGE_DEVS) | BIT(MD_SB_CHANGE_CLEAN) |
		      BIT(MD_SB_CHANGE_PENDING))))
		md_update_sb(mddev);
	return err;
}

/* ---------------------------------------------------------------- */
/* Member failure and sync accounting (any context) */

void md_error(struct mddev *mddev, struct md_rdev *rdev)
{
	struct md_personality *pers = READ_ONCE(mddev->pers);
	int slot;

	if (!rdev || !pers || !pers->error_handler ||
	    test_bit(RD_FAULTY, &rdev->flags))
		return;
	/* the handler clears RD_IN_SYNC: an in-sync member's slot first */
	slot = test_bit(RD_IN_SYNC, &rdev->flags) ?
	       READ_ONCE(rdev->raid_disk) : -1;
	pers->error_handler(mddev, rdev);
	if (!test_bit(RD_FAULTY, &rdev->flags))
		return;		/* last working member: kept */
	/* for a re-add (md_sysfs.c "re-add"); read under reconfig_mutex */
	WRITE_ONCE(rdev->saved_raid_disk, slot);
	pr_crit("md/%s: %pg failed, %d member(s) missing or failed\n",
		mdname(mddev), rdev->bdev, READ_ONCE(mddev->degraded));
	set_bit(MD_SB_CHANGE_DEVS, &mddev->sb_flags);
	if (test_bit(MDR_RUNNING, &mddev->recovery)) {
		set_bit(MDR_INTR, &mddev->recovery);
		wake_up(&mddev->sync_wait);
	}
	/* a broken array has nothing to rebuild from */
	if (!md_broken(mddev))
		set_bit(MDR_NEEDED, &mddev->recovery);
	md_wakeup_thread(mddev);
	md_notify(rdev->sysfs_state);
	md_new_event();
}
EXPORT_SYMBOL_GPL(md_error);

int md_rdev_flush(struct md_rdev *rdev)
{
	struct bio bio;
	int err;

	bio_init(&bio, rdev->bdev, NULL, 0,
		 REQ_OP_WRITE | REQ_PREFLUSH | REQ_SYNC);
	err = submit_bio_wait(&bio);
	bio_uninit(&bio);
	return err;
}
EXPORT_SYMBOL_GPL(md_rdev_flush);

int md_fail_request(struct mddev *mddev, struct md_rdev *rdev)
{
	md_error(mddev, rdev);
	/* failed, but the array with it: say so, as in-tree does */
	if (!test_bit(RD_FAULTY, &rdev->flags) || md_broken(mddev))
		return -EBUSY;
	return 0;
}

void md_done_sync(struct mddev *mddev, int sectors, bool ok)
{
	struct md_core *core = to_core(mddev);

	atomic64_add(sectors, &core->sync_done);
	atomic_sub(sectors, &mddev->sync_active);
	atomic_dec(&core->sync_reqs);
	if (!ok) {
		WRITE_ONCE(core->sync_error, true);
		set_bit(MDR_INTR, &mddev->recovery);
		md_wakeup_thread(mddev);
	}
	atomic_inc(&core->sync_seq);
	wake_up(&mddev->sync_wait);
}
EXPORT_SYMBOL_GPL(md_done_sync);

/* ---------------------------------------------------------------- */
/* The md thread */

static void md_thread_work(struct mddev *mddev)
{
	struct md_core *core = to_core(mddev);
	int degraded;

	if (test_and_clear_bit(MDC_SAFEMODE_FIRED, &core->core_flags))
		md_clean_check(mddev);
	if (test_and_clear_bit(MDC_CHECKPOINT, &core->core_flags) ||
	    (READ_ONCE(mddev->sb_flags) & (BIT(MD_SB_CHANGE_DEVS) |
					    BIT(MD_SB_CHANGE_CLEAN) |
					    BIT(MD_SB_CHANGE_PENDING) |
					    BIT(MD_SB_FAIL_PENDING))))
		md_update_sb(mddev);

	md_check_recovery(mddev);

	degraded = READ_ONCE(mddev->degraded);
	if (degraded != core->notified_degraded) {
		core->notified_degraded = degraded;
		md_notify_sync(mddev, MD_KN_DEGRADED);
	}
}

static int md_thread_fn(void *arg)
{
	struct mddev *mddev = arg;
	struct md_core *core = to_core(mddev);
	long timeout;

	while (!kthread_should_stop()) {
		timeout = test_bit(MDC_RETRY, &core->core_flags) ?
			  HZ / 10 : MAX_SCHEDULE_TIMEOUT;
		wait_event_interruptible_timeout(mddev->thread_wq,
						 test_bit(0, &mddev->thread_flags) ||
						 kthread_should_stop(),
						 timeout);
		clear_bit(0, &mddev->thread_flags);
		if (kthread_should_stop())
			break;
		md_thread_work(mddev);
		if (mddev->pers->daemon)
			mddev->pers->daemon(mddev);
	}
	return 0;
}

/* ---------------------------------------------------------------- */
/* Members */

struct md_rdev *md_find_rdev(struct mddev *mddev, dev_t dev)
{
	struct md_rdev *rdev;

	lockdep_assert_held(&mddev->reconfig_mutex);
	rdev_for_each(rdev, mddev)
		if (rdev->dev == dev)
			return rdev;
	return NULL;
}

void md_rdev_link_slot(struct md_rdev *rdev)
{
	char nm[20];

	/* a replacement has no rdN link: its slot's member has it */
	if (rdev->raid_disk < 0 || !rdev->mddev ||
	    test_bit(RD_REPLACEMENT, &rdev->flags))
		return;
	snprintf(nm, sizeof(nm), "rd%d", rdev->raid_disk);
	sysfs_remove_link(&rdev->mddev->kobj, nm);
	if (sysfs_create_link(&rdev->mddev->kobj, &rdev->kobj, nm))
		pr_warn("md: %s: cannot create %s link\n",
			mdname(rdev->mddev), nm);
}

void md_rdev_unlink_slot(struct md_rdev *rdev)
{
	char nm[20];

	if (rdev->raid_disk < 0 || !rdev->mddev ||
	    test_bit(RD_REPLACEMENT, &rdev->flags))
		return;
	snprintf(nm, sizeof(nm), "rd%d", rdev->raid_disk);
	sysfs_remove_link(&rdev->mddev->kobj, nm);
}

/*
 * @rdev left its slot (pers->hot_remove_disk() succeeded): its rdN link
 * goes, and if a replacement took the slot over, the link is its now.
 */
void md_rdev_leave_slot(struct md_rdev *rdev)
{
	struct mddev *mddev = rdev->mddev;
	int slot = rdev->raid_disk;
	struct md_rdev *other;

	lockdep_assert_held(&mddev->reconfig_mutex);
	md_rdev_unlink_slot(rdev);
	clear_bit(RD_REPLACEMENT, &rdev->flags);
	rdev->raid_disk = -1;
	if (slot < 0)
		return;
	rdev_for_each(other, mddev)
		if (other->raid_disk == slot &&
		    !test_bit(RD_REPLACEMENT, &other->flags))
			md_rdev_link_slot(other);
}

static void md_rdev_del_work(struct work_struct *ws)
{
	struct md_core_rdev *cr = container_of(ws, struct md_core_rdev,
					       del_work);

	if (cr->kobj_added)
		kobject_del(&cr->rdev.kobj);
	kobject_put(&cr->rdev.kobj);
}

/* Open @dev exclusively and, if @load_sb, read its superblock. */
static struct md_rdev *md_import_rdev(struct mddev *mddev, dev_t dev,
				      bool load_sb)
{
	struct md_core_rdev *cr;
	struct md_rdev *rdev;
	struct block_device *bdev;
	int err;

	cr = kzalloc(sizeof(*cr), GFP_KERNEL);
	if (!cr)
		return ERR_PTR(-ENOMEM);
	rdev = &cr->rdev;
	INIT_LIST_HEAD(&rdev->same_set);
	INIT_WORK(&cr->del_work, md_rdev_del_work);
	kobject_init(&rdev->kobj, &md_rdev_ktype);
	rdev->dev = dev;
	rdev->raid_disk = -1;
	rdev->saved_raid_disk = -1;
	rdev->desc_nr = -1;
	atomic_set(&rdev->nr_pending, 0);
	atomic_set(&rdev->read_errors, 0);
	atomic_set(&rdev->errors, 0);
	err = md_bb_init(rdev);
	if (err)
		goto free_rdev;

	bdev = md_bdev_open_excl(dev, rdev, &cr->excl);
	if (IS_ERR(bdev)) {
		err = PTR_ERR(bdev);
		pr_warn("md: %s: cannot open device %u:%u (%d)\n",
			mdname(mddev), MAJOR(dev), MINOR(dev), err);
		goto free_rdev;
	}
	rdev->bdev = bdev;
	if (!load_sb)
		return rdev;
	if (!mddev->persistent) {
		pr_warn("md: %s: set a superblock version before adding %pg\n",
			mdname(mddev), bdev);
		err = -EINVAL;
		goto close_bdev;
	}
	err = md_super_load(rdev, mddev->major_version,
			    mddev->minor_version);
	if (err)
		goto close_bdev;
	return rdev;

close_bdev:
	md_bdev_close_excl(&cr->excl);
free_rdev:
	kobject_put(&rdev->kobj);
	return ERR_PTR(err);
}

/* Give back an rdev that was imported but never bound. */
static void md_drop_rdev(struct md_rdev *rdev)
{
	md_super_free(rdev);
	md_bdev_close_excl(&to_core_rdev(rdev)->excl);
	rdev->bdev = NULL;
	/* a half-bound one has a directory: not removed under our locks */
	queue_work(md_misc_wq, &to_core_rdev(rdev)->del_work);
}

/*
 * A removed member's directory goes away from md_misc_wq, as a store
 * into it may be waiting for reconfig_mutex.  A device re-added under
 * the same name needs that done first, so whoever adds members waits
 * here before taking reconfig_mutex (never under it: that is the
 * deadlock).  An add that still finds the name taken had a removal
 * race in after this and gets -EBUSY from md_bind_rdev().
 */
void md_wait_member_dirs(void)
{
	flush_workqueue(md_misc_wq);
}

/*
 * A member that does not take REQ_NOWAIT joined a running array (a spare,
 * not in a slot yet): the array stops taking it at once, as in-tree, so
 * no nowait bio is admitted that this member could not serve.  It is
 * taken again only when the array runs again with every member taking it.
 * An array not running gets its limits at md_run().
 */
static void md_limits_drop_nowait(struct mddev *mddev, struct md_rdev *rdev)
{
	struct md_limits ml;

	if (!mddev->pers || bdev_nowait(rdev->bdev) ||
	    !bdev_nowait(mddev->gendisk->part0))
		return;
	if (!md_limits_begin(mddev, &ml))
		return;
	md_limits_clear_nowait(&ml);
	if (md_limits_end(mddev, &ml))
		pr_warn("md: %s: could not stop taking REQ_NOWAIT for %pg\n",
			mdname(mddev), rdev->bdev);
	else
		pr_info("md: %s: %pg does not take REQ_NOWAIT, nor does the array now\n",
			mdname(mddev), rdev->bdev);
}

static int md_bind_rdev(struct mddev *mddev, struct md_rdev *rdev)
{
	struct md_core_rdev *cr = to_core_rdev(rdev);
	struct md_core *core = to_core(mddev);
	char name[BDEVNAME_SIZE + 4];
	struct kernfs_node *old;
	int err;

	lockdep_assert_held(&mddev->reconfig_mutex);
	snprintf(name, sizeof(name), "dev-%pg", rdev->bdev);
	old = sysfs_get_dirent(mddev->kobj.sd, name);
	if (old) {
		sysfs_put(old);
		pr_info("md: %s: %s is still being removed, try again\n",
			mdname(mddev), name);
		return -EBUSY;
	}
	rdev->mddev = mddev;
	err = kobject_add(&rdev->kobj, &mddev->kobj, "%s", name);
	if (err) {
		rdev->mddev = NULL;
		return err;
	}
	cr->kobj_added = true;
	err = md_sysfs_add_rdev(rdev);
	if (err)
		goto unset_mddev;
	cr->holder_linked = !bd_link_disk_holder(rdev->bdev, mddev->gendisk);

	mutex_lock(&core->sb_mutex);
	list_add_rcu(&rdev->same_set, &mddev->disks);
	mutex_unlock(&core->sb_mutex);
	md_limits_drop_nowait(mddev, rdev);
	return 0;

unset_mddev:
	/* md_drop_rdev() has the directory removed off-lock */
	rdev->mddev = NULL;
	return err;
}

/* Unbind and close a member; its kobject goes away from md_misc_wq. */
static void md_export_rdev(struct md_rdev *rdev)
{
	struct md_core_rdev *cr = to_core_rdev(rdev);
	struct mddev *mddev = rdev->mddev;
	struct md_core *core = to_core(mddev);

	lockdep_assert_held(&mddev->reconfig_mutex);
	md_rdev_unlink_slot(rdev);
	mutex_lock(&core->sb_mutex);
	list_del_rcu(&rdev->same_set);
	mutex_unlock(&core->sb_mutex);
	/* IO-path and /proc/mdstat walkers are done with it */
	synchronize_rcu();

	if (cr->holder_linked)
		bd_unlink_disk_holder(rdev->bdev, mddev->gendisk);
	cr->holder_linked = false;
	if (rdev->sysfs_state)
		sysfs_put(rdev->sysfs_state);
	rdev->sysfs_state = NULL;
	WRITE_ONCE(rdev->mddev, NULL);
	md_super_free(rdev);
	md_bdev_close_excl(&cr->excl);
	rdev->bdev = NULL;
	queue_work(md_misc_wq, &cr->del_work);
}

static void md_export_all(struct mddev *mddev)
{
	struct md_rdev *rdev, *tmp;

	list_for_each_entry_safe(rdev, tmp, &mddev->disks, same_set)
		md_export_rdev(rdev);
}

/*
 * A member joined a running array: record it in every superblock (and
 * give it the bitmap before anything can read it), then let recovery
 * put it to use.
 */
static void md_member_joined(struct mddev *mddev)
{
	lockdep_assert_held(&mddev->reconfig_mutex);
	md_bitmap_write_all(mddev);
	set_bit(MD_SB_CHANGE_DEVS, &mddev->sb_flags);
	md_update_sb(mddev);
	set_bit(MDR_NEEDED, &mddev->recovery);
	md_wakeup_thread(mddev);
	md_new_event();
}

/*
 * A member that extends the running array (pers->append_disk, linear's
 * mdadm --grow --add): its limits join the array's first (that may
 * freeze the queue, which must not wait for a suspended gate), then the
 * personality installs it with nothing in flight, and the new capacity
 * is announced.
 */
static int md_append_rdev(struct mddev *mddev, struct md_rdev *rdev)
{
	struct md_limits ml;
	int err;

	lockdep_assert_held(&mddev->reconfig_mutex);
	if (md_limits_begin(mddev, &ml)) {
		md_limits_stack_rdev(&ml, rdev);
		err = md_limits_end(mddev, &ml);
		if (err)
			return err;
	}
	md_suspend(mddev);
	err = mddev->pers->append_disk(mddev, rdev);
	md_resume(mddev);
	if (err)
		return err;
	md_rdev_link_slot(rdev);
	set_capacity_and_notify(mddev->gendisk, mddev->array_sectors);
	return 0;
}

/*
 * ADD_NEW_DISK / new_dev: before RUN a member of the array being
 * assembled or created; on a running array a hot-added spare.
 * @info (ADD_NEW_DISK only): its write-mostly and failfast state bits
 * set or clear those flags, over what the superblock says on a running
 * array (before RUN the superblock is read again and decides).
 * @readd_slot >= 0: mdadm asks to re-add a former member in sync to
 * that slot.  Without a bitmap only an up to date member qualifies
 * (in-tree refuses the others with -EINVAL, and mdadm then adds the
 * device as a spare); it is still rebuilt in full.
 */
int md_add_new_disk(struct mddev *mddev, dev_t dev,
		    const mdu_disk_info_t *info, int readd_slot)
{
	struct md_rdev *rdev, *ref;
	int err;

	lockdep_assert_held(&mddev->reconfig_mutex);
	if (mddev->pers && !mddev->pers->hot_add_disk &&
	    !mddev->pers->append_disk) {
		pr_warn("md: %s: %s takes no new members\n", mdname(mddev),
			mddev->pers->name);
		return -EINVAL;
	}
	if (md_find_rdev(mddev, dev))
		return -EBUSY;
	rdev = md_import_rdev(mddev, dev, true);
	if (IS_ERR(rdev))
		return PTR_ERR(rdev);

	if (!list_empty(&mddev->disks)) {
		ref = list_first_entry(&mddev->disks, struct md_rdev, same_set);
		err = md_super_same_array(ref, rdev);
		if (err)
			goto drop_rdev;
	}
	if (mddev->pers) {
		err = md_super_import_rdev(mddev, rdev);
		if (err)
			goto drop_rdev;
		err = md_super_pick_desc_nr(mddev, rdev);
		if (err)
			goto drop_rdev;
		if (readd_slot >= 0 && rdev->saved_raid_disk != readd_slot) {
			pr_info("md: %s: %pg is not up to date, cannot re-add it in sync\n",
				mdname(mddev), rdev->bdev);
			err = -EINVAL;
			goto drop_rdev;
		}
	}
	if (info) {
		assign_bit(RD_WRITE_MOSTLY, &rdev->flags,
			   info->state & (1 << MD_DISK_WRITEMOSTLY));
		assign_bit(RD_FAILFAST, &rdev->flags,
			   info->state & (1 << MD_DISK_FAILFAST));
	}
	err = md_bind_rdev(mddev, rdev);
	if (err)
		goto drop_rdev;
	if (mddev->pers && mddev->pers->append_disk) {
		err = md_append_rdev(mddev, rdev);
		if (err)
			goto unbind_rdev;
	}

	if (mddev->pers)
		md_member_joined(mddev);
	md_notify(mddev->sysfs_state);
	return 0;

unbind_rdev:
	md_export_rdev(rdev);
	return err;
drop_rdev:
	md_drop_rdev(rdev);
	return err;
}

static bool md_desc_nr_taken(struct mddev *mddev, int nr)
{
	struct md_rdev *rdev;

	rdev_for_each(rdev, mddev)
		if (rdev->desc_nr == nr)
			return true;
	return false;
}

/*
 * new_dev while no metadata version is set (metadata_version "none"): as
 * in-tree, the device joins without its superblock being read.  Such an
 * array cannot be run (md_run() wants a 1.x version, which cannot be set
 * while it has members); the member can only be looked at and removed
 * again (dev-XXX/state "remove", STOP_ARRAY, array_state "clear").  It
 * gets the lowest free desc_nr, as in-tree numbers members at bind.
 */
int md_add_bare_disk(struct mddev *mddev, dev_t dev)
{
	struct md_rdev *rdev;
	int nr = 0, err;

	lockdep_assert_held(&mddev->reconfig_mutex);
	if (mddev->pers || mddev->persistent)
		return -EINVAL;
	if (md_find_rdev(mddev, dev))
		return -EBUSY;
	rdev = md_import_rdev(mddev, dev, false);
	if (IS_ERR(rdev))
		return PTR_ERR(rdev);
	while (md_desc_nr_taken(mddev, nr))
		nr++;
	rdev->desc_nr = nr;
	err = md_bind_rdev(mddev, rdev);
	if (err)
		goto drop_rdev;
	md_notify(mddev->sysfs_state);
	return 0;

drop_rdev:
	md_drop_rdev(rdev);
	return err;
}

/*
 * ADD_NEW_DISK on an array without superblocks (mdadm --build: the
 * description came from SET_ARRAY_INFO with not_persistent set).  @info
 * says everything there is to know: desc_nr = number, the slot and
 * whether it is in sync.  The whole device is data.  Before RUN the
 * array takes the smallest member's size unless a size was given;
 * on a running array the device must hold dev_sectors and joins as a
 * spare (one that names its old slot in sync has it preferred, but is
 * rebuilt: nothing says which of its blocks are current, unless a
 * bitmap does: then only its dirty chunks).
 */
int md_add_nosb_disk(struct mddev *mddev, dev_t dev,
		     const mdu_disk_info_t *info)
{
	struct md_rdev *rdev;
	bool sync = info->state & (1 << MD_DISK_SYNC);
	int err;

	lockdep_assert_held(&mddev->reconfig_mutex);
	if (mddev->persistent || !mddev->raid_disks)
		return -EINVAL;
	if (info->number < 0 || info->number >= mddev->max_disks ||
	    md_desc_nr_taken(mddev, info->number)) {
		pr_warn("md: %s: ADD_NEW_DISK number %d unusable\n",
			mdname(mddev), info->number);
		return -EINVAL;
	}
	if (md_find_rdev(mddev, dev))
		return -EBUSY;
	rdev = md_import_rdev(mddev, dev, false);
	if (IS_ERR(rdev))
		return PTR_ERR(rdev);
	rdev->desc_nr = info->number;
	rdev->data_offset = 0;
	rdev->new_data_offset = 0;
	rdev->sb_start = bdev_nr_sectors(rdev->bdev);
	rdev->sectors = rdev->sb_start;
	assign_bit(RD_WRITE_MOSTLY, &rdev->flags,
		   info->state & (1 << MD_DISK_WRITEMOSTLY));
	assign_bit(RD_FAILFAST, &rdev->flags,
		   info->state & (1 << MD_DISK_FAILFAST));
	if (info->raid_disk >= 0 && info->raid_disk < mddev->raid_disks) {
		if (mddev->pers) {
			if (sync)
				rdev->saved_raid_disk = info->raid_disk;
			/*
			 * --re-add with a bitmap: as in-tree, trust that it is
			 * the member that left (no superblock can say); the
			 * bitmap kept every chunk written since, as any array
			 * missing a member keeps its bits.
			 */
			if (sync && mddev->bitmap)
				set_bit(RD_BITMAP_READD, &rdev->flags);
		} else {
			rdev->raid_disk = info->raid_disk;
			if (sync)
				set_bit(RD_IN_SYNC, &rdev->flags);
		}
	}
	if (mddev->pers && rdev->sectors < mddev->dev_sectors) {
		pr_warn("md: %s: %pg is smaller than the array's members\n",
			mdname(mddev), rdev->bdev);
		err = -ENOSPC;
		goto drop_rdev;
	}
	err = md_bind_rdev(mddev, rdev);
	if (err)
		goto drop_rdev;
	if (!mddev->pers) {
		if (!mddev->dev_sectors || rdev->sectors < mddev->dev_sectors)
			mddev->dev_sectors = rdev->sectors;
	} else {
		md_member_joined(mddev);
	}
	md_notify(mddev->sysfs_state);
	return 0;

drop_rdev:
	md_drop_rdev(rdev);
	return err;
}

/* HOT_REMOVE_DISK / state=remove: a spare or a failed member. */
int md_remove_rdev(struct mddev *mddev, struct md_rdev *rdev)
{
	int err, tries;

	lockdep_assert_held(&mddev->reconfig_mutex);
	if (rdev->raid_disk >= 0) {
		if (mddev->pers && !test_bit(RD_FAULTY, &rdev->flags))
			return -EBUSY;
		if (mddev->pers) {
			if (test_bit(MDR_RUNNING, &mddev->recovery))
				md_stop_sync(mddev);
			/* let IO that still holds the member finish */
			for (tries = 0; tries < 50; tries++) {
				err = mddev->pers->hot_remove_disk(mddev, rdev);
				if (err != -EBUSY)
					break;
				msleep(100);
			}
			if (err)
				return -EBUSY;
			md_rdev_leave_slot(rdev);
		}
		rdev->raid_disk = -1;
	}
	md_export_rdev(rdev);
	if (mddev->pers) {
		set_bit(MD_SB_CHANGE_DEVS, &mddev->sb_flags);
		md_update_sb(mddev);
		set_bit(MDR_NEEDED, &mddev->recovery);
		md_wakeup_thread(mddev);
	}
	md_new_event();
	md_notify(mddev->sysfs_state);
	return 0;
}

/* ---------------------------------------------------------------- */
/* Run and stop */

/*
 * An update of the array's queue limits.  Caller holds reconfig_mutex
 * (run, hot add), which keeps the updates of one array apart.
 */
bool md_limits_begin(struct mddev *mddev, struct md_limits *ml)
{
	lockdep_assert_held(&mddev->reconfig_mutex);
	if (!mddev->gendisk)
		return false;
	md_limits_start(ml, mddev->gendisk);
	return true;
}
EXPORT_SYMBOL_GPL(md_limits_begin);

/*
 * Stack @rdev's queue limits into the array's.  An operation that not
 * every member serves is not advertised at all: the block layer then
 * refuses it (or falls back to plain writes) before it reaches us, so no
 * member ever sees a request it would fail.  Write-zeroes already stacks
 * that way (minimum); discard and secure erase stack as the smallest
 * non-zero value, so a member without them clears them here.  A
 * personality that serves fewer operations clears more in the same
 * update.
 */
void md_limits_stack_rdev(struct md_limits *ml, struct md_rdev *rdev)
{
	md_limits_stack_bdev(ml, rdev->bdev, rdev->data_offset);
	if (!bdev_max_discard_sectors(rdev->bdev))
		md_limits_max_discard_sectors(ml, 0);
	if (!bdev_max_secure_erase_sectors(rdev->bdev))
		md_limits_max_secure_erase_sectors(ml, 0);
}
EXPORT_SYMBOL_GPL(md_limits_stack_rdev);

/*
 * Make the update visible.  The queue is frozen for it unless we are the
 * md thread: freezing waits for every submitter inside md_submit_bio(),
 * and a writer there may be waiting in md_write_start() for the md thread
 * to write the superblock (or for it to record a failed member), so the
 * md thread, which puts spares into slots (md_check_recovery()), would
 * wait for itself.  It commits under the queue's limits_lock alone, which
 * still makes the change whole at once; 6.1 changes them in place anyway.
 * Nor while md_suspend() holds the gate shut (a reshape's start, a
 * takeover): a submitter waiting at the gate holds the queue's usage
 * count, so the freeze would wait for it and it for us; and nothing is
 * inside the personality then, and what waits is cut to the new limits
 * once it passes.  Everyone else (RUN_ARRAY, array_state; before the md
 * thread exists) may freeze, as md_suspend() may wait for submitters.
 */
int md_limits_end(struct mddev *mddev, struct md_limits *ml)
{
	lockdep_assert_held(&mddev->reconfig_mutex);
	if (current == mddev->thread || to_core(mddev)->suspended)
		return md_limits_commit(ml);
	return md_limits_commit_frozen(ml);
}
EXPORT_SYMBOL_GPL(md_limits_end);

void md_slot_fill(struct md_rdev __rcu **p, struct md_rdev *rdev, int slot)
{
	lockdep_assert_held(&rdev->mddev->reconfig_mutex);
	clear_bit(RD_IN_SYNC, &rdev->flags);
	rdev->recovery_offset = 0;
	rdev->raid_disk = slot;
	/* publishes the initialised rdev to IO-path rcu_dereference() */
	rcu_assign_pointer(*p, rdev);
}
EXPORT_SYMBOL_GPL(md_slot_fill);

int md_slot_pick(struct mddev *mddev, struct md_rdev *rdev, int nslots,
		 int (*state)(struct mddev *mddev, int slot), bool *repl)
{
	int want = rdev->raid_disk, i, s;

	lockdep_assert_held(&mddev->reconfig_mutex);
	*repl = false;
	if (want >= nslots)
		return -EINVAL;
	if (want >= 0) {
		s = state(mddev, want);
		if (s == MD_SLOT_TAKEN)
			return -EBUSY;
		*repl = s == MD_SLOT_WANTS_REPLACEMENT;
		return want;
	}
	i = rdev->saved_raid_disk;
	if (i >= 0 && i < nslots && state(mddev, i) == MD_SLOT_FREE)
		return i;
	for (i = 0; i < nslots; i++)
		if (state(mddev, i) == MD_SLOT_FREE)
			return i;
	for (i = 0; i < nslots; i++) {
		if (state(mddev, i) == MD_SLOT_WANTS_REPLACEMENT) {
			*repl = true;
			return i;
		}
	}
	return -EEXIST;
}
EXPORT_SYMBOL_GPL(md_slot_pick);

struct md_rdev *md_slot_hand_over(struct mddev *mddev,
				  struct md_rdev __rcu **p,
				  struct md_rdev __rcu **rp)
{
	struct md_rdev *repl = rcu_dereference_protected(*rp,
			lockdep_is_held(&mddev->reconfig_mutex));

	if (!repl || rcu_access_pointer(*p))
		return NULL;
	/*
	 * IO that still finds it in both places writes it twice, the same
	 * data: harmless.
	 */
	rcu_assign_pointer(*p, repl);
	RCU_INIT_POINTER(*rp, NULL);
	clear_bit(RD_REPLACEMENT, &repl->flags);
	return repl;
}
EXPORT_SYMBOL_GPL(md_slot_hand_over);

int md_slot_release(struct mddev *mddev, struct md_rdev __rcu **p,
		    struct md_rdev __rcu **rp, struct md_rdev *rdev)
{
	struct md_rdev *repl;
	int err;

	lockdep_assert_held(&mddev->reconfig_mutex);
	if (md_rdev_working(rdev))
		return -EBUSY;
	/* the core clears RD_REPLACEMENT (md_rdev_leave_slot()) */
	if (rcu_access_pointer(*rp) == rdev)
		return md_slot_empty(rp, rdev);
	err = md_slot_empty(p, rdev);
	if (err)
		return err;
	repl = md_slot_hand_over(mddev, p, rp);
	if (repl)
		pr_info("md: %s: %pg takes slot %d\n", mdname(mddev),
			repl->bdev, repl->raid_disk);
	return 0;
}
EXPORT_SYMBOL_GPL(md_slot_release);

int md_slot_empty(struct md_rdev __rcu **p, struct md_rdev *rdev)
{
	lockdep_assert_held(&rdev->mddev->reconfig_mutex);
	if (atomic_read(&rdev->nr_pending))
		return -EBUSY;
	RCU_INIT_POINTER(*p, NULL);
	/*
	 * IO that loaded the pointer before the store has pinned the
	 * member (nr_pending) by the end of the grace period; recheck.
	 */
	synchronize_rcu();
	if (atomic_read(&rdev->nr_pending)) {
		rcu_assign_pointer(*p, rdev);
		return -EBUSY;
	}
	return 0;
}
EXPORT_SYMBOL_GPL(md_slot_empty);

bool md_slot_activate(struct mddev *mddev, struct md_rdev *rdev)
{
	lockdep_assert_held(&mddev->lock);
	if (!md_rdev_alive(rdev) || test_bit(RD_IN_SYNC, &rdev->flags) ||
	    rdev->recovery_offset < mddev->dev_sectors)
		return false;
	set_bit(RD_IN_SYNC, &rdev->flags);
	return true;
}
EXPORT_SYMBOL_GPL(md_slot_activate);

int md_slot_activate_pair(struct mddev *mddev, struct md_rdev *rdev,
			  struct md_rdev *repl)
{
	int count = md_slot_activate(mddev, rdev);

	if (!md_slot_activate(mddev, repl))
		return count;
	if (!md_rdev_working(rdev))
		count++;
	if (md_rdev_alive(rdev)) {
		md_mark_faulty(mddev, rdev);
		clear_bit(RD_IN_SYNC, &rdev->flags);
		pr_info("md: %s: %pg replaced by %pg\n", mdname(mddev),
			rdev->bdev, repl->bdev);
	}
	return count;
}
EXPORT_SYMBOL_GPL(md_slot_activate_pair);

/* The array's limits from scratch: every working member's, write cache. */
static int md_stack_limits(struct mddev *mddev)
{
	struct md_rdev *rdev;
	struct md_limits ml;

	if (!md_limits_begin(mddev, &ml))
		return 0;
	md_limits_set_stacking(&ml);
	rdev_for_each(rdev, mddev)
		if (!test_bit(RD_FAULTY, &rdev->flags))
			md_limits_stack_rdev(&ml, rdev);
	md_limits_set_write_cache(&ml, true, true);
	return md_limits_end(mddev, &ml);
}

/* The resync space's length for members of @sectors (md.h). */
sector_t md_sync_sectors(struct mddev *mddev, struct md_personality *pers,
			 sector_t sectors)
{
	return pers->sync_sectors ? pers->sync_sectors(mddev, sectors) :
	       sectors;
}

int md_run(struct mddev *mddev)
{
	struct md_core *core = to_core(mddev);
	struct md_rdev *rdev, *tmp, *freshest = NULL;
	struct gendisk *disk = mddev->gendisk;
	struct md_personality *pers;
	struct task_struct *thread;
	/* an md/array_size written while not running: checked below */
	sector_t ext_sectors = mddev->array_sectors;
	bool kicked = false;
	int err;

	lockdep_assert_held(&mddev->reconfig_mutex);
	if (mddev->pers)
		return -EBUSY;
	if (list_empty(&mddev->disks))
		return -EINVAL;
	/* without superblocks SET_ARRAY_INFO described the array */
	if (!mddev->persistent && !mddev->raid_disks)
		return -EINVAL;

	rdev_for_each(rdev, mddev)
		if (!freshest || rdev->sb_events > freshest->sb_events)
			freshest = rdev;
	if (mddev->persistent) {
		err = md_super_import_array(mddev, freshest);
		if (err)
			return err;
	}
	list_for_each_entry_safe(rdev, tmp, &mddev->disks, same_set) {
		if (!mddev->persistent)
			break;
		err = md_super_import_rdev(mddev, rdev);
		if (!err)
			err = md_super_pick_desc_nr(mddev, rdev);
		if (err) {
			pr_warn("md: %s: not using %pg (%d)\n",
				mdname(mddev), rdev->bdev, err);
			md_export_rdev(rdev);
			kicked = true;
		}
	}
	if (list_empty(&mddev->disks))
		return -EINVAL;

	pers = md_get_pers(mddev->level);
	if (!pers) {
		pr_warn("md: %s: personality for level %d is not loaded\n",
			mdname(mddev), mddev->level);
		return -EINVAL;
	}
	if (mddev->reshape_position == MD_MAX_SECTOR) {
		mddev->new_level = mddev->level;
		mddev->new_layout = mddev->layout;
		mddev->new_chunk_sectors = mddev->chunk_sectors;
		mddev->delta_disks = 0;
		mddev->reshape_backwards = false;
	} else if (!pers->start_reshape) {
		pr_warn("md: %s: a reshape is in progress, which %s cannot continue\n",
			mdname(mddev), pers->name);
		err = -EINVAL;
		goto put_module;
	}
	/*
	 * A replacement the level cannot build here (left half-built by
	 * in-tree md) joins as a spare: the member it was replacing still
	 * holds the data, and nothing was read from the replacement.
	 */
	rdev_for_each(rdev, mddev) {
		if (!test_bit(RD_REPLACEMENT, &rdev->flags) || pers->replacement)
			continue;
		pr_warn("md: %s: %pg was being built as a replacement, which %s does not serve in this stack: it is a spare now\n",
			mdname(mddev), rdev->bdev, pers->name);
		clear_bit(RD_REPLACEMENT, &rdev->flags);
		clear_bit(RD_IN_SYNC, &rdev->flags);
		rdev->raid_disk = -1;
	}

	err = md_stack_limits(mddev);
	if (err) {
		pr_warn("md: %s: the members' queue limits do not fit together (%d)\n",
			mdname(mddev), err);
		goto put_module;
	}
	spin_lock_irq(&mddev->lock);
	mddev->in_sync = 1;
	mddev->degraded = 0;
	mddev->sb_flags = 0;
	mddev->flags = 0;
	core->clean_at = jiffies;
	core->sm_late = false;
	spin_unlock_irq(&mddev->lock);
	wp_open(&mddev->wp);
	wp_try_close(&mddev->wp);	/* clean: first write marks dirty */
	mddev->recovery &= BIT(MDR_FROZEN);
	mddev->safe_mode_delay = msecs_to_jiffies(200) + 1;
	mddev->array_sectors = 0;
	WRITE_ONCE(core->max_read_errors, MD_DEFAULT_MAX_READ_ERRORS);
	atomic_set(&mddev->sync_active, 0);
	atomic_set(&core->sync_reqs, 0);
	/* the last stop reopened the gate */
	WARN_ON_ONCE(core->suspended);

	mddev->ok_start_degraded = READ_ONCE(start_dirty_degraded);
	WRITE_ONCE(mddev->sync_window, 0);
	WRITE_ONCE(mddev->resync_max_sectors,
		   md_sync_sectors(mddev, pers, mddev->dev_sectors));
	/* before pers->run(): a write may come as soon as it returns */
	err = md_bitmap_create(mddev);
	if (err)
		goto put_module;
	WRITE_ONCE(mddev->pers, pers);
	err = pers->run(mddev);
	if (err) {
		pr_warn("md: %s: %s failed to start (%d)\n",
			mdname(mddev), pers->name, err);
		goto put_pers;
	}
	if (!mddev->array_sectors && pers->size)
		mddev->array_sectors = pers->size(mddev, mddev->dev_sectors,
						  mddev->raid_disks);
	if (core->external_size) {
		if (ext_sectors > mddev->array_sectors) {
			pr_warn("md: %s: array_size %llu KiB is above the %llu KiB the array has\n",
				mdname(mddev), (u64)ext_sectors / 2,
				(u64)mddev->array_sectors / 2);
			err = -EINVAL;
			goto free_pers;
		}
		mddev->array_sectors = ext_sectors;
	}

	thread = kthread_run(md_thread_fn, mddev, "%s_%s", mdname(mddev),
			     pers->name);
	if (IS_ERR(thread)) {
		err = PTR_ERR(thread);
		goto free_pers;
	}
	mddev->thread = thread;

	rdev_for_each(rdev, mddev)
		md_rdev_link_slot(rdev);
	set_disk_ro(disk, mddev->ro == 1);
	set_capacity_and_notify(disk, mddev->array_sectors);
	core->notified_degraded = mddev->degraded;

	if (kicked)
		set_bit(MD_SB_CHANGE_DEVS, &mddev->sb_flags);
	set_bit(MDR_NEEDED, &mddev->recovery);
	md_wakeup_thread(mddev);
	md_notify(mddev->sysfs_state);
	md_notify_sync(mddev, MD_KN_ACTION);
	md_notify_sync(mddev, MD_KN_DEGRADED);
	md_new_event();
	kobject_uevent(&disk_to_dev(disk)->kobj, KOBJ_CHANGE);
	md_sync_register(mddev);
	set_bit(MDC_SYNC_FILES, &core->core_flags);
	return 0;

free_pers:
	pers->free(mddev, mddev->private);
	mddev->private = NULL;
put_pers:
	WRITE_ONCE(mddev->pers, NULL);
	md_bitmap_destroy(mddev);
put_module:
	module_put(pers->owner);
	mddev->array_sectors = core->external_size ? ext_sectors : 0;
	return err;
}

/* Drop our reference to the bitmap file, if any: no bitmap uses it. */
static void md_put_bitmap_file(struct mddev *mddev)
{
	lockdep_assert_held(&mddev->reconfig_mutex);
	if (!mddev->bitmap_file)
		return;
	fput(mddev->bitmap_file);
	mddev->bitmap_file = NULL;
}

/* Forget the array description (after stop, "clear"). */
static void md_clear(struct mddev *mddev)
{
	lockdep_assert_held(&mddev->reconfig_mutex);
	mddev->major_version = 0;
	mddev->minor_version = 0;
	mddev->persistent = false;
	mddev->level = LEVEL_NONE;
	mddev->layout = 0;
	mddev->chunk_sectors = 0;
	mddev->raid_disks = 0;
	mddev->reshape_position = MD_MAX_SECTOR;
	mddev->delta_disks = 0;
	mddev->reshape_backwards = false;
	mddev->suspend_lo = 0;
	mddev->suspend_hi = 0;
	md_unpark(mddev, true);		/* none while the array is open */
	mddev->dev_sectors = 0;
	mddev->array_sectors = 0;
	memset(mddev->uuid, 0, sizeof(mddev->uuid));
	memset(mddev->set_name, 0, sizeof(mddev->set_name));
	mddev->ctime = 0;
	mddev->utime = 0;
	mddev->events = 0;
	mddev->max_disks = 0;
	mddev->bitmap_offset = 0;
	md_put_bitmap_file(mddev);
	mddev->degraded = 0;
	mddev->ro = 0;
	mddev->in_sync = 0;
	mddev->sb_flags = 0;
	mddev->flags = 0;
	mddev->recovery = 0;
	mddev->resync_offset = 0;
	WRITE_ONCE(mddev->resync_max_sectors, 0);
	mddev->curr_resync = 0;
	mddev->curr_resync_completed = 0;
	atomic64_set(&mddev->resync_mismatches, 0);
	mddev->sync_speed_min = 0;
	mddev->sync_speed_max = 0;
	mddev->sync_io_depth = 0;
	to_core(mddev)->sync_busy_pct = 0;
	to_core(mddev)->sync_idle_ms = 0;
	to_core(mddev)->sync_force_parallel = 0;
	to_core(mddev)->sync_min_sectors = 0;
	to_core(mddev)->sync_max_sectors = MD_MAX_SECTOR;
	to_core(mddev)->safe_mode_adaptive = 0;
	WRITE_ONCE(to_core(mddev)->external_size, false);
	WRITE_ONCE(to_core(mddev)->last_sync_action, MD_SYNC_NONE);
	to_core(mddev)->bitmap_space = 0;
}

/* Stop the personality; caller made sure nobody else has it open. */
static void md_deactivate(struct mddev *mddev)
{
	struct md_personality *pers = mddev->pers;
	struct md_core *core = to_core(mddev);
	struct md_rdev *rdev;
	void *priv;

	md_stop_sync(mddev);
	md_suspend(mddev);
	del_timer_sync(&mddev->safe_mode_timer);
	md_bitmap_flush(mddev);
	if (md_mark_clean(mddev))
		pr_warn("md: %s: writes in flight at stop, left dirty\n",
			mdname(mddev));
	kthread_stop(mddev->thread);
	mddev->thread = NULL;
	clear_bit(MDC_SAFEMODE_FIRED, &core->core_flags);

	rdev_for_each(rdev, mddev)
		md_rdev_unlink_slot(rdev);
	md_sync_unregister(mddev);
	/* /proc/mdstat calls pers->status under mddev->lock */
	spin_lock_irq(&mddev->lock);
	set_bit(MDC_SYNC_FILES, &core->core_flags);
	WRITE_ONCE(mddev->pers, NULL);
	priv = mddev->private;
	mddev->private = NULL;
	spin_unlock_irq(&mddev->lock);
	pers->free(mddev, priv);
	module_put(pers->owner);
	md_bitmap_destroy(mddev);

	rdev_for_each(rdev, mddev) {
		rdev->raid_disk = -1;
		clear_bit(RD_IN_SYNC, &rdev->flags);
	}
	set_capacity_and_notify(mddev->gendisk, 0);
	set_disk_ro(mddev->gendisk, 0);
	mddev->ro = 0;
	/* an array_size given stays for the next start, as in-tree */
	if (!core->external_size)
		WRITE_ONCE(mddev->array_sectors, 0);
	mddev->recovery = 0;
	/* no personality: new bios fail in md_submit_bio() */
	md_gate_open(core);
}

/*
 * mode 0: stop and forget the array; mode 2: stop, keep the members
 * (array_state "inactive").  @bdev: the opener issuing the ioctl.
 */
int md_stop(struct mddev *mddev, int mode, struct block_device *bdev)
{
	struct md_core *core = to_core(mddev);

	lockdep_assert_held(&mddev->reconfig_mutex);
	mutex_lock(&mddev->open_mutex);
	if (mddev->openers > (bdev ? 1 : 0)) {
		mutex_unlock(&mddev->open_mutex);
		pr_warn("md: %s still in use\n", mdname(mddev));
		return -EBUSY;
	}
	set_bit(MDC_CLOSING, &core->core_flags);
	mutex_unlock(&mddev->open_mutex);

	if (mddev->pers) {
		md_deactivate(mddev);
		pr_info("md: %s stopped\n", mdname(mddev));
	}
	if (mode == 0) {
		md_export_all(mddev);
		md_clear(mddev);
		WRITE_ONCE(core->hold, false);
	}
	clear_bit(MDC_CLOSING, &core->core_flags);
	md_notify(mddev->sysfs_state);
	md_notify_sync(mddev, MD_KN_ACTION);
	md_new_event();
	kobject_uevent(&disk_to_dev(mddev->gendisk)->kobj, KOBJ_CHANGE);
	if (mode == 0 && !bdev)
		queue_work(md_del_wq, &core->del_work);
	return 0;
}

/* rw -> readonly (ro 1) */
int md_set_readonly(struct mddev *mddev, struct block_device *bdev)
{
	lockdep_assert_held(&mddev->reconfig_mutex);
	if (!mddev->pers)
		return -ENXIO;
	if (mddev->ro == 1)
		return 0;
	mutex_lock(&mddev->open_mutex);
	if (mddev->openers > (bdev ? 1 : 0)) {
		mutex_unlock(&mddev->open_mutex);
		return -EBUSY;
	}
	mutex_unlock(&mddev->open_mutex);

	md_stop_sync(mddev);
	md_suspend(mddev);
	if (!mddev->ro)
		md_mark_clean(mddev);
	spin_lock_irq(&mddev->lock);
	mddev->ro = 1;
	spin_unlock_irq(&mddev->lock);
	set_disk_ro(mddev->gendisk, 1);
	md_resume(mddev);
	md_notify(mddev->sysfs_state);
	md_notify_sync(mddev, MD_KN_ACTION);
	md_new_event();
	return 0;
}

int md_restart_rw(struct mddev *mddev)
{
	lockdep_assert_held(&mddev->reconfig_mutex);
	if (!mddev->pers)
		return -ENXIO;
	if (!mddev->ro)
		return -EBUSY;
	spin_lock_irq(&mddev->lock);
	mddev->ro = 0;
	spin_unlock_irq(&mddev->lock);
	set_disk_ro(mddev->gendisk, 0);
	set_bit(MDR_NEEDED, &mddev->recovery);
	md_wakeup_thread(mddev);
	md_notify(mddev->sysfs_state);
	md_new_event();
	return 0;
}

/*
 * After a resize, reshape start or takeover: write the new description
 * to every member, let the md thread start whatever sync it now needs,
 * tell mdadm --monitor.
 */
void md_resized(struct mddev *mddev)
{
	set_bit(MD_SB_CHANGE_DEVS, &mddev->sb_flags);
	md_update_sb(mddev);
	set_bit(MDR_NEEDED, &mddev->recovery);
	md_wakeup_thread(mddev);
	md_new_event();
}

/*
 * Change raid_disks of a running array (mdadm --grow -n N on raid1):
 * only where the personality can do it without a reshape.  Members in a
 * slot may be renumbered by the personality, so their rdN links are
 * dropped first and made again after.  sb_mutex keeps the md thread's
 * superblock writes off the member roles while they change; it is taken
 * after md_suspend(), which may wait for a writer that waits for a
 * superblock write.
 */
int md_set_raid_disks(struct mddev *mddev, int raid_disks)
{
	struct md_core *core = to_core(mddev);
	struct md_rdev *rdev;
	int err;

	lockdep_assert_held(&mddev->reconfig_mutex);
	if (!mddev->pers)
		return -ENXIO;
	/* the count asked for, also the current one (no grow after all) */
	if (!mddev->pers->resize_disks && mddev->pers->check_reshape)
		return md_reshape_ask(mddev, mddev->new_layout,
				      mddev->new_chunk_sectors, raid_disks);
	if (raid_disks == mddev->raid_disks)
		return 0;
	if (!mddev->pers->resize_disks) {
		pr_warn("md: %s: %s cannot change raid_disks without a reshape (not supported)\n",
			mdname(mddev), mddev->pers->name);
		return -EINVAL;
	}
	if (raid_disks < 1 || raid_disks > MD_SB_DISKS * 2 ||
	    (mddev->persistent && mddev->major_version == 0 &&
	     raid_disks > MD_SB_DISKS)) {
		pr_warn("md: %s: raid_disks %d out of range\n",
			mdname(mddev), raid_disks);
		return -EINVAL;
	}
	if (mddev->ro)
		return -EROFS;
	if (test_bit(MDR_RUNNING, &mddev->recovery))
		return -EBUSY;

	md_suspend(mddev);
	mutex_lock(&core->sb_mutex);
	rdev_for_each(rdev, mddev)
		md_rdev_unlink_slot(rdev);
	err = mddev->pers->resize_disks(mddev, raid_disks);
	rdev_for_each(rdev, mddev)
		md_rdev_link_slot(rdev);
	mutex_unlock(&core->sb_mutex);
	md_resume(mddev);
	if (err)
		return err;
	md_resized(mddev);
	return 0;
}

int md_change_bitmap(struct mddev *mddev, s32 offset)
{
	int err = 0;

	lockdep_assert_held(&mddev->reconfig_mutex);
	if (offset && mddev->bitmap_file)
		return -EBUSY;
	if (!mddev->pers) {
		mddev->bitmap_offset = offset;
		md_put_bitmap_file(mddev);
		return 0;
	}
	if (!offset == !mddev->bitmap)
		return offset ? -EBUSY : 0;
	if (mddev->ro)
		return -EROFS;
	if (test_bit(MDR_RUNNING, &mddev->recovery))
		return -EBUSY;

	md_suspend(mddev);
	if (offset) {
		mddev->bitmap_offset = offset;
		err = md_bitmap_create(mddev);
		if (err)
			mddev->bitmap_offset = 0;
	} else {
		md_bitmap_destroy(mddev);
		mddev->bitmap_offset = 0;
	}
	md_resume(mddev);
	if (err)
		return err;
	md_put_bitmap_file(mddev);
	set_bit(MD_SB_CHANGE_DEVS, &mddev->sb_flags);
	md_update_sb(mddev);
	md_new_event();
	return 0;
}

int md_change_bitmap_file(struct mddev *mddev, struct file *file)
{
	int err;

	lockdep_assert_held(&mddev->reconfig_mutex);
	if (!file)
		return mddev->bitmap_file ? md_change_bitmap(mddev, 0) : -ENOENT;
	err = -EEXIST;
	if (mddev->bitmap_file || mddev->bitmap ||
	    (!mddev->pers && mddev->bitmap_offset)) {
		pr_warn("md: %s: the array has a bitmap already\n",
			mdname(mddev));
		goto put_file;
	}
	if (!mddev->pers) {
		/* loaded and checked at RUN, when the members are known */
		mddev->bitmap_file = file;
		return 0;
	}
	err = -EROFS;
	if (mddev->ro)
		goto put_file;
	err = -EBUSY;
	if (test_bit(MDR_RUNNING, &mddev->recovery))
		goto put_file;
	md_suspend(mddev);
	mddev->bitmap_file = file;
	err = md_bitmap_create(mddev);
	if (err)
		mddev->bitmap_file = NULL;
	md_resume(mddev);
	if (err)
		goto put_file;
	md_new_event();
	return 0;

put_file:
	fput(file);
	return err;
}

void md_bitmap_waited(struct mddev *mddev, u64 ns)
{
	struct md_core *core = to_core(mddev);
	unsigned long flags;

	spin_lock_irqsave(&mddev->lock, flags);
	core->bitmap_wait_ns_total += ns;
	if (ns > core->bitmap_wait_ns_max)
		core->bitmap_wait_ns_max = ns;
	spin_unlock_irqrestore(&mddev->lock, flags);
}

/*
 * Change how much of every member a running array uses (mdadm --grow
 * --size, md/component_size) where that moves no data; @sectors 0 takes
 * the most every member allows (--size max).  Every member
 * that is not faulty must have the room.  Growing leaves resync_offset
 * at the resync space's old end (if it was past it) so that the sync
 * thread resyncs the new part; the size is written to the superblocks at
 * once.  The bitmap, dev_sectors, resync_max_sectors and array_sectors
 * change with the array suspended.
 */
int md_set_dev_sectors(struct mddev *mddev, sector_t sectors)
{
	struct md_core *core = to_core(mddev);
	struct md_rdev *rdev;
	sector_t old = mddev->dev_sectors, size;
	sector_t old_rs = mddev->resync_max_sectors, rs;
	int err;

	lockdep_assert_held(&mddev->reconfig_mutex);
	if (!mddev->pers)
		return -ENXIO;
	if (!sectors) {
		/* 0 is "as large as every member allows" (--size max) */
		rdev_for_each(rdev, mddev)
			if (!test_bit(RD_FAULTY, &rdev->flags) &&
			    (!sectors || rdev->sectors < sectors))
				sectors = rdev->sectors;
		if (!sectors)
			return -EINVAL;
	}
	if (sectors == old)
		return 0;
	if (!mddev->pers->resize_in_place || !mddev->pers->size) {
		pr_warn("md: %s: %s cannot change the component size in place (not supported)\n",
			mdname(mddev), mddev->pers->name);
		return -EINVAL;
	}
	if (mddev->pers->round_dev_sectors) {
		sectors = mddev->pers->round_dev_sectors(mddev, sectors);
		if (!sectors)
			return -EINVAL;
		if (sectors == old)
			return 0;
	}
	if (mddev->ro)
		return -EROFS;
	if (test_bit(MDR_RUNNING, &mddev->recovery))
		return -EBUSY;
	rdev_for_each(rdev, mddev) {
		if (test_bit(RD_FAULTY, &rdev->flags) || rdev->sectors >= sectors)
			continue;
		pr_warn("md: %s: %pg has room for %llu sectors, not %llu\n",
			mdname(mddev), rdev->bdev, (u64)rdev->sectors,
			(u64)sectors);
		return -ENOSPC;
	}
	/* an array_size given by hand stays, and must still fit */
	size = mddev->pers->size(mddev, sectors, mddev->raid_disks);
	if (core->external_size && mddev->array_sectors > size) {
		pr_warn("md: %s: array_size %llu KiB would be above the %llu KiB of the new component size; lower array_size first\n",
			mdname(mddev), (u64)mddev->array_sectors / 2,
			(u64)size / 2);
		return -EINVAL;
	}
	rs = md_sync_sectors(mddev, mddev->pers, sectors);
	md_suspend(mddev);
	/* room first, as in-tree; then a bit for every chunk of the size */
	err = md_bitmap_resize(mddev, rs);
	if (err) {
		md_resume(mddev);
		return err;
	}
	WRITE_ONCE(mddev->dev_sectors, sectors);
	WRITE_ONCE(mddev->resync_max_sectors, rs);
	if (!core->external_size)
		WRITE_ONCE(mddev->array_sectors, size);
	if (mddev->pers->dev_sectors_changed)
		mddev->pers->dev_sectors_changed(mddev);
	/* the resync space's new part was never synced */
	spin_lock_irq(&mddev->lock);
	if (rs > old_rs && mddev->resync_offset > old_rs)
		mddev->resync_offset = old_rs;
	spin_unlock_irq(&mddev->lock);
	md_resume(mddev);
	set_capacity_and_notify(mddev->gendisk, mddev->array_sectors);
	pr_info("md: %s: component size %llu KiB (was %llu)\n", mdname(mddev),
		(u64)sectors / 2, (u64)old / 2);

	md_resized(mddev);
	return 0;
}

int md_set_array_size(struct mddev *mddev, bool dflt, sector_t sectors)
{
	struct md_core *core = to_core(mddev);
	struct md_personality *pers = mddev->pers;
	sector_t full;

	lockdep_assert_held(&mddev->reconfig_mutex);
	if (!pers) {
		/* RUN checks it against what the level gives then */
		WRITE_ONCE(mddev->array_sectors, dflt ? 0 : sectors);
		WRITE_ONCE(core->external_size, !dflt);
		return 0;
	}
	if (!pers->size)
		return -EINVAL;
	full = pers->size(mddev, 0, 0);
	if (dflt)
		sectors = full;
	else if (sectors > full)
		return -E2BIG;
	WRITE_ONCE(core->external_size, !dflt);
	if (sectors == mddev->array_sectors)
		return 0;
	WRITE_ONCE(mddev->array_sectors, sectors);
	set_capacity_and_notify(mddev->gendisk, sectors);
	pr_info("md: %s: array size %llu KiB%s\n", mdname(mddev),
		(u64)sectors / 2, dflt ? " (what the level gives)" : "");
	md_new_event();
	return 0;
}

/*
 * dev-XXX/size on a running array (mdadm --grow --size writes it for
 * every member before it changes the component size): how much of its
 * device @rdev offers, 0 for all it has room for, see
 * md_super_resize_rdev().  A new size, or a superblock that moved, is
 * written to every member at once, so mdadm and the next assembly see
 * it; a read-auto array becomes read-write for that (in-tree writes
 * the superblock of a read-auto array too).  The array itself does not
 * change here.
 */
int md_set_rdev_sectors(struct mddev *mddev, struct md_rdev *rdev,
			sector_t sectors)
{
	struct md_core *core = to_core(mddev);
	int ret;

	lockdep_assert_held(&mddev->reconfig_mutex);
	if (!mddev->pers)
		return -ENXIO;
	if (!mddev->pers->resize_in_place)
		return -EINVAL;
	/* its superblock is no longer written */
	if (test_bit(RD_FAULTY, &rdev->flags))
		return -EBUSY;
	/* read-auto may turn read-write under us (a write): ro is re-read */
	if (READ_ONCE(mddev->ro) == 1)
		return -EROFS;
	/* superblock writes read sb_start and the log's place */
	mutex_lock(&core->sb_mutex);
	ret = md_super_resize_rdev(mddev, rdev, sectors);
	mutex_unlock(&core->sb_mutex);
	if (ret <= 0)
		return ret;
	if (READ_ONCE(mddev->ro) == 2)
		md_restart_rw(mddev);
	set_bit(MD_SB_CHANGE_DEVS, &mddev->sb_flags);
	md_update_sb(mddev);
	return 0;
}

/* ---------------------------------------------------------------- */
/* Block device */

/* The block device methods, through md_compat.h's md_bdops_*() */
int md_open(struct gendisk *disk)
{
	struct mddev *mddev = disk->private_data;
	struct md_core *core = to_core(mddev);
	int err = 0;

	mutex_lock(&mddev->open_mutex);
	if (test_bit(MDC_CLOSING, &core->core_flags) ||
	    test_bit(MDC_DELETED, &core->core_flags))
		err = -ENODEV;
	else
		mddev->openers++;
	mutex_unlock(&mddev->open_mutex);
	return err;
}

void md_release(struct gendisk *disk)
{
	struct mddev *mddev = disk->private_data;
	bool last;

	mutex_lock(&mddev->open_mutex);
	last = --mddev->openers == 0;
	mutex_unlock(&mddev->open_mutex);
	if (last && !READ_ONCE(to_core(mddev)->hold))
		queue_work(md_del_wq, &to_core(mddev)->del_work);
}

static int md_getgeo(struct block_device *bdev, struct hd_geometry *geo)
{
	geo->heads = 2;
	geo->sectors = 4;
	geo->cylinders = get_capacity(bdev->bd_disk) / 8;
	return 0;
}

static const struct block_device_operations md_fops = {
	.owner		= THIS_MODULE,
	.submit_bio	= md_submit_bio,
	.open		= md_bdops_open,
	.release	= md_bdops_release,
	.ioctl		= md_bdops_ioctl,
	.set_read_only	= md_set_read_only,
#ifdef CONFIG_COMPAT
	.compat_ioctl	= md_bdops_compat_ioctl,
#endif
	.getgeo		= md_getgeo,
};

static struct mddev *md_lookup(int unit)
{
	struct mddev *mddev;

	lockdep_assert_held(&all_mddevs_mutex);
	list_for_each_entry(mddev, &all_mddevs, all_mddevs)
		if (mddev->unit == unit)
			return mddev;
	return NULL;
}

static void md_delete_work(struct work_struct *ws);

static void md_init_mddev(struct md_core *core, int unit)
{
	struct mddev *mddev = &core->mddev;

	mddev->unit = unit;
	mddev->reshape_position = MD_MAX_SECTOR;
	INIT_LIST_HEAD(&mddev->all_mddevs);
	INIT_LIST_HEAD(&mddev->disks);
	atomic_set(&mddev->active, 1);
	mutex_init(&mddev->open_mutex);
	mutex_init(&mddev->reconfig_mutex);
	spin_lock_init(&mddev->lock);
	init_waitqueue_head(&mddev->sb_wait);
	init_waitqueue_head(&mddev->thread_wq);
	init_waitqueue_head(&mddev->sync_wait);
	timer_setup(&mddev->safe_mode_timer, md_safe_mode_timeout, 0);
	mddev->safe_mode_delay = msecs_to_jiffies(200) + 1;
	mddev->level = LEVEL_NONE;
	atomic_set(&mddev->sync_active, 0);
	atomic64_set(&mddev->resync_mismatches, 0);

	mutex_init(&core->sb_mutex);
	mutex_init(&core->sysfs_mutex);
	INIT_WORK(&core->sync_files_work, md_sysfs_sync_work);
	init_waitqueue_head(&core->suspend_wq);
	spin_lock_init(&core->parked_lock);
	bio_list_init(&core->parked);
	core->hold = true;
	core->sync_max_sectors = MD_MAX_SECTOR;
	core->max_read_errors = MD_DEFAULT_MAX_READ_ERRORS;
	INIT_WORK(&core->del_work, md_delete_work);
	INIT_LIST_HEAD(&core->turn_node);
	INIT_LIST_HEAD(&core->running_node);
	atomic64_set(&core->sync_done, 0);
	atomic_set(&core->sync_reqs, 0);
	atomic_set(&core->sync_seq, 0);
}

/*
 * Create /dev/mdN, or /dev/@name (md_NAME) on minor @unit, with its md/
 * directory; all_mddevs_mutex held.
 */
static int md_alloc(int unit, const char *name)
{
	struct md_core *core;
	struct mddev *mddev;
	struct gendisk *disk;
	int err;

	lockdep_assert_held(&all_mddevs_mutex);
	if (md_lookup(unit))
		return -EEXIST;
	core = kzalloc(sizeof(*core), GFP_KERNEL);
	if (!core)
		return -ENOMEM;
	mddev = &core->mddev;
	md_init_mddev(core, unit);
	err = wp_init(&mddev->wp);
	if (err)
		goto free_core;
	err = md_io_init(core);
	if (err)
		goto exit_wp;

	/* stacking limits until md_run(); flushes and FUA reach us */
	disk = md_alloc_stacking_disk(NUMA_NO_NODE, true, true);
	if (IS_ERR(disk)) {
		err = PTR_ERR(disk);
		goto exit_io;
	}
	disk->major = MD_MAJOR_NR;
	disk->first_minor = unit;
	disk->minors = 1;
	disk->fops = &md_fops;
	disk->private_data = mddev;
	if (name)
		strscpy(disk->disk_name, name, sizeof(disk->disk_name));
	else
		snprintf(disk->disk_name, sizeof(disk->disk_name), "md%d",
			 unit);
	mddev->gendisk = disk;

	err = add_disk(disk);
	if (err)
		goto put_disk;
	/* from here on the kobject's release frees core */
	err = kobject_init_and_add(&mddev->kobj, &md_ktype,
				   &disk_to_dev(disk)->kobj, "md");
	if (err)
		goto del_disk;
	kobject_uevent(&mddev->kobj, KOBJ_ADD);
	mddev->sysfs_state = sysfs_get_dirent(mddev->kobj.sd, "array_state");
	list_add(&mddev->all_mddevs, &all_mddevs);
	return 0;

del_disk:
	del_gendisk(disk);
	put_disk(disk);
	md_io_exit(core);
	wp_exit(&mddev->wp);
	kobject_put(&mddev->kobj);
	return err;
put_disk:
	put_disk(disk);
exit_io:
	md_io_exit(core);
exit_wp:
	wp_exit(&mddev->wp);
free_core:
	kfree(core);
	return err;
}

/*
 * Take down the device and sysfs of an array that is DELETED, unused and
 * off all_mddevs' lookups; the caller drops the last kobject reference.
 * No md lock held: kobject_del() waits for sysfs stores, which take
 * reconfig_mutex.
 */
static void md_delete(struct mddev *mddev)
{
	struct md_core *core = to_core(mddev);

	flush_workqueue(md_misc_wq);

	if (mddev->sysfs_state)
		sysfs_put(mddev->sysfs_state);
	mddev->sysfs_state = NULL;
	if (cancel_work_sync(&core->sync_files_work))
		kobject_put(&mddev->kobj);
	md_sysfs_sync_files(mddev, false);
	kobject_del(&mddev->kobj);
	del_gendisk(mddev->gendisk);
	put_disk(mddev->gendisk);
	md_io_exit(core);
	wp_exit(&mddev->wp);
}

/* Deletions finished, for md_probe() waiting to recreate a unit. */
static atomic_t md_deletions = ATOMIC_INIT(0);
static DECLARE_WAIT_QUEUE_HEAD(md_deletions_wq);

/*
 * Delete a stopped, unused array device (md_del_wq).
 *
 * Lock order: md_probe() runs under the block layer's major_names_lock
 * and takes all_mddevs_mutex; a reconfig_mutex holder may open a member
 * and probe it, taking major_names_lock.  So neither all_mddevs_mutex
 * nor this work (which md_probe() used to flush) may wait for
 * reconfig_mutex: it is only tried, and if held, its holder's
 * mddev_unlock() queues us again (MDC_DEL_AGAIN).  The array stays on
 * all_mddevs, DELETED, while its device goes away, so md_probe() of the
 * same unit waits for that (md_deletions) instead of recreating it
 * under a name still in use.
 */
static void md_delete_work(struct work_struct *ws)
{
	struct md_core *core = container_of(ws, struct md_core, del_work);
	struct mddev *mddev = &core->mddev;
	bool unused;

	while (!mutex_trylock(&mddev->reconfig_mutex)) {
		set_bit(MDC_DEL_AGAIN, &core->core_flags);
		/* full barrier: pairs with mddev_unlock()'s */
		smp_mb__after_atomic();
		if (mutex_is_locked(&mddev->reconfig_mutex))
			return;
	}
	clear_bit(MDC_DEL_AGAIN, &core->core_flags);
	mutex_lock(&mddev->open_mutex);
	unused = !mddev->openers && !core->hold && !mddev->pers &&
		 list_empty(&mddev->disks) && !mddev->persistent &&
		 !mddev->raid_disks &&
		 !test_bit(MDC_DELETED, &core->core_flags);
	if (unused) {
		set_bit(MDC_DELETED, &core->core_flags);
		md_put_bitmap_file(mddev);	/* given, never run */
	}
	mutex_unlock(&mddev->open_mutex);
	mutex_unlock(&mddev->reconfig_mutex);
	if (!unused)
		return;
	md_delete(mddev);
	/* a requeue from a store that md_delete() waited for */
	cancel_work(&core->del_work);
	mutex_lock(&all_mddevs_mutex);
	list_del_init(&mddev->all_mddevs);
	atomic_inc(&md_deletions);
	mutex_unlock(&all_mddevs_mutex);
	wake_up_all(&md_deletions_wq);
	kobject_put(&mddev->kobj);	/* frees core */
}

/*
 * Lock @unit's slot in all_mddevs: all_mddevs_mutex held on return and
 * no deletion of that unit in progress.
 */
static void md_lock_unit(int unit)
{
	struct mddev *mddev;
	int seen;

	for (;;) {
		mutex_lock(&all_mddevs_mutex);
		mddev = md_lookup(unit);
		if (!mddev ||
		    !test_bit(MDC_DELETED, &to_core(mddev)->core_flags))
			return;
		seen = atomic_read(&md_deletions);
		mutex_unlock(&all_mddevs_mutex);
		wait_event(md_deletions_wq,
			   atomic_read(&md_deletions) != seen);
	}
}

static void md_probe(dev_t dev)
{
	if (MINOR(dev) >= MD_PROBE_MAX_MINOR)
		return;
	md_lock_unit(MINOR(dev));
	md_alloc(MINOR(dev), NULL);
	mutex_unlock(&all_mddevs_mutex);
}

/* The array whose device is called @name, if any; all_mddevs_mutex held. */
static struct mddev *md_lookup_name(const char *name)
{
	struct mddev *mddev;

	lockdep_assert_held(&all_mddevs_mutex);
	list_for_each_entry(mddev, &all_mddevs, all_mddevs)
		if (!strcmp(mddev->gendisk->disk_name, name))
			return mddev;
	return NULL;
}

/*
 * new_array=md_NAME: a named array (mdadm's CREATE names=yes), on the
 * first free minor from MD_PROBE_MAX_MINOR up, as in-tree; the block
 * probe never creates minors there.  -EEXIST if the name is taken.
 */
static int md_new_named_array(const char *name)
{
	struct mddev *mddev;
	int unit, seen;

	for (;;) {
		mutex_lock(&all_mddevs_mutex);
		mddev = md_lookup_name(name);
		if (!mddev)
			break;
		if (!test_bit(MDC_DELETED, &to_core(mddev)->core_flags)) {
			mutex_unlock(&all_mddevs_mutex);
			return -EEXIST;
		}
		/* the old one of that name is going: its name is free after */
		seen = atomic_read(&md_deletions);
		mutex_unlock(&all_mddevs_mutex);
		wait_event(md_deletions_wq,
			   atomic_read(&md_deletions) != seen);
	}
	for (unit = MD_PROBE_MAX_MINOR; unit < MD_MAX_UNIT; unit++)
		if (!md_lookup(unit))
			break;
	unit = unit < MD_MAX_UNIT ? md_alloc(unit, name) : -ENOSPC;
	mutex_unlock(&all_mddevs_mutex);
	return unit;
}

/*
 * new_array=mdN: create the array device; -EEXIST if it exists.
 * new_array=md_NAME: a named one (md_new_named_array()).
 */
static int md_new_array_set(const char *val, const struct kernel_param *kp)
{
	char buf[DISK_NAME_LEN];
	size_t len = strcspn(val, "\n");
	int unit, err;

	if (len < 3 || len >= sizeof(buf) || strncmp(val, "md", 2))
		return -EINVAL;
	if (val[2] == '_') {
		/* a device name: no slash, nothing blank */
		if (len == 3 || strpbrk(val, "/ \t"))
			return -EINVAL;
		memcpy(buf, val, len);
		buf[len] = '\0';
		return md_new_named_array(buf);
	}
	memcpy(buf, val + 2, len - 2);
	buf[len - 2] = '\0';
	if (!isdigit(buf[0]) || kstrtoint(buf, 10, &unit) ||
	    unit < 0 || unit >= MD_MAX_UNIT)
		return -EINVAL;
	md_lock_unit(unit);
	err = md_alloc(unit, NULL);
	mutex_unlock(&all_mddevs_mutex);
	return err;
}

static const struct kernel_param_ops md_new_array_ops = {
	.set = md_new_array_set,
};
module_param_cb(new_array, &md_new_array_ops, NULL, 0200);
MODULE_PARM_DESC(new_array, "write mdN to create /dev/mdN, md_NAME for /dev/md_NAME");

/* ---------------------------------------------------------------- */
/* /proc/mdstat */

static void md_status_array(struct seq_file *seq, struct mddev *mddev)
{
	struct md_personality *pers;
	struct md_rdev *rdev;
	sector_t sectors = 0;

	spin_lock_irq(&mddev->lock);
	pers = mddev->pers;
	seq_printf(seq, "%s : %sactive", mdname(mddev), pers ? "" : "in");
	if (pers) {
		if (mddev->ro == 1)
			seq_puts(seq, " (read-only)");
		else if (mddev->ro == 2)
			seq_puts(seq, " (auto-read-only)");
		seq_printf(seq, " %s", pers->name);
	}
	rcu_read_lock();
	rdev_for_each_rcu(rdev, mddev) {
		seq_printf(seq, " %pg[%d]", rdev->bdev, rdev->desc_nr);
		if (test_bit(RD_WRITE_MOSTLY, &rdev->flags))
			seq_puts(seq, "(W)");
		if (test_bit(RD_FAULTY, &rdev->flags))
			seq_puts(seq, "(F)");
		else if (rdev->raid_disk < 0)
			seq_puts(seq, "(S)");
		else if (test_bit(RD_REPLACEMENT, &rdev->flags))
			seq_puts(seq, "(R)");
		sectors += rdev->sectors;
	}
	rcu_read_unlock();
	if (!list_empty(&mddev->disks))
		seq_printf(seq, "\n      %llu blocks",
			   (unsigned long long)(pers ? mddev->array_sectors :
						sectors) / 2);
	/* as in-tree: 0.90 is the default and goes unnamed */
	if (mddev->persistent && mddev->major_version)
		seq_printf(seq, " super %d.%d", mddev->major_version,
			   mddev->minor_version);
	else if (!mddev->persistent && mddev->raid_disks)
		seq_puts(seq, " super non-persistent");
	if (pers) {
		if (pers->status)
			pers->status(seq, mddev);
		seq_puts(seq, "\n      ");
		if (md_sync_status(seq, mddev))
			seq_puts(seq, "\n      ");
	} else {
		seq_puts(seq, "\n       ");
	}
	md_bitmap_status(seq, mddev);
	seq_putc(seq, '\n');
	spin_unlock_irq(&mddev->lock);
}

static int md_seq_show(struct seq_file *seq, void *v)
{
	struct md_personality *p;
	struct mddev *mddev;

	seq->poll_event = atomic_read(&md_event_count);
	seq_puts(seq, "Personalities : ");
	spin_lock(&md_pers_lock);
	list_for_each_entry(p, &md_pers_list, list)
		seq_printf(seq, "[%s] ", p->name);
	spin_unlock(&md_pers_lock);
	seq_putc(seq, '\n');

	mutex_lock(&all_mddevs_mutex);
	list_for_each_entry(mddev, &all_mddevs, all_mddevs) {
		if (!READ_ONCE(mddev->pers) && list_empty(&mddev->disks))
			continue;
		md_status_array(seq, mddev);
	}
	mutex_unlock(&all_mddevs_mutex);
	seq_puts(seq, "unused devices: <none>\n");
	return 0;
}

static int md_seq_open(struct inode *inode, struct file *file)
{
	int err = single_open(file, md_seq_show, NULL);

	if (!err)
		((struct seq_file *)file->private_data)->poll_event =
			atomic_read(&md_event_count);
	return err;
}

static __poll_t md_seq_poll(struct file *file, poll_table *wait)
{
	struct seq_file *seq = file->private_data;
	__poll_t mask = EPOLLIN | EPOLLRDNORM;

	poll_wait(file, &md_event_waiters, wait);
	if (seq->poll_event != atomic_read(&md_event_count))
		mask |= EPOLLERR | EPOLLPRI;
	return mask;
}

static const struct proc_ops md_mdstat_ops = {
	.proc_open	= md_seq_open,
	.proc_read	= seq_read,
	.proc_lseek	= seq_lseek,
	.proc_release	= single_release,
	.proc_poll	= md_seq_poll,
};

/* ---------------------------------------------------------------- */
/* /proc/sys/dev/raid */

/* [knob] = { lo, hi } for proc_dointvec_minmax, as rt_knob_check() */
static const int md_rt_range[RT_KNOB_NR][2] = {
	[RT_KNOB_IO_DEPTH]	= { RT_IO_DEPTH_LO, RT_IO_DEPTH_HI },
	[RT_KNOB_BUSY_PCT]	= { RT_BUSY_PCT_LO, RT_BUSY_PCT_HI },
	[RT_KNOB_IDLE_MS]	= { RT_IDLE_MS_LO, RT_IDLE_MS_HI },
};

static struct ctl_table md_sysctl_table[] = {
	{
		.procname	= "speed_limit_min",
		.data		= &md_speed_limit_min,
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= SYSCTL_ONE,
		.extra2		= SYSCTL_INT_MAX,
	},
	{
		.procname	= "speed_limit_max",
		.data		= &md_speed_limit_max,
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= SYSCTL_ONE,
		.extra2		= SYSCTL_INT_MAX,
	},
	{
		.procname	= "sync_io_depth",
		.data		= &md_sync_io_depth_default,
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= (void *)&md_rt_range[RT_KNOB_IO_DEPTH][0],
		.extra2		= (void *)&md_rt_range[RT_KNOB_IO_DEPTH][1],
	},
	{
		.procname	= "sync_busy_pct",
		.data		= &md_sync_busy_pct_default,
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= (void *)&md_rt_range[RT_KNOB_BUSY_PCT][0],
		.extra2		= (void *)&md_rt_range[RT_KNOB_BUSY_PCT][1],
	},
	{
		.procname	= "sync_idle_ms",
		.data		= &md_sync_idle_ms_default,
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= (void *)&md_rt_range[RT_KNOB_IDLE_MS][0],
		.extra2		= (void *)&md_rt_range[RT_KNOB_IDLE_MS][1],
	},
	MD_SYSCTL_TABLE_END
};

/* ---------------------------------------------------------------- */

static int __init md_init(void)
{
	int err;

	md_misc_wq = alloc_workqueue("md_misc", 0, 0);
	if (!md_misc_wq)
		return -ENOMEM;
	md_del_wq = alloc_workqueue("md_del", 0, 0);
	if (!md_del_wq) {
		err = -ENOMEM;
		goto destroy_wq;
	}
	err = __register_blkdev(MD_MAJOR_NR, "md", md_probe);
	if (err)
		goto destroy_del_wq;
	md_sysctl_header = register_sysctl("dev/raid", md_sysctl_table);
	if (!md_sysctl_header) {
		err = -ENOMEM;
		goto unregister_blkdev;
	}
	if (!proc_create("mdstat", 0444, NULL, &md_mdstat_ops)) {
		err = -ENOMEM;
		goto unregister_sysctl;
	}
	pr_info("md: md core %s loaded\n", MD_VERSION_STRING);
	return 0;

unregister_sysctl:
	unregister_sysctl_table(md_sysctl_header);
unregister_blkdev:
	unregister_blkdev(MD_MAJOR_NR, "md");
destroy_del_wq:
	destroy_workqueue(md_del_wq);
destroy_wq:
	destroy_workqueue(md_misc_wq);
	return err;
}

static void __exit md_exit(void)
{
	struct mddev *mddev, *tmp;
	LIST_HEAD(gone);

	remove_proc_entry("mdstat", NULL);
	unregister_sysctl_table(md_sysctl_header);
	unregister_blkdev(MD_MAJOR_NR, "md");
	flush_workqueue(md_del_wq);

	/* every array is stopped: personalities hold our module */
	mutex_lock(&all_mddevs_mutex);
	list_splice_init(&all_mddevs, &gone);
	mutex_unlock(&all_mddevs_mutex);
	list_for_each_entry_safe(mddev, tmp, &gone, all_mddevs) {
		list_del_init(&mddev->all_mddevs);
		set_bit(MDC_DELETED, &to_core(mddev)->core_flags);
		mutex_lock(&mddev->reconfig_mutex);
		WARN_ON(mddev->pers);
		md_export_all(mddev);
		mutex_unlock(&mddev->reconfig_mutex);
		md_delete(mddev);
		kobject_put(&mddev->kobj);
	}
	flush_workqueue(md_misc_wq);
	destroy_workqueue(md_del_wq);
	destroy_workqueue(md_misc_wq);
}

module_init(md_init);
module_exit(md_exit);
MODULE_LICENSE("GPL");
MODULE_VERSION(MD_VERSION_STRING);
MODULE_DESCRIPTION("md RAID core (out-of-tree fork stack)");
MODULE_ALIAS("md");
MODULE_ALIAS_BLOCKDEV_MAJOR(MD_MAJOR_NR);
