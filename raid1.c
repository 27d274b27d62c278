// SPDX-License-Identifier: GPL-2.0
/*
 * RAID1 personality: every member ("mirror") holds a full copy.
 *
 * Writes are cloned to every non-faulty mirror, including one still being
 * recovered: recovery copies each region only once, so a write it has
 * already passed must land on the new member too.  The array bio completes
 * when the last clone does.  It succeeds if at least one In_sync mirror
 * took the write; mirrors whose clone failed are handed to md_error() from
 * the retry worker first, so a failed mirror is marked faulty before the
 * write is acknowledged.  With write-behind (a bitmap with a backlog) a
 * write may complete before its clones to write-mostly members do; the
 * section "write-behind" says why that stays safe.  Reads go to one
 * mirror, chosen by distance from where that mirror's last read ended
 * and by its queue depth.  A failed read is parked for the worker, which
 * rewrites the bad range on the failing mirror from another one, reads
 * it back, and reissues the read elsewhere.
 *
 * The hard part is keeping the mirrors identical while resync or recovery
 * copies data from one to the others: a normal write racing with the copy
 * of the same region could reach the source before the copy reads it and
 * the target after the copy wrote it, leaving the target stale forever.
 * The barrier prevents that.  The array is cut into 1 MiB buckets (hashed
 * onto R1_NR_BUCKETS counters).  Normal IO enters a bucket with
 * wait_barrier(), which blocks while the bucket's barrier count is raised,
 * then counts itself in nr_pending until it completes.  A sync request
 * first raises the barrier of its bucket, which stops new normal IO there,
 * then waits for nr_pending to drain; only then does it read and write.
 * So within one bucket, normal IO and sync IO never overlap in time, and
 * any write that started before the copy has finished on every mirror
 * that it will ever reach.  A sync request never straddles a bucket and a
 * normal bio crossing a bucket boundary is split there.
 *
 * Fairness: a sync request does not raise a barrier while normal IO is
 * waiting on that bucket, so a busy array still makes foreground progress;
 * the sync side is paced by the core's throttle anyway.
 *
 * Read-error fixups use the same counters: the worker raises the barrier
 * on the bucket and waits until the only pending IO there is IO parked for
 * the worker itself (nr_pending == nr_queued); parked requests do no IO,
 * so the rewrite cannot race with a normal write to the same sectors.
 *
 * quiesce(1) sets ->frozen, which blocks new normal and sync IO in every
 * bucket, and waits for all of it to drain.  The worker never waits on
 * ->frozen, so parked requests always finish and quiesce cannot hang on
 * them.
 *
 * Replacement (mdadm --replace).  A member that wants replacing keeps
 * its slot and serves as before while a spare is built beside it in
 * mirrors[raid_disks + i], "slot" i to the core and the superblocks
 * (MD_FEATURE_REPLACEMENT).  Every write goes to both; reads may use the
 * replacement below its recovery_offset; recovery copies to it from the
 * In_sync members; it never counts toward a write's success, nor is it
 * read by a sync (its pages are never a source).  Once whole,
 * spare_active() fails the member it replaces, and removing that member
 * hands the slot to the replacement.  So the mirror holds the data on
 * the member until the replacement holds all of it, whatever fails: a
 * member that fails half way hands over a replacement that goes on
 * rebuilding from its recovery_offset like any new member, and a
 * replacement that fails just leaves.  With a layout (RAID10) the
 * replacement holds its mirror's member sectors: the layout maps slot
 * raid_disks + i as mirror i, and a layout's recovery, which walks member
 * sectors, rebuilds replacements as it rebuilds members.
 *
 * Deferred work (read retries, md_error() after failed writes, the sync
 * state machine after each phase) runs on a per-array ordered workqueue
 * rather than the md thread, so none of it depends on the core's
 * housekeeping making progress.  pers->daemon only kicks that work.
 */
#include <linux/module.h>
#include <linux/blkdev.h>
#include <linux/bio.h>
#include <linux/highmem.h>
#include <linux/interval_tree.h>
#include <linux/mempool.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>
#include <linux/seq_file.h>
#include "md.h"
#include "raid1.h"
#include "md_bitmap.h"

static unsigned int r1_bucket(sector_t sector)
{
	return (sector >> R1_BUCKET_SHIFT) & (R1_NR_BUCKETS - 1);
}

/* Sectors from @sector to the end of its bucket's unit. */
static sector_t r1_to_bucket_end(sector_t sector)
{
	return R1_BUCKET_SECTORS - (sector & (R1_BUCKET_SECTORS - 1));
}

/*
 * Slot indices: [0, raid_disks) are the mirrors' members, and
 * raid_disks + i is the replacement being built for mirror i (see
 * "replacement").  Writes and sync targets cover every slot.
 */
static int r1_nslots(const struct r1conf *conf)
{
	return 2 * conf->raid_disks;
}

/* Member sector of array @sector on slot @disk, or R1_NO_COPY. */
static sector_t r1_dev(const struct r1conf *conf, sector_t sector, int disk)
{
	if (!conf->layout)
		return sector;
	return conf->layout->dev(conf, sector, disk % conf->raid_disks);
}

/*
 * Sectors from @sector that one request may cover: to the end of its
 * barrier bucket, and of the layout's chunk.
 */
static sector_t r1_room(const struct r1conf *conf, sector_t sector)
{
	sector_t room = r1_to_bucket_end(sector);

	if (conf->layout)
		room = min(room, conf->layout->room(conf, sector));
	return room;
}

/* Number of In_sync, non-faulty mirrors. */
static int r1_working(struct r1conf *conf)
{
	int i, n = 0;

	rcu_read_lock();
	for (i = 0; i < conf->raid_disks; i++)
		if (r1_mirror_works(conf, i))
			n++;
	rcu_read_unlock();
	return n;
}

/*
 * Would every array sector keep a working copy without mirror @without
 * (-1: as things are)?  RAID1: one other working mirror is enough.
 */
static bool r1_enough(struct r1conf *conf, int without)
{
	int i, n = 0;
	bool ok;

	rcu_read_lock();
	if (conf->layout) {
		ok = conf->layout->enough(conf, without);
	} else {
		for (i = 0; i < conf->raid_disks; i++)
			if (i != without && r1_mirror_works(conf, i))
				n++;
		ok = n > 0;
	}
	rcu_read_unlock();
	return ok;
}

/* Working mirrors holding a copy of @r1's range. */
static int r1_copies_working(struct r1conf *conf, struct r1bio *r1)
{
	int i, n = 0;

	rcu_read_lock();
	for (i = 0; i < r1_nslots(conf); i++)
		if (r1->slots[i].dev != R1_NO_COPY &&
		    md_rdev_working(rcu_dereference(conf->mirrors[i].rdev)))
			n++;
	rcu_read_unlock();
	return n;
}

static void r1_update_degraded(struct mddev *mddev)
{
	struct r1conf *conf = mddev->private;

	lockdep_assert_held(&mddev->lock);
	mddev->degraded = conf->raid_disks - r1_working(conf);
}

/* ---- the barrier ---------------------------------------------------- */

/*
 * Normal IO enters and leaves a bucket without conf->lock; only the sync
 * side (raise/lower, freeze/thaw, quiesce) and normal IO that has to
 * wait take it.  barrier[] and ->frozen change only under conf->lock.
 * Barrier pairings:
 *
 * (B1) Entry against the sync side.  wait_barrier() increments
 *      nr_pending[idx], then a full barrier, then reads barrier[idx] and
 *      ->frozen.  raise_barrier() and freeze_bucket() increment
 *      barrier[idx], quiesce sets ->frozen, each followed by a full
 *      barrier and a read of nr_pending.  Store buffering: at least one
 *      side sees the other's store, so either the IO backs out to the
 *      slow path or the sync side waits for it to leave.
 * (B2) Leaving against a sleeper.  allow_barrier() decrements
 *      nr_pending, then wq_has_sleeper() (a full barrier, then a look
 *      at conf->wait).  A sleeper queues itself and sets its task state
 *      (a full barrier) before it tests nr_pending: either the leaver
 *      sees the sleeper and wakes it, or the sleeper sees the decrement.
 *      Leaving wakes nobody when nobody sleeps.
 * (B3) The slow path of wait_barrier() counts itself under conf->lock,
 *      after seeing barrier[idx] == 0 and !frozen there; a raise or
 *      freeze then takes the lock after it and sees the increment.
 *
 * allow_barrier() runs in an RCU read-side section, and raid1_free()
 * waits for a grace period, so the leaver's look at conf->wait cannot
 * touch a conf that a quiesce seeing the drain let the core free.
 */

/* Slow path of wait_barrier(): our nr_pending increment is undone here. */
static void wait_barrier_slow(struct r1conf *conf, unsigned int idx)
{
	spin_lock_irq(&conf->lock);
	conf->nr_waiting[idx]++;
	atomic_dec(&conf->nr_pending[idx]);
	/* raise/freeze/quiesce may wait for that decrement */
	wake_up(&conf->wait);
	wait_event_lock_irq(conf->wait,
			    !conf->frozen && !atomic_read(&conf->barrier[idx]),
			    conf->lock);
	atomic_inc(&conf->nr_pending[idx]);	/* (B3) */
	conf->nr_waiting[idx]--;
	/* raise_barrier() may wait for nr_waiting to reach zero */
	wake_up(&conf->wait);
	spin_unlock_irq(&conf->lock);
}

/*
 * Normal IO enters @idx; may sleep, unless @nowait: then false, and
 * nothing is counted, when it would.
 */
static bool wait_barrier(struct r1conf *conf, unsigned int idx, bool nowait)
{
	atomic_inc(&conf->nr_pending[idx]);
	smp_mb__after_atomic();			/* (B1) */
	if (likely(!READ_ONCE(conf->frozen) &&
		   !atomic_read(&conf->barrier[idx])))
		return true;
	if (nowait) {
		atomic_dec(&conf->nr_pending[idx]);
		/* raise/freeze/quiesce may wait for that decrement */
		wake_up(&conf->wait);
		return false;
	}
	wait_barrier_slow(conf, idx);
	return true;
}

/*
 * Normal IO leaves @idx; any context.  Do not touch conf afterwards.
 * Runs on every completion: no lock, and the wait queue's own lock only
 * when somebody sleeps there (B2).
 */
static void allow_barrier(struct r1conf *conf, unsigned int idx)
{
	rcu_read_lock();
	atomic_dec(&conf->nr_pending[idx]);
	if (wq_has_sleeper(&conf->wait))	/* (B2) */
		wake_up(&conf->wait);
	rcu_read_unlock();
}

/*
 * A sync request takes @idx exclusively from normal IO; may sleep.  At
 * most R1_SYNC_DEPTH sync requests hold barriers at a time, in whichever
 * buckets: the resync window, which a bucket smaller than the window
 * could not bound by itself.
 */
static void raise_barrier(struct r1conf *conf, unsigned int idx)
{
	spin_lock_irq(&conf->lock);
	wait_event_lock_irq(conf->wait,
			    !conf->frozen && !conf->nr_waiting[idx] &&
			    conf->sync_pending < R1_SYNC_DEPTH,
			    conf->lock);
	atomic_inc(&conf->barrier[idx]);
	conf->sync_pending++;
	smp_mb__after_atomic();			/* (B1) */
	wait_event_lock_irq(conf->wait, !atomic_read(&conf->nr_pending[idx]),
			    conf->lock);
	spin_unlock_irq(&conf->lock);
}

/*
 * A sync request leaves @idx; any context.  Its buffers @rs go back to
 * conf->sync_cache in the same critical section that drops sync_pending
 * (or, with the cache full, to the mempool just before), so that
 * raid1_close_sync(), which waits under conf->lock for sync_pending to
 * reach zero, finds every cached buffer back when it empties the cache.
 */
static void lower_barrier(struct r1conf *conf, unsigned int idx,
			  struct r1sync *rs)
{
	unsigned long flags;

	spin_lock_irqsave(&conf->lock, flags);
	if (conf->sync_ncached < R1_SYNC_CACHE_MAX) {
		list_add(&rs->retry, &conf->sync_cache);
		conf->sync_ncached++;
		rs = NULL;
	}
	atomic_dec(&conf->barrier[idx]);
	conf->sync_pending--;
	wake_up(&conf->wait);
	spin_unlock_irqrestore(&conf->lock, flags);
	if (rs)
		mempool_free(rs, conf->sync_pool);
}

/*
 * The worker takes @idx for a read-error fixup: blocks new normal IO and
 * waits until all IO still pending there is parked for the worker.
 */
static void freeze_bucket(struct r1conf *conf, unsigned int idx)
{
	spin_lock_irq(&conf->lock);
	atomic_inc(&conf->barrier[idx]);
	smp_mb__after_atomic();			/* (B1) */
	wait_event_lock_irq(conf->wait,
			    atomic_read(&conf->nr_pending[idx]) ==
			    conf->nr_queued[idx],
			    conf->lock);
	spin_unlock_irq(&conf->lock);
}

static void thaw_bucket(struct r1conf *conf, unsigned int idx)
{
	spin_lock_irq(&conf->lock);
	atomic_dec(&conf->barrier[idx]);
	wake_up(&conf->wait);
	spin_unlock_irq(&conf->lock);
}

