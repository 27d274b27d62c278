/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private state of the RAID1 personality.
 *
 * Locking summary (details beside each field):
 *   conf->lock      irq-safe spinlock: the sync side of the barrier
 *                   (barrier[], nr_waiting[], nr_queued[], sync_pending,
 *                   ->frozen are written under it) and the two retry
 *                   lists.  Waiters sleep on conf->wait.
 *   normal IO       enters and leaves a bucket without conf->lock:
 *                   nr_pending[] is atomic, barrier[] and ->frozen are
 *                   read locklessly; raid1.c "the barrier" has the
 *                   barrier pairings.
 *   mddev->lock     a member's RD_IN_SYNC/RD_FAULTY transitions and
 *                   mddev->degraded; replacing ->mirrors, ->raid_disks and
 *                   the pools (raid1_resize_disks(), array suspended).
 *   reconfig_mutex  stores to mirrors[].rdev (run, hot_add, hot_remove).
 *   RCU             IO-path loads of mirrors[].rdev.
 *   rdev->nr_pending  pins a member in its slot: hot_remove refuses a
 *                   member with IO pending.
 *   behind_lock     irq-safe spinlock: write-behind's tree of behind
 *                   writes and its count (raid1.c, "write-behind").
 *
 * RAID10 runs on the same engine (raid10.c): conf->layout says where the
 * copies of an array range live, and everything here that says "array
 * sector" means raid10's virtual sector.  Without a layout (RAID1),
 * mirror i holds array sector s at member sector s.
 */
#ifndef _MD_RAID1_H
#define _MD_RAID1_H

#include <linux/interval_tree.h>
#include <linux/mempool.h>
#include <linux/workqueue.h>
#include "md.h"

/*
 * Barrier buckets: 1 MiB units of the array, hashed onto R1_NR_BUCKETS.
 * A sync request keeps normal IO out of its whole unit while it runs, so
 * the unit is small: a foreground IO meets a sync request only if it
 * lands in the same MiB (1 in 1024 on a 1 GiB array, not 1 in 16 as with
 * 64 MiB units).  Normal bios are split at unit boundaries.
 */
#define R1_BUCKET_SHIFT		11
#define R1_BUCKET_SECTORS	BIT(R1_BUCKET_SHIFT)
#define R1_NR_BUCKETS		1024

/* One sync_request() call covers at most 64 KiB. */
#define R1_SYNC_BYTES		(64 * 1024)
#define R1_SYNC_SECTORS		(R1_SYNC_BYTES >> SECTOR_SHIFT)
#define R1_SYNC_PAGES		(R1_SYNC_BYTES / PAGE_SIZE)
/* Sync requests the array may have in flight (raise_barrier()). */
#define R1_SYNC_DEPTH		32

#define R1_POOL_MIN		16
/* Sync requests in the mempool reserve; the cache holds up to a window. */
#define R1_SYNC_POOL_MIN	2
#define R1_SYNC_CACHE_MAX	R1_SYNC_DEPTH

struct r1mirror {
	struct md_rdev __rcu *rdev;	/* see locking summary */
	/* where the last read ended; a hint, READ_ONCE/WRITE_ONCE */
	sector_t head;
	/*
	 * Behind writes in conf->behind_tree with a clone to this mirror:
	 * changed under behind_lock, read locklessly by reads (zero: no
	 * need to look at the tree).
	 */
	atomic_t behind;
};

/* r1slot.dev, r1sync_slot.dev: that mirror holds no copy of the range */
#define R1_NO_COPY		MD_MAX_SECTOR

struct r1conf;
struct r1slot;

/*
 * Where the copies live (RAID10's layouts).  Pure functions of the
 * geometry, which is fixed while the array runs; any context.
 */
struct r1_layout {
	/* member sector of array @sector on mirror @disk, or R1_NO_COPY */
	sector_t (*dev)(const struct r1conf *conf, sector_t sector, int disk);
	/* the same for every mirror at once, into @slots[i].dev */
	void (*map)(const struct r1conf *conf, sector_t sector,
		    struct r1slot *slots);
	/* sectors from @sector that stay contiguous on every copy */
	sector_t (*room)(const struct r1conf *conf, sector_t sector);
	/* array sector that mirror @disk holds at member @dev, or R1_NO_COPY */
	sector_t (*virt)(const struct r1conf *conf, int disk, sector_t dev);
	/*
	 * Does every array sector keep a working copy if mirror @without
	 * (-1: none) stopped working too?  Under rcu_read_lock(); see
	 * r1_mirror_works().
	 */
	bool (*enough)(struct r1conf *conf, int without);
};

