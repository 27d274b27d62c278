// SPDX-License-Identifier: GPL-2.0
/*
 * RAID4/5/6 geometry (see raid5_geom.h for the vocabulary).
 *
 * Why this is right: every supported layout is described by four numbers
 * per row, computed in r5g_row() straight from the layout's definition
 * in md(4):
 *   pd, qd    where P and Q sit.  "left" layouts move parity down from
 *             the last member one member per row, "right" ones up from
 *             member 0; parity-first/last keep it on the first/last
 *             member(s); RAID4 keeps P on the last member; the "-6"
 *             layouts are the RAID5 layout over all but the last member,
 *             which holds Q.
 *   symmetric data chunk 0 is on the member after the parity block(s),
 *             the rest follow, wrapping over the rotation's members
 *             (after Q too when Q follows P);
 *             otherwise ("asymmetric", and the fixed-parity layouts) data
 *             chunks fill the non-parity members in member order.
 *             The DDF layouts are rotations of the same kind: P right-
 *             asymmetric with Q after it (zero-restart), P left-
 *             asymmetric one row ahead with Q after it (N-restart), P
 *             left with Q before it and data symmetric (N-continue).
 * Everything else (data member of chunk k, the inverse, the syndrome
 * slot) is derived from those four numbers by one rule each, so there is
 * no per-layout special case to get wrong twice.  tests/unit/r5_geom.c
 * checks the rows against the pictures of the layouts and checks that
 * map and unmap are inverse bijections for every supported geometry.
 */
#include "raid5_geom.h"

static bool r5g_layout_ok(int level, int layout)
{
	switch (level) {
	case 4:
		/* mdadm records 0 or parity-last; both put P last */
		return layout == 0 || layout == R5G_PARITY_LAST;
	case 5:
		return layout >= R5G_LEFT_ASYMMETRIC &&
		       layout <= R5G_PARITY_LAST;
	case 6:
		return (layout >= R5G_LEFT_ASYMMETRIC &&
			layout <= R5G_PARITY_LAST) ||
		       (layout >= R5G_DDF_ZERO_RESTART &&
			layout <= R5G_DDF_N_CONTINUE) ||
		       (layout >= R5G_LEFT_ASYMMETRIC_6 &&
			layout <= R5G_PARITY_FIRST_6);
	}
	return false;
}

int r5g_init(struct r5geom *g, int level, int layout, int raid_disks,
	     u32 chunk_sectors, u32 min_chunk, const char **why)
{
	int parity = level == 6 ? 2 : 1;

	*why = NULL;
	if (level != 4 && level != 5 && level != 6)
		*why = "level is not 4, 5 or 6";
	else if (!r5g_layout_ok(level, layout))
		*why = "unknown or unsupported layout";
	else if (raid_disks < (level == 6 ? 4 : 2))
		*why = level == 6 ? "RAID6 needs at least 4 members" :
		       "RAID4/5 need at least 2 members";
	else if (!chunk_sectors || (chunk_sectors & (chunk_sectors - 1)))
		*why = "chunk size is not a power of two";
	else if (chunk_sectors < min_chunk)
		*why = "chunk size is smaller than a page";
	if (*why)
		return -EINVAL;

	g->level = level;
	g->layout = layout;
	g->raid_disks = raid_disks;
	g->max_degraded = parity;
	g->data_disks = raid_disks - parity;
	g->chunk_sectors = chunk_sectors;
	g->ddf = level == 6 && layout >= R5G_DDF_ZERO_RESTART &&
		 layout <= R5G_DDF_N_CONTINUE;
	return 0;
}

/* The RAID5 part of a layout, over @span members starting at member 0. */
static void r5g_rotate(int layout, u64 row, int span, struct r5g_row *r)
{
	u32 rot;

	div_u64_rem(row, span, &rot);
	r->symmetric = false;
	switch (layout) {
	case R5G_LEFT_SYMMETRIC:
		r->symmetric = true;
		fallthrough;
	case R5G_LEFT_ASYMMETRIC:
		r->pd = span - 1 - (int)rot;
		break;
	case R5G_RIGHT_SYMMETRIC:
		r->symmetric = true;
		fallthrough;
	case R5G_RIGHT_ASYMMETRIC:
		r->pd = (int)rot;
		break;
	case R5G_PARITY_FIRST:
		r->pd = 0;
		break;
	default:		/* parity-last */
		r->pd = span - 1;
		break;
	}
}

