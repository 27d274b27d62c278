// SPDX-License-Identifier: GPL-2.0
/*
 * RAID0 personality: chunks striped over the members, no redundancy.
 *
 * Where a sector lives is raid0_geom.h's (zones, the two multi-zone
 * layouts); what happens to a request is md_remap.c's: each piece of a
 * bio inside one chunk goes to one member as a clone, a flush goes to
 * every member before its data, and a member's error is the piece's
 * error.  Nothing here keeps state per request, so there is nothing to
 * lock on the IO path: the geometry and the member table are built in
 * run() and never change while the array runs (RAID0 takes no members
 * and fails none; a member's IO error fails the request, the member
 * stays).
 *
 * Layout.  A multi-zone array whose superblock records no layout
 * (R0G_UNKNOWN: made before Linux 5.4, or any other value) would be
 * read with a guess, and a wrong guess returns other data from every
 * chunk past the first zone.  So, as in-tree md since 5.4, it does not
 * start unless raid0.default_layout names the layout; an array where the
 * layouts agree starts whatever is recorded.  The choice is not written
 * back: the superblock keeps saying what mdadm wrote.
 */
#include <linux/module.h>
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>

#include "md.h"
#include "raid0_geom.h"
#include "raid10_geom.h"

/* raid0.default_layout: 0, or the R0G_ORIG/R0G_ALT an unrecorded one is */
static int default_layout;

static int r0_default_layout_set(const char *val,
				 const struct kernel_param *kp)
{
	int v, err;

	err = kstrtoint(val, 0, &v);
	if (err)
		return err;
	if (v != R0G_UNKNOWN && v != R0G_ORIG && v != R0G_ALT)
		return -EINVAL;
	WRITE_ONCE(default_layout, v);
	return 0;
}

static const struct kernel_param_ops r0_default_layout_ops = {
	.set = r0_default_layout_set,
	.get = param_get_int,
};

module_param_cb(default_layout, &r0_default_layout_ops, &default_layout,
		0644);
MODULE_PARM_DESC(default_layout,
		 "layout of multi-zone arrays that record none: 1 original (before Linux 3.14), 2 alternate (3.14 to 5.3), 0 refuse");

struct r0conf {
	struct md_remap rm;
	struct r0g geo;
	u32 nr;				/* raid_disks */
	struct md_rdev **members;	/* by slot; fixed while running */
};

/* md_remap_bio()'s locate: up to the end of the chunk */
static struct md_rdev *raid0_locate(struct mddev *mddev, sector_t sector,
				    sector_t *dev, sector_t *room)
{
	struct r0conf *conf = mddev->private;
	u32 slot, in_room;
	u64 d;

	slot = r0g_map(&conf->geo, sector, &d, &in_room);
	*dev = d;
	*room = in_room;
	return conf->members[slot];
}

static void raid0_map(struct mddev *mddev, struct bio *bio)
{
	struct r0conf *conf = mddev->private;

	md_remap_bio(&conf->rm, bio, r0g_sectors(&conf->geo), raid0_locate);
}

static void raid0_make_request(struct mddev *mddev, struct bio *bio)
{
	struct r0conf *conf = mddev->private;

	if (md_remap_flush(&conf->rm, bio, conf->members, conf->nr))
		return;
	raid0_map(mddev, bio);
}

static void raid0_status(struct seq_file *seq, struct mddev *mddev)
{
	seq_printf(seq, " %uk chunks", mddev->chunk_sectors / 2);
}

static void raid0_quiesce(struct mddev *mddev, int quiesce)
{
	struct r0conf *conf = mddev->private;

	md_remap_quiesce(&conf->rm, quiesce);
}

static sector_t raid0_size(struct mddev *mddev, sector_t sectors,
			   int raid_disks)
{
	struct r0conf *conf = mddev->private;

	return conf ? r0g_sectors(&conf->geo) : 0;
}

static void raid0_free_conf(struct r0conf *conf)
{
	kfree(conf->geo.zone);
	kfree(conf->geo.slot);
	kfree(conf->members);
	kfree(conf);
}

/* The members by slot; every slot filled, no slot twice. */
static int r0_members(struct mddev *mddev, struct r0conf *conf)
{
	struct md_rdev *rdev;
	u32 i;

	rdev_for_each(rdev, mddev) {
		int slot = rdev->raid_disk;

		if (slot < 0 || test_bit(RD_FAULTY, &rdev->flags))
			continue;
		if (slot >= conf->nr) {
			pr_err("md/raid0:%s: %pg claims slot %d of %u\n",
			       mdname(mddev), rdev->bdev, slot, conf->nr);
			return -EINVAL;
		}
		if (conf->members[slot]) {
			pr_err("md/raid0:%s: two members claim slot %d\n",
			       mdname(mddev), slot);
			return -EINVAL;
		}
		conf->members[slot] = rdev;
	}
	for (i = 0; i < conf->nr; i++) {
		if (!conf->members[i]) {
			pr_err("md/raid0:%s: member %u of %u is missing, RAID0 cannot run without it\n",
			       mdname(mddev), i, conf->nr);
			return -EINVAL;
		}
	}
	return 0;
}

