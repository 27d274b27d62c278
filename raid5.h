/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private state of the RAID4/5/6 personality (raid456.ko).
 *
 * Locking summary (details beside each field; raid5.c "Locking"):
 *   conf->lock      irq-safe spinlock: the stripe cache (hash, inactive
 *                   LRU, counts, limit), the handle list, the retry list,
 *                   the queued flushes, the stripes waiting for bitmap
 *                   bits and every r5stripe.count/.lru.
 *   sh->lock        irq-safe spinlock: the pieces a stripe has not taken
 *                   yet (r5dev.toread/towrite), its pending sync request,
 *                   its reread mask and the R5S_HANDLING bit.  Never nested with
 *                   conf->lock.
 *   ownership       a stripe with R5S_HANDLING set belongs to the state
 *                   machine: only the worker (conf->wq, one work item at
 *                   a time) runs its transitions, and member IO
 *                   completions only count down io_pending and hand it
 *                   back to the worker.  Everything marked "owner" below
 *                   is read and written by the owner alone.
 *   mddev->lock     RD_IN_SYNC/RD_FAULTY transitions and mddev->degraded.
 *   reconfig_mutex  stores to disks[].rdev (run, hot_add, hot_remove).
 *   RCU             IO-path loads of disks[].rdev; rdev->nr_pending pins
 *                   a member while IO to it is in flight.
 */
#ifndef _MD_RAID5_H
#define _MD_RAID5_H

#include <linux/bio.h>
#include <linux/mempool.h>
#include <linux/workqueue.h>
#include "md.h"
#include "raid5_geom.h"

/* One stripe head covers one page of every member. */
#define R5_STRIPE_SECTORS	(PAGE_SIZE >> SECTOR_SHIFT)

/* stripe_cache_size bounds and default, as in-tree */
#define R5_CACHE_MIN		17
#define R5_CACHE_MAX		32768
#define R5_CACHE_DEFAULT	256
/* default stripe_cache_budget_kb: 1/R5_BUDGET_DIV of RAM (raid5.c) */
#define R5_BUDGET_DIV		32
/* an idle cache gives back half its stripes above the minimum this often */
#define R5_TRIM_MS		5000

/*
 * Hash buckets of the stripe cache: a compile-time size, so the cache
 * can grow or shrink at any time without rehashing (32 stripes per
 * bucket at the largest cache).
 */
#define R5_HASH_BITS		10
#define R5_HASH_SIZE		BIT(R5_HASH_BITS)

/* Stripes one sync_request() call covers (64 KiB of every member). */
#define R5_SYNC_STRIPES		16

#define R5_POOL_MIN		64

struct r5conf;

/* One array bio (read or write) being served. */
struct r5req {
	struct r5conf *conf;
	struct bio *master;
	struct bvec_iter iter;		/* master's data, copied at start */
	atomic_t remaining;		/* pieces + submitter bias */
	blk_status_t status;		/* first error; WRITE_ONCE */
	unsigned long start;		/* md_io_start() */
	bool write;
	/* member sectors whose bitmap bits it holds (bm_len 0: none) */
	sector_t bm_lo, bm_len;
	/* md_bitmap_written() stamp its member writes wait for, or 0 */
	u64 bm_need;
	/* local_clock() at arrival while bm_need is unmet; xchg() to 0 */
	u64 bm_since;
};

/*
 * The part of an r5req that falls in one member page of one stripe:
 * bytes [off, off + len) of the page, which are bytes [boff, boff + len)
 * of the request's data.  On r5dev.toread/towrite (sh->lock) until an
 * operation takes it, then on r5dev.reading/writing (owner).
 */
struct r5piece {
	struct list_head node;
	struct r5req *req;
	unsigned int off, len, boff;
};

/* r5dev.flags */
enum r5dev_flag {
	R5D_UPTODATE,		/* page holds the member's current data */
	R5D_READ,		/* read issued in this operation */
	R5D_WRITE,		/* to be written / write issued */
	R5D_RERR,		/* read failed in this operation */
	R5D_WERR,		/* write failed */
	R5D_OVERWRITE,		/* this operation's writes cover the page */
	R5D_READBACK,		/* rewritten after a failed read, read back */
};

struct r5dev {
	struct page *page;
	struct list_head toread, towrite;	/* sh->lock */
	struct list_head reading, writing;	/* owner */
	unsigned long flags;	/* enum r5dev_flag, atomic bitops */
	int role;		/* data index, R5G_P or R5G_Q (owner) */
	int slot;		/* RAID6 syndrome slot of a data member */
	struct md_rdev *rdev;	/* pinned while its IO is in flight */
	/*
	 * One member IO at a time: bio_kmalloc(1) with the stripe (a
	 * struct bio ends in a flexible array, so it cannot sit in dev[]).
	 */
	struct bio *bio;
};

/* r5stripe.flags */
enum r5stripe_flag {
	R5S_HANDLING,		/* owned by the state machine; sh->lock */
};

/* Life cycle of a stripe head: raid5.c "The stripe head". */
enum r5_state {
	R5_IDLE,		/* no operation */
	R5_READ_WAIT,		/* member reads in flight */
	R5_WRITE_WAIT,		/* member writes in flight */
	R5_READBACK_WAIT,	/* reads of rewritten pages in flight */
	R5_BITMAP_WAIT,		/* writes wait for bitmap bits; conf->bm_held */
};