/* Normal IO pending in any bucket (quiesce only: reads every bucket). */
static bool r1_any_pending(struct r1conf *conf)
{
	int i;

	for (i = 0; i < R1_NR_BUCKETS; i++)
		if (atomic_read(&conf->nr_pending[i]))
			return true;
	return false;
}

/* ---- normal IO ------------------------------------------------------ */

static void r1_kick(struct r1conf *conf)
{
	queue_work(conf->wq, &conf->work);
}

/* Park @r1 for the worker; any context. */
static void r1_queue_retry(struct r1bio *r1)
{
	struct r1conf *conf = r1->conf;
	unsigned long flags;

	spin_lock_irqsave(&conf->lock, flags);
	list_add_tail(&r1->retry, &conf->retry);
	conf->nr_queued[r1->bucket]++;
	/* freeze_bucket() waits for nr_pending == nr_queued */
	wake_up(&conf->wait);
	spin_unlock_irqrestore(&conf->lock, flags);
	r1_kick(conf);
}

/* The worker is done with a parked @r1 (it finishes or is reissued). */
static void r1_unqueue(struct r1bio *r1)
{
	struct r1conf *conf = r1->conf;

	spin_lock_irq(&conf->lock);
	conf->nr_queued[r1->bucket]--;
	spin_unlock_irq(&conf->lock);
}

/* ---- write-behind --------------------------------------------------- */

/*
 * With a bitmap whose backlog is not zero (md_bitmap_backlog(),
 * bitmap/backlog, write_behind in the bitmap superblock), a write that
 * goes to write-mostly members and to at least one other In_sync mirror
 * completes to the caller once every clone to the other mirrors has
 * succeeded, while the clones to the write-mostly members may still be
 * in flight: a behind write.  At most backlog writes are behind at
 * once; a write finding that many goes to every mirror synchronously,
 * as does one whose copy cannot be allocated.
 *
 * What keeps that safe:
 *
 * - The caller may reuse its pages once its bio completed, so the
 *   behind clones carry a copy (r1bio.behind: a bio from behind_bs with
 *   pages of our own), made before any clone is submitted and freed
 *   when the last behind clone completes.
 * - Everything else the write holds stays held until its last clone is
 *   done (r1_finish()): the bitmap count of its chunks, so their bits
 *   stay set and a crash before the behind clones landed resyncs the
 *   range, from a mirror that is not write-mostly (r1_sync_pick()); its
 *   md_write_start(), so the array is not marked clean under it; its
 *   bucket, so sync requests and fixups wait for it and quiesce drains
 *   it; its member pins.  Only the master bio completes early
 *   (R1B_RETURNED).
 * - The caller may issue IO to the same sectors as soon as the write
 *   completed to it.  Every behind write is in conf->behind_tree from
 *   before its clones are submitted until r1_finish().  A write that
 *   overlaps one already completed to its caller, whose behind clones
 *   are still in flight, waits for them before it enters its bucket:
 *   two writes to the same sectors reach a write-mostly member in the
 *   order the caller saw them complete.  A read sent to a mirror with
 *   such a clone in flight over its range waits for it
 *   (mirrors[].behind says whether to look at all); one sent to a
 *   mirror whose behind clone failed is sent elsewhere, or fails if no
 *   mirror is left, since that mirror misses the data.  Reads use a
 *   write-mostly member only when no other mirror can serve them.
 *   Behind writes not yet completed to their caller are concurrent
 *   with the new IO and do not order it.  The waits happen in the
 *   submitter (or in the worker reissuing a read) and end with a
 *   member's completion, which needs neither the worker nor a bucket.
 * - Completion: r1bio.remaining counts every clone, as for any write,
 *   sync_remaining the clones not sent behind, behind_remaining the
 *   others.  A completion drops its own kind's count first and
 *   remaining last, as does the submitter for its bias on the first
 *   two, so the early completion (by whoever drops sync_remaining to
 *   zero) is over before the last reference can go.  It completes the
 *   master only if an In_sync mirror took the write (R1B_FAST_OK), no
 *   clone failed (R1B_ERRORS) and no member failure awaits its
 *   superblock write; otherwise the master completes at the end, as
 *   without write-behind.
 * - A failed behind clone is handled like any failed clone: the worker
 *   records the range in the member's bad-block log or fails the
 *   member, before r1_finish() ends the bitmap count.
 */

/* r1_behind_check() */
enum {
	R1W_CLEAR,		/* go ahead */
	R1W_WAIT,		/* a behind clone is in flight there */
	R1W_AVOID,		/* (reads) a behind clone failed there */
};

/*
 * May IO to [@sector, +@sectors) go ahead?  @disk < 0: a write, which
 * waits for behind clones in flight to any mirror; else a read from
 * mirror @disk.  Only behind writes completed to their caller count.
 */
static int r1_behind_check(struct r1conf *conf, sector_t sector,
			   unsigned int sectors, int disk)
{
	unsigned long last = sector + sectors - 1, flags;
	struct interval_tree_node *node;
	int ret = R1W_CLEAR;

	spin_lock_irqsave(&conf->behind_lock, flags);
	for (node = interval_tree_iter_first(&conf->behind_tree, sector, last);
	     node && ret != R1W_WAIT;
	     node = interval_tree_iter_next(node, sector, last)) {
		struct r1bio *b = container_of(node, struct r1bio, behind_node);

		if (!test_bit(R1B_RETURNED, &b->flags))
			continue;
		/*
		 * Pairs with the full barriers between the submitter's
		 * R1S_ISSUED stores and test_and_set_bit(R1B_RETURNED).
		 */
		smp_rmb();
		if (disk < 0) {
			if (atomic_read(&b->behind_remaining))
				ret = R1W_WAIT;
			continue;
		}
		if (!b->slots[disk].behind)
			continue;
		switch (READ_ONCE(b->slots[disk].state)) {
		case R1S_OK:
			break;
		case R1S_ERR:
		case R1S_BADBLOCK:
			ret = R1W_AVOID;
			break;
		default:		/* R1S_ISSUED */
			ret = R1W_WAIT;
		}
	}
	spin_unlock_irqrestore(&conf->behind_lock, flags);
	return ret;
}

/* Is the answer for @r1 on @disk in *@ret final (not R1W_WAIT)? */
static bool r1_behind_settled(struct r1conf *conf, struct r1bio *r1,
			      int disk, int *ret)
{
	*ret = r1_behind_check(conf, r1->sector, r1->sectors, disk);
	return *ret != R1W_WAIT;
}

/*
 * A write waits here before it enters its bucket; may sleep, unless
 * @nowait: then false when it would.
 */
static bool r1_behind_write_wait(struct r1conf *conf, struct r1bio *r1,
				 bool nowait)
{
	int ret;

	if (!r1->sectors || !READ_ONCE(conf->behind_writes))
		return true;
	if (nowait)
		return r1_behind_settled(conf, r1, -1, &ret);
	wait_event(conf->behind_wait, r1_behind_settled(conf, r1, -1, &ret));
	return true;
}

/*
 * A read chose mirror @disk (pinned): wait while a behind clone is in
 * flight there over its range.  False if one failed there.  May sleep.
 */
static bool r1_behind_read_ok(struct r1conf *conf, struct r1bio *r1,
			      int disk)
{
	int ret;

	if (!atomic_read(&conf->mirrors[disk].behind))
		return true;
	wait_event(conf->behind_wait,
		   r1_behind_settled(conf, r1, disk, &ret));
	return ret == R1W_CLEAR;
}

/* Free a payload copy with its pages; any context. */
static void r1_behind_free(struct bio *copy)
{
	int i;

	for (i = 0; i < copy->bi_vcnt; i++)
		__free_page(copy->bi_io_vec[i].bv_page);
	bio_put(copy);
}

/*
 * Copy the payload of @r1 into pages of our own, for the clones that go
 * behind.  NULL when memory is short: the write is then synchronous.
 * The bucket split keeps a request within BIO_MAX_VECS pages.
 */
static struct bio *r1_behind_copy(struct r1conf *conf, struct r1bio *r1)
{
	struct bio *master = r1->master;
	unsigned int bytes = r1->sectors << SECTOR_SHIFT;
	unsigned int nr = DIV_ROUND_UP(bytes, PAGE_SIZE);
	unsigned int done = 0, i;
	struct bvec_iter iter;
	struct bio_vec bv;
	struct bio *copy;

	BUILD_BUG_ON(DIV_ROUND_UP(R1_BUCKET_SECTORS << SECTOR_SHIFT,
				  PAGE_SIZE) > BIO_MAX_VECS);
	copy = bio_alloc_bioset(NULL, nr, master->bi_opf,
				GFP_NOWAIT | __GFP_NOWARN, &conf->behind_bs);
	if (!copy)
		return NULL;
	copy->bi_ioprio = master->bi_ioprio;
	copy->bi_iter.bi_sector = r1->sector;
	for (i = 0; i < nr; i++) {
		struct page *page;

		/* REQ_NOWAIT: no reclaim; without pages it is synchronous */
		page = alloc_page((master->bi_opf & REQ_NOWAIT ? GFP_NOWAIT :
				   GFP_NOIO | __GFP_NORETRY) | __GFP_NOWARN);
		if (!page) {
			r1_behind_free(copy);
			return NULL;
		}
		__bio_add_page(copy, page,
			       min_t(unsigned int, bytes - i * PAGE_SIZE,
				     PAGE_SIZE), 0);
	}
	bio_for_each_segment(bv, master, iter) {
		char *src = bvec_kmap_local(&bv);
		unsigned int off = 0;

		while (off < bv.bv_len) {
			unsigned int pg = done >> PAGE_SHIFT;
			unsigned int in = offset_in_page(done);
			unsigned int n = min_t(unsigned int, bv.bv_len - off,
					       PAGE_SIZE - in);

			memcpy(page_address(copy->bi_io_vec[pg].bv_page) + in,
			       src + off, n);
			off += n;
			done += n;
		}
		kunmap_local(src);
	}
	return copy;
}

/*
 * Make @r1 (pinned members in its slots, not submitted yet) a behind
 * write if it may be one: returns the number of its clones that go
 * behind, each with slots[].behind set, or 0 for a synchronous write.
 * The copy is of the data only: the array offers no integrity profile
 * and no inline encryption, so the master carries neither.
 */
static int r1_behind_start(struct r1conf *conf, struct r1bio *r1)
{
	struct md_bitmap *bm = conf->mddev->bitmap;
	struct bio *master = r1->master;
	int i, wm = 0, fast = 0;
	unsigned int limit, n;

	/* no write-behind with a layout, as in-tree raid10 */
	if (!bm || bio_op(master) != REQ_OP_WRITE || !r1->sectors ||
	    conf->layout)
		return 0;
	limit = md_bitmap_backlog(bm);
	if (READ_ONCE(conf->behind_writes) >= limit)
		return 0;
	for (i = 0; i < r1_nslots(conf); i++) {
		struct md_rdev *rdev = r1->slots[i].rdev;

		if (!rdev)
			continue;
		if (test_bit(RD_WRITE_MOSTLY, &rdev->flags)) {
			r1->slots[i].behind = true;
			wm++;
		} else if (md_rdev_working(rdev)) {
			fast++;
		}
	}
	if (!wm || !fast)
		goto sync;
	r1->behind = r1_behind_copy(conf, r1);
	if (!r1->behind)
		goto sync;

	spin_lock_irq(&conf->behind_lock);
	n = conf->behind_writes + 1;
	if (n > limit) {
		spin_unlock_irq(&conf->behind_lock);
		r1_behind_free(r1->behind);
		r1->behind = NULL;
		goto sync;
	}
	WRITE_ONCE(conf->behind_writes, n);
	r1->behind_node.start = r1->sector;
	r1->behind_node.last = r1->sector + r1->sectors - 1;
	interval_tree_insert(&r1->behind_node, &conf->behind_tree);
	for (i = 0; i < r1_nslots(conf); i++)
		if (r1->slots[i].behind)
			atomic_inc(&conf->mirrors[i].behind);
	spin_unlock_irq(&conf->behind_lock);

	md_bitmap_behind_seen(bm, n);
	atomic_set(&r1->behind_remaining, wm);
	__set_bit(R1B_BEHIND, &r1->flags);
	return wm;

sync:
	for (i = 0; i < r1_nslots(conf); i++)
		r1->slots[i].behind = false;
	return 0;
}

/* Complete the master bio of @r1 early (a behind write); once. */
static void r1_behind_return(struct r1bio *r1)
{
	struct bio *master = r1->master;

	/* full barrier: r1_behind_check() sees it before the caller can */
	if (test_and_set_bit(R1B_RETURNED, &r1->flags))
		return;
	md_io_end(r1->conf->mddev, master, r1->start);
	bio_endio(master);
}

/*
 * Every clone of behind write @r1 that did not go behind is done (the
 * last sync_remaining reference): complete the master now if that is
 * safe.  Any context.
 */
static void r1_behind_ack(struct r1bio *r1)
{
	if (!test_bit(R1B_FAST_OK, &r1->flags) ||
	    test_bit(R1B_ERRORS, &r1->flags) ||
	    md_fail_pending(r1->conf->mddev))
		return;
	r1_behind_return(r1);
}