/* One array range a recovery step copies (r1_recover_layout()). */
struct r1_recover {
	sector_t sector;
};

struct r1conf {
	struct mddev *mddev;
	/* NULL for RAID1; set before the array runs, never changed */
	const struct r1_layout *layout;
	void *layout_data;		/* the layout's own, kfree()d with conf */
	const char *name;		/* "raid1" or "raid10", for messages */
	/* layout only: raid_disks entries, the sync thread's scratch */
	struct r1_recover *recover;
	int raid_disks;			/* mirrors; see raid1_resize_disks() */
	/*
	 * 2 * raid_disks entries: the members, then each one's replacement
	 * (raid1.c "replacement")
	 */
	struct r1mirror *mirrors;

	spinlock_t lock;		/* see the locking summary */
	/*
	 * Any change of the counters below that someone may wait for.
	 * Normal IO wakes it only when wq_has_sleeper() says so.
	 */
	wait_queue_head_t wait;
	/*
	 * Normal r1bios holding the bucket: incremented locklessly by
	 * wait_barrier() (under conf->lock on its slow path), decremented
	 * locklessly by allow_barrier().
	 */
	atomic_t nr_pending[R1_NR_BUCKETS];
	/* sync requests / fixups holding it; written under lock */
	atomic_t barrier[R1_NR_BUCKETS];
	int nr_waiting[R1_NR_BUCKETS];	/* normal IO blocked; lock */
	int nr_queued[R1_NR_BUCKETS];	/* of nr_pending: parked; lock */
	int sync_pending;		/* between raise and lower; lock */
	/* silent sync requests in flight, and whether one failed; lock */
	int sync_silent;
	bool sync_silent_failed;
	/* quiesce(1): admit no new IO; written under lock, read locklessly */
	bool frozen;
	struct list_head retry;		/* struct r1bio.retry */
	struct list_head sync_retry;	/* struct r1sync.retry */
	/*
	 * Writes whose failed range was recorded as bad blocks, waiting for
	 * the superblock write that makes it durable (struct r1bio.retry);
	 * lock.  Counted in nr_queued like parked retries.
	 */
	struct list_head bb_wait;
	/*
	 * Finished sync requests kept for reuse while a sync runs, with
	 * their pages (struct r1sync.retry); conf->lock.  Emptied by
	 * close_sync() and free.
	 */
	struct list_head sync_cache;
	int sync_ncached;		/* entries on sync_cache; lock */

	struct workqueue_struct *wq;	/* ordered: one work item at a time */
	struct work_struct work;

	mempool_t *r1bio_pool;
	mempool_t *sync_pool;
	/*
	 * Slots per r1sync that sync_pool allocates (raid_disks, changed
	 * with it by raid1_resize_disks() while no sync runs).
	 */
	int sync_slots;
	struct bio_set clone_bs;	/* member clones, front_pad r1clone */
	struct bio_set split_bs;	/* bucket-boundary splits */

	/*
	 * Write-behind (raid1.c, "write-behind").  behind_tree holds every
	 * behind write (r1bio.behind_node, keyed by array sectors) from
	 * submission to r1_finish(); behind_writes counts them.  Both
	 * change under behind_lock; behind_writes is also read with
	 * READ_ONCE as a hint (zero: nothing to look up).  Writers and
	 * readers that must wait for a behind clone sleep on behind_wait.
	 */
	spinlock_t behind_lock;
	struct rb_root_cached behind_tree;
	unsigned int behind_writes;
	wait_queue_head_t behind_wait;
	struct bio_set behind_bs;	/* payload copies, with bvecs */
};

/*
 * Does mirror @i (< raid_disks) hold the data: its member or its
 * replacement In_sync and not faulty?  Under rcu_read_lock().
 */
static inline bool r1_mirror_works(struct r1conf *conf, int i)
{
	struct r1mirror *m = conf->mirrors;

	return md_rdev_working(rcu_dereference(m[i].rdev)) ||
	       md_rdev_working(rcu_dereference(m[i + conf->raid_disks].rdev));
}

/* State of one mirror within an r1bio or r1sync. */
enum r1_slot_state {
	R1S_UNUSED,
	R1S_ISSUED,
	R1S_OK,
	R1S_ERR,
	R1S_NOTSUPP,		/* discard/write-zeroes not supported */
	R1S_BADBLOCK,		/* write failed, recorded as bad blocks */
};

