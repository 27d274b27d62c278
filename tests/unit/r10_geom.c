// SPDX-License-Identifier: GPL-2.0
/*
 * raid10_geom.h in user space.
 *
 * Rules: each way r10g_init() refuses a shape, in md's order.
 * Pictures: near, far and offset layouts and far sets drawn by hand from
 * md(4) and the layout's definition (chunk numbers per member row, '.'
 * for a hole), compared cell by cell with r10g_map() and r10g_virt(),
 * with the copy order of a few chunks.
 * Properties, for 2..9 members, near and far 1..3, offset or not, far
 * sets 0..2, chunks of 8..64 and small members: the refusals follow the
 * rules; the size is md's formula, stable when md restarts from the used
 * size, and equals the array sectors mapped; for shapes r10g_sound()
 * passes, copies sit on distinct members inside the used area, no member
 * sector holds two, r10g_virt() gives back each copy's array sector and
 * nothing for every other member sector, and r10g_room() is the longest
 * run contiguous on every copy; for shapes it fails, brute force finds
 * the flaw it names.  r10g_enough() matches a chunk-by-chunk search for
 * every set of working members; r10g_enough_md() matches it with one
 * far set.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "raid10_geom.h"

static int failed, tests;

static void ok(bool cond, const char *what)
{
	tests++;
	if (!cond) {
		failed++;
		printf("not ok %d %s\n", tests, what);
	}
}

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define MAXN	10
#define MAXC	(MAXN * 3)

static u32 layout(u32 near, u32 far, bool offset, u32 sets)
{
	return near | far << 8 | (offset ? R10G_OFFSET : 0) | sets << 17;
}

static void check_rules(void)
{
	static const struct {
		u32 layout, chunk, disks;
		int want;
		const char *what;
	} r[] = {
		{ 0x102, 8, 2, R10G_OK, "n2 on 2" },
		{ 0x201, 128, 2, R10G_OK, "f2 on 2" },
		{ 0x10201, 8, 3, R10G_OK, "o2 on 3" },
		{ 0x40201, 8, 4, R10G_OK, "f2, sets of 2" },
		{ 0x20201, 8, 3, R10G_OK, "f2, variant 1, sets of 1" },
		{ 0x80102, 8, 2, R10G_E_BITS, "bit 19" },
		{ 0x80000102, 8, 2, R10G_E_BITS, "bit 31" },
		{ 0x80102, 4, 2, R10G_E_BITS, "bit 19 before the chunk" },
		{ 0x102, 4, 2, R10G_E_CHUNK, "chunk below a page" },
		{ 0x102, 0, 2, R10G_E_CHUNK, "chunk 0" },
		{ 0x102, 24, 2, R10G_E_CHUNK, "chunk not a power of 2" },
		{ 0x002, 24, 2, R10G_E_CHUNK, "the chunk before 0 copies" },
		{ 0x002, 8, 2, R10G_E_ZERO, "far 0" },
		{ 0x200, 8, 2, R10G_E_ZERO, "near 0" },
		{ 0x60002, 8, 2, R10G_E_ZERO, "0 copies before the sets" },
		{ 0x60102, 8, 2, R10G_E_SETS, "far-set variant 3" },
		{ 0x101, 8, 2, R10G_E_FEW, "one copy" },
		{ 0x202, 8, 3, R10G_E_MANY, "4 copies on 3" },
		{ 0x103, 8, 2, R10G_E_MANY, "3 copies on 2" },
	};
	char what[128];
	u32 i;

	for (i = 0; i < ARRAY_SIZE(r); i++) {
		struct r10g g;
		int got = r10g_init(&g, r[i].layout, r[i].chunk, r[i].disks);

		snprintf(what, sizeof(what), "rules: %s: %s (want %s)",
			 r[i].what, r10g_why(got), r10g_why(r[i].want));
		ok(got == r[i].want, what);
	}
}

struct picture {
	const char *name;
	u32 layout, disks, dev_chunks, chunks;
	const char *rows[8];	/* row r, member d: array chunk or '.' */
	u32 order_chunk;	/* a chunk and its copies in md's order */
	u32 order[6][2];	/* member, member chunk */
};

