// SPDX-License-Identifier: GPL-2.0
/*
 * Linear personality: the members one after the other, in slot order.
 *
 * Each member contributes its usable sectors, rounded down to the
 * array's rounding (its chunk size, when it has one), and member i holds
 * array sectors [end[i - 1], end[i]).  A request is cut where a member
 * ends and each piece goes to its member through md_remap.c (a clone, a
 * flush to every member before its data, a member's error is the
 * piece's), so no state per request lives here.
 *
 * Growing: mdadm --grow --add writes the new member's superblock with the
 * role after the last one and asks the core for it in sync; the core
 * suspends the array (no request in flight, none entering) and calls
 * append_disk(), which installs a member table one longer.  The table is
 * read without a lock on the IO path because it only changes while the
 * array is suspended; mdstat reads nothing of it.
 */
#include <linux/module.h>
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/slab.h>

#include "md.h"

struct linear_table {
	u32 nr;
	struct md_rdev **members;	/* by slot */
	sector_t *end;			/* array sector after member i */
};

struct linear_conf {
	struct md_remap rm;
	struct linear_table t;		/* changes only while suspended */
};

/* A member's share: its usable sectors rounded down to the rounding. */
static sector_t linear_usable(struct mddev *mddev, struct md_rdev *rdev)
{
	sector_t s = rdev->sectors, q = rdev->sectors;

	/* sector_div() leaves the quotient in q: only its remainder is used */
	if (mddev->chunk_sectors > 0)
		s -= sector_div(q, mddev->chunk_sectors);
	return s;
}

static int linear_table_alloc(struct linear_table *t, u32 nr)
{
	t->nr = nr;
	t->members = kcalloc(nr, sizeof(*t->members), GFP_KERNEL);
	t->end = kcalloc(nr, sizeof(*t->end), GFP_KERNEL);
	if (!t->members || !t->end) {
		kfree(t->members);
		kfree(t->end);
		return -ENOMEM;
	}
	return 0;
}

static void linear_table_free(struct linear_table *t)
{
	kfree(t->members);
	kfree(t->end);
}

static sector_t linear_table_sectors(const struct linear_table *t)
{
	return t->nr ? t->end[t->nr - 1] : 0;
}

