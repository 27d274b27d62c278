// SPDX-License-Identifier: GPL-2.0
/*
 * raid5_geom.c in user space.
 *
 * Two kinds of checks.  Pictures: the first rows of some layouts written
 * out by hand from their md(4) definitions ("D3" = array chunk 3, "P",
 * "Q"), compared member by member with what r5g_map()/r5g_row() say.
 * Properties, for every supported level/layout and 3..10 members: the
 * data members of a row plus P (and Q) are all distinct, r5g_map() and
 * r5g_unmap() are inverse (so the mapping is a bijection of array
 * sectors onto data member sectors), r5g_dev_role() inverts
 * r5g_data_dev(), and the RAID6 syndrome slots of a row are a
 * permutation that equals the data index for the layouts where md's
 * syndrome order is the data order (symmetric, parity-first/last).
 * Bad geometries must be refused with a reason.
 *
 * The write policy (md/rmw_level): level 0 never reads-modifies-writes,
 * 1 only when that reads fewer pages, 2 also on a tie; none of them when
 * the row does not allow it; RAID6 never, defaults to 0 and takes no
 * other level; RAID4/5 default to 1 and take 0..2.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "raid5_geom.c"

static int failed, tests;

static void ok(bool cond, const char *fmt, const char *what)
{
	tests++;
	if (!cond) {
		failed++;
		printf("not ok %d %s %s\n", tests, fmt, what);
	}
}

/* One row of a picture: "D0 D1 D2 P", chunk numbers absolute. */
static bool row_matches(const struct r5geom *g, u64 row, const char *pic)
{
	char buf[128], *tok, *save = NULL;
	struct r5g_row r;
	int dev = 0;

	r5g_row(g, row, &r);
	snprintf(buf, sizeof(buf), "%s", pic);
	for (tok = strtok_r(buf, " ", &save); tok;
	     tok = strtok_r(NULL, " ", &save), dev++) {
		if (!strcmp(tok, "P")) {
			if (r.pd != dev)
				return false;
		} else if (!strcmp(tok, "Q")) {
			if (r.qd != dev)
				return false;
		} else {
			u64 chunk = strtoull(tok + 1, NULL, 10);
			u64 ms;
			int d;

			r5g_map(g, chunk * g->chunk_sectors + 3, &d, &ms);
			if (d != dev || ms != row * g->chunk_sectors + 3)
				return false;
		}
	}
	return dev == g->raid_disks;
}

struct picture {
	int level, layout, disks;
	const char *rows[6];
};

static const struct picture pictures[] = {
	{ 5, R5G_LEFT_SYMMETRIC, 4, { "D0 D1 D2 P", "D4 D5 P D3",
	  "D8 P D6 D7", "P D9 D10 D11", "D12 D13 D14 P" } },
	{ 5, R5G_LEFT_ASYMMETRIC, 4, { "D0 D1 D2 P", "D3 D4 P D5",
	  "D6 P D7 D8", "P D9 D10 D11" } },
	{ 5, R5G_RIGHT_ASYMMETRIC, 4, { "P D0 D1 D2", "D3 P D4 D5",
	  "D6 D7 P D8", "D9 D10 D11 P" } },
	{ 5, R5G_RIGHT_SYMMETRIC, 4, { "P D0 D1 D2", "D5 P D3 D4",
	  "D7 D8 P D6", "D9 D10 D11 P" } },
	{ 5, R5G_PARITY_FIRST, 3, { "P D0 D1", "P D2 D3" } },
	{ 5, R5G_PARITY_LAST, 3, { "D0 D1 P", "D2 D3 P" } },
	{ 4, 0, 4, { "D0 D1 D2 P", "D3 D4 D5 P" } },
	{ 6, R5G_LEFT_SYMMETRIC, 5, { "Q D0 D1 D2 P", "D3 D4 D5 P Q",
	  "D7 D8 P Q D6", "D11 P Q D9 D10", "P Q D12 D13 D14" } },
	{ 6, R5G_LEFT_ASYMMETRIC, 5, { "Q D0 D1 D2 P", "D3 D4 D5 P Q",
	  "D6 D7 P Q D8", "D9 P Q D10 D11", "P Q D12 D13 D14" } },
	{ 6, R5G_RIGHT_ASYMMETRIC, 5, { "P Q D0 D1 D2", "D3 P Q D4 D5",
	  "D6 D7 P Q D8", "D9 D10 D11 P Q", "Q D12 D13 D14 P" } },
	{ 6, R5G_RIGHT_SYMMETRIC, 5, { "P Q D0 D1 D2", "D5 P Q D3 D4",
	  "D7 D8 P Q D6", "D9 D10 D11 P Q", "Q D12 D13 D14 P" } },
	{ 6, R5G_PARITY_FIRST, 4, { "P Q D0 D1", "P Q D2 D3" } },
	{ 6, R5G_PARITY_LAST, 4, { "D0 D1 P Q", "D2 D3 P Q" } },
	{ 6, R5G_LEFT_SYMMETRIC_6, 5, { "D0 D1 D2 P Q", "D4 D5 P D3 Q",
	  "D8 P D6 D7 Q", "P D9 D10 D11 Q" } },
	{ 6, R5G_PARITY_FIRST_6, 4, { "P D0 D1 Q", "P D2 D3 Q" } },
	/* DDF: rotations of SNIA DDF 2.0's RAID-6 (PRL 06) */
	{ 6, R5G_DDF_ZERO_RESTART, 5, { "P Q D0 D1 D2", "D3 P Q D4 D5",
	  "D6 D7 P Q D8", "D9 D10 D11 P Q", "Q D12 D13 D14 P" } },
	{ 6, R5G_DDF_N_RESTART, 5, { "D0 D1 D2 P Q", "D3 D4 P Q D5",
	  "D6 P Q D7 D8", "P Q D9 D10 D11", "Q D12 D13 D14 P" } },
	{ 6, R5G_DDF_N_CONTINUE, 5, { "D0 D1 D2 Q P", "D4 D5 Q P D3",
	  "D8 Q P D6 D7", "Q P D9 D10 D11", "P D12 D13 D14 Q" } },
};

