// SPDX-License-Identifier: GPL-2.0
/*
 * RAID4/5/6 personality: data striped over raid_disks - 1 (RAID4/5) or
 * raid_disks - 2 (RAID6) members, plus P (xor) and, for RAID6, Q (the
 * Reed-Solomon syndrome), placed by raid5_geom.c exactly as in-tree md
 * lays them out, so arrays move between the two stacks both ways.
 *
 * Why it is consistent.  Parity is a function of a whole row of member
 * pages, so every change to a row must see the row as one unit.  Each
 * row (one page of every member at the same member sector) has at most
 * one stripe head in the cache, and all writes, degraded reads and sync
 * work on that row go through it, one operation at a time: an operation
 * takes the requests queued so far, reads what it needs, computes, writes
 * and completes them before the next one starts.  So no two writes ever
 * compute parity for the same row concurrently, and sync sees a row that
 * no write is changing.  Only the owner (the row's worker) runs an
 * operation; member completions just hand the stripe back.
 *
 * Why it scales.  Each row belongs to one of a few workers (one per CPU,
 * or md/group_thread_cnt of them, by regions of R5_WORKER_ROWS rows: 64
 * MiB of every member), work items of an unbound workqueue that run on
 * different CPUs at once; a work item never runs twice at once, so a
 * row's operations still run one at a time.  Workers share only the
 * cache, which is split into shards by hash bucket: a lookup takes its
 * row's shard lock and nothing array-wide.  The count changes only with
 * no request in flight and every worker idle (r5_set_workers()), so no
 * stripe is owned then and each cached one simply gets its new worker.
 *
 * Why member IO of a stream leaves in order.  A member is fastest, and a
 * disk is only fast, when a sequential stream reaches it in ascending,
 * contiguous requests.  A worker handles its stripes in the order they
 * were queued, which for a stream is ascending, and submits under one
 * plug, member by member (r5_submit()), so the plug merges each
 * member's pages into large requests.  Two workers on neighbouring rows
 * would interleave their requests on every member (runs of 16 pages
 * did: 83-98 % of member requests broke the stream), so a region is
 * large: a stream stays on one worker for 64 MiB per member, and only
 * its crossing into the next region can interleave (4 MiB regions still
 * did, for a writeback backlog of a few MiB: 97 % of member requests
 * broke on RAID6 behind buffered dd).
 * The cost: one stream's parity is computed by one worker at a time, as
 * by in-tree md's single thread; concurrent streams and random IO still
 * spread over all workers, by region.  tests/vm/tests/t98-ordering.sh
 * measures the order on the members.
 *
 * Workers are kworkers of the shared pool, weighed like any task.  The
 * md core sets the weight of the sync's work (mddev->sync_prio, see
 * md_sync.c): raised while the sync is late for sync_speed_min with the
 * foreground busy, lowered beside a light foreground.  A worker takes
 * that weight for the stripes with a sync request and its own for the
 * rest, and restores its own before the work item returns, so no other
 * work item inherits it.  Each worker keeps the two kinds on two lists
 * run in queue order, except beside a light foreground: then its
 * stripes (a QD1 reader's degraded reads during a recovery) go first,
 * rather than behind a sync request's 16 stripes of parity work.  A
 * worker sharing the CPU with 64 readers may not reach its next stripe
 * for seconds, so the sync thread raises the running ones itself
 * (raid5_sync_raise(), under w->task_mutex while w->task names it,
 * which clears it before restoring its own nice).
 *
 * Reads of data on a member that holds it (In_sync, or rebuilt past it)
 * bypass the cache: data on a working member is never rewritten by an
 * operation except with the value a write put there, and a write is
 * acknowledged only once it is on the members, so a read issued after
 * that acknowledgment sees it.  A direct read that fails is retried
 * through the stripe cache, which reads again and reconstructs (then
 * rewrites) what still fails.  A read inside one chunk (most random
 * reads) is one clone and nothing else: it gets an r5req only if it
 * fails, from worker 0, which retries it.
 *
 * The stripe head.  Its life is four states and the operation it runs:
 *
 *   state        event                      transition (function)
 *   IDLE         queued with work           r5_begin(): take pending
 *                                           pieces / the sync request,
 *                                           then r5_plan()
 *   IDLE         writes whose bitmap bits   r5_bitmap_hold() ->
 *                are not on disk yet        BITMAP_WAIT (conf->bm_held)
 *   BITMAP_WAIT  the bitmap round wrote     r5_unhold_all() -> IDLE
 *                them (r5_bitmap_wake)
 *   IDLE         writes of a stream's tail  r5_row_wait() -> ROW_WAIT
 *                that would read            (conf->row_wait)
 *   ROW_WAIT     more work, every write     r5_row_wake() -> IDLE
 *                waits, cache full, or
 *                R5_ROW_WAIT_MS passed
 *   (plan)       reads needed               r5_issue_reads() -> READ_WAIT
 *   (plan)       nothing to read            r5_compute() + r5_issue_writes()
 *   (plan)       too many members missing   r5_fail_op() -> (end)
 *   READ_WAIT    last read completed        r5_reads_done(), r5_plan()
 *   (compute)    writes needed              -> WRITE_WAIT
 *   (compute)    nothing to write           r5_end_op() -> IDLE
 *   WRITE_WAIT   last write completed       r5_writes_done(); pages
 *                                           rebuilt after a failed read
 *                                           and rewritten: read back,
 *                                           r5_issue_readback() ->
 *                                           READBACK_WAIT; else r5_end_op()
 *   READBACK_WAIT last read-back completed  r5_readback_done() (failed
 *                                           again: md_error()), r5_end_op()
 *   (write done) a member failure is not    r5_sb_hold() -> SB_WAIT
 *                on disk yet                (conf->sb_held)
 *   SB_WAIT      the superblocks record it  raid5_daemon() requeues;
 *                                           r5_end_op()
 *   IDLE         nothing pending            r5_release(): drop ownership
 *
 * r5_plan() is idempotent: it looks at which pages are uptodate and which
 * members are missing for this row (failed, absent, not rebuilt yet, or
 * failed a read in this operation) and asks for the reads still needed,
 * so a read error simply leads to another round that reconstructs.  The
 * rebuilt page is written back to the member that failed the read and
 * read back once; if that read fails too, the member is failed.  (A
 * failed direct read is first retried through the cache, so a member
 * gets two reads and a rewrite before the read-back decides.)
 *
 * Writes: read-modify-write (RAID4/5, row in sync, old data and P on
 * working members) when it needs fewer reads than reconstruct-write
 * (md/rmw_level 1, the default), also when as many (2), or never (0);
 * else reconstruct-write.  RAID6 always reconstruct-writes
 * (r5g_use_rmw()).  A write that covers the whole row reads nothing.
 * Parity uses the kernel's xor and raid6_pq libraries only.
 *
 * Replacement (mdadm --replace).  A member that wants replacing keeps
 * its slot while a spare is built beside it in disks[].repl (slot i to
 * the core and the superblocks, MD_FEATURE_REPLACEMENT).  Every member
 * write of the slot goes to both (the same page, one more bio); a
 * recovery copies each row to it, from the member alone when nothing
 * else of the row is missing (R5D_RFILL, sh->fill_only), else from the
 * reconstruction that rebuilds the row anyway.  A row is read from the
 * replacement only where the member cannot serve it and the replacement
 * was rebuilt past it, and a slot counts as working if either holds all
 * of it.  So the data of the slot is on the member until the
 * replacement holds all of it, whatever fails: once whole, spare_active()
 * fails the member, and its removal hands the slot over; a member that
 * fails half way hands over a replacement that goes on rebuilding from
 * its recovery_offset; a replacement that fails just leaves.
 *
 * Reshape (mdadm --grow of members, chunk or layout; the core's side is
 * md_reshape.c).  Two whole engines run side by side: the new geometry's
 * conf (mddev->private) at the members' new data offsets, the old one
 * (conf->prev) at the old.  The sync thread moves one row of the new
 * geometry at a time (r5_reshape_request()): read through the old conf,
 * written whole through the new, so no stripe ever holds both.  IO is
 * routed by where it lies (r5_reshape_route()): what moved is read from
 * the new geometry, the rest from the old; writes go where the
 * superblocks agree, and wait where they would not (between what is
 * recorded and what is moving).  A row is written only where it cannot
 * land on old data the superblocks still call live (r5_window_safe());
 * otherwise the position is recorded first (r5_reshape_cp()), so after
 * a power cut the reshape goes on from old data still intact.  The data
 * moves down (forwards, from the start) or up (backwards, from the end)
 * as mdadm moved the offsets; progress is counted from where it starts.
 * In place (offsets that move less than a chunk, mdadm's backup-file
 * reshape) a window is max(chunk) of every member, one at a time: the
 * old rows it overwrites are then its own or moved before (a grow runs
 * forwards, a shrink backwards), so only reads of the window itself
 * wait, and where that overwrites old data still live on disk the
 * window waits for mdadm's backup of it (md_sync_wait_backup()).
 *
 * Discard (devices_handle_discard_safely) is a write of zero pages to
 * whole rows; a row whose data pages are all zeroes from discards leaves
 * as discards to every member (r5_row_discarded()), so the bitmap, the
 * order of a row's operations and member failures need nothing new.
 *
 * Whole rows from a stream.  A request of a chunk or more that starts
 * where a recent write ended (a sequential stream) and ends inside a
 * row leaves that row's stripes partly written; the stream's next
 * request fills the rest.  Handled at once they would read what it is
 * about to write, so they wait (ROW_WAIT) until more work reaches them.
 * The wait is bounded without a guess at the stream's pace: it ends as
 * soon as every write in flight is held by a waiting stripe (then no
 * completion can bring the next request: queue depth 1, the stream's
 * end, a quiesce), when a submitter needs a free stripe, and after
 * R5_ROW_WAIT_MS at most.  A piece makes its stripe wait once.
 *
 * Locking: see raid5.h; no lock nests in another (workers_mutex, a
 * sleeping lock, is held only by a group_thread_cnt store, around the
 * shards' locks), and the only sleeping waits are in make_request, the
 * flush worker, the sync thread (for a member flush, a free stripe, a
 * mempool element or the end of a quiesce) and a group_thread_cnt store
 * (for the requests in flight and the workers), never in a stripe
 * worker, which all progress depends on.
 */
#include <linux/module.h>
#include <linux/blkdev.h>
#include <linux/bio.h>
#include <linux/highmem.h>
#include <linux/mempool.h>
#include <linux/raid/pq.h>
#include <linux/raid/xor.h>
#include <linux/rcupdate.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/seq_file.h>
#include <linux/workqueue.h>
#include "md.h"
#include "raid5.h"
#include "md_bitmap.h"

/*
 * Discard needs members that read zeroes from what they discarded: the
 * parity of a discarded row is then the zero page it reads back as.  No
 * member says so reliably, so the admin does, with in-tree md's name.
 * Read when an array starts or a member is added.
 */
static bool devices_handle_discard_safely;
module_param(devices_handle_discard_safely, bool, 0644);
MODULE_PARM_DESC(devices_handle_discard_safely,
		 "Y if every member of every array reads zeroes from discarded sectors: then RAID4/5/6 arrays serve discard");

/* ---- members -------------------------------------------------------- */

static struct md_rdev *r5_rdev_rcu(struct r5conf *conf, int i)
{
	return rcu_dereference(conf->disks[i].rdev);
}

/* Where @rdev's data starts in @conf's geometry (see "Reshape"). */
static sector_t r5_offset(struct r5conf *conf, struct md_rdev *rdev)
{
	return conf->new_offset ? rdev->new_data_offset : rdev->data_offset;
}

static struct md_rdev *r5_repl_rcu(struct r5conf *conf, int i)
{
	return rcu_dereference(conf->disks[i].repl);
}

/* Member @k (k < raid_disks), else the replacement of slot k - raid_disks. */
static struct md_rdev *r5_target_rcu(struct r5conf *conf, int k)
{
	if (k < conf->raid_disks)
		return r5_rdev_rcu(conf, k);
	return r5_repl_rcu(conf, k - conf->raid_disks);
}

/*
 * Device @k of r5_target_rcu() pinned for IO (nr_pending, dropped by
 * md_rdev_unpin()), or NULL.
 */
static struct md_rdev *r5_pin_target(struct r5conf *conf, int k)
{
	struct md_rdev *rdev;

	rcu_read_lock();
	rdev = r5_target_rcu(conf, k);
	if (md_rdev_alive(rdev))
		atomic_inc(&rdev->nr_pending);
	else
		rdev = NULL;
	rcu_read_unlock();
	return rdev;
}

/* Member @i pinned for IO, or NULL. */
static struct md_rdev *r5_pin_alive(struct r5conf *conf, int i)
{
	return r5_pin_target(conf, i);
}

/* The replacement of slot @i pinned for a write, or NULL. */
static struct md_rdev *r5_pin_repl(struct r5conf *conf, int i)
{
	return r5_pin_target(conf, conf->raid_disks + i);
}

/*
 * Holds trusted data over @sectors at member sector @sector: alive,
 * rebuilt past it, and no range of it recorded in the member's bad-block
 * log (by this stack, in-tree md, or raid1 before a level change): a
 * recorded range is stale or unreadable, so the row treats that member
 * as missing there, as a failed one.
 */
static bool r5_no_bad(struct md_rdev *rdev, sector_t sector,
		      unsigned int sectors)
{
	sector_t first_bad;
	int bad_sectors;

	return !md_rdev_is_badblock(rdev, sector, sectors, &first_bad,
				    &bad_sectors);
}

static bool r5_rdev_trusted(struct md_rdev *rdev, sector_t sector,
			    unsigned int sectors)
{
	return md_rdev_readable(rdev, sector, sectors) &&
	       r5_no_bad(rdev, sector, sectors);
}

/*
 * What slot @i reads [@sector, + @sectors) from: its member if that
 * holds trusted data there, else its replacement if that does (rebuilt
 * past it), else NULL.  Under rcu_read_lock().
 */
static struct md_rdev *r5_slot_source(struct r5conf *conf, int i,
				      sector_t sector, unsigned int sectors)
{
	struct md_rdev *rdev = r5_rdev_rcu(conf, i);

	if (r5_rdev_trusted(rdev, sector, sectors))
		return rdev;
	rdev = r5_repl_rcu(conf, i);
	if (r5_rdev_trusted(rdev, sector, sectors))
		return rdev;
	return NULL;
}

/* Slot @i holds the whole member: its member or a whole replacement. */
static bool r5_slot_working(struct r5conf *conf, int i)
{
	return md_rdev_working(r5_rdev_rcu(conf, i)) ||
	       md_rdev_working(r5_repl_rcu(conf, i));
}

static int r5_working(struct r5conf *conf)
{
	int i, n = 0;

	rcu_read_lock();
	for (i = 0; i < conf->raid_disks; i++)
		if (r5_slot_working(conf, i))
			n++;
	rcu_read_unlock();
	return n;
}

/*
 * The replacement of slot @i if this row must still be copied to it
 * (alive, not rebuilt past the row).  Under rcu_read_lock().
 */
static struct md_rdev *r5_repl_wants(struct r5conf *conf, int i,
				     sector_t sector)
{
	struct md_rdev *repl = r5_repl_rcu(conf, i);

	if (!md_rdev_alive(repl) ||
	    md_rdev_readable(repl, sector, R5_STRIPE_SECTORS))
		return NULL;
	return repl;
}

static void r5_update_degraded(struct mddev *mddev)
{
	struct r5conf *conf = mddev->private;

	lockdep_assert_held(&mddev->lock);
	mddev->degraded = conf->raid_disks - r5_working(conf);
}

/* ---- requests and the quiesce gate ---------------------------------- */

/*
 * Gate pairing (G1): r5_enter() increments nr_reqs, then a full barrier,
 * then reads ->quiesced; r5_gate_shut() raises ->quiesced, then a full
 * barrier, then reads nr_reqs (in wait_event).  One side sees the other.
 * (G2) r5_leave() decrements, then wq_has_sleeper() (full barrier) pairs
 * with the waiter's set_current_state() before it rereads the count.
 * (G3) r5_gate_open() lowers ->quiesced with a release, r5_enter() reads
 * it with an acquire: a request admitted after the gate opens sees what
 * was changed while it was shut (the worker count, the stripes' workers).
 * r5_leave() runs under rcu_read_lock() and raid5_free() waits for a
 * grace period, so the wake-up never touches a freed conf.
 */
/* Admitted (true), or false with nothing counted if @nowait would wait. */
static bool r5_enter(struct r5conf *conf, bool nowait)
{
	for (;;) {
		atomic_inc(&conf->nr_reqs);
		smp_mb__after_atomic();			/* (G1) */
		if (likely(!smp_load_acquire(&conf->quiesced)))	/* (G3) */
			return true;
		atomic_dec(&conf->nr_reqs);
		wake_up(&conf->wait);
		if (nowait)
			return false;
		wait_event(conf->wait, !READ_ONCE(conf->quiesced));
	}
}

static void r5_leave(struct r5conf *conf)
{
	rcu_read_lock();
	atomic_dec(&conf->nr_reqs);
	if (wq_has_sleeper(&conf->wait))		/* (G2) */
		wake_up(&conf->wait);
	rcu_read_unlock();
}

/*
 * Admit nothing new and wait until no request or sync batch is in flight.
 * The gate nests: the core's quiesce and a worker count change may both
 * hold it shut; it opens when the last of them leaves (r5_gate_open()).
 */
static void r5_gate_shut(struct r5conf *conf)
{
	spin_lock_irq(&conf->lock);
	WRITE_ONCE(conf->quiesced, conf->quiesced + 1);
	spin_unlock_irq(&conf->lock);
	smp_mb();				/* (G1) */
	wait_event(conf->wait, !atomic_read(&conf->nr_reqs));
}

static void r5_gate_open(struct r5conf *conf)
{
	bool open = false;

	spin_lock_irq(&conf->lock);
	/* an unbalanced quiesce(0) must not shut it for good */
	if (!WARN_ON_ONCE(!conf->quiesced)) {
		smp_store_release(&conf->quiesced, conf->quiesced - 1); /* (G3) */
		open = !conf->quiesced;
	}
	spin_unlock_irq(&conf->lock);
	if (open)
		wake_up(&conf->wait);
}

/*
 * An r5req for @bio; the caller sets ->start (md_io_start()).  With
 * GFP_NOIO it waits for a pool element (requests in flight give them
 * back); with GFP_NOWAIT it may return NULL.
 */
static struct r5req *r5_req_alloc(struct r5conf *conf, struct bio *bio,
				  gfp_t gfp)
{
	struct r5req *req = mempool_alloc(&conf->req_pool, gfp);

	if (!req)
		return NULL;
	req->conf = conf;
	req->master = bio;
	req->iter = bio->bi_iter;
	atomic_set(&req->remaining, 1);
	req->status = BLK_STS_OK;
	req->write = op_is_write(bio_op(bio));
	req->bm_lo = 0;
	req->bm_len = 0;
	req->bm_need = 0;
	req->bm_since = 0;
	req->tail_from = MD_MAX_SECTOR;
	req->internal = false;
	req->drain = NULL;
	req->drain_rs = NULL;
	atomic_set(&req->row_waits, 0);
	if (req->write)
		atomic_inc(&conf->writes);
	return req;
}

/* Drop one reference; the last ends the array bio.  Any context. */
static void r5_writes_left(struct r5conf *conf);

static void r5_req_put(struct r5req *req)
{
	struct r5conf *conf = req->conf;
	struct mddev *mddev = conf->mddev;
	struct bio *master = req->master;
	bool write = req->write;

	/*
	 * Full barrier: orders our ->status store before the count; the
	 * last put reads ->status after it.
	 */
	if (!atomic_dec_and_test(&req->remaining))
		return;
	/* after r5_writes_done() failed any member a piece missed */
	if (req->bm_len)
		md_bitmap_endwrite(mddev->bitmap, req->bm_lo, req->bm_len);
	if (req->status)
		master->bi_status = req->status;
	if (!req->internal)
		md_io_end(mddev, master, req->start);
	if (write && !req->internal)
		md_write_end(mddev);
	if (req->drain && atomic_dec_and_test(req->drain))
		wake_up_all(&req->drain_rs->wait);
	mempool_free(req, &conf->req_pool);
	bio_endio(master);
	if (write)
		r5_writes_left(conf);
	r5_leave(conf);
}

static void r5_req_fail(struct r5req *req, blk_status_t status)
{
	WRITE_ONCE(req->status, status);
}

/* ---- the stripe cache ----------------------------------------------- */

/* Hash of the row at member sector @sector: its bucket; low bits: shard. */
static u32 r5_hash(sector_t sector)
{
	return hash_64(sector >> (PAGE_SHIFT - SECTOR_SHIFT), R5_HASH_BITS);
}

static struct r5shard *r5_shard_of(struct r5conf *conf, u32 hash)
{
	return &conf->shards[hash & (R5_SHARDS - 1)];
}

static struct r5shard *r5_shard(struct r5conf *conf, sector_t sector)
{
	return r5_shard_of(conf, r5_hash(sector));
}

static void r5_stripe_free(struct r5conf *conf, struct r5stripe *sh)
{
	int i;

	for (i = 0; i < conf->raid_disks; i++) {
		if (sh->dev[i].page)
			__free_page(sh->dev[i].page);
		kfree(sh->dev[i].bio);
		kfree(sh->dev[i].rbio);
	}
	kfree(sh);
}

static struct r5stripe *r5_stripe_alloc(struct r5conf *conf, gfp_t gfp)
{
	struct r5stripe *sh;
	int i;

	sh = kzalloc(struct_size(sh, dev, conf->raid_disks), gfp);
	if (!sh)
		return NULL;
	sh->conf = conf;
	spin_lock_init(&sh->lock);
	INIT_HLIST_NODE(&sh->hash);
	INIT_LIST_HEAD(&sh->lru);
	for (i = 0; i < conf->raid_disks; i++) {
		struct r5dev *dev = &sh->dev[i];

		INIT_LIST_HEAD(&dev->toread);
		INIT_LIST_HEAD(&dev->towrite);
		INIT_LIST_HEAD(&dev->reading);
		INIT_LIST_HEAD(&dev->writing);
		dev->page = alloc_page(gfp);
		dev->bio = bio_kmalloc(1, gfp);
		dev->rbio = bio_kmalloc(1, gfp);
		if (!dev->page || !dev->bio || !dev->rbio) {
			r5_stripe_free(conf, sh);
			return NULL;
		}
	}
	return sh;
}

/* The worker of the row at member sector @sector: its region's. */
static int r5_worker_index(struct r5conf *conf, sector_t sector)
{
	return (u32)(sector >> (PAGE_SHIFT - SECTOR_SHIFT)) / R5_WORKER_ROWS %
	       conf->nr_workers;
}

/* Give an unused stripe the row at @sector and hash it. */
static void r5_stripe_init(struct r5conf *conf, struct r5stripe *sh,
			   sector_t sector)
{
	u64 row = div_u64(sector, conf->geo.chunk_sectors);
	u32 hash = r5_hash(sector);
	int i;

	lockdep_assert_held(&r5_shard_of(conf, hash)->lock);
	hlist_del_init(&sh->hash);
	sh->sector = sector;
	/* regions of consecutive rows go to different workers */
	sh->worker = r5_worker_index(conf, sector);
	sh->state = R5_IDLE;
	sh->op = R5_OP_NONE;
	r5g_row(&conf->geo, row, &sh->row);
	for (i = 0; i < conf->raid_disks; i++) {
		struct r5dev *dev = &sh->dev[i];

		dev->flags = 0;
		dev->role = r5g_dev_role(&sh->row, i);
		dev->slot = dev->role >= 0 ?
			    r5g_syndrome_slot(&conf->geo, &sh->row, i) : -1;
	}
	hlist_add_head(&sh->hash, &conf->hash[hash]);
}

static struct r5stripe *r5_lookup(struct r5conf *conf, sector_t sector)
{
	u32 hash = r5_hash(sector);
	struct r5stripe *sh;

	lockdep_assert_held(&r5_shard_of(conf, hash)->lock);
	hlist_for_each_entry(sh, &conf->hash[hash], hash)
		if (sh->sector == sector)
			return sh;
	return NULL;
}

/* Take a reference on a cached stripe of shard @sd. */
static void r5_hold(struct r5shard *sd, struct r5stripe *sh)
{
	lockdep_assert_held(&sd->lock);
	if (!sh->count++) {
		list_del_init(&sh->lru);
		WRITE_ONCE(sd->active, sd->active + 1);
	}
}

/* One more; the counter's lock (or owner) held, read with READ_ONCE. */
static void r5_count(u64 *c)
{
	WRITE_ONCE(*c, *c + 1);
}

/*
 * conf->total counts stripes allocated or about to be: a lookup reserves
 * one below @bound before it allocates, so shards growing at once never
 * pass the limit together.
 */
static bool r5_reserve(struct r5conf *conf, int bound)
{
	int t = atomic_read(&conf->total);

	do {
		if (t >= bound)
			return false;
	} while (!atomic_try_cmpxchg(&conf->total, &t, t + 1));
	return true;
}

/* Give back one stripe's count if more than @floor are allocated. */
static bool r5_unreserve_above(struct r5conf *conf, int floor)
{
	int t = atomic_read(&conf->total);

	do {
		if (t <= floor)
			return false;
	} while (!atomic_try_cmpxchg(&conf->total, &t, t - 1));
	return true;
}

