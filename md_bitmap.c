// SPDX-License-Identifier: GPL-2.0
/*
 * The md internal write-intent bitmap, on disk as in-tree md keeps it.
 *
 * Design
 *
 * On disk.  Each member carries a copy at sb_start + bitmap_offset
 * (signed sectors, from the 1.x superblock, which sets
 * MD_FEATURE_BITMAP_OFFSET): a 256-byte superblock (struct
 * md_bitmap_sb) followed at byte 256 by one bit per chunk of
 * chunksize bytes of the resync space (mddev->resync_max_sectors: each
 * member's data area for raid1 and raid4/5/6).  Bit n is bit n % 8 of
 * byte n / 8 (little-endian bit order, set_bit_le()).  We keep the
 * whole image (superblock included) in pages and write it page by
 * page; the last page is cut to the logical block size.  Versions 3
 * and 4 are read (3 is "host-endian", the same bytes on the little-
 * endian hosts this builds for) and the version found is written back;
 * any other version, a clustered bitmap, a chunk size that is not a
 * power of two >= 512, a daemon_sleep of 0, a foreign uuid or a region
 * that would overlap the data or the superblock is refused with a
 * kernel-log reason.  A bitmap whose events are behind the array's, or
 * marked stale, cannot tell what is clean: every bit is set.  A bitmap
 * file (SET_BITMAP_FILE) holds the same image at offset 0 instead of
 * the members; it is read and written through the file's page cache
 * (kernel_read/kernel_write, then fsync) with NOIO allocations, each
 * round after an empty flush of every member (what PREFLUSH does for
 * pages on the members).
 *
 * Why it is safe.  A set bit means "the members may differ in this
 * chunk".  md_bitmap_startwrite() sets the bits of the chunks a write
 * touches and returns only once every page holding one of them has been
 * written (PREFLUSH, FUA) to every member; the personality issues member writes
 * after that.  So after a crash any chunk that may have a write only on
 * some members has its bit set on disk, and a resync that visits only
 * set bits restores consistency.  A bit is cleared only when its
 * chunk's in-flight count is 0, it stayed 0 for a whole daemon period
 * (lazy: a chunk being rewritten keeps its bit and pays nothing), and
 * the array is fully redundant and in sync (not degraded, no resync
 * pending, no recovery): only then do all members hold the same data
 * there.  Degraded arrays keep every bit, which is what lets a former
 * member come back (--re-add) and be rebuilt from the set bits only:
 * nothing it missed can have been cleared.  events_cleared records the
 * array's events at each clearing (page 0, written before the pages
 * whose bits were cleared), so a member older than that is rebuilt in
 * full.  raid1 ends a write (endwrite) only after md_error() has marked
 * any member whose clone failed, so a failed write leaves the array
 * degraded before its count can reach 0.
 *
 * Batching.  Setting a bit bumps dirty_seq and stamps the page with it;
 * a writer needs written_seq to reach the largest stamp of its pages.
 * The writer is inside the array's submit_bio (a bio it submitted
 * there would only be queued until it returns), so it kicks flush_work
 * on a WQ_MEM_RECLAIM workqueue and either sleeps on flush_wait
 * (md_bitmap_startwrite(), raid1) or, not to stall the submitter, gets
 * the stamp back and holds its member writes until md_bitmap_written()
 * (md_bitmap_startwrite_nowait(); raid5 parks the stripes and has
 * md_bitmap_notify() put a wake function on flush_wait).  The work
 * (io_mutex) writes every dirty page and then publishes the dirty_seq
 * it read before writing; every writer whose stamp that covers wakes,
 * so one page write serves every writer that dirtied the page
 * meanwhile, and a writer arriving during the write re-queues the work
 * for the next round.
 * A write to a chunk whose bit is already on disk takes only the
 * spinlock.  The time writers spend waiting is counted in
 * md/stats/bitmap_wait_total_ns and bitmap_wait_max_ns.
 *
 * Locking.  bm->lock (irq-safe spinlock) protects cnt[], the bits in the
 * page images, page_dirty[], page_seq[], dirty_seq, dirty_chunks and
 * the superblock fields in page 0.  io_mutex serialises page writes,
 * taken under the core's sb_mutex, which keeps the member list and the
 * members' bdevs stable while pages are written to them;
 * written_seq is stored under it with smp_store_release() and read with
 * smp_load_acquire() (the pair: a writer that sees its stamp covered
 * sees the completed IO).  The layout (chunks, chunk_shift, file_bytes,
 * npages and the arrays sized by them) changes only in
 * md_bitmap_resize(), under sb_mutex, io_mutex and bm->lock, with the
 * array suspended and no sync running: the sync thread's
 * md_bitmap_chunk_clean() reads it without bm->lock.  The daemon is a delayed work item, cancelled
 * before the bitmap is freed.  Lock order: sb_mutex -> io_mutex ->
 * bm->lock -> mddev->lock.  Array writes wait for flush_work, which
 * waits for sb_mutex; superblock writes under sb_mutex never wait for
 * array writes, so this cannot close a cycle.
 */
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/ctype.h>
#include <linux/log2.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/sched/clock.h>
#include <linux/sched/mm.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include "md_core.h"
#include "md_bitmap.h"

#define BM_BITS_PER_PAGE	(PAGE_SIZE * 8)
#define BM_SB_BITS		(MD_BITMAP_SB_BYTES * 8)
/* cnt[] flag: the count was 0 at the last daemon pass */
#define BM_AGED			0x80000000u
#define BM_COUNT		0x7fffffffu

struct md_bitmap {
	struct mddev *mddev;
	s32 offset;			/* sectors from each sb_start */
	struct file *file;		/* mddev->bitmap_file, or NULL */
	unsigned long chunks;
	unsigned int chunk_shift;	/* log2 of sectors per chunk */
	unsigned long daemon_jiffies;
	unsigned int file_bytes;	/* superblock + bits */
	unsigned int npages;
	struct page **pages;		/* the image; page 0 starts with the sb */

	spinlock_t lock;		/* see the file comment */
	u32 *cnt;			/* per chunk: writes in flight | BM_AGED */
	unsigned long *page_dirty;	/* pages to write */
	u64 *page_seq;			/* dirty_seq when a bit was last set */
	u64 dirty_seq;
	unsigned long dirty_chunks;	/* bits set */
	u64 events_cleared;
	bool cleared;			/* bits cleared: write page 0 first */

	struct mutex io_mutex;		/* one round of page writes at a time */
	u64 written_seq;		/* io_mutex; acquire/release */
	bool no_clear;			/* md/bitmap/can_clear "false" */
	/*
	 * md/bitmap/max_backlog_used: raised (cmpxchg) by raid1 from any
	 * context, reset by a store under reconfig_mutex.
	 */
	atomic_t behind_max;

	/*
	 * Writers cannot issue the page writes themselves: they run inside
	 * the array's submit_bio, where bios they submit are only queued
	 * until they return.  flush_work does it and wakes flush_wait.
	 */
	struct workqueue_struct *wq;
	struct work_struct flush_work;
	wait_queue_head_t flush_wait;

	struct delayed_work daemon;
};

static struct md_bitmap_sb *bm_sb(struct md_bitmap *bm)
{
	return page_address(bm->pages[0]);
}

static void bm_bit_pos(unsigned long chunk, unsigned int *page,
		       unsigned int *bit)
{
	unsigned long n = chunk + BM_SB_BITS;

	*page = n / BM_BITS_PER_PAGE;
	*bit = n % BM_BITS_PER_PAGE;
}

static bool bm_test(struct md_bitmap *bm, unsigned long chunk)
{
	unsigned int p, b;

	bm_bit_pos(chunk, &p, &b);
	return test_bit_le(b, page_address(bm->pages[p]));
}

/* ---- member IO ---------------------------------------------------- */

static unsigned int bm_page_bytes(struct md_bitmap *bm, struct md_rdev *rdev,
				  unsigned int p)
{
	unsigned int left = bm->file_bytes - p * PAGE_SIZE;

	if (left >= PAGE_SIZE)
		return PAGE_SIZE;
	return round_up(left, bdev_logical_block_size(rdev->bdev));
}

/*
 * Would an image of @bytes on @rdev overlap nothing: data, superblock,
 * or the bad-block log area (1.0 puts it between the bitmap and the
 * superblock)?
 */
