// SPDX-License-Identifier: GPL-2.0
/*
 * Reshape: the core's side of restriping a running array to a new
 * geometry (mdadm --grow --raid-devices, --chunk, --layout).
 *
 * How a reshape is asked for.  mdadm states the change piece by piece
 * (dev-XXX/new_offset, chunk_size, layout, raid_disks or SET_ARRAY_INFO)
 * and then writes "reshape" to sync_action.  Each piece lands in
 * mddev->new_* / delta_disks and is validated by the personality at
 * once (md_reshape_ask()), so a geometry it cannot reach is refused
 * with a reason while nothing has moved; the old values come back.  Only
 * sync_action "reshape" starts it (md_reshape_start()): the personality
 * takes the spares it needs and the superblocks record the reshape
 * (MD_FEATURE_RESHAPE_ACTIVE) before any data moves.
 *
 * Why a power cut loses nothing.  The data moves in array order from
 * the old geometry to the new one at new data offsets (mdadm moves them
 * by at least one row's worth, when it can), so the new copy of what has moved never
 * lands on old data the superblocks still call live: the personality
 * writes a window only where that holds against the position on disk
 * and records a new position (md_reshape_checkpoint(), superblocks
 * written FUA after a flush of the window's data) before it would not.
 * Assembly after a crash continues from the recorded position and moves
 * again what had moved after it, from old data still intact.  Writes to
 * what moved after the recorded position wait for the next checkpoint:
 * written only to the new geometry, they would be lost to a crash that
 * makes the old one authoritative there again.
 *
 * In place (mdadm --backup-file; 0.90 superblocks, no head-room, fewer
 * members): the data offsets stay, so the first rows of a grow (the
 * last of a shrink) and every row of a chunk or layout change land on
 * old data a crash would still need.  mdadm copies that data to its
 * backup first and restores it at assembly; the core's part is to make
 * the copy trustworthy and to let the reshape past it only once it is
 * on disk: writes to [suspend_lo, suspend_hi) wait (md_set_suspend()
 * drains those in flight before it returns, so mdadm reads a settled
 * region), and such a row waits until mdadm holds its range and has
 * written a sync_max past it (md_sync_wait_backup()), which it does
 * only after the backup; during a reshape sync_max may go down.  Rows
 * that recording the position makes safe go on as above.
 *
 * The pass itself is the sync thread's, with MDR_RESHAPE: it walks the
 * reshape under the resync throttle like any sync, counting per member
 * (md_reshape_progress(): so sync_speed_min means what it means for a
 * resync), and the md thread finishes it (md_reshape_finish()):
 * the new description, data offsets and size become the array's.
 *
 * A takeover (md_takeover(), a level written on a running array) moves
 * no data: the new level's personality says how it reads the same
 * members (raid5 -> raid6 adds an empty Q slot, raid6 -> raid5 drops
 * it when it is the last, raid4 <-> raid5 with parity last), and the
 * core swaps the personalities with the array suspended, putting the
 * old one back if the new one does not start.
 */
#include <linux/blkdev.h>
#include <linux/slab.h>

#include "md_core.h"

/*
 * A change to the geometry asked for (a sysfs store or SET_ARRAY_INFO on
 * a running array): kept in mddev->new_* if the personality can reach
 * it, else refused with the old values back.  Asking again for what is
 * already asked is no change.
 */
