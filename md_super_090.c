// SPDX-License-Identifier: GPL-2.0
/*
 * Version-0.90 md superblocks, behind the ops of md_super_ops.h.
 *
 * Design
 *
 * Format.  struct mdp_superblock_s (mdp_super_t) of
 * <linux/raid/md_p.h>: 4 KiB at MD_NEW_SIZE_SECTORS(device sectors),
 * i.e. in the last 64 KiB-aligned 64 KiB block of the device, with the
 * data from sector 0 up to it.  The words are in the host's byte order
 * (the struct even swaps events_hi/events_lo with it), exactly as in-tree
 * md and mdadm write them; a superblock from a host of the other
 * endianness fails the magic check and is refused, as in-tree does.
 * The checksum is the 64-bit sum of the 1024 words with sb_csum counted
 * as zero, its high half added to its low half once.  Sizes are 32-bit
 * KiB counts, so a member offers at most 2^33 - 2 sectors.
 *
 * What is owned.  Unlike version 1, 0.90 has no per-device fields that
 * mdadm sets and the kernel must keep: the kernel rewrites the whole
 * array state and the disk table on every update (in-tree clears the
 * superblock and rebuilds it).  We rebuild every field we know, and
 * keep only words that no version of the format defines (the reserved
 * areas) and patch_version as found.
 *
 * The disk table.  disks[] has MD_SB_DISKS (27) entries indexed by a
 * device number that 0.90 ties to the slot: an active, in-sync member
 * is number raid_disk; everybody else (spares, members being rebuilt,
 * faulty members) gets the next number from raid_disks up, and an
 * empty slot below raid_disks is written "removed, faulty".  So each
 * write renumbers the members (rdev->desc_nr), as in-tree does; the
 * renumbering is a pure function of the member list, computed under
 * the same lock that keeps that list stable (reconfig_mutex or the
 * superblock writer's sb_mutex, see md_super_ops.h).  this_disk is a
 * copy of the member's own entry.
 *
 * No recovery_offset.  0.90 cannot say "rebuilt up to here": a member
 * being rebuilt is written as a spare (state 0), and after a restart
 * it is rebuilt from the start, as in-tree.  Clean/dirty: state bit
 * MD_SB_CLEAN when clean and fully synced; a clean array with an
 * interrupted resync records the position in recovery_cp together with
 * cp_events = events (a recovery_cp whose cp_events do not match the
 * events is stale and means "resync everything").
 *
 * Internal bitmap.  State bit MD_SB_BITMAP_PRESENT says there is one,
 * always at the same place: right after the 4 KiB superblock, in the
 * rest of the reserved 64 KiB (bitmap_offset +8 sectors, up to 60 KiB of
 * bitmap).  md_bitmap.c does the rest, as for version 1.  A member that
 * left no earlier than the bitmap's last clearing is re-added for the
 * chunks dirtied since (RD_BITMAP_READD), as in-tree.
 *
 * Growth.  When the member's device grows under a running array,
 * dev-XXX/size moves the superblock to the reserved block at the new
 * end (written by the next round) and the member offers the data area
 * up to it; 0.90 records no per-member size, only the array's.  Not
 * with an internal bitmap, which would have to move too (as in-tree).
 *
 * Reshape (0.91).  While a reshape runs (reshape_position set) the
 * superblocks say minor_version 91 and fill the fields md_p.h reserves
 * for it: reshape_position (array sectors), new_level, delta_disks (new
 * minus old, signed), new_layout and new_chunk (bytes); raid_disks is
 * the new count, as for 1.x.  With none they say 90 and those fields
 * are 0.  0.91 has no backwards flag: in-tree reads a negative
 * delta_disks as backwards, and so do we; and no data offsets, so a
 * 0.90 reshape never moves the data (new_data_offset stays 0).  The
 * array's own minor_version stays 90 whatever the members say.  A
 * member in a slot but not in sync is written as a spare in 0.91 too
 * (in-tree writes it "active" and then trusts it up to the reshape
 * position, which is not what this stack means by it), and read back
 * as a spare from either.  Members one round apart across the end of a
 * reshape differ in layout or chunk: the older one's new_layout and
 * new_chunk are compared instead.
 *
 * Refused at load, with a message: wrong magic or a version other than
 * 0.90/0.91, bad checksum, the clustered state bit, raid_disks or
 * this_disk.number out of the table, a reshape on a level other than
 * RAID4/5/6 or to a chunk that is not whole sectors.  At assembly: a
 * reshape whose old member count is out of the table, or that changes
 * the level.
 */
