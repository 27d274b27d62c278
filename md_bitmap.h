/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The md internal write-intent bitmap (md_bitmap.c has the design).
 *
 * Callers: the core creates the bitmap at md_run() (before pers->run)
 * when the freshest superblock has MD_FEATURE_BITMAP_OFFSET, and
 * destroys it after pers->free(); the personality brackets every write
 * with md_bitmap_startwrite()/md_bitmap_endwrite() and asks
 * md_bitmap_chunk_clean() whether a resync may skip a region.
 * mddev->bitmap is set and cleared under reconfig_mutex with no array
 * IO in flight, so the IO path reads it without locking.
 */
#ifndef _MD_BITMAP_H
#define _MD_BITMAP_H

#include <linux/types.h>
#include <linux/wait.h>
#include "md.h"

/* The bitmap superblock, 256 bytes, little-endian on disk. */
#define MD_BITMAP_MAGIC		0x6d746962
#define MD_BITMAP_SB_BYTES	256

struct md_bitmap_sb {
	__le32 magic;
	__le32 version;		/* 3 or 4 read; written back as found */
	u8 uuid[16];		/* the array's set_uuid */
	__le64 events;		/* the array's events when last written */
	__le64 events_cleared;	/* events when bits were last cleared */
	__le64 sync_size;	/* sectors the bits cover: resync_max_sectors */
	__le32 state;		/* BIT(1) stale, BIT(2) write error */
	__le32 chunksize;	/* bytes per bit, a power of two */
	__le32 daemon_sleep;	/* seconds between clearing passes */
	__le32 write_behind;	/* raid1 write-behind depth (bitmap/backlog) */
	__le32 sectors_reserved; /* room after the sb, 0 = unknown */
	__le32 nodes;		/* clustered md: refused when not 0 */
	u8 cluster_name[64];
	u8 pad[MD_BITMAP_SB_BYTES - 136];
};

#define MD_BITMAP_STATE_STALE		1
#define MD_BITMAP_STATE_WRITE_ERROR	2

struct md_bitmap;
struct seq_file;

/*
 * Load the bitmap at mddev->bitmap_offset from an in-sync member, check
 * it (logging why it is refused) and write it back to every member.
 * reconfig_mutex held, no array IO.  0 or -errno; sets mddev->bitmap.
 */
int md_bitmap_create(struct mddev *mddev);
/* Stop the daemon and free; reconfig_mutex held, no array IO. */
void md_bitmap_destroy(struct mddev *mddev);
/*
 * Before a write to [@sector, +@sectors) reaches any member: count it
 * in flight and make sure its chunks' bits are on disk.  May sleep.
 */
void md_bitmap_startwrite(struct md_bitmap *bm, sector_t sector,
			  sector_t sectors);
/*
 * The same without sleeping: 0 when the bits are on disk already, else
 * the stamp md_bitmap_written() must see before any member write of
 * the range is issued (their page write has been started).  Does not
 * sleep (process context); the range counts in flight either way.
 */
u64 md_bitmap_startwrite_nowait(struct md_bitmap *bm, sector_t sector,
				sector_t sectors);
/* Has the page write for stamp @need completed on every member? */
bool md_bitmap_written(struct md_bitmap *bm, u64 need);
/*
 * True if md_bitmap_written(@need); else queue @wqe (INIT_LIST_HEAD'ed
 * entry, func set) on the bitmap's flush wait queue, if not queued yet:
 * its function runs, under the queue's lock, at the end of every page
 * write round until it removes itself (list_del_init) or is cancelled.
 * Rechecks after queueing, so true is never a missed wake-up.
 */
bool md_bitmap_notify(struct md_bitmap *bm, u64 need,
		      struct wait_queue_entry *wqe);
/* A writer waited @ns for its bits (md/stats/bitmap_wait_*). */
void md_bitmap_count_wait(struct md_bitmap *bm, u64 ns);
/* Take @wqe off the queue (before it or @bm goes away); @bm may be NULL. */
void md_bitmap_notify_cancel(struct md_bitmap *bm,
			     struct wait_queue_entry *wqe);
/* The write is done on every member it went to.  Any context. */
void md_bitmap_endwrite(struct md_bitmap *bm, sector_t sector,
			sector_t sectors);
/*
 * May a resync or bitmap-based recovery skip @sector?  True when its
 * chunk's bit is clear; *@sectors is set to the sectors from @sector to
 * the chunk's end either way.
 */
bool md_bitmap_chunk_clean(struct md_bitmap *bm, sector_t sector,
			   sector_t *sectors);
/*
 * The component size changes and the resync space becomes @sectors long
 * (resync_max_sectors is updated after): resize the bitmap (a larger
 * chunk if the bits no longer fit).  Array suspended, no sync running.
 */
int md_bitmap_resize(struct mddev *mddev, sector_t sectors);
/* Superblock round (md_super_write_all): record @events. */
void md_bitmap_update_sb(struct mddev *mddev, u64 events);
/* Write the whole bitmap to every member (a member was added). */
void md_bitmap_write_all(struct mddev *mddev);
/* Clear what may be cleared now and write it (array stopping). */
void md_bitmap_flush(struct mddev *mddev);
/* May a former member with superblock @events be rebuilt from bits? */
bool md_bitmap_readd_ok(struct mddev *mddev, u64 events);
/*
 * md/bitmap_set_bits: mark the chunks listed in @buf ("N" or "N-M",
 * blank-separated) for a resync.  reconfig_mutex held; 0 or -errno
 * (nothing changed then).
 */
int md_bitmap_set_bits(struct mddev *mddev, const char *buf);

/*
 * The write-behind depth, bitmap/backlog (write_behind in the superblock):
 * how many writes raid1 may complete before its write-mostly members
 * have them; 0 = none.  Any context, no lock: the value read may be
 * one a concurrent store is replacing.
 */
unsigned int md_bitmap_backlog(struct md_bitmap *bm);
/* @n behind writes are in flight: bitmap/max_backlog_used. Any context. */
void md_bitmap_behind_seen(struct md_bitmap *bm, unsigned int n);
/* md/bitmap/ (location, chunksize, time_base, backlog, ...) */
extern const struct attribute_group md_bitmap_group;
/* The /proc/mdstat "bitmap: ..." line; mddev->lock held. */
void md_bitmap_status(struct seq_file *seq, struct mddev *mddev);

#endif