/* The member holding @sector (< the array's end): binary search. */
static u32 linear_find(const struct linear_table *t, sector_t sector)
{
	u32 lo = 0, hi = t->nr - 1;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (sector < t->end[mid])
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* md_remap_bio()'s locate: up to the end of the member */
static struct md_rdev *linear_locate(struct mddev *mddev, sector_t sector,
				     sector_t *dev, sector_t *room)
{
	struct linear_conf *conf = mddev->private;
	const struct linear_table *t = &conf->t;
	u32 i = linear_find(t, sector);

	*dev = sector - (i ? t->end[i - 1] : 0);
	*room = t->end[i] - sector;
	return t->members[i];
}

static void linear_map(struct mddev *mddev, struct bio *bio)
{
	struct linear_conf *conf = mddev->private;

	md_remap_bio(&conf->rm, bio, linear_table_sectors(&conf->t),
		     linear_locate);
}

static void linear_make_request(struct mddev *mddev, struct bio *bio)
{
	struct linear_conf *conf = mddev->private;

	if (md_remap_flush(&conf->rm, bio, conf->t.members, conf->t.nr))
		return;
	linear_map(mddev, bio);
}

static void linear_status(struct seq_file *seq, struct mddev *mddev)
{
	seq_printf(seq, " %uk rounding", mddev->chunk_sectors / 2);
}

static void linear_quiesce(struct mddev *mddev, int quiesce)
{
	struct linear_conf *conf = mddev->private;

	md_remap_quiesce(&conf->rm, quiesce);
}

static sector_t linear_size(struct mddev *mddev, sector_t sectors,
			    int raid_disks)
{
	struct linear_conf *conf = mddev->private;

	return conf ? linear_table_sectors(&conf->t) : 0;
}

/* Fill @t's ends from its members; -EINVAL if one holds nothing. */
static int linear_table_ends(struct mddev *mddev, struct linear_table *t)
{
	sector_t end = 0;
	u32 i;

	for (i = 0; i < t->nr; i++) {
		sector_t s = linear_usable(mddev, t->members[i]);

		if (!s) {
			pr_err("md/linear:%s: %pg holds less than the %uk rounding\n",
			       mdname(mddev), t->members[i]->bdev,
			       mddev->chunk_sectors / 2);
			return -EINVAL;
		}
		end += s;
		t->end[i] = end;
	}
	return 0;
}

static int linear_members(struct mddev *mddev, struct linear_table *t)
{
	struct md_rdev *rdev;
	u32 i;

	rdev_for_each(rdev, mddev) {
		int slot = rdev->raid_disk;

		if (slot < 0 || test_bit(RD_FAULTY, &rdev->flags))
			continue;
		if (slot >= t->nr || t->members[slot]) {
			pr_err("md/linear:%s: %pg claims slot %d, taken or beyond %u\n",
			       mdname(mddev), rdev->bdev, slot, t->nr);
			return -EINVAL;
		}
		t->members[slot] = rdev;
	}
	for (i = 0; i < t->nr; i++) {
		if (!t->members[i]) {
			pr_err("md/linear:%s: member %u of %u is missing, a linear array cannot run without it\n",
			       mdname(mddev), i, t->nr);
			return -EINVAL;
		}
	}
	return linear_table_ends(mddev, t);
}

static int linear_run(struct mddev *mddev)
{
	struct linear_conf *conf;
	struct md_limits ml;
	u32 i;
	int err;

	lockdep_assert_held(&mddev->reconfig_mutex);
	if (mddev->level != LEVEL_LINEAR || mddev->raid_disks < 1) {
		pr_err("md/linear:%s: bad level %d or raid_disks %d\n",
		       mdname(mddev), mddev->level, mddev->raid_disks);
		return -EINVAL;
	}
	conf = kzalloc(sizeof(*conf), GFP_KERNEL);
	if (!conf)
		return -ENOMEM;
	err = linear_table_alloc(&conf->t, mddev->raid_disks);
	if (err)
		goto free_conf;
	err = linear_members(mddev, &conf->t);
	if (err)
		goto free_table;
	if (md_limits_begin(mddev, &ml)) {
		for (i = 0; i < conf->t.nr; i++)
			md_limits_stack_rdev(&ml, conf->t.members[i]);
		err = md_limits_end(mddev, &ml);
		if (err)
			goto free_table;
	}
	err = md_remap_init(&conf->rm, mddev, linear_map);
	if (err)
		goto free_table;

	mddev->private = conf;
	/* nothing to resync: every sector has one copy */
	mddev->resync_offset = MD_MAX_SECTOR;
	mddev->array_sectors = linear_table_sectors(&conf->t);
	pr_info("md/linear:%s: %u members, %llu KiB\n", mdname(mddev),
		conf->t.nr, (u64)mddev->array_sectors / 2);
	return 0;

free_table:
	linear_table_free(&conf->t);
free_conf:
	kfree(conf);
	return err;
}

static int linear_append_disk(struct mddev *mddev, struct md_rdev *rdev)
{
	struct linear_conf *conf = mddev->private;
	struct linear_table t;
	u32 slot = conf->t.nr;
	int err;

	lockdep_assert_held(&mddev->reconfig_mutex);
	if (rdev->saved_raid_disk != slot) {
		pr_warn("md/linear:%s: %pg does not follow member %u, not appending it\n",
			mdname(mddev), rdev->bdev, slot - 1);
		return -EINVAL;
	}
	err = linear_table_alloc(&t, slot + 1);
	if (err)
		return err;
	memcpy(t.members, conf->t.members, slot * sizeof(*t.members));
	t.members[slot] = rdev;
	err = linear_table_ends(mddev, &t);
	if (err) {
		linear_table_free(&t);
		return err;
	}
	/* suspended: no request reads the table now */
	linear_table_free(&conf->t);
	conf->t = t;
	rdev->raid_disk = slot;
	rdev->saved_raid_disk = -1;
	set_bit(RD_IN_SYNC, &rdev->flags);
	mddev->raid_disks = slot + 1;
	mddev->array_sectors = linear_table_sectors(&t);
	pr_info("md/linear:%s: %pg appended, %llu KiB\n", mdname(mddev),
		rdev->bdev, (u64)mddev->array_sectors / 2);
	return 0;
}

static void linear_free(struct mddev *mddev, void *priv)
{
	struct linear_conf *conf = priv;

	md_remap_exit(&conf->rm);
	linear_table_free(&conf->t);
	kfree(conf);
}

static struct md_personality linear_personality = {
	.name		= "linear",
	.level		= LEVEL_LINEAR,
	.owner		= THIS_MODULE,
	.run		= linear_run,
	.free		= linear_free,
	.make_request	= linear_make_request,
	.status		= linear_status,
	.error_handler	= md_remap_error,
	.size		= linear_size,
	.quiesce	= linear_quiesce,
	.append_disk	= linear_append_disk,
	.members_split	= true,
};

static int __init linear_init(void)
{
	return md_register_personality(&linear_personality);
}

static void __exit linear_exit(void)
{
	md_unregister_personality(&linear_personality);
}

module_init(linear_init);
module_exit(linear_exit);
MODULE_LICENSE("GPL");
MODULE_VERSION(MD_VERSION_STRING);
MODULE_DESCRIPTION("Linear (concatenation) personality for md (out-of-tree fork stack)");
MODULE_ALIAS("md-personality-1");
MODULE_ALIAS("md-linear");
MODULE_ALIAS("md-level--1");