static bool bm_fits_bytes(struct md_bitmap *bm, struct md_rdev *rdev,
			  unsigned int bytes)
{
	s64 start = (s64)rdev->sb_start + bm->offset;
	s64 len = DIV_ROUND_UP(round_up(bytes,
					bdev_logical_block_size(rdev->bdev)),
			       512);
	s64 data = rdev->data_offset, data_end = data + rdev->sectors;
	s64 sb = rdev->sb_start, sb_end = sb + 8;
	s64 bb = rdev->badblocks.sector, bb_end = bb + rdev->badblocks.size;

	if (start < 0 || start + len > (s64)bdev_nr_sectors(rdev->bdev))
		return false;
	if (start < data_end && start + len > data)
		return false;
	if (bb_end > bb && start < bb_end && start + len > bb)
		return false;
	return !(start < sb_end && start + len > sb);
}

/* Where the image would lie on @rdev, and whether it overlaps nothing. */
static bool bm_fits(struct md_bitmap *bm, struct md_rdev *rdev)
{
	return bm_fits_bytes(bm, rdev, bm->file_bytes);
}

static bool bm_member(struct md_bitmap *bm, struct md_rdev *rdev)
{
	return rdev->bdev && rdev->sb_page && rdev->desc_nr >= 0 &&
	       !test_bit(RD_FAULTY, &rdev->flags) && bm_fits(bm, rdev);
}

struct bm_batch {
	atomic_t pending;
	struct completion done;
};

struct bm_io {
	struct bio bio;
	struct bio_vec bvec;
	struct md_rdev *rdev;
	struct bm_batch *batch;
};

static void bm_io_end(struct bio *bio)
{
	struct bm_io *io = container_of(bio, struct bm_io, bio);

	if (atomic_dec_and_test(&io->batch->pending))
		complete(&io->batch->done);
}

/*
 * A page write flushes the member's cache first (PREFLUSH), as in-tree's
 * superblock writes do, then is durable itself (FUA).  The flush is what
 * makes clearing safe: a cleared bit says the members agree on a chunk,
 * which is true only once the writes that made them agree have left the
 * members' volatile caches; without it the bit could reach the platter
 * first, and a power cut would leave mirrors that differ with nothing
 * telling a resync to look.
 */
#define BM_PAGE_OPF	(REQ_OP_WRITE | REQ_SYNC | REQ_PREFLUSH | REQ_FUA | \
			 REQ_META)

/* Write page @p to every member, or with @which the pages set in it. */
static void bm_write_round(struct md_bitmap *bm, struct bm_io *ios,
			   unsigned int max, unsigned long *which, int p_only)
{
	struct mddev *mddev = bm->mddev;
	struct bm_batch batch;
	struct md_rdev *rdev;
	struct blk_plug plug;
	unsigned int p, n = 0, i;

	atomic_set(&batch.pending, 1);
	init_completion(&batch.done);
	blk_start_plug(&plug);
	rdev_for_each(rdev, mddev) {
		if (!bm_member(bm, rdev))
			continue;
		for (p = 0; p < bm->npages && n < max; p++) {
			if (p_only >= 0 ? (int)p != p_only : !test_bit(p, which))
				continue;
			bio_init(&ios[n].bio, rdev->bdev, &ios[n].bvec, 1,
				 BM_PAGE_OPF);
			ios[n].bio.bi_iter.bi_sector =
				rdev->sb_start + bm->offset + p * (PAGE_SIZE >> 9);
			__bio_add_page(&ios[n].bio, bm->pages[p],
				       bm_page_bytes(bm, rdev, p), 0);
			ios[n].bio.bi_end_io = bm_io_end;
			ios[n].rdev = rdev;
			ios[n].batch = &batch;
			atomic_inc(&batch.pending);
			submit_bio(&ios[n].bio);
			n++;
		}
	}
	blk_finish_plug(&plug);
	if (!atomic_dec_and_test(&batch.pending))
		wait_for_completion_io(&batch.done);
	for (i = 0; i < n; i++) {
		if (ios[i].bio.bi_status) {
			pr_warn("md: %s: %pg: bitmap write failed (%d)\n",
				mdname(mddev), ios[i].rdev->bdev,
				blk_status_to_errno(ios[i].bio.bi_status));
			md_error(mddev, ios[i].rdev);
		}
		bio_uninit(&ios[i].bio);
	}
}

/* No memory for a parallel round: one page, one member at a time. */
static void bm_write_serial(struct md_bitmap *bm, unsigned long *which,
			    int first)
{
	struct mddev *mddev = bm->mddev;
	struct md_rdev *rdev;
	struct bio_vec bvec;
	struct bio bio;
	int p, pass;

	for (pass = 0; pass < 2; pass++) {
		for (p = 0; p < (int)bm->npages; p++) {
			if (pass == 0 ? p != first :
			    (p == first || !test_bit(p, which)))
				continue;
			rdev_for_each(rdev, mddev) {
				if (!bm_member(bm, rdev))
					continue;
				bio_init(&bio, rdev->bdev, &bvec, 1,
					 BM_PAGE_OPF);
				bio.bi_iter.bi_sector = rdev->sb_start +
					bm->offset + p * (PAGE_SIZE >> 9);
				__bio_add_page(&bio, bm->pages[p],
					       bm_page_bytes(bm, rdev, p), 0);
				if (submit_bio_wait(&bio)) {
					pr_warn("md: %s: %pg: bitmap write failed\n",
						mdname(mddev), rdev->bdev);
					md_error(mddev, rdev);
				}
				bio_uninit(&bio);
			}
		}
	}
}

/* ---- file IO ------------------------------------------------------ */

/* Bytes of page @p in a bitmap file: the image is not padded there. */
static unsigned int bm_file_page_bytes(struct md_bitmap *bm, unsigned int p)
{
	return min_t(unsigned int, PAGE_SIZE, bm->file_bytes - p * PAGE_SIZE);
}

static int bm_file_read(struct md_bitmap *bm)
{
	unsigned int p, n;
	ssize_t got;
	loff_t pos;

	for (p = 0; p < bm->npages; p++) {
		n = bm_file_page_bytes(bm, p);
		pos = (loff_t)p * PAGE_SIZE;
		got = kernel_read(bm->file, page_address(bm->pages[p]), n, &pos);
		if (got < 0)
			return got;
		if (got != n)
			return -ENODATA;	/* the file is too short */
	}
	return 0;
}

/*
 * The bits may not have reached the file.  Mark it stale (sticky for
 * this load; page 0 is tried again) and have the superblocks written:
 * their events then pass the file's unless that write lands, so either
 * way the next assembly finds the file stale or behind and resyncs
 * every chunk.
 */
static void bm_file_failed(struct md_bitmap *bm, int err)
{
	struct md_bitmap_sb *sb = bm_sb(bm);
	unsigned long flags;

	pr_err_ratelimited("md: %s: bitmap file write failed (%d): marked stale, the next assembly resyncs everything\n",
			   mdname(bm->mddev), err);
	spin_lock_irqsave(&bm->lock, flags);
	sb->state = cpu_to_le32(le32_to_cpu(sb->state) |
				BIT(MD_BITMAP_STATE_STALE));
	__set_bit(0, bm->page_dirty);
	spin_unlock_irqrestore(&bm->lock, flags);
	set_bit(MD_SB_CHANGE_DEVS, &bm->mddev->sb_flags);
	md_wakeup_thread(bm->mddev);
}

static int bm_file_write_page(struct md_bitmap *bm, unsigned int p)
{
	unsigned int n = bm_file_page_bytes(bm, p);
	loff_t pos = (loff_t)p * PAGE_SIZE;
	ssize_t done;

	done = kernel_write(bm->file, page_address(bm->pages[p]), n, &pos);
	if (done < 0)
		return done;
	return done == n ? 0 : -EIO;
}

/*
 * A bitmap file's fsync flushes the file's device, not the members: the
 * flush BM_PAGE_OPF gives member pages comes here as an empty PREFLUSH
 * to every member first, so no bit the round clears reaches the file
 * before the writes that made the chunk agree leave the members' caches.
 * A member that fails the flush may have lost them: md_error().
 */
static void bm_flush_members(struct md_bitmap *bm)
{
	struct mddev *mddev = bm->mddev;
	struct md_rdev *rdev;

	rdev_for_each(rdev, mddev) {
		if (!rdev->bdev || rdev->desc_nr < 0 ||
		    test_bit(RD_FAULTY, &rdev->flags))
			continue;
		if (md_rdev_flush(rdev)) {
			pr_warn("md: %s: %pg: flush before a bitmap file write failed\n",
				mdname(mddev), rdev->bdev);
			md_error(mddev, rdev);
		}
	}
}

/*
 * bm_write_pages() for a bitmap file: the members flushed, then through
 * the file's page cache (where mdadm --examine-bitmap reads it), then
 * fsync, @first synced alone before the others.  NOIO: reclaim entered
 * by the file system's allocations must not write to this array and
 * wait for us.
 */