/*
 * Allocate a stripe reserved below @bound, dropping the shard lock
 * meanwhile; *@tried says an allocation was attempted (at most one per
 * wait).  Up to R5_CACHE_MIN stripes must come; beyond, the allocation
 * may fail quietly (the cache then recycles what it has).
 */
static struct r5stripe *r5_grow_unlocked(struct r5conf *conf,
					 struct r5shard *sd, int bound,
					 bool *tried)
{
	struct r5stripe *sh;
	gfp_t gfp;

	lockdep_assert_held(&sd->lock);
	if (*tried || !r5_reserve(conf, bound))
		return NULL;
	*tried = true;
	gfp = atomic_read(&conf->total) <= R5_CACHE_MIN ? GFP_NOIO :
	      GFP_NOIO | __GFP_NORETRY | __GFP_NOWARN;
	spin_unlock_irq(&sd->lock);
	sh = r5_stripe_alloc(conf, gfp);
	spin_lock_irq(&sd->lock);
	if (sh)
		r5_count(&sd->grown);
	else
		atomic_dec(&conf->total);
	return sh;
}

/*
 * Every stripe of @sd is busy: take the least recently used unused
 * stripe of another shard, unhashed, dropping @sd's lock meanwhile (the
 * two locks never nest).  NULL if no shard has one.
 */
static struct r5stripe *r5_steal_unlocked(struct r5conf *conf,
					  struct r5shard *sd)
	__must_hold(&sd->lock)
{
	struct r5stripe *sh = NULL;
	int k, me = sd - conf->shards;

	lockdep_assert_held(&sd->lock);
	spin_unlock_irq(&sd->lock);
	for (k = 1; k < R5_SHARDS && !sh; k++) {
		struct r5shard *o = &conf->shards[(me + k) % R5_SHARDS];

		if (list_empty_careful(&o->inactive))
			continue;
		spin_lock_irq(&o->lock);
		sh = list_first_entry_or_null(&o->inactive, struct r5stripe,
					      lru);
		if (sh) {
			list_del_init(&sh->lru);
			hlist_del_init(&sh->hash);
		}
		spin_unlock_irq(&o->lock);
	}
	spin_lock_irq(&sd->lock);
	return sh;
}

static void r5_row_wake_all(struct r5conf *conf, bool expired);

/* Some shard has an unused stripe, or the cache may grow (!@tried). */
static bool r5_may_get(struct r5conf *conf, bool tried)
{
	int i;

	if (!tried && atomic_read(&conf->total) < READ_ONCE(conf->limit))
		return true;
	for (i = 0; i < R5_SHARDS; i++)
		if (!list_empty_careful(&conf->shards[i].inactive))
			return true;
	return false;
}

/*
 * The stripe for the row at member sector @sector, referenced.  Sleeps
 * for a free stripe unless @noblock (a worker), then returns NULL.
 * Takes only the row's shard lock, except to steal (below).
 *
 * Sizing: below stripe_cache_size (conf->min) a new stripe is allocated
 * rather than an unused one recycled, so the cache fills to its minimum
 * as in-tree's preallocated one; above it, only when the shard has no
 * unused stripe, up to conf->limit (the memory budget); at the limit an
 * unused stripe of another shard is taken.  So the cache grows exactly
 * while every stripe is busy, i.e. to what the load in flight needs; the
 * shrinker and trim_work take the surplus back.
 */
static struct r5stripe *r5_get_stripe(struct r5conf *conf, sector_t sector,
				      bool noblock)
{
	struct r5shard *sd = r5_shard(conf, sector);
	struct r5stripe *sh, *spare = NULL;
	bool tried = false, first = true, waited = false;

	spin_lock_irq(&sd->lock);
	for (;;) {
		sh = r5_lookup(conf, sector);
		if (sh) {
			if (first)
				r5_count(&sd->hits);
			break;
		}
		if (first)
			r5_count(&sd->misses);
		first = false;
		if (spare) {
			sh = spare;
			spare = NULL;
			r5_stripe_init(conf, sh, sector);
			break;
		}
		spare = r5_grow_unlocked(conf, sd, READ_ONCE(conf->min),
					 &tried);
		if (spare)
			continue;
		sh = list_first_entry_or_null(&sd->inactive,
					      struct r5stripe, lru);
		if (sh) {
			r5_stripe_init(conf, sh, sector);
			break;
		}
		/* every stripe of the shard is busy: grow within the budget */
		spare = r5_grow_unlocked(conf, sd, READ_ONCE(conf->limit),
					 &tried);
		if (!spare)
			spare = r5_steal_unlocked(conf, sd);
		if (spare)
			continue;
		if (noblock)
			break;
		/* stripes waiting for their rows give way to a new request */
		if (!list_empty_careful(&conf->row_wait)) {
			spin_unlock_irq(&sd->lock);
			r5_row_wake_all(conf, false);
			spin_lock_irq(&sd->lock);
			continue;
		}
		if (!waited) {
			waited = true;
			r5_count(&sd->waits);
		}
		/* a stripe becomes unused, or the limit grows */
		wait_event_lock_irq(conf->wait, r5_may_get(conf, tried),
				    sd->lock);
		tried = false;
	}
	if (sh)
		r5_hold(sd, sh);
	/* found after all: the spare stays cached, unused */
	if (spare)
		list_add(&spare->lru, &sd->inactive);
	spin_unlock_irq(&sd->lock);
	return sh;
}

/* Drop a reference.  Process context. */
static void r5_put_stripe(struct r5conf *conf, struct r5stripe *sh)
{
	struct r5shard *sd = r5_shard(conf, sh->sector);
	unsigned long flags;
	bool drop = false;

	spin_lock_irqsave(&sd->lock, flags);
	if (--sh->count) {
		spin_unlock_irqrestore(&sd->lock, flags);
		return;
	}
	WRITE_ONCE(sd->active, sd->active - 1);
	if (r5_unreserve_above(conf, READ_ONCE(conf->limit))) {
		hlist_del_init(&sh->hash);
		r5_count(&sd->shrunk);
		drop = true;
	} else {
		list_add_tail(&sh->lru, &sd->inactive);
	}
	spin_unlock_irqrestore(&sd->lock, flags);
	if (drop)
		r5_stripe_free(conf, sh);
	/*
	 * Full barrier: the unused stripe before the reads below; pairs
	 * with a sleeper's set_current_state() in r5_get_stripe(), and with
	 * the retry list's store before its worker is queued.
	 */
	if (wq_has_sleeper(&conf->wait))
		wake_up(&conf->wait);
	/* failed direct reads wait for a stripe in worker 0 */
	if (!list_empty_careful(&conf->retry))
		queue_work(conf->wq, &conf->workers[0].work);
}

/*
 * Free up to @nr unused stripes, least recently used of each shard
 * first, while more than @floor are allocated: a share from each shard,
 * then whatever is left.  Any process context; returns the count.
 */
static unsigned long r5_trim(struct r5conf *conf, unsigned long nr, int floor)
{
	unsigned long n = 0, share = DIV_ROUND_UP(nr, R5_SHARDS);
	struct r5stripe *sh, *tmp;
	LIST_HEAD(drop);
	int pass, i;

	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < R5_SHARDS && n < nr; i++) {
			struct r5shard *sd = &conf->shards[i];
			unsigned long took = 0;

			spin_lock_irq(&sd->lock);
			while (n < nr && (pass || took < share)) {
				sh = list_first_entry_or_null(&sd->inactive,
							      struct r5stripe,
							      lru);
				if (!sh || !r5_unreserve_above(conf, floor))
					break;
				list_move(&sh->lru, &drop);
				hlist_del_init(&sh->hash);
				took++;
				n++;
			}
			WRITE_ONCE(sd->shrunk, sd->shrunk + took);
			spin_unlock_irq(&sd->lock);
		}
	}
	list_for_each_entry_safe(sh, tmp, &drop, lru)
		r5_stripe_free(conf, sh);
	return n;
}

/* Recompute conf->limit after min or the budget changed. */
static void r5_set_limit(struct r5conf *conf)
{
	u64 n = div_u64((u64)conf->budget_kb << 10, conf->stripe_bytes);

	lockdep_assert_held(&conf->lock);
	WRITE_ONCE(conf->limit, clamp_t(u64, n, conf->min, R5_CACHE_MAX));
	/*
	 * Sync may hold the minimum's worth of stripes, as much as in-tree's
	 * whole cache: enough to keep every member busy, and a foreground
	 * read that comes finds that much queued ahead of it, not a cache
	 * grown to its budget (a second of IO on 20 MB/s members).
	 */
	WRITE_ONCE(conf->mddev->sync_window,
		   max(conf->min, R5_SYNC_STRIPES) * R5_STRIPE_SECTORS);
	/* waiters may allocate now */
	wake_up(&conf->wait);
}

static int r5_active(struct r5conf *conf)
{
	int i, n = 0;

	for (i = 0; i < R5_SHARDS; i++)
		n += READ_ONCE(conf->shards[i].active);
	return n;
}

/* Sum of the u64 at @off of every cache shard. */
static u64 r5_shard_sum(struct r5conf *conf, size_t off)
{
	u64 sum = 0;
	int i;

	for (i = 0; i < R5_SHARDS; i++)
		sum += READ_ONCE(*(u64 *)((char *)&conf->shards[i] + off));
	return sum;
}

/* Lookups so far (md/stats/stripe_cache_hits + _misses). */
static u64 r5_lookups(struct r5conf *conf)
{
	return r5_shard_sum(conf, offsetof(struct r5shard, hits)) +
	       r5_shard_sum(conf, offsetof(struct r5shard, misses));
}

/* Unused stripes above the minimum: what may be given back. */
static unsigned long r5_idle_above_min(struct r5conf *conf)
{
	int total = atomic_read(&conf->total);
	int idle = total - r5_active(conf);
	int above = total - READ_ONCE(conf->min);

	return max(0, min(idle, above));
}

static unsigned long r5_shrink_count(struct shrinker *shrink,
				     struct shrink_control *sc)
{
	return r5_idle_above_min(md_shrinker_private(shrink));
}

static unsigned long r5_shrink_scan(struct shrinker *shrink,
				    struct shrink_control *sc)
{
	struct r5conf *conf = md_shrinker_private(shrink);
	unsigned long n = r5_trim(conf, sc->nr_to_scan, READ_ONCE(conf->min));

	return n ? n : SHRINK_STOP;
}

static void r5_trim_work(struct work_struct *work)
{
	struct r5conf *conf = container_of(to_delayed_work(work),
					   struct r5conf, trim_work);
	u64 seen = r5_lookups(conf);
	unsigned long idle = r5_idle_above_min(conf);

	/* no lookup for a whole period: the array is idle */
	if (seen == conf->trim_seen && idle)
		r5_trim(conf, DIV_ROUND_UP(idle, 2), READ_ONCE(conf->min));
	conf->trim_seen = seen;
	queue_delayed_work(system_power_efficient_wq, &conf->trim_work,
			   msecs_to_jiffies(R5_TRIM_MS));
}

static struct r5worker *r5_worker(struct r5conf *conf, struct r5stripe *sh)
{
	return &conf->workers[sh->worker];
}

/* The owner's pointer array for xor and the syndrome (its worker's). */
static void **r5_ptrs(struct r5conf *conf, struct r5stripe *sh)
{
	return r5_worker(conf, sh)->ptrs;
}

/*
 * Is @sh's turn the sync's?  Read by the stripe's owner, ->sync without
 * sh->lock: a request attached meanwhile only changes which list the
 * stripe waits on, never whether it runs.
 */
static bool r5_stripe_is_sync(struct r5stripe *sh)
{
	return READ_ONCE(sh->sync) || sh->syncing;
}

/* Put owned @sh (on no list) at the tail of its list on @w. */
static void r5_enqueue(struct r5worker *w, struct r5stripe *sh)
{
	lockdep_assert_held(&w->lock);
	sh->qseq = w->qseq++;
	list_add_tail(&sh->lru, r5_stripe_is_sync(sh) ? &w->handle_sync :
			&w->handle);
}

/*
 * The next stripe @w runs: the older of the two lists' heads, except
 * beside a light foreground (@light), whose stripes (a QD1 reader's
 * degraded reads) go before the sync's however many are queued.
 */
static struct r5stripe *r5_next_stripe(struct r5worker *w, bool light)
{
	struct r5stripe *fg, *sy, *sh;

	lockdep_assert_held(&w->lock);
	fg = list_first_entry_or_null(&w->handle, struct r5stripe, lru);
	sy = list_first_entry_or_null(&w->handle_sync, struct r5stripe, lru);
	if (!sy || (fg && (light || (s32)(fg->qseq - sy->qseq) < 0)))
		sh = fg;
	else
		sh = sy;
	if (sh)
		list_del_init(&sh->lru);
	return sh;
}

/* Hand an owned stripe to its worker.  Any context. */
static void r5_queue(struct r5stripe *sh)
{
	struct r5worker *w = r5_worker(sh->conf, sh);
	unsigned long flags;

	spin_lock_irqsave(&w->lock, flags);
	r5_enqueue(w, sh);
	spin_unlock_irqrestore(&w->lock, flags);
	queue_work(sh->conf->wq, &w->work);
}

/* Hand every owned stripe on @list to its worker. */
static void r5_queue_list(struct r5conf *conf, struct list_head *list)
{
	struct r5stripe *sh, *tmp;
	unsigned long flags;
	int i;

	for (i = 0; !list_empty(list) && i < conf->nr_workers; i++) {
		struct r5worker *w = &conf->workers[i];
		bool any = false;

		spin_lock_irqsave(&w->lock, flags);
		list_for_each_entry_safe(sh, tmp, list, lru) {
			if (sh->worker != i)
				continue;
			list_del(&sh->lru);
			r5_enqueue(w, sh);
			any = true;
		}
		spin_unlock_irqrestore(&w->lock, flags);
		if (any)
			queue_work(conf->wq, &w->work);
	}
}

/*
 * Make @sh owned by the state machine if it is not already (caller holds
 * sh->lock after adding work); the ownership holds a reference.
 */
static bool r5_claim(struct r5stripe *sh)
{
	lockdep_assert_held(&sh->lock);
	return !test_and_set_bit(R5S_HANDLING, &sh->flags);
}

/*
 * Stripes a plugged submitter claimed: the worker gets them when the
 * plug ends (or its task sleeps), so every piece of the requests under
 * the plug is on its stripes before any of them is handled, and the
 * writes that fill a row together need no reads.
 */
struct r5plug {
	struct blk_plug_cb cb;		/* cb.data: the conf */
	struct list_head stripes;	/* owned, referenced; by sh->lru */
};

static void r5_unplug(struct blk_plug_cb *cb, bool from_schedule)
{
	struct r5plug *rp = container_of(cb, struct r5plug, cb);

	r5_queue_list(cb->data, &rp->stripes);
	kfree(rp);
}

/* Put owned @sh on the current task's plug; false if it has none. */
static bool r5_plug_add(struct r5conf *conf, struct r5stripe *sh)
{
	struct blk_plug_cb *cb = blk_check_plugged(r5_unplug, conf,
						   sizeof(struct r5plug));
	struct r5plug *rp;

	if (!cb)
		return false;
	rp = container_of(cb, struct r5plug, cb);
	/* blk_check_plugged() zeroes a new one */
	if (!rp->stripes.next)
		INIT_LIST_HEAD(&rp->stripes);
	list_add_tail(&sh->lru, &rp->stripes);
	return true;
}

/* An owned stripe to its worker, or (@may_plug, a submitter) to its plug. */
static void r5_hand_over(struct r5conf *conf, struct r5stripe *sh,
			 bool may_plug)
{
	if (!may_plug || !r5_plug_add(conf, sh))
		r5_queue(sh);
}

/* The ownership's reference, then r5_hand_over(). */
static void r5_start_handling(struct r5conf *conf, struct r5stripe *sh,
			      bool may_plug)
{
	struct r5shard *sd = r5_shard(conf, sh->sector);

	spin_lock_irq(&sd->lock);
	r5_hold(sd, sh);
	spin_unlock_irq(&sd->lock);
	r5_hand_over(conf, sh, may_plug);
}

/* ---- whole rows from a stream ---------------------------------------- */

/*
 * Send on a stripe whose R5S_ROW_WAIT the caller cleared: off
 * conf->row_wait (the stripe may not be on it yet: r5_row_wait() adds it
 * only while the bit is set), then r5_hand_over().
 */
static void r5_row_wake(struct r5conf *conf, struct r5stripe *sh,
			bool may_plug)
{
	unsigned long flags;

	spin_lock_irqsave(&conf->lock, flags);
	list_del_init(&sh->lru);
	spin_unlock_irqrestore(&conf->lock, flags);
	r5_hand_over(conf, sh, may_plug);
}

/*
 * Send on every waiting stripe (@expired: only those that waited
 * R5_ROW_WAIT_MS).  Any context.
 */
static void r5_row_wake_all(struct r5conf *conf, bool expired)
{
	unsigned long flags, now = jiffies;
	unsigned long wait = msecs_to_jiffies(R5_ROW_WAIT_MS);
	struct r5stripe *sh, *tmp;
	unsigned int n = 0;
	LIST_HEAD(ready);

	spin_lock_irqsave(&conf->lock, flags);
	list_for_each_entry_safe(sh, tmp, &conf->row_wait, lru) {
		if (expired && time_before(now, sh->wait_since + wait))
			continue;
		/* else an attach cleared it and takes it off the list */
		if (test_and_clear_bit(R5S_ROW_WAIT, &sh->flags)) {
			list_move_tail(&sh->lru, &ready);
			n++;
		}
	}
	spin_unlock_irqrestore(&conf->lock, flags);
	r5_queue_list(conf, &ready);
	if (n)
		atomic64_add(n, &conf->row_wait_unfilled);
}

/*
 * Every write in flight waits for a stripe to get the rest of its row:
 * no completion can bring the next request of any stream, so waiting
 * longer gains nothing (a stream at queue depth 1, its end, a quiesce).
 */
static void r5_row_wait_check(struct r5conf *conf, int writes)
{
	int waiting = atomic_read(&conf->waiting_reqs);

	if (waiting && waiting >= writes)
		r5_row_wake_all(conf, false);
}

/* A write request ended (r5_req_put()).  Any context. */
static void r5_writes_left(struct r5conf *conf)
{
	/* full barrier (atomic_dec_return): pairs with r5_row_wait()'s */
	r5_row_wait_check(conf, atomic_dec_return(&conf->writes));
}

static void r5_row_wait_work(struct work_struct *work)
{
	struct r5conf *conf = container_of(to_delayed_work(work),
					   struct r5conf, row_wait_work);

	r5_row_wake_all(conf, true);
	if (!list_empty_careful(&conf->row_wait))
		queue_delayed_work(system_power_efficient_wq,
				   &conf->row_wait_work,
				   msecs_to_jiffies(R5_ROW_WAIT_MS));
}

/*
 * Work was added to @sh under sh->lock: claim it for the state machine
 * (R5W_CLAIMED), or take back a stripe that waited for its row
 * (R5W_WOKE).  r5_work_added_done() after dropping the lock acts on it.
 */
enum { R5W_NONE, R5W_CLAIMED, R5W_WOKE };

static int r5_work_added(struct r5stripe *sh)
{
	lockdep_assert_held(&sh->lock);
	if (r5_claim(sh))
		return R5W_CLAIMED;
	if (test_and_clear_bit(R5S_ROW_WAIT, &sh->flags))
		return R5W_WOKE;
	return R5W_NONE;
}

static void r5_work_added_done(struct r5conf *conf, struct r5stripe *sh,
			       int how, bool may_plug)
{
	if (how == R5W_CLAIMED)
		r5_start_handling(conf, sh, may_plug);
	else if (how == R5W_WOKE)
		r5_row_wake(conf, sh, may_plug);
}

/*
 * Add @p to the stripe of @sector, member @i; sleeps for a free stripe,
 * unless @nowait: then false, and @p is not attached, when none is free.
 */
static bool r5_attach(struct r5conf *conf, sector_t sector, int i,
		      struct r5piece *p, bool write, bool nowait)
{
	struct r5stripe *sh = r5_get_stripe(conf, sector, nowait);
	struct r5dev *dev;
	int how;

	if (!sh)
		return false;
	dev = &sh->dev[i];
	spin_lock_irq(&sh->lock);
	list_add_tail(&p->node, write ? &dev->towrite : &dev->toread);
	how = r5_work_added(sh);
	spin_unlock_irq(&sh->lock);
	r5_work_added_done(conf, sh, how, true);
	r5_put_stripe(conf, sh);
	return true;
}

/* ---- data movement and parity --------------------------------------- */

/* A piece of a discard: zeroes, no data in the request. */
static bool r5_piece_discard(struct r5piece *p)
{
	return bio_op(p->req->master) == REQ_OP_DISCARD;
}

/* Copy between a piece's bytes of its request and the page. */
static void r5_copy(struct r5piece *p, struct page *page, bool to_page)
{
	struct bio *bio = p->req->master;
	struct bvec_iter start = p->req->iter, it;
	char *base = page_address(page) + p->off;
	struct bio_vec bv;

	bio_advance_iter(bio, &start, p->boff);
	start.bi_size = p->len;
	__bio_for_each_segment(bv, bio, it, start) {
		if (to_page)
			memcpy_from_bvec(base, &bv);
		else
			memcpy_to_bvec(&bv, base);
		base += bv.bv_len;
	}
}

/* dest ^= srcs[0] ^ ... ^ srcs[n - 1], in groups xor_blocks() takes. */
static void r5_xor(void *dest, void **srcs, int n)
{
	while (n > 0) {
		int k = min(n, MAX_XOR_BLOCKS);

		xor_blocks(k, PAGE_SIZE, dest, srcs);
		srcs += k;
		n -= k;
	}
}

/* dest = xor of every page of @sh but @skip and Q. */
static void r5_xor_others(struct r5conf *conf, struct r5stripe *sh,
			  void *dest, int skip)
{
	void **ptrs = r5_ptrs(conf, sh);
	int i, n = 0;

	for (i = 0; i < conf->raid_disks; i++) {
		if (i == skip || sh->dev[i].role == R5G_Q)
			continue;
		ptrs[n++] = page_address(sh->dev[i].page);
	}
	memcpy(dest, ptrs[0], PAGE_SIZE);
	r5_xor(dest, ptrs + 1, n - 1);
}

/*
 * RAID6: the data pages of @sh into r5_ptrs() in syndrome order; slots
 * no data member fills (DDF: where P and Q sit) read as zeroes.  Returns
 * the syndrome width: P goes in slot width - 2, Q in width - 1.
 */
static int r5_syndrome_data(struct r5conf *conf, struct r5stripe *sh)
{
	void **ptrs = r5_ptrs(conf, sh);
	int width = r5g_syndrome_width(&conf->geo), i;

	if (conf->geo.ddf)
		for (i = 0; i < width - 2; i++)
			ptrs[i] = page_address(ZERO_PAGE(0));
	for (i = 0; i < conf->raid_disks; i++)
		if (sh->dev[i].role >= 0)
			ptrs[sh->dev[i].slot] = page_address(sh->dev[i].page);
	return width;
}

/* RAID6: P and Q of the data pages into @p and @q. */
static void r5_gen_pq(struct r5conf *conf, struct r5stripe *sh, void *p,
		      void *q)
{
	void **ptrs = r5_ptrs(conf, sh);
	int width = r5_syndrome_data(conf, sh);

	ptrs[width - 2] = p;
	ptrs[width - 1] = q;
	raid6_call.gen_syndrome(width, PAGE_SIZE, ptrs);
}

/* Parity of the data pages into P (and Q) of @sh. */
static void r5_compute_parity(struct r5conf *conf, struct r5stripe *sh)
{
	struct r5dev *p = &sh->dev[sh->row.pd];

	if (conf->geo.level == 6)
		r5_gen_pq(conf, sh, page_address(p->page),
			  page_address(sh->dev[sh->row.qd].page));
	else
		r5_xor_others(conf, sh, page_address(p->page), sh->row.pd);
}

/* RAID6 pointer array in syndrome order, P and Q last; its width. */
static int r5_syndrome_ptrs(struct r5conf *conf, struct r5stripe *sh)
{
	void **ptrs = r5_ptrs(conf, sh);
	int width = r5_syndrome_data(conf, sh);

	ptrs[width - 2] = page_address(sh->dev[sh->row.pd].page);
	ptrs[width - 1] = page_address(sh->dev[sh->row.qd].page);
	return width;
}

/*
 * Recompute pages @a and @b (-1: none) of @sh from the others, which are
 * all uptodate.  RAID4/5: one page, the xor of the rest.  RAID6 by what
 * is lost: one data page (with or without Q) from P by xor, then Q by
 * the syndrome; P and/or Q by the syndrome; data and P, or two data
 * pages, by the raid6 recovery routines.
 */
