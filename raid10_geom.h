/* SPDX-License-Identifier: GPL-2.0 */
/*
 * RAID10 geometry: where the copies of each array sector live.
 *
 * On-disk format shared with in-tree md and mdadm, so pure functions of
 * the layout word, the chunk, the member count and the member size,
 * built unchanged by tests/unit/ (raid10_geom_seam.h).
 *
 * The layout word: near copies in bits 0-7, far copies in bits 8-15,
 * bit 16 "offset", bits 17-18 the far-set variant, nothing above.  Each
 * chunk has copies = near * far copies, 2 <= copies <= raid_disks.
 *
 * Near.  Each array chunk is repeated near times and the repeats are
 * dealt to the members round robin, raid0 style: copy n of chunk c is
 * slot j = c * near + n, on member j % raid_disks in row j / raid_disks
 * (a row is one chunk on every member).  A chunk whose near copies run
 * past the last member goes on at member 0 one chunk further down.
 *
 * Far.  Each member is cut into far areas of stride sectors.  Area 0
 * holds the near rows; area f holds them again, row r at f * stride + r,
 * every chunk moved from member d to step^f(d), where step(d) adds near
 * to d and wraps inside d's far set.  Offset: no areas; stride is one
 * chunk, near row r sits at member row r * far and its far copies in
 * the far - 1 rows below it.
 *
 * Far sets.  Variant 0: one set of every member (mdadm's n, f and o
 * layouts).  Variant 2: sets of near * far members.  Variant 1 (an
 * earlier attempt md still runs): sets of raid_disks / far.  The last
 * set also takes the members left over.  md's step wraps in the last set
 * whenever d + near lands past that set's first member, whichever set d
 * was in; its reverse map picks the set from the member alone.
 *
 * Order.  r10g_map() lists the copies as md does: near copy 0 and its
 * far copies 1 .. far - 1, then near copy 1 and its far copies, and so
 * on.  Read balancing and resync go by this order.
 *
 * Size.  md takes the member's whole chunks, divides by far (rounding
 * down: S), multiplies by raid_disks and divides by near (rounding
 * down): the array's chunks.  The members use ceil(chunks * copies /
 * raid_disks) chunks, which comes to S * far, and stride is S chunks.
 * md saves the used size as the member size; the same sizes follow.
 *
 * Why it is a bijection.  Near slots are one to one with (member, row)
 * cells taken in order, and there are at most S * raid_disks of them,
 * so the near rows fit in S rows, below area 1.  Each far area (offset:
 * the rows of one residue modulo far) is the near rows again with the
 * members permuted by step^f: no cell used twice as long as step is a
 * permutation, and the reverse map undoes it where it inverts step.  In
 * variant 0 copy f * near + n of a chunk starting on member d is on
 * member d + f * near + n (mod raid_disks), all different since copies
 * <= raid_disks.  Shapes md accepts break this in three ways:
 * variant-1 sets narrower than copies (copies share a member), uneven
 * last sets (e.g. n2f2 in sets of 4 on 9 members: step is no
 * permutation, or the reverse map disagrees), and offset with near > 1
 * not dividing raid_disks (a wrapped near copy goes one chunk down, onto
 * a far copy's row).  r10g_sound() finds them; the map still reproduces
 * md's placement for them.
 */
#ifndef _MD_RAID10_GEOM_H
#define _MD_RAID10_GEOM_H

#include "raid10_geom_seam.h"

/* Layout word fields. */
#define R10G_NEAR(l)		((l) & 0xff)
#define R10G_FAR(l)		(((l) >> 8) & 0xff)
#define R10G_OFFSET		0x10000U
#define R10G_SETS(l)		(((l) >> 17) & 3)
/* near 2, far 1: the layout of a RAID0 taken over (and the only one back) */
#define R10G_NEAR2		0x102

