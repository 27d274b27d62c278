/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Bad-block log internals of md-mod (md_badblocks.c); personalities use
 * the md_rdev_*badblock* calls of md.h.
 */
#ifndef _MD_BADBLOCKS_H
#define _MD_BADBLOCKS_H

#include "md.h"

/* At import (md_bb_init, before any superblock is read) and release. */
int md_bb_init(struct md_rdev *rdev);
void md_bb_exit(struct md_rdev *rdev);

/*
 * Superblock load found a log area of @log_sectors at @log_sector:
 * enable the list there and, if @shift >= 0 (MD_FEATURE_BAD_BLOCKS),
 * read the entries (units of 2^shift sectors) as acknowledged.  Before
 * the member is bound.
 */
int md_bb_load(struct md_rdev *rdev, sector_t log_sector,
	       unsigned int log_sectors, int shift);

/*
 * The superblock moved and the log area, placed relative to it, with
 * it, to @log_sector: the list is stored there at the next superblock
 * write round, before the superblock that points there.  No-op without
 * a log.  reconfig_mutex and sb_mutex held.
 */
void md_bb_move(struct md_rdev *rdev, sector_t log_sector);

/*
 * Superblock write round (sb_mutex held): store the list if it changed
 * since the last store.  -ENOSPC if it does not fit the area, or the
 * write error: the caller fails the member.  After the superblocks are
 * written, md_bb_written() acknowledges what was stored (nothing if the
 * list changed again meanwhile).
 */
int md_bb_write(struct md_rdev *rdev);
void md_bb_written(struct md_rdev *rdev);

#endif
