/* SPDX-License-Identifier: GPL-2.0 */
/*
 * RAID4/5/6 geometry: where each array sector lives on the members.
 *
 * This is on-disk format, shared with in-tree md and mdadm, so it is a
 * pure function of (level, layout, raid_disks, chunk) with no state and
 * no kernel dependencies: tests/unit/ builds raid5_geom.c unchanged
 * (raid5_geom_seam.h) and checks it against the documented layouts.
 *
 * Vocabulary.  The array is cut into chunks of chunk_sectors; a "row" is
 * one chunk on every member (data_disks data chunks plus the parity
 * chunk(s)), so array chunk c is data chunk k = c % data_disks of row
 * c / data_disks, and sits at member sector row * chunk + offset on the
 * member the layout assigns to (row, k).  RAID6 additionally orders the
 * data members for the Q syndrome ("syndrome slot"): walking up from
 * the member after Q (member 0 when Q is the last one), data members
 * take slots 0, 1, ... in the order met; that is the order md has
 * always fed them to the syndrome, and it differs from k for the
 * asymmetric layouts.  The DDF layouts (SNIA DDF's RAID6 rotations)
 * instead give each data member its member number as slot, so the
 * syndrome runs over raid_disks slots of which the two holding P and Q
 * count as zero pages: r5g_syndrome_width() is then raid_disks + 2.
 */
#ifndef _MD_RAID5_GEOM_H
#define _MD_RAID5_GEOM_H

#include "raid5_geom_seam.h"

/* Layout numbers as stored in the superblock (mdadm --layout names). */
enum r5g_layout {
	R5G_LEFT_ASYMMETRIC	= 0,
	R5G_RIGHT_ASYMMETRIC	= 1,
	R5G_LEFT_SYMMETRIC	= 2,
	R5G_RIGHT_SYMMETRIC	= 3,
	R5G_PARITY_FIRST	= 4,
	R5G_PARITY_LAST		= 5,
	/* RAID6 DDF layouts: P right-asymmetric, Q after P; P left-
	 * asymmetric from row -1, Q after P; P left, Q before P, data
	 * symmetric after P
	 */
	R5G_DDF_ZERO_RESTART	= 8,
	R5G_DDF_N_RESTART	= 9,
	R5G_DDF_N_CONTINUE	= 10,
	/* RAID6: the RAID5 layout on the first raid_disks - 1, Q last */
	R5G_LEFT_ASYMMETRIC_6	= 16,
	R5G_RIGHT_ASYMMETRIC_6	= 17,
	R5G_LEFT_SYMMETRIC_6	= 18,
	R5G_RIGHT_SYMMETRIC_6	= 19,
	R5G_PARITY_FIRST_6	= 20,
};

/* Role of a member in a row, besides a data index 0..data_disks-1. */
#define R5G_P	(-1)
#define R5G_Q	(-2)

struct r5geom {
	int level;		/* 4, 5 or 6 */
	int layout;		/* enum r5g_layout */
	int raid_disks;
	int data_disks;		/* raid_disks - max_degraded */
	int max_degraded;	/* 1 for RAID4/5, 2 for RAID6 */
	u32 chunk_sectors;	/* power of two */
	bool ddf;		/* a DDF layout: syndrome slot = member */
};

/* Parity placement of one row. */
struct r5g_row {
	int pd;			/* P member */
	int qd;			/* Q member, -1 without Q */
	int span;		/* members the data rotation wraps over */
	bool symmetric;		/* data starts after parity and wraps */
};

/*
 * Fill @g; returns 0 or -EINVAL with *why saying what is unsupported
 * (the caller logs it).  chunk_sectors must be a power of two of at least
 * @min_chunk sectors.
 */
int r5g_init(struct r5geom *g, int level, int layout, int raid_disks,
	     u32 chunk_sectors, u32 min_chunk, const char **why);

void r5g_row(const struct r5geom *g, u64 row, struct r5g_row *r);
/* Member holding data chunk @k of a row. */
int r5g_data_dev(const struct r5geom *g, const struct r5g_row *r, int k);
/* Data index of member @dev in a row, or R5G_P / R5G_Q. */
int r5g_dev_role(const struct r5g_row *r, int dev);
/* RAID6 syndrome slot of data member @dev (see the file comment). */
int r5g_syndrome_slot(const struct r5geom *g, const struct r5g_row *r,
		      int dev);
/*
 * RAID6: blocks the syndrome is computed over, P and Q included (they
 * take the last two); slots no data member has are zero pages.
 */
static inline int r5g_syndrome_width(const struct r5geom *g)
{
	return g->ddf ? g->raid_disks + 2 : g->raid_disks;
}

/* Array sector -> member and member sector (sector within the member's data). */
void r5g_map(const struct r5geom *g, u64 array_sector, int *dev,
	     u64 *member_sector);
/* Member sector on data member @dev -> array sector; -1 for parity. */
s64 r5g_unmap(const struct r5geom *g, u64 member_sector, int dev);

/*
 * Write policy (md/rmw_level), not format, but as pure as the geometry so
 * tests/unit/ checks it too.  A write that leaves part of its row as it
 * is either reads the old data it replaces and P (read-modify-write:
 * P ^= old ^ new) or reads the rest of the row and computes P afresh
 * (reconstruct-write).  The values are in-tree's.
 */
enum r5g_rmw_level {
	R5G_RMW_OFF	= 0,	/* always reconstruct-write */
	R5G_RMW_CHEAPER	= 1,	/* RMW when it reads fewer pages; default */
	R5G_RMW_PREFER	= 2,	/* RMW also when it reads as many */
};

/*
 * RAID4/5: R5G_RMW_CHEAPER.  RAID6: R5G_RMW_OFF, the only level it has
 * here: Q is always computed from the whole row (no syndrome RMW), which
 * is what in-tree md reports for RAID6 where it cannot RMW either.
 */
int r5g_rmw_default(const struct r5geom *g);
/* May md/rmw_level be @level on this geometry? */
bool r5g_rmw_level_ok(const struct r5geom *g, unsigned long level);
/*
 * Use read-modify-write for one write operation?  @possible: the row
 * allows it at all (its parity is trusted, old data and P readable);
 * @rmw_reads, @rcw_reads: member pages each way must still read.
 */
bool r5g_use_rmw(const struct r5geom *g, int level, bool possible,
		 int rmw_reads, int rcw_reads);

#endif
