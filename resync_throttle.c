// SPDX-License-Identifier: GPL-2.0
/*
 * Idle-aware resync throttle
 *
 * Resync, recovery, check and repair share the member disks with the
 * foreground IO of the array.  Run flat out, a single sync thread keeps a
 * whole resync window of large requests queued on every member, and a
 * foreground read that lands behind them waits for all of them: a QD1
 * reader sees its latency multiplied and its IOPS divided.  Run too
 * gently, an idle array takes days to resync.  This policy gives the sync
 * thread the whole array when nobody else wants it and a small, bounded
 * share of it when somebody does, while always keeping sync_speed_min.
 *
 * The policy is a pure function.  Before each sync request the core hands
 * rt_decide() a sample of counters it keeps on the md device itself and
 * obeys the decision: wait for wait_ns (or until something happens), or
 * issue while fewer than max_inflight sync requests are in flight.  No
 * clock, lock or allocation lives here, so the whole policy runs as is in
 * a user space simulation (tests/unit/rt_scenarios.c).
 *
 * Is the foreground busy?
 *
 * The core counts foreground IO where it is exact: bios submitted to the
 * md device (in flight now, and completed in total).  Member disk
 * counters also see sync IO and can only be compared with it racily; md
 * device counters never see sync IO at all.  A sample shows activity if
 * foreground IO is in flight or any completed since the previous sample,
 * so no IO is missed however rarely we sample.  A QD1 reader has gaps
 * with nothing in flight, and when the sync thread samples every few
 * microseconds it would see many of them; therefore the array only
 * counts as idle after idle_ms without any activity (the hold-off).  The
 * hold-off is the only delay on the way back to full speed: when the
 * sync thread waits while the foreground is busy, the wait never extends
 * past the moment the hold-off would expire.
 *
 * The states (enum rt_mode), checked in this order:
 *
 *  FLOOR   - sync is behind sync_speed_min, counting the sync IO already
 *            in flight as paid.  Issue regardless of the foreground, one
 *            more request per decision for as long as that holds, so the
 *            depth grows to exactly what the floor needs at the current
 *            latency and no further.  As in-tree md, the floor wins over
 *            the ceiling.  Requests in flight count as paid only if the
 *            CPU gets them done: the decision's floor_late (foreground
 *            busy, completed sync more than RT_FLOOR_LATE_NS behind
 *            speed_min, until it caught up) tells the core to give the
 *            sync's work the CPU it needs (md_sync.c).  A floor kept as
 *            a metronome is never that late.
 *  CEILING - sync is ahead of sync_speed_max.  Wait until it is not.
 *  IDLE    - no foreground for idle_ms.  No pauses, no depth limit: the
 *            personality's resync window is the only bound, exactly like
 *            in-tree md on an idle array.
 *  PACED   - foreground busy.  At most io_depth sync requests in flight
 *            (default 1, so a foreground IO queues behind at most one
 *            sync request), and sync IO may be in flight only the share
 *            of the time (below): once a burst completes the thread waits
 *            (1 - share) / share times as long as the burst took.
 *            The burst's duration includes the time it spent queued
 *            behind foreground IO, so the heavier the foreground, the
 *            rarer the sync bursts: the share is of wall time, which
 *            keeps a light foreground's latency near idle and a heavy
 *            one's bandwidth near idle.
 *  PROBE   - foreground busy, and the window (below) measures it with
 *            the floor's sync IO only: nothing else is issued.
 *
 * Who gets the CPU.  Beside a light foreground (a window's mean
 * foreground IOs in flight, by Little's law its latency sum over its
 * length, at most RT_LIGHT_QD_PM / 1000) whose floor is not late, the
 * decision says light: the core lets the sync's work yield the CPU
 * (md_sync.c), since a QD1 reader's completion that waits behind parity
 * work is IOPS lost that no device share shows.  Beside a heavy one it
 * never does: 64 readers keep the CPU busy, and a yielding sync there
 * is starved below the floor.  Few IOs in flight do not prove the CPU
 * free, though: 64 readers on one CPU-bound vCPU keep few in flight on
 * fast members, and a yielding sync fell to a fifth of the floor there.
 * So once the floor falls late in a busy period the foreground is not
 * light again until the array has been idle (the sync thread itself
 * never yields, so that it sees the floor fall late), and until a busy
 * period's first window has closed it is not light either.
 *
 * The share: the promise measured.  What a sync request costs the
 * foreground is not only the device time it holds: the CPU it takes to
 * issue, complete and (RAID5/6) compute can cost a QD1 reader more than
 * the device share suggests (under TCG a 2 % share cost 8 % of the IOPS),
 * and a light foreground would leave far more than 2 %.  So the share is
 * a feedback loop on what the promise is about, the foreground's mean
 * latency (the core sums it per completion).  Time while busy is cut in
 * windows of RT_WIN_NS (longer until RT_WIN_IOS completions); every
 * RT_PROBE_EVERY-th, and the first of a busy period, is a probe, which
 * starts once the sync IO issued before it has completed and issues
 * only what the floor needs.  The lower of the last two probes' means is
 * the reference.  After any other window, mean latency above RT_CUT_PM
 * of the reference halves the share, and so do more IOs slower than
 * twice the reference than the last probe saw (the tail: the core counts
 * them against the decision's slow_ns); then it may not grow for
 * RT_PROBE_EVERY windows.  Below RT_GROW_PM it grows by a quarter if the
 * share held sync back.  It starts at 2 % and never exceeds busy_pct
 * (default 25 %).  The floor is not the share's to give: it runs in
 * probes as always (as a metronome, never in catch-up bursts), so the
 * reference includes its cost and the loop weighs only what the share
 * adds.
 *
 * Speeds are kept as buckets rather than as averages since a mark:
 *
 *  - the floor balance grows at speed_min (plus 1/32, so request
 *    granularity never leaves a one second window short) and shrinks
 *    with every completed sync sector; positive means behind.  It is
 *    clamped to RT_FLOOR_SLACK_NS worth of speed_min ahead and
 *    RT_FLOOR_ARREARS_NS behind: running ahead on an idle array buys at
 *    most 250 ms of coasting once the foreground starts, while a sync
 *    thread kept off the CPU (a busy or preempted machine) catches up on
 *    up to a second it missed, so the floor holds over any window of a
 *    few seconds.  An outage the floor could not prevent (a frozen
 *    array) is forgiven beyond that second.
 *    Falling behind by one request is seen at once, so under steady load
 *    the floor acts as a metronome issuing at exactly speed_min instead
 *    of in bursts.
 *  - the ceiling bucket fills at speed_max up to RT_CEIL_BURST_NS worth
 *    and is charged for every sector issued (sync_inflight_sectors) or,
 *    if the core does not count those, completed.  Negative means ahead:
 *    wait deficit / speed_max, precise to the ns instead of in-tree's
 *    fixed half second.
 *  - the pacing bucket is in ns of sync-busy time: it refills at the
 *    share of wall time, is charged for every interval between samples
 *    during which sync IO was in flight, never holds credit (so sync
 *    never bursts above its share) and owes at most RT_PACE_WAIT_MAX_NS
 *    of waiting.  It restarts from zero on every idle -> busy transition.
 *
 * Sector buckets are in 1e-9 sectors so that a speed in sectors/s is also
 * the fill rate per ns: no division is needed to fill them and none loses
 * precision however often the core samples.  Speeds are limited to INT_MAX
 * KiB/s and the time between samples that counts to RT_DT_MAX_NS, which
 * keeps every bucket well inside s64.
 *
 * Waits are never longer than the time until the floor falls due, the
 * hold-off expires or RT_WAIT_MAX_NS, whichever is first; a wake-up
 * before that is harmless, the core simply asks again.
 *
 * Request size: while the foreground is busy, what the share adds
 * (PACED, CEILING) comes in requests of at most RT_BUSY_REQ_SECTORS
 * (8 KiB) of a member: a foreground IO that lands behind one waits for
 * its service time, 0.4 ms at 20 MB/s where 64 KiB takes 3.2 ms.  What
 * the floor needs (FLOOR) comes in requests of RT_FLOOR_REQ_SECTORS
 * (16 KiB).  The floor's bandwidth is fixed by speed_min whatever the
 * size, but each request costs CPU (a wake-up of the sync thread, of
 * the personality's worker, a completion per member): in 8 KiB requests
 * the floor took a QD1 reader on a RAID6 of null_blk members 19 % of
 * its IOPS, in 64 KiB requests 0-14 %.  Larger requests make the
 * foreground's latency lumpier, though, and the share's loop then cuts
 * a light reader's neighbour down to the floor (qd1_holdoff: at 32 and
 * 64 KiB it did at one of its four phases).  On an idle array the
 * personality's own request size is used.
 *
 * Reaction times: foreground starting is seen by the very next sample
 * (the core samples before every issue) and from then on at most io_depth
 * requests are in flight; the requests already queued drain within one
 * resync window's service time (~20 ms for 32 x 64 KiB at 100 MB/s).
 * Foreground stopping: full speed idle_ms (50 ms by default) after the
 * last foreground IO, with no ramp.  Floor and ceiling react to a single
 * request's worth of error.
 *
 * Every knob is passed in on every call, so a sysfs write takes effect at
 * the next sample; out-of-range values are clamped here, and
 * rt_knob_check() lets sysfs refuse them with -EINVAL.
 */