static void bm_file_write(struct md_bitmap *bm, unsigned long *which,
			  int first)
{
	unsigned int noio;
	unsigned int p;
	int err = 0;

	bm_flush_members(bm);
	noio = memalloc_noio_save();
	if (first >= 0) {
		err = bm_file_write_page(bm, first);
		if (!err)
			err = vfs_fsync(bm->file, 1);
	}
	for_each_set_bit(p, which, bm->npages)
		if (!err && (int)p != first)
			err = bm_file_write_page(bm, p);
	if (!err)
		err = vfs_fsync(bm->file, 1);
	memalloc_noio_restore(noio);
	if (err)
		bm_file_failed(bm, err);
}

/*
 * Write the pages set in @which to every member, all in parallel; with
 * @first >= 0 that page goes to every member before the others.
 * io_mutex held.  Members whose write fails go to md_error().  A bitmap
 * file gets them instead.
 */
static void bm_write_pages(struct md_bitmap *bm, unsigned long *which,
			   int first)
{
	struct mddev *mddev = bm->mddev;
	struct md_rdev *rdev;
	unsigned int max = 0;
	struct bm_io *ios;

	lockdep_assert_held(&bm->io_mutex);
	if (bm->file) {
		bm_file_write(bm, which, first);
		return;
	}
	rdev_for_each(rdev, mddev)
		max++;
	max *= bm->npages;
	if (!max)
		return;
	ios = kvcalloc(max, sizeof(*ios), GFP_NOIO);
	if (!ios) {
		bm_write_serial(bm, which, first);
		return;
	}
	if (first >= 0) {
		bm_write_round(bm, ios, max, which, first);
		clear_bit(first, which);
	}
	if (!bitmap_empty(which, bm->npages))
		bm_write_round(bm, ios, max, which, -1);
	kvfree(ios);
}

/*
 * Write every dirty page; then every bit set with a stamp up to the
 * dirty_seq read here is on disk.  io_mutex held.
 */
static void bm_write_dirty(struct md_bitmap *bm)
{
	unsigned long *which;
	unsigned long flags;
	int first = -1;
	u64 target;

	/* sb_mutex: the member list and their bdevs stay as they are */
	lockdep_assert_held(&to_core(bm->mddev)->sb_mutex);
	lockdep_assert_held(&bm->io_mutex);
	which = bitmap_zalloc(bm->npages, GFP_NOIO);
	if (!which)
		return;
	spin_lock_irqsave(&bm->lock, flags);
	target = bm->dirty_seq;
	bitmap_copy(which, bm->page_dirty, bm->npages);
	bitmap_zero(bm->page_dirty, bm->npages);
	if (bm->cleared) {
		/* events_cleared durable before the cleared bits */
		bm->cleared = false;
		bm_sb(bm)->events_cleared = cpu_to_le64(bm->events_cleared);
		first = 0;
	}
	spin_unlock_irqrestore(&bm->lock, flags);
	if (!bitmap_empty(which, bm->npages) || first == 0)
		bm_write_pages(bm, which, first);
	bitmap_free(which);
	/* pairs with smp_load_acquire() in md_bitmap_startwrite() */
	smp_store_release(&bm->written_seq, target);
	wake_up_all(&bm->flush_wait);
}

/* bm_write_dirty() for callers that hold neither sb_mutex nor io_mutex. */
static void bm_write_locked(struct md_bitmap *bm)
{
	struct md_core *core = to_core(bm->mddev);

	mutex_lock(&core->sb_mutex);
	mutex_lock(&bm->io_mutex);
	bm_write_dirty(bm);
	mutex_unlock(&bm->io_mutex);
	mutex_unlock(&core->sb_mutex);
}

/* ---- the write path ------------------------------------------------ */

/*
 * Set chunk @c's bit in the image; if it was clear, its page is dirty
 * and gets a new sequence number.  Returns the bit's page.
 */
static unsigned int bm_set_bit(struct md_bitmap *bm, unsigned long c)
{
	unsigned int p, b;

	lockdep_assert_held(&bm->lock);
	bm_bit_pos(c, &p, &b);
	if (!test_bit_le(b, page_address(bm->pages[p]))) {
		__set_bit_le(b, page_address(bm->pages[p]));
		bm->dirty_chunks++;
		__set_bit(p, bm->page_dirty);
		bm->page_seq[p] = ++bm->dirty_seq;
	}
	return p;
}

u64 md_bitmap_startwrite_nowait(struct md_bitmap *bm, sector_t sector,
				sector_t sectors)
{
	unsigned long c, first, last;
	unsigned int p;
	u64 need = 0;

	if (!bm || !sectors)
		return 0;
	first = sector >> bm->chunk_shift;
	last = min_t(unsigned long, (sector + sectors - 1) >> bm->chunk_shift,
		     bm->chunks - 1);
	spin_lock_irq(&bm->lock);
	for (c = first; c <= last; c++) {
		bm->cnt[c] = (bm->cnt[c] & BM_COUNT) + 1;
		p = bm_set_bit(bm, c);
		/* a bit set by another writer may not be on disk yet */
		need = max(need, bm->page_seq[p]);
	}
	spin_unlock_irq(&bm->lock);

	/* pairs with smp_store_release() in bm_write_dirty() */
	if (smp_load_acquire(&bm->written_seq) >= need)
		return 0;
	queue_work(bm->wq, &bm->flush_work);
	return need;
}
EXPORT_SYMBOL_GPL(md_bitmap_startwrite_nowait);

bool md_bitmap_written(struct md_bitmap *bm, u64 need)
{
	/* pairs with smp_store_release() in bm_write_dirty() */
	return smp_load_acquire(&bm->written_seq) >= need;
}
EXPORT_SYMBOL_GPL(md_bitmap_written);

bool md_bitmap_notify(struct md_bitmap *bm, u64 need,
		      struct wait_queue_entry *wqe)
{
	unsigned long flags;

	if (md_bitmap_written(bm, need))
		return true;
	spin_lock_irqsave(&bm->flush_wait.lock, flags);
	if (list_empty(&wqe->entry))
		__add_wait_queue_entry_tail(&bm->flush_wait, wqe);
	spin_unlock_irqrestore(&bm->flush_wait.lock, flags);
	/*
	 * A round that published before the entry was queued woke nobody;
	 * its store came before its wake_up_all() took the lock we just
	 * released, so this load sees it.
	 */
	return md_bitmap_written(bm, need);
}
EXPORT_SYMBOL_GPL(md_bitmap_notify);

void md_bitmap_notify_cancel(struct md_bitmap *bm,
			     struct wait_queue_entry *wqe)
{
	unsigned long flags;

	if (!bm)
		return;
	spin_lock_irqsave(&bm->flush_wait.lock, flags);
	list_del_init(&wqe->entry);
	spin_unlock_irqrestore(&bm->flush_wait.lock, flags);
}
EXPORT_SYMBOL_GPL(md_bitmap_notify_cancel);

void md_bitmap_count_wait(struct md_bitmap *bm, u64 ns)
{
	md_bitmap_waited(bm->mddev, ns);
}
EXPORT_SYMBOL_GPL(md_bitmap_count_wait);

static void md_bitmap_wait_written(struct md_bitmap *bm, u64 need, u64 since)
{
	/* acquire: pairs with the release in bm_write_dirty() */
	wait_event(bm->flush_wait, smp_load_acquire(&bm->written_seq) >= need);
	md_bitmap_waited(bm->mddev, local_clock() - since);
}

void md_bitmap_startwrite(struct md_bitmap *bm, sector_t sector,
			  sector_t sectors)
{
	u64 need = md_bitmap_startwrite_nowait(bm, sector, sectors);

	if (need)
		md_bitmap_wait_written(bm, need, local_clock());
}
EXPORT_SYMBOL_GPL(md_bitmap_startwrite);

static void bm_flush_work(struct work_struct *work)
{
	struct md_bitmap *bm = container_of(work, struct md_bitmap,
					    flush_work);

	bm_write_locked(bm);
}

void md_bitmap_endwrite(struct md_bitmap *bm, sector_t sector,
			sector_t sectors)
{
	unsigned long c, first, last, flags;

	if (!bm || !sectors)
		return;
	first = sector >> bm->chunk_shift;
	last = min_t(unsigned long, (sector + sectors - 1) >> bm->chunk_shift,
		     bm->chunks - 1);
	spin_lock_irqsave(&bm->lock, flags);
	for (c = first; c <= last; c++)
		if (!WARN_ON_ONCE(!(bm->cnt[c] & BM_COUNT)))
			bm->cnt[c] = (bm->cnt[c] & BM_COUNT) - 1;
	spin_unlock_irqrestore(&bm->lock, flags);
}
EXPORT_SYMBOL_GPL(md_bitmap_endwrite);