static void r5_reconstruct(struct r5conf *conf, struct r5stripe *sh, int a,
			   int b)
{
	int pd = sh->row.pd, qd = sh->row.qd;
	void *s0 = page_address(r5_worker(conf, sh)->scratch[0]);
	void *s1 = page_address(r5_worker(conf, sh)->scratch[1]);
	int ra, rb;

	if (conf->geo.level != 6) {
		r5_xor_others(conf, sh, page_address(sh->dev[a].page), a);
		return;
	}
	/* order: a data page first, then P, then Q */
	if (b >= 0 && sh->dev[b].role >= 0 && sh->dev[a].role < 0)
		swap(a, b);
	if (b >= 0 && sh->dev[a].role == R5G_Q)
		swap(a, b);
	ra = sh->dev[a].role;
	rb = b >= 0 ? sh->dev[b].role : 0;

	if (ra >= 0 && (b < 0 || rb == R5G_Q)) {
		r5_xor_others(conf, sh, page_address(sh->dev[a].page), a);
		if (b >= 0)
			r5_gen_pq(conf, sh, s0, page_address(sh->dev[qd].page));
	} else if (ra < 0) {
		/* P and/or Q */
		bool p_lost = ra == R5G_P || (b >= 0 && rb == R5G_P);
		bool q_lost = ra == R5G_Q || (b >= 0 && rb == R5G_Q);

		r5_gen_pq(conf, sh, p_lost ? page_address(sh->dev[pd].page) : s0,
			  q_lost ? page_address(sh->dev[qd].page) : s1);
	} else if (rb == R5G_P) {
		raid6_datap_recov(r5_syndrome_ptrs(conf, sh), PAGE_SIZE,
				  sh->dev[a].slot, r5_ptrs(conf, sh));
	} else {
		raid6_2data_recov(r5_syndrome_ptrs(conf, sh), PAGE_SIZE,
				  min(sh->dev[a].slot, sh->dev[b].slot),
				  max(sh->dev[a].slot, sh->dev[b].slot),
				  r5_ptrs(conf, sh));
	}
}

/* ---- member IO -------------------------------------------------------- */

static void r5_dev_endio(struct bio *bio)
{
	struct r5stripe *sh = bio->bi_private;
	struct r5dev *dev = sh->dev;

	while (dev->bio != bio && dev->rbio != bio)
		dev++;
	if (bio->bi_status && bio == dev->rbio)
		set_bit(R5D_RWERR, &dev->flags);
	else if (bio->bi_status)
		set_bit(op_is_write(bio_op(bio)) ? R5D_WERR : R5D_RERR,
			&dev->flags);
	/*
	 * Full barrier: orders the flag before the count; the worker reads
	 * the flags after the stripe is handed back by the last one.
	 */
	if (atomic_dec_and_test(&sh->io_pending))
		r5_queue(sh);
}

/* Set @bio up for @dev's page on @rdev (the member or its replacement). */
static void r5_bio_prep(struct r5stripe *sh, struct r5dev *dev,
			struct bio *bio, struct md_rdev *rdev, blk_opf_t opf)
{
	bio_init(bio, rdev->bdev, bio->bi_inline_vecs, 1, opf);
	bio->bi_iter.bi_sector = sh->sector + r5_offset(sh->conf, rdev);
	if (op_is_discard(opf))
		bio->bi_iter.bi_size = PAGE_SIZE;
	else
		__bio_add_page(bio, dev->page, PAGE_SIZE, 0);
	bio->bi_end_io = r5_dev_endio;
	bio->bi_private = sh;
}

static void r5_dev_bio(struct r5stripe *sh, int i, struct md_rdev *rdev,
		       blk_opf_t opf)
{
	struct r5dev *dev = &sh->dev[i];

	dev->rdev = rdev;
	r5_bio_prep(sh, dev, dev->bio, rdev, opf);
}

/*
 * Member bios leave a worker member by member.  The worker runs its
 * stripes one row at a time, so submitting each stripe's bios at once
 * interleaves the members (A0 B0 P0 A1 B1 P1 ...), and the plug must
 * find each member's latest request to merge the next page into it.
 * 6.1 keeps the plug newest first and finds it.  6.12 keeps it in
 * submission order: it tries the newest request only if it is the same
 * member's, else that member's oldest one in the plug.  Once a member's
 * first request is full, every further page of it became a request of
 * its own: four to five times the requests, which reached the members'
 * writeback throttling, which put the worker to sleep, and kblockd then
 * issued the requests before they had grown (t98: 75-83 KiB against
 * in-tree md's 94-102 KiB on RAID5/6).  A member's bios in a row let
 * every page merge into the newest request, on either kernel.
 *
 * A member's bios in a row then reach its scheduler together, and
 * 6.12's mq-deadline serves the lowest request at or above the start of
 * the one it issued last, else the oldest.  A run that goes back over
 * what the member wrote last (a row's parity written again by the next
 * dd-direct request) has a request starting right there: it went first,
 * before the run's lower ones, three breaks in the stream instead of
 * one (t98 dd-direct: 12-13 % of requests broke, in-tree md's 8-10 %).
 * So a bio that starts below where the member's latest one in its
 * direction ended is issued on its own (the plug flushed after it),
 * which moves the scheduler's position back to it; the rest of the run
 * follows in order.
 */
static void r5_submit_one(struct r5conf *conf, struct bio *bio)
{
	struct r5stripe *sh = bio->bi_private;
	struct blk_plug *plug = current->plug;
	sector_t *next;
	bool back;
	int i;

	for (i = 0; i < conf->raid_disks; i++)
		if (sh->dev[i].bio == bio || sh->dev[i].rbio == bio)
			break;
	if (WARN_ON_ONCE(i == conf->raid_disks)) {
		/* not a member bio of @sh: no position to keep */
		submit_bio_noacct(bio);
		return;
	}
	if (bio == sh->dev[i].rbio)
		next = &conf->disks[i].rnext[op_is_write(bio_op(bio))];
	else
		next = &conf->disks[i].next[op_is_write(bio_op(bio))];
	back = bio->bi_iter.bi_sector < READ_ONCE(*next);
	WRITE_ONCE(*next, bio_end_sector(bio));
	submit_bio_noacct(bio);
	if (back && plug) {
		/* the worker's own plug (raid5_work()): flush, go on */
		blk_finish_plug(plug);
		blk_start_plug(plug);
	}
}

/*
 * Submit what @w holds, each member's bios in the order they came.
 * The worker calls this before anything that may sleep (allocations in
 * r5_retry_reads()) and before it returns: the stripes of held bios
 * wait for them, and so may whatever frees what a sleeper waits for.
 */
static void r5_submit_held(struct r5worker *w)
{
	struct block_device *bdev;
	struct bio_list rest;
	struct bio *bio;

	while (!bio_list_empty(&w->held)) {
		bdev = w->held.head->bi_bdev;
		bio_list_init(&rest);
		while ((bio = bio_list_pop(&w->held))) {
			if (bio->bi_bdev == bdev)
				r5_submit_one(w->conf, bio);
			else
				bio_list_add(&rest, bio);
		}
		w->held = rest;
	}
	w->nr_held = 0;
}

/*
 * Submit member bio @bio of @sh: held by the stripe's worker, which is
 * running it, until r5_submit_held(); at the latest once it holds
 * R5_HELD_PAGES pages of every member.  Owner.
 */
static void r5_submit(struct r5conf *conf, struct r5stripe *sh,
		      struct bio *bio)
{
	struct r5worker *w = r5_worker(conf, sh);

	bio_list_add(&w->held, bio);
	if (++w->nr_held >= R5_HELD_PAGES * conf->raid_disks)
		r5_submit_held(w);
}

/* Member IO of one phase is done: unpin the members.  Owner. */
static void r5_io_done(struct r5conf *conf, struct r5stripe *sh, int flag)
{
	int i;

	for (i = 0; i < conf->raid_disks; i++) {
		struct r5dev *dev = &sh->dev[i];

		if (!test_bit(flag, &dev->flags) || !dev->rdev)
			continue;
		bio_uninit(dev->bio);
		md_rdev_unpin(dev->rdev);
		dev->rdev = NULL;
	}
}

/* ---- the state machine ---------------------------------------------- */

static int r5_sync_mode(struct mddev *mddev)
{
	if (!test_bit(MDR_SYNC, &mddev->recovery))
		return R5M_RECOVER;
	if (!test_bit(MDR_REQUESTED, &mddev->recovery))
		return R5M_RESYNC;
	if (test_bit(MDR_CHECK, &mddev->recovery))
		return R5M_CHECK;
	return R5M_REPAIR;
}

static bool r5_has_pieces(struct r5conf *conf, struct r5stripe *sh,
			  bool write)
{
	int i;

	lockdep_assert_held(&sh->lock);
	for (i = 0; i < conf->raid_disks; i++)
		if (!list_empty(write ? &sh->dev[i].towrite :
				&sh->dev[i].toread))
			return true;
	return false;
}

/* Do the pieces on @list cover a whole page? */
static bool r5_covered(struct list_head *list)
{
	DECLARE_BITMAP(bytes, R5_STRIPE_SECTORS);
	struct r5piece *p;

	bitmap_zero(bytes, R5_STRIPE_SECTORS);
	list_for_each_entry(p, list, node)
		bitmap_set(bytes, p->off >> SECTOR_SHIFT,
			   p->len >> SECTOR_SHIFT);
	return bitmap_full(bytes, R5_STRIPE_SECTORS);
}

/*
 * The newest bitmap stamp the pending writes of @sh wait for, 0 if
 * their bits are all on disk.  sh->lock held.
 */
static u64 r5_bitmap_need(struct r5conf *conf, struct r5stripe *sh)
{
	struct md_bitmap *bm = conf->mddev->bitmap;
	struct r5piece *p;
	u64 need = 0;
	int i;

	lockdep_assert_held(&sh->lock);
	if (!bm)
		return 0;
	for (i = 0; i < conf->raid_disks; i++)
		list_for_each_entry(p, &sh->dev[i].towrite, node)
			need = max(need, p->req->bm_need);
	return need && !md_bitmap_written(bm, need) ? need : 0;
}

/* Count each request's wait for its bitmap bits once: at its first op. */
static void r5_bitmap_account(struct r5conf *conf, struct r5stripe *sh)
{
	struct r5piece *p;
	u64 now = 0, since;
	int i;

	for (i = 0; i < conf->raid_disks; i++)
		list_for_each_entry(p, &sh->dev[i].writing, node) {
			if (!READ_ONCE(p->req->bm_since))
				continue;
			since = xchg(&p->req->bm_since, 0);
			if (!since)
				continue;
			if (!now)
				now = local_clock();
			md_bitmap_count_wait(conf->mddev->bitmap, now - since);
		}
}

/*
 * Should the pending writes wait for the rest of their row?  Only if a
 * piece of a stream's tail (r5piece.tail) is among them and some data
 * page is neither cached nor wholly written: the write would read.
 */
static bool r5_row_incomplete(struct r5conf *conf, struct r5stripe *sh)
{
	bool tail = false;
	struct r5piece *p;
	int i;

	lockdep_assert_held(&sh->lock);
	for (i = 0; i < conf->raid_disks && !tail; i++)
		list_for_each_entry(p, &sh->dev[i].towrite, node)
			tail |= p->tail;
	if (!tail)
		return false;
	for (i = 0; i < conf->raid_disks; i++) {
		struct r5dev *dev = &sh->dev[i];

		if (dev->role >= 0 && !test_bit(R5D_UPTODATE, &dev->flags) &&
		    !r5_covered(&dev->towrite))
			return true;
	}
	return false;
}

/*
 * Count (@wait) or uncount the requests whose pieces a waiting stripe
 * holds, in conf->waiting_reqs.  A piece makes a stripe wait once.
 */
static void r5_row_wait_count(struct r5conf *conf, struct r5stripe *sh,
			      bool wait)
{
	struct r5piece *p;
	int i;

	lockdep_assert_held(&sh->lock);
	for (i = 0; i < conf->raid_disks; i++)
		list_for_each_entry(p, &sh->dev[i].towrite, node) {
			if (wait) {
				p->waited = true;
				if (atomic_inc_return(&p->req->row_waits) == 1)
					atomic_inc(&conf->waiting_reqs);
			} else if (p->waited) {
				p->waited = false;
				p->tail = false;
				if (atomic_dec_and_test(&p->req->row_waits))
					atomic_dec(&conf->waiting_reqs);
			}
		}
}

/*
 * IDLE -> an operation: take the sync request, else the pending writes,
 * else the pending reads.  R5B_NONE if there is nothing to do,
 * R5B_HELD (sh->bm_need set) if the writes must wait for the bitmap,
 * R5B_ROW (R5S_ROW_WAIT set) if they wait for the rest of the row.
 * Owner.
 */
enum { R5B_NONE, R5B_OP, R5B_HELD, R5B_ROW };

static int r5_begin(struct r5conf *conf, struct r5stripe *sh)
{
	unsigned long reread;
	bool writes;
	int i;

	spin_lock_irq(&sh->lock);
	writes = r5_has_pieces(conf, sh, true);
	if (!sh->sync && writes) {
		sh->bm_need = r5_bitmap_need(conf, sh);
		if (sh->bm_need) {
			spin_unlock_irq(&sh->lock);
			return R5B_HELD;
		}
		if (r5_row_incomplete(conf, sh)) {
			r5_row_wait_count(conf, sh, true);
			set_bit(R5S_ROW_WAIT, &sh->flags);
			spin_unlock_irq(&sh->lock);
			return R5B_ROW;
		}
	}
	reread = sh->reread;
	sh->reread = 0;
	if (sh->sync) {
		sh->op = R5_OP_SYNC;
		sh->syncing = sh->sync;
		sh->sync = NULL;
	} else if (writes) {
		sh->op = R5_OP_WRITE;
		for (i = 0; i < conf->raid_disks; i++)
			list_splice_tail_init(&sh->dev[i].towrite,
					      &sh->dev[i].writing);
	} else if (r5_has_pieces(conf, sh, false)) {
		sh->op = R5_OP_READ;
		for (i = 0; i < conf->raid_disks; i++)
			list_splice_tail_init(&sh->dev[i].toread,
					      &sh->dev[i].reading);
	} else {
		sh->op = R5_OP_NONE;
	}
	spin_unlock_irq(&sh->lock);
	if (sh->op == R5_OP_NONE)
		return R5B_NONE;
	sh->op_reads = 0;
	if (sh->op == R5_OP_WRITE)
		r5_bitmap_account(conf, sh);

	for (i = 0; i < conf->raid_disks; i++) {
		struct r5dev *dev = &sh->dev[i];
		unsigned long keep = dev->flags & BIT(R5D_UPTODATE);

		/* sync compares what is on the members, not the cache */
		if (sh->op == R5_OP_SYNC || (reread & BIT(i)))
			keep = 0;
		dev->flags = keep;
		if (sh->op == R5_OP_WRITE && !list_empty(&dev->writing) &&
		    r5_covered(&dev->writing))
			__set_bit(R5D_OVERWRITE, &dev->flags);
	}
	return R5B_OP;
}

/* Member @i cannot be read for this operation. */
static bool r5_missing(struct r5conf *conf, struct r5stripe *sh, int i)
{
	bool readable;

	if (test_bit(R5D_RERR, &sh->dev[i].flags))
		return true;
	rcu_read_lock();
	readable = r5_slot_source(conf, i, sh->sector, R5_STRIPE_SECTORS);
	rcu_read_unlock();
	return !readable;
}

/* A recovery's replacements that still want this row. */
static unsigned long r5_fill_set(struct r5conf *conf, struct r5stripe *sh)
{
	unsigned long fill = 0;
	int i;

	if (sh->syncing->mode != R5M_RECOVER)
		return 0;
	rcu_read_lock();
	for (i = 0; i < conf->raid_disks; i++)
		if (r5_repl_wants(conf, i, sh->sector))
			fill |= BIT(i);
	rcu_read_unlock();
	return fill;
}

/*
 * Members whose current content the operation needs, before deciding
 * whether a missing one forces reconstruction.  Sets sh->rmw.
 */
static unsigned long r5_needed(struct r5conf *conf, struct r5stripe *sh,
			       unsigned long missing)
{
	unsigned long rcw = 0, rmw = 0, need = 0;
	int i, pd = sh->row.pd, rcw_reads = 0, rmw_reads = 0;
	bool rmw_ok;

	switch (sh->op) {
	case R5_OP_READ:
		for (i = 0; i < conf->raid_disks; i++)
			if (!list_empty(&sh->dev[i].reading))
				need |= BIT(i);
		return need;
	case R5_OP_SYNC:
		sh->fill = r5_fill_set(conf, sh);
		/*
		 * A row nothing is missing from is copied to the replacements
		 * from the members they replace: no other reads, no parity.
		 */
		sh->fill_only = sh->fill && !missing;
		if (sh->fill_only)
			return sh->fill;
		return BIT(conf->raid_disks) - 1;
	}

	/* a write: reconstruct-write or read-modify-write */
	for (i = 0; i < conf->raid_disks; i++) {
		struct r5dev *dev = &sh->dev[i];

		if (dev->role >= 0 && !test_bit(R5D_OVERWRITE, &dev->flags)) {
			rcw |= BIT(i);
			rcw_reads += !test_bit(R5D_UPTODATE, &dev->flags);
		}
		if (!list_empty(&dev->writing) || i == pd) {
			rmw |= BIT(i);
			rmw_reads += !test_bit(R5D_UPTODATE, &dev->flags);
		}
	}
	/* parity of a row resync has not reached may be garbage */
	rmw_ok = !(rmw & missing) &&
		 READ_ONCE(conf->mddev->resync_offset) >=
		 sh->sector + R5_STRIPE_SECTORS;
	/*
	 * md/rmw_level may change between two plans of one operation: the
	 * next plan then reads what the other method needs, and either
	 * method is right with what it finds uptodate.
	 */
	sh->rmw = r5g_use_rmw(&conf->geo, READ_ONCE(conf->rmw_level), rmw_ok,
			      rmw_reads, rcw_reads);
	return sh->rmw ? rmw : rcw;
}

static unsigned long r5_missing_set(struct r5conf *conf, struct r5stripe *sh)
{
	unsigned long missing = 0;
	int i;

	for (i = 0; i < conf->raid_disks; i++)
		if (r5_missing(conf, sh, i))
			missing |= BIT(i);
	return missing;
}

/*
 * Members to read now; 0 when everything needed is uptodate or can be
 * reconstructed; -EIO when too many are missing.  Owner.
 */
static long r5_plan(struct r5conf *conf, struct r5stripe *sh,
		    unsigned long *toread)
{
	unsigned long missing = r5_missing_set(conf, sh), need, lost;
	unsigned long uptodate = 0;
	int i;

	for (i = 0; i < conf->raid_disks; i++)
		if (test_bit(R5D_UPTODATE, &sh->dev[i].flags))
			uptodate |= BIT(i);
	need = r5_needed(conf, sh, missing);
	/* a needed page nobody can read: rebuild it from all the others */
	if (need & missing & ~uptodate)
		need = BIT(conf->raid_disks) - 1;
	lost = need & missing & ~uptodate;
	if (hweight_long(lost) > conf->geo.max_degraded)
		return -EIO;
	*toread = need & ~missing & ~uptodate;
	return 0;
}

/*
 * Pin the members in @mask for reading the row, each only if it still
 * holds it: r5_plan() looked in an earlier RCU section, and a member may
 * have been failed and removed, or a spare put in its slot, since.  On
 * false nothing is pinned: plan again.  Owner.
 */
static bool r5_pin_reads(struct r5conf *conf, struct r5stripe *sh,
			 unsigned long mask)
{
	struct md_rdev *rdev;
	int i, j;

	for_each_set_bit(i, &mask, conf->raid_disks) {
		rcu_read_lock();
		rdev = r5_slot_source(conf, i, sh->sector, R5_STRIPE_SECTORS);
		if (rdev)
			atomic_inc(&rdev->nr_pending);
		rcu_read_unlock();
		if (!rdev)
			goto unpin;
		sh->dev[i].rdev = rdev;
	}
	return true;
unpin:
	for_each_set_bit(j, &mask, i) {
		md_rdev_unpin(sh->dev[j].rdev);
		sh->dev[j].rdev = NULL;
	}
	return false;
}

/* Read the members in @mask; READ_WAIT.  False: plan again.  Owner. */
static bool r5_issue_reads(struct r5conf *conf, struct r5stripe *sh,
			   unsigned long mask)
{
	int i, n = hweight_long(mask);

	if (!r5_pin_reads(conf, sh, mask))
		return false;
	atomic_set(&sh->io_pending, n);
	sh->state = R5_READ_WAIT;
	if (sh->op == R5_OP_WRITE) {
		struct r5worker *w = r5_worker(conf, sh);

		sh->op_reads += n;
		WRITE_ONCE(w->write_reads, w->write_reads + n);
	}
	for_each_set_bit(i, &mask, conf->raid_disks) {
		set_bit(R5D_READ, &sh->dev[i].flags);
		r5_dev_bio(sh, i, sh->dev[i].rdev, REQ_OP_READ);
		r5_submit(conf, sh, sh->dev[i].bio);
	}
	return true;
}

/* READ_WAIT -> plan again: successful reads make pages uptodate.  Owner. */
static void r5_reads_done(struct r5conf *conf, struct r5stripe *sh)
{
	int i;

	for (i = 0; i < conf->raid_disks; i++) {
		struct r5dev *dev = &sh->dev[i];

		if (!test_bit(R5D_READ, &dev->flags))
			continue;
		if (!test_bit(R5D_RERR, &dev->flags))
			set_bit(R5D_UPTODATE, &dev->flags);
		else
			pr_warn_ratelimited("md/raid:%s: read error at sector %llu on %pg, reconstructing\n",
					    mdname(conf->mddev),
					    (unsigned long long)sh->sector,
					    dev->rdev->bdev);
	}
	r5_io_done(conf, sh, R5D_READ);
	for (i = 0; i < conf->raid_disks; i++)
		clear_bit(R5D_READ, &sh->dev[i].flags);
}

/* Rebuild every needed page that is not uptodate.  Owner. */
static void r5_rebuild_missing(struct r5conf *conf, struct r5stripe *sh)
{
	int i, a = -1, b = -1;

	for (i = 0; i < conf->raid_disks; i++) {
		if (test_bit(R5D_UPTODATE, &sh->dev[i].flags))
			continue;
		if (a < 0)
			a = i;
		else
			b = i;
	}
	if (a < 0)
		return;
	r5_reconstruct(conf, sh, a, b);
	set_bit(R5D_UPTODATE, &sh->dev[a].flags);
	if (b >= 0)
		set_bit(R5D_UPTODATE, &sh->dev[b].flags);
}

/* Every page of the row is uptodate. */
static bool r5_all_uptodate(struct r5conf *conf, struct r5stripe *sh)
{
	int i;

	for (i = 0; i < conf->raid_disks; i++)
		if (!test_bit(R5D_UPTODATE, &sh->dev[i].flags))
			return false;
	return true;
}

/* Rewrite members that failed a read with the rebuilt data. */
static void r5_want_rewrites(struct r5conf *conf, struct r5stripe *sh)
{
	int i;

	/* read-only and read-auto arrays are not written, not even to fix */
	if (READ_ONCE(conf->mddev->ro))
		return;
	for (i = 0; i < conf->raid_disks; i++)
		if (test_bit(R5D_RERR, &sh->dev[i].flags) &&
		    test_bit(R5D_UPTODATE, &sh->dev[i].flags))
			set_bit(R5D_WRITE, &sh->dev[i].flags);
}

static void r5_compute_write(struct r5conf *conf, struct r5stripe *sh)
{
	struct r5dev *p = &sh->dev[sh->row.pd];
	void **ptrs = r5_ptrs(conf, sh);
	struct r5piece *pc;
	int i, n = 0;

	if (sh->rmw) {
		/* take the old data out of P ... */
		for (i = 0; i < conf->raid_disks; i++)
			if (!list_empty(&sh->dev[i].writing))
				ptrs[n++] = page_address(sh->dev[i].page);
		r5_xor(page_address(p->page), ptrs, n);
	} else {
		/* a page of the row that cannot be read: rebuild it first */
		for (i = 0; i < conf->raid_disks; i++)
			if (sh->dev[i].role >= 0 &&
			    !test_bit(R5D_UPTODATE, &sh->dev[i].flags) &&
			    !test_bit(R5D_OVERWRITE, &sh->dev[i].flags))
				break;
		if (i < conf->raid_disks)
			r5_rebuild_missing(conf, sh);
	}
	for (i = 0; i < conf->raid_disks; i++) {
		struct r5dev *dev = &sh->dev[i];

		if (list_empty(&dev->writing))
			continue;
		list_for_each_entry(pc, &dev->writing, node) {
			if (r5_piece_discard(pc))
				memset(page_address(dev->page) + pc->off, 0,
				       pc->len);
			else
				r5_copy(pc, dev->page, true);
		}
		set_bit(R5D_UPTODATE, &dev->flags);
		set_bit(R5D_WRITE, &dev->flags);
	}
	if (sh->rmw)	/* ... and put the new data in */
		r5_xor(page_address(p->page), ptrs, n);
	else
		r5_compute_parity(conf, sh);
	set_bit(R5D_UPTODATE, &p->flags);
	set_bit(R5D_WRITE, &p->flags);
	if (sh->row.qd >= 0) {
		set_bit(R5D_UPTODATE, &sh->dev[sh->row.qd].flags);
		set_bit(R5D_WRITE, &sh->dev[sh->row.qd].flags);
	}
}