static void check_pictures(void)
{
	const char *why;
	size_t i;
	int j;

	for (i = 0; i < sizeof(pictures) / sizeof(pictures[0]); i++) {
		const struct picture *p = &pictures[i];
		struct r5geom g;
		char name[64];

		snprintf(name, sizeof(name), "level %d layout %d disks %d",
			 p->level, p->layout, p->disks);
		ok(!r5g_init(&g, p->level, p->layout, p->disks, 128, 8, &why),
		   "picture geometry accepted:", name);
		for (j = 0; j < 6 && p->rows[j]; j++)
			ok(row_matches(&g, j, p->rows[j]), "picture row:",
			   p->rows[j]);
	}
}

static bool is_identity_slot(const struct r5geom *g)
{
	return g->layout == R5G_LEFT_SYMMETRIC ||
	       g->layout == R5G_RIGHT_SYMMETRIC ||
	       g->layout == R5G_PARITY_FIRST || g->layout == R5G_PARITY_LAST;
}

/* Properties of one geometry over a few full rotations. */
static bool check_geometry(const struct r5geom *g)
{
	int n = g->raid_disks, rows = 3 * n, k, dev;
	u32 c = g->chunk_sectors;
	u64 s, row;
	char seen[16];

	for (row = 0; row < (u64)rows; row++) {
		struct r5g_row r;
		unsigned int slots = 0;

		r5g_row(g, row, &r);
		memset(seen, 0, sizeof(seen));
		if (r.pd < 0 || r.pd >= n)
			return false;
		seen[r.pd] = 1;
		if (g->level == 6) {
			if (r.qd < 0 || r.qd >= n || seen[r.qd])
				return false;
			seen[r.qd] = 1;
		} else if (r.qd != -1) {
			return false;
		}
		for (k = 0; k < g->data_disks; k++) {
			dev = r5g_data_dev(g, &r, k);
			if (dev < 0 || dev >= n || seen[dev])
				return false;
			seen[dev] = 1;
			if (r5g_dev_role(&r, dev) != k)
				return false;
			if (g->level == 6) {
				int slot = r5g_syndrome_slot(g, &r, dev);

				/* DDF: the member number, P and Q slots zero */
				if (g->ddf) {
					if (slot != dev)
						return false;
					continue;
				}
				if (slot < 0 || slot >= g->data_disks)
					return false;
				if (is_identity_slot(g) && slot != k)
					return false;
				slots |= 1u << slot;
			}
		}
		if (g->level == 6 && !g->ddf &&
		    slots != (1u << g->data_disks) - 1)
			return false;
		if (r5g_dev_role(&r, r.pd) != R5G_P)
			return false;
		if (g->level == 6 && r5g_dev_role(&r, r.qd) != R5G_Q)
			return false;
	}
	/* map/unmap are inverse over every sector of those rows */
	for (s = 0; s < (u64)rows * g->data_disks * c; s++) {
		u64 ms;

		r5g_map(g, s, &dev, &ms);
		if (ms / c != s / c / g->data_disks || ms % c != s % c)
			return false;
		if (r5g_unmap(g, ms, dev) != (s64)s)
			return false;
	}
	return true;
}