/* Why r10g_init() refused a shape; r10g_why() words it for the log. */
enum r10g_err {
	R10G_OK,
	R10G_E_BITS,		/* a layout bit above 18 is set */
	R10G_E_CHUNK,		/* chunk not a power of two >= one page */
	R10G_E_ZERO,		/* near or far copies of 0 */
	R10G_E_SETS,		/* far-set variant 3 */
	R10G_E_FEW,		/* fewer than two copies */
	R10G_E_MANY,		/* more copies than members */
};

/* What r10g_sound() found wrong with a shape md accepts. */
enum r10g_flaw {
	R10G_SOUND,
	R10G_SHARED,		/* two copies of a chunk on one member */
	R10G_OVERLAP,		/* two copies share a member sector */
	R10G_REVERSE,		/* md's reverse map names the wrong chunk */
};

struct r10g {
	u32 raid_disks;
	u32 near;		/* copies in consecutive slots */
	u32 far;		/* copies in later areas or rows */
	bool offset;		/* far copies in the next rows */
	u32 set;		/* members per far set */
	u32 last_start;		/* first member of the last far set */
	u32 last_size;		/* its members: set plus the remainder */
	u32 chunk_shift;	/* log2 of the chunk in sectors */
	/* from r10g_set_size() */
	u64 stride;		/* sectors from one far copy to the next */
	u64 dev_sectors;	/* sectors used on each member */
	u64 array_sectors;
};

/* One copy of an array sector. */
struct r10g_copy {
	u32 disk;		/* member slot */
	u64 sector;		/* on the member, data relative */
};

static inline const char *r10g_why(int err)
{
	switch (err) {
	case R10G_OK:
		return "valid";
	case R10G_E_BITS:
		return "unknown layout bits";
	case R10G_E_CHUNK:
		return "chunk size must be a power of 2 of at least PAGE_SIZE";
	case R10G_E_ZERO:
		return "near or far copies of 0";
	case R10G_E_SETS:
		return "unknown far-set layout";
	case R10G_E_FEW:
		return "fewer than 2 copies";
	case R10G_E_MANY:
		return "more copies than devices";
	}
	return "unknown error";
}

static inline u32 r10g_copies(const struct r10g *g)
{
	return g->near * g->far;
}

static inline u32 r10g_chunk(const struct r10g *g)
{
	return 1U << g->chunk_shift;
}

/*
 * Shape from the superblock's @layout and @chunk (sectors) on
 * @raid_disks members.  R10G_OK or the first rule broken, in md's order;
 * sizes stay 0 until r10g_set_size().
 */
static inline int r10g_init(struct r10g *g, u32 layout, u32 chunk,
			    u32 raid_disks)
{
	u32 near = R10G_NEAR(layout), far = R10G_FAR(layout);

	if (layout >> 19)
		return R10G_E_BITS;
	if (chunk < R10G_MIN_CHUNK || (chunk & (chunk - 1)))
		return R10G_E_CHUNK;
	if (!near || !far)
		return R10G_E_ZERO;
	if (R10G_SETS(layout) == 3)
		return R10G_E_SETS;
	if (near * far < 2)
		return R10G_E_FEW;
	if (near * far > raid_disks)
		return R10G_E_MANY;

	g->raid_disks = raid_disks;
	g->near = near;
	g->far = far;
	g->offset = layout & R10G_OFFSET;
	if (R10G_SETS(layout) == 0)
		g->set = raid_disks;
	else if (R10G_SETS(layout) == 1)
		g->set = raid_disks / far;
	else
		g->set = near * far;
	g->last_start = (raid_disks / g->set - 1) * g->set;
	g->last_size = g->set + raid_disks % g->set;
	for (g->chunk_shift = 0; chunk > 1; chunk >>= 1)
		g->chunk_shift++;
	g->stride = 0;
	g->dev_sectors = 0;
	g->array_sectors = 0;
	return R10G_OK;
}

/*
 * Array sectors @raid_disks members of @dev_sectors hold in this shape:
 * whole chunks, over far, times members, over near.
 */