/* Check, repair or resync a complete row: compare parity. */
static void r5_compute_sync_parity(struct r5conf *conf, struct r5stripe *sh)
{
	struct r5sync *rs = sh->syncing;
	void *s0 = page_address(r5_worker(conf, sh)->scratch[0]);
	void *s1 = page_address(r5_worker(conf, sh)->scratch[1]);
	struct r5dev *p = &sh->dev[sh->row.pd], *q = NULL;
	bool bad;

	if (conf->geo.level == 6) {
		q = &sh->dev[sh->row.qd];
		r5_gen_pq(conf, sh, s0, s1);
		bad = memcmp(s0, page_address(p->page), PAGE_SIZE) ||
		      memcmp(s1, page_address(q->page), PAGE_SIZE);
	} else {
		r5_xor_others(conf, sh, s0, sh->row.pd);
		bad = memcmp(s0, page_address(p->page), PAGE_SIZE);
	}
	if (!bad)
		return;
	if (rs->mode == R5M_CHECK || rs->mode == R5M_REPAIR)
		atomic64_add(R5_STRIPE_SECTORS,
			     &conf->mddev->resync_mismatches);
	if (rs->mode == R5M_CHECK)
		return;
	memcpy(page_address(p->page), s0, PAGE_SIZE);
	set_bit(R5D_WRITE, &p->flags);
	if (q) {
		memcpy(page_address(q->page), s1, PAGE_SIZE);
		set_bit(R5D_WRITE, &q->flags);
	}
}

static void r5_compute_sync(struct r5conf *conf, struct r5stripe *sh)
{
	unsigned long missing = 0;
	int i;

	/* every page is uptodate now, or (fill_only) those of sh->fill */
	for_each_set_bit(i, &sh->fill, conf->raid_disks)
		set_bit(R5D_RFILL, &sh->dev[i].flags);
	if (sh->fill_only)
		return;
	for (i = 0; i < conf->raid_disks; i++)
		if (!test_bit(R5D_UPTODATE, &sh->dev[i].flags))
			missing |= BIT(i);
	if (!missing) {
		r5_compute_sync_parity(conf, sh);
		return;
	}
	/* rebuild what is missing; write it where a member can take it */
	r5_rebuild_missing(conf, sh);
	for_each_set_bit(i, &missing, conf->raid_disks)
		set_bit(R5D_WRITE, &sh->dev[i].flags);
	/*
	 * Check, repair, resync: compare the redundancy that is left too
	 * (RAID6 short one member: Q, or P when Q is the one missing).  A
	 * rebuilt page always matches the parity it was rebuilt from.
	 */
	if (sh->syncing->mode != R5M_RECOVER)
		r5_compute_sync_parity(conf, sh);
}

static void r5_compute_read(struct r5conf *conf, struct r5stripe *sh)
{
	struct r5piece *pc;
	int i;

	if (!r5_all_uptodate(conf, sh)) {
		for (i = 0; i < conf->raid_disks; i++)
			if (!list_empty(&sh->dev[i].reading) &&
			    !test_bit(R5D_UPTODATE, &sh->dev[i].flags))
				break;
		if (i < conf->raid_disks)
			r5_rebuild_missing(conf, sh);
	}
	for (i = 0; i < conf->raid_disks; i++)
		list_for_each_entry(pc, &sh->dev[i].reading, node)
			r5_copy(pc, sh->dev[i].page, false);
}

/* Plan done, nothing left to read: compute the operation's pages. */
static void r5_compute(struct r5conf *conf, struct r5stripe *sh)
{
	switch (sh->op) {
	case R5_OP_READ:
		r5_compute_read(conf, sh);
		break;
	case R5_OP_WRITE:
		r5_compute_write(conf, sh);
		break;
	case R5_OP_SYNC:
		r5_compute_sync(conf, sh);
		break;
	}
	r5_want_rewrites(conf, sh);
}

/* Issue the writes compute asked for; false if there are none.  Owner. */
/*
 * Is every data page of the write zeroes from discard pieces alone?
 * Then the whole row, parity included (the parity of zeroes is zero),
 * may be discarded rather than written.
 */
static bool r5_row_discarded(struct r5conf *conf, struct r5stripe *sh)
{
	struct r5piece *pc;
	int i;

	if (sh->op != R5_OP_WRITE)
		return false;
	for (i = 0; i < conf->raid_disks; i++) {
		struct r5dev *dev = &sh->dev[i];

		if (dev->role < 0)
			continue;
		if (list_empty(&dev->writing))
			return false;
		list_for_each_entry(pc, &dev->writing, node)
			if (!r5_piece_discard(pc))
				return false;
	}
	return true;
}

static bool r5_issue_writes(struct r5conf *conf, struct r5stripe *sh)
{
	bool discard = r5_row_discarded(conf, sh);
	blk_opf_t opf = REQ_OP_WRITE;
	struct md_rdev *rdev;
	unsigned long mask = 0, rmask = 0;
	struct r5piece *pc;
	int i;

	for (i = 0; i < conf->raid_disks; i++) {
		struct r5dev *dev = &sh->dev[i];

		list_for_each_entry(pc, &dev->writing, node)
			if (pc->req->master->bi_opf & REQ_FUA)
				opf |= REQ_FUA;
		/* what a member gets, its replacement gets too */
		if (test_bit(R5D_WRITE, &dev->flags) ||
		    test_bit(R5D_RFILL, &dev->flags)) {
			rdev = r5_pin_repl(conf, i);
			if (rdev &&
			    r5_no_bad(rdev, sh->sector, R5_STRIPE_SECTORS)) {
				dev->rrdev = rdev;
				set_bit(R5D_RWRITE, &dev->flags);
				rmask |= BIT(i);
			} else if (rdev) {
				md_rdev_unpin(rdev);
			}
		}
		if (!test_bit(R5D_WRITE, &dev->flags))
			continue;
		rdev = r5_pin_alive(conf, i);
		/*
		 * A recorded bad range stays missing: no use writing it.
		 * Unlike reads, a member being rebuilt is written anywhere.
		 */
		if (rdev && r5_no_bad(rdev, sh->sector, R5_STRIPE_SECTORS)) {
			dev->rdev = rdev;
			mask |= BIT(i);
			continue;
		}
		if (rdev)
			md_rdev_unpin(rdev);
		clear_bit(R5D_WRITE, &dev->flags);
	}
	if (!mask && !rmask)
		return false;
	/*
	 * A member that cannot discard (a spare added since) gets the zero
	 * page written instead, and so does every other: what each member
	 * then reads back is the same either way.
	 */
	for_each_set_bit(i, &mask, conf->raid_disks)
		if (!bdev_max_discard_sectors(sh->dev[i].rdev->bdev))
			discard = false;
	for_each_set_bit(i, &rmask, conf->raid_disks)
		if (!bdev_max_discard_sectors(sh->dev[i].rrdev->bdev))
			discard = false;
	if (discard)
		opf = REQ_OP_DISCARD;
	if (sh->op == R5_OP_WRITE) {
		struct r5worker *w = r5_worker(conf, sh);

		if (!sh->op_reads)
			r5_count(&w->writes_full);
		else if (sh->rmw)
			r5_count(&w->writes_rmw);
		else
			r5_count(&w->writes_rcw);
	}
	atomic_set(&sh->io_pending, hweight_long(mask) + hweight_long(rmask));
	sh->state = R5_WRITE_WAIT;
	for_each_set_bit(i, &mask, conf->raid_disks) {
		r5_dev_bio(sh, i, sh->dev[i].rdev, opf);
		r5_submit(conf, sh, sh->dev[i].bio);
	}
	for_each_set_bit(i, &rmask, conf->raid_disks) {
		struct r5dev *dev = &sh->dev[i];

		r5_bio_prep(sh, dev, dev->rbio, dev->rrdev, opf);
		r5_submit(conf, sh, dev->rbio);
	}
	return true;
}

/*
 * WRITE_WAIT -> end: a member that failed a write is failed.  The write
 * reached redundancy only if the row, without that member, still has
 * every page or can rebuild it: otherwise the operation fails, and the
 * row reads back as an error (too many missing), never as parity
 * rebuilt from a member that did not take the new data.  Owner;
 * md_error() does not sleep.
 */
static bool r5_writes_done(struct r5conf *conf, struct r5stripe *sh)
{
	bool ok = true, failed = false;
	int i;

	for (i = 0; i < conf->raid_disks; i++) {
		struct r5dev *dev = &sh->dev[i];

		if (!test_bit(R5D_WRITE, &dev->flags) ||
		    !test_bit(R5D_WERR, &dev->flags))
			continue;
		failed = true;
		md_error(conf->mddev, dev->rdev);
		if (!test_bit(RD_FAULTY, &dev->rdev->flags))
			ok = false;
	}
	r5_io_done(conf, sh, R5D_WRITE);
	/* a replacement that failed a write leaves; a member is short then */
	for (i = 0; i < conf->raid_disks; i++) {
		struct r5dev *dev = &sh->dev[i];

		if (!test_bit(R5D_RWRITE, &dev->flags))
			continue;
		if (test_bit(R5D_RWERR, &dev->flags)) {
			failed = true;
			md_error(conf->mddev, dev->rrdev);
		}
		bio_uninit(dev->rbio);
		md_rdev_unpin(dev->rrdev);
		dev->rrdev = NULL;
		clear_bit(R5D_RWRITE, &dev->flags);
		clear_bit(R5D_RWERR, &dev->flags);
	}
	if (failed && hweight_long(r5_missing_set(conf, sh)) >
		      conf->geo.max_degraded)
		ok = false;
	return ok;
}

/*
 * WRITE_WAIT -> READBACK_WAIT: a page rebuilt after its member failed to
 * read it, and rewritten there, is read back once (the retry).  False if
 * there is nothing to read back.  Owner.
 */
static bool r5_issue_readback(struct r5conf *conf, struct r5stripe *sh)
{
	unsigned long mask = 0;
	struct md_rdev *rdev;
	int i;

	for (i = 0; i < conf->raid_disks; i++) {
		struct r5dev *dev = &sh->dev[i];

		if (!test_bit(R5D_RERR, &dev->flags) ||
		    !test_bit(R5D_WRITE, &dev->flags) ||
		    test_bit(R5D_WERR, &dev->flags))
			continue;
		rdev = r5_pin_alive(conf, i);
		if (rdev) {
			dev->rdev = rdev;
			mask |= BIT(i);
		}
	}
	if (!mask)
		return false;
	atomic_set(&sh->io_pending, hweight_long(mask));
	sh->state = R5_READBACK_WAIT;
	for_each_set_bit(i, &mask, conf->raid_disks) {
		struct r5dev *dev = &sh->dev[i];

		/* R5D_RERR now reports the read-back */
		clear_bit(R5D_RERR, &dev->flags);
		set_bit(R5D_READBACK, &dev->flags);
		r5_dev_bio(sh, i, dev->rdev, REQ_OP_READ);
		r5_submit(conf, sh, dev->bio);
	}
	return true;
}

/*
 * READBACK_WAIT -> end: a page that reads back is corrected (counted in
 * the member's "errors" and in the superblock's corrected reads); one
 * that fails again fails its member.  The data the operation served came
 * from the reconstruction either way.  Owner; md_error() does not sleep.
 */
static void r5_readback_done(struct r5conf *conf, struct r5stripe *sh)
{
	int i;

	for (i = 0; i < conf->raid_disks; i++) {
		struct r5dev *dev = &sh->dev[i];

		if (!test_bit(R5D_READBACK, &dev->flags))
			continue;
		if (test_bit(R5D_RERR, &dev->flags)) {
			clear_bit(R5D_UPTODATE, &dev->flags);
			pr_warn_ratelimited("md/raid:%s: read error not corrected (sector %llu on %pg), failing it\n",
					    mdname(conf->mddev),
					    (unsigned long long)sh->sector,
					    dev->rdev->bdev);
			md_error(conf->mddev, dev->rdev);
			continue;
		}
		atomic_add(R5_STRIPE_SECTORS, &dev->rdev->errors);
		atomic_add(R5_STRIPE_SECTORS, &dev->rdev->read_errors);
		set_bit(RD_READ_ERRORS_SEEN, &dev->rdev->flags);
		pr_info_ratelimited("md/raid:%s: read error corrected (%lu sectors at %llu on %pg)\n",
				    mdname(conf->mddev), R5_STRIPE_SECTORS,
				    (unsigned long long)sh->sector,
				    dev->rdev->bdev);
	}
	r5_io_done(conf, sh, R5D_READBACK);
}

static void r5_sync_put(struct r5conf *conf, struct r5sync *rs, bool ok)
{
	if (!ok)
		WRITE_ONCE(rs->failed, true);
	/* full barrier: ->failed before the count (pairs with the last) */
	if (!atomic_dec_and_test(&rs->remaining))
		return;
	md_done_sync(conf->mddev, rs->sectors, !READ_ONCE(rs->failed));
	kfree(rs);
	r5_leave(conf);
}

/* Complete what the operation served, successfully or not.  Owner. */
static void r5_end_op(struct r5conf *conf, struct r5stripe *sh,
		      blk_status_t status)
{
	struct r5piece *pc, *tmp;
	int i;

	for (i = 0; i < conf->raid_disks; i++) {
		struct r5dev *dev = &sh->dev[i];

		list_for_each_entry_safe(pc, tmp, &dev->reading, node) {
			list_del(&pc->node);
			if (status)
				r5_req_fail(pc->req, status);
			r5_req_put(pc->req);
			mempool_free(pc, &conf->piece_pool);
		}
		list_for_each_entry_safe(pc, tmp, &dev->writing, node) {
			list_del(&pc->node);
			if (status)
				r5_req_fail(pc->req, status);
			r5_req_put(pc->req);
			mempool_free(pc, &conf->piece_pool);
		}
		/* a failed operation leaves nothing trustworthy cached */
		if (status)
			clear_bit(R5D_UPTODATE, &dev->flags);
	}
	if (sh->op == R5_OP_SYNC)
		r5_sync_put(conf, sh->syncing, !status);
	sh->syncing = NULL;
	sh->op = R5_OP_NONE;
	sh->state = R5_IDLE;
}

static void r5_fail_op(struct r5conf *conf, struct r5stripe *sh)
{
	pr_err_ratelimited("md/raid:%s: too many members missing at sector %llu, failing IO\n",
			   mdname(conf->mddev),
			   (unsigned long long)sh->sector);
	r5_end_op(conf, sh, BLK_STS_IOERR);
}

/*
 * Planning and computing, from IDLE (a new operation) or READ_WAIT.
 * Returns true while member IO is in flight.
 */
static bool r5_advance(struct r5conf *conf, struct r5stripe *sh)
{
	unsigned long toread;

	do {
		if (r5_plan(conf, sh, &toread)) {
			r5_fail_op(conf, sh);
			return false;
		}
		/* a member that left since the plan is missing now */
	} while (toread && !r5_issue_reads(conf, sh, toread));
	if (toread)
		return true;
	r5_compute(conf, sh);
	if (r5_issue_writes(conf, sh))
		return true;
	r5_end_op(conf, sh, BLK_STS_OK);
	return false;
}

/* IDLE with nothing to do: give up ownership, unless work came in. */
static bool r5_release(struct r5conf *conf, struct r5stripe *sh)
{
	bool more;

	spin_lock_irq(&sh->lock);
	more = sh->sync || r5_has_pieces(conf, sh, true) ||
	       r5_has_pieces(conf, sh, false);
	if (!more)
		clear_bit(R5S_HANDLING, &sh->flags);
	spin_unlock_irq(&sh->lock);
	if (!more)
		r5_put_stripe(conf, sh);
	return !more;
}

/*
 * IDLE -> BITMAP_WAIT: park the stripe, owned, until the bitmap round
 * that writes its bits ends.  The wake function of conf->bm_wake, run by
 * that round, queues worker 0, which hands it back to its own worker
 * (r5_unhold_all()).  That is this worker, busy until this returns, so
 * nothing else runs the stripe meanwhile.
 */
static void r5_bitmap_hold(struct r5conf *conf, struct r5stripe *sh)
{
	u64 need = sh->bm_need;

	sh->state = R5_BITMAP_WAIT;
	spin_lock_irq(&conf->lock);
	list_add_tail(&sh->lru, &conf->bm_held);
	spin_unlock_irq(&conf->lock);
	/* written meanwhile: no round will wake us for it */
	if (md_bitmap_notify(conf->mddev->bitmap, need, &conf->bm_wake))
		queue_work(conf->wq, &conf->workers[0].work);
}

/*
 * IDLE -> ROW_WAIT: park the stripe, owned, on conf->row_wait until a
 * piece or a sync request arrives (r5_work_added()), every write in
 * flight waits (r5_row_wait_check()), a submitter needs a free stripe,
 * or R5_ROW_WAIT_MS pass (row_wait_work).  Whoever clears R5S_ROW_WAIT
 * sends it on; it may already have, so add it only while the bit is set.
 */
static void r5_row_wait(struct r5conf *conf, struct r5stripe *sh)
{
	sh->state = R5_ROW_WAIT;
	sh->wait_since = jiffies;
	r5_count(&r5_worker(conf, sh)->row_waits);
	spin_lock_irq(&conf->lock);
	if (test_bit(R5S_ROW_WAIT, &sh->flags))
		list_add_tail(&sh->lru, &conf->row_wait);
	spin_unlock_irq(&conf->lock);
	queue_delayed_work(system_power_efficient_wq, &conf->row_wait_work,
			   msecs_to_jiffies(R5_ROW_WAIT_MS));
	/*
	 * Full barrier: conf->waiting_reqs (r5_begin()) before reading
	 * conf->writes; pairs with r5_writes_left()'s atomic_dec_return().
	 */
	smp_mb();
	r5_row_wait_check(conf, atomic_read(&conf->writes));
}

/* Every SB_WAIT stripe goes back to its worker. */
static void r5_sb_unhold(struct r5conf *conf)
{
	LIST_HEAD(ready);

	spin_lock_irq(&conf->lock);
	list_splice_init(&conf->sb_held, &ready);
	spin_unlock_irq(&conf->lock);
	r5_queue_list(conf, &ready);
}

/*
 * A write operation is done, but a member failed and the superblocks do
 * not say so yet (MD_SB_FAIL_PENDING): acknowledging it now could lose
 * it to a power cut that reassembles the stale member as in sync.  Park
 * the stripe, owned, on conf->sb_held; raid5_daemon() sends it on after
 * the superblock write.  (S1) The add, then a full barrier, then a
 * second look at the flag; the round clears the flag before the md
 * thread calls the daemon, which takes conf->lock: one of the two sees
 * the other and the stripe is not forgotten.
 */
static void r5_sb_hold(struct r5conf *conf, struct r5stripe *sh)
{
	sh->state = R5_SB_WAIT;
	spin_lock_irq(&conf->lock);
	list_add_tail(&sh->lru, &conf->sb_held);
	spin_unlock_irq(&conf->lock);
	md_wakeup_thread(conf->mddev);
	smp_mb();					/* (S1) */
	if (!md_fail_pending(conf->mddev))
		r5_sb_unhold(conf);
}

/* md thread, after its superblock work: release what that recorded. */
static void raid5_daemon(struct mddev *mddev)
{
	struct r5conf *conf = mddev->private;

	if (!conf || md_fail_pending(mddev))
		return;
	if (!list_empty_careful(&conf->sb_held))
		r5_sb_unhold(conf);
	if (conf->prev && !list_empty_careful(&conf->prev->sb_held))
		r5_sb_unhold(conf->prev);
}

/*
 * Worker 0: BITMAP_WAIT stripes whose bits are on disk go back to work.
 * The round that woke us took conf->bm_wake off flush_wait; stripes that
 * need a later round (they were held while the entry was still queued,
 * so r5_bitmap_hold() did not queue it again) would get no wake-up: put
 * the entry back for the oldest stamp still needed.  If that round has
 * already ended, look again.
 */
static void r5_unhold_all(struct r5conf *conf)
{
	struct md_bitmap *bm = conf->mddev->bitmap;
	struct r5stripe *sh, *tmp;
	LIST_HEAD(ready);
	u64 next;

	do {
		next = 0;
		spin_lock_irq(&conf->lock);
		list_for_each_entry_safe(sh, tmp, &conf->bm_held, lru) {
			if (md_bitmap_written(bm, sh->bm_need))
				list_move_tail(&sh->lru, &ready);
			else if (!next || sh->bm_need < next)
				next = sh->bm_need;
		}
		spin_unlock_irq(&conf->lock);
	} while (next && md_bitmap_notify(bm, next, &conf->bm_wake));
	r5_queue_list(conf, &ready);
}

/* Runs under the bitmap's flush_wait lock at the end of a round. */
static int r5_bitmap_wake(struct wait_queue_entry *wqe, unsigned int mode,
			  int flags, void *key)
{
	struct r5conf *conf = container_of(wqe, struct r5conf, bm_wake);

	list_del_init(&wqe->entry);
	queue_work(conf->wq, &conf->workers[0].work);
	return 0;
}

/*
 * The operation's member IO is done: end it, unless it is a write that
 * must wait for the superblocks (r5_sb_hold(); true then).  Full barrier
 * before the look at the flag: the last member completion's io_pending
 * count; see (F1) in md.h.
 */
static bool r5_op_done(struct r5conf *conf, struct r5stripe *sh)
{
	if (sh->op == R5_OP_WRITE && md_fail_pending(conf->mddev)) {
		r5_sb_hold(conf, sh);
		return true;
	}
	r5_end_op(conf, sh, sh->write_ok ? BLK_STS_OK : BLK_STS_IOERR);
	return false;
}

/* One step of an owned stripe (worker). */
static void r5_handle(struct r5conf *conf, struct r5stripe *sh)
{
	for (;;) {
		switch (sh->state) {
		case R5_IDLE:
			switch (r5_begin(conf, sh)) {
			case R5B_NONE:
				if (r5_release(conf, sh))
					return;
				continue;
			case R5B_HELD:
				r5_bitmap_hold(conf, sh);
				return;
			case R5B_ROW:
				r5_row_wait(conf, sh);
				return;
			}
			if (r5_advance(conf, sh))
				return;
			break;
		case R5_BITMAP_WAIT:
			/* r5_unhold_all() saw the bits written */
			sh->state = R5_IDLE;
			break;
		case R5_ROW_WAIT:
			/* sent on by whoever cleared R5S_ROW_WAIT */
			spin_lock_irq(&sh->lock);
			/* those pieces had their wait */
			r5_row_wait_count(conf, sh, false);
			spin_unlock_irq(&sh->lock);
			sh->state = R5_IDLE;
			break;
		case R5_READ_WAIT:
			r5_reads_done(conf, sh);
			if (r5_advance(conf, sh))
				return;
			break;
		case R5_WRITE_WAIT:
			sh->write_ok = r5_writes_done(conf, sh);
			if (r5_issue_readback(conf, sh) || r5_op_done(conf, sh))
				return;
			break;
		case R5_READBACK_WAIT:
			r5_readback_done(conf, sh);
			if (r5_op_done(conf, sh))
				return;
			break;
		case R5_SB_WAIT:
			/* raid5_daemon(): the failure is on disk */
			r5_end_op(conf, sh, sh->write_ok ? BLK_STS_OK :
				  BLK_STS_IOERR);
			break;
		}
	}
}

/* ---- direct reads ---------------------------------------------------- */

/*
 * Serve [asector, asector + sectors) of @req through the stripe cache.
 * With @nowait, false when a piece could not have its element or stripe
 * at once: the pieces before it are attached, the rest is not.
 */
static bool r5_attach_range(struct r5conf *conf, struct r5req *req,
			    sector_t asector, unsigned int sectors,
			    unsigned int boff, bool write, bool nowait)
{
	while (sectors) {
		struct r5piece *p;
		u64 ms;
		sector_t page_start;
		unsigned int in_page, n;
		int i;

		r5g_map(&conf->geo, asector, &i, &ms);
		page_start = round_down(ms, R5_STRIPE_SECTORS);
		in_page = ms - page_start;
		n = min_t(unsigned int, sectors, R5_STRIPE_SECTORS - in_page);

		/* the pool refills as stripes finish their pieces */
		p = mempool_alloc(&conf->piece_pool,
				  nowait ? GFP_NOWAIT : GFP_NOIO);
		if (!p)
			return false;
		p->req = req;
		p->off = in_page << SECTOR_SHIFT;
		p->len = n << SECTOR_SHIFT;
		p->boff = boff;
		p->tail = write && asector >= req->tail_from;
		p->waited = false;
		/* the submitter's bias keeps this from reaching zero here */
		atomic_inc(&req->remaining);
		if (!r5_attach(conf, page_start, i, p, write, nowait)) {
			atomic_dec(&req->remaining);
			mempool_free(p, &conf->piece_pool);
			return false;
		}

		asector += n;
		sectors -= n;
		boff += n << SECTOR_SHIFT;
	}
	return true;
}

static void r5_direct_endio(struct bio *bio)
{
	struct r5clone *rc = container_of(bio, struct r5clone, bio);
	struct r5conf *conf = rc->conf;
	unsigned long flags;

	md_rdev_unpin(rc->rdev);
	if (!bio->bi_status && !rc->req) {
		struct bio *master = rc->master;

		md_io_end(conf->mddev, master, rc->start);
		bio_put(bio);
		bio_endio(master);
		r5_leave(conf);
		return;
	}
	if (!bio->bi_status) {
		struct r5req *req = rc->req;

		bio_put(bio);
		r5_req_put(req);
		return;
	}
	/* worker 0 retries it through the stripe cache */
	spin_lock_irqsave(&conf->lock, flags);
	list_add_tail(&rc->retry, &conf->retry);
	spin_unlock_irqrestore(&conf->lock, flags);
	queue_work(conf->wq, &conf->workers[0].work);
}