static const struct picture pics[] = {
	{ "n2 on 3", 0x102, 3, 3, 4, { "001", "122", "33." },
	  1, { { 2, 0 }, { 0, 1 } } },
	{ "n2 on 4", 0x102, 4, 3, 6, { "0011", "2233", "4455" },
	  5, { { 2, 2 }, { 3, 2 } } },
	{ "f2 on 2", 0x201, 2, 4, 4, { "01", "23", "10", "32" },
	  1, { { 1, 0 }, { 0, 2 } } },
	{ "f2 on 3", 0x201, 3, 5, 6, { "012", "345", "201", "534" },
	  2, { { 2, 0 }, { 0, 2 } } },
	{ "o2 on 3", 0x10201, 3, 4, 6, { "012", "201", "345", "534" },
	  5, { { 2, 2 }, { 0, 3 } } },
	{ "n3 on 5", 0x103, 5, 3, 5, { "00011", "12223", "33444" },
	  1, { { 3, 0 }, { 4, 0 }, { 0, 1 } } },
	{ "f2 on 5", 0x201, 5, 2, 5, { "01234", "40123" },
	  4, { { 4, 0 }, { 0, 1 } } },
	{ "f2 on 5, sets of 2", 0x40201, 5, 2, 5, { "01234", "10423" },
	  4, { { 4, 0 }, { 2, 1 } } },
	{ "n2f2 on 8", 0x202, 8, 2, 4, { "00112233", "33001122" },
	  3, { { 6, 0 }, { 0, 1 }, { 7, 0 }, { 1, 1 } } },
	{ "n2f2 on 8, sets of 4", 0x40202, 8, 2, 4,
	  { "00112233", "11003322" },
	  0, { { 0, 0 }, { 2, 1 }, { 1, 0 }, { 3, 1 } } },
	{ "n2o2 on 4", 0x10202, 4, 4, 4, { "0011", "1100", "2233", "3322" },
	  2, { { 0, 2 }, { 2, 3 }, { 1, 2 }, { 3, 3 } } },
};

static void check_picture(const struct picture *p)
{
	const u32 chunk = 8, in = 3;
	struct r10g_copy cp[MAXC];
	struct r10g g;
	u32 mark[MAXN], rows = 0, r, d, c, k;
	char what[160];
	bool map_ok = true, virt_ok = true;

	ok(r10g_init(&g, p->layout, chunk, p->disks) == R10G_OK &&
	   r10g_sound(&g, mark) == R10G_SOUND, p->name);
	r10g_set_size(&g, (u64)p->dev_chunks * chunk + 5);
	while (rows < 8 && p->rows[rows])
		rows++;
	snprintf(what, sizeof(what), "%s: %u chunks, %u used rows", p->name,
		 p->chunks, rows);
	ok(g.array_sectors == (u64)p->chunks * chunk &&
	   g.dev_sectors == (u64)rows * chunk, what);
	for (c = 0; c < p->chunks; c++) {
		r10g_map(&g, (u64)c * chunk + in, cp);
		for (k = 0; k < r10g_copies(&g); k++) {
			u64 row = cp[k].sector / chunk;

			if (row >= rows || cp[k].sector % chunk != in ||
			    p->rows[row][cp[k].disk] != (char)('0' + c))
				map_ok = false;
		}
	}
	snprintf(what, sizeof(what), "%s: every copy where drawn", p->name);
	ok(map_ok, what);
	for (r = 0; r < rows + 1; r++) {
		for (d = 0; d < p->disks; d++) {
			char want = r < rows ? p->rows[r][d] : '.';
			u64 v;
			bool got = r10g_virt(&g, d, (u64)r * chunk + in, &v);

			if (want == '.' ? got :
			    !got || v != (u64)(want - '0') * chunk + in)
				virt_ok = false;
		}
	}
	snprintf(what, sizeof(what), "%s: reverse map as drawn, holes empty",
		 p->name);
	ok(virt_ok, what);
	r10g_map(&g, (u64)p->order_chunk * chunk, cp);
	for (k = 0; k < r10g_copies(&g); k++)
		if (cp[k].disk != p->order[k][0] ||
		    cp[k].sector != (u64)p->order[k][1] * chunk)
			break;
	snprintf(what, sizeof(what), "%s: chunk %u's copies in md's order",
		 p->name, p->order_chunk);
	ok(k == r10g_copies(&g), what);
}

/* Shapes md accepts that its own layout does not keep safe. */
static void check_flaws(void)
{
	static const struct {
		u32 layout, disks;
		int want;
		const char *what;
	} f[] = {
		{ 0x20202, 4, R10G_SHARED, "n2f2 on 4, variant 1: sets of 2" },
		{ 0x20301, 4, R10G_SHARED, "f3 on 4, variant 1: sets of 1" },
		{ 0x10202, 5, R10G_OVERLAP, "n2o2 on 5: near wraps onto a far row" },
		{ 0x40202, 9, R10G_OVERLAP, "n2f2 on 9, sets of 4 and 5" },
		{ 0x40201, 5, R10G_SOUND, "f2 on 5, sets of 2 and 3" },
		{ 0x202, 5, R10G_SOUND, "n2f2 on 5" },
	};
	char what[128];
	u32 mark[MAXN], i;

	for (i = 0; i < ARRAY_SIZE(f); i++) {
		struct r10g g;
		int got = -1;

		if (r10g_init(&g, f[i].layout, 8, f[i].disks) == R10G_OK)
			got = r10g_sound(&g, mark);
		snprintf(what, sizeof(what), "flaws: %s: %d (want %d)",
			 f[i].what, got, f[i].want);
		ok(got == f[i].want, what);
	}
}