bool md_bitmap_chunk_clean(struct md_bitmap *bm, sector_t sector,
			   sector_t *sectors)
{
	unsigned long c = sector >> bm->chunk_shift;
	sector_t chunk = (sector_t)1 << bm->chunk_shift;
	unsigned long flags;
	bool clean;

	*sectors = chunk - (sector & (chunk - 1));
	if (c >= bm->chunks)
		return false;
	spin_lock_irqsave(&bm->lock, flags);
	clean = !bm_test(bm, c);
	spin_unlock_irqrestore(&bm->lock, flags);
	return clean;
}
EXPORT_SYMBOL_GPL(md_bitmap_chunk_clean);

unsigned int md_bitmap_backlog(struct md_bitmap *bm)
{
	/*
	 * Page 0 changes only in md_bitmap_resize(), with no array IO;
	 * the field is stored under bm->lock, read here with one aligned
	 * load.
	 */
	return le32_to_cpu(READ_ONCE(bm_sb(bm)->write_behind));
}
EXPORT_SYMBOL_GPL(md_bitmap_backlog);

void md_bitmap_behind_seen(struct md_bitmap *bm, unsigned int n)
{
	int old = atomic_read(&bm->behind_max);

	do {
		if (old >= (int)n)
			return;
	} while (!atomic_try_cmpxchg(&bm->behind_max, &old, n));
}
EXPORT_SYMBOL_GPL(md_bitmap_behind_seen);

/* ---- lazy clearing ------------------------------------------------- */

/* All members identical wherever no write is in flight?  bm->lock held. */
static bool bm_may_clear(struct md_bitmap *bm)
{
	struct mddev *mddev = bm->mddev;

	/*
	 * Read under bm->lock: md_error() updated degraded before the
	 * failed write's endwrite took this lock, so a count we see at 0
	 * comes with the degraded value that went with it.
	 */
	lockdep_assert_held(&bm->lock);
	return !READ_ONCE(bm->no_clear) &&
	       !READ_ONCE(mddev->ro) && !READ_ONCE(mddev->degraded) &&
	       READ_ONCE(mddev->resync_offset) == MD_MAX_SECTOR &&
	       !test_bit(MDR_RECOVER, &mddev->recovery);
}

/*
 * One clearing pass: a bit whose chunk had no write in flight at the
 * previous pass and still has none is cleared.  @now: clear without
 * waiting a period (stop).  Returns whether bits remain set.
 */
static bool bm_clear_pass(struct md_bitmap *bm, bool now)
{
	unsigned long c, flags;
	unsigned int p, b;
	bool left = false;

	spin_lock_irqsave(&bm->lock, flags);
	if (!bm_may_clear(bm)) {
		left = bm->dirty_chunks;
		goto unlock;
	}
	for (p = 0; p < bm->npages; p++) {
		void *addr = page_address(bm->pages[p]);
		unsigned int from = p ? 0 : BM_SB_BITS;
		unsigned int bits = min_t(unsigned long, BM_BITS_PER_PAGE,
					  bm->chunks + BM_SB_BITS -
					  (unsigned long)p * BM_BITS_PER_PAGE);

		for (b = find_next_bit_le(addr, bits, from); b < bits;
		     b = find_next_bit_le(addr, bits, b + 1)) {
			c = (unsigned long)p * BM_BITS_PER_PAGE + b - BM_SB_BITS;
			if (bm->cnt[c] & BM_COUNT) {
				left = true;
				continue;
			}
			if (!now && !(bm->cnt[c] & BM_AGED)) {
				bm->cnt[c] |= BM_AGED;
				left = true;
				continue;
			}
			__clear_bit_le(b, addr);
			bm->cnt[c] = 0;
			bm->dirty_chunks--;
			__set_bit(p, bm->page_dirty);
			bm->cleared = true;
		}
	}
	if (bm->cleared)
		bm->events_cleared = READ_ONCE(bm->mddev->events);
unlock:
	spin_unlock_irqrestore(&bm->lock, flags);
	return left;
}

static void bm_daemon(struct work_struct *work)
{
	struct md_bitmap *bm = container_of(to_delayed_work(work),
					    struct md_bitmap, daemon);

	bm_clear_pass(bm, false);
	if (!READ_ONCE(bm->mddev->ro))
		bm_write_locked(bm);
	schedule_delayed_work(&bm->daemon, bm->daemon_jiffies);
}

void md_bitmap_flush(struct mddev *mddev)
{
	struct md_bitmap *bm = mddev->bitmap;

	if (!bm || mddev->ro)
		return;
	bm_clear_pass(bm, true);
	bm_write_locked(bm);
}

/* ---- superblock ---------------------------------------------------- */

void md_bitmap_update_sb(struct mddev *mddev, u64 events)
{
	struct md_bitmap *bm = mddev->bitmap;
	unsigned long flags;

	if (!bm || mddev->ro)
		return;
	/* md_super_write_all() holds sb_mutex */
	mutex_lock(&bm->io_mutex);
	spin_lock_irqsave(&bm->lock, flags);
	bm_sb(bm)->events = cpu_to_le64(events);
	/*
	 * sync_size is set by create and resize, under this mutex: copied
	 * from resync_max_sectors here, it could undo a resize that has
	 * not yet stored the new length there.
	 */
	__set_bit(0, bm->page_dirty);
	spin_unlock_irqrestore(&bm->lock, flags);
	bm_write_dirty(bm);
	mutex_unlock(&bm->io_mutex);
}

void md_bitmap_write_all(struct mddev *mddev)
{
	struct md_bitmap *bm = mddev->bitmap;
	unsigned long flags;

	if (!bm || mddev->ro)
		return;
	spin_lock_irqsave(&bm->lock, flags);
	bitmap_fill(bm->page_dirty, bm->npages);
	spin_unlock_irqrestore(&bm->lock, flags);
	bm_write_locked(bm);
}

bool md_bitmap_readd_ok(struct mddev *mddev, u64 events)
{
	struct md_bitmap *bm = mddev->bitmap;
	unsigned long flags;
	bool ok;

	if (!bm)
		return false;
	spin_lock_irqsave(&bm->lock, flags);
	ok = events >= bm->events_cleared && events <= mddev->events;
	spin_unlock_irqrestore(&bm->lock, flags);
	return ok;
}

void md_bitmap_status(struct seq_file *seq, struct mddev *mddev)
{
	struct md_bitmap *bm = mddev->bitmap;
	unsigned long per_page = PAGE_SIZE / 2, pages, used;

	if (!bm)
		return;
	/*
	 * As in-tree: "pages" of 16-bit counters, PAGE_SIZE / 2 chunks
	 * each; a page counts as used while it covers a set bit.  Read
	 * without bm->lock (mddev->lock is held): a racy count is fine.
	 */
	pages = DIV_ROUND_UP(bm->chunks, per_page);
	used = min(pages, READ_ONCE(bm->dirty_chunks));
	seq_printf(seq, "bitmap: %lu/%lu pages [%luKB], %lluKB chunk",
		   used, pages, used << (PAGE_SHIFT - 10),
		   ((u64)1 << bm->chunk_shift) / 2);
	if (bm->file) {
		seq_puts(seq, ", file: ");
		seq_file_path(seq, bm->file, " \t\n");
	}
	seq_putc(seq, '\n');
}

/* ---- load ---------------------------------------------------------- */

/* For messages: the member the bitmap was read from, or the file. */
static const char *bm_where(struct md_bitmap *bm, struct md_rdev *rdev,
			    char *buf)
{
	if (bm->file)
		return "bitmap file";
	snprintf(buf, BDEVNAME_SIZE, "%pg", rdev->bdev);
	return buf;
}

static int bm_read(struct md_bitmap *bm, struct md_rdev *rdev)
{
	struct bio_vec bvec;
	struct bio bio;
	unsigned int p;
	int ret = 0;

	if (bm->file)
		return bm_file_read(bm);
	for (p = 0; p < bm->npages && !ret; p++) {
		bio_init(&bio, rdev->bdev, &bvec, 1, REQ_OP_READ | REQ_META);
		bio.bi_iter.bi_sector = rdev->sb_start + bm->offset +
					p * (PAGE_SIZE >> 9);
		__bio_add_page(&bio, bm->pages[p], bm_page_bytes(bm, rdev, p), 0);
		ret = submit_bio_wait(&bio);
		bio_uninit(&bio);
	}
	return ret;
}

