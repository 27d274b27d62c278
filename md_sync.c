// SPDX-License-Identifier: GPL-2.0
/*
 * md sync thread: resync, recovery, check and repair.
 *
 * Design.  The md thread decides (md_check_recovery(), under a trylock
 * of reconfig_mutex) what the array needs: failed members leave their
 * slots, spares enter free slots of a degraded array, then one kthread
 * "mdN_resync" runs the pass.  It calls pers->sync_request() in order,
 * asking resync_throttle before each call and keeping at most the
 * decided number of sync requests in flight.  Progress is exact at
 * checkpoints only: the thread waits until nothing is in flight, then
 * records curr_resync_completed and resync_offset / recovery_offset,
 * and asks the md thread for a superblock write.  When the pass ends
 * (or MDR_INTR stops it) it records the final position, sets MDR_DONE
 * and waits; whoever reaps it (the md thread, or a reconfiguration that
 * interrupts it) runs spare_active() and writes the superblocks.
 *
 * Sync accounting contract: every sync_request() that returns n > 0
 * without *skipped is followed by exactly one md_done_sync(n).
 *
 * Turns.  Arrays whose members share a disk (two partitions of one disk
 * count) pass one at a time, as in-tree md does: side by side they would
 * only make the disk seek between them.  A sync thread takes a turn
 * before its pass and gives it back when the pass ends; checking for a
 * conflicting holder and becoming one happen under md_turn_lock, so of
 * two conflicting arrays exactly one holds a turn, and a waiter holds
 * nothing another waits for: no cycle.  An array with sync_force_parallel
 * set takes its turn whoever holds one (it still holds one, so others
 * wait for it, as in-tree).  A waiting array is DELAYED in /proc/mdstat and
 * sync_completed.
 *
 * Neighbours.  For the throttle a disk is one: foreground IO of another
 * array on a disk this array's members use (a neighbour) makes the disk
 * as busy as this array's own, so a pass counts it too.  Every running
 * array is on md_running (RCU); md_running_gen changes with the list,
 * and a removal waits for a grace period.  The sync thread keeps the
 * neighbours it found with the generation it found them at, and uses
 * them only inside an RCU read section that still sees that generation:
 * a removal after the lookup changed it, and one that did not yet has
 * to wait for that section.  Members move rarely; the lookup is redone
 * every second anyway.
 *
 * CPU beside the foreground.  The throttle decides how much sync to
 * issue, the scheduler how fast it is done: the sync thread and whatever
 * does the personality's work for it (raid5's stripe workers) are
 * ordinary tasks, weighed like the foreground's.  Under TCG the sync's
 * CPU (copying member data, comparing parity) is most of its cost: a
 * RAID5 check at 1000 KiB/s takes 14 % of a vCPU.  An equal weight is
 * too light only beside a CPU-bound foreground: beside 64 readers on one
 * vCPU a RAID6 repair's 1 MiB of stripes queued at the worker took
 * seconds to finish, the throttle counted them as paid and issued
 * nothing more, and the sync ran at 100-200 KiB/s under a sync_speed_min
 * of 1000.  So while the decision says the sync is late for the floor
 * (floor_late: the foreground is busy and completed sync fell 100 ms of
 * speed_min behind, more than a floor kept as a metronome ever is, and
 * has not caught up), mddev->sync_prio is MD_SYNC_PRIO_FLOOR and the
 * sync's tasks run SCHED_FIFO at the lowest RT priority
 * (md_sync_nice()); otherwise each is at its own nice.  The workers
 * take the weight per stripe and restore their own before the work
 * item returns; one that shares the CPU with 64 readers may not reach
 * its next stripe for seconds (the initial resync stood at 0 KiB/s
 * so), so the sync thread raises the
 * running ones itself (pers->sync_raise).  A thread waiting for a
 * completion, or for all in flight at a checkpoint, asks the throttle
 * again every 50 ms, since a full window queued before the foreground
 * started may not complete before the boost (a repair at 5000 KiB/s,
 * and a resync at a checkpoint, stood still 4 s so).  A nice was not
 * enough: at nice -20 beside 64 nice-0 readers the sync gets about 57 %
 * of one vCPU, and a RAID6 sync costs about 19 % of it per MiB/s, so a
 * floor of 5000 KiB/s held 2.7-2.9 MiB/s.  As SCHED_FIFO the sync takes
 * what it needs for the floor and no more (it issues only what the
 * floor asks for while the foreground is busy); RT throttling
 * (sched_rt_runtime_us) still leaves the readers 5 %, and the class is
 * dropped as soon as the floor is met again.
 */
#include <linux/kthread.h>
#include <linux/math64.h>
#include <linux/sched.h>

#include "md_core.h"

/* Longest wait for a completion before the throttle is asked again. */
#define MD_SYNC_RESAMPLE_JIFFIES	max(msecs_to_jiffies(50), 1UL)

/*
 * @p's CPU weight for the sync's work at @prio; @nice is its own.  See
 * "CPU beside the foreground" above.
 */
void md_sync_nice(struct task_struct *p, enum md_sync_prio prio, long nice)
{
	might_sleep();
	if (prio == MD_SYNC_PRIO_FLOOR) {
		if (p->policy != SCHED_FIFO)
			sched_set_fifo_low(p);
		return;
	}
	if (prio == MD_SYNC_PRIO_YIELD)
		nice = MD_SYNC_YIELD_NICE;
	if (p->policy != SCHED_NORMAL || task_nice(p) != nice)
		sched_set_normal(p, nice);
}
EXPORT_SYMBOL_GPL(md_sync_nice);

