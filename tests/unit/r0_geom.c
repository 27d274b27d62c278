// SPDX-License-Identifier: GPL-2.0
/*
 * raid0_geom.h in user space.
 *
 * Pictures: a three-zone array (members of 1, 5 and 3 chunks) written
 * out by hand from the layout's definition, for both multi-zone layouts,
 * compared chunk by chunk with r0g_map().  Zone 1 starts at array chunk
 * 3, which its two members do not divide, so the layouts differ there.
 * Properties, for 1..8 members of random sizes and several chunk sizes
 * (powers of two and not), both layouts: the array holds exactly the
 * members' whole chunks; r0g_map() sends every array sector to a distinct
 * member sector inside that member's usable area (a bijection onto it);
 * the room it reports ends on a chunk boundary; the layouts agree
 * wherever r0g_layout_matters() says they may be taken for each other.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "raid0_geom.h"

static int failed, tests;

static void ok(bool cond, const char *what)
{
	tests++;
	if (!cond) {
		failed++;
		printf("not ok %d %s\n", tests, what);
	}
}

#define MAXN	8

struct geo_mem {
	struct r0g_zone zone[MAXN];
	u32 slot[MAXN * (MAXN + 1) / 2];
};

static void build(struct r0g *g, struct geo_mem *m, const u64 *size, u32 n,
		  u32 chunk, u32 layout)
{
	g->zone = m->zone;
	g->slot = m->slot;
	r0g_build(g, size, n, chunk);
	g->layout = layout;
}

/*
 * Members of 1, 5 and 3 chunks of 8 sectors.  Zone 0: chunks 0-2 on
 * members 0,1,2 (row 0).  Zone 1: members 1 and 2 from their chunk 1,
 * array chunks 3-6.  Zone 2: member 1 alone from its chunk 3, array
 * chunks 7-8.  "m@c": member m, member chunk c.
 */
static const char *const pic_alt[] = {
	"0@0", "1@0", "2@0", "1@1", "2@1", "1@2", "2@2", "1@3", "1@4",
};

static const char *const pic_orig[] = {
	"0@0", "1@0", "2@0", "2@1", "1@1", "2@2", "1@2", "1@3", "1@4",
};

static void check_picture(u32 layout, const char *const *pic, const char *name)
{
	const u64 size[] = { 8, 40, 24 };
	struct geo_mem m;
	struct r0g g;
	char what[128];
	u32 c;

	build(&g, &m, size, 3, 8, layout);
	snprintf(what, sizeof(what), "%s: 3 zones, 72 sectors", name);
	ok(g.nr_zones == 3 && r0g_sectors(&g) == 72, what);
	ok(r0g_layout_matters(&g), "a zone of two members after zone 0: layout matters");
	for (c = 0; c < 9; c++) {
		u32 room, mem, mchunk;
		u64 dev;
		char got[16];

		mem = r0g_map(&g, (u64)c * 8 + 3, &dev, &room);
		mchunk = (u32)(dev / 8);
		snprintf(got, sizeof(got), "%u@%u", mem, mchunk);
		snprintf(what, sizeof(what), "%s: array chunk %u at %s (want %s), sector 3 of it, room 5",
			 name, c, got, pic[c]);
		ok(!strcmp(got, pic[c]) && dev % 8 == 3 && room == 5, what);
	}
}

static u64 rnd(u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void check_properties(void)
{
	static const u32 chunks[] = { 1, 8, 24, 128 };
	u64 seed = 0x9e3779b97f4a7c15ULL;
	int round;

	for (round = 0; round < 400; round++) {
		u32 n = 1 + rnd(&seed) % MAXN, chunk = chunks[round % 4], i;
		u64 size[MAXN], usable = 0, s, total;
		struct geo_mem m, m2;
		struct r0g g, g2;
		unsigned char *seen[MAXN];
		bool bij = true, inside = true, room_ok = true, agree = true;
		char what[160];

		for (i = 0; i < n; i++) {
			/* few distinct sizes, so zones have several members */
			size[i] = (1 + rnd(&seed) % 4) * 3 * chunk +
				  rnd(&seed) % chunk;
			usable += r0g_usable(size[i], chunk);
			seen[i] = calloc(size[i] + 1, 1);
		}
		build(&g, &m, size, n, chunk, (round & 1) ? R0G_ALT : R0G_ORIG);
		build(&g2, &m2, size, n, chunk, (round & 1) ? R0G_ORIG : R0G_ALT);
		total = r0g_sectors(&g);
		snprintf(what, sizeof(what), "round %d: %u members, chunk %u: %llu array sectors = the members' whole chunks %llu",
			 round, n, chunk, (unsigned long long)total,
			 (unsigned long long)usable);
		ok(total == usable, what);
		for (s = 0; s < total; s++) {
			u32 room, room2, mem, mem2;
			u64 dev, dev2;

			mem = r0g_map(&g, s, &dev, &room);
			mem2 = r0g_map(&g2, s, &dev2, &room2);
			if (mem >= n || dev >= r0g_usable(size[mem], chunk)) {
				inside = false;
				continue;
			}
			if (seen[mem][dev])
				bij = false;
			seen[mem][dev] = 1;
			if (!room || room > chunk || (s + room) % chunk)
				room_ok = false;
			if (!r0g_layout_matters(&g) &&
			    (mem != mem2 || dev != dev2))
				agree = false;
		}
		snprintf(what, sizeof(what), "round %d: every array sector inside a member's whole chunks", round);
		ok(inside, what);
		snprintf(what, sizeof(what), "round %d: no member sector mapped twice", round);
		ok(bij, what);
		snprintf(what, sizeof(what), "round %d: room ends on a chunk boundary", round);
		ok(room_ok, what);
		snprintf(what, sizeof(what), "round %d: layouts agree when r0g_layout_matters() is false", round);
		ok(agree, what);
		for (i = 0; i < n; i++)
			free(seen[i]);
	}
}

static void check_degenerate(void)
{
	const u64 tiny[] = { 7, 3 };
	const u64 same[] = { 64, 64, 64 };
	const u64 one_tail[] = { 16, 48 };
	struct geo_mem m;
	struct r0g g;

	g.zone = m.zone;
	g.slot = m.slot;
	ok(r0g_build(&g, tiny, 2, 8) == 0 && r0g_sectors(&g) == 0,
	   "members smaller than a chunk make no zone");
	build(&g, &m, same, 3, 16, R0G_ORIG);
	ok(g.nr_zones == 1 && !r0g_layout_matters(&g) &&
	   r0g_sectors(&g) == 192, "equal members: one zone, layout does not matter");
	build(&g, &m, one_tail, 2, 16, R0G_ORIG);
	ok(g.nr_zones == 2 && !r0g_layout_matters(&g),
	   "a second zone of one member: layout does not matter");
}

int main(void)
{
	check_picture(R0G_ALT, pic_alt, "alternate");
	check_picture(R0G_ORIG, pic_orig, "original");
	check_degenerate();
	check_properties();
	printf("# r0_geom: %d checks, %d failed\n", tests, failed);
	return failed ? 1 : 0;
}
