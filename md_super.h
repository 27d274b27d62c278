/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Version-1 superblock (1.0, 1.1, 1.2) handling, used by
 * the core.  Layout: <uapi/linux/raid/md_p.h> struct mdp_superblock_1.
 * Documentation/superblock.rst describes the rules.  All calls may
 * sleep; all but md_super_load()/md_super_free() expect the member list
 * to be stable (reconfig_mutex held; the md thread takes it too).
 */
#ifndef _MD_SUPER_H
#define _MD_SUPER_H

#include "md.h"

/*
 * Read and check @rdev's superblock for @minor_version (0: at the end,
 * 1: at sector 0, 2: at 4 KiB).  Needs rdev->bdev open.  Checks magic,
 * major version, max_dev, checksum, super_offset, padding, feature bits
 * (bitmap, reshape, journal, PPL, bad blocks, ... are refused),
 * dev_number, and the data area against the device size.  On success
 * fills rdev->sb_page (allocated if NULL), sb_start, data_offset,
 * sectors, desc_nr (= sb dev_number), sb_events and returns 0; otherwise
 * logs why ("md: ram1: bad superblock checksum ...") and returns
 * -EINVAL, -ENOMEM or the read error; a page it allocated is freed.
 */
int md_super_load(struct md_rdev *rdev, int major_version, int minor_version);

/*
 * 0 if @rdev's superblock belongs to the same array as @ref's (same
 * set_uuid, level, layout, chunk); else logs
 * "md: <dev>: has a different array UUID, not adding" and -EINVAL.
 */
int md_super_same_array(struct md_rdev *ref, struct md_rdev *rdev);

/*
 * Take the array description from the freshest member's superblock
 * (the caller picks the largest rdev->sb_events): major_version = 1,
 * level, layout, chunk_sectors, raid_disks, dev_sectors, uuid, set_name,
 * ctime, utime, events, resync_offset (MD_MAX_SECTOR = clean), max_disks
 * (sb max_dev).  Not minor_version, persistent or array_sectors.
 */
int md_super_import_array(struct mddev *mddev, struct md_rdev *freshest);

/*
 * Set @rdev's role/state from its superblock, relative to the imported
 * array: raid_disk, saved_raid_disk, RD_IN_SYNC, RD_FAULTY,
 * RD_WRITE_MOSTLY, recovery_offset, read_errors.
 *
 * Assembling (mddev->pers == NULL; call after md_super_import_array with
 * every member already on mddev->disks): a member one event behind is
 * accepted, its role then taken from the freshest member's roles table;
 * an active member further behind is refused with -ESTALE ("kicking
 * non-fresh member"): the core must unbind it.  -EINVAL (logged) for a
 * member too small for the array or a journal role: unbind it too.
 * A role of 0xfffe leaves the member bound but RD_FAULTY.
 *
 * Running array (hot-add): always a spare (raid_disk -1, not in sync);
 * saved_raid_disk = its old slot if it is a current former member.
 */
int md_super_import_rdev(struct mddev *mddev, struct md_rdev *rdev);

/*
 * Make rdev->desc_nr usable: keep the dev_number from its superblock if
 * it is below mddev->max_disks and no other member has it, else take
 * the first free index.  -ENOSPC if none.  Call before binding a
 * hot-added member (after md_super_import_array for assembly).
 */
int md_super_pick_desc_nr(struct mddev *mddev, struct md_rdev *rdev);

/*
 * Build @rdev's superblock image (in rdev->sb_page) from the in-memory
 * state, without changing events.  md_super_write_all() does this for
 * every member itself; this is for callers that want the image only.
 */
void md_super_fill(struct mddev *mddev, struct md_rdev *rdev);

/*
 * dev-XXX/size on a running array: let @rdev's data use @sectors of its
 * device (0: all there is room for), typically after the device grew
 * under the array.  The room is what the device offers now after
 * data_offset, less what the format keeps beside the data; a 1.0 or
 * 0.90 superblock (and a 1.0 bad-block log) moves to the new end of
 * the device.  -ENOSPC for more than the room, -EBUSY for less than the
 * array's dev_sectors or a superblock that cannot move (internal
 * bitmap), -EINVAL for a member without a superblock image.  On success
 * sets rdev->sectors (and sb_start) in memory and returns 1, or 0 if
 * nothing changed; the caller writes the superblocks (data_size and
 * super_offset come from these fields).  Caller holds reconfig_mutex
 * and the core's sb_mutex (sb_start and the log's place change).
 */
int md_super_resize_rdev(struct mddev *mddev, struct md_rdev *rdev,
			 sector_t sectors);

/*
 * The superblock update (in-tree's md_update_sb): clears
 * MD_SB_CHANGE_DEVS/CLEAN, increments mddev->events (always, clean and
 * dirty changes too) and utime, snapshots in_sync and resync_offset under
 * mddev->lock, and writes every live member (not RD_FAULTY; spares
 * included) with REQ_PREFLUSH | REQ_FUA, in parallel, waiting for all.
 * in_sync == 0 is written as resync_offset 0 (a crash means a full
 * resync); in_sync == 1 writes mddev->resync_offset, after a flush of
 * every member.  A member whose write fails goes to md_error(); if that
 * made it Faulty the update is repeated so the rest record it.  Then
 * clears MD_SB_CHANGE_PENDING (unless the array went dirty meanwhile:
 * then it writes again) and wakes sb_wait.  Writes nothing for
 * read-only arrays (flags left alone) nor for !persistent ones (flags
 * cleared, waiters woken); members with desc_nr < 0 are skipped.
 * Callers: make sure writes are quiesced before setting in_sync = 1,
 * and that writers wait for !CHANGE_PENDING.  Every call bumps events,
 * so call it only when something changed: in-tree md writes nothing
 * when a clean array is stopped, and an extra bump makes a member that
 * was absent from a degraded run look stale (it then gets rebuilt).
 */
void md_super_write_all(struct mddev *mddev);

/* Give back what md_super_load() took. */
void md_super_free(struct md_rdev *rdev);
sector_t md_super_data_floor(struct md_rdev *rdev);
sector_t md_super_data_limit(struct md_rdev *rdev);

#endif