int md_speed_min(struct mddev *mddev)
{
	int v = READ_ONCE(mddev->sync_speed_min);

	return v ? v : READ_ONCE(md_speed_limit_min);
}

int md_speed_max(struct mddev *mddev)
{
	int v = READ_ONCE(mddev->sync_speed_max);

	return v ? v : READ_ONCE(md_speed_limit_max);
}

int md_io_depth(struct mddev *mddev)
{
	int v = READ_ONCE(mddev->sync_io_depth);

	return v ? v : READ_ONCE(md_sync_io_depth_default);
}

int md_busy_pct(struct mddev *mddev)
{
	int v = READ_ONCE(to_core(mddev)->sync_busy_pct);

	return v ? v : READ_ONCE(md_sync_busy_pct_default);
}

int md_idle_ms(struct mddev *mddev)
{
	int v = READ_ONCE(to_core(mddev)->sync_idle_ms);

	return v ? v : READ_ONCE(md_sync_idle_ms_default);
}

/* Every knob, resolved against the system defaults, for rt_decide(). */
static void md_rt_knobs(struct mddev *mddev, struct rt_knobs *k)
{
	k->speed_min_kbs = md_speed_min(mddev);
	k->speed_max_kbs = md_speed_max(mddev);
	k->io_depth = md_io_depth(mddev);
	k->busy_pct = md_busy_pct(mddev);
	k->idle_ms = md_idle_ms(mddev);
}

static bool md_sync_stopping(struct mddev *mddev)
{
	return test_bit(MDR_INTR, &mddev->recovery) || kthread_should_stop();
}

/*
 * md_turn_lock protects both lists (md_core.turn_node is on one of them
 * while the array's sync thread holds or waits for a turn) and
 * md_turn_seq's increments.  A core on either list has a sync thread,
 * which the reaper stops before the array can go away.
 */
static DEFINE_MUTEX(md_turn_lock);
static LIST_HEAD(md_turn_holders);
static LIST_HEAD(md_turn_waiters);
static unsigned long md_turn_seq;	/* bumped when a wait may be over */

/* A working member of @a and one of @b are on the same disk. */
static bool md_share_disk(struct mddev *a, struct mddev *b)
{
	struct md_rdev *ra, *rb;
	bool shared = false;

	rcu_read_lock();
	rdev_for_each_rcu(ra, a) {
		if (ra->raid_disk < 0 || test_bit(RD_FAULTY, &ra->flags))
			continue;
		rdev_for_each_rcu(rb, b) {
			if (rb->raid_disk < 0 || test_bit(RD_FAULTY, &rb->flags))
				continue;
			if (ra->bdev->bd_disk == rb->bdev->bd_disk) {
				shared = true;
				goto out;
			}
		}
	}
out:
	rcu_read_unlock();
	return shared;
}

/* The holder whose turn @mddev must wait for, or NULL. */
static struct mddev *md_turn_conflict(struct mddev *mddev)
{
	struct md_core *h;

	lockdep_assert_held(&md_turn_lock);
	if (READ_ONCE(to_core(mddev)->sync_force_parallel))
		return NULL;
	list_for_each_entry(h, &md_turn_holders, turn_node)
		if (md_share_disk(mddev, &h->mddev))
			return &h->mddev;
	return NULL;
}

/* Wake every waiter to look again (a turn ended, a knob changed). */
void md_sync_turns_changed(void)
{
	struct md_core *w;

	mutex_lock(&md_turn_lock);
	md_turn_seq++;
	list_for_each_entry(w, &md_turn_waiters, turn_node)
		wake_up(&w->mddev.sync_wait);
	mutex_unlock(&md_turn_lock);
}

/* Wait for this array's turn; false if the pass is stopped meanwhile. */
static bool md_sync_take_turn(struct mddev *mddev, const char *what)
{
	struct md_core *core = to_core(mddev);
	struct mddev *other;
	bool said = false, got;
	unsigned long seq;

	mutex_lock(&md_turn_lock);
	for (;;) {
		other = md_turn_conflict(mddev);
		if (!other || md_sync_stopping(mddev))
			break;
		if (!said) {
			pr_info("md: %s: %s waits until %s has synced (they share a disk)\n",
				mdname(mddev), what, mdname(other));
			list_add_tail(&core->turn_node, &md_turn_waiters);
			WRITE_ONCE(core->sync_delayed, true);
			md_notify_sync(mddev, MD_KN_COMPLETED);
			said = true;
		}
		seq = md_turn_seq;
		mutex_unlock(&md_turn_lock);
		/* woken by md_sync_turns_changed() and by whoever stops us */
		wait_event_idle(mddev->sync_wait,
				READ_ONCE(md_turn_seq) != seq ||
				md_sync_stopping(mddev));
		mutex_lock(&md_turn_lock);
	}
	if (said)
		list_del_init(&core->turn_node);
	got = !md_sync_stopping(mddev);
	if (got)
		list_add_tail(&core->turn_node, &md_turn_holders);
	WRITE_ONCE(core->sync_delayed, false);
	mutex_unlock(&md_turn_lock);
	if (said)
		md_notify_sync(mddev, MD_KN_COMPLETED);
	return got;
}

