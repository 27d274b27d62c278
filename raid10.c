// SPDX-License-Identifier: GPL-2.0
/*
 * RAID10 personality: near, far and offset copies, on RAID1's engine.
 *
 * A RAID10 array is a set of mirrors whose copies are not all at the
 * same place: array chunk c has near * far copies on distinct members,
 * at member sectors raid10_geom.h computes from the superblock's layout
 * word, the chunk and the member count (in-tree md's on-disk format).
 * Everything else is RAID1's problem and raid1.c solves it once: the
 * bucket barrier between normal and sync IO, read balancing by head
 * distance and queue depth, the retry worker that rewrites a bad range
 * from another copy, bad blocks, failfast, the bitmap and writes_pending.
 * The engine asks this file, through struct r1_layout, only where the
 * copies of a range are (dev), how far a range stays contiguous on every
 * copy (room: the chunk), which range a member holds at a member sector
 * (virt: recovery walks member sectors, as in-tree) and whether a set of
 * working members still holds every chunk (enough).
 *
 * Why this is safe to share: within one chunk every copy is a contiguous
 * run of the same length, so a request the engine cut at r1_room() is, on
 * each member holding it, exactly RAID1's request at another offset.  Two
 * copies of a chunk are never on one member (r10g_sound() refuses shapes
 * where they would be), so the engine's one slot per member is enough.
 * The barrier buckets, the bitmap and resync_offset are in array sectors,
 * as in-tree: resync and check walk the array (resync_max_sectors is the
 * array size), recovery walks member sectors up to dev_sectors and syncs
 * the array range that each rebuilding member holds there.
 *
 * Not here (in-tree has it): reshape; nor write-behind (in-tree RAID10
 * has none).  A RAID0 of one zone is taken over as near-2 copies, and
 * back (raid10_takeover(), raid0_takeover()).  Replacement members are the
 * engine's (raid1.c "Replacement").
 * A size change (--grow --size) re-places the geometry with the array
 * suspended; far layouts refuse it, as in-tree.
 */
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include "md.h"
#include "raid1.h"
#include "raid10_geom.h"

/* Copies kept on the stack while mapping a range (r10_dev()). */
#define R10_MAX_COPIES		16

struct r10data {
	/* sizes change with the array suspended, under lock (resize) */
	struct r10g geo;
	spinlock_t lock;	/* working[]; geo's sizes */
	bool working[];		/* raid_disks: r10_enough()'s scratch */
};

static const struct r10g *r10_geo(const struct r1conf *conf)
{
	return &((const struct r10data *)conf->layout_data)->geo;
}

static sector_t r10_dev(const struct r1conf *conf, sector_t sector, int disk)
{
	const struct r10g *g = r10_geo(conf);
	struct r10g_copy c[R10_MAX_COPIES];
	u32 i;

	r10g_map(g, sector, c);
	for (i = 0; i < r10g_copies(g); i++)
		if (c[i].disk == disk)
			return c[i].sector;
	return R1_NO_COPY;
}

static void r10_map(const struct r1conf *conf, sector_t sector,
		    struct r1slot *slots)
{
	const struct r10g *g = r10_geo(conf);
	struct r10g_copy c[R10_MAX_COPIES];
	u32 i;

	for (i = 0; i < g->raid_disks; i++)
		slots[i].dev = R1_NO_COPY;
	r10g_map(g, sector, c);
	for (i = 0; i < r10g_copies(g); i++)
		slots[c[i].disk].dev = c[i].sector;
}

static sector_t r10_room(const struct r1conf *conf, sector_t sector)
{
	return r10g_room(r10_geo(conf), sector);
}

static sector_t r10_virt(const struct r1conf *conf, int disk, sector_t dev)
{
	u64 v;

	if (!r10g_virt(r10_geo(conf), disk, dev, &v))
		return R1_NO_COPY;
	return v;
}

/* Under rcu_read_lock() (r1_enough()); any context. */
static bool r10_enough(struct r1conf *conf, int without)
{
	struct r10data *d = conf->layout_data;
	unsigned long flags;
	bool ok;
	int i;

	spin_lock_irqsave(&d->lock, flags);
	for (i = 0; i < conf->raid_disks; i++)
		d->working[i] = i != without && r1_mirror_works(conf, i);
	ok = r10g_enough(&d->geo, d->working);
	spin_unlock_irqrestore(&d->lock, flags);
	return ok;
}