#include <linux/blkdev.h>
#include <linux/string.h>

#include "md.h"
#include "md_bitmap.h"
#include "md_super.h"
#include "md_super_ops.h"

/* Where a 0.90 internal bitmap lies: right after the superblock. */
#define SB090_BITMAP_OFFSET	(MD_SB_BYTES >> 9)

/* Largest member data area the 32-bit KiB size field can describe. */
#define SB090_MAX_SECTORS	((sector_t)(2ULL << 32) - 2)

static mdp_super_t *rdev_sb090(struct md_rdev *rdev)
{
	return page_address(rdev->sb_page);
}

static u32 sb090_checksum(const mdp_super_t *sb)
{
	const u32 *word = (const u32 *)sb;
	unsigned int csum_idx = offsetof(mdp_super_t, sb_csum) / 4;
	unsigned int i;
	u64 sum = 0;

	for (i = 0; i < MD_SB_WORDS; i++)
		if (i != csum_idx)
			sum += word[i];
	return (u32)((sum & 0xffffffff) + (sum >> 32));
}

static u64 sb090_events(const mdp_super_t *sb)
{
	return ((u64)sb->events_hi << 32) | sb->events_lo;
}

static u64 sb090_cp_events(const mdp_super_t *sb)
{
	return ((u64)sb->cp_events_hi << 32) | sb->cp_events_lo;
}

/*
 * Does @sb record a reshape in progress?  0.91 with a position: mdadm
 * too reads a 0.91 superblock whose position is all ones as idle.
 */
static bool sb090_reshaping(const mdp_super_t *sb)
{
	return sb->minor_version == 91 && sb->reshape_position != U64_MAX;
}

/* Why the reshape fields of @sb (0.91) cannot be taken, or NULL. */
static const char *sb090_reshape_refusal(const mdp_super_t *sb)
{
	if (sb->level != 4 && sb->level != 5 && sb->level != 6)
		return "reshape in progress on a level this stack cannot reshape";
	if (sb->new_chunk & 511)
		return "reshape to a chunk that is not a whole number of sectors";
	return NULL;
}

static int sb090_validate(struct md_rdev *rdev, mdp_super_t *sb)
{
	const char *why;
	u32 csum;

	if (sb->md_magic != MD_SB_MAGIC) {
		pr_warn("md: %pg: bad 0.90 superblock magic 0x%08x\n",
			rdev->bdev, sb->md_magic);
		return -EINVAL;
	}
	if (sb->major_version != 0 ||
	    (sb->minor_version != 90 && sb->minor_version != 91)) {
		pr_warn("md: %pg: superblock version %u.%u is not 0.90 or 0.91\n",
			rdev->bdev, sb->major_version, sb->minor_version);
		return -EINVAL;
	}
	csum = sb090_checksum(sb);
	if (csum != sb->sb_csum) {
		pr_warn("md: %pg: bad 0.90 superblock checksum 0x%08x (computed 0x%08x)\n",
			rdev->bdev, sb->sb_csum, csum);
		return -EINVAL;
	}
	if (sb->state & (1 << MD_SB_CLUSTERED)) {
		pr_warn("md: %pg: clustered md not supported (0.90 state 0x%x)\n",
			rdev->bdev, sb->state);
		return -EINVAL;
	}
	if (sb->raid_disks == 0 || sb->raid_disks > MD_SB_DISKS) {
		pr_warn("md: %pg: 0.90 raid_disks %u out of range (1-%d)\n",
			rdev->bdev, sb->raid_disks, MD_SB_DISKS);
		return -EINVAL;
	}
	if (sb->this_disk.number >= MD_SB_DISKS) {
		pr_warn("md: %pg: 0.90 device number %u out of range (0-%d)\n",
			rdev->bdev, sb->this_disk.number, MD_SB_DISKS - 1);
		return -EINVAL;
	}
	why = sb090_reshaping(sb) ? sb090_reshape_refusal(sb) : NULL;
	if (why) {
		pr_warn("md: %pg: 0.91 superblock: %s (level %u, new chunk %u bytes)\n",
			rdev->bdev, why, sb->level, sb->new_chunk);
		return -EINVAL;
	}
	return 0;
}