static inline u64 r10g_size(const struct r10g *g, u64 dev_sectors,
			    u32 raid_disks)
{
	u64 chunks = dev_sectors >> g->chunk_shift;
	u32 rem;

	chunks = div_u64_rem(chunks, g->far, &rem) * raid_disks;
	chunks = div_u64_rem(chunks, g->near, &rem);
	return chunks << g->chunk_shift;
}

/* Sizes for members of @dev_sectors each (md's calc_sectors()). */
static inline void r10g_set_size(struct r10g *g, u64 dev_sectors)
{
	u64 used = r10g_size(g, dev_sectors, g->raid_disks) >> g->chunk_shift;
	u32 rem;

	used = div_u64_rem(used * r10g_copies(g) + g->raid_disks - 1,
			   g->raid_disks, &rem);
	g->dev_sectors = used << g->chunk_shift;
	if (g->offset)
		g->stride = r10g_chunk(g);
	else
		g->stride = div_u64_rem(used, g->far, &rem) << g->chunk_shift;
	g->array_sectors = r10g_size(g, g->dev_sectors, g->raid_disks);
}

/* The member one far copy after member @d. */
static inline u32 r10g_step(const struct r10g *g, u32 d)
{
	u32 start = d - d % g->set;

	d += g->near;
	if (g->last_size != g->set && d > g->last_start)
		return g->last_start + (d - g->last_start) % g->last_size;
	return start + (d - start) % g->set;
}

/*
 * The member that far copy @k on member @d was moved from, as md's
 * reverse map finds it (its far set chosen by @d before the move).  May
 * be negative for unsound shapes.
 */
static inline s64 r10g_unstep(const struct r10g *g, u32 d, u32 k)
{
	s64 start = d - d % g->set, size = g->set, dev = d;

	if (g->last_size != g->set && d >= g->last_start) {
		start = g->last_start;
		size = g->last_size;
	}
	if (g->offset) {
		dev -= (s64)k * g->near;
		return dev < start ? dev + size : dev;
	}
	while (k--) {
		if (dev < start + g->near)
			dev += size - g->near;
		else
			dev -= g->near;
	}
	return dev;
}

/*
 * The r10g_copies() copies of array @sector into @copy, in md's slot
 * order (near copy, then its far copies, then the next near copy).
 */
static inline void r10g_map(const struct r10g *g, u64 sector,
			    struct r10g_copy *copy)
{
	u64 chunk = r10g_chunk(g), row, at;
	u32 dev, n, f;

	row = div_u64_rem((sector >> g->chunk_shift) * g->near,
			  g->raid_disks, &dev);
	if (g->offset)
		row *= g->far;
	at = (row << g->chunk_shift) + (sector & (chunk - 1));
	for (n = 0; n < g->near; n++) {
		u32 d = dev;
		u64 s = at;

		copy->disk = d;
		copy->sector = s;
		copy++;
		for (f = 1; f < g->far; f++) {
			d = r10g_step(g, d);
			s += g->stride;
			copy->disk = d;
			copy->sector = s;
			copy++;
		}
		/* md goes one chunk down, even in the offset layout */
		if (++dev == g->raid_disks) {
			dev = 0;
			at += chunk;
		}
	}
}

/*
 * The array sector stored at @sector of member @disk (md's reverse map)
 * in *@out; false where the member holds no data there.
 */
static inline bool r10g_virt(const struct r10g *g, u32 disk, u64 sector,
			     u64 *out)
{
	u64 mask = r10g_chunk(g) - 1, row;
	u32 k = 0;
	s64 dev;

	if (disk >= g->raid_disks || sector >= g->dev_sectors)
		return false;
	row = sector >> g->chunk_shift;
	if (g->offset) {
		row = div_u64_rem(row, g->far, &k);
	} else {
		while (sector >= g->stride && k + 1 < g->far) {
			sector -= g->stride;
			k++;
		}
		if (sector >= g->stride)
			return false;
		row = sector >> g->chunk_shift;
	}
	dev = r10g_unstep(g, disk, k);
	if (dev < 0 && row * g->raid_disks < (u64)-dev)
		return false;
	row = div_u64_rem(row * g->raid_disks + dev, g->near, &k);
	row = (row << g->chunk_shift) + (sector & mask);
	if (row >= g->array_sectors)
		return false;
	*out = row;
	return true;
}