#include "resync_throttle.h"

#define RT_NSEC_PER_SEC		1000000000ULL
#define RT_NSEC_PER_MSEC	1000000ULL

/* Time between two samples that is accounted at most. */
#define RT_DT_MAX_NS		(500ULL * RT_NSEC_PER_MSEC)
/* Floor window: credit and arrears kept, in time at speed_min. */
#define RT_FLOOR_SLACK_NS	(250ULL * RT_NSEC_PER_MSEC)
#define RT_FLOOR_ARREARS_NS	(1000ULL * RT_NSEC_PER_MSEC)
/* Ceiling: burst allowed after a pause, and overshoot remembered. */
#define RT_CEIL_BURST_NS	(50ULL * RT_NSEC_PER_MSEC)
#define RT_CEIL_DEBT_NS		(250ULL * RT_NSEC_PER_MSEC)
/* Pacing: the longest wait one burst can cause. */
#define RT_PACE_WAIT_MAX_NS	(500ULL * RT_NSEC_PER_MSEC)
/* Sectors accounted per sample at most (1 TiB), keeps buckets in s64. */
#define RT_SECTORS_MAX		0x80000000ULL
/* Sectors per sync request assumed when the core gives no sector count. */
#define RT_REQ_SECTORS_GUESS	128
/* The floor aims this fraction (1/2^n) above speed_min, so that request
 * granularity and latency never leave a one second window short.
 */