static int sb090_load(struct md_rdev *rdev, int minor_version)
{
	sector_t dev_sectors = bdev_nr_sectors(rdev->bdev);
	mdp_super_t *sb;
	sector_t sb_start;
	int ret;

	/* mdadm names an array after its superblock: 0.91 while reshaping */
	if (minor_version != 90 && minor_version != 91) {
		pr_warn("md: %pg: superblock version 0.%d unknown\n",
			rdev->bdev, minor_version);
		return -EINVAL;
	}
	if (dev_sectors < 2 * MD_RESERVED_SECTORS) {
		pr_warn("md: %pg: too small for a 0.90 superblock\n",
			rdev->bdev);
		return -EINVAL;
	}
	sb_start = MD_NEW_SIZE_SECTORS(dev_sectors);

	ret = md_super_read_page(rdev, sb_start);
	if (ret) {
		pr_warn("md: %pg: cannot read the superblock (%d)\n",
			rdev->bdev, ret);
		return ret;
	}
	sb = rdev_sb090(rdev);
	ret = sb090_validate(rdev, sb);
	if (ret)
		return ret;

	rdev->sb_start = sb_start;
	/* 0.90 has no data offset, and a reshape never moves the data */
	rdev->data_offset = 0;
	rdev->new_data_offset = 0;
	rdev->sectors = min(sb_start, SB090_MAX_SECTORS);
	rdev->desc_nr = sb->this_disk.number;
	rdev->sb_events = sb090_events(sb);
	return 0;
}

/*
 * Do @a and @b lay the data out alike?  The same level, layout and
 * chunk; or one is a round behind the end of a reshape the other no
 * longer records (0.91 still, with the old layout and chunk): then its
 * new ones must be the other's.  The minor version and the member
 * count are not compared: they change when a reshape starts or ends,
 * and the events decide which member is fresh enough.
 */
static bool sb090_same_geometry(const mdp_super_t *a, const mdp_super_t *b)
{
	if (a->level != b->level)
		return false;
	if (a->layout == b->layout && a->chunk_size == b->chunk_size)
		return true;
	if (sb090_reshaping(a) == sb090_reshaping(b))
		return false;
	if (sb090_reshaping(b))
		swap(a, b);
	return a->new_layout == b->layout && a->new_chunk == b->chunk_size;
}

static int sb090_same_array(struct md_rdev *ref, struct md_rdev *rdev)
{
	mdp_super_t *rsb = rdev_sb090(ref);
	mdp_super_t *sb = rdev_sb090(rdev);

	if (sb->set_uuid0 != rsb->set_uuid0 ||
	    sb->set_uuid1 != rsb->set_uuid1 ||
	    sb->set_uuid2 != rsb->set_uuid2 ||
	    sb->set_uuid3 != rsb->set_uuid3) {
		pr_warn("md: %pg: has a different array UUID, not adding\n",
			rdev->bdev);
		return -EINVAL;
	}
	if (!sb090_same_geometry(sb, rsb)) {
		pr_warn("md: %pg: level/layout/chunk differ from %pg, not adding\n",
			rdev->bdev, ref->bdev);
		return -EINVAL;
	}
	return 0;
}

