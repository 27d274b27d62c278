/* SPDX-License-Identifier: GPL-2.0 */
/*
 * resync_throttle: the policy deciding how fast resync, recovery, check
 * and repair may run.  A pure decision function: the md core samples
 * counters and obeys the decision; nothing here touches md state, reads
 * a clock, takes a lock or allocates.
 *
 * Units: time in ns, speeds in KiB/s, sync progress in 512-byte sectors,
 * sync IO in flight in "sync requests" (one pers->sync_request() call),
 * foreground IO in bios submitted to the md device itself.
 *
 * Documentation/resync_throttle.rst describes the policy, the knobs and
 * what the core must count and how it must wait.
 */
#ifndef _MD_RESYNC_THROTTLE_H
#define _MD_RESYNC_THROTTLE_H

#include "resync_throttle_seam.h"

/*
 * Knob ranges (inclusive) and defaults.  Speeds: KiB/s.  The speed
 * defaults match /proc/sys/dev/raid/speed_limit_{min,max}.
 */
#define RT_SPEED_MIN_LO		0U		/* 0: no floor */
#define RT_SPEED_MIN_HI		2147483647U	/* INT_MAX, as the sysctl */
#define RT_SPEED_MAX_LO		1U
#define RT_SPEED_MAX_HI		2147483647U
#define RT_IO_DEPTH_LO		1U
#define RT_IO_DEPTH_HI		1024U
#define RT_BUSY_PCT_LO		1U
#define RT_BUSY_PCT_HI		100U		/* 100: depth limit only */
#define RT_IDLE_MS_LO		1U
#define RT_IDLE_MS_HI		10000U

#define RT_DEFAULT_SPEED_MIN	1000U
#define RT_DEFAULT_SPEED_MAX	200000U
#define RT_DEFAULT_IO_DEPTH	1U
#define RT_DEFAULT_BUSY_PCT	25U
#define RT_DEFAULT_IDLE_MS	50U

/* max_inflight meaning "no limit from the policy": the personality's own
 * resync window (raise_barrier() and friends) is the only bound.
 */
#define RT_DEPTH_UNLIMITED	U32_MAX

/* Longest wait_ns ever returned: the core re-asks at least this often. */
#define RT_WAIT_MAX_NS		(100ULL * 1000 * 1000)
/*
 * Shortest non-zero wait_ns: a sleeping thread cannot act on less, and
 * shorter waits only make the caller ask again and again (the paced
 * bucket's last nanoseconds took 200000 decisions per 7 ms simulated).
 */
#define RT_WAIT_MIN_NS		(10ULL * 1000)
/*
 * Largest sync request while the foreground is busy, sectors per member:
 * RT_BUSY_REQ_SECTORS for what the share adds (a foreground IO that lands
 * behind one waits for its service time, and the share's feedback loop
 * weighs it in small steps), RT_FLOOR_REQ_SECTORS for what the floor
 * needs (its bandwidth is fixed by speed_min; fewer requests cost less
 * CPU per KiB).
 */
#define RT_BUSY_REQ_SECTORS	16U
#define RT_FLOOR_REQ_SECTORS	32U

struct rt_knobs {
	u32 speed_min_kbs;	/* KiB/s floor kept under any load; 0: none */
	u32 speed_max_kbs;	/* KiB/s ceiling; the floor wins if min > max */
	u32 io_depth;		/* sync requests in flight while foreground busy */
	u32 busy_pct;		/* most % of time sync IO may be in flight
				 * while foreground is busy and the floor is
				 * met; the share adapts below it
				 */
	u32 idle_ms;		/* ms without foreground activity before the
				 * array counts as idle (hold-off)
				 */
};

/* Knob identifiers for rt_knob_check(). */
enum rt_knob {
	RT_KNOB_SPEED_MIN,
	RT_KNOB_SPEED_MAX,
	RT_KNOB_IO_DEPTH,
	RT_KNOB_BUSY_PCT,
	RT_KNOB_IDLE_MS,
	RT_KNOB_NR,
};

struct rt_sample {
	u64 now_ns;		/* monotonic clock, ns */
	u64 fg_completed;	/* cumulative foreground IOs completed (md dev) */
	u64 fg_lat_ns;		/* cumulative latency of those IOs, ns */
	u64 fg_slow;		/* cumulative IOs of those that took more
				 * than a decision's slow_ns
				 */
	u32 fg_inflight;	/* foreground IOs in flight now (md dev) */
	u64 sync_done_sectors;	/* cumulative sync sectors completed */
	u32 sync_inflight;	/* sync requests in flight now */
	u64 sync_inflight_sectors; /* sectors of those requests; 0 if the
				    * core does not count them (the ceiling
				    * then charges at completion)
				    */
};

/* What the last decision was for; exported as a counter index. */
enum rt_mode {
	RT_MODE_IDLE,		/* no foreground: full speed, full depth */
	RT_MODE_PACED,		/* foreground busy: io_depth, busy_pct share */
	RT_MODE_FLOOR,		/* behind speed_min: issue despite foreground */
	RT_MODE_CEILING,	/* ahead of speed_max: wait */
	RT_MODE_PROBE,		/* foreground busy, measuring it without sync */
	RT_MODE_NR,
};