/*
 * Worker 0 (the only consumer of conf->retry): move failed direct reads
 * onto the stripe cache.  A worker must not sleep for a stripe (workers
 * free them), so each piece is attached
 * only if its stripe can be had at once; otherwise the read waits on the
 * retry list for the next round.
 */
static void r5_retry_reads(struct r5conf *conf)
{
	struct r5clone *rc;

	for (;;) {
		struct r5stripe *sh;
		struct r5piece *p;
		unsigned int n;
		sector_t page_start;
		u64 ms;
		int i, how;

		spin_lock_irq(&conf->lock);
		rc = list_first_entry_or_null(&conf->retry, struct r5clone,
					      retry);
		spin_unlock_irq(&conf->lock);
		if (!rc)
			return;
		if (!rc->req) {
			/* a lone clone: its master gets a request now */
			rc->req = r5_req_alloc(conf, rc->master, GFP_NOIO);
			rc->req->start = rc->start;
		}
		r5g_map(&conf->geo, rc->asector, &i, &ms);
		page_start = round_down(ms, R5_STRIPE_SECTORS);
		n = min_t(unsigned int, rc->sectors,
			  R5_STRIPE_SECTORS - (ms - page_start));
		sh = r5_get_stripe(conf, page_start, true);
		if (!sh)
			return;		/* stripes come back as we go on */
		p = mempool_alloc(&conf->piece_pool, GFP_NOIO);
		p->req = rc->req;
		p->off = (ms - page_start) << SECTOR_SHIFT;
		p->len = n << SECTOR_SHIFT;
		p->boff = rc->boff;
		p->tail = false;
		p->waited = false;
		atomic_inc(&rc->req->remaining);
		spin_lock_irq(&sh->lock);
		list_add_tail(&p->node, &sh->dev[i].toread);
		/* the retry reads the member, not a cached copy */
		sh->reread |= BIT(i);
		how = r5_work_added(sh);
		spin_unlock_irq(&sh->lock);
		r5_work_added_done(conf, sh, how, false);
		r5_put_stripe(conf, sh);

		/* the rest of this clone's range, if any */
		rc->asector += n;
		rc->boff += n << SECTOR_SHIFT;
		rc->sectors -= n;
		if (rc->sectors)
			continue;
		spin_lock_irq(&conf->lock);
		list_del(&rc->retry);
		spin_unlock_irq(&conf->lock);
		{
			struct r5req *req = rc->req;

			bio_put(&rc->bio);
			r5_req_put(req);
		}
	}
}

/* pers->sync_raise: the workers running now take the sync's new weight */
static void raid5_sync_raise(struct mddev *mddev)
{
	struct r5conf *conf = mddev->private;
	enum md_sync_prio prio = READ_ONCE(mddev->sync_prio);
	int i;

	for (i = 0; i < R5_MAX_WORKERS; i++) {
		struct r5worker *w = &conf->workers[i];

		mutex_lock(&w->task_mutex);
		if (w->task)
			md_sync_nice(w->task, prio, w->task_nice);
		mutex_unlock(&w->task_mutex);
	}
}

static void raid5_work(struct work_struct *work)
{
	struct r5worker *w = container_of(work, struct r5worker, work);
	struct r5conf *conf = w->conf;
	bool first = w == conf->workers;
	long nice = task_nice(current);
	enum md_sync_prio prio;
	struct blk_plug plug;

	mutex_lock(&w->task_mutex);
	w->task = current;
	w->task_nice = nice;
	mutex_unlock(&w->task_mutex);
	blk_start_plug(&plug);
	if (first && !list_empty_careful(&conf->bm_held))
		r5_unhold_all(conf);
	for (;;) {
		struct r5stripe *sh;

		if (first && !list_empty_careful(&conf->retry)) {
			r5_submit_held(w);
			r5_retry_reads(conf);
		}
		prio = READ_ONCE(conf->mddev->sync_prio);
		spin_lock_irq(&w->lock);
		sh = r5_next_stripe(w, prio == MD_SYNC_PRIO_YIELD);
		spin_unlock_irq(&w->lock);
		if (!sh)
			break;
		/*
		 * The sync's stripes at the sync's weight (this keeps a raise
		 * by raid5_sync_raise() while still wanted), the
		 * foreground's at our own: a QD1 reader's degraded read is
		 * not the sync's work to yield.
		 */
		md_sync_nice(current, r5_stripe_is_sync(sh) ? prio :
			     MD_SYNC_PRIO_OWN, nice);
		r5_handle(conf, sh);
		cond_resched();
	}
	r5_submit_held(w);
	blk_finish_plug(&plug);
	mutex_lock(&w->task_mutex);
	w->task = NULL;
	mutex_unlock(&w->task_mutex);
	/* after clearing w->task: no raise can come after this */
	md_sync_nice(current, MD_SYNC_PRIO_OWN, nice);
}

/*
 * The member holding array sectors [@asector, + @sectors), inside one
 * chunk, pinned, if it holds trusted data there; *@ms: its sector.
 */
static struct md_rdev *r5_direct_member(struct r5conf *conf,
					sector_t asector,
					unsigned int sectors, u64 *ms)
{
	struct md_rdev *rdev;
	int i;

	r5g_map(&conf->geo, asector, &i, ms);
	rcu_read_lock();
	rdev = r5_slot_source(conf, i, *ms, sectors);
	if (rdev)
		atomic_inc(&rdev->nr_pending);
	rcu_read_unlock();
	return rdev;
}

/*
 * A read inside one chunk, from a member that holds it: one clone, no
 * r5req (the common random read; it saves an allocation and a put).
 * False: the caller takes the request path.
 */
static bool r5_direct_read_lone(struct r5conf *conf, struct bio *bio)
{
	u32 chunk = conf->geo.chunk_sectors;
	sector_t s = bio->bi_iter.bi_sector;
	unsigned int n = bio_sectors(bio);
	struct md_rdev *rdev;
	struct r5clone *rc;
	struct bio *clone;
	u64 ms;

	if (!n || (s & (chunk - 1)) + n > chunk)
		return false;
	rdev = r5_direct_member(conf, s, n, &ms);
	if (!rdev)
		return false;
	/* a bioset with a reserve: clones in flight refill it */
	clone = bio_alloc_clone(rdev->bdev, bio, GFP_NOIO, &conf->bs);
	/* as every member bio: see r5_direct_read() */
	clone->bi_opf &= ~REQ_NOWAIT;
	rc = container_of(clone, struct r5clone, bio);
	rc->conf = conf;
	rc->req = NULL;
	rc->master = bio;
	rc->start = md_io_start(conf->mddev, bio);
	rc->rdev = rdev;
	rc->asector = s;
	rc->boff = 0;
	rc->sectors = n;
	INIT_LIST_HEAD(&rc->retry);
	clone->bi_iter.bi_sector = ms + r5_offset(conf, rdev);
	clone->bi_end_io = r5_direct_endio;
	submit_bio_noacct(clone);
	return true;
}

/* Read one chunk's worth of @req directly if its member holds it. */
static bool r5_direct_read(struct r5conf *conf, struct r5req *req,
			   sector_t asector, unsigned int sectors,
			   unsigned int boff)
{
	struct md_rdev *rdev;
	struct r5clone *rc;
	struct bio *clone;
	u64 ms;

	rdev = r5_direct_member(conf, asector, sectors, &ms);
	if (!rdev)
		return false;

	clone = bio_alloc_clone(rdev->bdev, req->master, GFP_NOIO, &conf->bs);
	/*
	 * Never REQ_NOWAIT on a member: a failed direct read is retried
	 * through the stripe cache, which rebuilds and rewrites the range,
	 * so a member's BLK_STS_AGAIN would read as a bad sector.  (The
	 * stripes' own member bios never copy the array bio's flags but
	 * FUA.)  The member may make the submitter wait for a request slot.
	 */
	clone->bi_opf &= ~REQ_NOWAIT;
	rc = container_of(clone, struct r5clone, bio);
	rc->conf = conf;
	rc->req = req;
	rc->master = req->master;
	rc->rdev = rdev;
	rc->asector = asector;
	rc->boff = boff;
	rc->sectors = sectors;
	INIT_LIST_HEAD(&rc->retry);
	clone->bi_iter = req->iter;
	bio_advance(clone, boff);
	clone->bi_iter.bi_size = sectors << SECTOR_SHIFT;
	clone->bi_iter.bi_sector = ms + r5_offset(conf, rdev);
	clone->bi_end_io = r5_direct_endio;
	atomic_inc(&req->remaining);
	submit_bio_noacct(clone);
	return true;
}

/* ---- make_request ----------------------------------------------------- */

/* Flush every member and replacement; errors are not the caller's. */
static void r5_flush_members(struct r5conf *conf)
{
	struct md_rdev *rdev;
	int i;

	/* a replacement holds acknowledged writes once it takes the slot */
	for (i = 0; i < 2 * conf->raid_disks; i++) {
		rdev = r5_pin_target(conf, i);
		if (!rdev)
			continue;
		md_rdev_flush(rdev);
		md_rdev_unpin(rdev);
	}
}

/*
 * The bitmap counts member sectors (as in-tree): a write to array
 * sectors [s, e) changes data and parity in the rows it touches, so it
 * holds the bits of those whole rows, member sectors [*lo, *lo + *len).
 */
static void r5_bitmap_rows(struct r5conf *conf, struct bio *bio,
			   sector_t *lo, sector_t *len)
{
	u32 chunk = conf->geo.chunk_sectors;
	u32 row = chunk * conf->geo.data_disks;
	sector_t first = bio->bi_iter.bi_sector;
	sector_t last = bio_end_sector(bio) - 1;

	sector_div(first, row);
	sector_div(last, row);
	*lo = first * chunk;
	*len = (last + 1 - first) * chunk;
}

/*
 * Attach each chunk-sized piece of @req to its stripe, or read direct.
 * A REQ_NOWAIT request stops at the first piece that would wait for a
 * stripe and ends with BLK_STS_AGAIN once the pieces before it are done:
 * they cannot be taken back, as the block layer's own split of a nowait
 * bio cannot; the caller retries the whole range.
 */
static void r5_req_submit(struct r5conf *conf, struct r5req *req)
{
	bool nowait = req->master->bi_opf & REQ_NOWAIT;
	u32 chunk = conf->geo.chunk_sectors;
	sector_t s = req->iter.bi_sector;
	sector_t end = s + (req->iter.bi_size >> SECTOR_SHIFT);
	unsigned int boff = 0;
	struct blk_plug plug;

	blk_start_plug(&plug);
	while (s < end) {
		unsigned int n = min_t(sector_t, end - s,
				       chunk - (s & (chunk - 1)));

		if ((req->write || !r5_direct_read(conf, req, s, n, boff)) &&
		    !r5_attach_range(conf, req, s, n, boff, req->write,
				     nowait)) {
			r5_req_fail(req, BLK_STS_AGAIN);
			break;
		}
		s += n;
		boff += n << SECTOR_SHIFT;
	}
	blk_finish_plug(&plug);
	r5_req_put(req);	/* the bias */
}

/*
 * Does @bio continue a write stream and end inside a row?  Then the
 * stripes of its last row may wait for the next request (R5_ROW_WAIT):
 * returns the array sector that row starts at, else MD_MAX_SECTOR.  Only
 * writes of a chunk or more: a smaller one's next request fills other
 * stripes than its own tail (a 4 KiB stream reaches the next member of
 * a row a chunk later).
 */
static sector_t r5_stream_tail(struct r5conf *conf, struct bio *bio)
{
	sector_t start = bio->bi_iter.bi_sector, end = bio_end_sector(bio);
	u32 chunk = conf->geo.chunk_sectors;
	sector_t rowstart = end;
	bool follows = false;
	u32 in_row;
	int i;

	for (i = 0; i < R5_STREAMS; i++)
		follows |= READ_ONCE(conf->stream_end[i]) == start;
	i = (unsigned int)atomic_inc_return(&conf->stream_next) % R5_STREAMS;
	WRITE_ONCE(conf->stream_end[i], end);
	if (!follows || end - start < chunk)
		return MD_MAX_SECTOR;
	in_row = sector_div(rowstart, chunk * conf->geo.data_disks);
	return in_row ? end - in_row : MD_MAX_SECTOR;
}

/*
 * A discard serves whole rows only, and drops what it covers of a row
 * partly, as in-tree md does: a part of a row would leave a row whose
 * parity is not the parity of its data.  Every data page of a row gets
 * its piece before the stripe may run, so the row is discarded in one
 * operation (r5_row_discarded()).
 */
static void r5_attach_discard(struct r5conf *conf, struct r5req *req,
			      sector_t sector)
{
	struct r5stripe *sh = r5_get_stripe(conf, sector, false);
	struct r5piece *p, *tmp;
	LIST_HEAD(pieces);
	int i, how;

	for (i = 0; i < conf->raid_disks; i++) {
		if (sh->dev[i].role < 0)
			continue;
		p = mempool_alloc(&conf->piece_pool, GFP_NOIO);
		p->req = req;
		p->off = 0;
		p->len = PAGE_SIZE;
		p->boff = 0;
		p->tail = false;
		p->waited = false;
		atomic_inc(&req->remaining);
		list_add_tail(&p->node, &pieces);
	}
	spin_lock_irq(&sh->lock);
	i = 0;
	list_for_each_entry_safe(p, tmp, &pieces, node) {
		while (sh->dev[i].role < 0)
			i++;
		list_move_tail(&p->node, &sh->dev[i++].towrite);
	}
	how = r5_work_added(sh);
	spin_unlock_irq(&sh->lock);
	r5_work_added_done(conf, sh, how, true);
	r5_put_stripe(conf, sh);
}

static void r5_discard_submit(struct r5conf *conf, struct r5req *req)
{
	u32 chunk = conf->geo.chunk_sectors;
	u32 row = chunk * conf->geo.data_disks;
	sector_t first = req->iter.bi_sector;
	sector_t last = first + (req->iter.bi_size >> SECTOR_SHIFT);
	struct blk_plug plug;
	sector_t s;

	/* whole rows [first, last), as member sectors */
	first = DIV_ROUND_UP_SECTOR_T(first, row) * chunk;
	sector_div(last, row);
	last *= chunk;
	blk_start_plug(&plug);
	for (s = first; s < last; s += R5_STRIPE_SECTORS)
		r5_attach_discard(conf, req, s);
	blk_finish_plug(&plug);
	r5_req_put(req);	/* the bias */
}

static void r5_reshape_route(struct r5conf *conf, struct bio *bio);

static void r5_make_request_drain(struct r5conf *conf, struct bio *bio,
				  struct r5reshape *rs, atomic_t *drain)
{
	struct mddev *mddev = conf->mddev;
	struct r5req *req;
	bool write, nowait;

	/* discard reaches us only where r5_set_limits() offered it */
	if (bio_op(bio) != REQ_OP_READ && bio_op(bio) != REQ_OP_WRITE &&
	    bio_op(bio) != REQ_OP_DISCARD) {
		bio->bi_status = BLK_STS_NOTSUPP;
		bio_endio(bio);
		return;
	}
	if (bio->bi_opf & REQ_PREFLUSH) {
		spin_lock_irq(&conf->lock);
		bio_list_add(&conf->flushes, bio);
		spin_unlock_irq(&conf->lock);
		queue_work(conf->flush_wq, &conf->flush_work);
		return;
	}
	write = op_is_write(bio_op(bio));
	nowait = bio->bi_opf & REQ_NOWAIT;
	/* a discard takes a stripe per row: it always may wait */
	if (nowait && bio_op(bio) == REQ_OP_DISCARD)
		goto would_block;
	if (write && !md_write_start(mddev, bio))
		goto would_block;
	if (!r5_enter(conf, nowait))
		goto write_end;
	if (!write && r5_direct_read_lone(conf, bio))
		return;
	req = r5_req_alloc(conf, bio, nowait ? GFP_NOWAIT : GFP_NOIO);
	if (!req) {
		r5_leave(conf);
		goto write_end;
	}
	req->start = md_io_start(mddev, bio);
	if (drain) {
		atomic_inc(drain);
		req->drain = drain;
		req->drain_rs = rs;
	}
	if (bio_op(bio) == REQ_OP_WRITE)
		req->tail_from = r5_stream_tail(conf, bio);
	/*
	 * The bits of every row it touches are on disk before any write:
	 * if they are not yet, its stripes wait in BITMAP_WAIT (r5_begin()),
	 * and the submitter goes on.
	 */
	if (write && mddev->bitmap) {
		r5_bitmap_rows(conf, bio, &req->bm_lo, &req->bm_len);
		req->bm_need = md_bitmap_startwrite_nowait(mddev->bitmap,
							   req->bm_lo,
							   req->bm_len);
		if (req->bm_need)
			req->bm_since = local_clock();
	}
	if (bio_op(bio) == REQ_OP_DISCARD)
		r5_discard_submit(conf, req);
	else
		r5_req_submit(conf, req);
	return;

write_end:
	/* only REQ_NOWAIT gets here: nothing but md_write_start() taken */
	if (write)
		md_write_end(mddev);
would_block:
	bio_wouldblock_error(bio);
}

static void r5_make_request(struct r5conf *conf, struct bio *bio)
{
	r5_make_request_drain(conf, bio, NULL, NULL);
}

static void raid5_make_request(struct mddev *mddev, struct bio *bio)
{
	struct r5conf *conf = mddev->private;

	if (unlikely(conf->prev))
		r5_reshape_route(conf, bio);
	else
		r5_make_request(conf, bio);
}

/*
 * A PREFLUSH bio arrives in submit_bio context, where a bio sent to a
 * member only queues on current->bio_list until make_request returns:
 * waiting there for the members' flushes never ends (loop members hang;
 * brd has no write cache, so the block layer ends its flushes at once).
 * So the flush waits here, on its own workqueue (raid5_work may be what
 * a data part waits for, a free stripe), and the data, if any, goes on
 * after it.  One round of member flushes serves every bio queued before
 * the round began: their writes had completed when they were queued.
 */
static void r5_flush_work(struct work_struct *work)
{
	struct r5conf *conf = container_of(work, struct r5conf, flush_work);
	struct mddev *mddev = conf->mddev;
	struct bio_list batch;
	struct bio *bio;

	for (;;) {
		spin_lock_irq(&conf->lock);
		batch = conf->flushes;
		bio_list_init(&conf->flushes);
		spin_unlock_irq(&conf->lock);
		if (bio_list_empty(&batch))
			return;
		r5_enter(conf, false);
		r5_flush_members(conf);
		r5_leave(conf);
		while ((bio = bio_list_pop(&batch))) {
			struct md_io_stamp start;

			if (bio_sectors(bio)) {
				/*
				 * The data goes on from this worker, which
				 * may wait: a REQ_NOWAIT promise was kept by
				 * not waiting in the submitter.
				 */
				bio->bi_opf &= ~(REQ_PREFLUSH | REQ_NOWAIT);
				raid5_make_request(mddev, bio);
				continue;
			}
			start = md_io_start(mddev, bio);
			md_io_end(mddev, bio, start);
			bio_endio(bio);
		}
	}
}

/* ---- sync ------------------------------------------------------------- */

/*
 * Some member or replacement is being rebuilt at @start; else *@next:
 * where the nearest one above is.
 */
static bool r5_needs_recovery(struct r5conf *conf, sector_t start,
			      sector_t *next)
{
	bool any = false;
	int i;

	*next = MD_MAX_SECTOR;
	rcu_read_lock();
	for (i = 0; i < 2 * conf->raid_disks; i++) {
		struct md_rdev *rdev = r5_target_rcu(conf, i);
		sector_t ro;

		if (!md_rdev_alive(rdev) || test_bit(RD_IN_SYNC, &rdev->flags))
			continue;
		ro = READ_ONCE(rdev->recovery_offset);
		if (ro <= start)
			any = true;
		else
			*next = min(*next, ro);
	}
	rcu_read_unlock();
	return any;
}

/*
 * May this pass skip what the bitmap says is clean: a resync, or a
 * recovery whose every target is a former member that missed only
 * dirty chunks.  Never check/repair.
 */
static bool r5_bitmap_sync(struct mddev *mddev, struct r5conf *conf, int mode)
{
	bool ok = true;
	int i;

	if (mode == R5M_RESYNC)
		return true;
	if (mode != R5M_RECOVER)
		return false;
	rcu_read_lock();
	for (i = 0; i < 2 * conf->raid_disks; i++) {
		struct md_rdev *rdev = r5_target_rcu(conf, i);

		if (md_rdev_alive(rdev) && !test_bit(RD_IN_SYNC, &rdev->flags) &&
		    !test_bit(RD_BITMAP_READD, &rdev->flags))
			ok = false;
	}
	rcu_read_unlock();
	return ok;
}

static sector_t r5_reshape_request(struct mddev *mddev, sector_t sector,
				   sector_t max_sector);

static sector_t raid5_sync_request(struct mddev *mddev, sector_t sector_nr,
				   sector_t max_sector, bool *skipped)
{
	struct r5conf *conf = mddev->private;
	sector_t start, limit, len, next, done;
	struct r5sync *rs;
	int mode = r5_sync_mode(mddev), i, n;

	*skipped = false;
	if (sector_nr >= max_sector) {
		*skipped = true;
		return 0;
	}
	if (test_bit(MDR_RESHAPE, &mddev->recovery))
		return r5_reshape_request(mddev, sector_nr, max_sector);
	start = round_down(sector_nr, R5_STRIPE_SECTORS);
	limit = round_down(max_sector, R5_STRIPE_SECTORS);
	if (start >= limit) {
		/* a tail smaller than a page holds no data */
		*skipped = true;
		return max_sector - sector_nr;
	}
	if (mddev->bitmap && r5_bitmap_sync(mddev, conf, mode) &&
	    md_bitmap_chunk_clean(mddev->bitmap, sector_nr, &len)) {
		*skipped = true;
		return min(len, max_sector - sector_nr);
	}
	if (mode == R5M_RECOVER) {
		if (!r5_needs_recovery(conf, start, &next)) {
			*skipped = true;
			if (next > sector_nr && next < max_sector)
				return next - sector_nr;
			return max_sector - sector_nr;
		}
	} else if (READ_ONCE(mddev->degraded) >= conf->geo.max_degraded) {
		/* no redundancy left to compare: nothing a resync can do */
		*skipped = true;
		return max_sector - sector_nr;
	}
	len = min_t(sector_t, R5_SYNC_STRIPES * R5_STRIPE_SECTORS,
		    limit - start);
	n = len / R5_STRIPE_SECTORS;

	rs = kzalloc(sizeof(*rs), GFP_NOIO);
	if (!rs)
		return 0;
	rs->conf = conf;
	rs->mode = mode;
	rs->sectors = start + len - sector_nr;
	done = rs->sectors;
	/*
	 * One count per stripe and one for this loop: the batch leaves the
	 * gate only after the loop has put every stripe, so once no request
	 * or batch is in flight no stripe is held (r5_set_workers()).
	 */
	atomic_set(&rs->remaining, n + 1);
	r5_enter(conf, false);
	for (i = 0; i < n; i++) {
		struct r5stripe *sh;
		int how;

		sh = r5_get_stripe(conf, start + i * R5_STRIPE_SECTORS, false);
		spin_lock_irq(&sh->lock);
		WARN_ON_ONCE(sh->sync);
		sh->sync = rs;
		how = r5_work_added(sh);
		spin_unlock_irq(&sh->lock);
		r5_work_added_done(conf, sh, how, false);
		r5_put_stripe(conf, sh);
	}
	/* may be the last: md_done_sync() before we return is allowed */
	r5_sync_put(conf, rs, true);
	return done;
}

/* ---- workers ---------------------------------------------------------- */

static void r5_free_workers(struct r5conf *conf)
{
	int i;

	for (i = 0; i < R5_MAX_WORKERS; i++) {
		struct r5worker *w = &conf->workers[i];

		if (w->scratch[1])
			__free_page(w->scratch[1]);
		if (w->scratch[0])
			__free_page(w->scratch[0]);
		kfree(w->ptrs);
	}
	kfree(conf->workers);
}

/*
 * A worker's parity scratch pages and pointer array, allocated when it
 * first gets rows (kept until the array stops).  0 or -ENOMEM.
 */
static int r5_worker_prepare(struct r5conf *conf, struct r5worker *w)
{
	int width = r5g_syndrome_width(&conf->geo);
	struct page *s0, *s1;
	void **ptrs;

	if (w->ptrs)
		return 0;
	ptrs = kcalloc(width, sizeof(*ptrs), GFP_KERNEL);
	s0 = alloc_page(GFP_KERNEL);
	s1 = alloc_page(GFP_KERNEL);
	if (!ptrs || !s0 || !s1) {
		if (s1)
			__free_page(s1);
		if (s0)
			__free_page(s0);
		kfree(ptrs);
		return -ENOMEM;
	}
	w->scratch[0] = s0;
	w->scratch[1] = s1;
	w->ptrs = ptrs;
	return 0;
}

/* Workers for md/group_thread_cnt @n: 0 is one per online CPU. */
static int r5_workers_for(unsigned int n)
{
	if (!n)
		n = num_online_cpus();
	return clamp_t(int, n, 1, R5_MAX_WORKERS);
}

/*
 * All R5_MAX_WORKERS initialised, idle (so worker 0 and the statistics
 * never move); the first r5_workers_for(0) get rows.
 */