/* Check the superblock in page 0; sets the geometry.  0 or -EINVAL. */
static int bm_validate(struct md_bitmap *bm, struct md_rdev *rdev)
{
	struct mddev *mddev = bm->mddev;
	struct md_bitmap_sb *sb = bm_sb(bm);
	u32 version = le32_to_cpu(sb->version);
	u32 chunk = le32_to_cpu(sb->chunksize);
	u32 sleep = le32_to_cpu(sb->daemon_sleep);
	const char *why = NULL;
	char name[BDEVNAME_SIZE];

	if (le32_to_cpu(sb->magic) != MD_BITMAP_MAGIC)
		why = "bad bitmap magic";
	else if (version == 5)
		why = "clustered bitmap (version 5) not supported";
	else if (version < 3 || version > 4)
		why = "unsupported bitmap version";
	else if (le32_to_cpu(sb->nodes))
		why = "clustered bitmap (nodes set) not supported";
	else if (chunk < 512 || !is_power_of_2(chunk))
		why = "bitmap chunksize invalid";
	else if (sleep < 1 || sleep > 86400)
		why = "bitmap daemon_sleep out of range";
	/* an array without superblocks has no uuid of its own */
	else if (mddev->persistent &&
		 memcmp(sb->uuid, mddev->uuid, sizeof(sb->uuid)))
		why = "bitmap uuid does not match the array";
	if (why) {
		pr_warn("md: %s: %s: %s (magic 0x%08x version %u chunksize %u daemon_sleep %u)\n",
			mdname(mddev), bm_where(bm, rdev, name), why,
			le32_to_cpu(sb->magic), version, chunk, sleep);
		return -EINVAL;
	}
	bm->chunk_shift = ilog2(chunk >> 9);
	bm->daemon_jiffies = (unsigned long)sleep * HZ;
	return 0;
}

/* An in-sync member holding the array's events: it has the newest copy. */
static struct md_rdev *bm_source(struct mddev *mddev, bool fresh)
{
	struct md_rdev *rdev;

	rdev_for_each(rdev, mddev)
		if (rdev->raid_disk >= 0 && test_bit(RD_IN_SYNC, &rdev->flags) &&
		    !test_bit(RD_FAULTY, &rdev->flags) &&
		    (!fresh || rdev->sb_events == mddev->events))
			return rdev;
	return NULL;
}

/* The parts of a bitmap sized by its layout, swapped as one by a resize. */
struct bm_image {
	unsigned long chunks;
	unsigned int shift, bytes, npages;
	struct page **pages;
	u32 *cnt;
	unsigned long *page_dirty;
	u64 *page_seq;
};

static void bm_image_free(struct bm_image *im)
{
	unsigned int p;

	if (im->pages)
		for (p = 0; p < im->npages; p++)
			if (im->pages[p])
				__free_page(im->pages[p]);
	kfree(im->pages);
	kvfree(im->cnt);
	bitmap_free(im->page_dirty);
	kfree(im->page_seq);
}

/* Allocate @im's arrays for its chunks and npages (zeroed). */
static int bm_image_alloc(struct bm_image *im)
{
	unsigned int p;

	im->pages = kcalloc(im->npages, sizeof(*im->pages), GFP_KERNEL);
	im->cnt = kvcalloc(im->chunks, sizeof(*im->cnt), GFP_KERNEL);
	im->page_dirty = bitmap_zalloc(im->npages, GFP_KERNEL);
	im->page_seq = kcalloc(im->npages, sizeof(*im->page_seq), GFP_KERNEL);
	if (!im->pages || !im->cnt || !im->page_dirty || !im->page_seq)
		return -ENOMEM;
	for (p = 0; p < im->npages; p++) {
		im->pages[p] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		if (!im->pages[p])
			return -ENOMEM;
	}
	return 0;
}

static struct bm_image bm_image_of(struct md_bitmap *bm)
{
	return (struct bm_image){
		.chunks = bm->chunks, .shift = bm->chunk_shift,
		.bytes = bm->file_bytes, .npages = bm->npages,
		.pages = bm->pages, .cnt = bm->cnt,
		.page_dirty = bm->page_dirty, .page_seq = bm->page_seq,
	};
}

static void bm_image_install(struct md_bitmap *bm, struct bm_image *im)
{
	bm->chunks = im->chunks;
	bm->chunk_shift = im->shift;
	bm->file_bytes = im->bytes;
	bm->npages = im->npages;
	bm->pages = im->pages;
	bm->cnt = im->cnt;
	bm->page_dirty = im->page_dirty;
	bm->page_seq = im->page_seq;
}

static void bm_free(struct md_bitmap *bm)
{
	struct bm_image im = bm_image_of(bm);

	bm_image_free(&im);
	if (bm->wq)
		destroy_workqueue(bm->wq);
	kfree(bm);
}

/* Count the set bits and clear any beyond the last chunk. */
static void bm_count_bits(struct md_bitmap *bm)
{
	unsigned long c;

	bm->dirty_chunks = 0;
	for (c = 0; c < bm->chunks; c++)
		if (bm_test(bm, c))
			bm->dirty_chunks++;
}

static void bm_set_all(struct md_bitmap *bm)
{
	unsigned long c;
	unsigned int p, b;

	for (c = 0; c < bm->chunks; c++) {
		bm_bit_pos(c, &p, &b);
		__set_bit_le(b, page_address(bm->pages[p]));
	}
	bm->dirty_chunks = bm->chunks;
}

/*
 * Set mddev->bitmap.  Readers outside reconfig_mutex: superblock writes
 * (under sb_mutex) and /proc/mdstat (under mddev->lock); take both.
 */
static void bm_publish(struct mddev *mddev, struct md_bitmap *bm)
{
	struct md_core *core = to_core(mddev);

	mutex_lock(&core->sb_mutex);
	spin_lock_irq(&mddev->lock);
	WRITE_ONCE(mddev->bitmap, bm);
	spin_unlock_irq(&mddev->lock);
	mutex_unlock(&core->sb_mutex);
}