/*
 * Sectors from array @sector that are contiguous on every copy: to the
 * chunk's end, or to the array's end when every member holds it all.
 */
static inline u64 r10g_room(const struct r10g *g, u64 sector)
{
	u64 chunk = r10g_chunk(g);

	if (g->near == g->raid_disks)
		return sector < g->array_sectors ? g->array_sectors - sector : 0;
	return chunk - (sector & (chunk - 1));
}

/*
 * Whether every chunk keeps a copy on a member marked in @working
 * (raid_disks entries).  Exact: the chunks repeat their members with
 * the first member stepping by near, and each one's copies are walked.
 */
static inline bool r10g_enough(const struct r10g *g, const bool *working)
{
	u32 first = 0;

	do {
		u32 d = first, n, f;
		bool any = false;

		for (n = 0; n < g->near && !any; n++) {
			u32 e = d;

			any = working[e];
			for (f = 1; f < g->far && !any; f++) {
				e = r10g_step(g, e);
				any = working[e];
			}
			if (++d == g->raid_disks)
				d = 0;
		}
		if (!any)
			return false;
		first = (first + g->near) % g->raid_disks;
	} while (first);
	return true;
}

/*
 * md's own answer: every run of copies members from a chunk's first
 * member has one working.  The same as r10g_enough() in far-set
 * variant 0; with far sets it refuses some arrays that still have every
 * chunk and, when the last set is wider, passes some that lost one.
 */
static inline bool r10g_enough_md(const struct r10g *g, const bool *working)
{
	u32 first = 0;

	do {
		u32 d = first, n, cnt = 0;

		for (n = 0; n < r10g_copies(g); n++) {
			cnt += working[d];
			d = (d + 1) % g->raid_disks;
		}
		if (!cnt)
			return false;
		first = (first + g->near) % g->raid_disks;
	} while (first);
	return true;
}

/*
 * Whether md's layout for this shape keeps copies apart and its reverse
 * map true; R10G_SOUND or the first flaw.  @mark: raid_disks entries of
 * caller's memory.  O(raid_disks * copies), for setup.
 */
static inline int r10g_sound(const struct r10g *g, u32 *mark)
{
	u32 first = 0, stamp = 1, d, f;

	/* a near copy wrapped one chunk down lands on a far copy's row */
	if (g->offset && g->far > 1 && g->raid_disks % g->near)
		return R10G_OVERLAP;
	/* step must permute the members */
	for (d = 0; d < g->raid_disks; d++)
		mark[d] = 0;
	for (d = 0; d < g->raid_disks && g->far > 1; d++) {
		if (mark[r10g_step(g, d)])
			return R10G_OVERLAP;
		mark[r10g_step(g, d)] = 1;
	}
	for (d = 0; d < g->raid_disks; d++) {
		u32 e = d;

		for (f = 1; f < g->far; f++) {
			e = r10g_step(g, e);
			if (r10g_unstep(g, e, f) != d)
				return R10G_REVERSE;
		}
	}
	do {
		u32 n;

		stamp++;
		d = first;
		for (n = 0; n < g->near; n++) {
			u32 e = d;

			for (f = 0; f < g->far; f++) {
				if (f)
					e = r10g_step(g, e);
				if (mark[e] == stamp)
					return R10G_SHARED;
				mark[e] = stamp;
			}
			if (++d == g->raid_disks)
				d = 0;
		}
		first = (first + g->near) % g->raid_disks;
	} while (first);
	return R10G_SOUND;
}

#endif
