/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private state of the RAID4/5/6 personality (raid456.ko).
 *
 * Locking summary (details beside each field; raid5.c "Locking"):
 *   shard->lock     irq-safe spinlock, one per cache shard (a fixed set
 *                   of hash buckets): the buckets, the shard's unused-
 *                   stripe LRU and counters, and r5stripe.count/.lru/
 *                   .sector/.worker of every stripe hashed in it.  A
 *                   lookup takes only its row's shard lock.
 *   worker->lock    irq-safe spinlock: that worker's handle list.
 *   conf->lock      irq-safe spinlock: the retry list, the queued
 *                   flushes, the stripes waiting for bitmap bits or for
 *                   the rest of their row, the gate's depth, and the
 *                   stores to min, limit and budget_kb.
 *   workers_mutex   group_thread_cnt stores: the worker count changes
 *                   with the gate shut and every worker idle.
 *   sh->lock        irq-safe spinlock: the pieces a stripe has not taken
 *                   yet (r5dev.toread/towrite), its pending sync request,
 *                   its reread mask and the R5S_HANDLING bit.
 *   ownership       a stripe with R5S_HANDLING set belongs to the state
 *                   machine of its row's worker (r5stripe.worker): only
 *                   that worker (a work item, never running twice at
 *                   once) runs its transitions, and member IO
 *                   completions only count down io_pending and hand it
 *                   back.  Everything marked "owner" below is read and
 *                   written by the owner alone.
 *   mddev->lock     RD_IN_SYNC/RD_FAULTY transitions and mddev->degraded.
 *   reconfig_mutex  stores to disks[].rdev and .repl (run, hot_add,
 *                   hot_remove).
 *   RCU             IO-path loads of disks[].rdev and .repl;
 *                   rdev->nr_pending pins a member while IO to it is
 *                   in flight.
 * No two of the spinlocks above nest: stealing an unused stripe from
 * another shard drops the row's shard lock before it takes the other.
 */
#ifndef _MD_RAID5_H
#define _MD_RAID5_H

#include <linux/bio.h>
#include <linux/mempool.h>
#include <linux/mutex.h>
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

/*
 * Shards of the cache: bucket b belongs to shard b % R5_SHARDS, which
 * locks it, so lookups of different rows rarely meet on a lock.
 */
#define R5_SHARD_BITS		4
#define R5_SHARDS		BIT(R5_SHARD_BITS)

/*
 * Stripe workers: by default one per online CPU, at most this many;
 * md/group_thread_cnt sets the count (raid5.c, "Workers").
 */
#define R5_MAX_WORKERS		16
/* the largest md/group_thread_cnt in-tree md accepts (ours: clamped) */
#define R5_GROUP_THREADS_MAX	8192
/*
 * Rows go to workers in regions of this many consecutive rows (64 MiB of
 * each member), so a sequential stream is handled by one worker at a
 * time and reaches each member in order, merged by that worker's plug.
 */
#define R5_WORKER_ROWS		16384
/*
 * A worker holds the member bios of the stripes it runs and submits
 * them member by member (raid5.c, r5_submit()), at the latest once it
 * holds this many pages of each member (512 KiB).
 */
#define R5_HELD_PAGES		128

/*
 * A stripe that waits for the rest of its row from a sequential stream
 * (R5_ROW_WAIT) goes on after this long even if nothing came.
 */
#define R5_ROW_WAIT_MS		20
/* Ends of the latest write requests kept to recognise a stream. */
#define R5_STREAMS		4

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
	struct md_io_stamp start;	/* md_io_start() */
	bool write;
	/* a reshape window's own IO: no accounting, no md_write_start() */
	bool internal;
	/*
	 * A write to the old geometry during a reshape: counted here until
	 * it ends, so a window waits for those it overlaps (r5reshape)
	 */
	atomic_t *drain;
	struct r5reshape *drain_rs;
	/* member sectors whose bitmap bits it holds (bm_len 0: none) */
	sector_t bm_lo, bm_len;
	/* md_bitmap_written() stamp its member writes wait for, or 0 */
	u64 bm_need;
	/* local_clock() at arrival while bm_need is unmet; xchg() to 0 */
	u64 bm_since;
	/*
	 * A write that continues a stream and ends inside a row: its pieces
	 * at array sectors >= tail_from may wait for the next request
	 * (R5_ROW_WAIT); MD_MAX_SECTOR if none may.  Fixed at arrival.
	 */
	sector_t tail_from;
	/* its pieces counted in a waiting stripe; conf->waiting_reqs */
	atomic_t row_waits;
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
	/* sh->lock: may make its stripe wait for the rest of the row */
	bool tail;
	/* sh->lock: counted in req->row_waits by a waiting stripe */
	bool waited;
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
	R5D_RFILL,		/* sync: the page is for the slot's replacement */
	R5D_RWRITE,		/* write issued to the slot's replacement */
	R5D_RWERR,		/* that write failed */
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
	/* the same page written to the slot's replacement (R5D_RWRITE) */
	struct md_rdev *rrdev;
	struct bio *rbio;
};