/* The layout to read a multi-zone array with, or 0 to refuse it. */
static u32 r0_layout(struct mddev *mddev)
{
	int dflt = READ_ONCE(default_layout);

	if (mddev->layout == R0G_ORIG || mddev->layout == R0G_ALT)
		return mddev->layout;
	if (dflt == R0G_ORIG || dflt == R0G_ALT) {
		pr_info("md/raid0:%s: no layout recorded, using raid0.default_layout=%d\n",
			mdname(mddev), dflt);
		return dflt;
	}
	pr_err("md/raid0:%s: members of different sizes and no layout recorded: reading it with the wrong one returns other data\n",
	       mdname(mddev));
	pr_err("md/raid0:%s: set raid0.default_layout to 1 (made before Linux 3.14) or 2 (made by 3.14 to 5.3) and start it again\n",
	       mdname(mddev));
	return 0;
}

static int r0_geometry(struct mddev *mddev, struct r0conf *conf)
{
	u64 *size;
	u32 i;
	int err = -ENOMEM;

	size = kcalloc(conf->nr, sizeof(*size), GFP_KERNEL);
	conf->geo.zone = kcalloc(r0g_max_zones(conf->nr),
				 sizeof(*conf->geo.zone), GFP_KERNEL);
	conf->geo.slot = kcalloc(r0g_max_slots(conf->nr),
				 sizeof(*conf->geo.slot), GFP_KERNEL);
	if (!size || !conf->geo.zone || !conf->geo.slot)
		goto free_size;
	for (i = 0; i < conf->nr; i++)
		size[i] = conf->members[i]->sectors;
	err = -EINVAL;
	if (!r0g_build(&conf->geo, size, conf->nr, mddev->chunk_sectors)) {
		pr_err("md/raid0:%s: no member holds a whole %uk chunk\n",
		       mdname(mddev), mddev->chunk_sectors / 2);
		goto free_size;
	}
	conf->geo.layout = R0G_ORIG;
	if (r0g_layout_matters(&conf->geo)) {
		conf->geo.layout = r0_layout(mddev);
		if (!conf->geo.layout) {
			err = -EOPNOTSUPP;
			goto free_size;
		}
	}
	err = 0;
free_size:
	kfree(size);
	return err;
}

static int r0_set_limits(struct mddev *mddev, struct r0conf *conf)
{
	unsigned int chunk_bytes = mddev->chunk_sectors << SECTOR_SHIFT;
	struct md_limits ml;
	u32 i;

	if (!md_limits_begin(mddev, &ml))
		return 0;
	for (i = 0; i < conf->nr; i++)
		md_limits_stack_rdev(&ml, conf->members[i]);
	md_limits_io_min(&ml, chunk_bytes);
	md_limits_io_opt(&ml, chunk_bytes * conf->nr);
	return md_limits_end(mddev, &ml);
}

static int raid0_run(struct mddev *mddev)
{
	struct r0conf *conf;
	int err;

	lockdep_assert_held(&mddev->reconfig_mutex);
	if (mddev->level != 0 || mddev->raid_disks < 1) {
		pr_err("md/raid0:%s: bad level %d or raid_disks %d\n",
		       mdname(mddev), mddev->level, mddev->raid_disks);
		return -EINVAL;
	}
	if (mddev->chunk_sectors <= 0) {
		pr_err("md/raid0:%s: chunk size %d sectors: RAID0 needs one\n",
		       mdname(mddev), mddev->chunk_sectors);
		return -EINVAL;
	}
	conf = kzalloc(sizeof(*conf), GFP_KERNEL);
	if (!conf)
		return -ENOMEM;
	conf->nr = mddev->raid_disks;
	err = -ENOMEM;
	conf->members = kcalloc(conf->nr, sizeof(*conf->members), GFP_KERNEL);
	if (!conf->members)
		goto free_conf;
	err = r0_members(mddev, conf);
	if (err)
		goto free_conf;
	err = r0_geometry(mddev, conf);
	if (err)
		goto free_conf;
	err = r0_set_limits(mddev, conf);
	if (err)
		goto free_conf;
	err = md_remap_init(&conf->rm, mddev, raid0_map);
	if (err)
		goto free_conf;

	mddev->private = conf;
	/* nothing to resync: no copy can disagree with another */
	mddev->resync_offset = MD_MAX_SECTOR;
	mddev->array_sectors = r0g_sectors(&conf->geo);
	pr_info("md/raid0:%s: %u members in %u zone%s, %llu KiB\n",
		mdname(mddev), conf->nr, conf->geo.nr_zones,
		conf->geo.nr_zones == 1 ? "" : "s",
		(u64)mddev->array_sectors / 2);
	return 0;

free_conf:
	raid0_free_conf(conf);
	return err;
}