static int r5_alloc_workers(struct r5conf *conf)
{
	int i, err = 0;

	conf->workers = kcalloc(R5_MAX_WORKERS, sizeof(*conf->workers),
				GFP_KERNEL);
	if (!conf->workers)
		return -ENOMEM;
	conf->nr_workers = r5_workers_for(0);
	for (i = 0; i < R5_MAX_WORKERS; i++) {
		struct r5worker *w = &conf->workers[i];

		w->conf = conf;
		INIT_WORK(&w->work, raid5_work);
		spin_lock_init(&w->lock);
		mutex_init(&w->task_mutex);
		INIT_LIST_HEAD(&w->handle);
		INIT_LIST_HEAD(&w->handle_sync);
		if (!err && i < conf->nr_workers)
			err = r5_worker_prepare(conf, w);
	}
	if (err)
		r5_free_workers(conf);
	return err;
}

/*
 * Spread the rows over the first @nr workers (prepared).  With the gate
 * shut no request or sync batch is in flight, and after the flush no
 * worker runs: no stripe is owned or referenced, so each cached stripe
 * can take its row's new worker.  Stray wake-ups meanwhile (a bitmap
 * round's, row_wait_work) queue worker 0, which always exists, or find
 * their lists empty.  Under workers_mutex.
 */
static void r5_set_workers(struct r5conf *conf, int nr)
{
	struct r5stripe *sh;
	u32 b;

	lockdep_assert_held(&conf->workers_mutex);
	r5_gate_shut(conf);
	flush_workqueue(conf->wq);
	WARN_ON_ONCE(r5_active(conf));
	WRITE_ONCE(conf->nr_workers, nr);
	for (b = 0; b < R5_HASH_SIZE; b++) {
		struct r5shard *sd = r5_shard_of(conf, b);

		spin_lock_irq(&sd->lock);
		hlist_for_each_entry(sh, &conf->hash[b], hash)
			sh->worker = r5_worker_index(conf, sh->sector);
		spin_unlock_irq(&sd->lock);
	}
	r5_gate_open(conf);
}

/* ---- sysfs ------------------------------------------------------------ */

/* The running conf of @mddev; valid until the store/show returns. */
static struct r5conf *r5_sysfs_conf(struct mddev *mddev)
{
	struct r5conf *conf;

	spin_lock_irq(&mddev->lock);
	conf = mddev->pers ? mddev->private : NULL;
	spin_unlock_irq(&mddev->lock);
	return conf;
}

static ssize_t stripe_cache_size_show(struct mddev *mddev, char *page)
{
	struct r5conf *conf = r5_sysfs_conf(mddev);

	if (!conf)
		return -ENODEV;
	return sysfs_emit(page, "%d\n", READ_ONCE(conf->min));
}

static ssize_t stripe_cache_size_store(struct mddev *mddev, const char *buf,
				       size_t len)
{
	struct r5conf *conf = r5_sysfs_conf(mddev);
	unsigned int v;

	if (kstrtouint(buf, 10, &v) || v < R5_CACHE_MIN || v > R5_CACHE_MAX)
		return -EINVAL;
	if (!conf)
		return -ENODEV;
	spin_lock_irq(&conf->lock);
	WRITE_ONCE(conf->min, v);
	r5_set_limit(conf);
	spin_unlock_irq(&conf->lock);
	/* as in-tree: the cache is this size now (busy stripes as put) */
	r5_trim(conf, ULONG_MAX, v);
	return len;
}

static ssize_t stripe_cache_budget_kb_show(struct mddev *mddev, char *page)
{
	struct r5conf *conf = r5_sysfs_conf(mddev);

	if (!conf)
		return -ENODEV;
	return sysfs_emit(page, "%lu\n", READ_ONCE(conf->budget_kb));
}

static ssize_t stripe_cache_budget_kb_store(struct mddev *mddev,
					    const char *buf, size_t len)
{
	struct r5conf *conf = r5_sysfs_conf(mddev);
	unsigned long v;

	if (kstrtoul(buf, 10, &v) || v > totalram_pages() * (PAGE_SIZE >> 10))
		return -EINVAL;
	if (!conf)
		return -ENODEV;
	spin_lock_irq(&conf->lock);
	WRITE_ONCE(conf->budget_kb, v);
	r5_set_limit(conf);
	spin_unlock_irq(&conf->lock);
	r5_trim(conf, ULONG_MAX, READ_ONCE(conf->limit));
	return len;
}

static ssize_t stripe_cache_current_show(struct mddev *mddev, char *page)
{
	struct r5conf *conf = r5_sysfs_conf(mddev);

	if (!conf)
		return -ENODEV;
	return sysfs_emit(page, "%d\n", atomic_read(&conf->total));
}

static ssize_t stripe_cache_memory_kb_show(struct mddev *mddev, char *page)
{
	struct r5conf *conf = r5_sysfs_conf(mddev);

	if (!conf)
		return -ENODEV;
	return sysfs_emit(page, "%llu\n",
			  (u64)atomic_read(&conf->total) * conf->stripe_bytes >> 10);
}

static ssize_t stripe_cache_active_show(struct mddev *mddev, char *page)
{
	struct r5conf *conf;
	int active = 0;

	spin_lock_irq(&mddev->lock);
	conf = mddev->pers ? mddev->private : NULL;
	if (conf)
		active = r5_active(conf);
	spin_unlock_irq(&mddev->lock);
	if (!conf)
		return -ENODEV;
	return sysfs_emit(page, "%d\n", active);
}

/*
 * In-tree md's other raid456 knobs.  Each does here what it does there,
 * or is refused (-EINVAL, nothing changed) with a kernel-log line saying
 * why: Documentation/ABI/testing/sysfs-block-md.
 */
static ssize_t group_thread_cnt_show(struct mddev *mddev, char *page)
{
	struct r5conf *conf = r5_sysfs_conf(mddev);

	if (!conf)
		return -ENODEV;
	return sysfs_emit(page, "%d\n", READ_ONCE(conf->group_threads));
}

static ssize_t group_thread_cnt_store(struct mddev *mddev, const char *buf,
				      size_t len)
{
	struct r5conf *conf = r5_sysfs_conf(mddev);
	unsigned int v;
	int nr, i, err = 0;

	if (kstrtouint(buf, 10, &v) || v > R5_GROUP_THREADS_MAX)
		return -EINVAL;
	if (!conf)
		return -ENODEV;
	if (v > R5_MAX_WORKERS) {
		pr_info("md/raid:%s: group_thread_cnt %u: %d stripe workers, the most this stack runs\n",
			mdname(mddev), v, R5_MAX_WORKERS);
		v = R5_MAX_WORKERS;
	}
	nr = r5_workers_for(v);
	mutex_lock(&conf->workers_mutex);
	for (i = 0; i < nr && !err; i++)
		err = r5_worker_prepare(conf, &conf->workers[i]);
	if (!err) {
		if (nr != conf->nr_workers)
			r5_set_workers(conf, nr);
		WRITE_ONCE(conf->group_threads, v);
	}
	mutex_unlock(&conf->workers_mutex);
	if (err)
		return err;
	return len;
}

static ssize_t rmw_level_show(struct mddev *mddev, char *page)
{
	struct r5conf *conf = r5_sysfs_conf(mddev);

	if (!conf)
		return -ENODEV;
	return sysfs_emit(page, "%d\n", READ_ONCE(conf->rmw_level));
}

static ssize_t rmw_level_store(struct mddev *mddev, const char *buf,
			       size_t len)
{
	struct r5conf *conf = r5_sysfs_conf(mddev);
	unsigned long v;

	if (kstrtoul(buf, 10, &v) || v > R5G_RMW_PREFER)
		return -EINVAL;
	if (!conf)
		return -ENODEV;
	if (!r5g_rmw_level_ok(&conf->geo, v)) {
		pr_info_once("md/raid:%s: rmw_level: RAID6 always reconstruct-writes here (no read-modify-write of Q), only 0 is accepted\n",
			     mdname(mddev));
		return -EINVAL;
	}
	WRITE_ONCE(conf->rmw_level, v);
	return len;
}

/* This stack always copies write data into its own stripe pages. */
static ssize_t skip_copy_show(struct mddev *mddev, char *page)
{
	if (!r5_sysfs_conf(mddev))
		return -ENODEV;
	return sysfs_emit(page, "0\n");
}

static ssize_t skip_copy_store(struct mddev *mddev, const char *buf,
			       size_t len)
{
	unsigned long v;

	if (kstrtoul(buf, 10, &v))
		return -EINVAL;
	if (!r5_sysfs_conf(mddev))
		return -ENODEV;
	if (v) {
		pr_info_once("md/raid:%s: skip_copy: this stack always copies write data into its stripe pages, only 0 is accepted\n",
			     mdname(mddev));
		return -EINVAL;
	}
	return len;
}

/*
 * No stripe waits for reads behind full-row writes: a worker handles
 * its stripes in arrival order (only a stream's tail waits, for its own
 * row, by R5_ROW_WAIT_MS), so no bypass is counted; 1 is in-tree's
 * default, its fair setting, and the only one accepted.
 */
static ssize_t preread_bypass_threshold_show(struct mddev *mddev,
					     char *page)
{
	if (!r5_sysfs_conf(mddev))
		return -ENODEV;
	return sysfs_emit(page, "1\n");
}

static ssize_t preread_bypass_threshold_store(struct mddev *mddev,
					      const char *buf, size_t len)
{
	unsigned long v;

	if (kstrtoul(buf, 10, &v))
		return -EINVAL;
	if (!r5_sysfs_conf(mddev))
		return -ENODEV;
	if (v != 1) {
		pr_info_once("md/raid:%s: preread_bypass_threshold: stripes here are handled in arrival order, no bypass is counted, only 1 is accepted\n",
			     mdname(mddev));
		return -EINVAL;
	}
	return len;
}

/*
 * In-tree: the NVMe stream of partial parity log writes.  No PPL here
 * (its superblock feature is refused at assembly), so it reads 0 and
 * every write is refused with -EINVAL, as in-tree answers on an array
 * without PPL.
 */
static ssize_t ppl_write_hint_show(struct mddev *mddev, char *page)
{
	if (!r5_sysfs_conf(mddev))
		return -ENODEV;
	return sysfs_emit(page, "0\n");
}

static ssize_t ppl_write_hint_store(struct mddev *mddev, const char *buf,
				    size_t len)
{
	if (!r5_sysfs_conf(mddev))
		return -ENODEV;
	pr_info_once("md/raid:%s: ppl_write_hint: this stack has no partial parity log, writes are refused\n",
		     mdname(mddev));
	return -EINVAL;
}

/*
 * A stripe here covers one page of every member (R5_STRIPE_SECTORS).
 * Read-only, as in-tree makes it where the page is 4 KiB: a write fails
 * to open (EACCES).
 */
static ssize_t stripe_size_show(struct mddev *mddev, char *page)
{
	if (!r5_sysfs_conf(mddev))
		return -ENODEV;
	return sysfs_emit(page, "%lu\n", PAGE_SIZE);
}

static struct md_sysfs_entry r5_stripe_size = {
	.attr = { .name = "stripe_size", .mode = 0444 },
	.show = stripe_size_show,
	.unlocked = true,
};

static struct md_sysfs_entry r5_stripe_cache_size = {
	.attr = { .name = "stripe_cache_size", .mode = 0644 },
	.show = stripe_cache_size_show,
	.store = stripe_cache_size_store,
	.unlocked = true,
};

static struct md_sysfs_entry r5_stripe_cache_active = {
	.attr = { .name = "stripe_cache_active", .mode = 0444 },
	.show = stripe_cache_active_show,
	.unlocked = true,
};

static struct md_sysfs_entry r5_stripe_cache_budget_kb = {
	.attr = { .name = "stripe_cache_budget_kb", .mode = 0644 },
	.show = stripe_cache_budget_kb_show,
	.store = stripe_cache_budget_kb_store,
	.unlocked = true,
};

static struct md_sysfs_entry r5_stripe_cache_current = {
	.attr = { .name = "stripe_cache_current", .mode = 0444 },
	.show = stripe_cache_current_show,
	.unlocked = true,
};

static struct md_sysfs_entry r5_stripe_cache_memory_kb = {
	.attr = { .name = "stripe_cache_memory_kb", .mode = 0444 },
	.show = stripe_cache_memory_kb_show,
	.unlocked = true,
};

#define R5_KNOB(knob) \
static struct md_sysfs_entry r5_##knob = {			\
	.attr = { .name = #knob, .mode = 0644 },		\
	.show = knob##_show,					\
	.store = knob##_store,					\
	.unlocked = true,					\
}

R5_KNOB(group_thread_cnt);
R5_KNOB(rmw_level);
R5_KNOB(skip_copy);
R5_KNOB(preread_bypass_threshold);
R5_KNOB(ppl_write_hint);

static struct attribute *r5_attrs[] = {
	&r5_stripe_cache_size.attr,
	&r5_stripe_cache_active.attr,
	&r5_stripe_cache_budget_kb.attr,
	&r5_stripe_cache_current.attr,
	&r5_stripe_cache_memory_kb.attr,
	&r5_group_thread_cnt.attr,
	&r5_rmw_level.attr,
	&r5_skip_copy.attr,
	&r5_preread_bypass_threshold.attr,
	&r5_stripe_size.attr,
	&r5_ppl_write_hint.attr,
	NULL,
};

static const struct attribute_group r5_attr_group = {
	.attrs = r5_attrs,
};

/* Sum of the u64 at @off of every worker. */
static u64 r5_worker_sum(struct r5conf *conf, size_t off)
{
	u64 sum = 0;
	int i;

	/* idle workers too: they keep what they counted before a change */
	for (i = 0; i < R5_MAX_WORKERS; i++)
		sum += READ_ONCE(*(u64 *)((char *)&conf->workers[i] + off));
	return sum;
}

/*
 * md/stats/ counters of raid456, merged into the core's stats group: the
 * cache's summed over its shards, the writes' over the workers.
 */
#define R5_STAT(stat, sum, type, field)					\
static ssize_t r5_stat_##stat##_show(struct mddev *mddev, char *page)	\
{									\
	struct r5conf *conf = r5_sysfs_conf(mddev);			\
									\
	if (!conf)							\
		return -ENODEV;						\
	return sysfs_emit(page, "%llu\n",				\
			  sum(conf, offsetof(type, field)));		\
}									\
static struct md_sysfs_entry r5_stat_##stat = {				\
	.attr = { .name = "stripe_" #stat, .mode = 0444 },		\
	.show = r5_stat_##stat##_show,					\
	.unlocked = true,						\
}

R5_STAT(cache_hits, r5_shard_sum, struct r5shard, hits);
R5_STAT(cache_misses, r5_shard_sum, struct r5shard, misses);
R5_STAT(cache_waits, r5_shard_sum, struct r5shard, waits);
R5_STAT(cache_grown, r5_shard_sum, struct r5shard, grown);
R5_STAT(cache_shrunk, r5_shard_sum, struct r5shard, shrunk);
R5_STAT(writes_full, r5_worker_sum, struct r5worker, writes_full);
R5_STAT(writes_rmw, r5_worker_sum, struct r5worker, writes_rmw);
R5_STAT(writes_rcw, r5_worker_sum, struct r5worker, writes_rcw);
R5_STAT(write_reads, r5_worker_sum, struct r5worker, write_reads);
R5_STAT(row_waits, r5_worker_sum, struct r5worker, row_waits);

static ssize_t r5_stat_row_wait_unfilled_show(struct mddev *mddev,
					      char *page)
{
	struct r5conf *conf = r5_sysfs_conf(mddev);

	if (!conf)
		return -ENODEV;
	return sysfs_emit(page, "%lld\n",
			  atomic64_read(&conf->row_wait_unfilled));
}

static struct md_sysfs_entry r5_stat_row_wait_unfilled = {
	.attr = { .name = "stripe_row_wait_unfilled", .mode = 0444 },
	.show = r5_stat_row_wait_unfilled_show,
	.unlocked = true,
};

static struct attribute *r5_stats_attrs[] = {
	&r5_stat_cache_hits.attr,
	&r5_stat_cache_misses.attr,
	&r5_stat_cache_waits.attr,
	&r5_stat_cache_grown.attr,
	&r5_stat_cache_shrunk.attr,
	&r5_stat_writes_full.attr,
	&r5_stat_writes_rmw.attr,
	&r5_stat_writes_rcw.attr,
	&r5_stat_write_reads.attr,
	&r5_stat_row_waits.attr,
	&r5_stat_row_wait_unfilled.attr,
	NULL,
};

static const struct attribute_group r5_stats_group = {
	.name = "stats",
	.attrs = r5_stats_attrs,
};

/* ---- configuration ---------------------------------------------------- */

static struct md_rdev *r5_rdev_locked(struct r5conf *conf, int i)
{
	return rcu_dereference_protected(conf->disks[i].rdev,
			lockdep_is_held(&conf->mddev->reconfig_mutex));
}

static struct md_rdev *r5_repl_locked(struct r5conf *conf, int i)
{
	return rcu_dereference_protected(conf->disks[i].repl,
			lockdep_is_held(&conf->mddev->reconfig_mutex));
}

static void raid5_status(struct seq_file *seq, struct mddev *mddev)
{
	struct r5conf *conf = mddev->private;
	int i;

	seq_printf(seq, " level %d, %uk chunk, algorithm %d [%d/%d] [",
		   mddev->level, conf->geo.chunk_sectors / 2, mddev->layout,
		   conf->raid_disks,
		   conf->raid_disks - READ_ONCE(mddev->degraded));
	rcu_read_lock();
	for (i = 0; i < conf->raid_disks; i++)
		seq_putc(seq, r5_slot_working(conf, i) ? 'U' : '_');
	rcu_read_unlock();
	seq_putc(seq, ']');
}

static void raid5_error_handler(struct mddev *mddev, struct md_rdev *rdev)
{
	struct r5conf *conf = mddev->private;
	unsigned long flags;
	int left;

	spin_lock_irqsave(&mddev->lock, flags);
	if (test_bit(RD_FAULTY, &rdev->flags)) {
		spin_unlock_irqrestore(&mddev->lock, flags);
		return;
	}
	/* a replacement still being built leaves; its member holds the data */
	if (test_bit(RD_REPLACEMENT, &rdev->flags) &&
	    !test_bit(RD_IN_SYNC, &rdev->flags)) {
		md_mark_faulty(mddev, rdev);
		spin_unlock_irqrestore(&mddev->lock, flags);
		pr_warn("md/raid:%s: replacement %pg failed, the member it was built for stays\n",
			mdname(mddev), rdev->bdev);
		return;
	}
	/*
	 * Always failed, as in-tree since 5.19: a member kept "in sync"
	 * after it lost a write would have the other members' parity
	 * rebuild data nobody wrote.  Past the level's redundancy the
	 * array is broken: rows needing the lost members read as errors,
	 * writes are refused.
	 */
	md_mark_faulty(mddev, rdev);
	clear_bit(RD_IN_SYNC, &rdev->flags);
	r5_update_degraded(mddev);
	left = conf->raid_disks - mddev->degraded;
	if (mddev->degraded > conf->geo.max_degraded)
		set_bit(MDF_BROKEN, &mddev->flags);
	spin_unlock_irqrestore(&mddev->lock, flags);
	pr_crit("md/raid:%s: Disk failure on %pg, disabling device.\n",
		mdname(mddev), rdev->bdev);
	if (md_broken(mddev))
		pr_crit("md/raid:%s: Cannot continue operation (%d/%d failed).\n",
			mdname(mddev), mddev->degraded, conf->raid_disks);
	else
		pr_crit("md/raid:%s: Operation continuing on %d devices.\n",
			mdname(mddev), left);
}

/*
 * The array's limits for raid5, in one update: those of @rdev first when
 * a spare joins (its block sizes and alignment), then our own again.
 */
/*
 * Discard in whole rows.  The granularity is a row of data rounded up to
 * a power of two, as in-tree md's: the block layer aligns the discards
 * it issues to the granularity with power-of-two arithmetic.  A row that
 * a split cuts is dropped by both halves, like any part of a row.  A bio
 * carries at most 256 MiB, a whole number of granules.  Every member must
 * discard; a member added later that cannot gets zeroes written instead
 * (r5_issue_writes()).
 */
static void r5_set_discard(struct mddev *mddev, struct r5conf *conf,
			   struct md_limits *ml)
{
	u64 row = (u64)conf->geo.chunk_sectors * conf->geo.data_disks <<
		  SECTOR_SHIFT;
	bool ok = READ_ONCE(devices_handle_discard_safely);
	struct md_rdev *rdev;
	u32 granule;

	rdev_for_each(rdev, mddev)
		if (!test_bit(RD_FAULTY, &rdev->flags) &&
		    !bdev_max_discard_sectors(rdev->bdev))
			ok = false;
	if (!ok || row > SZ_256M) {
		md_limits_max_discard_sectors(ml, 0);
		return;
	}
	granule = roundup_pow_of_two(row);
	md_limits_discard_granularity(ml, granule);
	md_limits_max_discard_sectors(ml, SZ_256M >> SECTOR_SHIFT);
}

static int r5_set_limits(struct mddev *mddev, struct r5conf *conf,
			 struct md_rdev *rdev)
{
	struct md_limits ml;

	if (!md_limits_begin(mddev, &ml))
		return 0;
	if (rdev)
		md_limits_stack_rdev(&ml, rdev);
	/*
	 * Every request is cut into chunks and rows here, so the members'
	 * request limits (brd: 127 KiB, 128 segments) do not apply to the
	 * array; stacking them would split a 1 MiB read into nine bios
	 * before it reaches us.
	 */
	md_limits_max_hw_sectors(&ml, UINT_MAX);
	md_limits_max_segments(&ml, USHRT_MAX);
	md_limits_io_min(&ml, conf->geo.chunk_sectors << SECTOR_SHIFT);
	md_limits_io_opt(&ml, (conf->geo.chunk_sectors << SECTOR_SHIFT) *
			 conf->geo.data_disks);
	/*
	 * No secure erase or write-zeroes: parity would have to follow
	 * them, and make_request refuses them.  Discard only where the
	 * admin vouches for the members (devices_handle_discard_safely).
	 */
	r5_set_discard(mddev, conf, &ml);
	md_limits_max_secure_erase_sectors(&ml, 0);
	md_limits_max_write_zeroes_sectors(&ml, 0);
	return md_limits_end(mddev, &ml);
}

/* Slot @i for md_slot_pick(): a working member may want a replacement. */
static int r5_slot_state(struct mddev *mddev, int i)
{
	struct r5conf *conf = mddev->private;

	return md_slot_state(r5_rdev_locked(conf, i), r5_repl_locked(conf, i));
}

/*
 * Put spare @rdev into a slot: a free one, else as the replacement of a
 * member that wants one (md_slot_pick()).
 */
static int raid5_hot_add_disk(struct mddev *mddev, struct md_rdev *rdev)
{
	struct r5conf *conf = mddev->private;
	int slot, err;
	bool repl;

	if (conf->prev)
		return -EBUSY;	/* spares wait for the reshape's end */

	slot = md_slot_pick(mddev, rdev, conf->raid_disks, r5_slot_state,
			    &repl);
	if (slot < 0)
		return slot;
	/*
	 * Limits before the slot: IO finds the spare there only once the
	 * array's limits allow for it; limits the array cannot take keep
	 * the spare out of the slots.
	 */
	err = r5_set_limits(mddev, conf, rdev);
	if (err)
		return err;
	/* the bitmap tells what it missed in its own slot only */
	if (slot != rdev->saved_raid_disk || repl)
		clear_bit(RD_BITMAP_READD, &rdev->flags);
	if (repl) {
		set_bit(RD_REPLACEMENT, &rdev->flags);
		md_slot_fill(&conf->disks[slot].repl, rdev, slot);
	} else {
		md_slot_fill(&conf->disks[slot].rdev, rdev, slot);
	}
	return 0;
}

/*
 * Take @rdev out of its slot.  A member that leaves while its slot has
 * a replacement hands the slot to it: whole, or still rebuilding from
 * its recovery_offset as any member would.
 */
static int raid5_hot_remove_disk(struct mddev *mddev, struct md_rdev *rdev)
{
	struct r5conf *conf = mddev->private;
	int slot = rdev->raid_disk;
	unsigned long flags;
	int err;

	/* both geometries' confs point at it until the reshape ends */
	if (conf->prev)
		return -EBUSY;

	lockdep_assert_held(&mddev->reconfig_mutex);
	if (slot < 0 || slot >= conf->raid_disks ||
	    (r5_rdev_locked(conf, slot) != rdev &&
	     r5_repl_locked(conf, slot) != rdev))
		return 0;
	err = md_slot_release(mddev, &conf->disks[slot].rdev,
			      &conf->disks[slot].repl, rdev);
	if (err)
		return err;
	spin_lock_irqsave(&mddev->lock, flags);
	r5_update_degraded(mddev);
	spin_unlock_irqrestore(&mddev->lock, flags);
	return 0;
}

static int raid5_spare_active(struct mddev *mddev)
{
	struct r5conf *conf = mddev->private;
	unsigned long flags;
	int i, count = 0;

	spin_lock_irqsave(&mddev->lock, flags);
	rcu_read_lock();
	for (i = 0; i < conf->raid_disks; i++)
		count += md_slot_activate_pair(mddev, r5_rdev_rcu(conf, i),
					       r5_repl_rcu(conf, i));
	rcu_read_unlock();
	r5_update_degraded(mddev);
	spin_unlock_irqrestore(&mddev->lock, flags);
	return count;
}

