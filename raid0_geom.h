/* SPDX-License-Identifier: GPL-2.0 */
/*
 * RAID0 geometry: where each array sector lives on the members.
 *
 * On-disk format shared with in-tree md and mdadm, so a pure function of
 * the members' sizes, the chunk and the layout, built unchanged by
 * tests/unit/ (raid0_geom_seam.h).
 *
 * Members may differ in size.  Each contributes its usable sectors
 * rounded down to a whole chunk.  The array is cut into zones: zone 0
 * stripes over every member up to the smallest size; each following zone
 * stripes over the members still larger, from where the previous zone
 * ended on them up to the next smallest size.  Within a zone, members
 * take chunks round robin in slot order.  A zone's array length is a
 * whole number of chunks, so chunk boundaries of the array and of every
 * zone coincide.
 *
 * The multi-zone layouts.  Row r of a zone holds its chunks
 * r * nr .. r * nr + nr - 1 at member sector dev_start + r * chunk; which
 * member gets which chunk of the row is counted from the array's start
 * (R0G_ORIG: md's layout before Linux 3.14, chunk number of the array
 * sector) or from the zone's start (R0G_ALT: the layout 3.14 introduced
 * by accident, chunk number within the zone).  In zone 0, and in a zone
 * of one member, both give the same answer, so a single-zone array (all
 * members the same size) has one layout whatever the superblock says.
 * For the others the layout must be known: an array made before Linux
 * 5.4 records none, and reading it with the wrong one returns other
 * data.  raid0.c refuses to start such an array unless the admin names
 * the layout (raid0.default_layout), as in-tree md does.
 */
#ifndef _MD_RAID0_GEOM_H
#define _MD_RAID0_GEOM_H

#include "raid0_geom_seam.h"

/* Layout numbers as stored in the superblock. */
enum r0g_layout {
	R0G_UNKNOWN	= 0,	/* none recorded (or 0.90 without one) */
	R0G_ORIG	= 1,	/* mdadm --layout=original */
	R0G_ALT		= 2,	/* mdadm --layout=alternate */
};

struct r0g_zone {
	u64 array_end;		/* array sector where the next zone starts */
	u64 dev_start;		/* member sector where this zone starts */
	u32 nr;			/* members in the zone */
	u32 first;		/* its members: slot[first .. first + nr) */
};

struct r0g {
	u32 chunk;		/* sectors, > 0 */
	u32 layout;		/* R0G_ORIG or R0G_ALT once built */
	u32 nr_zones;
	struct r0g_zone *zone;	/* nr_zones entries, caller's memory */
	u32 *slot;		/* member slots per zone, caller's memory */
};

/* Entries r0g_build() may use in ->zone and ->slot for @n members. */
static inline u32 r0g_max_zones(u32 n)
{
	return n;
}

static inline u32 r0g_max_slots(u32 n)
{
	return n * (n + 1) / 2;
}

/* @sectors rounded down to a whole chunk. */
static inline u64 r0g_usable(u64 sectors, u32 chunk)
{
	u32 rem;

	div_u64_rem(sectors, chunk, &rem);
	return sectors - rem;
}

/*
 * Zones for @n members of @size sectors each (slot order), @chunk sectors
 * per chunk.  @g->zone and @g->slot must have room for r0g_max_zones()
 * and r0g_max_slots() entries.  Members of 0 usable sectors make no zone.
 * Returns the number of zones, 0 if no member has a whole chunk.
 */
static inline u32 r0g_build(struct r0g *g, const u64 *size, u32 n, u32 chunk)
{
	u64 start = 0, array = 0;
	u32 z = 0, used = 0, i;

	g->chunk = chunk;
	for (;;) {
		u64 next = 0;
		u32 nr = 0;

		/* the smallest size above start: this zone's end */
		for (i = 0; i < n; i++) {
			u64 s = r0g_usable(size[i], chunk);

			if (s > start && (!next || s < next))
				next = s;
		}
		if (!next)
			break;
		for (i = 0; i < n; i++)
			if (r0g_usable(size[i], chunk) > start)
				g->slot[used + nr++] = i;
		array += (next - start) * nr;
		g->zone[z].array_end = array;
		g->zone[z].dev_start = start;
		g->zone[z].nr = nr;
		g->zone[z].first = used;
		used += nr;
		start = next;
		z++;
	}
	g->nr_zones = z;
	return z;
}

/* Array sectors of the built geometry. */
static inline u64 r0g_sectors(const struct r0g *g)
{
	return g->nr_zones ? g->zone[g->nr_zones - 1].array_end : 0;
}

/*
 * Whether the layout matters: a zone after the first with more than one
 * member numbers its chunks differently in the two layouts.
 */
static inline bool r0g_layout_matters(const struct r0g *g)
{
	u32 z;

	for (z = 1; z < g->nr_zones; z++)
		if (g->zone[z].nr > 1)
			return true;
	return false;
}

/*
 * The member slot holding array sector @sector (< r0g_sectors()); its
 * sector on that member in *@dev (data relative) and the sectors left in
 * its chunk in *@room.
 */
static inline u32 r0g_map(const struct r0g *g, u64 sector, u64 *dev,
			  u32 *room)
{
	const struct r0g_zone *zn = g->zone;
	u64 zstart = 0, off, chunk_no, row;
	u32 in_chunk, idx;

	while (sector >= zn->array_end) {
		zstart = zn->array_end;
		zn++;
	}
	off = sector - zstart;
	chunk_no = div_u64_rem(off, g->chunk, &in_chunk);
	row = div_u64_rem(chunk_no, zn->nr, &idx);
	if (g->layout == R0G_ORIG)
		div_u64_rem(div_u64_rem(sector, g->chunk, &in_chunk), zn->nr,
			    &idx);
	*dev = zn->dev_start + row * g->chunk + in_chunk;
	*room = g->chunk - in_chunk;
	return g->slot[zn->first + idx];
}

#endif