/* r5stripe.flags */
enum r5stripe_flag {
	R5S_HANDLING,		/* owned by the state machine; sh->lock */
	/*
	 * R5_ROW_WAIT and on conf->row_wait: whoever clears it (atomic
	 * test_and_clear_bit) takes it off that list and queues it
	 */
	R5S_ROW_WAIT,
};

/* Life cycle of a stripe head: raid5.c "The stripe head". */
enum r5_state {
	R5_IDLE,		/* no operation */
	R5_READ_WAIT,		/* member reads in flight */
	R5_WRITE_WAIT,		/* member writes in flight */
	R5_READBACK_WAIT,	/* reads of rewritten pages in flight */
	R5_BITMAP_WAIT,		/* writes wait for bitmap bits; conf->bm_held */
	R5_ROW_WAIT,		/* writes wait for the rest of their row */
	R5_SB_WAIT,		/* done writes wait for a failure's sb write */
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
	struct hlist_node hash;		/* conf->hash; shard lock */
	/*
	 * shard->inactive (count 0, shard lock), a worker's handle or
	 * handle_sync list (its lock), conf->bm_held, conf->row_wait or conf->sb_held
	 * (conf->lock) or a
	 * plug's list (the plugged task)
	 */
	struct list_head lru;
	struct r5conf *conf;
	/* member sector; set under the shard lock, stable while counted */
	sector_t sector;
	int count;			/* references; shard lock */
	int worker;			/* its worker's index; as ->sector */
	u32 qseq;			/* its place on a worker's list; w->lock */
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
	/* sync: replacements this row is copied to (r5_needed()) */
	unsigned long fill;
	bool fill_only;			/* ... and all it reads and writes */
	bool write_ok;			/* writes reached redundancy */
	int op_reads;			/* member reads this operation */
	u64 bm_need;			/* R5_BITMAP_WAIT: the stamp */
	unsigned long wait_since;	/* R5_ROW_WAIT: jiffies */
	atomic_t io_pending;		/* member IO in flight */
	struct r5g_row row;
	struct r5dev dev[];		/* conf->raid_disks */
};

/*
 * One shard of the stripe cache (see R5_SHARDS).  The counters are
 * stored under ->lock with WRITE_ONCE and summed by sysfs with
 * READ_ONCE (md/stats/stripe_cache_*, Documentation/ABI).
 */
struct r5shard {
	spinlock_t lock;		/* see the locking summary */
	struct list_head inactive;	/* count == 0, LRU order */
	int active;			/* stripes with count > 0 */
	u64 hits;			/* lookups that found the row cached */
	u64 misses;			/* lookups that had to take a stripe */
	u64 waits;			/* lookups that slept for a free stripe */
	u64 grown;			/* stripes allocated */
	u64 shrunk;			/* stripes freed */
} ____cacheline_aligned_in_smp;

/*
 * A stripe worker: runs the state machine of the rows assigned to it
 * (r5stripe.worker).  Worker 0 also retries failed direct reads and
 * releases stripes whose bitmap bits reached the disk.
 */