int md_bitmap_create(struct mddev *mddev)
{
	struct md_rdev *rdev = NULL;
	char name[BDEVNAME_SIZE];
	struct md_bitmap_sb *sb;
	struct bm_image im;
	struct md_bitmap *bm;
	struct page *probe;
	u32 state, chunk, sleep;
	u64 events;
	int err;

	lockdep_assert_held(&mddev->reconfig_mutex);
	if (mddev->bitmap || (!mddev->bitmap_offset && !mddev->bitmap_file))
		return 0;
	if (mddev->level != 1 && mddev->level != 4 && mddev->level != 5 &&
	    mddev->level != 6 && mddev->level != 10) {
		pr_warn("md: %s: bitmap not supported for level %d yet\n",
			mdname(mddev), mddev->level);
		return -EINVAL;
	}
	if (!mddev->bitmap_file) {
		rdev = bm_source(mddev, true);
		if (!rdev)
			rdev = bm_source(mddev, false);
	}
	if (!rdev && !mddev->bitmap_file) {
		pr_warn("md: %s: no in-sync member to read the bitmap from\n",
			mdname(mddev));
		return -EINVAL;
	}

	bm = kzalloc(sizeof(*bm), GFP_KERNEL);
	if (!bm)
		return -ENOMEM;
	bm->mddev = mddev;
	bm->offset = mddev->bitmap_offset;
	bm->file = mddev->bitmap_file;
	spin_lock_init(&bm->lock);
	mutex_init(&bm->io_mutex);
	INIT_DELAYED_WORK(&bm->daemon, bm_daemon);
	INIT_WORK(&bm->flush_work, bm_flush_work);
	init_waitqueue_head(&bm->flush_wait);
	bm->wq = alloc_workqueue("%s_bitmap", WQ_MEM_RECLAIM, 1,
				 mdname(mddev));
	if (!bm->wq) {
		kfree(bm);
		return -ENOMEM;
	}

	/* the superblock first: it tells the geometry */
	bm->npages = 1;
	bm->file_bytes = MD_BITMAP_SB_BYTES;
	err = -EINVAL;
	if (!bm->file && !bm_fits(bm, rdev)) {
		pr_warn("md: %s: %pg: bitmap offset %d overlaps the data or superblock\n",
			mdname(mddev), rdev->bdev, bm->offset);
		goto free_bm;
	}
	probe = alloc_page(GFP_KERNEL | __GFP_ZERO);
	err = -ENOMEM;
	if (!probe)
		goto free_bm;
	bm->pages = &probe;
	err = bm_read(bm, rdev);
	if (!err)
		err = bm_validate(bm, rdev);
	else
		pr_warn("md: %s: %s: cannot read the bitmap (%d)\n",
			mdname(mddev), bm_where(bm, rdev, name), err);
	bm->pages = NULL;
	if (err) {
		__free_page(probe);
		goto free_bm;
	}

	/* a bit for every chunk of the resync space */
	bm->chunks = DIV_ROUND_UP_SECTOR_T(mddev->resync_max_sectors,
					   (sector_t)1 << bm->chunk_shift);
	bm->file_bytes = MD_BITMAP_SB_BYTES + DIV_ROUND_UP(bm->chunks, 8);
	bm->npages = DIV_ROUND_UP(bm->file_bytes, PAGE_SIZE);
	if (!bm->file && !bm_fits(bm, rdev)) {
		pr_warn("md: %s: %pg: bitmap of %u bytes at offset %d overlaps the data or superblock\n",
			mdname(mddev), rdev->bdev, bm->file_bytes, bm->offset);
		__free_page(probe);
		err = -EINVAL;
		goto free_bm;
	}
	im = bm_image_of(bm);
	err = bm_image_alloc(&im);
	/* bm_free() frees what was allocated */
	bm_image_install(bm, &im);
	__free_page(probe);
	if (err)
		goto free_bm;
	err = bm_read(bm, rdev);
	if (err) {
		pr_warn("md: %s: %s: cannot read the bitmap (%d)\n",
			mdname(mddev), bm_where(bm, rdev, name), err);
		goto free_bm;
	}
	sb = bm_sb(bm);
	/* the re-read superblock must be the one just checked */
	err = bm_validate(bm, rdev);
	if (err)
		goto free_bm;

	/* bits past the last chunk are kept as found and never tested */
	bm_count_bits(bm);
	events = le64_to_cpu(sb->events);
	state = le32_to_cpu(sb->state);
	chunk = le32_to_cpu(sb->chunksize);
	sleep = le32_to_cpu(sb->daemon_sleep);
	bm->events_cleared = le64_to_cpu(sb->events_cleared);
	/* without superblocks the array keeps no events to compare */
	if ((mddev->persistent && events < mddev->events) ||
	    (state & (BIT(MD_BITMAP_STATE_STALE) |
		      BIT(MD_BITMAP_STATE_WRITE_ERROR)))) {
		pr_warn("md: %s: bitmap is out of date (events %llu < %llu or stale): every chunk marked dirty\n",
			mdname(mddev), events, mddev->events);
		bm_set_all(bm);
		bm->events_cleared = mddev->events;
		sb->events_cleared = cpu_to_le64(bm->events_cleared);
		state &= ~(BIT(MD_BITMAP_STATE_STALE) |
			   BIT(MD_BITMAP_STATE_WRITE_ERROR));
		sb->state = cpu_to_le32(state);
	}
	sb->events = cpu_to_le64(mddev->events);
	sb->sync_size = cpu_to_le64(mddev->resync_max_sectors);

	bm_publish(mddev, bm);
	/* read-only: the first superblock write (going rw) writes it all */
	bitmap_fill(bm->page_dirty, bm->npages);
	if (!mddev->ro)
		md_bitmap_write_all(mddev);
	schedule_delayed_work(&bm->daemon, bm->daemon_jiffies);
	pr_info("md: %s: %s bitmap: %lu chunks of %u KiB, %lu dirty, daemon_sleep %u s\n",
		mdname(mddev), bm->file ? "file" : "internal", bm->chunks,
		chunk >> 10, bm->dirty_chunks, sleep);
	return 0;

free_bm:
	bm_free(bm);
	return err;
}

void md_bitmap_destroy(struct mddev *mddev)
{
	struct md_bitmap *bm = mddev->bitmap;

	lockdep_assert_held(&mddev->reconfig_mutex);
	if (!bm)
		return;
	cancel_delayed_work_sync(&bm->daemon);
	flush_workqueue(bm->wq);
	bm_publish(mddev, NULL);
	bm_free(bm);
}

/* ---- resize -------------------------------------------------------- */

/* chunksize is a u32 of bytes: 2^31 at most */
#define BM_MAX_SHIFT	(31 - SECTOR_SHIFT)

/* Does an image of @bytes fit where the bitmap lies on every member? */
static bool bm_fits_all(struct md_bitmap *bm, unsigned int bytes)
{
	sector_t space = to_core(bm->mddev)->bitmap_space;
	struct md_rdev *rdev;

	if (bm->file)
		return true;
	/* md/bitmap/space, if it was given */
	if (space && DIV_ROUND_UP(bytes, 512) > space)
		return false;
	rdev_for_each(rdev, bm->mddev)
		if (rdev->bdev && !test_bit(RD_FAULTY, &rdev->flags) &&
		    !bm_fits_bytes(bm, rdev, bytes))
			return false;
	return true;
}

/*
 * Fill @im from @bm for a resync space of @old sectors growing or
 * shrinking to @sectors: a new chunk's bit is set if any old chunk it
 * holds had its bit set, or if it holds sectors past @old (they have
 * never been synced; the resync from @old must not skip them).
 * bm->lock held.
 */
static void bm_image_fill(struct md_bitmap *bm, struct bm_image *im,
			  sector_t old, sector_t sectors)
{
	unsigned long c, nc, from;
	unsigned int p, b;

	lockdep_assert_held(&bm->lock);
	memcpy(page_address(im->pages[0]), page_address(bm->pages[0]),
	       MD_BITMAP_SB_BYTES);
	for (c = 0; c < bm->chunks; c++) {
		if (!bm_test(bm, c))
			continue;
		nc = ((sector_t)c << bm->chunk_shift) >> im->shift;
		if (nc >= im->chunks)
			break;
		bm_bit_pos(nc, &p, &b);
		__set_bit_le(b, page_address(im->pages[p]));
	}
	from = sectors > old ? old >> im->shift : im->chunks;
	for (nc = from; nc < im->chunks; nc++) {
		bm_bit_pos(nc, &p, &b);
		__set_bit_le(b, page_address(im->pages[p]));
	}
}

/* Make @im the bitmap's image, @im the old one; bm->lock held. */
static void bm_image_swap(struct md_bitmap *bm, struct bm_image *im)
{
	struct bm_image old = bm_image_of(bm);

	lockdep_assert_held(&bm->lock);
	bm_image_install(bm, im);
	bitmap_fill(bm->page_dirty, bm->npages);
	bm_count_bits(bm);
	*im = old;
}

/*
 * The component size changes and the resync space with it, to @sectors
 * (mddev->resync_max_sectors is still the old length): give the bitmap
 * a bit for every chunk of it, as in-tree does.  The chunk size stays
 * unless the bits no longer fit where the bitmap lies on some member;
 * then it is doubled until they do (-ENOSPC if no chunk size fits).
 * The caller has the array writable and suspended and no sync
 * running, so no write is in flight and nothing else looks at the
 * chunk layout.
 *
 * Crash safety: with the chunk size unchanged the old bits keep their
 * places and the superblock still records the old size until the new
 * image is on disk.  A new chunk size moves every bit, so the image on
 * disk is first marked stale (a bitmap loaded stale is taken as all
 * dirty), then rewritten, then the mark is cleared.
 */
int md_bitmap_resize(struct mddev *mddev, sector_t sectors)
{
	struct md_core *core = to_core(mddev);
	struct md_bitmap *bm = mddev->bitmap;
	struct bm_image im = { .shift = bm ? bm->chunk_shift : 0 };
	__le32 stale = cpu_to_le32(BIT(MD_BITMAP_STATE_STALE));
	struct md_bitmap_sb *sb;
	unsigned long c;
	bool moved;
	int err;

	lockdep_assert_held(&mddev->reconfig_mutex);
	if (!bm || sectors == mddev->resync_max_sectors)
		return 0;
	for (;;) {
		im.chunks = DIV_ROUND_UP_SECTOR_T(sectors,
						  (sector_t)1 << im.shift);
		im.bytes = MD_BITMAP_SB_BYTES + DIV_ROUND_UP(im.chunks, 8);
		if (bm_fits_all(bm, im.bytes))
			break;
		if (++im.shift > BM_MAX_SHIFT) {
			pr_warn("md: %s: no bitmap chunk size fits a resync space of %llu sectors in the bitmap's space\n",
				mdname(mddev), (u64)sectors);
			return -ENOSPC;
		}
	}
	moved = im.shift != bm->chunk_shift;
	im.npages = DIV_ROUND_UP(im.bytes, PAGE_SIZE);
	err = bm_image_alloc(&im);
	if (err)
		goto free_image;

	mutex_lock(&core->sb_mutex);
	mutex_lock(&bm->io_mutex);
	spin_lock_irq(&bm->lock);
	for (c = 0; c < bm->chunks; c++)
		if (bm->cnt[c] & BM_COUNT)
			break;
	if (c < bm->chunks) {
		/* the caller's suspend should have made this impossible */
		spin_unlock_irq(&bm->lock);
		WARN_ON_ONCE(1);
		err = -EBUSY;
		goto unlock;
	}
	if (moved) {
		bm_sb(bm)->state |= stale;
		__set_bit(0, bm->page_dirty);
		spin_unlock_irq(&bm->lock);
		bm_write_dirty(bm);
		spin_lock_irq(&bm->lock);
	}
	bm_image_fill(bm, &im, mddev->resync_max_sectors, sectors);
	sb = page_address(im.pages[0]);
	sb->chunksize = cpu_to_le32(1U << (im.shift + SECTOR_SHIFT));
	sb->sync_size = cpu_to_le64(sectors);
	bm_image_swap(bm, &im);
	spin_unlock_irq(&bm->lock);
	bm_write_dirty(bm);
	if (moved) {
		spin_lock_irq(&bm->lock);
		bm_sb(bm)->state &= ~stale;
		__set_bit(0, bm->page_dirty);
		spin_unlock_irq(&bm->lock);
		bm_write_dirty(bm);
	}
	pr_info("md: %s: bitmap resized: %lu chunks of %u KiB, %lu dirty\n",
		mdname(mddev), bm->chunks,
		(1U << (bm->chunk_shift + SECTOR_SHIFT)) >> 10,
		bm->dirty_chunks);
unlock:
	mutex_unlock(&bm->io_mutex);
	mutex_unlock(&core->sb_mutex);
free_image:
	/* after a swap, the old image */
	bm_image_free(&im);
	return err;
}