int md_reshape_ask(struct mddev *mddev, int layout, int chunk_sectors,
		   int raid_disks)
{
	int old_layout = mddev->new_layout;
	int old_chunk = mddev->new_chunk_sectors;
	int old_delta = mddev->delta_disks;
	bool old_backwards = mddev->reshape_backwards;
	int err;

	lockdep_assert_held(&mddev->reconfig_mutex);
	if (!mddev->pers)
		return -ENXIO;
	if (layout == mddev->new_layout &&
	    chunk_sectors == mddev->new_chunk_sectors &&
	    raid_disks == mddev->raid_disks + (mddev->reshape_position ==
					       MD_MAX_SECTOR ?
					       mddev->delta_disks : 0))
		return 0;
	if (!mddev->pers->check_reshape) {
		pr_warn("md: %s: %s cannot change its geometry (no reshape for this level)\n",
			mdname(mddev), mddev->pers->name);
		return -EINVAL;
	}
	if (mddev->reshape_position != MD_MAX_SECTOR ||
	    test_bit(MDR_RUNNING, &mddev->recovery)) {
		pr_warn("md: %s: geometry change refused: a %s is running\n",
			mdname(mddev),
			mddev->reshape_position != MD_MAX_SECTOR ?
			"reshape" : "sync");
		return -EBUSY;
	}
	if (mddev->ro)
		return -EROFS;
	mddev->new_layout = layout;
	mddev->new_chunk_sectors = chunk_sectors;
	mddev->delta_disks = raid_disks - mddev->raid_disks;
	/* as in-tree: fewer members reshape from the end, more from the start */
	if (mddev->delta_disks)
		mddev->reshape_backwards = mddev->delta_disks < 0;
	err = mddev->pers->check_reshape(mddev);
	if (err) {
		mddev->new_layout = old_layout;
		mddev->new_chunk_sectors = old_chunk;
		mddev->delta_disks = old_delta;
		mddev->reshape_backwards = old_backwards;
	}
	return err;
}

/* Is a change asked for that a reshape would make? */
static bool md_reshape_asked(struct mddev *mddev)
{
	return mddev->delta_disks || mddev->new_layout != mddev->layout ||
	       mddev->new_chunk_sectors != mddev->chunk_sectors ||
	       mddev->new_level != mddev->level;
}

/* sync_action "reshape": begin the change asked for. */
int md_reshape_start(struct mddev *mddev)
{
	struct md_rdev *rdev;
	int err;

	lockdep_assert_held(&mddev->reconfig_mutex);
	if (!mddev->pers || !mddev->pers->start_reshape)
		return -EINVAL;
	if (mddev->reshape_position != MD_MAX_SECTOR)
		return -EBUSY;
	if (!md_reshape_asked(mddev)) {
		pr_warn("md: %s: reshape refused: no change of geometry was asked for\n",
			mdname(mddev));
		return -EINVAL;
	}
	err = md_sync_may_start(mddev);
	if (err)
		return err;
	md_suspend(mddev);
	mutex_lock(&to_core(mddev)->sb_mutex);
	err = mddev->pers->start_reshape(mddev);
	mutex_unlock(&to_core(mddev)->sb_mutex);
	md_resume(mddev);
	if (err)
		return err;
	rdev_for_each(rdev, mddev) {
		md_rdev_link_slot(rdev);
		md_notify(rdev->sysfs_state);
	}
	pr_info("md: %s: reshape to %d members, layout %d, chunk %d KiB started\n",
		mdname(mddev), mddev->raid_disks, mddev->new_layout,
		mddev->new_chunk_sectors / 2);
	clear_bit(MDR_FROZEN, &mddev->recovery);
	md_resized(mddev);
	md_notify_sync(mddev, MD_KN_ACTION);
	return 0;
}

void md_reshape_checkpoint(struct mddev *mddev, sector_t pos)
{
	spin_lock_irq(&mddev->lock);
	mddev->reshape_position = pos;
	spin_unlock_irq(&mddev->lock);
	WRITE_ONCE(mddev->curr_resync_completed,
		   md_reshape_progress(mddev, pos));
	set_bit(MD_SB_CHANGE_DEVS, &mddev->sb_flags);
	md_update_sb(mddev);
	md_notify_sync(mddev, MD_KN_COMPLETED);
}
EXPORT_SYMBOL_GPL(md_reshape_checkpoint);

/*
 * The sync thread moved everything (md thread, reconfig_mutex): the new
 * geometry becomes the array's.
 */