/*
 * The last behind clone of @r1 completed (and was put): free the copy
 * and wake IO waiting for it.  Any context; @r1 still holds its bucket.
 */
static void r1_behind_clones_done(struct r1bio *r1)
{
	struct r1conf *conf = r1->conf;

	r1_behind_free(r1->behind);
	r1->behind = NULL;
	/*
	 * Full barrier in wq_has_sleeper(): the slot states and the count,
	 * stored before, are seen by a waiter this misses; one it sees is
	 * woken.
	 */
	if (wq_has_sleeper(&conf->behind_wait))
		wake_up(&conf->behind_wait);
}

/* Take behind write @r1 out of the tree (r1_finish()); any context. */
static void r1_behind_end(struct r1bio *r1)
{
	struct r1conf *conf = r1->conf;
	unsigned long flags;
	int i;

	spin_lock_irqsave(&conf->behind_lock, flags);
	interval_tree_remove(&r1->behind_node, &conf->behind_tree);
	WRITE_ONCE(conf->behind_writes, conf->behind_writes - 1);
	for (i = 0; i < r1_nslots(conf); i++)
		if (r1->slots[i].behind)
			atomic_dec(&conf->mirrors[i].behind);
	spin_unlock_irqrestore(&conf->behind_lock, flags);
}

/* ---- completion ----------------------------------------------------- */

/*
 * Complete the array bio of @r1 (unless a behind write completed it
 * already) and release everything it holds.
 */
static void r1_finish(struct r1bio *r1, blk_status_t status)
{
	struct r1conf *conf = r1->conf;
	struct mddev *mddev = conf->mddev;
	struct bio *master = r1->master;
	unsigned int idx = r1->bucket;
	struct md_io_stamp start = r1->start;
	bool wstarted = test_bit(R1B_WSTARTED, &r1->flags);
	/* an early completion is over before the last reference goes */
	bool returned = test_bit(R1B_RETURNED, &r1->flags);

	/*
	 * After md_error() on every mirror whose clone failed (the retry
	 * worker calls us then): the bitmap sees the array degraded
	 * before this chunk's count can reach 0.
	 */
	if (test_bit(R1B_BITMAP, &r1->flags))
		md_bitmap_endwrite(mddev->bitmap, r1->sector, r1->sectors);
	if (test_bit(R1B_BEHIND, &r1->flags))
		r1_behind_end(r1);
	mempool_free(r1, conf->r1bio_pool);
	if (!returned) {
		if (status)
			master->bi_status = status;
		md_io_end(mddev, master, start);
		bio_endio(master);
	}
	/* after the last member: the array stays dirty under a behind write */
	if (wstarted)
		md_write_end(mddev);
	/* last: once the bucket drains, quiesce/free may release conf */
	allow_barrier(conf, idx);
}

/*
 * An r1bio for @bio, accounted (md_io_start()) unless @bio is REQ_NOWAIT:
 * that one is accounted (r1_nowait_account()) only once nothing can turn
 * it away any more, so a bio ended with BLK_STS_AGAIN was never counted.
 * Other bios wait for a pool element, which IO in flight gives back; a
 * REQ_NOWAIT one takes what is there at once or gets NULL.
 */
static struct r1bio *r1_alloc(struct r1conf *conf, struct bio *bio)
{
	bool nowait = bio->bi_opf & REQ_NOWAIT;
	struct r1bio *r1;
	int i;

	r1 = mempool_alloc(conf->r1bio_pool, nowait ? GFP_NOWAIT : GFP_NOIO);
	if (!r1)
		return NULL;
	memset(r1, 0, struct_size(r1, slots, r1_nslots(conf)));
	r1->conf = conf;
	r1->master = bio;
	r1->sector = bio->bi_iter.bi_sector;
	r1->sectors = bio_sectors(bio);
	r1->bucket = r1_bucket(r1->sector);
	r1->read_disk = -1;
	/* an empty flush goes to every mirror */
	if (conf->layout && r1->sectors) {
		conf->layout->map(conf, r1->sector, r1->slots);
		for (i = 0; i < conf->raid_disks; i++)
			r1->slots[i + conf->raid_disks].dev = r1->slots[i].dev;
	} else {
		for (i = 0; i < r1_nslots(conf); i++)
			r1->slots[i].dev = r1->sector;
	}
	INIT_LIST_HEAD(&r1->retry);
	if (!nowait)
		r1->start = md_io_start(conf->mddev, bio);
	return r1;
}

static void r1_nowait_account(struct r1bio *r1)
{
	if (r1->master->bi_opf & REQ_NOWAIT)
		r1->start = md_io_start(r1->conf->mddev, r1->master);
}

static struct bio *r1_clone(struct r1bio *r1, int disk, bio_end_io_t *endio)
{
	struct r1conf *conf = r1->conf;
	struct md_rdev *rdev = r1->slots[disk].rdev;
	struct r1clone *rc;
	struct bio *bio;

	/* a bioset with a reserve: completions in flight refill it */
	bio = bio_alloc_clone(rdev->bdev, r1->slots[disk].behind ?
			      r1->behind : r1->master, GFP_NOIO,
			      &conf->clone_bs);
	/*
	 * Never REQ_NOWAIT on a member: its BLK_STS_AGAIN would be taken
	 * for a member error (a failed member, a bad block recorded), and
	 * a write some mirrors took and one refused cannot be undone.  The
	 * member may make the submitter wait for a request slot, as the
	 * array's nowait promise covers md's own waits only.
	 */
	bio->bi_opf &= ~REQ_NOWAIT;
	rc = container_of(bio, struct r1clone, bio);
	rc->r1 = r1;
	rc->disk = disk;
	bio->bi_iter.bi_sector = r1->slots[disk].dev + rdev->data_offset;
	bio->bi_end_io = endio;
	/*
	 * failfast: no driver retries while another mirror can stand in
	 * (writes to a write-mostly member excepted, as in-tree); a failure
	 * then fails the member (r1_handle_*_error) instead of being
	 * repaired or recorded.
	 */
	r1->slots[disk].failfast = test_bit(RD_FAILFAST, &rdev->flags) &&
				   !(test_bit(R1B_WRITE, &r1->flags) &&
				     test_bit(RD_WRITE_MOSTLY, &rdev->flags)) &&
				   r1_copies_working(conf, r1) > 1;
	if (r1->slots[disk].failfast)
		bio->bi_opf |= REQ_FAILFAST_DEV;
	r1->slots[disk].state = R1S_ISSUED;
	return bio;
}

/*
 * Choose the mirror to read @r1 from, skipping slots that already failed
 * it; pins the member and records it in r1->slots.  Returns -1 if none.
 */
static int read_balance(struct r1conf *conf, struct r1bio *r1)
{
	sector_t sector = r1->sector;
	bool unsynced = READ_ONCE(conf->mddev->resync_offset) <
			sector + r1->sectors;
	int seq = -1, idle = -1, least = -1, wmostly = -1, disk;
	sector_t idle_dist = MD_MAX_SECTOR;
	int least_pending = INT_MAX;
	struct md_rdev *rdev;
	sector_t first_bad;
	int i, bad_sectors;

	rcu_read_lock();
	for (i = 0; i < r1_nslots(conf); i++) {
		sector_t head, dist, dev = r1->slots[i].dev;
		int pending;

		if (r1->slots[i].state == R1S_ERR || dev == R1_NO_COPY)
			continue;
		rdev = rcu_dereference(conf->mirrors[i].rdev);
		if (!md_rdev_readable(rdev, dev, r1->sectors))
			continue;
		/* a recorded bad block: that mirror's copy is not trusted */
		if (md_rdev_is_badblock(rdev, dev, r1->sectors,
					&first_bad, &bad_sectors))
			continue;
		if (test_bit(RD_WRITE_MOSTLY, &rdev->flags)) {
			if (wmostly < 0)
				wmostly = i;
			continue;
		}
		/* mirrors may differ where resync has not run: use the first */
		if (unsynced) {
			seq = i;
			break;
		}
		head = READ_ONCE(conf->mirrors[i].head);
		if (head == dev) {
			seq = i;
			break;
		}
		dist = head > dev ? head - dev : dev - head;
		pending = atomic_read(&rdev->nr_pending);
		if (!pending && dist < idle_dist) {
			idle = i;
			idle_dist = dist;
		}
		if (pending < least_pending) {
			least = i;
			least_pending = pending;
		}
	}
	if (seq >= 0)
		disk = seq;
	else if (idle >= 0)
		disk = idle;
	else if (least >= 0)
		disk = least;
	else
		disk = wmostly;
	if (disk >= 0) {
		rdev = rcu_dereference(conf->mirrors[disk].rdev);
		atomic_inc(&rdev->nr_pending);
		r1->slots[disk].rdev = rdev;
		WRITE_ONCE(conf->mirrors[disk].head,
			   r1->slots[disk].dev + r1->sectors);
	}
	rcu_read_unlock();
	r1->read_disk = disk;
	return disk;
}

static void r1_read_endio(struct bio *bio)
{
	struct r1clone *rc = container_of(bio, struct r1clone, bio);
	struct r1bio *r1 = rc->r1;
	struct md_rdev *rdev = r1->slots[rc->disk].rdev;
	blk_status_t status = bio->bi_status;

	bio_put(bio);
	if (!status) {
		md_rdev_unpin(rdev);
		r1_finish(r1, BLK_STS_OK);
		return;
	}
	/* keep rdev pinned: the worker rewrites the range on it */
	r1->slots[rc->disk].state = R1S_ERR;
	r1_queue_retry(r1);
}

#define R1_READ_NONE		-1	/* no mirror can serve it */
#define R1_READ_WOULD_BLOCK	-2	/* @nowait, and a wait was due */

/*
 * The mirror to read @r1 from, pinned, or R1_READ_NONE.  A behind write
 * in flight over the range there is waited for, unless @nowait: then
 * R1_READ_WOULD_BLOCK, with nothing pinned.
 */
static int r1_pick_read(struct r1bio *r1, bool nowait)
{
	struct r1conf *conf = r1->conf;
	int disk;

	for (;;) {
		disk = read_balance(conf, r1);
		if (disk < 0)
			return R1_READ_NONE;
		if (nowait && atomic_read(&conf->mirrors[disk].behind) &&
		    r1_behind_check(conf, r1->sector, r1->sectors,
				    disk) == R1W_WAIT) {
			md_rdev_unpin(r1->slots[disk].rdev);
			r1->slots[disk].rdev = NULL;
			return R1_READ_WOULD_BLOCK;
		}
		if (r1_behind_read_ok(conf, r1, disk))
			return disk;
		/* a behind write failed there: that mirror misses the data */
		r1->slots[disk].state = R1S_ERR;
		md_rdev_unpin(r1->slots[disk].rdev);
	}
}

static void r1_read_issue(struct r1bio *r1, int disk)
{
	submit_bio_noacct(r1_clone(r1, disk, r1_read_endio));
}

/* Reissue a read from the worker; false if no mirror is left. */
static bool r1_submit_read(struct r1bio *r1)
{
	int disk = r1_pick_read(r1, false);

	if (disk < 0)
		return false;
	r1_read_issue(r1, disk);
	return true;
}

/* False: a REQ_NOWAIT @bio would have waited, and ended with AGAIN. */
static bool r1_read_request(struct r1conf *conf, struct bio *bio)
{
	bool nowait = bio->bi_opf & REQ_NOWAIT;
	struct r1bio *r1 = r1_alloc(conf, bio);
	int disk;

	if (!r1)
		goto would_block;
	/* allocate before counting: the pool refills from completions */
	if (!wait_barrier(conf, r1->bucket, nowait))
		goto free;
	disk = r1_pick_read(r1, nowait);
	if (disk == R1_READ_WOULD_BLOCK) {
		allow_barrier(conf, r1->bucket);
		goto free;
	}
	r1_nowait_account(r1);
	if (disk < 0) {
		pr_err_ratelimited("md/%s:%s: no mirror can read sector %llu\n",
				   conf->name, mdname(conf->mddev),
				   (unsigned long long)r1->sector);
		r1_finish(r1, BLK_STS_IOERR);
		return true;
	}
	r1_read_issue(r1, disk);
	return true;

free:
	/* only REQ_NOWAIT gets here: not accounted yet */
	mempool_free(r1, conf->r1bio_pool);
would_block:
	bio_wouldblock_error(bio);
	return false;
}

/* What a write whose clones are all done (or handled) returns. */
static blk_status_t r1_write_status(struct r1bio *r1)
{
	int i;

	if (test_bit(R1B_UPTODATE, &r1->flags))
		return BLK_STS_OK;
	for (i = 0; i < r1_nslots(r1->conf); i++)
		if (r1->slots[i].state == R1S_NOTSUPP)
			return BLK_STS_NOTSUPP;
	return BLK_STS_IOERR;
}

/*
 * Hold a finished write on conf->bb_wait until the superblocks record
 * the member failure that is pending (MD_SB_FAIL_PENDING): counted in
 * nr_queued, as parked requests are, since it does no IO while it
 * waits.  r1_bb_wait_done() completes it.  Any context.
 */