void r5g_row(const struct r5geom *g, u64 row, struct r5g_row *r)
{
	int n = g->raid_disks;

	r->span = n;
	r->qd = -1;
	if (g->level == 4) {
		r->pd = n - 1;
		r->symmetric = false;
		return;
	}
	if (g->level == 5) {
		r5g_rotate(g->layout, row, n, r);
		return;
	}
	if (g->layout >= R5G_LEFT_ASYMMETRIC_6) {
		/* RAID5 rotation over the first n - 1 members, Q last */
		r5g_rotate(g->layout - R5G_LEFT_ASYMMETRIC_6, row, n - 1, r);
		r->span = n - 1;
		r->qd = n - 1;
		return;
	}
	switch (g->layout) {
	case R5G_DDF_ZERO_RESTART:
		r5g_rotate(R5G_RIGHT_ASYMMETRIC, row, n, r);
		r->qd = (r->pd + 1) % n;
		break;
	case R5G_DDF_N_RESTART:
		r5g_rotate(R5G_LEFT_ASYMMETRIC, row + 1, n, r);
		r->qd = (r->pd + 1) % n;
		break;
	case R5G_DDF_N_CONTINUE:
		r5g_rotate(R5G_LEFT_SYMMETRIC, row, n, r);
		r->qd = (r->pd + n - 1) % n;
		break;
	case R5G_PARITY_FIRST:
		r->pd = 0;
		r->qd = 1;
		r->symmetric = false;
		break;
	case R5G_PARITY_LAST:
		r->pd = n - 2;
		r->qd = n - 1;
		r->symmetric = false;
		break;
	default:
		/* P rotates as in RAID5; Q is the member after it */
		r5g_rotate(g->layout, row, n, r);
		r->qd = (r->pd + 1) % n;
		break;
	}
}

static bool r5g_is_parity(const struct r5g_row *r, int dev)
{
	return dev == r->pd || dev == r->qd;
}

/* Symmetric layouts: the member holding data chunk 0 of the row. */
static int r5g_first_data(const struct r5g_row *r)
{
	int first = (r->pd + 1) % r->span;

	/* a rotating Q right after P (never the fixed Q of "-6") */
	if (r->qd == first)
		first = (first + 1) % r->span;
	return first;
}

int r5g_data_dev(const struct r5geom *g, const struct r5g_row *r, int k)
{
	int dev;

	if (r->symmetric) {
		/* after the parity block(s) of the rotation, wrapping */
		return (r5g_first_data(r) + k) % r->span;
	}
	/* the k-th non-parity member in member order */
	for (dev = 0; dev < g->raid_disks; dev++) {
		if (r5g_is_parity(r, dev))
			continue;
		if (!k--)
			return dev;
	}
	return -1;
}

int r5g_dev_role(const struct r5g_row *r, int dev)
{
	int k;

	if (dev == r->pd)
		return R5G_P;
	if (dev == r->qd)
		return R5G_Q;
	if (r->symmetric)
		return ((dev - r5g_first_data(r)) % r->span + r->span) %
		       r->span;
	for (k = 0; dev > 0; dev--)
		if (!r5g_is_parity(r, dev - 1))
			k++;
	return k;
}

int r5g_syndrome_slot(const struct r5geom *g, const struct r5g_row *r,
		      int dev)
{
	int n = g->raid_disks;
	int start = r->qd == n - 1 ? 0 : r->qd + 1;
	int i, slot = 0;

	if (g->ddf)
		return dev;
	for (i = start; i != dev; i = (i + 1) % n)
		if (!r5g_is_parity(r, i))
			slot++;
	return slot;
}

void r5g_map(const struct r5geom *g, u64 array_sector, int *dev,
	     u64 *member_sector)
{
	u32 offset, k;
	u64 chunk, row;
	struct r5g_row r;

	chunk = div_u64_rem(array_sector, g->chunk_sectors, &offset);
	row = div_u64_rem(chunk, g->data_disks, &k);
	r5g_row(g, row, &r);
	*dev = r5g_data_dev(g, &r, (int)k);
	*member_sector = row * g->chunk_sectors + offset;
}

s64 r5g_unmap(const struct r5geom *g, u64 member_sector, int dev)
{
	struct r5g_row r;
	u32 offset;
	u64 row;
	int k;

	row = div_u64_rem(member_sector, g->chunk_sectors, &offset);
	r5g_row(g, row, &r);
	k = r5g_dev_role(&r, dev);
	if (k < 0)
		return -1;
	return (s64)((row * g->data_disks + k) * g->chunk_sectors + offset);
}

int r5g_rmw_default(const struct r5geom *g)
{
	return g->level == 6 ? R5G_RMW_OFF : R5G_RMW_CHEAPER;
}

bool r5g_rmw_level_ok(const struct r5geom *g, unsigned long level)
{
	if (g->level == 6)
		return level == R5G_RMW_OFF;
	return level <= R5G_RMW_PREFER;
}

bool r5g_use_rmw(const struct r5geom *g, int level, bool possible,
		 int rmw_reads, int rcw_reads)
{
	if (!possible || g->level == 6)
		return false;
	switch (level) {
	case R5G_RMW_CHEAPER:
		return rmw_reads < rcw_reads;
	case R5G_RMW_PREFER:
		return rmw_reads <= rcw_reads;
	}
	return false;
}
