// SPDX-License-Identifier: GPL-2.0
/*
 * resync_throttle: simple policy (ceiling at speed_max; while foreground
 * IO is seen and we are above speed_min, pause briefly).  The idle-aware
 * policy replaces it behind the same interface.
 */
#include "resync_throttle.h"

#define RT_WINDOW_NS	(3ULL * 1000 * 1000 * 1000)
#define RT_PAUSE_NS	(10ULL * 1000 * 1000)

void rt_init(struct resync_throttle *rt, const struct rt_sample *s)
{
	rt->mark_ns = s->now_ns;
	rt->mark_sectors = s->sync_done_sectors;
	rt->last_fg_completed = s->fg_completed;
	rt->last.max_inflight = 0;
	rt->last.wait_ns = 0;
	rt->last.fg_active = false;
	rt->stats.throttled_ns = 0;
	rt->stats.fg_active_samples = 0;
	rt->stats.samples = 0;
}

/* KiB/s since the window mark; 0 until a millisecond has passed. */
static u64 rt_speed_kbs(const struct resync_throttle *rt,
			const struct rt_sample *s)
{
	u64 dt = s->now_ns - rt->mark_ns;
	u64 kib = (s->sync_done_sectors - rt->mark_sectors) / 2;

	if (dt < 1000000)
		return 0;
	return div64_u64(kib * 1000000000ULL, dt);
}

void rt_decide(struct resync_throttle *rt, const struct rt_knobs *k,
	       const struct rt_sample *s, struct rt_decision *d)
{
	u64 speed = rt_speed_kbs(rt, s);

	d->fg_active = s->fg_inflight || s->fg_completed != rt->last_fg_completed;
	d->max_inflight = k->io_depth ? k->io_depth : 1;
	d->wait_ns = 0;

	if (speed > k->speed_max_kbs)
		d->wait_ns = RT_PAUSE_NS;
	else if (d->fg_active && speed > k->speed_min_kbs)
		d->wait_ns = RT_PAUSE_NS;

	rt->last_fg_completed = s->fg_completed;
	if (s->now_ns - rt->mark_ns > RT_WINDOW_NS) {
		rt->mark_ns = s->now_ns;
		rt->mark_sectors = s->sync_done_sectors;
	}
	rt->stats.samples++;
	if (d->fg_active)
		rt->stats.fg_active_samples++;
	rt->stats.throttled_ns += d->wait_ns;
	rt->last = *d;
}