static void md_sync_give_turn(struct mddev *mddev)
{
	mutex_lock(&md_turn_lock);
	list_del_init(&to_core(mddev)->turn_node);
	mutex_unlock(&md_turn_lock);
	md_sync_turns_changed();
}

static bool md_rdev_rebuilding(struct md_rdev *rdev)
{
	return rdev->raid_disk >= 0 && !test_bit(RD_IN_SYNC, &rdev->flags) &&
	       !test_bit(RD_FAULTY, &rdev->flags);
}

static sector_t md_recovery_start(struct mddev *mddev)
{
	sector_t start = MD_MAX_SECTOR;
	struct md_rdev *rdev;

	rcu_read_lock();
	rdev_for_each_rcu(rdev, mddev)
		if (md_rdev_rebuilding(rdev))
			start = min(start, READ_ONCE(rdev->recovery_offset));
	rcu_read_unlock();
	return start;
}

static void md_set_recovery_offset(struct mddev *mddev, sector_t pos)
{
	struct md_rdev *rdev;

	rcu_read_lock();
	rdev_for_each_rcu(rdev, mddev)
		if (md_rdev_rebuilding(rdev) && rdev->recovery_offset < pos)
			WRITE_ONCE(rdev->recovery_offset, pos);
	rcu_read_unlock();
}

/* md_running_lock: changes of md_running (RCU) and md_running_gen */
static DEFINE_MUTEX(md_running_lock);
static LIST_HEAD(md_running);
static unsigned long md_running_gen;

static void md_running_changed(void)
{
	lockdep_assert_held(&md_running_lock);
	/* readers check it under rcu_read_lock(); see "Neighbours" */
	WRITE_ONCE(md_running_gen, md_running_gen + 1);
}

/* md_run() succeeded: this array's foreground counts for its neighbours */
void md_sync_register(struct mddev *mddev)
{
	mutex_lock(&md_running_lock);
	list_add_tail_rcu(&to_core(mddev)->running_node, &md_running);
	md_running_changed();
	mutex_unlock(&md_running_lock);
}

/* The array stops: no pass may look at it once this returns. */
void md_sync_unregister(struct mddev *mddev)
{
	struct md_core *core = to_core(mddev);

	if (list_empty(&core->running_node))
		return;
	mutex_lock(&md_running_lock);
	list_del_rcu(&core->running_node);
	md_running_changed();
	mutex_unlock(&md_running_lock);
	synchronize_rcu();
	INIT_LIST_HEAD(&core->running_node);
}

/* Find this array's neighbours, at generation @gen.  rcu_read_lock held. */
static void md_neighbours_find(struct mddev *mddev, unsigned long gen)
{
	struct md_core *core = to_core(mddev), *c;
	struct md_neighbours *nb = &core->nb;

	nb->n = 0;
	list_for_each_entry_rcu(c, &md_running, running_node) {
		if (c == core || !md_share_disk(mddev, &c->mddev))
			continue;
		nb->m[nb->n++] = &c->mddev;
		if (nb->n == ARRAY_SIZE(nb->m))
			break;
	}
	nb->gen = gen;
	nb->at = jiffies;
}

/* The neighbours' foreground IO, added to this array's in @s. */
static void md_neighbours_sample(struct mddev *mddev, struct rt_sample *s)
{
	struct md_neighbours *nb = &to_core(mddev)->nb;
	unsigned long gen;
	u64 completed, lat, slow;
	u32 inflight;
	int i;

	rcu_read_lock();
	gen = READ_ONCE(md_running_gen);
	if (gen != nb->gen || time_after(jiffies, nb->at + HZ))
		md_neighbours_find(mddev, gen);
	for (i = 0; i < nb->n; i++) {
		/* their slow IOs count against their own threshold: left out */
		md_fg_sample(nb->m[i], &completed, &inflight, &lat, &slow);
		s->fg_completed += completed;
		s->fg_lat_ns += lat;
		s->fg_inflight = min_t(u64, (u64)s->fg_inflight + inflight,
				       U32_MAX);
	}
	rcu_read_unlock();
}

static void md_sample(struct mddev *mddev, struct rt_sample *s)
{
	struct md_core *core = to_core(mddev);

	s->now_ns = ktime_get_ns();
	md_fg_sample(mddev, &s->fg_completed, &s->fg_inflight, &s->fg_lat_ns,
		     &s->fg_slow);
	md_neighbours_sample(mddev, s);
	s->sync_done_sectors = atomic64_read(&core->sync_done);
	s->sync_inflight = max(atomic_read(&core->sync_reqs), 0);
	/*
	 * sync_active is added after sync_request() returns and subtracted
	 * by md_done_sync(), so an inline completion can make it dip below
	 * zero for a moment; the policy only counts new highs anyway.
	 */
	s->sync_inflight_sectors = max(atomic_read(&mddev->sync_active), 0);
}

/* Sectors known finished (approximate while requests are in flight). */
static sector_t md_sync_position(struct mddev *mddev)
{
	sector_t pos = READ_ONCE(mddev->curr_resync);
	int active = atomic_read(&mddev->sync_active);

	if (active > 0 && pos >= active)
		pos -= active;
	return pos;
}

