// SPDX-License-Identifier: GPL-2.0
/*
 * Requests that go to one member each, unchanged: what linear and raid0
 * share (and any personality that only moves a piece of a bio to a member
 * sector).  The personality splits a bio where its geometry does (a chunk,
 * a member's end) and hands each piece to md_remap_submit() with the
 * member and the member sector; everything after that lives here once:
 *
 * - A clone of the piece goes to the member, so the piece itself stays the
 *   md device's bio and is accounted there (md_io_start()/md_io_end(),
 *   which the resync throttle and /proc/diskstats read).  The clone pins
 *   the member (nr_pending) until it completes, and carries the member's
 *   status back: an error on a member is an error of the piece, never a
 *   success with other data.  REQ_NOWAIT stays on the md bio: members
 *   never see it (md_submit_bio()).
 * - A flush (REQ_PREFLUSH) must make every write completed before it
 *   durable, and those may sit in any member's cache, while the piece it
 *   carries reaches one member.  So a flush goes to every member first;
 *   only when all have completed does its data, the flag cleared, go
 *   through the personality's map again (on rm->wq: the completions run
 *   in interrupt context).  Issuing the data beside the flushes would let
 *   a journal's commit block reach a platter before the blocks it commits,
 *   which sit in another member's cache.  An empty flush ends with the
 *   member flushes.  A member flush error fails the flush.
 * - quiesce(1) waits until no request is in flight (rm->inflight counts
 *   every clone and every flush from acceptance until its data was
 *   mapped), which is what md_suspend() needs once its gate is shut: a
 *   flush in rm->wq maps its data without passing the gate again, so it
 *   cannot wait on a suspend that waits on it.
 *
 * Failing a member (mdadm --fail, md_error()): with one copy of every
 * sector there is nothing to run on without it, so the array is broken
 * instead (MDF_BROKEN: the core refuses writes, reads still go to the
 * members) and the member stays, as in-tree md does.
 *
 * Lifetime: the completion that drops rm->inflight to zero wakes rm->wait
 * inside an RCU read section, and md_remap_exit() waits for a grace
 * period, so the wake-up never touches a freed md_remap.
 */
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/mempool.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>

#include "md.h"

/* A clone on its way to a member: front pad of rm->clone_bs. */
struct md_remap_clone {
	struct md_remap *rm;
	struct bio *piece;		/* the md bio (or piece) it serves */
	struct md_rdev *rdev;		/* pinned until the clone completes */
	struct md_io_stamp stamp;
	struct bio bio;			/* last: the bioset's front pad */
};

/* A flush waiting for every member's (rm->flush_pool). */
struct md_remap_flush {
	struct md_remap *rm;
	struct bio *bio;
	struct md_io_stamp stamp;	/* empty flushes: accounted here */
	atomic_t pending;		/* member flushes + 1 while issuing */
	blk_status_t status;		/* first member error; cmpxchg */
	struct work_struct work;	/* maps the data once all completed */
};

#define MD_REMAP_FLUSH_RESERVE	4

static void md_remap_put(struct md_remap *rm)
{
	rcu_read_lock();
	if (atomic_dec_and_test(&rm->inflight))
		wake_up(&rm->wait);
	rcu_read_unlock();
}

static void md_remap_endio(struct bio *clone)
{
	struct md_remap_clone *c = container_of(clone, struct md_remap_clone,
						bio);
	struct md_remap *rm = c->rm;
	struct bio *piece = c->piece;
	struct md_rdev *rdev = c->rdev;
	struct md_io_stamp stamp = c->stamp;

	if (clone->bi_status)
		piece->bi_status = clone->bi_status;
	bio_put(clone);
	md_io_end(rm->mddev, piece, stamp);
	bio_endio(piece);
	md_rdev_unpin(rdev);
	md_remap_put(rm);
}

void md_remap_submit(struct md_remap *rm, struct bio *piece,
		     struct md_rdev *rdev, sector_t sector)
{
	struct md_remap_clone *c;
	struct bio *clone;

	/* a bioset with a reserve: clones in flight refill it */
	clone = bio_alloc_clone(rdev->bdev, piece, GFP_NOIO, &rm->clone_bs);
	c = container_of(clone, struct md_remap_clone, bio);
	c->rm = rm;
	c->piece = piece;
	c->rdev = rdev;
	c->stamp = md_io_start(rm->mddev, piece);
	atomic_inc(&rm->inflight);
	atomic_inc(&rdev->nr_pending);
	clone->bi_opf &= ~REQ_NOWAIT;
	clone->bi_iter.bi_sector = sector + rdev->data_offset;
	clone->bi_end_io = md_remap_endio;
	submit_bio_noacct(clone);
}
EXPORT_SYMBOL_GPL(md_remap_submit);

void md_remap_bio(struct md_remap *rm, struct bio *bio, sector_t end,
		  struct md_rdev *(*locate)(struct mddev *mddev, sector_t sector,
					    sector_t *dev, sector_t *room))
{
	if (unlikely(!bio_sectors(bio))) {
		bio_endio(bio);
		return;
	}
	if (unlikely(bio_end_sector(bio) > end)) {
		bio_io_error(bio);
		return;
	}
	for (;;) {
		struct bio *piece = bio;
		struct md_rdev *rdev;
		sector_t dev, room;

		rdev = locate(rm->mddev, bio->bi_iter.bi_sector, &dev, &room);
		if (bio_sectors(bio) > room) {
			/* a bioset with a reserve: pieces in flight refill it */
			piece = bio_split(bio, room, GFP_NOIO, &rm->split_bs);
			bio_chain(piece, bio);
		}
		md_remap_submit(rm, piece, rdev, dev);
		if (piece == bio)
			return;
	}
}
EXPORT_SYMBOL_GPL(md_remap_bio);