void md_reshape_finish(struct mddev *mddev)
{
	struct md_core *core = to_core(mddev);
	struct md_rdev *rdev;
	sector_t size;

	lockdep_assert_held(&mddev->reconfig_mutex);
	md_suspend(mddev);
	mutex_lock(&core->sb_mutex);
	mddev->pers->finish_reshape(mddev);
	/* to fewer members: those past the new count hold nothing now */
	rdev_for_each(rdev, mddev) {
		if (rdev->raid_disk < mddev->raid_disks)
			continue;
		md_rdev_unlink_slot(rdev);
		rdev->raid_disk = -1;
		rdev->recovery_offset = 0;
		clear_bit(RD_IN_SYNC, &rdev->flags);
		md_notify(rdev->sysfs_state);
	}
	spin_lock_irq(&mddev->lock);
	mddev->layout = mddev->new_layout;
	mddev->chunk_sectors = mddev->new_chunk_sectors;
	mddev->delta_disks = 0;
	mddev->reshape_backwards = false;
	mddev->reshape_position = MD_MAX_SECTOR;
	spin_unlock_irq(&mddev->lock);
	rdev_for_each(rdev, mddev) {
		/* data moved up: its area ends where it did */
		if (rdev->new_data_offset > rdev->data_offset)
			rdev->sectors = min(rdev->sectors,
					    md_super_data_limit(rdev) -
					    rdev->new_data_offset);
		rdev->data_offset = rdev->new_data_offset;
	}
	size = mddev->pers->size(mddev, mddev->dev_sectors, mddev->raid_disks);
	if (!to_core(mddev)->external_size || size < mddev->array_sectors)
		mddev->array_sectors = size;
	WRITE_ONCE(mddev->resync_max_sectors,
		   md_sync_sectors(mddev, mddev->pers, mddev->dev_sectors));
	mutex_unlock(&core->sb_mutex);
	md_resume(mddev);
	set_capacity_and_notify(mddev->gendisk, mddev->array_sectors);
	pr_info("md: %s: reshape done: %d members, layout %d, chunk %d KiB\n",
		mdname(mddev), mddev->raid_disks, mddev->layout,
		mddev->chunk_sectors / 2);
	set_bit(MD_SB_CHANGE_DEVS, &mddev->sb_flags);
	md_update_sb(mddev);
	md_new_event();
}

/*
 * For a takeover from RAID0: is it one zone (every member holds as many
 * whole chunks)?  Then *@sectors is what each member's data uses.
 */
bool md_takeover_one_zone(struct mddev *mddev, sector_t *sectors)
{
	sector_t size = MD_MAX_SECTOR, rounded;
	int chunk = mddev->chunk_sectors;
	struct md_rdev *rdev;

	if (chunk <= 0)
		return false;
	rdev_for_each(rdev, mddev)
		if (rdev->raid_disk >= 0)
			size = min(size, rdev->sectors);
	rounded = round_down(size, chunk);
	rdev_for_each(rdev, mddev)
		if (rdev->raid_disk >= 0 &&
		    round_down(rdev->sectors, chunk) != rounded)
			return false;
	*sectors = rounded;
	return true;
}
EXPORT_SYMBOL_GPL(md_takeover_one_zone);

/*
 * sysfs level on a running array: the new level's personality takes the
 * array over without moving data, or nothing changes.
 */