static void md_sync_mark(struct md_core *core, bool reset)
{
	struct mddev *mddev = &core->mddev;
	unsigned long now = jiffies;

	if (!reset && time_before(now, core->mark_jiffies[1] + MD_MARK_JIFFIES))
		return;
	if (reset) {
		WRITE_ONCE(core->mark_jiffies[0], now);
		WRITE_ONCE(core->mark_sectors[0], mddev->curr_resync);
	} else {
		WRITE_ONCE(core->mark_jiffies[0], core->mark_jiffies[1]);
		WRITE_ONCE(core->mark_sectors[0], core->mark_sectors[1]);
	}
	WRITE_ONCE(core->mark_jiffies[1], now);
	WRITE_ONCE(core->mark_sectors[1], md_sync_position(mddev));
}

/* KiB/s over the last one or two marks. */
unsigned int md_sync_speed(struct mddev *mddev)
{
	struct md_core *core = to_core(mddev);
	unsigned long dt = (jiffies - READ_ONCE(core->mark_jiffies[0])) / HZ + 1;
	sector_t pos = md_sync_position(mddev);
	sector_t mark = READ_ONCE(core->mark_sectors[0]);

	if (pos <= mark)
		return 0;
	return div64_u64((u64)(pos - mark) / 2, dt);
}

/*
 * The sync's CPU weight (this thread's, and the personality's on its
 * behalf, which reads mddev->sync_prio), see md_sync_nice().
 */
static void md_sync_prio(struct mddev *mddev, enum md_sync_prio prio)
{
	if (prio == READ_ONCE(mddev->sync_prio))
		return;
	WRITE_ONCE(mddev->sync_prio, prio);
	/* the thread that must see the floor fall late never yields */
	md_sync_nice(current, prio == MD_SYNC_PRIO_YIELD ?
		     MD_SYNC_PRIO_OWN : prio, 0);
	/* a worker beside a busy foreground may not get to see a raise */
	if (prio == MD_SYNC_PRIO_FLOOR && mddev->pers->sync_raise)
		mddev->pers->sync_raise(mddev);
}

/*
 * Sample, ask the throttle, and apply what every decision carries: the
 * foreground's slow threshold and the floor's boost.  The sync thread
 * only, before each request and while it waits at a checkpoint (so the
 * boost comes while what it waits for is queued at a starved worker).
 */
static void md_sync_decide(struct mddev *mddev, struct rt_sample *s,
			   struct rt_decision *d)
{
	struct rt_knobs k;

	md_rt_knobs(mddev, &k);
	md_sample(mddev, s);
	rt_decide(&mddev->throttle, &k, s, d);
	if (READ_ONCE(mddev->fg_slow_ns) != d->slow_ns)
		WRITE_ONCE(mddev->fg_slow_ns, d->slow_ns);
	md_sync_prio(mddev, d->floor_late ? MD_SYNC_PRIO_FLOOR :
		     d->light ? MD_SYNC_PRIO_YIELD : MD_SYNC_PRIO_OWN);
}

static void md_sync_wait_idle(struct mddev *mddev)
{
	struct md_core *core = to_core(mddev);
	struct rt_decision d;
	struct rt_sample s;

	/* the floor may fall late meanwhile: see md_sync_decide() */
	while (!wait_event_idle_timeout(mddev->sync_wait,
					atomic_read(&core->sync_reqs) <= 0,
					MD_SYNC_RESAMPLE_JIFFIES))
		md_sync_decide(mddev, &s, &d);
}

/* All IO below @pos is done: record it. */
static void md_sync_checkpoint(struct mddev *mddev, sector_t pos,
			       bool resync, bool requested)
{
	struct md_core *core = to_core(mddev);

	WRITE_ONCE(mddev->curr_resync_completed, pos);
	if (test_bit(MDR_RESHAPE, &mddev->recovery)) {
		md_reshape_checkpoint(mddev, md_reshape_pos(mddev, pos));
		return;
	}
	if (resync && !requested) {
		spin_lock_irq(&mddev->lock);
		if (mddev->resync_offset < pos)
			mddev->resync_offset = pos;
		spin_unlock_irq(&mddev->lock);
	} else if (!resync) {
		md_set_recovery_offset(mddev, pos);
	}
	set_bit(MDC_CHECKPOINT, &core->core_flags);
	md_wakeup_thread(mddev);
	md_notify_sync(mddev, MD_KN_COMPLETED);
}

/*
 * The personality's window: however idle the array, no more sync IO in
 * flight than it asked for, so a foreground request that arrives finds
 * at most a window's worth queued ahead of it.  One request may always go.
 */
static bool md_sync_window_open(struct mddev *mddev, const struct rt_sample *s)
{
	unsigned int w = READ_ONCE(mddev->sync_window);

	return !w || !s->sync_inflight || s->sync_inflight_sectors < w;
}

/*
 * Wait until the throttle lets one more request go; false: stop.
 * *max_sectors: the most the request may cover, 0 for no limit.
 */