static void raid0_free(struct mddev *mddev, void *priv)
{
	struct r0conf *conf = priv;

	md_remap_exit(&conf->rm);
	raid0_free_conf(conf);
}

/*
 * pers->takeover (raid0_takeover()), nothing moved.  The members' data
 * areas are cut to what the old level used, so the size stays.
 *
 * From RAID10 near-2 with one member left of each pair (mdadm removes
 * the others first): pair i is RAID0 member i, as raid10_takeover()
 * made it.
 */
static const char *raid0_from_raid10(struct mddev *mddev,
				     struct md_takeover *t)
{
	unsigned long pairs[BITS_TO_LONGS(MD_SB_DISKS * 2)] = { 0 };
	struct md_rdev *rdev;
	int n = mddev->raid_disks / 2;

	if (mddev->layout != R10G_NEAR2 || mddev->raid_disks % 2 ||
	    mddev->raid_disks > MD_SB_DISKS * 2)
		return "only near-2 copies (layout n2) on an even count";
	rdev_for_each(rdev, mddev) {
		if (rdev->raid_disk < 0)
			continue;
		if (!test_bit(RD_IN_SYNC, &rdev->flags) ||
		    test_bit(RD_FAULTY, &rdev->flags) ||
		    test_and_set_bit(rdev->raid_disk / 2, pairs))
			return "remove all but one working member of each pair first";
	}
	if (bitmap_weight(pairs, n) != n)
		return "a pair has no working member";
	t->raid_disks = n;
	t->slot_div = 2;
	return NULL;
}

/*
 * From RAID4/5 with parity last and its parity member gone (mdadm
 * removes it first): a RAID0 of one zone over the rest, chunk c on
 * member c % n at row c / n.
 */
static const char *raid0_from_raid45(struct mddev *mddev,
				     struct md_takeover *t)
{
	int last = mddev->raid_disks - 1;
	struct md_rdev *rdev;

	if (mddev->level != 4 && mddev->level != 5)
		return "only RAID4/5 and RAID10";
	if (mddev->level == 5 && mddev->layout != 5)
		return "parity is not last (restripe to parity-last first)";
	rdev_for_each(rdev, mddev)
		if (rdev->raid_disk >= 0 &&
		    (rdev->raid_disk == last ||
		     !test_bit(RD_IN_SYNC, &rdev->flags) ||
		     test_bit(RD_FAULTY, &rdev->flags)))
			return "remove the parity member, and only it, first";
	if (mddev->degraded != 1)
		return "one member, the parity, must be missing";
	t->raid_disks = last;
	return NULL;
}

static int raid0_takeover(struct mddev *mddev, struct md_takeover *t)
{
	const char *why = mddev->level == 10 ? raid0_from_raid10(mddev, t) :
			  raid0_from_raid45(mddev, t);

	if (why) {
		pr_warn("md/raid0:%s: cannot take level %d over: %s\n",
			mdname(mddev), mddev->level, why);
		return -EINVAL;
	}
	t->level = 0;
	/*
	 * one zone: no layout matters; 0 as in-tree, which the superblock
	 * does not mark as recorded (assembly reads it as unknown)
	 */
	t->layout = 0;
	t->chunk_sectors = mddev->chunk_sectors;
	t->dev_sectors = round_down(mddev->dev_sectors, mddev->chunk_sectors);
	return 0;
}

static struct md_personality raid0_personality = {
	.name		= "raid0",
	.level		= 0,
	.owner		= THIS_MODULE,
	.run		= raid0_run,
	.free		= raid0_free,
	.make_request	= raid0_make_request,
	.status		= raid0_status,
	.error_handler	= md_remap_error,
	.size		= raid0_size,
	.quiesce	= raid0_quiesce,
	.takeover	= raid0_takeover,
	.members_split	= true,
};

static int __init raid0_init(void)
{
	return md_register_personality(&raid0_personality);
}

static void __exit raid0_exit(void)
{
	md_unregister_personality(&raid0_personality);
}

module_init(raid0_init);
module_exit(raid0_exit);
MODULE_LICENSE("GPL");
MODULE_VERSION(MD_VERSION_STRING);
MODULE_DESCRIPTION("RAID0 (striping) personality for md (out-of-tree fork stack)");
MODULE_ALIAS("md-personality-2");
MODULE_ALIAS("md-raid0");
MODULE_ALIAS("md-level-0");