static void check_all(void)
{
	static const int layouts[] = { 0, 1, 2, 3, 4, 5, 8, 9, 10,
					16, 17, 18, 19, 20 };
	int level, n, did = 0, bad = 0;
	const char *why;
	size_t i;

	for (level = 4; level <= 6; level++)
		for (i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++)
			for (n = 3; n <= 10; n++) {
				struct r5geom g;

				if (r5g_init(&g, level, layouts[i], n, 16, 8,
					     &why))
					continue;
				did++;
				if (!check_geometry(&g)) {
					bad++;
					printf("# bad geometry level %d layout %d disks %d\n",
					       level, layouts[i], n);
				}
			}
	ok(did == 2 * 8 + 6 * 8 + 14 * 7 && !bad,
	   "every supported geometry is a bijection", "");
}

static void check_refusals(void)
{
	static const int bad[][4] = {
		/* level, layout, disks, chunk */
		{ 1, 0, 3, 128 }, { 0, 0, 3, 128 }, { 5, 6, 4, 128 },
		{ 5, 16, 4, 128 }, { 5, 8, 4, 128 }, { 5, 10, 4, 128 },
		{ 6, 11, 5, 128 }, { 6, 21, 5, 128 }, { 4, 1, 4, 128 },
		{ 5, 2, 1, 128 }, { 6, 2, 3, 128 }, { 5, 2, 4, 0 },
		{ 5, 2, 4, 96 }, { 5, 2, 4, 4 },
	};
	const char *why;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct r5geom g;
		char name[64];

		snprintf(name, sizeof(name), "level %d layout %d disks %d chunk %d",
			 bad[i][0], bad[i][1], bad[i][2], bad[i][3]);
		ok(r5g_init(&g, bad[i][0], bad[i][1], bad[i][2], bad[i][3], 8,
			    &why) == -EINVAL && why, "refused:", name);
	}
}

static void check_rmw_policy(void)
{
	struct r5geom g5, g4, g6;
	const char *why;
	int lvl, a, b;
	bool good = true;

	if (r5g_init(&g5, 5, R5G_LEFT_SYMMETRIC, 4, 128, 8, &why) ||
	    r5g_init(&g4, 4, 0, 4, 128, 8, &why) ||
	    r5g_init(&g6, 6, R5G_LEFT_SYMMETRIC, 5, 128, 8, &why)) {
		ok(false, "rmw policy: geometries", "");
		return;
	}
	ok(r5g_rmw_default(&g5) == R5G_RMW_CHEAPER &&
	   r5g_rmw_default(&g4) == R5G_RMW_CHEAPER &&
	   r5g_rmw_default(&g6) == R5G_RMW_OFF, "rmw policy: defaults", "");
	ok(r5g_rmw_level_ok(&g5, 0) && r5g_rmw_level_ok(&g5, 1) &&
	   r5g_rmw_level_ok(&g5, 2) && !r5g_rmw_level_ok(&g5, 3) &&
	   !r5g_rmw_level_ok(&g5, (unsigned long)-1) &&
	   r5g_rmw_level_ok(&g4, 2) && r5g_rmw_level_ok(&g6, 0) &&
	   !r5g_rmw_level_ok(&g6, 1) && !r5g_rmw_level_ok(&g6, 2),
	   "rmw policy: accepted levels", "");
	/* every level and read count pair, RAID4/5 and RAID6 */
	for (lvl = 0; lvl <= 3; lvl++)
		for (a = 0; a <= 4; a++)
			for (b = 0; b <= 4; b++) {
				bool want = (lvl == 1 && a < b) ||
					    (lvl == 2 && a <= b);

				good &= r5g_use_rmw(&g5, lvl, true, a, b) == want;
				good &= r5g_use_rmw(&g4, lvl, true, a, b) == want;
				good &= !r5g_use_rmw(&g5, lvl, false, a, b);
				good &= !r5g_use_rmw(&g6, lvl, true, a, b);
			}
	ok(good, "rmw policy: level 0 never, 1 cheaper, 2 ties too, RAID6 never",
	   "");
	/* the case t53 relies on: one page of a 4-member RAID5, 2 reads each way */
	ok(!r5g_use_rmw(&g5, R5G_RMW_CHEAPER, true, 2, 2) &&
	   r5g_use_rmw(&g5, R5G_RMW_PREFER, true, 2, 2),
	   "rmw policy: a tie is reconstruct-write at 1, RMW at 2", "");
}

int main(void)
{
	check_pictures();
	check_refusals();
	check_all();
	check_rmw_policy();
	printf("# r5_geom: %d checks, %d failed\n", tests, failed);
	return failed ? 1 : 0;
}