struct r5worker {
	struct r5conf *conf;
	struct work_struct work;
	spinlock_t lock;		/* see the locking summary */
	/*
	 * Owned stripes to run: the foreground's and the sync's (a stripe
	 * with a sync request), each in queue order; ->lock.  qseq orders
	 * the two lists against each other (r5_next_stripe()).
	 */
	struct list_head handle;
	struct list_head handle_sync;
	u32 qseq;
	/*
	 * The kworker running raid5_work() for this worker, NULL between
	 * runs; ->lock, so the sync thread raises only a task still here
	 * (raid5_sync_raise()), never one back in the pool; ->task_mutex
	 * (changing a scheduling class may sleep)
	 */
	struct mutex task_mutex;
	struct task_struct *task;
	long task_nice;			/* its own nice; ->task_mutex */
	/* the worker alone: member bios not submitted yet (r5_submit()) */
	struct bio_list held;
	unsigned int nr_held;
	/* the worker alone: compare pages and the syndrome pointers */
	struct page *scratch[2];
	void **ptrs;
	/*
	 * md/stats/stripe_writes_* and stripe_write_reads: written by the
	 * worker alone with WRITE_ONCE, summed by sysfs with READ_ONCE
	 */
	u64 writes_full;	/* write operations that read nothing */
	u64 writes_rmw;		/* ... that read old data and parity */
	u64 writes_rcw;		/* ... that read the rest of the row */
	u64 write_reads;	/* member reads of write operations */
	u64 row_waits;		/* stripes that waited for their row */
} ____cacheline_aligned_in_smp;

struct r5disk {
	struct md_rdev __rcu *rdev;	/* see the locking summary */
	/*
	 * The replacement being built for rdev (RD_REPLACEMENT, mdadm
	 * --replace): written with it, read only where rdev cannot be; as
	 * ->rdev.  raid5.c "Replacement".
	 */
	struct md_rdev __rcu *repl;
	/*
	 * Where the latest read ([0]) and write ([1]) a worker submitted to
	 * this member and to its replacement ended; a hint, any worker
	 * (r5_submit_one()).
	 */
	sector_t next[2];
	sector_t rnext[2];
};

/*
 * A reshape's window state (raid5.c "Reshape").  Progress in array
 * sectors from where the reshape starts: forwards from 0 (moved: below
 * the position), backwards from end (moved: at and above end - the
 * progress).  Up to safe the superblocks say the new geometry holds the
 * data; up to done it does; up to issued it does or is being moved.
 * safe <= done <= issued.  All three change under sem held for writing
 * (the IO path routes under it held for reading) and are read under it
 * or with READ_ONCE; done also under lock, with the windows list.
 * backwards and end are fixed for the reshape.
 */
struct r5reshape {
	struct rw_semaphore sem;	/* see above */
	spinlock_t lock;		/* done and windows */
	sector_t safe, done, issued;
	bool backwards;
	sector_t end;
	struct list_head windows;	/* in flight, in array order; lock */
	wait_queue_head_t wait;		/* IO waiting for them to move */
	bool want_cp;			/* a write waits in [safe, done) */
	/*
	 * Writes routed to the old geometry, by epoch (wepoch & 1, under
	 * sem): raising issued starts a new epoch and waits for the old
	 * one's to end, not for writes that came after
	 */
	unsigned int wepoch;
	atomic_t wcount[2];
	sector_t gap;			/* least distance the data moves */
	/*
	 * In place (the data offsets move less than a chunk: mdadm's
	 * backup-file reshape).  A window may then overwrite old data a
	 * crash would still need, which only mdadm's backup holds: such a
	 * window goes only where mdadm holds the range and lets it
	 * (md_sync_wait_backup()).  Windows go one at a time, each as many
	 * new rows as cover max(chunk) of every member, so the old rows it
	 * overwrites are its own or moved before; reads of it wait until
	 * it is written.  Fixed for the reshape; told: sync thread only.
	 */
	bool inplace;
	bool told;
	struct workqueue_struct *wq;	/* windows' write halves */
};

/* One window of a reshape: read in the old geometry, written in the new. */
struct r5window {
	struct r5conf *conf;
	struct list_head list;		/* rs->windows; rs->lock */
	sector_t start, len;		/* array sectors */
	sector_t progress;		/* rs->done once it and all before are */
	sector_t sync_len;		/* the sync thread's count for it */
	bool read;			/* it reads old data (else all zeroes) */
	bool done;			/* rs->lock */
	blk_status_t status;
	struct work_struct work;
	int nr_pages;
	struct bio *bio;
	struct page *pages[];
};

struct r5conf {
	struct mddev *mddev;
	struct r5geom geo;
	/*
	 * Reshape (raid5.c "Reshape"): the new geometry's conf (this one,
	 * mddev->private) reads and writes members at their new data
	 * offsets; prev is the old geometry's while the reshape runs, and
	 * rs the window state.  Set at run()/start_reshape() with the
	 * array suspended, cleared at finish_reshape() likewise.
	 */
	bool new_offset;
	struct r5conf *prev;
	struct r5reshape *rs;
	int raid_disks;
	struct r5disk *disks;		/* raid_disks entries */