static void r1_hold_for_sb(struct r1bio *r1)
{
	struct r1conf *conf = r1->conf;
	unsigned long flags;

	spin_lock_irqsave(&conf->lock, flags);
	list_add_tail(&r1->retry, &conf->bb_wait);
	conf->nr_queued[r1->bucket]++;
	/* freeze_bucket() waits for nr_pending == nr_queued */
	wake_up(&conf->wait);
	spin_unlock_irqrestore(&conf->lock, flags);
	md_wakeup_thread(conf->mddev);
}

/* All clones of a write are done. */
static void r1_write_done(struct r1bio *r1)
{
	if (test_bit(R1B_ERRORS, &r1->flags)) {
		r1_queue_retry(r1);
		return;
	}
	/*
	 * A member failed and the superblocks do not say so yet: if this
	 * write left it out, acknowledging it now could lose it to a power
	 * cut.  Full barrier before: the last remaining count; see (F1).
	 */
	if (!test_bit(R1B_FLUSH, &r1->flags) &&
	    md_fail_pending(r1->conf->mddev)) {
		r1_hold_for_sb(r1);
		return;
	}
	r1_finish(r1, r1_write_status(r1));
}

/*
 * Drop the references of one clone (@behind: one sent behind) or of the
 * submitter's bias on @r1; see "write-behind" for the order.
 */
static void r1_write_put(struct r1bio *r1, bool behind)
{
	if (test_bit(R1B_BEHIND, &r1->flags)) {
		if (behind) {
			if (atomic_dec_and_test(&r1->behind_remaining))
				r1_behind_clones_done(r1);
		} else if (atomic_dec_and_test(&r1->sync_remaining)) {
			r1_behind_ack(r1);
		}
	}
	/*
	 * Full barrier: orders our slot store before the count reaches
	 * zero; pairs with the same barrier in the last completer, which
	 * then reads every slot in r1_write_done().
	 */
	if (atomic_dec_and_test(&r1->remaining))
		r1_write_done(r1);
}

static void r1_write_endio(struct bio *bio)
{
	struct r1clone *rc = container_of(bio, struct r1clone, bio);
	struct r1bio *r1 = rc->r1;
	struct r1slot *slot = &r1->slots[rc->disk];
	struct md_rdev *rdev = slot->rdev;
	blk_status_t status = bio->bi_status;
	/* the master may be completed already (a behind write) */
	enum req_op op = bio_op(bio);
	bool keep_pin = false;
	u8 state;

	bio_put(bio);
	if (!status) {
		state = R1S_OK;
		if (md_rdev_working(rdev) ||
		    test_bit(R1B_FLUSH, &r1->flags))
			set_bit(R1B_UPTODATE, &r1->flags);
		if (test_bit(R1B_BEHIND, &r1->flags) && !slot->behind &&
		    md_rdev_working(rdev))
			set_bit(R1B_FAST_OK, &r1->flags);
	} else if (status == BLK_STS_NOTSUPP && op != REQ_OP_WRITE) {
		state = R1S_NOTSUPP;
	} else if (test_bit(R1B_FLUSH, &r1->flags)) {
		state = R1S_ERR;
	} else {
		state = R1S_ERR;
		set_bit(R1B_ERRORS, &r1->flags);
		/* the worker calls md_error() on it, then unpins */
		keep_pin = true;
	}
	/* read by r1_behind_check() without our ordering */
	WRITE_ONCE(slot->state, state);
	if (!keep_pin)
		md_rdev_unpin(rdev);
	r1_write_put(r1, slot->behind);
}

/*
 * Count a write in the bitmap, its chunks' bits on disk before any mirror
 * is written: waits for that bitmap write, unless @nowait: then false
 * (nothing counted) when the bits are not on disk yet.  Their write is
 * under way then, so a retry soon finds them there.
 */
static bool r1_bitmap_start(struct md_bitmap *bm, struct r1bio *r1,
			    bool nowait)
{
	if (!nowait) {
		md_bitmap_startwrite(bm, r1->sector, r1->sectors);
		return true;
	}
	if (!md_bitmap_startwrite_nowait(bm, r1->sector, r1->sectors))
		return true;
	md_bitmap_endwrite(bm, r1->sector, r1->sectors);
	return false;
}

/* False: a REQ_NOWAIT @bio would have waited, and ended with AGAIN. */
static bool r1_write_request(struct r1conf *conf, struct bio *bio)
{
	bool discard = bio_op(bio) == REQ_OP_DISCARD;
	bool nowait = bio->bi_opf & REQ_NOWAIT;
	struct blk_plug plug;
	struct md_rdev *rdev;
	struct r1bio *r1;
	int i, n = 0, nbehind;

	r1 = r1_alloc(conf, bio);
	if (!r1) {
		bio_wouldblock_error(bio);
		return false;
	}
	__set_bit(R1B_WRITE, &r1->flags);
	if (bio_sectors(bio)) {
		if (!md_write_start(conf->mddev, bio))
			goto would_block;
		__set_bit(R1B_WSTARTED, &r1->flags);
		if (conf->mddev->bitmap) {
			if (!r1_bitmap_start(conf->mddev->bitmap, r1, nowait))
				goto would_block;
			__set_bit(R1B_BITMAP, &r1->flags);
		}
	} else {
		__set_bit(R1B_FLUSH, &r1->flags);
	}
	/* not inside the bucket: a behind clone needs nothing to finish */
	if (!r1_behind_write_wait(conf, r1, nowait) ||
	    !wait_barrier(conf, r1->bucket, nowait))
		goto would_block;
	r1_nowait_account(r1);

	rcu_read_lock();
	for (i = 0; i < r1_nslots(conf); i++) {
		rdev = rcu_dereference(conf->mirrors[i].rdev);
		if (!md_rdev_alive(rdev) || r1->slots[i].dev == R1_NO_COPY)
			continue;
		if (discard && !bdev_max_discard_sectors(rdev->bdev))
			continue;
		atomic_inc(&rdev->nr_pending);
		r1->slots[i].rdev = rdev;
		n++;
	}
	rcu_read_unlock();
	if (!n && discard) {
		r1_finish(r1, BLK_STS_NOTSUPP);
		return true;
	}

	nbehind = r1_behind_start(conf, r1);
	/* the bias keeps r1 alive until every clone is submitted */
	atomic_set(&r1->remaining, n + 1);
	atomic_set(&r1->sync_remaining, n - nbehind + 1);
	blk_start_plug(&plug);
	for (i = 0; i < r1_nslots(conf); i++)
		if (r1->slots[i].rdev)
			submit_bio_noacct(r1_clone(r1, i, r1_write_endio));
	blk_finish_plug(&plug);
	r1_write_put(r1, false);
	return true;

would_block:
	/* only REQ_NOWAIT gets here, before it was accounted */
	if (test_bit(R1B_BITMAP, &r1->flags))
		md_bitmap_endwrite(conf->mddev->bitmap, r1->sector,
				   r1->sectors);
	if (test_bit(R1B_WSTARTED, &r1->flags))
		md_write_end(conf->mddev);
	mempool_free(r1, conf->r1bio_pool);
	bio_wouldblock_error(bio);
	return false;
}

static bool r1_handle_bio(struct r1conf *conf, struct bio *bio)
{
	if (op_is_write(bio_op(bio)))
		return r1_write_request(conf, bio);
	return r1_read_request(conf, bio);
}

/*
 * Pieces are handled here rather than resubmitted: a resubmitted
 * remainder would re-enter the core, which may hold it while suspending
 * and then wait forever for the parent.  Waiting on a later piece's
 * bucket is safe: nothing that holds that barrier waits for earlier
 * pieces, and the core quiesces only once no array bio is in flight.
 */
static void raid1_make_request(struct mddev *mddev, struct bio *bio)
{
	struct r1conf *conf = mddev->private;

	for (;;) {
		sector_t room = r1_room(conf, bio->bi_iter.bi_sector);
		struct bio *split;

		if (bio_sectors(bio) <= room)
			break;
		/* a bioset with a reserve: pieces in flight refill it */
		split = bio_split(bio, room, GFP_NOIO, &conf->split_bs);
		bio_chain(split, bio);
		/*
		 * A REQ_NOWAIT piece turned away: its AGAIN reaches the
		 * whole bio through the chain, so the rest is not tried.
		 * Pieces already on their way still complete (the block
		 * layer's own splits of a nowait bio behave so too).
		 */
		if (!r1_handle_bio(conf, split)) {
			bio_wouldblock_error(bio);
			return;
		}
	}
	r1_handle_bio(conf, bio);
}

/* ---- the retry worker ----------------------------------------------- */

/* Synchronous one-page IO on @rdev at array sector @sector. */
static bool r1_page_io(struct md_rdev *rdev, sector_t sector,
		       unsigned int sectors, struct page *page, blk_opf_t opf)
{
	struct bio_vec bvec;
	struct bio bio;
	int ret;

	bio_init(&bio, rdev->bdev, &bvec, 1, opf | REQ_SYNC);
	bio.bi_iter.bi_sector = sector + rdev->data_offset;
	__bio_add_page(&bio, page, sectors << SECTOR_SHIFT, 0);
	ret = submit_bio_wait(&bio);
	bio_uninit(&bio);
	return !ret;
}

/*
 * Read one page of good data, @off sectors into @r1's range, from a
 * mirror other than @bad.
 */
static bool r1_read_good(struct r1conf *conf, struct r1bio *r1, int bad,
			 unsigned int off, unsigned int sectors,
			 struct page *page)
{
	struct md_rdev *rdev;
	sector_t dev;
	bool ok;
	int i;

	for (i = 0; i < conf->raid_disks; i++) {
		if (i == bad || r1->slots[i].dev == R1_NO_COPY)
			continue;
		dev = r1->slots[i].dev + off;
		rcu_read_lock();
		rdev = rcu_dereference(conf->mirrors[i].rdev);
		if (!md_rdev_readable(rdev, dev, sectors)) {
			rcu_read_unlock();
			continue;
		}
		atomic_inc(&rdev->nr_pending);
		rcu_read_unlock();
		ok = r1_page_io(rdev, dev, sectors, page, REQ_OP_READ);
		md_rdev_unpin(rdev);
		if (ok)
			return true;
	}
	return false;
}

/*
 * Rewrite the range of @r1 on mirror @bad (which failed to read it) from
 * the other mirrors, page by page, and read each page back.  A failed
 * rewrite or read-back fails the mirror.  Runs in the worker.
 */
static void fix_read_error(struct r1conf *conf, struct r1bio *r1, int bad)
{
	struct md_rdev *rdev = r1->slots[bad].rdev;
	struct mddev *mddev = conf->mddev;
	sector_t sector = r1->slots[bad].dev;
	unsigned int left = r1->sectors, fixed = 0;
	struct page *good, *check;

	good = alloc_page(GFP_NOIO);
	if (!good)
		return;
	check = alloc_page(GFP_NOIO);
	if (!check)
		goto free_good;

	freeze_bucket(conf, r1->bucket);
	while (left) {
		unsigned int n = min_t(unsigned int, left, PAGE_SECTORS);

		if (!r1_read_good(conf, r1, bad, fixed, n, good))
			break;	/* no copy anywhere: the read fails */
		if (!r1_page_io(rdev, sector, n, good, REQ_OP_WRITE) ||
		    !r1_page_io(rdev, sector, n, check, REQ_OP_READ) ||
		    memcmp(page_address(good), page_address(check),
			   n << SECTOR_SHIFT)) {
			pr_warn_ratelimited("md/%s:%s: rewrite of sector %llu on %pg failed\n",
					    conf->name, mdname(mddev),
					    (unsigned long long)sector,
					    rdev->bdev);
			md_error(mddev, rdev);
			break;
		}
		fixed += n;
		sector += n;
		left -= n;
	}
	thaw_bucket(conf, r1->bucket);
	if (fixed) {
		/* sysfs md/dev-XXX/errors counts corrected sectors, as in-tree */
		atomic_add(fixed, &rdev->errors);
		atomic_add(fixed, &rdev->read_errors);
		set_bit(RD_READ_ERRORS_SEEN, &rdev->flags);
		pr_info_ratelimited("md/%s:%s: read error corrected (%u sectors at %llu on %pg)\n",
				    conf->name, mdname(mddev), fixed,
				    (unsigned long long)r1->slots[bad].dev,
				    rdev->bdev);
	}

	__free_page(check);
free_good:
	__free_page(good);
}

static void r1_handle_read_error(struct r1conf *conf, struct r1bio *r1)
{
	int bad = r1->read_disk;
	struct md_rdev *rdev = r1->slots[bad].rdev;

	if (!conf->mddev->ro && !test_bit(RD_FAULTY, &rdev->flags)) {
		if (test_bit(RD_FAILFAST, &rdev->flags))
			md_error(conf->mddev, rdev);	/* failfast: no repair */
		else
			fix_read_error(conf, r1, bad);
	}
	/*
	 * A failfast read failed on what is (or was just kept as) the last
	 * working mirror: a failfast error may be a slow moment, not a bad
	 * range, so read it once more, without failfast (r1_clone() sets
	 * it only while another mirror works), before failing the read.
	 */
	if (r1->slots[bad].failfast && !test_bit(RD_FAULTY, &rdev->flags) &&
	    r1_copies_working(conf, r1) <= 1)
		r1->slots[bad].state = R1S_UNUSED;
	md_rdev_unpin(rdev);

	r1_unqueue(r1);
	if (!r1_submit_read(r1)) {
		pr_err_ratelimited("md/%s:%s: unrecoverable read error at sector %llu\n",
				   conf->name, mdname(conf->mddev),
				   (unsigned long long)r1->sector);
		r1_finish(r1, BLK_STS_IOERR);
	}
}