static void r5_quiesce(struct mddev *mddev, struct r5conf *conf,
		       int quiesce);

static void raid5_quiesce(struct mddev *mddev, int quiesce)
{
	struct r5conf *conf = mddev->private;

	if (conf->prev)
		r5_quiesce(mddev, conf->prev, quiesce);
	r5_quiesce(mddev, conf, quiesce);
}

static void r5_quiesce(struct mddev *mddev, struct r5conf *conf, int quiesce)
{
	if (!quiesce) {
		r5_gate_open(conf);
		return;
	}
	/*
	 * Flushes queued by make_request calls that have returned are
	 * requests too: they go on (and are counted) before the gate shuts.
	 */
	flush_work(&conf->flush_work);
	r5_gate_shut(conf);
	/* nothing is held: the bitmap may go, or the array stop */
	md_bitmap_notify_cancel(mddev->bitmap, &conf->bm_wake);
}

static sector_t r5_geo_size(const struct r5geom *geo, sector_t sectors)
{
	return round_down(sectors, geo->chunk_sectors) * geo->data_disks;
}

static sector_t raid5_size(struct mddev *mddev, sector_t sectors,
			   int raid_disks)
{
	struct r5conf *conf = mddev->private;

	if (!sectors)
		sectors = mddev->dev_sectors;
	/* a reshape grows the array only once it is done */
	if (conf->prev)
		return min(r5_geo_size(&conf->geo, sectors),
			   r5_geo_size(&conf->prev->geo, sectors));
	return r5_geo_size(&conf->geo, sectors);
}

/* --grow --size: whole chunks of every member, as in-tree; 0 refuses. */
static sector_t raid5_round_dev_sectors(struct mddev *mddev, sector_t sectors)
{
	struct r5conf *conf = mddev->private;

	return round_down(sectors, conf->geo.chunk_sectors);
}

static void r5_free_stripes(struct r5conf *conf)
{
	struct r5stripe *sh, *tmp;
	int i;

	/* quiesced and stopped: every stripe is unused */
	for (i = 0; i < R5_SHARDS; i++)
		list_for_each_entry_safe(sh, tmp, &conf->shards[i].inactive,
					 lru) {
			list_del(&sh->lru);
			r5_stripe_free(conf, sh);
		}
}

static void raid5_free_conf(struct r5conf *conf)
{
	destroy_workqueue(conf->flush_wq);
	destroy_workqueue(conf->wq);
	r5_free_stripes(conf);
	bioset_exit(&conf->bs);
	mempool_exit(&conf->piece_pool);
	mempool_exit(&conf->req_pool);
	r5_free_workers(conf);
	kfree(conf->hash);
	kfree(conf->disks);
	kfree(conf);
}

/* Attach the members to their slots; -EINVAL on a conflict. */
static int r5_attach_members(struct mddev *mddev, struct r5conf *conf)
{
	struct md_rdev __rcu **p;
	struct md_rdev *rdev;
	int slot;

	rdev_for_each(rdev, mddev) {
		slot = rdev->raid_disk;

		if (slot < 0 || slot >= conf->raid_disks ||
		    test_bit(RD_FAULTY, &rdev->flags))
			continue;
		p = &conf->disks[slot].rdev;
		if (test_bit(RD_REPLACEMENT, &rdev->flags))
			p = &conf->disks[slot].repl;
		if (rcu_access_pointer(*p)) {
			pr_err("md/raid:%s: two members claim slot %d\n",
			       mdname(mddev), slot);
			return -EINVAL;
		}
		RCU_INIT_POINTER(*p, rdev);
	}
	/* a replacement whose member is gone is that slot's member now */
	for (slot = 0; slot < conf->raid_disks; slot++)
		md_slot_hand_over(mddev, &conf->disks[slot].rdev,
				  &conf->disks[slot].repl);
	return 0;
}

/*
 * Refuse arrays that cannot start safely; logs why.  A dirty and degraded
 * array starts only with ok_start_degraded (md_mod.start_dirty_degraded);
 * mdadm --force instead marks the superblocks clean, so it arrives here
 * clean.
 */
static int r5_check_start(struct mddev *mddev, struct r5conf *conf)
{
	int working = r5_working(conf);
	int missing = conf->raid_disks - working;

	lockdep_assert_held(&mddev->reconfig_mutex);

	if (missing > conf->geo.max_degraded) {
		pr_err("md/raid:%s: not enough operational devices (%d/%d failed)\n",
		       mdname(mddev), missing, conf->raid_disks);
		return -EIO;
	}
	if (missing && mddev->resync_offset < mddev->dev_sectors) {
		/* parity of the stripes written last may not match their data */
		if (!mddev->ok_start_degraded) {
			pr_crit("md/raid:%s: cannot start dirty degraded array (parity may be wrong, data could be lost): use mdadm --force or md_mod.start_dirty_degraded=1\n",
				mdname(mddev));
			return -EIO;
		}
		pr_crit("md/raid:%s: starting dirty degraded array (start_dirty_degraded=1) - data corruption possible\n",
			mdname(mddev));
	}
	return 0;
}

/*
 * A conf for geometry @geo over the members in its slots, their data at
 * their new data offsets if @new_offset; not yet the array's.
 */
static struct r5conf *r5_conf_create(struct mddev *mddev,
				     const struct r5geom *geo, bool new_offset)
{
	struct r5conf *conf;
	int i, ret;

	conf = kzalloc(sizeof(*conf), GFP_KERNEL);
	if (!conf)
		return ERR_PTR(-ENOMEM);
	conf->mddev = mddev;
	conf->geo = *geo;
	conf->raid_disks = geo->raid_disks;
	conf->new_offset = new_offset;
	conf->min = R5_CACHE_DEFAULT;
	/*
	 * The stripe cache's memory budget: 1/32 of RAM per array by
	 * default.  That is enough for in-tree's best hand-tuned size
	 * (4096 stripes of 5 members = 80 MiB) on a 4 GiB machine, small
	 * beside the page cache the same data would take, and returned
	 * under memory pressure (the shrinker) or when idle.
	 */
	conf->budget_kb = totalram_pages() * (PAGE_SIZE >> 10) / R5_BUDGET_DIV;
	/*
	 * The head, and per member a page and two one-vector bios (the
	 * member's and its replacement's)
	 */
	conf->stripe_bytes = sizeof(struct r5stripe) +
			     conf->raid_disks * (sizeof(struct r5dev) +
						 PAGE_SIZE +
						 2 * (sizeof(struct bio) +
						      sizeof(struct bio_vec)));
	conf->rmw_level = r5g_rmw_default(geo);
	mutex_init(&conf->workers_mutex);
	INIT_DELAYED_WORK(&conf->trim_work, r5_trim_work);
	spin_lock_init(&conf->lock);
	init_waitqueue_head(&conf->wait);
	spin_lock_irq(&conf->lock);
	r5_set_limit(conf);
	spin_unlock_irq(&conf->lock);
	for (i = 0; i < R5_SHARDS; i++) {
		spin_lock_init(&conf->shards[i].lock);
		INIT_LIST_HEAD(&conf->shards[i].inactive);
	}
	atomic_set(&conf->total, 0);
	INIT_LIST_HEAD(&conf->retry);
	atomic_set(&conf->nr_reqs, 0);
	bio_list_init(&conf->flushes);
	INIT_WORK(&conf->flush_work, r5_flush_work);
	INIT_LIST_HEAD(&conf->bm_held);
	INIT_LIST_HEAD(&conf->sb_held);
	init_waitqueue_func_entry(&conf->bm_wake, r5_bitmap_wake);
	INIT_LIST_HEAD(&conf->bm_wake.entry);
	for (i = 0; i < R5_STREAMS; i++)
		conf->stream_end[i] = MD_MAX_SECTOR;
	atomic_set(&conf->stream_next, 0);
	INIT_LIST_HEAD(&conf->row_wait);
	INIT_DELAYED_WORK(&conf->row_wait_work, r5_row_wait_work);
	atomic_set(&conf->writes, 0);
	atomic_set(&conf->waiting_reqs, 0);
	atomic64_set(&conf->row_wait_unfilled, 0);

	ret = -ENOMEM;
	conf->disks = kcalloc(conf->raid_disks, sizeof(*conf->disks),
			      GFP_KERNEL);
	if (!conf->disks)
		goto free_conf;
	conf->hash = kcalloc(R5_HASH_SIZE, sizeof(*conf->hash), GFP_KERNEL);
	if (!conf->hash)
		goto free_disks;
	ret = r5_alloc_workers(conf);
	if (ret)
		goto free_hash;
	ret = mempool_init_kmalloc_pool(&conf->req_pool, R5_POOL_MIN,
					sizeof(struct r5req));
	if (ret)
		goto free_workers;
	ret = mempool_init_kmalloc_pool(&conf->piece_pool, R5_POOL_MIN * 4,
					sizeof(struct r5piece));
	if (ret)
		goto exit_req_pool;
	ret = bioset_init(&conf->bs, BIO_POOL_SIZE,
			  offsetof(struct r5clone, bio), BIOSET_NEED_RESCUER);
	if (ret)
		goto exit_piece_pool;
	ret = -ENOMEM;
	/*
	 * Unbound: the scheduler spreads the workers over the CPUs.  A
	 * worker never sleeps on another, so the rescuer alone (memory
	 * pressure) still makes progress, one worker after another.  Room
	 * for every worker: a work item never runs twice at once, so no
	 * more than nr_workers run, whatever group_thread_cnt makes it.
	 */
	conf->wq = alloc_workqueue("%s_raid5", WQ_UNBOUND | WQ_MEM_RECLAIM,
				   R5_MAX_WORKERS, mdname(mddev));
	if (!conf->wq)
		goto exit_bs;
	/* flush_work waits for member flushes, never on the worker */
	conf->flush_wq = alloc_workqueue("%s_r5flush", WQ_MEM_RECLAIM, 1,
					 mdname(mddev));
	if (!conf->flush_wq)
		goto destroy_wq;

	ret = r5_attach_members(mddev, conf);
	if (ret)
		goto destroy_flush_wq;
	ret = r5_check_start(mddev, conf);
	if (ret)
		goto destroy_flush_wq;
	return conf;

destroy_flush_wq:
	destroy_workqueue(conf->flush_wq);
destroy_wq:
	destroy_workqueue(conf->wq);
exit_bs:
	bioset_exit(&conf->bs);
exit_piece_pool:
	mempool_exit(&conf->piece_pool);
exit_req_pool:
	mempool_exit(&conf->req_pool);
free_workers:
	r5_free_workers(conf);
free_hash:
	kfree(conf->hash);
free_disks:
	kfree(conf->disks);
free_conf:
	kfree(conf);
	return ERR_PTR(ret);
}

static int r5_publish(struct mddev *mddev, struct r5conf *conf);

/* ---- reshape --------------------------------------------------------- */

/*
 * Undo r5_publish(): @conf is no longer the array's face (its sysfs
 * files, shrinker and trimming go); it still serves IO.
 */
static void r5_unpublish(struct mddev *mddev, struct r5conf *conf)
{
	md_shrinker_unregister(&conf->shrinker);
	cancel_delayed_work_sync(&conf->trim_work);
	sysfs_unmerge_group(&mddev->kobj, &r5_stats_group);
	sysfs_remove_group(&mddev->kobj, &r5_attr_group);
}

static void r5_reshape_free(struct r5reshape *rs)
{
	if (!rs)
		return;
	if (rs->wq)
		destroy_workqueue(rs->wq);
	kfree(rs);
}

static struct r5reshape *r5_reshape_alloc(struct mddev *mddev,
					  sector_t progress)
{
	struct r5reshape *rs = kzalloc(sizeof(*rs), GFP_KERNEL);

	if (!rs)
		return NULL;
	init_rwsem(&rs->sem);
	spin_lock_init(&rs->lock);
	INIT_LIST_HEAD(&rs->windows);
	init_waitqueue_head(&rs->wait);
	rs->safe = progress;
	rs->done = progress;
	rs->issued = progress;
	rs->backwards = mddev->reshape_backwards;
	rs->end = mddev->reshape_end;
	rs->wq = alloc_workqueue("%s_r5reshape", WQ_UNBOUND | WQ_MEM_RECLAIM,
				 0, mdname(mddev));
	if (!rs->wq) {
		kfree(rs);
		return NULL;
	}
	return rs;
}

/*
 * The geometries before and after the reshape mddev describes; once it
 * has @started, raid_disks is the new count, before the old one.
 */
static int r5_reshape_geoms(struct mddev *mddev, bool started,
			    struct r5geom *old, struct r5geom *new)
{
	int old_disks = mddev->raid_disks - (started ? mddev->delta_disks : 0);
	int new_disks = old_disks + mddev->delta_disks;
	const char *why;

	if (r5g_init(old, mddev->level, mddev->layout, old_disks,
		     mddev->chunk_sectors, R5_STRIPE_SECTORS, &why) ||
	    r5g_init(new, mddev->new_level, mddev->new_layout, new_disks,
		     mddev->new_chunk_sectors, R5_STRIPE_SECTORS, &why)) {
		pr_err("md/raid:%s: cannot reshape from %d members, layout %d, chunk %d to %d members, layout %d, chunk %d: %s\n",
		       mdname(mddev), old_disks, mddev->layout,
		       mddev->chunk_sectors, new_disks,
		       mddev->new_layout, mddev->new_chunk_sectors, why);
		return -EINVAL;
	}
	return 0;
}

/*
 * Least distance the data moves on the members holding old data: down
 * forwards, up backwards; 0 if some member's does not move that way,
 * -EINVAL (a log line) if one moves the other way.
 */
static s64 r5_reshape_gap(struct mddev *mddev, int old_disks)
{
	sector_t gap = MD_MAX_SECTOR, d;
	struct md_rdev *rdev;

	rdev_for_each(rdev, mddev) {
		/* only where old data lies: a new member holds none */
		if (rdev->raid_disk < 0 || rdev->raid_disk >= old_disks ||
		    !test_bit(RD_IN_SYNC, &rdev->flags) ||
		    test_bit(RD_FAULTY, &rdev->flags))
			continue;
		if (mddev->reshape_backwards ?
		    rdev->new_data_offset < rdev->data_offset :
		    rdev->new_data_offset > rdev->data_offset) {
			pr_err("md/raid:%s: %pg: its data would move %s, against a reshape that runs %s\n",
			       mdname(mddev), rdev->bdev,
			       mddev->reshape_backwards ? "down" : "up",
			       mddev->reshape_backwards ? "backwards" :
			       "forwards");
			return -EINVAL;
		}
		if (rdev->new_data_offset == rdev->data_offset)
			return 0;
		d = mddev->reshape_backwards ?
		    rdev->new_data_offset - rdev->data_offset :
		    rdev->data_offset - rdev->new_data_offset;
		gap = min(gap, d);
	}
	return gap == MD_MAX_SECTOR ? 0 : gap;
}

/* Why this stack cannot make the reshape mddev asks for, or NULL. */
static const char *r5_reshape_refusal(struct mddev *mddev,
				      const struct r5geom *old,
				      const struct r5geom *new)
{
	if (mddev->new_level != mddev->level)
		return "level changes (takeovers) are not supported yet";
	/* the new rows must land where the old ones were read already */
	if (mddev->delta_disks < 0 && !mddev->reshape_backwards)
		return "fewer members reshape from the end (backwards) only";
	if (mddev->delta_disks > 0 && mddev->reshape_backwards)
		return "more members reshape from the start (forwards) only";
	/* 0.91 says backwards only by fewer members */
	if (mddev->persistent && !mddev->major_version &&
	    mddev->reshape_backwards && mddev->delta_disks >= 0)
		return "0.90 superblocks cannot record a backwards reshape";
	if (mddev->bitmap)
		return "remove the bitmap first";
	if (new->raid_disks >= BITS_PER_LONG)
		return "too many members";
	/* a window is one new row, at most one bio of pages */
	if ((u64)new->data_disks * new->chunk_sectors / PAGE_SECTORS >
	    UIO_MAXIOV)
		return "new rows too large";
	return NULL;
}

/*
 * pers->takeover onto level @to (raid456's three personalities): the
 * same members read as @to with nothing moved.  RAID5 -> RAID6 keeps
 * the RAID5 rotation on the old members and adds Q as a new last slot,
 * empty until a spare is rebuilt into it (the "-6" layouts); RAID6 ->
 * RAID5 is the reverse where Q is last, that member becomes a spare;
 * RAID4 is RAID5 with parity last.  Layout numbers as in-tree's.
 */
/*
 * RAID0 of one zone (every member as large) is RAID4/5 parity-last with
 * the parity member missing: chunk c on member c % n at row c / n.
 */
static const char *r5_takeover_raid0(struct mddev *mddev,
				     struct md_takeover *t)
{
	int chunk = mddev->chunk_sectors;
	sector_t rounded;

	if (chunk < PAGE_SECTORS || (chunk & (chunk - 1)))
		return "its chunk is not a power of two of a page or more";
	if (!md_takeover_one_zone(mddev, &rounded))
		return "its members differ in size (more than one zone)";
	t->layout = t->level == 4 ? 0 : R5G_PARITY_LAST;
	t->raid_disks = mddev->raid_disks + 1;
	t->dev_sectors = rounded;
	return NULL;
}

static int r5_takeover(struct mddev *mddev, struct md_takeover *t, int to)
{
	int from = mddev->level, layout = mddev->layout;
	const char *why = NULL;

	t->level = to;
	t->layout = layout;
	t->chunk_sectors = mddev->chunk_sectors;
	t->raid_disks = mddev->raid_disks;
	t->drop_slot = -1;
	if (mddev->reshape_position != MD_MAX_SECTOR) {
		why = "a reshape is running";
	} else if (to == 6 && from == 5) {
		if (layout <= R5G_RIGHT_SYMMETRIC)
			t->layout = layout + R5G_LEFT_ASYMMETRIC_6;
		else if (layout == R5G_PARITY_FIRST)
			t->layout = R5G_PARITY_FIRST_6;
		t->raid_disks++;
	} else if (to == 5 && from == 6) {
		if (layout >= R5G_LEFT_ASYMMETRIC_6 &&
		    layout <= R5G_RIGHT_SYMMETRIC_6)
			t->layout = layout - R5G_LEFT_ASYMMETRIC_6;
		else if (layout == R5G_PARITY_FIRST_6)
			t->layout = R5G_PARITY_FIRST;
		else if (layout != R5G_PARITY_LAST)
			why = "Q is not on the last member (restripe to a -6 layout first)";
		t->raid_disks--;
		t->drop_slot = t->raid_disks;
	} else if (to == 5 && from == 1) {
		/*
		 * A mirror of two is a RAID5 of two, whatever the rotation;
		 * the largest chunk up to 64 KiB the size is a multiple of
		 */
		t->layout = R5G_LEFT_SYMMETRIC;
		t->chunk_sectors = 128;
		while (t->chunk_sectors > PAGE_SECTORS &&
		       mddev->array_sectors & (t->chunk_sectors - 1))
			t->chunk_sectors >>= 1;
		if (mddev->raid_disks != 2)
			why = "a RAID1 of two members only";
		else if (mddev->array_sectors & (t->chunk_sectors - 1))
			why = "the size is not a multiple of a page";
	} else if ((to == 5 || to == 4) && from == 0) {
		why = r5_takeover_raid0(mddev, t);
	} else if (to == 5 && from == 4) {
		t->layout = R5G_PARITY_LAST;
	} else if (to == 4 && from == 5) {
		if (layout != R5G_PARITY_LAST)
			why = "parity is not on the last member (restripe to parity-last first)";
		t->layout = 0;
	} else {
		why = "not a RAID4/5/6 takeover";
	}
	if (!why && mddev->bitmap && t->raid_disks != mddev->raid_disks)
		why = "remove the bitmap first";
	if (why) {
		pr_warn("md/raid:%s: cannot take level %d over as level %d: %s\n",
			mdname(mddev), from, to, why);
		return -EINVAL;
	}
	return 0;
}

static int raid4_takeover(struct mddev *mddev, struct md_takeover *t)
{
	return r5_takeover(mddev, t, 4);
}

static int raid5_takeover(struct mddev *mddev, struct md_takeover *t)
{
	return r5_takeover(mddev, t, 5);
}

static int raid6_takeover(struct mddev *mddev, struct md_takeover *t)
{
	return r5_takeover(mddev, t, 6);
}

static int raid5_check_reshape(struct mddev *mddev)
{
	struct r5geom old, new;
	const char *why;

	if (mddev->delta_disks == 0 && mddev->new_layout == mddev->layout &&
	    mddev->new_chunk_sectors == mddev->chunk_sectors)
		return 0;
	if (r5_reshape_geoms(mddev, false, &old, &new))
		return -EINVAL;
	why = r5_reshape_refusal(mddev, &old, &new);
	if (why) {
		pr_warn("md/raid:%s: reshape refused: %s\n", mdname(mddev), why);
		return mddev->bitmap ? -EBUSY : -EINVAL;
	}
	return 0;
}

/* Build the new geometry's conf beside @prev; the array is suspended. */
static int r5_reshape_setup(struct mddev *mddev, struct r5conf *prev,
			    const struct r5geom *new, sector_t pos,
			    bool suspended)
{
	struct r5conf *conf;
	s64 gap = r5_reshape_gap(mddev, prev->geo.raid_disks);
	sector_t unit = max(prev->geo.chunk_sectors, new->chunk_sectors);
	bool inplace;
	int ret;

	if (gap < 0)
		return gap;
	inplace = gap < unit;

	/* in place, a window is max(chunk) of every member: one bio */
	if (inplace && (u64)unit * new->data_disks / PAGE_SECTORS > UIO_MAXIOV) {
		pr_err("md/raid:%s: cannot reshape in place: %d data members of %d KiB chunks make too large a window\n",
		       mdname(mddev), new->data_disks, (int)unit / 2);
		return -EINVAL;
	}
	conf = r5_conf_create(mddev, new, true);
	if (IS_ERR(conf))
		return PTR_ERR(conf);
	r5_reshape_free(prev->rs);	/* a reshape before, long done */
	prev->rs = NULL;
	/*
	 * Past the old data too: its rows get their parity (zeroes); to
	 * fewer members only what the new geometry holds (the array was
	 * cut to it before)
	 */
	if (mddev->delta_disks < 0)
		mddev->reshape_end = r5_geo_size(new, mddev->dev_sectors);
	else
		mddev->reshape_end =
			max(r5_geo_size(&prev->geo, mddev->dev_sectors),
			    r5_geo_size(new, mddev->dev_sectors));
	mddev->reshape_unit = new->data_disks;
	conf->rs = r5_reshape_alloc(mddev, mddev->reshape_backwards ?
				    mddev->reshape_end - min(pos,
							     mddev->reshape_end) :
				    pos);
	if (!conf->rs) {
		ret = -ENOMEM;
		goto free_conf;
	}
	conf->rs->gap = gap;
	conf->rs->inplace = inplace;
	if (inplace)
		pr_info("md/raid:%s: reshaping in place (the data offsets do not move): each window waits for mdadm's backup of it where a crash would need one\n",
			mdname(mddev));
	/* the core's resume opens the gates it shut, this one's too */
	if (suspended)
		conf->quiesced = 1;
	ret = r5_set_limits(mddev, conf, NULL);
	if (ret)
		goto free_conf;
	conf->prev = prev;
	return r5_publish(mddev, conf);

free_conf:
	r5_reshape_free(conf->rs);
	raid5_free_conf(conf);
	return ret;
}

/* run(): the superblocks record a reshape; continue it. */
static int r5_run_reshaping(struct mddev *mddev)
{
	struct r5geom old, new;
	struct r5conf *prev;
	const char *why;
	int ret;

	if (r5_reshape_geoms(mddev, true, &old, &new))
		return -EINVAL;
	why = r5_reshape_refusal(mddev, &old, &new);
	if (why) {
		pr_err("md/raid:%s: cannot continue the reshape the superblocks record: %s\n",
		       mdname(mddev), why);
		return -EINVAL;
	}
	prev = r5_conf_create(mddev, &old, false);
	if (IS_ERR(prev))
		return PTR_ERR(prev);
	ret = r5_reshape_setup(mddev, prev, &new, mddev->reshape_position,
			       false);
	if (ret) {
		raid5_free_conf(prev);
		return ret;
	}
	pr_info("md/raid:%s: continuing the reshape from %d to %d members at array sector %llu\n",
		mdname(mddev), old.raid_disks, new.raid_disks,
		(unsigned long long)mddev->reshape_position);
	return 0;
}

/*
 * sync_action "reshape" (the core has suspended the array): the spares
 * take the new slots, in sync at once (no data of the old geometry is
 * on them; the new one's reaches them as it moves), and the new
 * geometry's conf goes in front of the old.
 */
/* Has slot @i a member that is not failed?  reconfig_mutex. */
static bool r5_slot_taken(struct r5conf *conf, int i)
{
	struct md_rdev *rdev = rcu_dereference_protected(conf->disks[i].rdev,
		lockdep_is_held(&conf->mddev->reconfig_mutex));

	return rdev && !test_bit(RD_FAULTY, &rdev->flags);
}