struct rt_decision {
	u32 max_inflight;	/* issue only while sync_inflight < this;
				 * RT_DEPTH_UNLIMITED: no policy limit
				 */
	u64 wait_ns;		/* >0: sleep this long (or until woken) first;
				 * never above RT_WAIT_MAX_NS
				 */
	u32 max_sectors;	/* >0: the next request covers at most this
				 * many sectors of each member; 0: no limit
				 */
	u64 slow_ns;		/* count foreground IOs slower than this in
				 * fg_slow from now on; U64_MAX: none
				 */
	bool fg_active;		/* foreground activity seen in this sample */
	bool fg_busy;		/* foreground busy (activity within idle_ms) */
	bool floor_late;	/* fg_busy, and the sync completed less than
				 * speed_min asks, from 100 ms of it behind
				 * until caught up (in flight not counted)
				 */
	bool light;		/* fg_busy, the floor not late in this busy
				 * period, and the last window's foreground
				 * kept at most RT_LIGHT_QD_PM / 1000 IOs in
				 * flight on average: the sync's work may
				 * yield the CPU
				 */
	u32 mode;		/* enum rt_mode */
};

struct rt_stats {
	u64 throttled_ns;	/* ns the core was told to wait and did wait
				 * (time to the next sample, capped at wait_ns)
				 */
	u64 fg_active_samples;	/* samples that saw foreground activity */
	u64 samples;		/* rt_decide() calls */
	u64 fg_ios;		/* foreground IOs completed while sampling */
	u64 fg_busy_ns;		/* ns spent with foreground busy */
	u64 busy_periods;	/* idle -> busy transitions */
	u64 mode_ns[RT_MODE_NR]; /* ns spent under each decision mode */
	u32 mode;		/* current enum rt_mode */
	u32 speed_kbs;		/* sync speed over the last 0.5-1 s, KiB/s */
	u32 share_pm;		/* paced share of wall time now, per mille */
	u32 lat_ratio_pm;	/* foreground mean latency in the last window
				 * over the reference, per mille; 0: none yet
				 */
	u64 probes;		/* windows measured without sync */
	u64 share_cuts;		/* windows after which the share was halved */
	u64 light_ns;		/* ns spent under decisions with light set */
};

struct resync_throttle {
	u64 mark_ns;		/* start of the current speed slot */
	u64 mark_sectors;	/* sync_done_sectors at mark_ns */
	u64 last_fg_completed;
	struct rt_decision last;
	struct rt_stats stats;
	/* private to resync_throttle.c */
	u64 prev_mark_ns;	/* start of the previous speed slot */
	u64 prev_mark_sectors;
	u64 last_ns;		/* now_ns of the previous sample */
	u64 last_done;		/* sync_done_sectors of the previous sample */
	u64 last_started;	/* done + inflight sectors, high-water mark */
	u32 last_inflight;	/* sync_inflight of the previous sample */
	u64 fg_seen_ns;		/* now_ns when foreground activity was seen */
	s64 pace_ns;		/* busy_pct bucket: ns of sync-busy time we
				 * owe (<= 0; negative means in debt)
				 */
	s64 floor_nsec;		/* speed_min balance in 1e-9 sectors: > 0
				 * means behind the floor
				 */
	s64 ceil_nsec;		/* speed_max bucket in 1e-9 sectors: < 0
				 * means ahead of the ceiling
				 */
	u64 burst_done;		/* sync_done_sectors when the burst opened */
	/* the promise: foreground latency with the paced share vs without */
	u64 win_ns;		/* start of the current window */
	u64 win_fg;		/* fg_completed at win_ns */
	u64 win_lat;		/* fg_lat_ns at win_ns */
	u64 win_slow;		/* fg_slow at win_ns */
	u32 ref_slow_pm;	/* slow IOs in the last probe, per mille */
	u64 ref_lat_ns;		/* reference latency (probes); 0: none */
	u64 probe_lat_ns;	/* the last probe's mean latency; 0: none */
	u32 win_idx;		/* windows since the busy period began */
	u32 share_pm;		/* paced share of wall time, per mille */
	u32 hold;		/* windows the share may not grow (cut) */
	u32 fg_qd_pm;		/* the last window's mean foreground IOs in
				 * flight, per mille; 0: none this busy period
				 */
	bool probe;		/* the current window is a probe */
	bool drain;		/* probe: sync IO issued before it in flight */
	bool win_limited;	/* the share held sync back in this window */
	bool busy;		/* foreground busy at the previous sample */
	bool unlight;		/* the floor fell late in this busy period:
				 * the CPU is contended, no light until idle
				 */
	bool burst;		/* paced: a burst of up to io_depth is open */
};

void rt_knobs_default(struct rt_knobs *k);
int rt_knob_check(enum rt_knob knob, u64 val);
void rt_init(struct resync_throttle *rt, const struct rt_sample *s);
void rt_decide(struct resync_throttle *rt, const struct rt_knobs *k,
	       const struct rt_sample *s, struct rt_decision *d);

#endif