/* md's _enough() and the exact answer part ways on far sets. */
static void check_enough_cases(void)
{
	bool w4[4] = { true, false, false, true };
	bool w5[5] = { true, true, false, true, false };
	struct r10g g;

	r10g_init(&g, 0x40201, 8, 4);
	ok(r10g_enough(&g, w4) && !r10g_enough_md(&g, w4),
	   "f2 on 4, sets of 2, members 1 and 2 gone: every chunk left, md refuses");
	r10g_init(&g, 0x40201, 8, 5);
	ok(!r10g_enough(&g, w5) && r10g_enough_md(&g, w5),
	   "f2 on 5, sets of 2 and 3, members 2 and 4 gone: chunk 4 lost, md runs");
	r10g_init(&g, 0x201, 8, 5);
	ok(r10g_enough(&g, w5) && r10g_enough_md(&g, w5),
	   "f2 on 5, one set, members 2 and 4 gone: both run");
}

/* r10g_room() is not the longest contiguous run */
#define ROOM_WRONG	(1U << 8)

/* What brute force found: 1 << enum r10g_flaw, ROOM_WRONG. */
static u32 brute(const struct r10g *g, u64 member)
{
	u32 n = g->raid_disks, copies = r10g_copies(g), d, k, j, flaws = 0;
	unsigned char *seen[MAXN];
	struct r10g_copy cp[MAXC], nx[MAXC];
	u64 v, s;

	for (d = 0; d < n; d++)
		seen[d] = calloc(member + 1, 1);
	for (v = 0; v < g->array_sectors; v++) {
		u64 room = r10g_room(g, v), back;
		bool cont = true, room_more = room > 1;

		r10g_map(g, v, cp);
		for (k = 0; k < copies; k++) {
			if (cp[k].disk >= n || cp[k].sector >= g->dev_sectors) {
				flaws |= 1 << R10G_OVERLAP;
				continue;
			}
			for (j = 0; j < k; j++)
				if (cp[j].disk == cp[k].disk)
					flaws |= 1 << R10G_SHARED;
			if (seen[cp[k].disk][cp[k].sector])
				flaws |= 1 << R10G_OVERLAP;
			seen[cp[k].disk][cp[k].sector] = 1;
			if (!r10g_virt(g, cp[k].disk, cp[k].sector, &back) ||
			    back != v)
				flaws |= 1 << R10G_REVERSE;
		}
		/* room: the next sector continues every copy, up to room */
		if (v + 1 < g->array_sectors) {
			r10g_map(g, v + 1, nx);
			for (k = 0; k < copies; k++)
				if (nx[k].disk != cp[k].disk ||
				    nx[k].sector != cp[k].sector + 1)
					cont = false;
			if (cont != room_more)
				flaws |= ROOM_WRONG;
		}
		if (!room || room > g->array_sectors - v)
			flaws |= ROOM_WRONG;
	}
	for (d = 0; d < n; d++) {
		for (s = 0; s <= member; s++) {
			u64 back;

			if (!seen[d][s] && r10g_virt(g, d, s, &back))
				flaws |= 1 << R10G_REVERSE;
		}
		free(seen[d]);
	}
	return flaws;
}

static bool enough_brute(const struct r10g *g, const bool *working)
{
	struct r10g_copy cp[MAXC];
	u32 c, k;

	/* the first members of chunks repeat within raid_disks chunks */
	for (c = 0; c < g->raid_disks; c++) {
		bool any = false;

		r10g_map(g, (u64)c << g->chunk_shift, cp);
		for (k = 0; k < r10g_copies(g); k++)
			any |= working[cp[k].disk];
		if (!any)
			return false;
	}
	return true;
}

static const char *const flaw_name[] = { "sound", "shared", "overlap",
					  "reverse" };