static int raid5_start_reshape(struct mddev *mddev)
{
	struct r5conf *prev = mddev->private;
	int old_disks = mddev->raid_disks;
	struct r5geom old, new;
	struct md_rdev *rdev;
	int slot, spares = 0, ret;
	const char *why;

	if (prev->prev)
		return -EBUSY;
	mddev->raid_disks += mddev->delta_disks;
	ret = r5_reshape_geoms(mddev, true, &old, &new);
	why = ret ? NULL : r5_reshape_refusal(mddev, &old, &new);
	if (why) {
		pr_warn("md/raid:%s: reshape refused: %s\n", mdname(mddev), why);
		ret = -EINVAL;
	}
	rdev_for_each(rdev, mddev) {
		if (rdev->raid_disk < 0 && !test_bit(RD_FAULTY, &rdev->flags))
			spares++;
		if (!ret && rdev->raid_disk >= 0 &&
		    test_bit(RD_FAULTY, &rdev->flags)) {
			pr_warn("md/raid:%s: reshape refused: remove the failed member %pg first\n",
				mdname(mddev), rdev->bdev);
			ret = -EBUSY;
		}
	}
	/* the old geometry's empty slots take spares first */
	for (slot = 0; slot < old_disks && spares > 0; slot++)
		if (!r5_slot_taken(prev, slot))
			spares--;
	if (!ret && mddev->delta_disks < 0 &&
	    r5_geo_size(&new, mddev->dev_sectors) < mddev->array_sectors) {
		pr_warn("md/raid:%s: reshape refused: %d members hold less than the array's %llu sectors: reduce the array size first (mdadm --grow --array-size)\n",
			mdname(mddev), new.raid_disks,
			(unsigned long long)mddev->array_sectors);
		ret = -EINVAL;
	}
	if (!ret && spares < mddev->delta_disks) {
		pr_warn("md/raid:%s: reshape refused: %d more members need %d spares, %d present\n",
			mdname(mddev), mddev->delta_disks, mddev->delta_disks,
			spares);
		ret = -EINVAL;
	}
	if (ret) {
		mddev->raid_disks = old_disks;
		return ret;
	}
	/*
	 * Spares first into the old geometry's empty slots, to be rebuilt
	 * once the reshape is done (a degraded array reshapes degraded);
	 * then into the new slots, in sync at once
	 */
	slot = 0;
	rdev_for_each(rdev, mddev) {
		if (rdev->raid_disk >= 0 || test_bit(RD_FAULTY, &rdev->flags))
			continue;
		while (slot < old_disks && r5_slot_taken(prev, slot))
			slot++;
		if (slot < old_disks) {
			rdev->raid_disk = slot++;
			rdev->recovery_offset = 0;
			clear_bit(RD_IN_SYNC, &rdev->flags);
			continue;
		}
		if (slot >= mddev->raid_disks)
			break;
		rdev->raid_disk = slot++;
		rdev->recovery_offset = MD_MAX_SECTOR;
		set_bit(RD_IN_SYNC, &rdev->flags);
	}
	r5_unpublish(mddev, prev);
	ret = r5_reshape_setup(mddev, prev, &new,
			       mddev->reshape_backwards ? MD_MAX_SECTOR : 0,
			       true);
	if (ret) {
		rdev_for_each(rdev, mddev)
			if (rdev->raid_disk >= old_disks) {
				rdev->raid_disk = -1;
				clear_bit(RD_IN_SYNC, &rdev->flags);
			}
		mddev->raid_disks = old_disks;
		WARN_ON(r5_publish(mddev, prev));
		return ret;
	}
	spin_lock_irq(&mddev->lock);
	mddev->reshape_position = mddev->reshape_backwards ?
				  mddev->reshape_end : 0;
	spin_unlock_irq(&mddev->lock);
	return 0;
}

/* The core suspended the array: the old geometry's conf goes. */
static void raid5_finish_reshape(struct mddev *mddev)
{
	struct r5conf *conf = mddev->private;
	struct r5conf *prev = conf->prev;

	if (!prev)
		return;
	/*
	 * rs stays until the next reshape or the end: a write that waited
	 * for a window may still look at it once more (r5_reshape_route())
	 */
	WRITE_ONCE(conf->prev, NULL);
	wake_up_all(&conf->rs->wait);
	/* the core makes new_data_offset the data offset next */
	conf->new_offset = false;
	synchronize_rcu();
	raid5_free_conf(prev);
}

enum { R5_MOVED, R5_UNMOVED, R5_ACROSS };

/*
 * Where array sectors [@a, @a + @n) stand against progress @p: all
 * moved, none, or across the boundary, *@cut sectors from @a.
 */
static int r5_side(const struct r5reshape *rs, sector_t a, sector_t n,
		   sector_t p, sector_t *cut)
{
	sector_t b = rs->backwards ? rs->end - p : p;

	if (a + n <= b)
		return rs->backwards ? R5_UNMOVED : R5_MOVED;
	if (a >= b)
		return rs->backwards ? R5_MOVED : R5_UNMOVED;
	*cut = b - a;
	return R5_ACROSS;
}

/* Does [@a, @a + @n) meet what is moving, between done and issued? */
static bool r5_in_window(const struct r5reshape *rs, sector_t a, sector_t n)
{
	sector_t lo = rs->backwards ? rs->end - rs->issued : rs->done;
	sector_t hi = rs->backwards ? rs->end - rs->done : rs->issued;

	return lo < hi && a < hi && a + n > lo;
}

/*
 * Route one array bio during a reshape.  Reads of what moved (up to
 * done) go to the new geometry, the rest to the old one, which holds it
 * intact until a checkpoint has drained them.  Writes to what the
 * superblocks say moved (up to safe) go to the new geometry, to what is
 * not moving yet (beyond issued) to the old; between they wait (up to
 * done: for a checkpoint, which they ask for).  A bio across a boundary
 * is split there and each part routed.
 */
static void r5_reshape_route(struct r5conf *conf, struct bio *bio)
{
	struct r5reshape *rs = conf->rs;

	for (;;) {
		sector_t a = bio->bi_iter.bi_sector;
		sector_t n = bio_sectors(bio);
		struct r5conf *to = conf;
		sector_t cut = 0;
		struct bio *split;
		int side;

		if ((bio->bi_opf & REQ_PREFLUSH) || !n) {
			/* the geometry with more members flushes them all */
			r5_make_request(conf->prev->raid_disks > conf->raid_disks ?
					conf->prev : conf, bio);
			return;
		}
		if (bio->bi_opf & REQ_NOWAIT) {
			if (!down_read_trylock(&rs->sem)) {
				bio_wouldblock_error(bio);
				return;
			}
		} else {
			down_read(&rs->sem);
		}
		if (!op_is_write(bio_op(bio)) && rs->inplace &&
		    r5_in_window(rs, a, n)) {
			/* being rewritten in place: neither geometry has it */
			sector_t done = rs->done;

			up_read(&rs->sem);
			if (bio->bi_opf & REQ_NOWAIT) {
				bio_wouldblock_error(bio);
				return;
			}
			wait_event(rs->wait,
				   READ_ONCE(rs->done) != done ||
				   !READ_ONCE(conf->prev));
			if (!READ_ONCE(conf->prev)) {
				r5_make_request(conf, bio);
				return;
			}
			continue;
		}
		if (!op_is_write(bio_op(bio))) {
			side = r5_side(rs, a, n, rs->done, &cut);
			if (side == R5_UNMOVED)
				to = conf->prev;
		} else {
			side = r5_side(rs, a, n, rs->safe, &cut);
			if (side == R5_UNMOVED)
				side = r5_side(rs, a, n, rs->issued, &cut);
			if (side == R5_UNMOVED) {
				to = conf->prev;
			} else if (side == R5_MOVED &&
				   r5_side(rs, a, n, rs->safe, &cut) !=
				   R5_MOVED) {
				sector_t safe = rs->safe, issued = rs->issued;

				if (r5_side(rs, a, n, rs->done, &cut) !=
				    R5_UNMOVED)
					WRITE_ONCE(rs->want_cp, true);
				up_read(&rs->sem);
				wake_up(&conf->mddev->sync_wait);
				if (bio->bi_opf & REQ_NOWAIT) {
					bio_wouldblock_error(bio);
					return;
				}
				wait_event(rs->wait,
					   READ_ONCE(rs->safe) != safe ||
					   READ_ONCE(rs->issued) != issued ||
					   !READ_ONCE(conf->prev));
				if (!READ_ONCE(conf->prev)) {
					r5_make_request(conf, bio);
					return;
				}
				continue;
			}
		}
		if (side == R5_ACROSS) {
			split = bio_split(bio, cut, GFP_NOIO, &conf->bs);
			bio_chain(split, bio);
			up_read(&rs->sem);
			r5_reshape_route(conf, split);
			continue;
		}
		if (to != conf && op_is_write(bio_op(bio)))
			r5_make_request_drain(to, bio, rs,
					      &rs->wcount[rs->wepoch & 1]);
		else
			r5_make_request(to, bio);
		up_read(&rs->sem);
		return;
	}
}

/*
 * Would writing the new geometry's rows of window [@start, @end) land
 * only clear of the old data the superblocks still call live (what has
 * not moved as of safe, to the end of its old row)?  In member sectors
 * from each one's data offset; the new ones start gap lower (forwards)
 * or higher (backwards).
 */
static bool r5_window_safe(struct r5conf *conf, sector_t start,
			   sector_t end)
{
	const struct r5geom *ng = &conf->geo, *og = &conf->prev->geo;
	struct r5reshape *rs = conf->rs;
	u64 new_row = (u64)ng->data_disks * ng->chunk_sectors;
	u64 old_row = (u64)og->data_disks * og->chunk_sectors;
	u64 new_m, old_m;

	if (rs->backwards) {
		/* live: [0, end - safe); the window's rows from below */
		old_m = div64_u64(rs->end - rs->safe + old_row - 1, old_row) *
			og->chunk_sectors;
		new_m = div64_u64(start, new_row) * ng->chunk_sectors;
		return new_m + rs->gap >= old_m;
	}
	new_m = div64_u64(end + new_row - 1, new_row) * ng->chunk_sectors;
	old_m = div64_u64(rs->safe, old_row) * og->chunk_sectors;
	return new_m <= old_m + rs->gap;
}

/* Wait out what the old geometry has in flight; rs->sem held to write. */
static void r5_drain_prev(struct r5conf *conf)
{
	struct r5conf *prev = conf->prev;

	lockdep_assert_held_write(&conf->rs->sem);
	while (!wait_event_timeout(prev->wait, !atomic_read(&prev->nr_reqs),
				   5 * HZ))
		pr_warn("md/raid:%s: reshape waits for the old geometry: nr_reqs %d writes %d waiting %d\n",
			mdname(conf->mddev), atomic_read(&prev->nr_reqs),
			atomic_read(&prev->writes),
			atomic_read(&prev->waiting_reqs));
}

/*
 * Record done in the superblocks, so the new geometry may overwrite old
 * data below it.  Reads routed to the old geometry before it finish
 * first; new ones wait meanwhile.  Sync thread, no window in flight.
 */
static void r5_reshape_cp(struct r5conf *conf)
{
	struct r5reshape *rs = conf->rs;

	down_write(&rs->sem);
	r5_drain_prev(conf);
	md_reshape_checkpoint(conf->mddev, rs->backwards ?
			      rs->end - rs->done : rs->done);
	rs->safe = rs->done;
	WRITE_ONCE(rs->want_cp, false);
	up_write(&rs->sem);
	wake_up_all(&rs->wait);
}

static void r5_window_free(struct r5window *win)
{
	int i;

	for (i = 0; i < win->nr_pages; i++)
		if (win->pages[i])
			__free_page(win->pages[i]);
	if (win->bio) {
		bio_uninit(win->bio);
		kfree(win->bio);
	}
	kfree(win);
}

/* Advance done over the windows finished in order; any context. */
static void r5_window_finish(struct r5window *win)
{
	struct r5conf *conf = win->conf;
	struct r5reshape *rs = conf->rs;
	struct mddev *mddev = conf->mddev;
	bool ok = !win->status;
	sector_t len = win->sync_len;
	struct r5window *w, *tmp;
	LIST_HEAD(gone);
	unsigned long flags;

	spin_lock_irqsave(&rs->lock, flags);
	win->done = true;
	list_for_each_entry_safe(w, tmp, &rs->windows, list) {
		if (!w->done)
			break;
		if (!w->status)
			WRITE_ONCE(rs->done, w->progress);
		list_move_tail(&w->list, &gone);
	}
	spin_unlock_irqrestore(&rs->lock, flags);
	list_for_each_entry_safe(w, tmp, &gone, list)
		r5_window_free(w);
	wake_up_all(&rs->wait);
	md_done_sync(mddev, len, ok);
}

/* The window's first @sectors through @conf, as @op. */
static void r5_window_submit(struct r5conf *conf, struct r5window *win,
			     enum req_op op, bio_end_io_t *end,
			     sector_t sectors)
{
	int i, nr = DIV_ROUND_UP(sectors, PAGE_SECTORS);
	struct r5req *req;

	bio_init(win->bio, conf->mddev->gendisk->part0, win->bio->bi_inline_vecs,
		 nr, op);
	win->bio->bi_iter.bi_sector = win->start;
	for (i = 0; i < nr; i++) {
		unsigned int bytes = min_t(u64, PAGE_SIZE,
					   (sectors << 9) - i * PAGE_SIZE);

		__bio_add_page(win->bio, win->pages[i], bytes, 0);
	}
	win->bio->bi_end_io = end;
	win->bio->bi_private = win;
	r5_enter(conf, false);
	req = r5_req_alloc(conf, win->bio, GFP_NOIO);
	req->internal = true;
	r5_req_submit(conf, req);
}

static void r5_window_written(struct bio *bio)
{
	struct r5window *win = bio->bi_private;

	win->status = bio->bi_status;
	r5_window_finish(win);
}

static void r5_window_write(struct work_struct *work)
{
	struct r5window *win = container_of(work, struct r5window, work);

	if (win->read)
		bio_uninit(win->bio);
	r5_window_submit(win->conf, win, REQ_OP_WRITE, r5_window_written,
			 win->len);
}

static void r5_window_read_done(struct bio *bio)
{
	struct r5window *win = bio->bi_private;

	win->status = bio->bi_status;
	if (win->status) {
		r5_window_finish(win);
		return;
	}
	queue_work(win->conf->rs->wq, &win->work);
}

/*
 * pers->close_sync: the pass ended, nothing is in flight.  A reshape
 * records how far it got, which also lets the writes waiting for that go.
 */
static void raid5_close_sync(struct mddev *mddev)
{
	struct r5conf *conf = mddev->private;

	if (conf->prev && test_bit(MDR_RESHAPE, &mddev->recovery) &&
	    list_empty_careful(&conf->rs->windows) &&
	    conf->rs->safe < conf->rs->done)
		r5_reshape_cp(conf);
}

/*
 * pers->sync_request with MDR_RESHAPE: move the window at @sector (one
 * row of the new geometry) unless that would overwrite old data the
 * superblocks still call live; then first wait for what is moving and
 * record how far it got.
 */
static sector_t r5_reshape_request(struct mddev *mddev, sector_t j,
				   sector_t max_sector)
{
	struct r5conf *conf = mddev->private;
	struct r5reshape *rs = conf->rs;
	struct r5conf *prev = conf->prev;
	sector_t row = (sector_t)conf->geo.data_disks * conf->geo.chunk_sectors;
	sector_t old_end = r5_geo_size(&prev->geo, mddev->dev_sectors);
	sector_t pos = md_reshape_pos(mddev, j);
	sector_t sector = rs->backwards ? rs->end - pos : pos;
	sector_t start, len, readable, next;
	struct r5window *win;
	unsigned int epoch;
	bool unsafe = false;
	int i, nr;

	/*
	 * @j is the sync thread's progress per member, sector the same in
	 * array sectors: the window is the next new row that way
	 */
	if (WARN_ON_ONCE(!prev || sector != rs->issued ||
			 sector >= rs->end))
		return 0;
	if (rs->inplace) {
		/* every member's max(chunk): whole old and new rows */
		row = max(conf->geo.chunk_sectors, prev->geo.chunk_sectors) *
		      (sector_t)conf->geo.data_disks;
		wait_event(rs->wait, list_empty_careful(&rs->windows));
		if (READ_ONCE(rs->done) != rs->issued)
			return 0;	/* a window failed */
	}
	if (rs->backwards) {
		sector_t top = rs->end - sector;

		start = rounddown(top - 1, row);
		len = top - start;
	} else {
		start = sector;
		len = min(row - sector % row, rs->end - sector);
	}
	next = md_reshape_progress(mddev, rs->backwards ? start : start + len);
	while (!r5_window_safe(conf, start, start + len) ||
	       (READ_ONCE(rs->want_cp) && rs->safe < rs->issued)) {
		wait_event(rs->wait, list_empty_careful(&rs->windows));
		if (READ_ONCE(rs->done) != rs->issued)
			return 0;	/* a window failed */
		if (rs->safe == rs->done && !rs->inplace) {
			pr_err("md/raid:%s: reshape cannot move on: the data offsets leave too little room\n",
			       mdname(mddev));
			return 0;
		}
		if (rs->safe < rs->done) {
			r5_reshape_cp(conf);
			continue;
		}
		/* only mdadm's backup can stand for what this overwrites */
		if (!rs->told)
			pr_info("md/raid:%s: reshape at array sector %llu waits for mdadm to back up what it rewrites in place\n",
				mdname(mddev), (unsigned long long)start);
		rs->told = true;
		if (!md_sync_wait_backup(mddev, next, start, len))
			return 0;
		unsafe = true;
		break;
	}
	nr = DIV_ROUND_UP(len, PAGE_SECTORS);
	win = kzalloc(struct_size(win, pages, nr), GFP_NOIO);
	if (!win)
		return 0;
	win->conf = conf;
	win->start = start;
	win->len = len;
	win->progress = sector + len;
	win->sync_len = next - j;
	/* rows past the old data are written as zeroes */
	readable = start < old_end ? min(len, old_end - start) : 0;
	win->read = readable > 0;
	win->nr_pages = nr;
	INIT_WORK(&win->work, r5_window_write);
	win->bio = bio_kmalloc(nr, GFP_NOIO);
	if (!win->bio)
		goto free;
	for (i = 0; i < nr; i++) {
		win->pages[i] = alloc_page(GFP_NOIO | __GFP_ZERO);
		if (!win->pages[i])
			goto free;
	}
	/*
	 * Writes at or above the new issued now wait; those routed to the
	 * old geometry before (the epoch that ends here) drain
	 */
	down_write(&rs->sem);
	rs->issued = sector + len;
	epoch = rs->wepoch++ & 1;
	/* nothing read from the old rows this overwrites is still on its way */
	if (unsafe)
		r5_drain_prev(conf);
	up_write(&rs->sem);
	wait_event(rs->wait, !atomic_read(&rs->wcount[epoch]));
	spin_lock_irq(&rs->lock);
	list_add_tail(&win->list, &rs->windows);
	spin_unlock_irq(&rs->lock);
	if (readable)
		r5_window_submit(prev, win, REQ_OP_READ, r5_window_read_done,
				 readable);
	else
		queue_work(rs->wq, &win->work);
	return win->sync_len;

free:
	kfree(win->bio);
	win->bio = NULL;
	r5_window_free(win);
	return 0;
}

static int raid5_run(struct mddev *mddev)
{
	struct r5conf *conf;
	const char *why;
	struct r5geom geo;
	int ret;

	lockdep_assert_held(&mddev->reconfig_mutex);
	if (r5g_init(&geo, mddev->level, mddev->layout, mddev->raid_disks,
		     mddev->chunk_sectors, R5_STRIPE_SECTORS, &why)) {
		pr_err("md/raid:%s: cannot start level %d, layout %d, %d members, chunk %u sectors: %s\n",
		       mdname(mddev), mddev->level, mddev->layout,
		       mddev->raid_disks, mddev->chunk_sectors, why);
		return -EINVAL;
	}
	if (mddev->raid_disks >= BITS_PER_LONG) {
		pr_err("md/raid:%s: at most %d members are supported\n",
		       mdname(mddev), BITS_PER_LONG - 1);
		return -EINVAL;
	}

	if (mddev->reshape_position != MD_MAX_SECTOR)
		return r5_run_reshaping(mddev);
	conf = r5_conf_create(mddev, &geo, false);
	if (IS_ERR(conf))
		return PTR_ERR(conf);
	ret = r5_set_limits(mddev, conf, NULL);
	if (ret)
		goto free_conf;
	return r5_publish(mddev, conf);

free_conf:
	raid5_free_conf(conf);
	return ret;
}

/* @conf becomes the array's: its sysfs files, shrinker and trimming. */
static int r5_publish(struct mddev *mddev, struct r5conf *conf)
{
	unsigned long flags;

	mddev->private = conf;
	spin_lock_irqsave(&mddev->lock, flags);
	r5_update_degraded(mddev);
	spin_unlock_irqrestore(&mddev->lock, flags);
	mddev->array_sectors = raid5_size(mddev, 0, 0);
	if (sysfs_create_group(&mddev->kobj, &r5_attr_group))
		pr_warn("md/raid:%s: cannot create raid456 sysfs files\n",
			mdname(mddev));
	if (sysfs_merge_group(&mddev->kobj, &r5_stats_group))
		pr_warn("md/raid:%s: cannot create md/stats/stripe_* files\n",
			mdname(mddev));
	/* without it the cache still trims itself when idle */
	if (md_shrinker_register(&conf->shrinker, r5_shrink_count,
				 r5_shrink_scan, conf, "md-raid5",
				 mdname(mddev)))
		pr_warn("md/raid:%s: no stripe cache shrinker\n",
			mdname(mddev));
	queue_delayed_work(system_power_efficient_wq, &conf->trim_work,
			   msecs_to_jiffies(R5_TRIM_MS));
	pr_info("md/raid:%s: raid level %d active with %d out of %d devices, algorithm %d\n",
		mdname(mddev), mddev->level,
		conf->raid_disks - mddev->degraded, conf->raid_disks,
		mddev->layout);
	return 0;
}

static void raid5_free(struct mddev *mddev, void *priv)
{
	struct r5conf *conf = priv;

	/* no-op if registration failed */
	md_shrinker_unregister(&conf->shrinker);
	cancel_delayed_work_sync(&conf->trim_work);
	/* nothing waits for its row: no request is left */
	cancel_delayed_work_sync(&conf->row_wait_work);
	/* waits for stores in progress (they found priv before it went) */
	sysfs_unmerge_group(&mddev->kobj, &r5_stats_group);
	sysfs_remove_group(&mddev->kobj, &r5_attr_group);
	/* the last r5_leave() may still be looking at conf->wait */
	synchronize_rcu();
	if (conf->prev)
		raid5_free_conf(conf->prev);
	r5_reshape_free(conf->rs);
	raid5_free_conf(priv);
}

#define R5_PERSONALITY(_name, _level) {			\
	.name		= _name,			\
	.level		= _level,			\
	.takeover	= raid##_level##_takeover,	\
	.owner		= THIS_MODULE,			\
	.run		= raid5_run,			\
	.free		= raid5_free,			\
	.make_request	= raid5_make_request,		\
	.status		= raid5_status,			\
	.error_handler	= raid5_error_handler,		\
	.daemon		= raid5_daemon,			\
	.hot_add_disk	= raid5_hot_add_disk,		\
	.hot_remove_disk = raid5_hot_remove_disk,	\
	.spare_active	= raid5_spare_active,		\
	.sync_request	= raid5_sync_request,		\
	.sync_raise	= raid5_sync_raise,		\
	.size		= raid5_size,			\
	.quiesce	= raid5_quiesce,		\
	.resize_in_place = true,			\
	.replacement	= true,				\
	.round_dev_sectors = raid5_round_dev_sectors,	\
	.close_sync	= raid5_close_sync,		\
	.check_reshape	= raid5_check_reshape,		\
	.start_reshape	= raid5_start_reshape,		\
	.finish_reshape	= raid5_finish_reshape,		\
}

static struct md_personality raid4_personality = R5_PERSONALITY("raid4", 4);
static struct md_personality raid5_personality = R5_PERSONALITY("raid5", 5);
static struct md_personality raid6_personality = R5_PERSONALITY("raid6", 6);

static int __init raid5_init(void)
{
	int ret;

	ret = md_register_personality(&raid6_personality);
	if (ret)
		return ret;
	ret = md_register_personality(&raid5_personality);
	if (ret)
		goto unregister_raid6;
	ret = md_register_personality(&raid4_personality);
	if (ret)
		goto unregister_raid5;
	return 0;

unregister_raid5:
	md_unregister_personality(&raid5_personality);
unregister_raid6:
	md_unregister_personality(&raid6_personality);
	return ret;
}

static void __exit raid5_exit(void)
{
	md_unregister_personality(&raid4_personality);
	md_unregister_personality(&raid5_personality);
	md_unregister_personality(&raid6_personality);
}

module_init(raid5_init);
module_exit(raid5_exit);
MODULE_LICENSE("GPL");
MODULE_VERSION(MD_VERSION_STRING);
MODULE_DESCRIPTION("RAID4/5/6 personality for md (out-of-tree fork stack)");
MODULE_ALIAS("md-personality-4");	/* RAID5 */
MODULE_ALIAS("md-raid5");
MODULE_ALIAS("md-raid4");
MODULE_ALIAS("md-level-5");
MODULE_ALIAS("md-level-4");
MODULE_ALIAS("md-personality-8");	/* RAID6 */
MODULE_ALIAS("md-raid6");
MODULE_ALIAS("md-level-6");