int md_takeover(struct mddev *mddev, int level)
{
	struct md_core *core = to_core(mddev);
	struct md_personality *old = mddev->pers, *pers;
	int o_level = mddev->level, o_layout = mddev->layout;
	int o_chunk = mddev->chunk_sectors, o_disks = mddev->raid_disks;
	sector_t o_dev = mddev->dev_sectors;
	struct md_rdev *rdev, *dropped = NULL;
	struct md_takeover t;
	int *o_slots = NULL;
	sector_t size;
	int err, err2, i;

	lockdep_assert_held(&mddev->reconfig_mutex);
	if (mddev->reshape_position != MD_MAX_SECTOR ||
	    test_bit(MDR_RUNNING, &mddev->recovery))
		return -EBUSY;
	if (mddev->ro)
		return -EROFS;
	pers = md_get_pers_ref(level);
	if (!pers || !pers->takeover) {
		pr_warn("md: %s: level change from %d to %d is not supported (no takeover)\n",
			mdname(mddev), o_level, level);
		err = -EINVAL;
		goto put_pers;
	}
	t.drop_slot = -1;
	t.dev_sectors = 0;
	t.slot_mul = 1;
	t.slot_div = 1;
	err = pers->takeover(mddev, &t);
	if (err)
		goto put_pers;
	/* the slots as they were, should the new level not start */
	i = 0;
	rdev_for_each(rdev, mddev)
		i++;
	o_slots = kcalloc(max(i, 1), sizeof(*o_slots), GFP_KERNEL);
	if (!o_slots) {
		err = -ENOMEM;
		goto put_pers;
	}
	i = 0;
	rdev_for_each(rdev, mddev)
		o_slots[i++] = rdev->raid_disk;

	md_suspend(mddev);
	mutex_lock(&core->sb_mutex);
	rdev_for_each(rdev, mddev)
		md_rdev_unlink_slot(rdev);
	spin_lock_irq(&mddev->lock);
	WRITE_ONCE(mddev->pers, NULL);
	spin_unlock_irq(&mddev->lock);
	old->free(mddev, mddev->private);
	mddev->private = NULL;

	mddev->level = t.level;
	mddev->layout = t.layout;
	mddev->chunk_sectors = t.chunk_sectors;
	mddev->raid_disks = t.raid_disks;
	if (t.dev_sectors)
		mddev->dev_sectors = t.dev_sectors;
	rdev_for_each(rdev, mddev) {
		if (t.drop_slot >= 0 && rdev->raid_disk == t.drop_slot) {
			dropped = rdev;
			rdev->raid_disk = -1;
			clear_bit(RD_IN_SYNC, &rdev->flags);
		}
		if (t.dev_sectors && rdev->sectors > t.dev_sectors)
			rdev->sectors = t.dev_sectors;
		if (rdev->raid_disk >= 0)
			rdev->raid_disk = rdev->raid_disk * t.slot_mul /
					  t.slot_div;
	}
	WRITE_ONCE(mddev->pers, pers);
	err = pers->run(mddev);
	if (err) {
		/* the old level again, as it was */
		pr_warn("md: %s: %s cannot take the array over (%d): back to %s\n",
			mdname(mddev), pers->name, err, old->name);
		mddev->level = o_level;
		mddev->layout = o_layout;
		mddev->chunk_sectors = o_chunk;
		mddev->raid_disks = o_disks;
		mddev->dev_sectors = o_dev;
		i = 0;
		rdev_for_each(rdev, mddev)
			rdev->raid_disk = o_slots[i++];
		if (dropped)
			set_bit(RD_IN_SYNC, &dropped->flags);
		WRITE_ONCE(mddev->pers, old);
		err2 = old->run(mddev);
		WARN_ON(err2);
		swap(old, pers);
	}
	/* the resume opens the gate of whichever personality runs now */
	if (mddev->pers->quiesce)
		mddev->pers->quiesce(mddev, 1);
	mddev->new_level = mddev->level;
	mddev->new_layout = mddev->layout;
	mddev->new_chunk_sectors = mddev->chunk_sectors;
	mddev->delta_disks = 0;
	mddev->reshape_backwards = false;
	rdev_for_each(rdev, mddev)
		md_rdev_link_slot(rdev);
	size = mddev->array_sectors;
	WRITE_ONCE(mddev->resync_max_sectors,
		   md_sync_sectors(mddev, mddev->pers, mddev->dev_sectors));
	mutex_unlock(&core->sb_mutex);
	md_resume(mddev);
	module_put(old->owner);
	kfree(o_slots);
	if (err)
		return err;
	/* the sync files follow the personality (mddev_unlock() adds them) */
	set_bit(MDC_SYNC_FILES, &core->core_flags);
	pr_info("md: %s: level %d taken over as level %d, layout %d, %d members\n",
		mdname(mddev), o_level, mddev->level, mddev->layout,
		mddev->raid_disks);
	set_capacity_and_notify(mddev->gendisk, size);
	rdev_for_each(rdev, mddev)
		md_notify(rdev->sysfs_state);
	md_resized(mddev);
	md_notify_sync(mddev, MD_KN_DEGRADED);
	return 0;

put_pers:
	if (pers)
		module_put(pers->owner);
	return err;
}