static void check_shape(u32 n, u32 near, u32 far, bool off, u32 sets,
			int *nshapes, int *nflawed, int *md_differs)
{
	static const u32 chunks[] = { 8, 16, 32, 64 };
	u32 lay = layout(near, far, off, sets), mark[MAXN], ci, m;
	struct r10g g, big;
	char what[200];
	int rc, want = R10G_OK, flaw;
	bool enough_ok = true, md_ok = true, confirmed = false;

	if (near * far < 2)
		want = R10G_E_FEW;
	else if (near * far > n)
		want = R10G_E_MANY;
	rc = r10g_init(&g, lay, 8, n);
	snprintf(what, sizeof(what), "%u members, layout %#x: %s", n, lay,
		 r10g_why(rc));
	ok(rc == want, what);
	if (rc)
		return;
	(*nshapes)++;
	flaw = r10g_sound(&g, mark);
	*nflawed += flaw != R10G_SOUND;

	for (ci = 0; ci < 4; ci++) {
		u32 chunk = chunks[ci], dc;

		r10g_init(&g, lay, chunk, n);
		for (dc = 0; dc <= 2 * far + 4; dc++) {
			u64 member = (u64)dc * chunk + (dc * 5) % chunk;
			u64 chunks_in, used;
			u32 found;
			struct r10g again;

			r10g_set_size(&g, member);
			chunks_in = (u64)(dc / far) * n / near;
			used = (chunks_in * near * far + n - 1) / n;
			again = g;
			r10g_set_size(&again, g.dev_sectors);
			snprintf(what, sizeof(what), "%u members, layout %#x, chunk %u, member %llu: size %llu (want %llu), used %llu, stride %llu, same from used size",
				 n, lay, chunk, (unsigned long long)member,
				 (unsigned long long)g.array_sectors,
				 (unsigned long long)chunks_in * chunk,
				 (unsigned long long)g.dev_sectors,
				 (unsigned long long)g.stride);
			ok(g.array_sectors == chunks_in * chunk &&
			   g.array_sectors == r10g_size(&g, member, n) &&
			   g.dev_sectors == used * chunk &&
			   g.stride == (off ? chunk : (u64)(dc / far) * chunk) &&
			   again.array_sectors == g.array_sectors &&
			   again.dev_sectors == g.dev_sectors &&
			   again.stride == g.stride, what);

			found = brute(&g, member);
			snprintf(what, sizeof(what), "%u members, layout %#x, chunk %u, member %llu: %s, brute force found %#x",
				 n, lay, chunk, (unsigned long long)member,
				 flaw_name[flaw], found);
			if (flaw == R10G_SOUND)
				ok(!found, what);
			else
				ok(!(found & ROOM_WRONG), what);
			if (found & (1 << flaw))
				confirmed = true;
		}
	}

	if (flaw != R10G_SOUND) {
		snprintf(what, sizeof(what), "%u members, layout %#x: brute force finds the flaw r10g_sound() names, %s",
			 n, lay, flaw_name[flaw]);
		ok(confirmed, what);
	}

	/* enough: every subset of working members */
	r10g_init(&big, lay, 8, n);
	r10g_set_size(&big, (u64)8 * far * 4 * n);
	for (m = 0; m < 1U << n; m++) {
		bool w[MAXN];
		u32 d;

		for (d = 0; d < n; d++)
			w[d] = m & (1U << d);
		if (r10g_enough(&big, w) != enough_brute(&big, w))
			enough_ok = false;
		if (r10g_enough_md(&big, w) != r10g_enough(&big, w))
			md_ok = false;
	}
	snprintf(what, sizeof(what), "%u members, layout %#x: enough for every set of working members",
		 n, lay);
	ok(enough_ok, what);
	if (!sets || big.set == n) {
		snprintf(what, sizeof(what), "%u members, layout %#x: md's enough agrees",
			 n, lay);
		ok(md_ok, what);
	} else if (!md_ok) {
		(*md_differs)++;
	}
}

static void check_properties(void)
{
	int nshapes = 0, nflawed = 0, md_differs = 0;
	u32 n, near, far, off, sets;

	for (n = 2; n <= 9; n++)
		for (near = 1; near <= 3; near++)
			for (far = 1; far <= 3; far++)
				for (off = 0; off < 2; off++)
					for (sets = 0; sets < 3; sets++)
						check_shape(n, near, far, off, sets,
							    &nshapes, &nflawed,
							    &md_differs);
	printf("# r10_geom: %d shapes md accepts, %d flawed, %d where md's enough differs\n",
	       nshapes, nflawed, md_differs);
}

int main(void)
{
	u32 i;

	check_rules();
	for (i = 0; i < ARRAY_SIZE(pics); i++)
		check_picture(&pics[i]);
	check_flaws();
	check_enough_cases();
	check_properties();
	printf("# r10_geom: %d checks, %d failed\n", tests, failed);
	return failed ? 1 : 0;
}
