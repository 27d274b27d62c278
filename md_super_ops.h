/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The seam between the superblock front end (md_super.c: the calls the
 * core makes, the parallel write of every member) and the on-disk
 * formats: version 1 (md_super.c) and version 0.90 (md_super_090.c).
 * Private to md_super*.c; the core only sees md_super.h.
 *
 * Every op runs with the member list stable (reconfig_mutex held, or
 * the md thread inside md_super_write_all(), which the core serialises
 * with sb_mutex) except ->load, which sees an rdev not yet on any list.
 * rdev->sb_page is allocated before ->load and belongs to the format.
 */
#ifndef _MD_SUPER_OPS_H
#define _MD_SUPER_OPS_H

#include "md.h"

/* What one round of superblock writes records, taken under mddev->lock. */
struct md_sb_state {
	u64 events;
	u64 utime;
	sector_t resync_offset;
	bool clean;
};

struct md_super_ops {
	const char *name;
	/*
	 * Read and check the superblock of @rdev (sb_page allocated, bdev
	 * open), log why when refusing; on success set sb_start,
	 * data_offset, sectors, desc_nr and sb_events.
	 */
	int (*load)(struct md_rdev *rdev, int minor_version);
	/* See md_super_same_array(); @ref is bound to an array. */
	int (*same_array)(struct md_rdev *ref, struct md_rdev *rdev);
	/* See md_super_import_array() and md_super_import_rdev(). */
	int (*import_array)(struct mddev *mddev, struct md_rdev *freshest);
	int (*import_rdev)(struct mddev *mddev, struct md_rdev *rdev);
	/* Build @rdev's image for the round described by @st. */
	void (*fill)(struct mddev *mddev, struct md_rdev *rdev,
		     const struct md_sb_state *st);
	/* Bytes to write at rdev->sb_start, at most one page. */
	unsigned int (*io_bytes)(struct md_rdev *rdev);
	/*
	 * @rdev's device may have changed size since load (a disk grown
	 * under a running array): where its superblock belongs on the
	 * device as it is now (*sb_start; it moves only in formats that keep
	 * it at the end) and how many sectors from data_offset the data
	 * may then use (*room), clear of the superblock and of what the
	 * format keeps beside it.  -EBUSY if the superblock would have to
	 * move but cannot (an internal bitmap is placed relative to it),
	 * -ENOSPC if the device is too small for a superblock.  Changes
	 * nothing; md_super_resize_rdev() applies the result.
	 */
	int (*resize_room)(struct mddev *mddev, struct md_rdev *rdev,
			   sector_t *sb_start, sector_t *room);
};

extern const struct md_super_ops md_super_1_ops;
extern const struct md_super_ops md_super_090_ops;

/* Read one page at @sector of @rdev into rdev->sb_page. */
int md_super_read_page(struct md_rdev *rdev, sector_t sector);

/* The member whose superblock carries mddev->events, or NULL. */
struct md_rdev *md_super_freshest(struct mddev *mddev);

#endif
