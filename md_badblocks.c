// SPDX-License-Identifier: GPL-2.0
/*
 * Per-member bad-block log.
 *
 * Design
 *
 * A member whose write to some range failed need not be failed as a
 * whole: the range is recorded in the member's bad-block list and the
 * member stays in the array; reads avoid the range on it.  The list is
 * the kernel's block/badblocks library (struct badblocks in struct
 * md_rdev: sorted extents in one page, a seqlock, acknowledged bits), in
 * absolute member sectors as in-tree keeps it, so sysfs bad_blocks shows
 * the same numbers on both implementations.
 *
 * Durability.  A new entry is unacknowledged: it exists in memory only.
 * The request that caused it must not complete until the entry is on
 * disk, or after a crash the member would be trusted again over a range
 * whose write it never took.  So recording an entry asks for a
 * superblock write; md_super_write_all() writes each changed log before
 * the superblocks (the log first, so a superblock that says
 * MD_FEATURE_BAD_BLOCKS never points at an older log) and acknowledges
 * the entries afterwards.  The personality holds the request until
 * md_rdev_badblocks_acked() says so.
 *
 * On disk (1.x only; 0.90 and arrays without superblock have no log, so
 * their members are failed as before): bblog_size sectors at sb_start +
 * bblog_offset (a signed sector count), little-endian u64 entries
 * (sector << 10 | length), sector and length in units of 2^bblog_shift
 * sectors, all ones for an unused entry.  We write shift 0 and lengths
 * of at most BB_MAX_LEN (512).
 *
 * Locking.  The list's contents: its seqlock (the library's).
 * bb->changed and bb->count are written under that lock by the library;
 * the writer here snapshots the list and clears ->changed in one
 * write_seqlock section, so an entry added later sets ->changed again
 * and is written by the next round (ack_all_badblocks() does nothing
 * while ->changed is set).  bb->size/shift are set at load, before the
 * member is bound, and never change after; so is bb->sector, except
 * that md_bb_move() moves it with a 1.0 superblock going to the end
 * of a grown device, holding reconfig_mutex and the core's sb_mutex,
 * one of which every reader holds (superblock write rounds, the
 * bitmap's placement checks).
 */
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/slab.h>

#include "md.h"
#include "md_badblocks.h"

bool md_rdev_set_badblocks(struct md_rdev *rdev, sector_t s, int sectors)
{
	struct mddev *mddev = READ_ONCE(rdev->mddev);

	if (rdev->badblocks.shift < 0 || !mddev)
		return false;
	if (badblocks_set(&rdev->badblocks, s + rdev->data_offset, sectors, 0))
		return false;	/* full */
	set_bit(MD_SB_CHANGE_DEVS, &mddev->sb_flags);
	md_wakeup_thread(mddev);
	return true;
}
EXPORT_SYMBOL_GPL(md_rdev_set_badblocks);

bool md_rdev_badblocks_acked(struct md_rdev *rdev, sector_t s, int sectors)
{
	sector_t first_bad;
	int bad_sectors;

	return badblocks_check(&rdev->badblocks, s + rdev->data_offset,
			       sectors, &first_bad, &bad_sectors) >= 0;
}
EXPORT_SYMBOL_GPL(md_rdev_badblocks_acked);

int md_rdev_is_badblock(struct md_rdev *rdev, sector_t s, int sectors,
			sector_t *first_bad, int *bad_sectors)
{
	int rv;

	if (!READ_ONCE(rdev->badblocks.count))
		return 0;
	rv = badblocks_check(&rdev->badblocks, s + rdev->data_offset, sectors,
			     first_bad, bad_sectors);
	if (rv)
		*first_bad -= rdev->data_offset;
	return rv;
}
EXPORT_SYMBOL_GPL(md_rdev_is_badblock);

int md_bb_init(struct md_rdev *rdev)
{
	/* disabled (shift -1) until a superblock with a log area enables it */
	return badblocks_init(&rdev->badblocks, 0);
}

void md_bb_exit(struct md_rdev *rdev)
{
	badblocks_exit(&rdev->badblocks);
}