/*
 * A write failed on some mirrors.  Where the member keeps a bad-block
 * log with room, the range is recorded there and the member stays (as
 * in-tree); the request then waits on conf->bb_wait, still pinning
 * those members, until the superblock write has stored and
 * acknowledged the entries (r1_bb_wait_done()).  Otherwise the member
 * is failed.  Runs in the worker.
 */
static void r1_handle_write_error(struct r1conf *conf, struct r1bio *r1)
{
	bool park = false;
	int i;

	for (i = 0; i < r1_nslots(conf); i++) {
		struct md_rdev *rdev = r1->slots[i].rdev;

		if (r1->slots[i].state != R1S_ERR)
			continue;
		/* a failfast member is failed, not kept with bad blocks */
		if (!r1->slots[i].failfast && !test_bit(RD_FAULTY, &rdev->flags) &&
		    md_rdev_set_badblocks(rdev, r1->slots[i].dev, r1->sectors)) {
			set_bit(RD_WRITE_ERROR, &rdev->flags);
			pr_info_ratelimited("md/%s:%s: write error on %pg: %u sectors at %llu recorded as bad\n",
					    conf->name, mdname(conf->mddev), rdev->bdev,
					    r1->sectors,
					    (unsigned long long)r1->slots[i].dev);
			r1->slots[i].state = R1S_BADBLOCK;
			park = true;
			continue;
		}
		md_error(conf->mddev, rdev);
		md_rdev_unpin(rdev);
	}
	/* a member failed: complete once the superblocks record it */
	if (park || md_fail_pending(conf->mddev)) {
		/* stays counted in nr_queued: it does no IO while it waits */
		spin_lock_irq(&conf->lock);
		list_add_tail(&r1->retry, &conf->bb_wait);
		spin_unlock_irq(&conf->lock);
		md_wakeup_thread(conf->mddev);
		return;
	}
	r1_unqueue(r1);
	r1_finish(r1, r1_write_status(r1));
}

/*
 * Finish the requests on conf->bb_wait whose bad blocks are now
 * acknowledged (stored with the superblock), or whose member failed
 * meanwhile, once no member failure is waiting for its superblock
 * write either.  Runs in the worker, kicked by raid1_daemon() after
 * each superblock write of the md thread.
 */
static void r1_bb_wait_done(struct r1conf *conf)
{
	struct r1bio *r1, *tmp;
	LIST_HEAD(done);
	int i;

	if (md_fail_pending(conf->mddev))
		return;
	spin_lock_irq(&conf->lock);
	list_for_each_entry_safe(r1, tmp, &conf->bb_wait, retry) {
		bool ready = true;

		for (i = 0; i < r1_nslots(conf) && ready; i++) {
			struct md_rdev *rdev = r1->slots[i].rdev;

			if (r1->slots[i].state != R1S_BADBLOCK ||
			    test_bit(RD_FAULTY, &rdev->flags))
				continue;
			ready = md_rdev_badblocks_acked(rdev, r1->slots[i].dev,
							r1->sectors);
		}
		if (ready)
			list_move_tail(&r1->retry, &done);
	}
	spin_unlock_irq(&conf->lock);

	list_for_each_entry_safe(r1, tmp, &done, retry) {
		list_del_init(&r1->retry);
		for (i = 0; i < r1_nslots(conf); i++)
			if (r1->slots[i].state == R1S_BADBLOCK)
				md_rdev_unpin(r1->slots[i].rdev);
		r1_unqueue(r1);
		r1_finish(r1, r1_write_status(r1));
	}
}

static void r1_sync_step(struct r1sync *rs);

static void raid1_work(struct work_struct *work)
{
	struct r1conf *conf = container_of(work, struct r1conf, work);

	for (;;) {
		struct r1bio *r1 = NULL;
		struct r1sync *rs = NULL;

		spin_lock_irq(&conf->lock);
		r1 = list_first_entry_or_null(&conf->retry, struct r1bio,
					      retry);
		if (r1) {
			list_del_init(&r1->retry);
		} else {
			rs = list_first_entry_or_null(&conf->sync_retry,
						      struct r1sync, retry);
			if (rs)
				list_del_init(&rs->retry);
		}
		spin_unlock_irq(&conf->lock);

		if (r1 && test_bit(R1B_WRITE, &r1->flags))
			r1_handle_write_error(conf, r1);
		else if (r1)
			r1_handle_read_error(conf, r1);
		else if (rs)
			r1_sync_step(rs);
		else
			break;
		cond_resched();
	}
	r1_bb_wait_done(conf);
}

static void raid1_daemon(struct mddev *mddev)
{
	struct r1conf *conf = mddev->private;
	bool work;

	if (!conf)
		return;
	spin_lock_irq(&conf->lock);
	work = !list_empty(&conf->retry) || !list_empty(&conf->sync_retry) ||
	       !list_empty(&conf->bb_wait);
	spin_unlock_irq(&conf->lock);
	if (work)
		r1_kick(conf);
}

/* ---- resync, recovery, check, repair -------------------------------- */

static void *r1sync_pool_alloc(gfp_t gfp, void *data)
{
	struct r1conf *conf = data;
	struct r1sync *rs;
	int i, j;

	rs = kzalloc(struct_size(rs, slots, conf->sync_slots), gfp);
	if (!rs)
		return NULL;
	rs->nslots = conf->sync_slots;
	for (i = 0; i < rs->nslots; i++) {
		struct r1sync_slot *s = &rs->slots[i];

		s->bio = bio_kmalloc(R1_SYNC_PAGES, gfp);
		if (!s->bio)
			goto free_slots;
		bio_init(s->bio, NULL, s->bio->bi_inline_vecs, R1_SYNC_PAGES,
			 0);
		/* replacements are written from a source's pages only */
		if (i >= rs->nslots / 2)
			continue;
		for (j = 0; j < R1_SYNC_PAGES; j++) {
			s->pages[j] = alloc_page(gfp);
			if (!s->pages[j])
				goto free_slots;
		}
	}
	return rs;

free_slots:
	for (i = 0; i < rs->nslots; i++) {
		for (j = 0; j < R1_SYNC_PAGES; j++)
			if (rs->slots[i].pages[j])
				__free_page(rs->slots[i].pages[j]);
		kfree(rs->slots[i].bio);
	}
	kfree(rs);
	return NULL;
}

static void r1sync_pool_free(void *element, void *data)
{
	struct r1sync *rs = element;
	int i, j;

	for (i = 0; i < rs->nslots; i++) {
		for (j = 0; j < R1_SYNC_PAGES; j++)
			if (rs->slots[i].pages[j])
				__free_page(rs->slots[i].pages[j]);
		bio_uninit(rs->slots[i].bio);
		kfree(rs->slots[i].bio);
	}
	kfree(rs);
}

/*
 * Release what @rs holds and account its sectors.  Any context, hardirq
 * included (the last write completion calls it): nothing here sleeps.
 */
static void r1_sync_finish(struct r1sync *rs, bool ok)
{
	struct r1conf *conf = rs->conf;
	struct mddev *mddev = conf->mddev;
	unsigned int sectors = rs->sectors, idx = rs->bucket;
	bool silent = rs->silent;
	unsigned long flags;
	int i;

	for (i = 0; i < r1_nslots(conf); i++) {
		if (rs->slots[i].state != R1S_UNUSED)
			bio_uninit(rs->slots[i].bio);	/* blkg reference */
		if (rs->slots[i].role == R1R_NONE)
			continue;
		md_rdev_unpin(rs->slots[i].rdev);
		rs->slots[i].role = R1R_NONE;
	}
	if (silent) {
		/* the sync thread waits for this before it goes on */
		spin_lock_irqsave(&conf->lock, flags);
		conf->sync_silent--;
		if (!ok)
			conf->sync_silent_failed = true;
		spin_unlock_irqrestore(&conf->lock, flags);
	}
	/* wakes conf->wait; a silent request's waiter too */
	lower_barrier(conf, idx, rs);
	/* last: after this the core may stop and free conf */
	if (!silent)
		md_done_sync(mddev, sectors, ok);
}

/* A mirror failed its write: it needs md_error(), from the worker. */
static bool r1_sync_write_failed(struct r1sync *rs)
{
	int i;

	for (i = 0; i < r1_nslots(rs->conf); i++)
		if (rs->slots[i].rewrite && rs->slots[i].state == R1S_ERR)
			return true;
	return false;
}

/*
 * Drop a reference on the current phase.  The last one finishes a write
 * phase that every mirror took right here, in whatever context it runs
 * (bio completion included), as in-tree md does: one worker hop per
 * request (read done -> write) instead of two.  It queues the rest for
 * the worker: the step after reads (compare, submit writes: process
 * context) and a write phase that failed somewhere (md_error()).
 */
static void r1_sync_put(struct r1sync *rs)
{
	struct r1conf *conf = rs->conf;
	unsigned long flags;

	/*
	 * Full barrier: orders this completion's slot state before the
	 * count; pairs with the same barrier in the last put, which then
	 * reads every slot's state.
	 */
	if (!atomic_dec_and_test(&rs->remaining))
		return;
	if (rs->writing && !r1_sync_write_failed(rs)) {
		r1_sync_finish(rs, true);
		return;
	}
	spin_lock_irqsave(&conf->lock, flags);
	list_add_tail(&rs->retry, &conf->sync_retry);
	spin_unlock_irqrestore(&conf->lock, flags);
	r1_kick(conf);
}

static void r1_sync_endio(struct bio *bio)
{
	struct r1sync *rs = bio->bi_private;
	int i;

	for (i = 0; i < r1_nslots(rs->conf); i++)
		if (rs->slots[i].bio == bio)
			break;
	rs->slots[i].state = bio->bi_status ? R1S_ERR : R1S_OK;
	r1_sync_put(rs);
}

/*
 * Point slot @i's bio at @pages for @opf.  Bios of one request are set
 * up before any is submitted.
 */
static struct bio *r1_sync_bio(struct r1sync *rs, int i, struct page **pages,
			       blk_opf_t opf)
{
	struct r1sync_slot *s = &rs->slots[i];
	unsigned int left = rs->sectors << SECTOR_SHIFT;
	struct bio *bio = s->bio;
	int j;

	bio_reset(bio, s->rdev->bdev, opf);
	bio->bi_iter.bi_sector = s->dev + s->rdev->data_offset;
	bio->bi_end_io = r1_sync_endio;
	bio->bi_private = rs;
	for (j = 0; left; j++) {
		unsigned int len = min_t(unsigned int, left, PAGE_SIZE);

		__bio_add_page(bio, pages[j], len, 0);
		left -= len;
	}
	s->state = R1S_ISSUED;
	return bio;
}

/*
 * The source slot to read (@read_ok false: any not failed yet) or to
 * copy from (@read_ok: one whose read succeeded): the first in slot
 * order, a write-mostly member only if no other qualifies.  After a
 * crash, the ranges of behind writes may be missing on the write-mostly
 * members only (see "write-behind"), so resync copies from the others.
 * -1 if none.
 */
static int r1_sync_pick(struct r1sync *rs, bool read_ok)
{
	int i, wm = -1;

	for (i = 0; i < r1_nslots(rs->conf); i++) {
		struct r1sync_slot *s = &rs->slots[i];

		if (s->role != R1R_SOURCE ||
		    (read_ok ? s->state != R1S_OK : s->state == R1S_ERR))
			continue;
		if (!test_bit(RD_WRITE_MOSTLY, &s->rdev->flags))
			return i;
		if (wm < 0)
			wm = i;
	}
	return wm;
}

/* Issue reads: one source, or every source for check/repair. */
static void r1_sync_read(struct r1sync *rs)
{
	struct r1conf *conf = rs->conf;
	bool all = rs->mode == R1M_CHECK || rs->mode == R1M_REPAIR;
	struct blk_plug plug;
	int i, n = 0;

	for (i = 0; all && i < r1_nslots(conf); i++) {
		struct r1sync_slot *s = &rs->slots[i];

		if (s->role != R1R_SOURCE || s->state == R1S_ERR)
			continue;
		r1_sync_bio(rs, i, s->pages, REQ_OP_READ);
		n++;
	}
	i = all ? -1 : r1_sync_pick(rs, false);
	if (i >= 0) {
		r1_sync_bio(rs, i, rs->slots[i].pages, REQ_OP_READ);
		n++;
	}
	rs->writing = false;
	/* the bias keeps rs ours until all are submitted */
	atomic_set(&rs->remaining, n + 1);
	blk_start_plug(&plug);
	for (i = 0; i < r1_nslots(conf); i++)
		if (rs->slots[i].state == R1S_ISSUED)
			submit_bio_noacct(rs->slots[i].bio);
	blk_finish_plug(&plug);
	r1_sync_put(rs);
}