/* ---- md/bitmap_set_bits -------------------------------------------- */

/* A decimal number at *@p (at least one digit); *@p moves past it. */
static int bm_parse_num(const char **p, unsigned long *v)
{
	const char *s = *p;
	unsigned long n = 0;

	if (!isdigit(*s))
		return -EINVAL;
	while (isdigit(*s)) {
		if (n > (ULONG_MAX - 9) / 10)
			return -EINVAL;
		n = n * 10 + (*s++ - '0');
	}
	*p = s;
	*v = n;
	return 0;
}

/*
 * The next "N" or "N-M" of @buf at *@p, blanks around it skipped: 1 and
 * the range in @first..@last, 0 at the end, -EINVAL for anything else
 * or a range that is reversed or runs past @chunks.
 */
static int bm_next_range(const char **p, unsigned long chunks,
			 unsigned long *first, unsigned long *last)
{
	const char *s = skip_spaces(*p);

	if (!*s)
		return 0;
	if (bm_parse_num(&s, first))
		return -EINVAL;
	*last = *first;
	if (*s == '-') {
		s++;
		if (bm_parse_num(&s, last))
			return -EINVAL;
	}
	if ((*s && !isspace(*s)) || *first > *last || *last >= chunks)
		return -EINVAL;
	*p = s;
	return 1;
}

/* Bits set per hold of bm->lock in bm_mark_range(). */
#define BM_MARK_BATCH	4096

/* Set the bits of chunks @first..@last in the image; takes bm->lock. */
static void bm_mark_range(struct md_bitmap *bm, unsigned long first,
			  unsigned long last)
{
	unsigned long c = first, end;

	for (;;) {
		end = min(last, c + BM_MARK_BATCH - 1);
		spin_lock_irq(&bm->lock);
		for (; c <= end; c++) {
			bm_set_bit(bm, c);
			/* idle for a whole period again before it may clear */
			bm->cnt[c] &= BM_COUNT;
		}
		spin_unlock_irq(&bm->lock);
		if (end == last)
			return;
		cond_resched();
	}
}

/*
 * md/bitmap_set_bits (md.rst): mark bitmap chunks as possibly differing
 * between the members, so a resync visits them.  @buf holds chunk (bit)
 * numbers, "N" or "N-M" (both ends included), decimal, separated by
 * blanks.  The whole list is checked first: anything else, a range past
 * the bitmap's last chunk, or an empty list is -EINVAL and nothing
 * changes.  The bits are written to the bitmap (every member, or the
 * file) before this returns; resync_offset moves back to the first
 * chunk marked, so the superblocks no longer call the array clean there
 * and the bitmap keeps every bit until a resync has been through, and a
 * resync is asked for at once.
 *
 * Refused: -ENOENT without a bitmap, -EROFS on a read-only array,
 * -EBUSY while a sync pass runs (its end would set resync_offset clean
 * again past chunks it had already passed) or the array is degraded
 * (no resync can run then; the recovery that ends it makes the members
 * agree anyway).  reconfig_mutex held (md_attr_store).
 */
int md_bitmap_set_bits(struct mddev *mddev, const char *buf)
{
	struct md_bitmap *bm = mddev->bitmap;
	unsigned long first, last, lowest = ULONG_MAX, n = 0;
	const char *p = buf;
	sector_t from;
	int ret;

	lockdep_assert_held(&mddev->reconfig_mutex);
	if (!bm)
		return -ENOENT;
	while ((ret = bm_next_range(&p, bm->chunks, &first, &last)) > 0) {
		lowest = min(lowest, first);
		n += last - first + 1;
	}
	if (ret < 0 || !n)
		return -EINVAL;
	if (mddev->ro)
		return -EROFS;
	if (test_bit(MDR_RUNNING, &mddev->recovery) ||
	    READ_ONCE(mddev->degraded)) {
		pr_info("md: %s: bitmap_set_bits refused while %s\n",
			mdname(mddev),
			READ_ONCE(mddev->degraded) ? "the array is degraded" :
			"a sync pass runs");
		return -EBUSY;
	}

	/*
	 * resync_offset first: from then on the daemon clears no bit
	 * (bm_may_clear()), and no sync pass can start before we are done
	 * (md_check_recovery() needs reconfig_mutex, which we hold).
	 */
	from = (sector_t)lowest << bm->chunk_shift;
	spin_lock_irq(&mddev->lock);
	if (mddev->resync_offset > from)
		mddev->resync_offset = from;
	spin_unlock_irq(&mddev->lock);
	p = buf;
	while (bm_next_range(&p, bm->chunks, &first, &last) > 0)
		bm_mark_range(bm, first, last);
	bm_write_locked(bm);
	set_bit(MDR_NEEDED, &mddev->recovery);
	md_wakeup_thread(mddev);
	pr_info("md: %s: bitmap_set_bits: %lu chunk(s) marked, resync from sector %llu\n",
		mdname(mddev), n, (unsigned long long)from);
	return 0;
}

/* ---- md/bitmap/ ----------------------------------------------------- */

/*
 * The files exist for every array, as in-tree's do.  Stores run under
 * reconfig_mutex, which also keeps mddev->bitmap from changing; the
 * fields they change are read by the daemon and the status line with
 * READ_ONCE (bm->daemon_jiffies) or under bm->lock (the superblock).
 */
static ssize_t location_show(struct mddev *mddev, char *page)
{
	s32 off = READ_ONCE(mddev->bitmap_offset);

	if (READ_ONCE(mddev->bitmap_file))
		return sysfs_emit(page, "file\n");
	if (!READ_ONCE(mddev->bitmap) && (!off || READ_ONCE(mddev->pers)))
		return sysfs_emit(page, "none\n");
	return sysfs_emit(page, "%+d\n", off);
}

static ssize_t location_store(struct mddev *mddev, const char *buf,
			      size_t len)
{
	s32 off;
	int err;

	/*
	 * "+8", "-16" or "8" (mdadm writes no sign); "none" also removes a
	 * bitmap file; "file:..." is refused (SET_BITMAP_FILE gives one)
	 */
	if (sysfs_streq(buf, "none"))
		off = 0;
	else if (kstrtos32(buf, 10, &off) || !off)
		return -EINVAL;
	/* 0.90 has one place for it: right after the 4 KiB superblock */
	if (off && mddev->persistent && mddev->major_version == 0 &&
	    off != MD_SB_BYTES >> 9)
		return -EINVAL;
	err = md_change_bitmap(mddev, off);
	return err ? err : len;
}

static struct md_sysfs_entry bm_location =
	__ATTR(location, 0644, location_show, location_store);

/*
 * A 32-bit field of the bitmap superblock (0 without a bitmap).  Shows
 * run without reconfig_mutex: take it so the bitmap cannot go away.
 */
static u32 bm_sb_u32(struct mddev *mddev,
		     const __le32 *(*field)(struct md_bitmap_sb *))
{
	struct md_bitmap *bm;
	unsigned long flags;
	u32 v = 0;

	if (mddev_lock(mddev))
		return 0;
	bm = mddev->bitmap;
	if (bm) {
		spin_lock_irqsave(&bm->lock, flags);
		v = le32_to_cpu(*field(bm_sb(bm)));
		spin_unlock_irqrestore(&bm->lock, flags);
	}
	mddev_unlock(mddev);
	return v;
}