static bool md_sync_pace(struct mddev *mddev, u32 *max_sectors)
{
	struct md_core *core = to_core(mddev);
	struct rt_decision d;
	struct rt_sample s;
	int seq;

	for (;;) {
		if (md_sync_stopping(mddev))
			return false;
		seq = atomic_read(&core->sync_seq);
		md_sync_decide(mddev, &s, &d);
		if (d.wait_ns) {
			unsigned long t = max_t(unsigned long,
						nsecs_to_jiffies(d.wait_ns), 1);

			wait_event_idle_timeout(mddev->sync_wait,
						atomic_read(&core->sync_seq) != seq ||
						md_sync_stopping(mddev), t);
			continue;
		}
		if (s.sync_inflight < max_t(u32, d.max_inflight, 1) &&
		    md_sync_window_open(mddev, &s)) {
			*max_sectors = d.max_sectors;
			return true;
		}
		/*
		 * Not only a completion: the foreground may start while the
		 * window is full, and then what is queued may not complete
		 * until this thread has seen it and raised sync_prio.
		 */
		wait_event_idle_timeout(mddev->sync_wait,
					atomic_read(&core->sync_seq) != seq ||
					md_sync_stopping(mddev),
					MD_SYNC_RESAMPLE_JIFFIES);
	}
}

/*
 * sync_max: the pass pauses at it until it is raised or the pass is
 * interrupted (as in-tree).  Everything below @j is finished first and
 * recorded, so sync_completed shows exactly where it waits.  False: stop.
 */
static bool md_sync_below_max(struct mddev *mddev, sector_t j, bool resync,
			      bool requested)
{
	struct md_core *core = to_core(mddev);

	if (j < READ_ONCE(core->sync_max_sectors))
		return true;
	md_sync_wait_idle(mddev);
	if (READ_ONCE(core->sync_error))
		return false;
	/*
	 * A reshape records where it pauses its own way, which also lets
	 * go the writes waiting for that: none waits on mdadm's sync_max
	 */
	if (test_bit(MDR_RESHAPE, &mddev->recovery) && mddev->pers->close_sync)
		mddev->pers->close_sync(mddev);
	if (READ_ONCE(mddev->curr_resync_completed) != j)
		md_sync_checkpoint(mddev, j, resync, requested);
	/* woken by sync_max_store() and by whoever interrupts the pass */
	wait_event_idle(mddev->sync_wait,
			j < READ_ONCE(core->sync_max_sectors) ||
			md_sync_stopping(mddev));
	return !md_sync_stopping(mddev);
}

static bool md_backup_holds(struct mddev *mddev, sector_t j_end, sector_t a,
			    sector_t n)
{
	sector_t max = READ_ONCE(to_core(mddev)->sync_max_sectors);

	return max != MD_MAX_SECTOR && j_end <= max &&
	       READ_ONCE(mddev->suspend_lo) <= a &&
	       a + n <= READ_ONCE(mddev->suspend_hi);
}

/*
 * A reshape in place is about to overwrite old data that a crash would
 * still need (the personality's call): only mdadm's backup holds it
 * then.  Go on once mdadm holds the array sectors [@a, @a + @n) for
 * writes (suspend_lo/hi) and lets the pass to @j_end with a number in
 * sync_max: it writes one only after the backup of what lies below is
 * on disk, and "max" at the start.  False: the pass stops.
 */
bool md_sync_wait_backup(struct mddev *mddev, sector_t j_end, sector_t a,
			 sector_t n)
{
	/* woken by md_set_suspend(), sync_max_store() and interrupts */
	wait_event_idle(mddev->sync_wait,
			md_backup_holds(mddev, j_end, a, n) ||
			md_sync_stopping(mddev));
	return !md_sync_stopping(mddev);
}
EXPORT_SYMBOL_GPL(md_sync_wait_backup);