static int sb090_import_array(struct mddev *mddev, struct md_rdev *freshest)
{
	mdp_super_t *sb = rdev_sb090(freshest);
	u64 events = sb090_events(sb);
	sector_t size = (sector_t)sb->size * 2;

	if (size > freshest->sectors) {
		pr_warn("md: %pg: 0.90 array size %llu exceeds the member's %llu sectors\n",
			freshest->bdev, (u64)size, (u64)freshest->sectors);
		return -EINVAL;
	}
	mddev->major_version = 0;
	mddev->minor_version = 90;
	mddev->level = (int)sb->level;
	/* 0.90 has no room to say which raid0 layout: never recorded */
	mddev->layout = sb->level == 0 ? MD_LAYOUT_UNKNOWN : (int)sb->layout;
	mddev->chunk_sectors = sb->chunk_size >> 9;
	mddev->raid_disks = sb->raid_disks;
	mddev->new_level = mddev->level;
	mddev->new_layout = mddev->layout;
	mddev->new_chunk_sectors = mddev->chunk_sectors;
	mddev->reshape_position = MD_MAX_SECTOR;
	mddev->delta_disks = 0;
	mddev->reshape_backwards = false;
	if (sb090_reshaping(sb)) {
		s32 delta = (s32)sb->delta_disks;
		int disks = sb->raid_disks;

		/* raid_disks is the new count, raid_disks - delta the old */
		if (delta >= disks || delta < disks - MD_SB_DISKS ||
		    sb->new_level != sb->level) {
			pr_warn("md: %pg: reshape from %lld to %d members, level %u to %u, not supported\n",
				freshest->bdev, (s64)disks - delta, disks,
				sb->level, sb->new_level);
			return -EINVAL;
		}
		mddev->reshape_position = sb->reshape_position;
		mddev->new_level = (int)sb->new_level;
		mddev->new_layout = (int)sb->new_layout;
		mddev->new_chunk_sectors = sb->new_chunk >> 9;
		mddev->delta_disks = delta;
		/* no flag for it in 0.91: fewer members go backwards */
		mddev->reshape_backwards = delta < 0;
	}
	mddev->dev_sectors = size;
	mddev->bitmap_offset = (sb->state & (1 << MD_SB_BITMAP_PRESENT)) ?
			       SB090_BITMAP_OFFSET : 0;
	memcpy(mddev->uuid + 0, &sb->set_uuid0, 4);
	memcpy(mddev->uuid + 4, &sb->set_uuid1, 4);
	memcpy(mddev->uuid + 8, &sb->set_uuid2, 4);
	memcpy(mddev->uuid + 12, &sb->set_uuid3, 4);
	memset(mddev->set_name, 0, sizeof(mddev->set_name));
	mddev->ctime = sb->ctime;
	mddev->utime = sb->utime;
	mddev->events = events;
	if (sb->state & (1 << MD_SB_CLEAN))
		mddev->resync_offset = MD_MAX_SECTOR;
	else if (sb090_cp_events(sb) == events)
		mddev->resync_offset = sb->recovery_cp;
	else
		mddev->resync_offset = 0;
	mddev->max_disks = MD_SB_DISKS;
	return 0;
}

/*
 * The table entry that decides @rdev's role: its own, unless it is one
 * event behind and the freshest member has an entry for the same
 * device (its own may predate the update that failed it).
 */
static const mdp_disk_t *sb090_role(struct mddev *mddev, struct md_rdev *rdev)
{
	const mdp_disk_t *own = &rdev_sb090(rdev)->disks[rdev->desc_nr];
	struct md_rdev *fresh;
	const mdp_disk_t *d;

	if (rdev->sb_events >= mddev->events)
		return own;
	fresh = md_super_freshest(mddev);
	if (!fresh)
		return own;
	d = &rdev_sb090(fresh)->disks[rdev->desc_nr];
	if (d->number == rdev->desc_nr && d->major == MAJOR(rdev->dev) &&
	    d->minor == MINOR(rdev->dev))
		return d;
	return own;
}