static const struct r1_layout r10_layout = {
	.dev	= r10_dev,
	.map	= r10_map,
	.room	= r10_room,
	.virt	= r10_virt,
	.enough	= r10_enough,
};

/*
 * The shape in @mddev's superblock fields, sized for its members; an
 * error (logged, with why) if this stack cannot serve it.
 */
static int r10_shape(struct mddev *mddev, struct r10g *g)
{
	u32 *mark;
	int err, flaw;

	err = r10g_init(g, mddev->layout, mddev->chunk_sectors,
			mddev->raid_disks);
	if (err) {
		pr_err("md/raid10:%s: layout 0x%x, chunk %dK on %d devices: %s\n",
		       mdname(mddev), mddev->layout, mddev->chunk_sectors / 2,
		       mddev->raid_disks, r10g_why(err));
		return -EINVAL;
	}
	if (r10g_copies(g) > R10_MAX_COPIES) {
		pr_err("md/raid10:%s: %u copies, this stack serves at most %d\n",
		       mdname(mddev), r10g_copies(g), R10_MAX_COPIES);
		return -EINVAL;
	}
	mark = kcalloc(mddev->raid_disks, sizeof(*mark), GFP_KERNEL);
	if (!mark)
		return -ENOMEM;
	flaw = r10g_sound(g, mark);
	kfree(mark);
	if (flaw != R10G_SOUND) {
		pr_err("md/raid10:%s: layout 0x%x on %d devices would keep two copies of some data together; refusing it\n",
		       mdname(mddev), mddev->layout, mddev->raid_disks);
		return -EINVAL;
	}
	r10g_set_size(g, mddev->dev_sectors);
	return 0;
}

static int raid10_run(struct mddev *mddev)
{
	struct r10data *d;
	int err;

	lockdep_assert_held(&mddev->reconfig_mutex);
	if (mddev->level != 10) {
		pr_err("md/raid10:%s: bad level %d\n", mdname(mddev),
		       mddev->level);
		return -EINVAL;
	}
	d = kzalloc(struct_size(d, working, mddev->raid_disks), GFP_KERNEL);
	if (!d)
		return -ENOMEM;
	spin_lock_init(&d->lock);
	err = r10_shape(mddev, &d->geo);
	if (err)
		goto free_data;
	err = r1_engine_run(mddev, "raid10", &r10_layout, d);
	if (err)
		goto free_data;
	/* from here conf owns d */
	/* resync_max_sectors came from raid10_sync_sectors(): the same */
	mddev->dev_sectors = d->geo.dev_sectors;
	mddev->array_sectors = d->geo.array_sectors;
	return 0;

free_data:
	kfree(d);
	return err;
}

/*
 * Array size for members of @sectors (0: the current ones); callable
 * before run, from the superblock's fields alone.
 */
static sector_t raid10_size(struct mddev *mddev, sector_t sectors,
			    int raid_disks)
{
	struct r10g g;

	if (!raid_disks)
		raid_disks = mddev->raid_disks;
	if (!sectors)
		sectors = mddev->dev_sectors;
	if (r10g_init(&g, mddev->layout, mddev->chunk_sectors, raid_disks))
		return 0;
	return r10g_size(&g, sectors, raid_disks);
}

/*
 * The resync space: the array, for members of @sectors, rounded as
 * r10_shape() rounds.  Before run, from the superblock's fields; 0 for a
 * shape run refuses.
 */
static sector_t raid10_sync_sectors(struct mddev *mddev, sector_t sectors)
{
	struct r10g g;

	if (r10g_init(&g, mddev->layout, mddev->chunk_sectors,
		      mddev->raid_disks))
		return 0;
	r10g_set_size(&g, sectors);
	return g.array_sectors;
}

/*
 * mdadm --grow --size: near and offset copies sit at the same member
 * sectors whatever the size, so the array grows or shrinks at its end.
 * Far copies start at a stride that is a share of the size: changing it
 * would move every far copy, so it is refused (as in-tree does).
 */