/* Every member flushed: end an empty flush, or map its data. */
static void md_remap_flushed(struct md_remap_flush *f)
{
	struct md_remap *rm = f->rm;
	struct bio *bio = f->bio;

	if (f->status || !bio_sectors(bio)) {
		bio->bi_status = f->status;
		if (!bio_sectors(bio))
			md_io_end(rm->mddev, bio, f->stamp);
		mempool_free(f, &rm->flush_pool);
		bio_endio(bio);
		md_remap_put(rm);
		return;
	}
	queue_work(rm->wq, &f->work);
}

static void md_remap_flush_work(struct work_struct *work)
{
	struct md_remap_flush *f = container_of(work, struct md_remap_flush,
						work);
	struct md_remap *rm = f->rm;
	struct bio *bio = f->bio;

	mempool_free(f, &rm->flush_pool);
	bio->bi_opf &= ~REQ_PREFLUSH;
	rm->map(rm->mddev, bio);
	md_remap_put(rm);
}

static void md_remap_flush_endio(struct bio *fb)
{
	struct md_remap_flush *f = fb->bi_private;

	if (fb->bi_status)
		cmpxchg(&f->status, 0, fb->bi_status);
	bio_put(fb);
	if (atomic_dec_and_test(&f->pending))
		md_remap_flushed(f);
}

bool md_remap_flush(struct md_remap *rm, struct bio *bio,
		    struct md_rdev *const *members, int nr)
{
	struct md_remap_flush *f;
	int i;

	if (!(bio->bi_opf & REQ_PREFLUSH))
		return false;
	/* a pool with a reserve: flushes in flight give theirs back */
	f = mempool_alloc(&rm->flush_pool, GFP_NOIO);
	f->rm = rm;
	f->bio = bio;
	f->status = BLK_STS_OK;
	atomic_set(&f->pending, 1);
	INIT_WORK(&f->work, md_remap_flush_work);
	if (!bio_sectors(bio))
		f->stamp = md_io_start(rm->mddev, bio);
	atomic_inc(&rm->inflight);
	for (i = 0; i < nr; i++) {
		struct md_rdev *rdev = members[i];
		struct bio *fb;

		if (!md_rdev_alive(rdev))
			continue;
		fb = bio_alloc_bioset(rdev->bdev, 0,
				      REQ_OP_WRITE | REQ_PREFLUSH | REQ_SYNC,
				      GFP_NOIO, &rm->flush_bs);
		fb->bi_private = f;
		fb->bi_end_io = md_remap_flush_endio;
		atomic_inc(&f->pending);
		submit_bio_noacct(fb);
	}
	if (atomic_dec_and_test(&f->pending))
		md_remap_flushed(f);
	return true;
}
EXPORT_SYMBOL_GPL(md_remap_flush);

void md_remap_error(struct mddev *mddev, struct md_rdev *rdev)
{
	if (!test_and_set_bit(MDF_BROKEN, &mddev->flags))
		pr_crit("md/%s:%s: %pg failed; no other copy of its data, so writes are refused from now on\n",
			mddev->pers->name, mdname(mddev), rdev->bdev);
}
EXPORT_SYMBOL_GPL(md_remap_error);

void md_remap_quiesce(struct md_remap *rm, int quiesce)
{
	if (quiesce)
		wait_event(rm->wait, !atomic_read(&rm->inflight));
}
EXPORT_SYMBOL_GPL(md_remap_quiesce);

int md_remap_init(struct md_remap *rm, struct mddev *mddev,
		  void (*map)(struct mddev *mddev, struct bio *bio))
{
	int err;

	rm->mddev = mddev;
	rm->map = map;
	atomic_set(&rm->inflight, 0);
	init_waitqueue_head(&rm->wait);
	/* rescuers: all three are allocated from inside submit_bio */
	err = bioset_init(&rm->clone_bs, BIO_POOL_SIZE,
			  offsetof(struct md_remap_clone, bio),
			  BIOSET_NEED_RESCUER);
	if (err)
		return err;
	err = bioset_init(&rm->split_bs, BIO_POOL_SIZE, 0,
			  BIOSET_NEED_RESCUER);
	if (err)
		goto exit_clone_bs;
	err = bioset_init(&rm->flush_bs, BIO_POOL_SIZE, 0,
			  BIOSET_NEED_RESCUER);
	if (err)
		goto exit_split_bs;
	err = mempool_init_kmalloc_pool(&rm->flush_pool, MD_REMAP_FLUSH_RESERVE,
					sizeof(struct md_remap_flush));
	if (err)
		goto exit_flush_bs;
	err = -ENOMEM;
	rm->wq = alloc_workqueue("%s_flush", WQ_MEM_RECLAIM, 0, mdname(mddev));
	if (!rm->wq)
		goto exit_flush_pool;
	return 0;

exit_flush_pool:
	mempool_exit(&rm->flush_pool);
exit_flush_bs:
	bioset_exit(&rm->flush_bs);
exit_split_bs:
	bioset_exit(&rm->split_bs);
exit_clone_bs:
	bioset_exit(&rm->clone_bs);
	return err;
}
EXPORT_SYMBOL_GPL(md_remap_init);

/* After quiesce(1) or with nothing ever submitted. */
void md_remap_exit(struct md_remap *rm)
{
	WARN_ON_ONCE(atomic_read(&rm->inflight));
	/* the last md_remap_put() may still be waking rm->wait */
	synchronize_rcu();
	destroy_workqueue(rm->wq);
	mempool_exit(&rm->flush_pool);
	bioset_exit(&rm->flush_bs);
	bioset_exit(&rm->split_bs);
	bioset_exit(&rm->clone_bs);
}
EXPORT_SYMBOL_GPL(md_remap_exit);