static int sb090_import_rdev(struct mddev *mddev, struct md_rdev *rdev)
{
	const mdp_disk_t *d = &rdev_sb090(rdev)->disks[rdev->desc_nr];
	u64 events = rdev->sb_events;
	/* fewer members: the old slots count until the reshape is done */
	int slots = md_slots(mddev);
	bool active;

	rdev->raid_disk = -1;
	rdev->saved_raid_disk = -1;
	rdev->recovery_offset = 0;
	clear_bit(RD_FAULTY, &rdev->flags);
	clear_bit(RD_IN_SYNC, &rdev->flags);
	clear_bit(RD_BITMAP_READD, &rdev->flags);
	atomic_set(&rdev->read_errors, 0);

	if (rdev->sectors < mddev->dev_sectors) {
		pr_warn("md: %s: %pg: %llu sectors, smaller than the array's %llu\n",
			mdname(mddev), rdev->bdev, (u64)rdev->sectors,
			(u64)mddev->dev_sectors);
		return -EINVAL;
	}
	/* load checked desc_nr < MD_SB_DISKS; the core may renumber later */
	if (rdev->desc_nr < 0 || rdev->desc_nr >= MD_SB_DISKS)
		return 0;

	if (mddev->pers) {
		/* hot-add: a spare; a fresh former member keeps its slot hint */
		assign_bit(RD_WRITE_MOSTLY, &rdev->flags,
			   d->state & (1 << MD_DISK_WRITEMOSTLY));
		assign_bit(RD_FAILFAST, &rdev->flags,
			   d->state & (1 << MD_DISK_FAILFAST));
		if ((d->state & (1 << MD_DISK_SYNC)) &&
		    d->raid_disk < md_slot_limit(mddev)) {
			/* with a bitmap: only the chunks dirtied since it left */
			bool readd = md_bitmap_readd_ok(mddev, events);

			if (readd || events == mddev->events)
				rdev->saved_raid_disk = d->raid_disk;
			if (readd)
				set_bit(RD_BITMAP_READD, &rdev->flags);
		}
		return 0;
	}

	active = d->state & ((1 << MD_DISK_ACTIVE) | (1 << MD_DISK_SYNC));
	if (active && !(d->state & (1 << MD_DISK_FAULTY)) &&
	    events + 1 < mddev->events) {
		pr_warn("md: %s: %pg: kicking non-fresh member (events %llu, array %llu)\n",
			mdname(mddev), rdev->bdev, events, mddev->events);
		return -ESTALE;
	}
	d = sb090_role(mddev, rdev);
	assign_bit(RD_WRITE_MOSTLY, &rdev->flags,
		   d->state & (1 << MD_DISK_WRITEMOSTLY));
	assign_bit(RD_FAILFAST, &rdev->flags,
		   d->state & (1 << MD_DISK_FAILFAST));
	if (d->state & (1 << MD_DISK_FAULTY)) {
		set_bit(RD_FAULTY, &rdev->flags);
	} else if (d->state & (1 << MD_DISK_SYNC)) {
		if (d->raid_disk >= slots) {
			pr_warn("md: %s: %pg: slot %u beyond raid_disks %d, treating as spare\n",
				mdname(mddev), rdev->bdev, d->raid_disk,
				slots);
			return 0;
		}
		rdev->raid_disk = d->raid_disk;
		rdev->saved_raid_disk = d->raid_disk;
		set_bit(RD_IN_SYNC, &rdev->flags);
	}
	return 0;
}

static bool sb090_is_active(struct md_rdev *rdev)
{
	return rdev->raid_disk >= 0 && test_bit(RD_IN_SYNC, &rdev->flags) &&
	       !test_bit(RD_FAULTY, &rdev->flags);
}

/*
 * Give every member its 0.90 device number (see the file comment).
 * Members past the 27 entries of the table (only possible with many
 * spares on a degraded array) take any number still free.
 */
static void sb090_number(struct mddev *mddev)
{
	DECLARE_BITMAP(used, MD_SB_DISKS);
	struct md_rdev *rdev;
	int next = mddev->raid_disks;

	bitmap_zero(used, MD_SB_DISKS);
	rdev_for_each(rdev, mddev) {
		if (sb090_is_active(rdev) && rdev->raid_disk < MD_SB_DISKS) {
			rdev->desc_nr = rdev->raid_disk;
			__set_bit(rdev->raid_disk, used);
		}
	}
	rdev_for_each(rdev, mddev) {
		if (sb090_is_active(rdev) && rdev->raid_disk < MD_SB_DISKS)
			continue;
		while (next < MD_SB_DISKS && test_bit(next, used))
			next++;
		if (next < MD_SB_DISKS) {
			rdev->desc_nr = next;
		} else {
			rdev->desc_nr = find_first_zero_bit(used, MD_SB_DISKS);
			if (rdev->desc_nr >= MD_SB_DISKS) {
				rdev->desc_nr = -1;	/* never written */
				continue;
			}
		}
		__set_bit(rdev->desc_nr, used);
	}
}