static sector_t raid10_round_dev_sectors(struct mddev *mddev,
					 sector_t sectors)
{
	struct r1conf *conf = mddev->private;
	struct r10g g = *r10_geo(conf);

	lockdep_assert_held(&mddev->reconfig_mutex);
	if (g.far > 1 && !g.offset) {
		pr_warn("md/raid10:%s: far copies are placed by the member size: it cannot change without moving them\n",
			mdname(mddev));
		return 0;
	}
	r10g_set_size(&g, sectors);
	return g.dev_sectors;
}

/* The array is suspended: no request or sync maps through the geometry. */
static void raid10_dev_sectors_changed(struct mddev *mddev)
{
	struct r1conf *conf = mddev->private;
	struct r10data *d = conf->layout_data;

	lockdep_assert_held(&mddev->reconfig_mutex);
	/* r10_enough() may read the geometry from an error handler */
	spin_lock_irq(&d->lock);
	r10g_set_size(&d->geo, mddev->dev_sectors);
	spin_unlock_irq(&d->lock);
}

/* /proc/mdstat's geometry words, in in-tree md's format. */
static void raid10_status(struct seq_file *seq, struct mddev *mddev)
{
	struct r1conf *conf = mddev->private;
	const struct r10g *g = r10_geo(conf);

	if (g->near < g->raid_disks)
		seq_printf(seq, " %dK chunks", mddev->chunk_sectors / 2);
	if (g->near > 1)
		seq_printf(seq, " %u near-copies", g->near);
	if (g->far > 1) {
		seq_printf(seq, " %u %s-copies", g->far,
			   g->offset ? "offset" : "far");
		if (g->set != g->raid_disks)
			seq_printf(seq, " %u devices per set", g->set);
	}
	r1_engine.status(seq, mddev);
}

/*
 * pers->takeover, from a RAID0 of one zone: each member becomes the
 * first copy of a near-2 pair, member i in slot 2i, with nothing moved
 * (chunk c of n members is on member c % n at row c / n either way);
 * the second copies start empty and are rebuilt onto spares, which
 * mdadm adds in the same command.  RAID0 takes it back (raid0.c).
 */
static int raid10_takeover(struct mddev *mddev, struct md_takeover *t)
{
	int chunk = mddev->chunk_sectors;
	const char *why = NULL;
	sector_t rounded;

	if (mddev->level != 0)
		why = "only RAID0 is taken over";
	else if (chunk < PAGE_SECTORS || (chunk & (chunk - 1)))
		why = "its chunk is not a power of two of a page or more";
	else if (!md_takeover_one_zone(mddev, &rounded))
		why = "its members differ in size (more than one zone)";
	else if (mddev->persistent && !mddev->major_version &&
		 mddev->raid_disks * 2 > MD_SB_DISKS)
		why = "0.90 superblocks cannot hold twice its members";
	if (why) {
		pr_warn("md/raid10:%s: cannot take level %d over: %s\n",
			mdname(mddev), mddev->level, why);
		return -EINVAL;
	}
	t->level = 10;
	t->layout = R10G_NEAR2;
	t->chunk_sectors = chunk;
	t->raid_disks = mddev->raid_disks * 2;
	t->dev_sectors = rounded;
	t->slot_mul = 2;
	return 0;
}

static struct md_personality raid10_personality;

static int __init raid10_init(void)
{
	raid10_personality = r1_engine;
	raid10_personality.name = "raid10";
	raid10_personality.level = 10;
	raid10_personality.owner = THIS_MODULE;
	raid10_personality.run = raid10_run;
	raid10_personality.status = raid10_status;
	raid10_personality.size = raid10_size;
	raid10_personality.sync_sectors = raid10_sync_sectors;
	raid10_personality.resize_in_place = true;
	raid10_personality.round_dev_sectors = raid10_round_dev_sectors;
	raid10_personality.dev_sectors_changed = raid10_dev_sectors_changed;
	raid10_personality.takeover = raid10_takeover;
	return md_register_personality(&raid10_personality);
}

static void __exit raid10_exit(void)
{
	md_unregister_personality(&raid10_personality);
}

module_init(raid10_init);
module_exit(raid10_exit);
MODULE_LICENSE("GPL");
MODULE_VERSION(MD_VERSION_STRING);
MODULE_DESCRIPTION("RAID10 (striped mirrors) personality for md (out-of-tree fork stack)");
MODULE_ALIAS("md-personality-9");
MODULE_ALIAS("md-raid10");
MODULE_ALIAS("md-level-10");