/* Compare slot @i with the source; count and flag mismatching pages. */
static void r1_sync_compare(struct r1sync *rs, int i)
{
	struct r1sync_slot *src = &rs->slots[rs->source];
	struct r1sync_slot *s = &rs->slots[i];
	unsigned int left = rs->sectors << SECTOR_SHIFT;
	u64 bad = 0;
	int j;

	for (j = 0; left; j++) {
		unsigned int len = min_t(unsigned int, left, PAGE_SIZE);

		if (memcmp(page_address(src->pages[j]),
			   page_address(s->pages[j]), len))
			bad += len >> SECTOR_SHIFT;
		left -= len;
	}
	if (!bad)
		return;
	atomic64_add(bad, &rs->conf->mddev->resync_mismatches);
	if (rs->mode == R1M_REPAIR)
		s->rewrite = true;
}

/* Write the source's pages to every slot flagged for rewrite. */
static void r1_sync_write(struct r1sync *rs)
{
	struct r1conf *conf = rs->conf;
	struct page **pages = rs->slots[rs->source].pages;
	struct blk_plug plug;
	int i, n = 0;

	for (i = 0; i < r1_nslots(conf); i++) {
		if (!rs->slots[i].rewrite)
			continue;
		r1_sync_bio(rs, i, pages, REQ_OP_WRITE);
		n++;
	}
	rs->writing = true;
	atomic_set(&rs->remaining, n + 1);	/* bias, as for reads */
	blk_start_plug(&plug);
	for (i = 0; i < r1_nslots(conf); i++)
		if (rs->slots[i].rewrite)
			submit_bio_noacct(rs->slots[i].bio);
	blk_finish_plug(&plug);
	r1_sync_put(rs);
}

/*
 * Reads are done: pick the good copy and decide what to write.  Returns
 * false if no mirror could supply the data.
 */
static bool r1_sync_after_read(struct r1sync *rs)
{
	struct r1conf *conf = rs->conf;
	int i;

	rs->source = r1_sync_pick(rs, true);
	if (rs->source < 0) {
		/* single-source modes: try the next untried source */
		for (i = 0; i < r1_nslots(conf); i++) {
			struct r1sync_slot *s = &rs->slots[i];

			if (s->role == R1R_SOURCE && s->state == R1S_UNUSED) {
				r1_sync_read(rs);
				return true;
			}
		}
		return false;
	}

	for (i = 0; i < r1_nslots(conf); i++) {
		struct r1sync_slot *s = &rs->slots[i];

		if (i == rs->source || s->role == R1R_NONE)
			continue;
		if (s->role == R1R_TARGET || s->state == R1S_ERR)
			s->rewrite = true;	/* copy, or read-error fixup */
		else if (s->state == R1S_OK)
			r1_sync_compare(rs, i);
		else if (rs->mode == R1M_RESYNC)
			s->rewrite = true;	/* an unread In_sync mirror */
	}

	for (i = 0; i < r1_nslots(conf); i++)
		if (rs->slots[i].rewrite)
			break;
	if (i == r1_nslots(conf)) {
		r1_sync_finish(rs, true);
		return true;
	}
	r1_sync_write(rs);
	return true;
}

/*
 * The worker's step after a read phase, or after a write phase that
 * failed on some mirror (r1_sync_put() finishes the others itself).
 */
static void r1_sync_step(struct r1sync *rs)
{
	struct r1conf *conf = rs->conf;
	int i;

	if (!rs->writing) {
		if (!r1_sync_after_read(rs)) {
			pr_err_ratelimited("md/%s:%s: sync: no mirror can read sectors %llu+%u\n",
					   conf->name, mdname(conf->mddev),
					   (unsigned long long)rs->sector,
					   rs->sectors);
			r1_sync_finish(rs, false);
		}
		return;
	}
	for (i = 0; i < r1_nslots(conf); i++)
		if (rs->slots[i].rewrite && rs->slots[i].state == R1S_ERR)
			md_error(conf->mddev, rs->slots[i].rdev);
	r1_sync_finish(rs, true);
}

static int r1_sync_mode(struct mddev *mddev)
{
	if (!test_bit(MDR_SYNC, &mddev->recovery))
		return R1M_RECOVER;
	if (!test_bit(MDR_REQUESTED, &mddev->recovery))
		return R1M_RESYNC;
	if (test_bit(MDR_CHECK, &mddev->recovery))
		return R1M_CHECK;
	return R1M_REPAIR;
}

/*
 * Does @rdev's bad-block log cover the start of @rs?  Cuts @rs where the
 * recorded range ends, or where the next one starts, so that each
 * mirror is bad over all of @rs or over none of it.  Cutting only ever
 * shortens @rs, so earlier answers for the same @rs stay true.
 */
static bool r1_sync_cut_bad(struct r1sync *rs, struct r1sync_slot *s)
{
	sector_t first_bad;
	int bad_sectors;

	if (!md_rdev_is_badblock(s->rdev, s->dev, rs->sectors, &first_bad,
				 &bad_sectors))
		return false;
	if (first_bad > s->dev) {
		rs->sectors = first_bad - s->dev;
		return false;
	}
	rs->sectors = min_t(sector_t, rs->sectors,
			    first_bad + bad_sectors - s->dev);
	return true;
}

/*
 * Every source has @rs recorded bad: a recovery target would otherwise
 * be given a copy of nothing and trusted with it.  Record the range on
 * each target too, or fail a target that cannot record it.
 */
static void r1_sync_bad_targets(struct r1sync *rs)
{
	struct r1conf *conf = rs->conf;
	int i;

	for (i = 0; i < r1_nslots(conf); i++) {
		struct r1sync_slot *s = &rs->slots[i];

		if (s->role != R1R_TARGET)
			continue;
		if (!md_rdev_set_badblocks(s->rdev, s->dev, rs->sectors)) {
			pr_warn_ratelimited("md/%s:%s: no mirror holds sectors %llu+%u and %pg cannot record them bad, failing it\n",
					    conf->name, mdname(conf->mddev),
					    (unsigned long long)rs->sector,
					    rs->sectors, s->rdev->bdev);
			md_error(conf->mddev, s->rdev);
		}
	}
}

/*
 * Give each mirror its role for @rs and pin it.  Returns the number of
 * targets for resync/recovery, or of extra sources for check/repair;
 * zero means nothing to do.  *next is set to where to go on then: for
 * recovery, where the nearest target starts when none starts here; past
 * @rs when a recorded bad range (which may cut @rs) took a source away.
 *
 * A mirror whose bad-block log covers @rs holds no trusted copy there
 * (the write that left it stale was acknowledged on the others), so it
 * is neither read nor written: reading it would copy stale data over
 * the good mirrors, and rewriting it could fail it for a range already
 * accounted for.  Its log keeps reads away as before.
 */
static int r1_sync_roles(struct r1sync *rs, sector_t *next)
{
	struct r1conf *conf = rs->conf;
	int i, sources = 0, targets = 0;
	bool bad = false;

	*next = MD_MAX_SECTOR;
	rcu_read_lock();
	for (i = 0; i < r1_nslots(conf); i++) {
		struct md_rdev *rdev = rcu_dereference(conf->mirrors[i].rdev);
		struct r1sync_slot *s = &rs->slots[i];

		s->role = R1R_NONE;
		s->state = R1S_UNUSED;
		s->rewrite = false;
		s->rdev = rdev;
		s->dev = r1_dev(conf, rs->sector, i);
		if (!md_rdev_alive(rdev) || s->dev == R1_NO_COPY)
			continue;
		/* a replacement is only ever written (see "replacement") */
		if (test_bit(RD_IN_SYNC, &rdev->flags) &&
		    i < conf->raid_disks) {
			if (r1_sync_cut_bad(rs, s)) {
				bad = true;
				continue;
			}
			s->role = R1R_SOURCE;
			sources++;
		} else if (rs->mode == R1M_RECOVER) {
			sector_t ro = READ_ONCE(rdev->recovery_offset);

			if (ro >= s->dev + rs->sectors) {
				if (ro < conf->mddev->dev_sectors)
					*next = min(*next, ro);
				continue;
			}
			s->role = R1R_TARGET;
			targets++;
		} else if (rs->mode == R1M_RESYNC) {
			s->role = R1R_TARGET;
			targets++;
		} else {
			continue;
		}
		atomic_inc(&rdev->nr_pending);
	}
	rcu_read_unlock();

	if (bad)
		*next = min(*next, rs->sector + rs->sectors);
	if (!sources) {
		if (bad && targets)
			r1_sync_bad_targets(rs);
		return 0;
	}
	/* resync writes every mirror but the one it reads */
	if (rs->mode != R1M_RECOVER)
		return targets + sources - 1;
	return targets;
}

/*
 * Sync buffers (an r1sync with 64 KiB of pages per mirror) are recycled
 * through conf->sync_cache while a sync runs: a request in the steady
 * state takes the buffers of one that finished, instead of allocating and
 * freeing them.  The mempool behind the cache is only the reserve that
 * guarantees progress: mempool_alloc() calls the allocator first and
 * falls back on its reserve only when that fails, so a larger pool
 * would not save any allocation.  Only the sync thread takes buffers;
 * lower_barrier() puts them back; raid1_close_sync() empties the cache.
 */
static struct r1sync *r1_sync_cache_pop(struct r1conf *conf)
{
	struct r1sync *rs;

	lockdep_assert_held(&conf->lock);
	rs = list_first_entry_or_null(&conf->sync_cache, struct r1sync,
				      retry);
	if (rs) {
		list_del(&rs->retry);
		conf->sync_ncached--;
	}
	return rs;
}

static struct r1sync *r1_sync_get(struct r1conf *conf)
{
	struct r1sync *rs;

	spin_lock_irq(&conf->lock);
	rs = r1_sync_cache_pop(conf);
	spin_unlock_irq(&conf->lock);
	if (rs)
		return rs;
	rs = mempool_alloc(conf->sync_pool, GFP_NOWAIT);
	if (rs)
		return rs;
	/*
	 * No memory, and the reserve is in flight or cached.  Finished
	 * requests refill the cache, not the mempool, so wait for the
	 * cache; with nothing in flight (and the cache empty) the reserve
	 * is whole again and the mempool cannot fail.
	 */
	spin_lock_irq(&conf->lock);
	wait_event_lock_irq(conf->wait, conf->sync_ncached ||
			    !conf->sync_pending, conf->lock);
	rs = r1_sync_cache_pop(conf);
	spin_unlock_irq(&conf->lock);
	if (!rs)
		rs = mempool_alloc(conf->sync_pool, GFP_NOIO);
	return rs;
}

/* Hand every cached buffer back to the mempool (which frees the excess). */
static void r1_sync_cache_empty(struct r1conf *conf)
{
	struct r1sync *rs, *tmp;
	LIST_HEAD(list);

	spin_lock_irq(&conf->lock);
	list_splice_init(&conf->sync_cache, &list);
	conf->sync_ncached = 0;
	spin_unlock_irq(&conf->lock);
	list_for_each_entry_safe(rs, tmp, &list, retry) {
		list_del(&rs->retry);
		mempool_free(rs, conf->sync_pool);
	}
}

/*
 * May this sync pass trust the bitmap: a resync after an unclean
 * shutdown, or a recovery whose every target is a former member that
 * missed only bitmap-dirty chunks.  Never check/repair, which compare
 * everything.
 */
static bool r1_bitmap_sync(struct mddev *mddev, struct r1conf *conf)
{
	struct md_rdev *rdev;
	bool ok = true;
	int i;

	switch (r1_sync_mode(mddev)) {
	case R1M_RESYNC:
		return true;
	case R1M_RECOVER:
		break;
	default:
		return false;
	}
	rcu_read_lock();
	for (i = 0; i < r1_nslots(conf); i++) {
		rdev = rcu_dereference(conf->mirrors[i].rdev);
		if (md_rdev_alive(rdev) && !test_bit(RD_IN_SYNC, &rdev->flags) &&
		    !test_bit(RD_BITMAP_READD, &rdev->flags))
			ok = false;
	}
	rcu_read_unlock();
	return ok;
}

/* An r1sync for @sectors at array @sector, its bucket's barrier raised. */
static struct r1sync *r1_sync_begin(struct r1conf *conf, int mode,
				    sector_t sector, sector_t sectors)
{
	struct r1sync *rs = r1_sync_get(conf);

	rs->conf = conf;
	rs->sector = sector;
	rs->sectors = sectors;
	rs->bucket = r1_bucket(sector);
	rs->mode = mode;
	rs->writing = false;
	rs->silent = false;
	rs->source = -1;
	INIT_LIST_HEAD(&rs->retry);
	raise_barrier(conf, rs->bucket);
	return rs;
}

/* Give up @rs before any IO: the pins r1_sync_roles() took, the barrier. */
static void r1_sync_cancel(struct r1sync *rs)
{
	struct r1conf *conf = rs->conf;
	int i;

	for (i = 0; i < r1_nslots(conf); i++)
		if (rs->slots[i].role != R1R_NONE)
			md_rdev_unpin(rs->slots[i].rdev);
	lower_barrier(conf, rs->bucket, rs);
}

/*
 * Recovery with a layout: @d is a member sector, the same on every
 * mirror, and each rebuilding mirror holds its own array range there.
 * One request per distinct array range, all cut to one length; all but
 * the last are silent, and the last is issued once they finished, so
 * the one md_done_sync() the core expects comes after every copy.  Sync
 * thread only: it owns conf->recover.
 */
