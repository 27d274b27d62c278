// SPDX-License-Identifier: GPL-2.0
/*
 * md_sample MD INTERVAL_MS DURATION_MS [until-idle]
 *
 * Samples an md array every INTERVAL_MS for DURATION_MS (for the resync
 * throttle benchmark) and prints one line per sample:
 *
 *   T_MS POS_KIB TOTAL_KIB READS WRITES ACTION
 *
 * T_MS is CLOCK_MONOTONIC ms since the start; POS_KIB/TOTAL_KIB the sync
 * progress "(pos/total)" from /proc/mdstat (-1 -1 when no sync runs);
 * READS/WRITES the completed IOs of /sys/block/MD/stat (foreground IO of
 * the array only: sync IO goes to the members); ACTION md/sync_action.
 * With "until-idle" it stops at the first sample reading "idle" after one
 * that did not.  Works the same on in-tree md and this stack.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* "(pos/total)" on the lines of MD in /proc/mdstat */
static void mdstat_pos(const char *md, long long *pos, long long *total)
{
	char line[512];
	size_t mdlen = strlen(md);
	int in = 0;
	FILE *f;

	*pos = -1;
	*total = -1;
	f = fopen("/proc/mdstat", "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *p;

		if (!strncmp(line, md, mdlen) && line[mdlen] == ' ') {
			in = 1;
			continue;
		}
		if (!in)
			continue;
		if (line[0] == '\n')
			break;
		p = strchr(line, '(');
		if (p && sscanf(p, "(%lld/%lld)", pos, total) == 2)
			break;
		*pos = -1;
		*total = -1;
	}
	fclose(f);
}

static void disk_ios(const char *md, long long *rd, long long *wr)
{
	char path[256];
	long long v[8];
	FILE *f;

	*rd = -1;
	*wr = -1;
	snprintf(path, sizeof(path), "/sys/block/%s/stat", md);
	f = fopen(path, "r");
	if (!f)
		return;
	if (fscanf(f, "%lld %lld %lld %lld %lld", &v[0], &v[1], &v[2], &v[3],
		   &v[4]) == 5) {
		*rd = v[0];
		*wr = v[4];
	}
	fclose(f);
}

static void sync_action(const char *md, char *buf, size_t len)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/block/%s/md/sync_action", md);
	strncpy(buf, "none", len);
	f = fopen(path, "r");
	if (!f)
		return;
	if (fgets(buf, len, f))
		buf[strcspn(buf, "\n")] = 0;
	fclose(f);
}

int main(int argc, char **argv)
{
	long long t0, next, interval, duration, pos, total, rd, wr;
	int until_idle, busy_seen = 0;
	const char *md;
	char act[64];

	if (argc < 4) {
		fprintf(stderr,
			"usage: %s MD INTERVAL_MS DURATION_MS [until-idle]\n",
			argv[0]);
		return 2;
	}
	md = argv[1];
	interval = atoll(argv[2]) * 1000000LL;
	duration = atoll(argv[3]) * 1000000LL;
	until_idle = argc > 4 && !strcmp(argv[4], "until-idle");
	if (interval <= 0)
		interval = 100000000LL;
	setvbuf(stdout, NULL, _IOLBF, 0);
	t0 = now_ns();
	next = t0;
	for (;;) {
		long long t = now_ns();
		struct timespec ts;

		mdstat_pos(md, &pos, &total);
		disk_ios(md, &rd, &wr);
		sync_action(md, act, sizeof(act));
		printf("%lld %lld %lld %lld %lld %s\n", (t - t0) / 1000000,
		       pos, total, rd, wr, act);
		if (strcmp(act, "idle"))
			busy_seen = 1;
		else if (until_idle && busy_seen)
			break;
		if (t - t0 >= duration)
			break;
		next += interval;
		t = now_ns();
		if (next > t) {
			ts.tv_sec = (next - t) / 1000000000LL;
			ts.tv_nsec = (next - t) % 1000000000LL;
			nanosleep(&ts, NULL);
		}
	}
	return 0;
}