static int md_bb_io(struct md_rdev *rdev, struct page *page, blk_opf_t opf)
{
	struct badblocks *bb = &rdev->badblocks;
	struct bio_vec bvec;
	struct bio bio;
	int ret;

	bio_init(&bio, rdev->bdev, &bvec, 1, opf | REQ_SYNC | REQ_META);
	bio.bi_iter.bi_sector = bb->sector;
	__bio_add_page(&bio, page, bb->size << SECTOR_SHIFT, 0);
	ret = submit_bio_wait(&bio);
	bio_uninit(&bio);
	return ret;
}

int md_bb_load(struct md_rdev *rdev, sector_t log_sector,
	       unsigned int log_sectors, int shift)
{
	struct badblocks *bb = &rdev->badblocks;
	struct page *page;
	__le64 *entry;
	unsigned int i;
	int ret = 0;

	if (log_sectors > PAGE_SECTORS)
		log_sectors = PAGE_SECTORS;	/* the list holds one page */
	bb->sector = log_sector;
	bb->size = log_sectors;
	bb->shift = 0;
	if (shift < 0)
		return 0;	/* empty log: nothing to read */

	page = alloc_page(GFP_KERNEL);
	if (!page)
		return -ENOMEM;
	ret = md_bb_io(rdev, page, REQ_OP_READ);
	if (ret) {
		pr_warn("md: %pg: cannot read the bad block log (%d)\n",
			rdev->bdev, ret);
		goto free_page;
	}
	entry = page_address(page);
	for (i = 0; i < (log_sectors << SECTOR_SHIFT) / sizeof(*entry); i++) {
		u64 e = le64_to_cpu(entry[i]);
		sector_t start = (e >> 10) << shift;
		int len = (int)(e & 0x3ff) << shift;

		if (e == ~0ULL)
			break;
		if (!len)
			continue;
		if (badblocks_set(bb, start, len, 1)) {
			pr_warn("md: %pg: bad block log has more entries than fit\n",
				rdev->bdev);
			ret = -EINVAL;
			goto free_page;
		}
	}
	/* a log stored with another shift is rewritten with ours */
	bb->changed = shift > 0;
free_page:
	__free_page(page);
	return ret;
}

void md_bb_move(struct md_rdev *rdev, sector_t log_sector)
{
	struct badblocks *bb = &rdev->badblocks;

	if (bb->shift < 0)
		return;
	write_seqlock_irq(&bb->lock);
	bb->sector = log_sector;
	/* the new place holds whatever the device had there */
	bb->changed = 1;
	write_sequnlock_irq(&bb->lock);
}

int md_bb_write(struct md_rdev *rdev)
{
	struct badblocks *bb = &rdev->badblocks;
	unsigned int room = (bb->size << SECTOR_SHIFT) / sizeof(__le64);
	struct page *page;
	__le64 *entry;
	int i, n, ret;

	if (bb->shift < 0 || !READ_ONCE(bb->changed))
		return 0;
	page = alloc_page(GFP_NOIO);
	if (!page)
		return -ENOMEM;
	entry = page_address(page);
	memset(entry, 0xff, PAGE_SIZE);

	write_seqlock_irq(&bb->lock);
	n = bb->count;
	if (n <= room) {
		for (i = 0; i < n; i++)
			entry[i] = cpu_to_le64((BB_OFFSET(bb->page[i]) << 10) |
					       BB_LEN(bb->page[i]));
		bb->changed = 0;
	}
	write_sequnlock_irq(&bb->lock);
	if (n > room) {
		pr_warn_ratelimited("md: %pg: bad block log area too small for %d entries\n",
				    rdev->bdev, n);
		__free_page(page);
		return -ENOSPC;
	}

	ret = md_bb_io(rdev, page, REQ_OP_WRITE | REQ_FUA);
	__free_page(page);
	if (ret) {
		/* keep it pending: nothing of it is acknowledged */
		WRITE_ONCE(bb->changed, 1);
		return ret;
	}
	return 0;
}

void md_bb_written(struct md_rdev *rdev)
{
	/* does nothing if an entry came in after the snapshot (->changed) */
	ack_all_badblocks(&rdev->badblocks);
}