	struct hlist_head *hash;	/* R5_HASH_SIZE buckets; shards */
	struct r5shard shards[R5_SHARDS];
	atomic_t total;			/* stripes allocated */
	spinlock_t lock;		/* see the locking summary */
	struct list_head retry;		/* failed direct reads (r5clone) */
	/* stripe_cache_size: kept even when idle; WRITE_ONCE */
	int min;
	/* most stripes: the budget's worth, at least min; WRITE_ONCE */
	int limit;
	/* stripe_cache_budget_kb; WRITE_ONCE */
	unsigned long budget_kb;
	unsigned int stripe_bytes;	/* memory of one stripe; fixed */
	struct md_shrinker shrinker;	/* gives back stripes above min */
	/* frees half the idle stripes above min if none was looked up */
	struct delayed_work trim_work;
	u64 trim_seen;			/* lookups at the last pass; trim_work */
	/* a stripe became free, a request left, quiesce changed */
	wait_queue_head_t wait;

	/* requests and sync batches in flight, for quiesce */
	atomic_t nr_reqs;
	/*
	 * The gate's depth: quiesce(1) calls and worker count changes in
	 * progress (they may overlap); nonzero admits nothing new.  Stored
	 * under ->lock with WRITE_ONCE, read with READ_ONCE.
	 */
	int quiesced;

	struct workqueue_struct *wq;	/* unbound; runs the workers */
	/* R5_MAX_WORKERS, all initialised; the first nr_workers get rows */
	struct r5worker *workers;
	/*
	 * Workers rows are spread over.  Changed (WRITE_ONCE) only under
	 * workers_mutex with the gate shut and every worker idle, so the
	 * IO path, which runs only inside the gate, reads it plainly.
	 */
	int nr_workers;
	/*
	 * md/group_thread_cnt: 0 (one worker per CPU) or the count; stored
	 * under workers_mutex with WRITE_ONCE, shown with READ_ONCE
	 */
	int group_threads;
	struct mutex workers_mutex;	/* see the locking summary */
	/* md/rmw_level (enum r5g_rmw_level); WRITE_ONCE, read by owners */
	int rmw_level;
	/* PREFLUSH bios waiting for flush_work; conf->lock */
	struct bio_list flushes;
	struct workqueue_struct *flush_wq;
	struct work_struct flush_work;
	/* R5_BITMAP_WAIT stripes, owned; conf->lock */
	struct list_head bm_held;
	/* on the bitmap's flush_wait while stripes are held (r5_bitmap_wake) */
	struct wait_queue_entry bm_wake;
	/* R5_SB_WAIT stripes, owned; conf->lock */
	struct list_head sb_held;

	/*
	 * Sequential streams (raid5.c "Whole rows from a stream"): the end
	 * sectors of the latest writes, a hint read and written racily
	 * (READ_ONCE/WRITE_ONCE), slot by stream_next.
	 */
	sector_t stream_end[R5_STREAMS];
	atomic_t stream_next;
	/* R5_ROW_WAIT stripes, owned; conf->lock */
	struct list_head row_wait;
	/* sends on those that waited R5_ROW_WAIT_MS */
	struct delayed_work row_wait_work;
	/* write requests in flight, and those a waiting stripe holds */
	atomic_t writes;
	atomic_t waiting_reqs;
	/*
	 * Stripes sent on from R5_ROW_WAIT with no new work (every write
	 * waited, a submitter needed a stripe, R5_ROW_WAIT_MS passed)
	 */
	atomic64_t row_wait_unfilled;

	mempool_t req_pool;
	mempool_t piece_pool;
	struct bio_set bs;		/* direct read clones, r5clone */
};

/*
 * A direct read to one member; bio_set front pad.  A read inside one
 * chunk is served by its clone alone: req is NULL and the clone holds
 * the array bio (master) and its md_io_start() stamp, until a failure
 * makes worker 0 give it an r5req for the retry.
 */
struct r5clone {
	struct r5conf *conf;		/* the geometry's conf it reads for */
	struct r5req *req;
	struct bio *master;
	struct md_io_stamp start;
	struct md_rdev *rdev;
	sector_t asector;		/* array sector of its first byte */
	unsigned int boff;		/* offset in the request's data */
	unsigned int sectors;		/* left to serve (retry) */
	struct list_head retry;		/* conf->retry; conf->lock */
	struct bio bio;			/* must be last */
};

#endif