static sector_t r1_recover_layout(struct r1conf *conf, sector_t d,
				  sector_t max_sector, bool *skipped)
{
	const struct r1_layout *lay = conf->layout;
	struct r1_recover *t = conf->recover;
	struct mddev *mddev = conf->mddev;
	sector_t n = min_t(sector_t, R1_SYNC_SECTORS, max_sector - d);
	sector_t next = max_sector, clean = MD_MAX_SECTOR, v, unused;
	int i, j, nr = 0, dirty = 0;
	bool beyond = false, failed, roles;
	struct r1sync *rs;

	for (i = 0; i < r1_nslots(conf); i++) {
		struct md_rdev *rdev;
		sector_t ro;

		rcu_read_lock();
		rdev = rcu_dereference(conf->mirrors[i].rdev);
		if (!md_rdev_alive(rdev) || test_bit(RD_IN_SYNC, &rdev->flags)) {
			rcu_read_unlock();
			continue;
		}
		ro = READ_ONCE(rdev->recovery_offset);
		rcu_read_unlock();
		if (ro >= d + n) {
			next = min(next, ro);
			continue;
		}
		/* a replacement holds what its mirror holds there */
		v = lay->virt(conf, i % conf->raid_disks, d);
		if (v == R1_NO_COPY) {
			beyond = true;	/* no data at @d on this mirror */
			continue;
		}
		n = min3(n, lay->room(conf, v), r1_to_bucket_end(v));
		if (mddev->bitmap && r1_bitmap_sync(mddev, conf) &&
		    md_bitmap_chunk_clean(mddev->bitmap, v, &unused))
			clean = min(clean, unused);
		else
			dirty++;
		for (j = 0; j < nr && t[j].sector != v; j++)
			;
		if (j == nr)
			t[nr++].sector = v;
	}
	if (!nr || !dirty) {
		*skipped = true;
		if (nr)
			return min(n, clean);
		if (beyond)
			return min_t(sector_t, n, PAGE_SECTORS);
		return min(next, max_sector) - d;
	}

	/*
	 * Each request is issued before the next raises its barrier: two
	 * ranges may share a bucket, and normal IO waiting there would keep
	 * the second raise waiting for the first to finish.  A recorded bad
	 * range may cut one short; the ones after it take the shorter length.
	 */
	spin_lock_irq(&conf->lock);
	conf->sync_silent_failed = false;
	spin_unlock_irq(&conf->lock);
	for (j = 0; j < nr - 1; j++) {
		rs = r1_sync_begin(conf, R1M_RECOVER, t[j].sector, n);
		roles = r1_sync_roles(rs, &unused);
		n = rs->sectors;	/* roles only ever cut it */
		if (!roles) {
			r1_sync_cancel(rs);
			continue;
		}
		rs->silent = true;
		spin_lock_irq(&conf->lock);
		conf->sync_silent++;
		spin_unlock_irq(&conf->lock);
		r1_sync_read(rs);
	}
	spin_lock_irq(&conf->lock);
	wait_event_lock_irq(conf->wait, !conf->sync_silent, conf->lock);
	failed = conf->sync_silent_failed;
	spin_unlock_irq(&conf->lock);
	if (failed)
		return 0;

	rs = r1_sync_begin(conf, R1M_RECOVER, t[nr - 1].sector, n);
	roles = r1_sync_roles(rs, &unused);
	n = rs->sectors;
	if (!roles) {
		r1_sync_cancel(rs);
		*skipped = true;
		return n;
	}
	r1_sync_read(rs);
	return n;
}

static sector_t raid1_sync_request(struct mddev *mddev, sector_t sector_nr,
				   sector_t max_sector, bool *skipped)
{
	struct r1conf *conf = mddev->private;
	int mode = r1_sync_mode(mddev);
	struct r1sync *rs;
	sector_t sectors, next;

	*skipped = false;
	if (sector_nr >= max_sector) {
		*skipped = true;
		return 0;
	}
	if (conf->layout && mode == R1M_RECOVER)
		return r1_recover_layout(conf, sector_nr, max_sector, skipped);
	if (mddev->bitmap && r1_bitmap_sync(mddev, conf) &&
	    md_bitmap_chunk_clean(mddev->bitmap, sector_nr, &sectors)) {
		*skipped = true;
		return min(sectors, max_sector - sector_nr);
	}
	sectors = min3((sector_t)R1_SYNC_SECTORS, max_sector - sector_nr,
		       r1_room(conf, sector_nr));

	rs = r1_sync_begin(conf, mode, sector_nr, sectors);
	if (!r1_sync_roles(rs, &next)) {
		r1_sync_cancel(rs);
		*skipped = true;
		if (next > sector_nr && next < max_sector)
			return next - sector_nr;
		return max_sector - sector_nr;
	}
	r1_sync_read(rs);
	return rs->sectors;	/* a recorded bad range may have cut it */
}

static void raid1_close_sync(struct mddev *mddev)
{
	struct r1conf *conf = mddev->private;

	/* the core has drained sync IO; make sure our side agrees */
	spin_lock_irq(&conf->lock);
	wait_event_lock_irq(conf->wait, !conf->sync_pending, conf->lock);
	spin_unlock_irq(&conf->lock);
	/* every buffer is back: free all but the mempool's reserve */
	r1_sync_cache_empty(conf);
}

/* ---- configuration -------------------------------------------------- */

static struct md_rdev *r1_rdev_locked(struct r1conf *conf, int i)
{
	return rcu_dereference_protected(conf->mirrors[i].rdev,
			lockdep_is_held(&conf->mddev->reconfig_mutex));
}

static void raid1_status(struct seq_file *seq, struct mddev *mddev)
{
	struct r1conf *conf = mddev->private;
	int i;

	seq_printf(seq, " [%d/%d] [", conf->raid_disks,
		   conf->raid_disks - READ_ONCE(mddev->degraded));
	rcu_read_lock();
	for (i = 0; i < conf->raid_disks; i++) {
		struct md_rdev *rdev = rcu_dereference(conf->mirrors[i].rdev);

		seq_putc(seq, md_rdev_working(rdev) ? 'U' : '_');
	}
	rcu_read_unlock();
	seq_putc(seq, ']');
}

static void raid1_error_handler(struct mddev *mddev, struct md_rdev *rdev)
{
	struct r1conf *conf = mddev->private;
	unsigned long flags;
	bool last;
	int left;

	spin_lock_irqsave(&mddev->lock, flags);
	if (test_bit(RD_FAULTY, &rdev->flags)) {
		spin_unlock_irqrestore(&mddev->lock, flags);
		return;
	}
	/* RAID10: the last working copy of some range */
	last = md_rdev_working(rdev) && !r1_enough(conf, rdev->raid_disk);
	if (last && !test_bit(MDF_FAIL_LAST_DEV, &mddev->flags)) {
		/* keep the last copy of the data: do not fail it */
		spin_unlock_irqrestore(&mddev->lock, flags);
		pr_warn_ratelimited("md/%s:%s: %pg is the last working mirror, not failing it\n",
				    conf->name, mdname(mddev), rdev->bdev);
		return;
	}
	/*
	 * md/fail_last_dev: fail it anyway, as in-tree.  No mirror holds
	 * the data any more: broken before the member goes, so the core
	 * refuses new writes while reads find no mirror and fail.
	 */
	if (last)
		set_bit(MDF_BROKEN, &mddev->flags);
	md_mark_faulty(mddev, rdev);
	clear_bit(RD_IN_SYNC, &rdev->flags);
	r1_update_degraded(mddev);
	left = conf->raid_disks - mddev->degraded;
	spin_unlock_irqrestore(&mddev->lock, flags);

	/* md_error() interrupts a running sync and asks for a sb write */
	if (last) {
		pr_crit("md/%s:%s: Disk failure on %pg, the last working mirror (fail_last_dev): the array fails all IO now.\n",
			conf->name, mdname(mddev), rdev->bdev);
		return;
	}
	pr_crit("md/%s:%s: Disk failure on %pg, disabling device.\n"
		"md/%s:%s: Operation continuing on %d devices.\n",
		conf->name, mdname(mddev), rdev->bdev, conf->name,
		mdname(mddev), left);
}

/*
 * Member limits, minus write-zeroes: a member may advertise write-zeroes
 * and still refuse some of them (a loop device over tmpfs refuses the
 * no-unmap kind that zeroing asks for), and a zeroing that one mirror
 * took and another refused leaves the mirrors different.  Without it the
 * block layer zeroes with ordinary writes, which every mirror takes.
 * In-tree raid1 advertises no write-zeroes either.  One update, so the
 * array never shows the member's write-zeroes.
 */
static int r1_stack_limits(struct mddev *mddev, struct md_rdev *rdev)
{
	struct md_limits ml;

	if (!md_limits_begin(mddev, &ml))
		return 0;
	md_limits_stack_rdev(&ml, rdev);
	md_limits_max_write_zeroes_sectors(&ml, 0);
	return md_limits_end(mddev, &ml);
}

/* Mirror @i for md_slot_pick(): a working member may want a replacement. */
static int r1_slot_state(struct mddev *mddev, int i)
{
	struct r1conf *conf = mddev->private;

	return md_slot_state(r1_rdev_locked(conf, i),
			     r1_rdev_locked(conf, i + conf->raid_disks));
}

/*
 * Put spare @rdev into a mirror: a free one, else as the replacement of
 * a member that wants one (md_slot_pick()).
 */
static int raid1_hot_add_disk(struct mddev *mddev, struct md_rdev *rdev)
{
	struct r1conf *conf = mddev->private;
	int rd = conf->raid_disks, slot, err;
	bool repl;

	slot = md_slot_pick(mddev, rdev, rd, r1_slot_state, &repl);
	if (slot < 0)
		return slot;

	/* limits the array cannot take: the spare stays out of the slots */
	err = r1_stack_limits(mddev, rdev);
	if (err)
		return err;
	if (repl) {
		/* new to this mirror: the bitmap does not say what it lacks */
		clear_bit(RD_BITMAP_READD, &rdev->flags);
		set_bit(RD_REPLACEMENT, &rdev->flags);
		slot += rd;
	}
	WRITE_ONCE(conf->mirrors[slot].head, 0);
	md_slot_fill(&conf->mirrors[slot].rdev, rdev, slot % rd);
	return 0;
}

/*
 * Take @rdev out of its slot.  A member that leaves while its mirror
 * has a replacement hands the slot to it: done, or still rebuilding
 * from its recovery_offset as any member would.
 */
static int raid1_hot_remove_disk(struct mddev *mddev, struct md_rdev *rdev)
{
	struct r1conf *conf = mddev->private;
	int rd = conf->raid_disks, slot = rdev->raid_disk;
	unsigned long flags;
	bool member;
	int err;

	lockdep_assert_held(&mddev->reconfig_mutex);
	if (slot < 0 || slot >= rd)
		return 0;
	member = r1_rdev_locked(conf, slot) == rdev;
	if (!member && r1_rdev_locked(conf, slot + rd) != rdev)
		return 0;
	err = md_slot_release(mddev, &conf->mirrors[slot].rdev,
			      &conf->mirrors[slot + rd].rdev, rdev);
	if (err)
		return err;
	/* the mirror's member is another one now (its replacement) or none */
	if (member)
		WRITE_ONCE(conf->mirrors[slot].head, 0);
	spin_lock_irqsave(&mddev->lock, flags);
	r1_update_degraded(mddev);
	spin_unlock_irqrestore(&mddev->lock, flags);
	return 0;
}

/*
 * Rebuilt members become In_sync.  A replacement that is whole takes
 * over from the member it replaces, which is failed (and leaves its slot
 * to it on the next removal), as in-tree md does.
 */
static int raid1_spare_active(struct mddev *mddev)
{
	struct r1conf *conf = mddev->private;
	int rd = conf->raid_disks;
	unsigned long flags;
	int i, count = 0;

	spin_lock_irqsave(&mddev->lock, flags);
	rcu_read_lock();
	for (i = 0; i < rd; i++)
		count += md_slot_activate_pair(mddev,
				rcu_dereference(conf->mirrors[i].rdev),
				rcu_dereference(conf->mirrors[i + rd].rdev));
	rcu_read_unlock();
	r1_update_degraded(mddev);
	spin_unlock_irqrestore(&mddev->lock, flags);
	return count;
}

static void raid1_quiesce(struct mddev *mddev, int quiesce)
{
	struct r1conf *conf = mddev->private;

	spin_lock_irq(&conf->lock);
	if (quiesce) {
		WRITE_ONCE(conf->frozen, true);
		smp_mb();			/* (B1) */
		wait_event_lock_irq(conf->wait,
				    !r1_any_pending(conf) &&
				    !conf->sync_pending,
				    conf->lock);
	} else {
		WRITE_ONCE(conf->frozen, false);
		wake_up(&conf->wait);
	}
	spin_unlock_irq(&conf->lock);
}

static sector_t raid1_size(struct mddev *mddev, sector_t sectors,
			   int raid_disks)
{
	return sectors ? sectors : mddev->dev_sectors;
}