static int md_sync_thread_fn(void *arg)
{
	struct mddev *mddev = arg;
	struct md_core *core = to_core(mddev);
	struct md_personality *pers = mddev->pers;
	bool resync = test_bit(MDR_SYNC, &mddev->recovery);
	bool requested = test_bit(MDR_REQUESTED, &mddev->recovery);
	bool check = test_bit(MDR_CHECK, &mddev->recovery);
	bool reshape = test_bit(MDR_RESHAPE, &mddev->recovery);
	/*
	 * resync, check and repair walk the resync space, recovery members,
	 * a reshape the array (md_reshape.c)
	 */
	sector_t max = resync ? mddev->resync_max_sectors :
		       reshape ? md_reshape_span(mddev) : mddev->dev_sectors;
	sector_t step = max_t(sector_t, max >> 4, 1);
	sector_t start, j, n, pos, end;
	unsigned long last_checkpoint;
	const char *what;
	struct rt_sample s;
	bool skipped, done, turn;
	u32 req_max;

	/* sync_min cannot change while MDR_RUNNING (its store refuses) */
	if (reshape)	/* per member, from where it starts */
		start = md_reshape_progress(mddev, mddev->reshape_position);
	else if (resync && requested)
		start = READ_ONCE(core->sync_min_sectors);
	else if (resync)
		start = READ_ONCE(mddev->resync_offset);
	else
		start = md_recovery_start(mddev);
	start = min(start, max);
	what = reshape ? "reshape" : check ? "data-check" :
	       !resync ? "recovery" :
	       requested ? "requested-resync" : "resync";
	md_note_sync_start(mddev, resync, requested, check);

	WRITE_ONCE(core->sync_error, false);
	WRITE_ONCE(mddev->curr_resync, start);
	WRITE_ONCE(mddev->curr_resync_completed, start);
	if (requested)
		atomic64_set(&mddev->resync_mismatches, 0);
	turn = md_sync_take_turn(mddev, what);
	md_sync_mark(core, true);
	md_sample(mddev, &s);
	rt_init(&mddev->throttle, &s);
	pr_info("md: %s of RAID array %s from %llu\n", what, mdname(mddev),
		(unsigned long long)start);

	j = start;
	last_checkpoint = jiffies;
	while (turn && j < max &&
	       md_sync_below_max(mddev, j, resync, requested) &&
	       md_sync_pace(mddev, &req_max)) {
		/* a shorter request: at least a page */
		end = req_max ?
		      min(max, j + max_t(u32, req_max, PAGE_SECTORS)) : max;
		/* never past sync_max, where the pass pauses */
		end = min(end, READ_ONCE(core->sync_max_sectors));
		skipped = false;
		atomic_inc(&core->sync_reqs);
		n = pers->sync_request(mddev, j, end, &skipped);
		if (skipped || !n)
			atomic_dec(&core->sync_reqs);
		if (!n) {
			WRITE_ONCE(core->sync_error, true);
			set_bit(MDR_INTR, &mddev->recovery);
			break;
		}
		if (!skipped)
			atomic_add(n, &mddev->sync_active);
		j = min(j + n, max);
		WRITE_ONCE(mddev->curr_resync, j);
		md_sync_mark(core, false);
		/* as in-tree: every 1/16 of the array, at least every 5 s */
		if (time_after(jiffies, last_checkpoint + MD_CHECKPOINT_JIFFIES) ||
		    j - READ_ONCE(mddev->curr_resync_completed) >= step) {
			md_sync_wait_idle(mddev);
			if (!READ_ONCE(core->sync_error))
				md_sync_checkpoint(mddev, j, resync, requested);
			last_checkpoint = jiffies;
		}
		cond_resched();
	}
	md_sync_wait_idle(mddev);
	md_sync_prio(mddev, MD_SYNC_PRIO_OWN);
	if (pers->close_sync)
		pers->close_sync(mddev);
	if (turn)
		md_sync_give_turn(mddev);

	done = j >= max && !READ_ONCE(core->sync_error);
	WRITE_ONCE(core->sync_pass_done, done);
	WRITE_ONCE(core->sync_ended, true);
	if (done) {
		WRITE_ONCE(mddev->curr_resync_completed, max);
		if (reshape) {
			/* md_reap_sync() finishes it */
		} else if (resync && !check) {
			spin_lock_irq(&mddev->lock);
			mddev->resync_offset = MD_MAX_SECTOR;
			spin_unlock_irq(&mddev->lock);
		} else if (!resync) {
			md_set_recovery_offset(mddev, MD_MAX_SECTOR);
		}
	} else {
		pos = READ_ONCE(core->sync_error) ?
		      mddev->curr_resync_completed : j;
		md_sync_checkpoint(mddev, pos, resync, requested);
	}
	pr_info("md: %s: %s %s\n", mdname(mddev), what,
		done ? "done" : "interrupted");
	WRITE_ONCE(mddev->fg_slow_ns, U64_MAX);

	set_bit(MDR_DONE, &mddev->recovery);
	md_wakeup_thread(mddev);
	md_notify_sync(mddev, MD_KN_COMPLETED);
	/* the reaper stops us */
	wait_event_idle(mddev->sync_wait, kthread_should_stop());
	return 0;
}

/*
 * Collect a finished (or interrupted) sync thread and publish what it
 * achieved.  Caller holds reconfig_mutex.
 */
void md_reap_sync(struct mddev *mddev)
{
	struct md_core *core = to_core(mddev);
	struct md_rdev *rdev;
	bool recover = test_bit(MDR_RECOVER, &mddev->recovery);

	lockdep_assert_held(&mddev->reconfig_mutex);
	if (!mddev->sync_thread)
		return;
	kthread_stop(mddev->sync_thread);
	mddev->sync_thread = NULL;

	/*
	 * As in-tree: an interrupted check or repair leaves where it got to
	 * in sync_min, and the next one starts there; one that finished
	 * clears the range.  kthread_stop() ordered the thread's stores
	 * before these reads; a thread stopped before it ran tells nothing.
	 */
	if (core->sync_ended && core->sync_pass_done) {
		if (test_bit(MDR_REQUESTED, &mddev->recovery))
			WRITE_ONCE(core->sync_min_sectors, 0);
		WRITE_ONCE(core->sync_max_sectors, MD_MAX_SECTOR);
	} else if (core->sync_ended &&
		   test_bit(MDR_REQUESTED, &mddev->recovery)) {
		WRITE_ONCE(core->sync_min_sectors,
			   READ_ONCE(mddev->curr_resync_completed));
	}

	if (test_bit(MDR_RESHAPE, &mddev->recovery) && core->sync_ended &&
	    core->sync_pass_done)
		md_reshape_finish(mddev);
	if (recover && mddev->pers->spare_active &&
	    mddev->pers->spare_active(mddev)) {
		rdev_for_each(rdev, mddev)
			md_notify(rdev->sysfs_state);
		md_notify_sync(mddev, MD_KN_DEGRADED);
	}
	mddev->recovery &= ~(BIT(MDR_RUNNING) | BIT(MDR_SYNC) |
			     BIT(MDR_REQUESTED) | BIT(MDR_CHECK) |
			     BIT(MDR_RECOVER) | BIT(MDR_INTR) | BIT(MDR_DONE) |
			     BIT(MDR_RESHAPE));
	set_bit(MD_SB_CHANGE_DEVS, &mddev->sb_flags);
	md_update_sb(mddev);
	/* an interrupted resync or recovery resumes unless frozen */
	if (!READ_ONCE(core->sync_error))
		set_bit(MDR_NEEDED, &mddev->recovery);
	md_notify_sync(mddev, MD_KN_ACTION);
	md_notify_sync(mddev, MD_KN_COMPLETED);
	md_new_event();
}