#define RT_FLOOR_MARGIN_SHIFT	5
/* Speed report: two slots of this length form the sliding window. */
#define RT_SPEED_SLOT_NS	(500ULL * RT_NSEC_PER_MSEC)
/*
 * The promise: a window lasts RT_WIN_NS, or longer until it holds
 * RT_WIN_IOS foreground completions (RT_WIN_MAX_NS at most); every
 * RT_PROBE_EVERY-th window, the first of each busy period included, is
 * a probe.  Mean latency over the reference above RT_CUT_PM halves the
 * share, below RT_GROW_PM grows it by a quarter (RT_SHARE_STEP_PM at
 * least); a share below RT_SHARE_STEP_PM is none.
 */
#define RT_WIN_NS		(100ULL * RT_NSEC_PER_MSEC)
#define RT_WIN_MAX_NS		(1000ULL * RT_NSEC_PER_MSEC)
#define RT_WIN_IOS		32
#define RT_PROBE_EVERY		8
#define RT_CUT_PM		1080
#define RT_GROW_PM		1040
#define RT_SHARE_START_PM	20
#define RT_SHARE_STEP_PM	5
/*
 * The tail: a foreground IO slower than RT_SLOW_X times the reference
 * mean is slow; a window with more than RT_SLOW_EXTRA_PM more slow IOs
 * than the last probe had (and RT_SLOW_SLACK IOs) halves the share too.
 */
