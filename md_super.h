/* SPDX-License-Identifier: GPL-2.0 */
/*
 * md_super.h - version-1 superblock (1.0, 1.1, 1.2) handling, used by
 * the core.  Layout: <uapi/linux/raid/md_p.h> struct mdp_superblock_1.
 */
#ifndef _MD_SUPER_H
#define _MD_SUPER_H

#include "md.h"

/*
 * Read and check @rdev's superblock for @minor_version (0: at the end,
 * 1: at sector 0, 2: at 4 KiB).  Checks magic, major version, checksum,
 * feature bits, offsets against the device size.  On success fills
 * rdev->sb_page, sb_start, data_offset, sectors, desc_nr, sb_events and
 * returns 0; otherwise logs why ("mdX: sdb: bad superblock checksum")
 * and returns -EINVAL (or an IO error).
 */
int md_super_load(struct md_rdev *rdev, int minor_version);

/* 0 if @rdev's superblock belongs to the same array as @ref's. */
int md_super_same_array(struct md_rdev *ref, struct md_rdev *rdev);

/* Take the array description from the freshest member's superblock. */
int md_super_import_array(struct mddev *mddev, struct md_rdev *freshest);

/* Set @rdev's role/state (raid_disk, In_sync, recovery_offset, ...)
 * from its superblock, relative to the imported array. */
int md_super_import_rdev(struct mddev *mddev, struct md_rdev *rdev);

/* Build @rdev's superblock image from the in-memory state. */
void md_super_fill(struct mddev *mddev, struct md_rdev *rdev);

/*
 * Bump events as needed and write every live member's superblock,
 * ordered so that a clean superblock never covers unsynced data: each
 * write is REQ_PREFLUSH | REQ_FUA.  Waits for completion; a member whose
 * write fails is passed to md_error().  Caller holds reconfig_mutex or
 * is the md thread.
 */
void md_super_write_all(struct mddev *mddev);

/* Give back what md_super_load() took. */
void md_super_free(struct md_rdev *rdev);

#endif