static const __le32 *sb_chunksize(struct md_bitmap_sb *sb)
{
	return &sb->chunksize;
}

static const __le32 *sb_daemon_sleep(struct md_bitmap_sb *sb)
{
	return &sb->daemon_sleep;
}

static const __le32 *sb_write_behind(struct md_bitmap_sb *sb)
{
	return &sb->write_behind;
}

/* Set a superblock field and write page 0 (reconfig_mutex held). */
static void bm_sb_set(struct mddev *mddev, __le32 *field, u32 v)
{
	struct md_bitmap *bm = mddev->bitmap;
	unsigned long flags;

	spin_lock_irqsave(&bm->lock, flags);
	*field = cpu_to_le32(v);
	__set_bit(0, bm->page_dirty);
	spin_unlock_irqrestore(&bm->lock, flags);
	if (!mddev->ro)
		bm_write_locked(bm);
}

static ssize_t chunksize_show(struct mddev *mddev, char *page)
{
	return sysfs_emit(page, "%u\n", bm_sb_u32(mddev, sb_chunksize));
}

/*
 * The chunk size is mdadm's choice when it writes the bitmap.  A bitmap
 * in use cannot change it: -EBUSY for any write, before looking at the
 * value, as in-tree.  Without one there is nothing to set here (this
 * stack does not create bitmaps itself): nonsense is -EINVAL, a valid
 * value -EBUSY.
 */
static ssize_t chunksize_store(struct mddev *mddev, const char *buf,
			       size_t len)
{
	u32 v;

	if (mddev->bitmap)
		return -EBUSY;
	if (kstrtou32(buf, 10, &v) || v < 512 || !is_power_of_2(v))
		return -EINVAL;
	return -EBUSY;
}

static struct md_sysfs_entry bm_chunksize =
	__ATTR(chunksize, 0644, chunksize_show, chunksize_store);

static ssize_t time_base_show(struct mddev *mddev, char *page)
{
	u32 v = bm_sb_u32(mddev, sb_daemon_sleep);

	return sysfs_emit(page, "%u\n", v ? v : 5);
}

/* Seconds between clearing passes, 1..86400, kept in the superblock. */
static ssize_t time_base_store(struct mddev *mddev, const char *buf,
			       size_t len)
{
	struct md_bitmap *bm = mddev->bitmap;
	u32 v;

	if (kstrtou32(buf, 10, &v) || v < 1 || v > 86400)
		return -EINVAL;
	if (!bm)
		return -ENOENT;
	WRITE_ONCE(bm->daemon_jiffies, (unsigned long)v * HZ);
	bm_sb_set(mddev, &bm_sb(bm)->daemon_sleep, v);
	mod_delayed_work(system_wq, &bm->daemon, (unsigned long)v * HZ);
	return len;
}

static struct md_sysfs_entry bm_time_base =
	__ATTR(time_base, 0644, time_base_show, time_base_store);

static ssize_t backlog_show(struct mddev *mddev, char *page)
{
	return sysfs_emit(page, "%u\n", bm_sb_u32(mddev, sb_write_behind));
}

/* Does any member carry write_mostly?  reconfig_mutex held. */
static bool bm_write_mostly(struct mddev *mddev)
{
	struct md_rdev *rdev;

	rdev_for_each(rdev, mddev)
		if (test_bit(RD_WRITE_MOSTLY, &rdev->flags))
			return true;
	return false;
}

/*
 * Write-behind depth, 0..16383 as in-tree: recorded in the superblock
 * for in-tree md; this stack writes every mirror synchronously.  As
 * in-tree, only where it could apply: with no write-mostly member
 * every value is refused (-EINVAL, with a kernel log line).
 */
static ssize_t backlog_store(struct mddev *mddev, const char *buf,
			     size_t len)
{
	struct md_bitmap *bm = mddev->bitmap;
	u32 v;

	if (kstrtou32(buf, 10, &v) || v > 16383)
		return -EINVAL;
	if (!bm)
		return -ENOENT;
	if (!bm_write_mostly(mddev)) {
		pr_info_ratelimited("md: %s: bitmap/backlog refused: no member is write-mostly\n",
				    mdname(mddev));
		return -EINVAL;
	}
	bm_sb_set(mddev, &bm_sb(bm)->write_behind, v);
	return len;
}

static struct md_sysfs_entry bm_backlog =
	__ATTR(backlog, 0644, backlog_show, backlog_store);

static ssize_t metadata_show(struct mddev *mddev, char *page)
{
	return sysfs_emit(page, "internal\n");
}

/* Only "internal" is served; "external" and "clustered" are refused. */
static ssize_t metadata_store(struct mddev *mddev, const char *buf,
			      size_t len)
{
	return sysfs_streq(buf, "internal") ? len : -EINVAL;
}

static struct md_sysfs_entry bm_metadata =
	__ATTR(metadata, 0644, metadata_show, metadata_store);

static ssize_t can_clear_show(struct mddev *mddev, char *page)
{
	struct md_bitmap *bm;
	ssize_t ret;

	ret = mddev_lock(mddev);
	if (ret)
		return ret;
	bm = mddev->bitmap;
	if (!bm)
		ret = sysfs_emit(page, "\n");
	else
		ret = sysfs_emit(page, "%s\n",
				 READ_ONCE(bm->no_clear) ? "false" : "true");
	mddev_unlock(mddev);
	return ret;
}

/*
 * "false": keep every bit (e.g. while a member is being replaced
 * outside md); "true": clear again when the array allows it.
 */
static ssize_t can_clear_store(struct mddev *mddev, const char *buf,
			       size_t len)
{
	struct md_bitmap *bm = mddev->bitmap;
	bool v;

	if (sysfs_streq(buf, "false"))
		v = true;
	else if (sysfs_streq(buf, "true"))
		v = false;
	else
		return -EINVAL;
	if (!bm)
		return -ENOENT;
	WRITE_ONCE(bm->no_clear, v);
	return len;
}

static struct md_sysfs_entry bm_can_clear =
	__ATTR(can_clear, 0644, can_clear_show, can_clear_store);

/*
 * The most raid1 writes seen behind at once (md_bitmap_behind_seen()),
 * 0 without a bitmap.  As in-tree, writing anything resets it to 0.
 */
static ssize_t max_backlog_used_show(struct mddev *mddev, char *page)
{
	struct md_bitmap *bm;
	int v = 0;
	int err;

	err = mddev_lock(mddev);
	if (err)
		return err;
	bm = mddev->bitmap;
	if (bm)
		v = atomic_read(&bm->behind_max);
	mddev_unlock(mddev);
	return sysfs_emit(page, "%d\n", v);
}

static ssize_t max_backlog_used_store(struct mddev *mddev, const char *buf,
				      size_t len)
{
	if (mddev->bitmap)
		atomic_set(&mddev->bitmap->behind_max, 0);
	return len;
}

static struct md_sysfs_entry bm_max_backlog_used =
	__ATTR(max_backlog_used, 0644, max_backlog_used_show,
	       max_backlog_used_store);

/*
 * Sectors the bitmap may take, in-tree's "space": the bound written
 * here, 0 until one is (what in-tree reads for a 1.x internal bitmap,
 * whose room it does not record).  md_bitmap_resize() keeps the image
 * within it, and within the room the members' layout leaves at the
 * bitmap's offset (bm_fits_all()) either way.
 */
static ssize_t space_show(struct mddev *mddev, char *page)
{
	return sysfs_emit(page, "%llu\n", (unsigned long long)
			  READ_ONCE(to_core(mddev)->bitmap_space));
}

/*
 * A number of sectors > 0, else -EINVAL.  With a bitmap, as in-tree,
 * one below what its image takes now is refused with -EFBIG; nothing
 * changes on error.
 */
static ssize_t space_store(struct mddev *mddev, const char *buf, size_t len)
{
	struct md_bitmap *bm = mddev->bitmap;
	unsigned long n;

	if (kstrtoul(buf, 10, &n) || !n)
		return -EINVAL;
	if (bm && n < DIV_ROUND_UP(bm->file_bytes, 512))
		return -EFBIG;
	WRITE_ONCE(to_core(mddev)->bitmap_space, n);
	return len;
}

static struct md_sysfs_entry bm_space =
	__ATTR(space, 0644, space_show, space_store);

static struct attribute *md_bitmap_attrs[] = {
	&bm_location.attr,
	&bm_chunksize.attr,
	&bm_time_base.attr,
	&bm_backlog.attr,
	&bm_metadata.attr,
	&bm_can_clear.attr,
	&bm_max_backlog_used.attr,
	&bm_space.attr,
	NULL,
};

const struct attribute_group md_bitmap_group = {
	.name = "bitmap",
	.attrs = md_bitmap_attrs,
};