/*
 * The version and the reshape fields: 0.91 and the reshape being made
 * while one runs, else 0.90 and zeroes.  0.91 cannot say that the data
 * moves (dev-XXX/new_offset refuses it on 0.90) nor which way a
 * reshape goes other than by the sign of delta_disks; should a reshape
 * need either, a restart would follow what is recorded instead, so it
 * is logged.
 */
static void sb090_fill_reshape(struct mddev *mddev, struct md_rdev *rdev,
			       mdp_super_t *sb)
{
	sector_t pos = READ_ONCE(mddev->reshape_position);
	bool backwards = mddev->delta_disks < 0;

	if (pos == MD_MAX_SECTOR) {
		sb->minor_version = 90;
		sb->reshape_position = 0;
		sb->new_level = 0;
		sb->delta_disks = 0;
		sb->new_layout = 0;
		sb->new_chunk = 0;
		return;
	}
	sb->minor_version = 91;
	sb->reshape_position = pos;
	sb->new_level = (u32)mddev->new_level;
	sb->delta_disks = (u32)mddev->delta_disks;
	sb->new_layout = (u32)mddev->new_layout;
	sb->new_chunk = (u32)mddev->new_chunk_sectors << 9;
	if (rdev->new_data_offset != rdev->data_offset)
		pr_warn_ratelimited("md: %s: %pg: 0.90 cannot record a data offset move (%llu to %llu)\n",
				    mdname(mddev), rdev->bdev,
				    (u64)rdev->data_offset,
				    (u64)rdev->new_data_offset);
	if (mddev->reshape_backwards != backwards)
		pr_warn_ratelimited("md: %s: 0.91 cannot record a %s reshape with delta_disks %d\n",
				    mdname(mddev),
				    mddev->reshape_backwards ?
				    "backwards" : "forwards",
				    mddev->delta_disks);
}