#define RT_SLOW_X		2
#define RT_SLOW_EXTRA_PM	5
#define RT_SLOW_SLACK		1
/*
 * Completed sync this far behind the floor is late (floor_late): more
 * than a metronome's jitter, what a starved CPU leaves.
 */
#define RT_FLOOR_LATE_NS	(100ULL * RT_NSEC_PER_MSEC)
/*
 * A foreground of at most this many IOs in flight on average (per
 * mille, over the last window) is light: the sync's work may yield it
 * the CPU (decision light).
 */
#define RT_LIGHT_QD_PM		2000
/* A mean latency above this (ns) is taken as this: keeps products in u64. */
#define RT_LAT_MAX_NS		(1000ULL * RT_NSEC_PER_SEC)

void rt_knobs_default(struct rt_knobs *k)
{
	k->speed_min_kbs = RT_DEFAULT_SPEED_MIN;
	k->speed_max_kbs = RT_DEFAULT_SPEED_MAX;
	k->io_depth = RT_DEFAULT_IO_DEPTH;
	k->busy_pct = RT_DEFAULT_BUSY_PCT;
	k->idle_ms = RT_DEFAULT_IDLE_MS;
}

/*
 * Range check for one knob, for sysfs stores: 0 if @val is valid for
 * @knob, -EINVAL if not.  speed_min > speed_max is valid (the floor wins)
 * because the two are written one at a time.
 */
int rt_knob_check(enum rt_knob knob, u64 val)
{
	u64 lo, hi;

	switch (knob) {
	case RT_KNOB_SPEED_MIN:
		lo = RT_SPEED_MIN_LO;
		hi = RT_SPEED_MIN_HI;
		break;
	case RT_KNOB_SPEED_MAX:
		lo = RT_SPEED_MAX_LO;
		hi = RT_SPEED_MAX_HI;
		break;
	case RT_KNOB_IO_DEPTH:
		lo = RT_IO_DEPTH_LO;
		hi = RT_IO_DEPTH_HI;
		break;
	case RT_KNOB_BUSY_PCT:
		lo = RT_BUSY_PCT_LO;
		hi = RT_BUSY_PCT_HI;
		break;
	case RT_KNOB_IDLE_MS:
		lo = RT_IDLE_MS_LO;
		hi = RT_IDLE_MS_HI;
		break;
	default:
		return -EINVAL;
	}
	return val < lo || val > hi ? -EINVAL : 0;
}

