/* SPDX-License-Identifier: GPL-2.0 */
/*
 * resync_throttle: the policy deciding how fast resync, recovery, check
 * and repair may run.  A pure decision function: the md core samples
 * counters and obeys the decision; nothing here touches md state.
 *
 * Units: time in ns, speeds in KiB/s, sync progress in 512-byte sectors,
 * sync IO in flight in "sync requests" (one pers->sync_request() call).
 */
#ifndef _MD_RESYNC_THROTTLE_H
#define _MD_RESYNC_THROTTLE_H

#include "resync_throttle_seam.h"

struct rt_knobs {
	u32 speed_min_kbs;	/* floor kept under any load */
	u32 speed_max_kbs;	/* ceiling */
	u32 io_depth;		/* sync requests in flight while foreground busy */
};

struct rt_sample {
	u64 now_ns;
	u64 fg_completed;	/* cumulative foreground IOs completed (md dev) */
	u32 fg_inflight;	/* foreground IOs in flight now */
	u64 sync_done_sectors;	/* cumulative sync sectors completed */
	u32 sync_inflight;	/* sync requests in flight now */
};

struct rt_decision {
	u32 max_inflight;	/* issue only while sync_inflight < this */
	u64 wait_ns;		/* >0: sleep this long (or until woken) first */
	bool fg_active;		/* foreground activity seen in this sample */
};

struct rt_stats {
	u64 throttled_ns;	/* total time told to wait */
	u64 fg_active_samples;
	u64 samples;
};

struct resync_throttle {
	u64 mark_ns;		/* start of the current speed window */
	u64 mark_sectors;	/* sync_done_sectors at mark_ns */
	u64 last_fg_completed;
	struct rt_decision last;
	struct rt_stats stats;
};

void rt_init(struct resync_throttle *rt, const struct rt_sample *s);
void rt_decide(struct resync_throttle *rt, const struct rt_knobs *k,
	       const struct rt_sample *s, struct rt_decision *d);

#endif