static void sb090_fill(struct mddev *mddev, struct md_rdev *rdev,
		       const struct md_sb_state *st)
{
	mdp_super_t *sb = rdev_sb090(rdev);
	unsigned int active = 0, working = 0, failed = 0, spare = 0, nr = 0;
	DECLARE_BITMAP(used, MD_SB_DISKS);
	struct md_rdev *other;
	int i;

	sb090_number(mddev);
	if (rdev->desc_nr < 0)
		return;

	sb->md_magic = MD_SB_MAGIC;
	sb->major_version = 0;
	sb->gvalid_words = 0;
	memcpy(&sb->set_uuid0, mddev->uuid + 0, 4);
	memcpy(&sb->set_uuid1, mddev->uuid + 4, 4);
	memcpy(&sb->set_uuid2, mddev->uuid + 8, 4);
	memcpy(&sb->set_uuid3, mddev->uuid + 12, 4);
	sb->ctime = (u32)mddev->ctime;
	sb->level = (u32)mddev->level;
	sb->size = (u32)min_t(sector_t, mddev->dev_sectors / 2, U32_MAX);
	sb->raid_disks = mddev->raid_disks;
	sb->md_minor = mddev->unit;
	sb->not_persistent = 0;

	sb->utime = (u32)st->utime;
	sb->state = 0;
	if (md_internal_bitmap(mddev))
		sb->state |= 1 << MD_SB_BITMAP_PRESENT;
	sb->events_hi = (u32)(st->events >> 32);
	sb->events_lo = (u32)st->events;
	sb->recovery_cp = 0;
	if (st->clean) {
		if (st->resync_offset == MD_MAX_SECTOR) {
			sb->state |= 1 << MD_SB_CLEAN;
			sb->recovery_cp = U32_MAX;
		} else if (st->resync_offset <= U32_MAX) {
			/* a checkpoint is valid only with these events */
			sb->recovery_cp = (u32)st->resync_offset;
		}
		sb->cp_events_hi = sb->events_hi;
		sb->cp_events_lo = sb->events_lo;
	} else {
		sb->cp_events_hi = 0;
		sb->cp_events_lo = 0;
	}
	sb090_fill_reshape(mddev, rdev, sb);
	sb->layout = (u32)mddev->layout;
	sb->chunk_size = mddev->chunk_sectors << 9;

	memset(sb->disks, 0, sizeof(sb->disks));
	bitmap_zero(used, MD_SB_DISKS);
	rdev_for_each(other, mddev) {
		mdp_disk_t *d;

		if (other->desc_nr < 0)
			continue;
		d = &sb->disks[other->desc_nr];
		__set_bit(other->desc_nr, used);
		nr++;
		d->number = other->desc_nr;
		d->major = MAJOR(other->dev);
		d->minor = MINOR(other->dev);
		if (test_bit(RD_FAULTY, &other->flags)) {
			d->raid_disk = other->desc_nr;
			d->state = 1 << MD_DISK_FAULTY;
			failed++;
		} else if (sb090_is_active(other)) {
			d->raid_disk = other->raid_disk;
			d->state = (1 << MD_DISK_ACTIVE) | (1 << MD_DISK_SYNC);
			active++;
			working++;
		} else {
			/* a spare, or a member still being rebuilt */
			d->raid_disk = other->desc_nr;
			d->state = 0;
			spare++;
			working++;
		}
		if (test_bit(RD_WRITE_MOSTLY, &other->flags))
			d->state |= 1 << MD_DISK_WRITEMOSTLY;
		if (test_bit(RD_FAILFAST, &other->flags))
			d->state |= 1 << MD_DISK_FAILFAST;
	}
	/* a slot nobody fills is recorded as a removed, failed member */
	for (i = 0; i < mddev->raid_disks && i < MD_SB_DISKS; i++) {
		if (test_bit(i, used))
			continue;
		sb->disks[i].number = i;
		sb->disks[i].raid_disk = i;
		sb->disks[i].state = (1 << MD_DISK_REMOVED) |
				     (1 << MD_DISK_FAULTY);
		failed++;
	}
	sb->nr_disks = nr;
	sb->active_disks = active;
	sb->working_disks = working;
	sb->failed_disks = failed;
	sb->spare_disks = spare;
	sb->this_disk = sb->disks[rdev->desc_nr];
	sb->sb_csum = sb090_checksum(sb);
}

/*
 * The superblock goes to the reserved block at the device's new end;
 * the data may use everything before it, up to what the 32-bit size
 * field can describe.  The internal bitmap lives right after the
 * superblock and would have to move with it: refused, as in-tree.
 */
static int sb090_resize_room(struct mddev *mddev, struct md_rdev *rdev,
			     sector_t *sb_start, sector_t *room)
{
	sector_t dev_sectors = bdev_nr_sectors(rdev->bdev);
	sector_t new_sb;

	if (dev_sectors < 2 * MD_RESERVED_SECTORS)
		return -ENOSPC;
	new_sb = MD_NEW_SIZE_SECTORS(dev_sectors);
	if (new_sb != rdev->sb_start && md_internal_bitmap(mddev)) {
		pr_warn("md: %s: %pg: the 0.90 superblock cannot move with an internal bitmap\n",
			mdname(mddev), rdev->bdev);
		return -EBUSY;
	}
	*sb_start = new_sb;
	*room = min(new_sb, SB090_MAX_SECTORS);
	return 0;
}

static unsigned int sb090_io_bytes(struct md_rdev *rdev)
{
	return MD_SB_BYTES;
}

const struct md_super_ops md_super_090_ops = {
	.name		= "0.90",
	.load		= sb090_load,
	.same_array	= sb090_same_array,
	.import_array	= sb090_import_array,
	.import_rdev	= sb090_import_rdev,
	.fill		= sb090_fill,
	.io_bytes	= sb090_io_bytes,
	.resize_room	= sb090_resize_room,
};