static u32 rt_clamp_u32(u32 v, u32 lo, u32 hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

static s64 rt_clamp_s64(s64 v, s64 lo, s64 hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

static u64 rt_min_u64(u64 a, u64 b)
{
	return a < b ? a : b;
}

static u64 rt_max_u64(u64 a, u64 b)
{
	return a > b ? a : b;
}

/* Knobs as used: every value forced into its valid range. */
struct rt_eff {
	u64 min_rate;		/* speed_min (+ margin) in sectors/s, which is
				 * also 1e-9 sectors/ns
				 */
	u64 max_rate;		/* speed_max likewise, >= 2 */
	u32 depth;
	u32 pct;
	u64 idle_ns;
};

static void rt_effective(const struct rt_knobs *k, struct rt_eff *e)
{
	e->min_rate = 2ULL * rt_clamp_u32(k->speed_min_kbs, RT_SPEED_MIN_LO,
					  RT_SPEED_MIN_HI);
	e->min_rate += e->min_rate >> RT_FLOOR_MARGIN_SHIFT;
	e->max_rate = 2ULL * rt_clamp_u32(k->speed_max_kbs, RT_SPEED_MAX_LO,
					  RT_SPEED_MAX_HI);
	e->depth = rt_clamp_u32(k->io_depth, RT_IO_DEPTH_LO, RT_IO_DEPTH_HI);
	e->pct = rt_clamp_u32(k->busy_pct, RT_BUSY_PCT_LO, RT_BUSY_PCT_HI);
	e->idle_ns = (u64)rt_clamp_u32(k->idle_ms, RT_IDLE_MS_LO,
				       RT_IDLE_MS_HI) * RT_NSEC_PER_MSEC;
}

void rt_init(struct resync_throttle *rt, const struct rt_sample *s)
{
	*rt = (struct resync_throttle) {
		.mark_ns = s->now_ns,
		.mark_sectors = s->sync_done_sectors,
		.prev_mark_ns = s->now_ns,
		.prev_mark_sectors = s->sync_done_sectors,
		.last_fg_completed = s->fg_completed,
		.last_ns = s->now_ns,
		.last_done = s->sync_done_sectors,
		.last_started = s->sync_done_sectors + s->sync_inflight_sectors,
		.last_inflight = s->sync_inflight,
		.fg_seen_ns = s->now_ns,
		.busy = s->fg_inflight != 0,
		.share_pm = RT_SHARE_START_PM,
		.win_ns = s->now_ns,
		.win_fg = s->fg_completed,
		.win_lat = s->fg_lat_ns,
		.win_slow = s->fg_slow,
		.probe = true,
		/* a full ceiling bucket is set on the first rt_decide() */
		.ceil_nsec = S64_MAX,
	};
}

/* Sliding speed report over the current and the previous slot. */
static void rt_update_speed(struct resync_throttle *rt,
			    const struct rt_sample *s)
{
	u64 dt, sectors;

	if (s->now_ns - rt->mark_ns >= RT_SPEED_SLOT_NS) {
		rt->prev_mark_ns = rt->mark_ns;
		rt->prev_mark_sectors = rt->mark_sectors;
		rt->mark_ns = s->now_ns;
		rt->mark_sectors = s->sync_done_sectors;
	}
	dt = s->now_ns - rt->prev_mark_ns;
	if (dt < RT_NSEC_PER_MSEC || s->sync_done_sectors < rt->prev_mark_sectors)
		return;
	/* window <= 1 s + RT_DT_MAX_NS, so sectors * 1e9 fits when capped */
	sectors = rt_min_u64(s->sync_done_sectors - rt->prev_mark_sectors,
			     RT_SECTORS_MAX);
	rt->stats.speed_kbs = (u32)rt_min_u64(div64_u64(sectors * RT_NSEC_PER_SEC,
							dt) / 2, U32_MAX);
}

/* The paced share in force, per mille: the promise's, under the knob. */
static u64 rt_share(const struct resync_throttle *rt, const struct rt_eff *e)
{
	return rt_min_u64(rt->share_pm, (u64)e->pct * 10);
}

static void rt_window_open(struct resync_throttle *rt,
			   const struct rt_sample *s, bool probe)
{
	rt->win_ns = s->now_ns;
	rt->win_fg = s->fg_completed;
	rt->win_lat = s->fg_lat_ns;
	rt->win_slow = s->fg_slow;
	rt->probe = probe;
	rt->drain = probe && s->sync_inflight;
	rt->win_limited = false;
	if (probe && !rt->drain)
		rt->stats.probes++;
}

/*
 * Close the window once it is long enough and move the share.  A probe
 * starts measuring once the sync IO issued before it has drained, and
 * the reference is the lower of the last two probes' means: one probe
 * disturbed by the sync (or by the foreground) only makes the share
 * more careful.  Any other window compares its mean latency with it.
 */
static void rt_window(struct resync_throttle *rt, const struct rt_eff *e,
		      const struct rt_sample *s)
{
	u64 len = s->now_ns - rt->win_ns, n = s->fg_completed - rt->win_fg;
	u64 slow = s->fg_slow - rt->win_slow, mean, ratio, cap = (u64)e->pct * 10;
	bool tail;

	if (rt->drain) {
		if (!s->sync_inflight)
			rt_window_open(rt, s, true);
		return;
	}
	if (len < RT_WIN_NS || (n < RT_WIN_IOS && len < RT_WIN_MAX_NS))
		return;
	rt->fg_qd_pm = 0;
	if (n) {
		/* Little's law: latency summed over the window is depth x time */
		rt->fg_qd_pm = (u32)rt_min_u64(div64_u64((s->fg_lat_ns -
							  rt->win_lat) * 1000,
							 len), U32_MAX);
		mean = rt_min_u64(div64_u64(s->fg_lat_ns - rt->win_lat, n),
				  RT_LAT_MAX_NS);
		mean = mean ? mean : 1;
		slow = rt_min_u64(slow, n);
		if (rt->probe) {
			rt->ref_lat_ns = rt->probe_lat_ns ?
					 rt_min_u64(rt->probe_lat_ns, mean) :
					 mean;
			rt->probe_lat_ns = mean;
			rt->ref_slow_pm = (u32)div64_u64(slow * 1000, n);
		} else if (rt->ref_lat_ns) {
			ratio = div64_u64(mean * 1000, rt->ref_lat_ns);
			rt->stats.lat_ratio_pm = (u32)rt_min_u64(ratio, U32_MAX);
			tail = slow > div64_u64(n * (rt->ref_slow_pm +
						     RT_SLOW_EXTRA_PM), 1000) +
				      RT_SLOW_SLACK;
			if (ratio > RT_CUT_PM || tail) {
				rt->share_pm /= 2;
				if (rt->share_pm < RT_SHARE_STEP_PM)
					rt->share_pm = 0;
				rt->stats.share_cuts++;
				rt->hold = RT_PROBE_EVERY;
			} else if (rt->hold) {
				rt->hold--;
			} else if (ratio < RT_GROW_PM && rt->win_limited) {
				rt->share_pm += rt->share_pm / 4 > RT_SHARE_STEP_PM ?
						rt->share_pm / 4 : RT_SHARE_STEP_PM;
			}
		}
	}
	if (rt->share_pm > cap)
		rt->share_pm = (u32)cap;
	rt->win_idx++;
	rt_window_open(rt, s, !(rt->win_idx % RT_PROBE_EVERY));
}

/*
 * Fold the interval since the previous sample into the buckets and the
 * counters, and decide whether the foreground is busy now.
 */
static void rt_account(struct resync_throttle *rt, const struct rt_eff *e,
		       const struct rt_sample *s, struct rt_decision *d)
{
	u64 real_dt = s->now_ns > rt->last_ns ? s->now_ns - rt->last_ns : 0;
	s64 dt = (s64)rt_min_u64(real_dt, RT_DT_MAX_NS);
	u64 started = s->sync_done_sectors + s->sync_inflight_sectors;
	u64 fg_done = s->fg_completed - rt->last_fg_completed;
	s64 done = 0, issued = 0, lo, hi;
	bool busy;

	if (s->sync_done_sectors > rt->last_done)
		done = (s64)rt_min_u64(s->sync_done_sectors - rt->last_done,
				       RT_SECTORS_MAX);
	/*
	 * Sectors started: issued if the core counts in-flight sectors,
	 * else completed.  A racy snapshot may make it dip; only new highs
	 * count.
	 */
	if (started > rt->last_started) {
		issued = (s64)rt_min_u64(started - rt->last_started,
					 RT_SECTORS_MAX);
		rt->last_started = started;
	}

	/* counters, charged to what was decided at the previous sample */
	rt->stats.samples++;
	rt->stats.fg_ios += fg_done;
	rt->stats.mode_ns[rt->last.mode < RT_MODE_NR ? rt->last.mode : 0] +=
		real_dt;
	if (rt->last.wait_ns)
		rt->stats.throttled_ns += rt_min_u64(real_dt, rt->last.wait_ns);
	if (rt->last.light)
		rt->stats.light_ns += real_dt;
	if (rt->busy)
		rt->stats.fg_busy_ns += real_dt;

	/* foreground: activity now, or within the hold-off */
	d->fg_active = s->fg_inflight || fg_done;
	if (d->fg_active) {
		rt->stats.fg_active_samples++;
		rt->fg_seen_ns = s->now_ns;
	}
	busy = d->fg_active ||
	       (rt->busy && s->now_ns - rt->fg_seen_ns < e->idle_ns);
	if (busy && !rt->busy) {
		rt->stats.busy_periods++;
		rt->pace_ns = 0;
		rt->burst = false;
		rt->win_idx = 0;
		rt->fg_qd_pm = 0;
		rt->unlight = false;
		rt_window_open(rt, s, true);
	} else if (busy) {
		rt_window(rt, e, s);
	}
	rt->busy = busy;
	d->fg_busy = busy;
	rt->stats.share_pm = (u32)rt_share(rt, e);

	/* floor balance: owed at speed_min, paid by completed sectors */
	lo = -(s64)(e->min_rate * RT_FLOOR_SLACK_NS);
	hi = (s64)(e->min_rate * RT_FLOOR_ARREARS_NS);
	rt->floor_nsec += (s64)e->min_rate * dt - done * (s64)RT_NSEC_PER_SEC;
	rt->floor_nsec = rt_clamp_s64(rt->floor_nsec, lo, hi);

	/* ceiling bucket: filled at speed_max, charged for sectors issued */
	lo = -(s64)(e->max_rate * RT_CEIL_DEBT_NS);
	hi = (s64)(e->max_rate * RT_CEIL_BURST_NS);
	rt->ceil_nsec = rt_clamp_s64(rt->ceil_nsec, lo, hi);
	rt->ceil_nsec += (s64)e->max_rate * dt - issued * (s64)RT_NSEC_PER_SEC;
	rt->ceil_nsec = rt_clamp_s64(rt->ceil_nsec, lo, hi);

	/*
	 * Pacing bucket: refill the share of the interval, charge all of it
	 * if sync IO was in flight during it (in flight at either end, or
	 * something completed in between).
	 */
	if (busy) {
		rt->pace_ns += (s64)div_u64((u64)dt * rt_share(rt, e), 1000);
		if (rt->last_inflight || s->sync_inflight || done)
			rt->pace_ns -= dt;
		lo = -(s64)div_u64(RT_PACE_WAIT_MAX_NS * rt_share(rt, e), 1000);
		rt->pace_ns = rt_clamp_s64(rt->pace_ns, lo, 0);
	}

	rt->last_ns = s->now_ns;
	rt->last_done = s->sync_done_sectors;
	rt->last_fg_completed = s->fg_completed;
	rt->last_inflight = s->sync_inflight;
	rt_update_speed(rt, s);
}

/*
 * What the floor is owed beyond the sync IO already in flight, in 1e-9
 * sectors.  A core that does not count in-flight sectors gets a guess of
 * RT_REQ_SECTORS_GUESS per request; too big a guess only means the
 * balance must grow a little further before the next request.
 */
static s64 rt_floor_owed(const struct resync_throttle *rt,
			 const struct rt_sample *s)
{
	u64 inflight = s->sync_inflight_sectors;

	if (!inflight)
		inflight = (u64)s->sync_inflight * RT_REQ_SECTORS_GUESS;
	inflight = rt_min_u64(inflight, RT_SECTORS_MAX);
	return rt->floor_nsec - (s64)inflight * (s64)RT_NSEC_PER_SEC;
}

/* ns until a bucket of @deficit 1e-9 sectors refills at @rate sectors/s */
static u64 rt_refill_ns(s64 deficit, u64 rate)
{
	if (deficit <= 0)
		return 0;
	return div64_u64((u64)deficit + rate - 1, rate);
}

void rt_decide(struct resync_throttle *rt, const struct rt_knobs *k,
	       const struct rt_sample *s, struct rt_decision *d)
{
	struct rt_eff e;
	u64 wait = 0;
	u32 depth;

	rt_effective(k, &e);
	rt_account(rt, &e, s, d);
	depth = d->fg_busy ? e.depth : RT_DEPTH_UNLIMITED;
	d->max_inflight = depth;
	/* late: from RT_FLOOR_LATE_NS behind until caught up */
	d->floor_late = d->fg_busy && e.min_rate &&
			(rt->floor_nsec > (s64)(e.min_rate * RT_FLOOR_LATE_NS) ||
			 (rt->last.floor_late && rt->floor_nsec > 0));
	if (d->floor_late)
		rt->unlight = true;
	d->light = d->fg_busy && !rt->unlight && rt->fg_qd_pm &&
		   rt->fg_qd_pm <= RT_LIGHT_QD_PM;

	if (e.min_rate && rt_floor_owed(rt, s) > 0) {
		/* one more request each time, as long as the floor is owed */
		if (d->fg_busy && s->sync_inflight < U32_MAX - 1)
			d->max_inflight = s->sync_inflight + 1;
		d->mode = d->fg_busy ? RT_MODE_FLOOR : RT_MODE_IDLE;
		rt->burst = false;
	} else if (rt->ceil_nsec < 0) {
		d->mode = RT_MODE_CEILING;
		wait = rt_refill_ns(-rt->ceil_nsec, e.max_rate);
		rt->burst = false;
	} else if (!d->fg_busy) {
		d->mode = RT_MODE_IDLE;
	} else if (rt->probe || !rt_share(rt, &e)) {
		/* nothing beyond the floor until the window ends */
		d->mode = rt->probe ? RT_MODE_PROBE : RT_MODE_PACED;
		if (!rt->probe)
			rt->win_limited = true;
		wait = rt->win_ns + RT_WIN_NS > s->now_ns ?
		       rt->win_ns + RT_WIN_NS - s->now_ns : RT_WIN_NS / 10;
		rt->burst = false;
	} else {
		d->mode = RT_MODE_PACED;
		/* a burst stays open until full or its first completion */
		if (rt->burst && (s->sync_inflight >= depth ||
				  s->sync_done_sectors != rt->burst_done))
			rt->burst = false;
		if (rt->burst) {
			/* keep filling it */
		} else if (s->sync_inflight) {
			/* no new request until this burst completes */
			d->max_inflight = s->sync_inflight;
		} else if (rt->pace_ns < 0) {
			/* rounded up: the refill is rounded down */
			wait = rt_refill_ns(-rt->pace_ns * 1000,
					    rt_share(rt, &e));
			rt->win_limited = true;
		} else {
			rt->burst = true;
			rt->burst_done = s->sync_done_sectors;
		}
	}

	/* see "Request size" above */
	if (!d->fg_busy)
		d->max_sectors = 0;
	else if (d->mode == RT_MODE_FLOOR)
		d->max_sectors = RT_FLOOR_REQ_SECTORS;
	else
		d->max_sectors = RT_BUSY_REQ_SECTORS;

	if (wait) {
		/* wake when the floor falls due or the hold-off ends */
		if (e.min_rate)
			wait = rt_min_u64(wait,
					  rt_refill_ns(-rt_floor_owed(rt, s),
						       e.min_rate) + 1);
		if (d->fg_busy)
			wait = rt_min_u64(wait, rt->fg_seen_ns + e.idle_ns -
					  s->now_ns);
		wait = rt_min_u64(rt_max_u64(wait, RT_WAIT_MIN_NS),
				  RT_WAIT_MAX_NS);
	}
	d->wait_ns = wait;
	d->slow_ns = rt->ref_lat_ns ? rt->ref_lat_ns * RT_SLOW_X : U64_MAX;
	rt->stats.mode = d->mode;
	rt->last = *d;
}