/* What the current operation serves. */
enum r5_op {
	R5_OP_NONE,
	R5_OP_READ,		/* reads the direct path could not serve */
	R5_OP_WRITE,
	R5_OP_SYNC,		/* resync, check, repair or recovery */
};

enum r5sync_mode {
	R5M_RESYNC,
	R5M_RECOVER,
	R5M_CHECK,
	R5M_REPAIR,
};

/* One sync_request() call: md_done_sync() once its stripes are done. */
struct r5sync {
	struct r5conf *conf;
	int mode;			/* enum r5sync_mode */
	unsigned int sectors;		/* what sync_request() returned */
	atomic_t remaining;		/* stripes not done */
	bool failed;			/* WRITE_ONCE; read at the end */
};

struct r5stripe {
	struct hlist_node hash;		/* conf->hash; conf->lock */
	/* conf->inactive (count 0), ->handle or ->bm_held; conf->lock */
	struct list_head lru;
	struct r5conf *conf;
	sector_t sector;		/* member sector; conf->lock */
	int count;			/* references; conf->lock */
	spinlock_t lock;		/* see the locking summary */
	unsigned long flags;		/* enum r5stripe_flag */
	struct r5sync *sync;		/* requested, not started; sh->lock */
	/*
	 * Members whose cached page the next operation must read again (a
	 * direct read of it failed: the retry goes to the member); sh->lock
	 */
	unsigned long reread;
	/* owner */
	int state;			/* enum r5_state */
	int op;				/* enum r5_op */
	struct r5sync *syncing;		/* the operation's sync request */
	bool rmw;			/* the write reads old data + parity */
	bool write_ok;			/* writes reached redundancy */
	int op_reads;			/* member reads this operation */
	u64 bm_need;			/* R5_BITMAP_WAIT: the stamp */
	atomic_t io_pending;		/* member IO in flight */
	struct r5g_row row;
	struct r5dev dev[];		/* conf->raid_disks */
};

/*
 * md/stats/ of raid456 (Documentation/ABI).  cache_*: conf->lock;
 * writes_* and write_reads: the worker (owner of every stripe).  Stored
 * with WRITE_ONCE, read by sysfs with READ_ONCE.
 */
struct r5stats {
	u64 cache_hits;		/* lookups that found the row cached */
	u64 cache_misses;	/* lookups that had to take a stripe */
	u64 cache_waits;	/* lookups that slept for a free stripe */
	u64 cache_grown;	/* stripes allocated */
	u64 cache_shrunk;	/* stripes freed */
	u64 writes_full;	/* write operations that read nothing */
	u64 writes_rmw;		/* ... that read old data and parity */
	u64 writes_rcw;		/* ... that read the rest of the row */
	u64 write_reads;	/* member reads of write operations */
};

struct r5disk {
	struct md_rdev __rcu *rdev;	/* see the locking summary */
};

struct r5conf {
	struct mddev *mddev;
	struct r5geom geo;
	int raid_disks;
	struct r5disk *disks;		/* raid_disks entries */

	spinlock_t lock;		/* see the locking summary */
	struct hlist_head *hash;	/* R5_HASH_SIZE buckets */
	struct list_head inactive;	/* count == 0, LRU order */
	struct list_head handle;	/* stripes for the worker */
	struct list_head retry;		/* failed direct reads (r5clone) */
	int total;			/* stripes allocated */
	int active;			/* stripes with count > 0 */
	/* stripe_cache_size: kept even when idle; WRITE_ONCE */
	int min;
	/* most stripes: the budget's worth, at least min; WRITE_ONCE */
	int limit;
	/* stripe_cache_budget_kb; WRITE_ONCE */
	unsigned long budget_kb;
	unsigned int stripe_bytes;	/* memory of one stripe; fixed */
	struct r5stats stats;
	struct shrinker shrinker;	/* gives back stripes above min */
	/* frees half the idle stripes above min if none was looked up */
	struct delayed_work trim_work;
	u64 trim_seen;			/* lookups at the last pass; trim_work */
	/* a stripe became free, a request left, quiesce changed */
	wait_queue_head_t wait;

	/* requests and sync batches in flight, for quiesce */
	atomic_t nr_reqs;
	/* quiesce(1): admit nothing new; WRITE_ONCE under lock */
	bool quiesced;

	struct workqueue_struct *wq;	/* ordered: the only owner */
	struct work_struct work;
	/* PREFLUSH bios waiting for flush_work; conf->lock */
	struct bio_list flushes;
	struct workqueue_struct *flush_wq;
	struct work_struct flush_work;
	/* R5_BITMAP_WAIT stripes, owned; conf->lock */
	struct list_head bm_held;
	/* on the bitmap's flush_wait while stripes are held (r5_bitmap_wake) */
	struct wait_queue_entry bm_wake;
	/* worker only: compare pages and the syndrome pointer array */
	struct page *scratch[2];
	void **ptrs;

	mempool_t req_pool;
	mempool_t piece_pool;
	struct bio_set bs;		/* direct read clones, r5clone */
};

/* A direct read to one member; bio_set front pad. */
struct r5clone {
	struct r5req *req;
	struct md_rdev *rdev;
	sector_t asector;		/* array sector of its first byte */
	unsigned int boff;		/* offset in the request's data */
	unsigned int sectors;		/* left to serve (retry) */
	struct list_head retry;		/* conf->retry; conf->lock */
	struct bio bio;			/* must be last */
};

#endif