/*
 * May a pass asked for through sysfs start now (check, repair,
 * reshape)?  -EBUSY while one runs, -EROFS on a read-only array; a
 * read-auto one becomes writable.  reconfig_mutex held.
 */
int md_sync_may_start(struct mddev *mddev)
{
	lockdep_assert_held(&mddev->reconfig_mutex);
	if (test_bit(MDR_RUNNING, &mddev->recovery))
		return -EBUSY;
	if (mddev->ro == 1)
		return -EROFS;
	if (mddev->ro == 2)
		md_restart_rw(mddev);
	return 0;
}

/* Interrupt a running sync thread and reap it.  reconfig_mutex held. */
void md_stop_sync(struct mddev *mddev)
{
	lockdep_assert_held(&mddev->reconfig_mutex);
	if (!mddev->sync_thread)
		return;
	set_bit(MDR_INTR, &mddev->recovery);
	wake_up(&mddev->sync_wait);
	md_reap_sync(mddev);
}

/* Take failed members out of their slots.  Returns false to retry. */
static bool md_remove_failed(struct mddev *mddev)
{
	struct md_rdev *rdev;
	bool all = true;
	int err;

	rdev_for_each(rdev, mddev) {
		if (rdev->raid_disk < 0 || !test_bit(RD_FAULTY, &rdev->flags))
			continue;
		err = mddev->pers->hot_remove_disk(mddev, rdev);
		if (err) {
			all = false;
			continue;
		}
		md_rdev_leave_slot(rdev);
		set_bit(MD_SB_CHANGE_DEVS, &mddev->sb_flags);
		md_notify(rdev->sysfs_state);
	}
	return all;
}

/*
 * Does a working member want a replacement that it has not got?  The
 * spares may then be offered to the personality even with no free slot.
 */
static bool md_wants_replacement(struct mddev *mddev)
{
	struct md_rdev *rdev, *other;

	if (!mddev->pers->replacement)
		return false;
	rdev_for_each(rdev, mddev) {
		bool has = false;

		if (!md_rdev_working(rdev) || rdev->raid_disk < 0 ||
		    !test_bit(RD_WANT_REPLACEMENT, &rdev->flags) ||
		    test_bit(RD_REPLACEMENT, &rdev->flags))
			continue;
		rdev_for_each(other, mddev)
			if (other->raid_disk == rdev->raid_disk &&
			    test_bit(RD_REPLACEMENT, &other->flags))
				has = true;
		if (!has)
			return true;
	}
	return false;
}

/*
 * Offer spare @rdev to the personality: the slot it asks for
 * (rdev->raid_disk >= 0: sysfs slot) or one the personality picks.  0
 * once it holds one; then its rdN link, a superblock round and a poll
 * event follow.  On failure it stays a spare.
 */
int md_add_spare(struct mddev *mddev, struct md_rdev *rdev)
{
	int err;

	lockdep_assert_held(&mddev->reconfig_mutex);
	clear_bit(RD_IN_SYNC, &rdev->flags);
	rdev->recovery_offset = 0;
	err = mddev->pers->hot_add_disk(mddev, rdev);
	if (!err && rdev->raid_disk < 0)
		err = -EEXIST;
	if (err) {
		rdev->raid_disk = -1;
		return err;
	}
	md_rdev_link_slot(rdev);
	set_bit(MD_SB_CHANGE_DEVS, &mddev->sb_flags);
	md_notify(rdev->sysfs_state);
	return 0;
}

/*
 * Put spares into free slots, or beside members that want replacing;
 * returns the number of members to rebuild.
 */
static int md_add_spares(struct mddev *mddev)
{
	bool offer = READ_ONCE(mddev->degraded) > 0 ||
		     md_wants_replacement(mddev);
	struct md_rdev *rdev;
	int n = 0;

	rdev_for_each(rdev, mddev) {
		if (test_bit(RD_FAULTY, &rdev->flags))
			continue;
		if (rdev->raid_disk < 0 && offer && mddev->pers->hot_add_disk)
			md_add_spare(mddev, rdev);
		if (md_rdev_rebuilding(rdev))
			n++;
	}
	return n;
}

/*
 * md thread: reap a finished sync thread, then decide what runs next.
 * Skips (and is woken again by mddev_unlock()) if the lock is busy.
 */