struct r1slot {
	struct md_rdev *rdev;	/* pinned (nr_pending) while used */
	sector_t dev;		/* member sector of the range, or R1_NO_COPY */
	/*
	 * enum r1_slot_state; WRITE_ONCE by the clone's completion, read
	 * with READ_ONCE by reads looking at a behind write
	 */
	u8 state;
	bool failfast;		/* clone sent with REQ_FAILFAST_DEV */
	bool behind;		/* write clone sent from r1bio.behind */
};

/* r1bio.flags */
enum r1bio_flag {
	R1B_WRITE,		/* write path, else read */
	R1B_WSTARTED,		/* md_write_start() done: owe md_write_end() */
	R1B_FLUSH,		/* empty flush: member errors fail nothing */
	R1B_UPTODATE,		/* a write reached an In_sync mirror */
	R1B_ERRORS,		/* a clone failed and needs md_error() */
	R1B_BITMAP,		/* md_bitmap_startwrite() done: owe endwrite */
	R1B_BEHIND,		/* a behind write: in conf->behind_tree */
	R1B_FAST_OK,		/* an In_sync non-behind clone succeeded */
	R1B_RETURNED,		/* master completed (a behind write, early) */
};

/*
 * One normal request (after splitting) on the array.  Holds a pending
 * count on its bucket from wait_barrier() to r1_finish().
 */
struct r1bio {
	struct r1conf *conf;
	struct bio *master;
	sector_t sector;		/* array sector */
	unsigned int sectors;
	unsigned int bucket;
	unsigned long flags;		/* enum r1bio_flag, atomic bitops */
	atomic_t remaining;		/* clones in flight + submitter bias */
	/*
	 * Behind writes only: the clones not sent behind + the submitter
	 * bias (the last one may complete the master early), and the
	 * behind clones (the last one frees the copy).
	 */
	atomic_t sync_remaining;
	atomic_t behind_remaining;
	struct bio *behind;		/* payload copy for the behind clones */
	struct interval_tree_node behind_node;	/* conf->behind_tree */
	int read_disk;
	struct md_io_stamp start;	/* md_io_start() of master */
	struct list_head retry;		/* conf->retry; conf->lock */
	/* raid_disks; slot i written by clone i, read by the last one */
	struct r1slot slots[];
};

/* A member clone; the bio_set front pad. */
struct r1clone {
	struct r1bio *r1;
	int disk;
	struct bio bio;			/* must be last */
};

/* What a mirror does in a sync request. */
enum r1_sync_role {
	R1R_NONE,
	R1R_SOURCE,		/* In_sync: may be read */
	R1R_TARGET,		/* written from the source */
};

struct r1sync_slot {
	struct md_rdev *rdev;		/* pinned while role != R1R_NONE */
	sector_t dev;			/* member sector, or R1_NO_COPY */
	u8 role;			/* enum r1_sync_role */
	u8 state;			/* enum r1_slot_state of the last IO */
	bool rewrite;			/* write it in the write phase */
	struct bio *bio;		/* bio_kmalloc(R1_SYNC_PAGES) */
	struct page *pages[R1_SYNC_PAGES];
};

enum r1sync_mode {
	R1M_RESYNC,
	R1M_RECOVER,
	R1M_CHECK,
	R1M_REPAIR,
};

/* One sync_request() chunk; holds a barrier on its bucket. */
struct r1sync {
	struct r1conf *conf;
	sector_t sector;
	unsigned int sectors;
	unsigned int bucket;
	int mode;			/* enum r1sync_mode */
	bool writing;			/* write phase issued */
	int source;			/* slot whose pages hold good data */
	/*
	 * One of several requests for one recovery position (a layout):
	 * finishing it does not call md_done_sync(); the one that does is
	 * issued after every silent one finished (conf->sync_silent).
	 */
	bool silent;
	atomic_t remaining;		/* bios in flight in this phase */
	/* on conf->sync_retry while queued, conf->sync_cache while free */
	struct list_head retry;		/* conf->lock */
	int nslots;			/* slots[] entries (sync_slots) */
	struct r1sync_slot slots[];	/* raid_disks */
};

/* The engine raid10.c runs on (raid1.c). */
int r1_engine_run(struct mddev *mddev, const char *name,
		  const struct r1_layout *layout, void *layout_data);
extern const struct md_personality r1_engine;

#endif