static void raid1_free_conf(struct r1conf *conf)
{
	destroy_workqueue(conf->wq);
	bioset_exit(&conf->behind_bs);
	bioset_exit(&conf->split_bs);
	bioset_exit(&conf->clone_bs);
	r1_sync_cache_empty(conf);
	mempool_destroy(conf->sync_pool);
	mempool_destroy(conf->r1bio_pool);
	kfree(conf->recover);
	kfree(conf->mirrors);
	kfree(conf->layout_data);
	kvfree(conf);
}

static mempool_t *r1_r1bio_pool_create(int raid_disks)
{
	return mempool_create_kmalloc_pool(R1_POOL_MIN,
					   struct_size_t(struct r1bio, slots,
							 raid_disks));
}

/* Buffers of conf->sync_slots mirrors each. */
static mempool_t *r1_sync_pool_create(struct r1conf *conf)
{
	return mempool_create(R1_SYNC_POOL_MIN, r1sync_pool_alloc,
			      r1sync_pool_free, conf);
}

/*
 * Change the number of mirror slots (mdadm --grow -n N): no data moves.
 * The core calls this under reconfig_mutex with the array suspended
 * (quiesce(1) returned, so no r1bio or r1sync is in flight or queued)
 * and no sync thread.  Members keep their order and close up into the
 * lowest slots; shrinking below the members that hold a slot is -EBUSY.
 * The pools are replaced because their elements hold one slot per
 * mirror.  /proc/mdstat (pers->status) and md_error() read mirrors[]
 * and raid_disks under mddev->lock, so both change together under it;
 * RCU readers of the old mirrors[] are waited for before it is freed.
 */
static int raid1_resize_disks(struct mddev *mddev, int raid_disks)
{
	struct r1conf *conf = mddev->private;
	struct r1mirror *mirrors, *old_mirrors;
	mempool_t *r1bio_pool, *sync_pool, *old_r1bio_pool, *old_sync_pool;
	int i, used = 0, old_slots;
	unsigned long flags;

	lockdep_assert_held(&mddev->reconfig_mutex);
	if (raid_disks < 1)
		return -EINVAL;
	for (i = 0; i < conf->raid_disks; i++) {
		if (r1_rdev_locked(conf, i + conf->raid_disks)) {
			pr_warn("md/raid1:%s: a replacement is being built, cannot change the mirror count\n",
				mdname(mddev));
			return -EBUSY;
		}
		if (r1_rdev_locked(conf, i))
			used++;
	}
	if (used > raid_disks) {
		pr_warn("md/raid1:%s: %d members hold a slot, cannot shrink to %d\n",
			mdname(mddev), used, raid_disks);
		return -EBUSY;
	}

	mirrors = kcalloc(2 * raid_disks, sizeof(*mirrors), GFP_KERNEL);
	if (!mirrors)
		return -ENOMEM;
	r1bio_pool = r1_r1bio_pool_create(2 * raid_disks);
	if (!r1bio_pool)
		goto free_mirrors;
	/* cached buffers have the old slot count: back to the old pool */
	r1_sync_cache_empty(conf);
	old_slots = conf->sync_slots;
	conf->sync_slots = 2 * raid_disks;
	sync_pool = r1_sync_pool_create(conf);
	if (!sync_pool) {
		conf->sync_slots = old_slots;
		goto destroy_r1bio_pool;
	}

	/* close up: the n-th member in slot order takes slot n */
	used = 0;
	for (i = 0; i < conf->raid_disks; i++) {
		struct md_rdev *rdev = r1_rdev_locked(conf, i);

		if (!rdev)
			continue;
		RCU_INIT_POINTER(mirrors[used].rdev, rdev);
		mirrors[used].head = conf->mirrors[i].head;
		rdev->raid_disk = used;
		if (rdev->saved_raid_disk >= 0)
			rdev->saved_raid_disk = used;
		used++;
	}

	old_mirrors = conf->mirrors;
	old_r1bio_pool = conf->r1bio_pool;
	old_sync_pool = conf->sync_pool;
	spin_lock_irqsave(&mddev->lock, flags);
	conf->mirrors = mirrors;
	conf->raid_disks = raid_disks;
	conf->r1bio_pool = r1bio_pool;
	conf->sync_pool = sync_pool;
	mddev->raid_disks = raid_disks;
	r1_update_degraded(mddev);
	spin_unlock_irqrestore(&mddev->lock, flags);

	synchronize_rcu();
	kfree(old_mirrors);
	mempool_destroy(old_r1bio_pool);
	mempool_destroy(old_sync_pool);
	pr_info("md/raid1:%s: %d mirror slots\n", mdname(mddev), raid_disks);
	return 0;

destroy_r1bio_pool:
	mempool_destroy(r1bio_pool);
free_mirrors:
	kfree(mirrors);
	return -ENOMEM;
}

/*
 * Start the engine on @mddev, with @layout (NULL: RAID1) and its
 * kmalloc()ed @layout_data, which conf owns from success on.  @name
 * prefixes messages.
 */
int r1_engine_run(struct mddev *mddev, const char *name,
		  const struct r1_layout *layout, void *layout_data)
{
	struct r1conf *conf;
	struct md_rdev *rdev;
	unsigned long flags;
	int ret, working, i;

	lockdep_assert_held(&mddev->reconfig_mutex);
	conf = kvzalloc(sizeof(*conf), GFP_KERNEL);
	if (!conf)
		return -ENOMEM;
	conf->mddev = mddev;
	conf->name = name;
	conf->layout = layout;
	/* the caller's until success: the unwinding below leaves it */
	conf->layout_data = layout_data;
	conf->raid_disks = mddev->raid_disks;
	spin_lock_init(&conf->lock);
	init_waitqueue_head(&conf->wait);
	INIT_LIST_HEAD(&conf->retry);
	INIT_LIST_HEAD(&conf->sync_retry);
	INIT_LIST_HEAD(&conf->bb_wait);
	INIT_LIST_HEAD(&conf->sync_cache);
	INIT_WORK(&conf->work, raid1_work);
	spin_lock_init(&conf->behind_lock);
	conf->behind_tree = RB_ROOT_CACHED;
	init_waitqueue_head(&conf->behind_wait);

	ret = -ENOMEM;
	conf->mirrors = kcalloc(r1_nslots(conf), sizeof(*conf->mirrors),
				GFP_KERNEL);
	if (!conf->mirrors)
		goto free_conf;
	if (layout) {
		conf->recover = kcalloc(conf->raid_disks,
					sizeof(*conf->recover), GFP_KERNEL);
		if (!conf->recover)
			goto free_mirrors;
	}
	conf->r1bio_pool = r1_r1bio_pool_create(r1_nslots(conf));
	if (!conf->r1bio_pool)
		goto free_mirrors;
	conf->sync_slots = r1_nslots(conf);
	conf->sync_pool = r1_sync_pool_create(conf);
	if (!conf->sync_pool)
		goto exit_r1bio_pool;
	/* rescuers: both are allocated from inside submit_bio */
	ret = bioset_init(&conf->clone_bs, BIO_POOL_SIZE,
			  offsetof(struct r1clone, bio), BIOSET_NEED_RESCUER);
	if (ret)
		goto exit_sync_pool;
	ret = bioset_init(&conf->split_bs, BIO_POOL_SIZE, 0,
			  BIOSET_NEED_RESCUER);
	if (ret)
		goto exit_clone_bs;
	/* write-behind copies: allocated without waiting, so no rescuer */
	ret = bioset_init(&conf->behind_bs, BIO_POOL_SIZE, 0,
			  BIOSET_NEED_BVECS);
	if (ret)
		goto exit_split_bs;
	ret = -ENOMEM;
	conf->wq = alloc_ordered_workqueue("%s_raid1", WQ_MEM_RECLAIM,
					   mdname(mddev));
	if (!conf->wq)
		goto exit_behind_bs;

	rdev_for_each(rdev, mddev) {
		int slot = rdev->raid_disk;

		if (slot < 0 || slot >= conf->raid_disks ||
		    test_bit(RD_FAULTY, &rdev->flags))
			continue;
		if (test_bit(RD_REPLACEMENT, &rdev->flags))
			slot += conf->raid_disks;
		if (r1_rdev_locked(conf, slot)) {
			pr_err("md/%s:%s: two members claim slot %d\n",
			       conf->name, mdname(mddev),
			       slot % conf->raid_disks);
			ret = -EINVAL;
			goto destroy_wq;
		}
		RCU_INIT_POINTER(conf->mirrors[slot].rdev, rdev);
		ret = r1_stack_limits(mddev, rdev);
		if (ret)
			goto destroy_wq;
	}
	/* a replacement whose member is gone is that mirror's member now */
	for (i = 0; i < conf->raid_disks; i++)
		md_slot_hand_over(mddev, &conf->mirrors[i].rdev,
				  &conf->mirrors[i + conf->raid_disks].rdev);
	working = r1_working(conf);
	if (!working || !r1_enough(conf, -1)) {
		pr_err("md/%s:%s: not enough operational mirrors to hold every copy, refusing to start\n",
		       conf->name, mdname(mddev));
		ret = -EIO;
		goto destroy_wq;
	}

	mddev->private = conf;
	spin_lock_irqsave(&mddev->lock, flags);
	r1_update_degraded(mddev);
	spin_unlock_irqrestore(&mddev->lock, flags);
	/* one copy cannot be out of sync with itself */
	if (working == 1 && !layout)
		mddev->resync_offset = MD_MAX_SECTOR;
	if (!layout)
		mddev->array_sectors = raid1_size(mddev, 0, 0);
	pr_info("md/%s:%s: active with %d out of %d mirrors\n",
		conf->name, mdname(mddev), working, conf->raid_disks);
	return 0;

destroy_wq:
	destroy_workqueue(conf->wq);
exit_behind_bs:
	bioset_exit(&conf->behind_bs);
exit_split_bs:
	bioset_exit(&conf->split_bs);
exit_clone_bs:
	bioset_exit(&conf->clone_bs);
exit_sync_pool:
	mempool_destroy(conf->sync_pool);
exit_r1bio_pool:
	mempool_destroy(conf->r1bio_pool);
free_mirrors:
	kfree(conf->recover);
	kfree(conf->mirrors);
free_conf:
	kvfree(conf);
	return ret;
}
EXPORT_SYMBOL_GPL(r1_engine_run);

static int raid1_run(struct mddev *mddev)
{
	if (mddev->level != 1 || mddev->raid_disks < 1) {
		pr_err("md/raid1:%s: bad level %d or raid_disks %d\n",
		       mdname(mddev), mddev->level, mddev->raid_disks);
		return -EINVAL;
	}
	return r1_engine_run(mddev, "raid1", NULL, NULL);
}

static void raid1_free(struct mddev *mddev, void *priv)
{
	/* the last allow_barrier() may still be looking at conf->wait */
	synchronize_rcu();
	raid1_free_conf(priv);
}

/* The callbacks RAID1 and RAID10 (raid10.c) share. */
const struct md_personality r1_engine = {
	.replacement	= true,
	.free		= raid1_free,
	.make_request	= raid1_make_request,
	.daemon		= raid1_daemon,
	.status		= raid1_status,
	.error_handler	= raid1_error_handler,
	.hot_add_disk	= raid1_hot_add_disk,
	.hot_remove_disk = raid1_hot_remove_disk,
	.spare_active	= raid1_spare_active,
	.sync_request	= raid1_sync_request,
	.close_sync	= raid1_close_sync,
	.quiesce	= raid1_quiesce,
};
EXPORT_SYMBOL_GPL(r1_engine);

static struct md_personality raid1_personality;

/*
 * pers->takeover: a RAID4/5 of two members is a mirror of two (its one
 * data chunk and the parity that equals it); nothing moves.
 */
static int raid1_takeover(struct mddev *mddev, struct md_takeover *t)
{
	if ((mddev->level != 4 && mddev->level != 5) ||
	    mddev->raid_disks != 2) {
		pr_warn("md/raid1:%s: cannot take level %d with %d members over: only a RAID4/5 of two\n",
			mdname(mddev), mddev->level, mddev->raid_disks);
		return -EINVAL;
	}
	t->level = 1;
	t->layout = 0;
	t->chunk_sectors = 0;
	t->raid_disks = 2;
	t->drop_slot = -1;
	return 0;
}

static int __init raid1_init(void)
{
	raid1_personality = r1_engine;
	raid1_personality.name = "raid1";
	raid1_personality.level = 1;
	raid1_personality.owner = THIS_MODULE;
	raid1_personality.run = raid1_run;
	raid1_personality.size = raid1_size;
	raid1_personality.resize_disks = raid1_resize_disks;
	raid1_personality.resize_in_place = true;
	raid1_personality.takeover = raid1_takeover;
	return md_register_personality(&raid1_personality);
}

static void __exit raid1_exit(void)
{
	md_unregister_personality(&raid1_personality);
}

module_init(raid1_init);
module_exit(raid1_exit);
MODULE_LICENSE("GPL");
MODULE_VERSION(MD_VERSION_STRING);
MODULE_DESCRIPTION("RAID1 (mirroring) personality for md (out-of-tree fork stack)");
MODULE_ALIAS("md-personality-3");
MODULE_ALIAS("md-raid1");
MODULE_ALIAS("md-level-1");