void md_check_recovery(struct mddev *mddev)
{
	struct md_core *core = to_core(mddev);
	struct task_struct *t;
	int spares;

	if (!mutex_trylock(&mddev->reconfig_mutex))
		return;
	if (!mddev->pers)
		goto unlock;
	if (test_bit(MDR_RUNNING, &mddev->recovery)) {
		if (!test_bit(MDR_DONE, &mddev->recovery))
			goto unlock;
		md_reap_sync(mddev);
	}
	if (!test_and_clear_bit(MDR_NEEDED, &mddev->recovery))
		goto unlock;
	clear_bit(MDC_RETRY, &core->core_flags);

	if (!md_remove_failed(mddev)) {
		set_bit(MDR_NEEDED, &mddev->recovery);
		set_bit(MDC_RETRY, &core->core_flags);
	}
	/* broken: too few members left to rebuild or check anything from */
	if (mddev->ro || test_bit(MDR_FROZEN, &mddev->recovery) ||
	    !mddev->pers->sync_request || md_broken(mddev))
		goto write_sb;

	if (mddev->reshape_position != MD_MAX_SECTOR) {
		/* a reshape goes first; spares wait for its end */
		mddev->recovery &= ~(BIT(MDR_SYNC) | BIT(MDR_REQUESTED) |
				     BIT(MDR_CHECK) | BIT(MDR_RECOVER));
		set_bit(MDR_RESHAPE, &mddev->recovery);
		goto start;
	}
	spares = md_add_spares(mddev);
	if (spares) {
		mddev->recovery &= ~(BIT(MDR_SYNC) | BIT(MDR_REQUESTED) |
				     BIT(MDR_CHECK));
		set_bit(MDR_RECOVER, &mddev->recovery);
	} else if (test_bit(MDR_SYNC, &mddev->recovery)) {
		/* check or repair asked for through sync_action */
	} else if (mddev->resync_offset < mddev->resync_max_sectors) {
		set_bit(MDR_SYNC, &mddev->recovery);
	} else {
		goto write_sb;
	}
start:
	if (test_bit(MD_SB_CHANGE_DEVS, &mddev->sb_flags))
		md_update_sb(mddev);

	clear_bit(MDR_INTR, &mddev->recovery);
	clear_bit(MDR_DONE, &mddev->recovery);
	set_bit(MDR_RUNNING, &mddev->recovery);
	core->sync_ended = false;
	t = kthread_run(md_sync_thread_fn, mddev, "%s_resync", mdname(mddev));
	if (IS_ERR(t)) {
		pr_warn("md: %s: cannot start the sync thread (%ld)\n",
			mdname(mddev), PTR_ERR(t));
		mddev->recovery &= ~(BIT(MDR_RUNNING) | BIT(MDR_SYNC) |
				     BIT(MDR_REQUESTED) | BIT(MDR_CHECK) |
				     BIT(MDR_RECOVER) | BIT(MDR_RESHAPE));
		goto write_sb;
	}
	mddev->sync_thread = t;
	md_notify_sync(mddev, MD_KN_ACTION);
	md_new_event();
write_sb:
	if (test_bit(MD_SB_CHANGE_DEVS, &mddev->sb_flags))
		md_update_sb(mddev);
unlock:
	/* not mddev_unlock(): that would wake us again */
	mutex_unlock(&mddev->reconfig_mutex);
}

/* /proc/mdstat progress line; called under mddev->lock.  1 if printed. */
int md_sync_status(struct seq_file *seq, struct mddev *mddev)
{
	unsigned long recovery = READ_ONCE(mddev->recovery);
	struct md_core *core = to_core(mddev);
	sector_t max, pos, mark;
	unsigned long dt;
	u64 db, rt, per_milli;
	const char *what;
	int i, x;

	if (!(recovery & BIT(MDR_RUNNING)) || (recovery & BIT(MDR_DONE))) {
		if (mddev->resync_offset <
		    READ_ONCE(mddev->resync_max_sectors)) {
			seq_puts(seq, "\tresync=PENDING");
			return 1;
		}
		return 0;
	}
	if (READ_ONCE(core->sync_delayed)) {
		seq_puts(seq, "\tresync=DELAYED");
		return 1;
	}
	max = md_sync_end(mddev, recovery);
	pos = min(md_sync_position(mddev), max);
	if (!max)
		return 0;
	per_milli = div64_u64((u64)pos * 1000, max);
	if (per_milli > 1000)
		per_milli = 1000;

	x = per_milli / 50;
	seq_putc(seq, '[');
	for (i = 0; i < x; i++)
		seq_putc(seq, '=');
	seq_putc(seq, '>');
	for (i = x; i < 20; i++)
		seq_putc(seq, '.');
	seq_puts(seq, "] ");

	if (recovery & BIT(MDR_RESHAPE))
		what = "reshape";
	else if (recovery & BIT(MDR_CHECK))
		what = "check";
	else if (recovery & BIT(MDR_SYNC))
		what = "resync";
	else
		what = "recovery";
	dt = (jiffies - READ_ONCE(core->mark_jiffies[0])) / HZ + 1;
	mark = READ_ONCE(core->mark_sectors[0]);
	db = pos > mark ? pos - mark : 0;
	rt = db ? mul_u64_u64_div_u64(max - pos, dt, db) : 0;
	seq_printf(seq, " %s =%3u.%u%% (%llu/%llu)", what,
		   (unsigned int)per_milli / 10, (unsigned int)per_milli % 10,
		   (unsigned long long)pos / 2, (unsigned long long)max / 2);
	seq_printf(seq, " finish=%llu.%llumin", rt / 60, (rt % 60) / 6);
	seq_printf(seq, " speed=%lluK/sec", div64_u64(db / 2, dt));
	return 1;
}
