// SPDX-License-Identifier: GPL-2.0
/*
 * seekdisk: a memory-backed blk-mq disk that charges for seeks, the member
 * model of the seek benches (bench/r[56]-*seek.fio, issue 32).
 *
 * Why: RAM disks and null_blk serve a request in the same time wherever it
 * lands, so a RAID stack that hands its members a sequential stream out of
 * order or in pieces pays nothing for it there.  A hard disk pays for every
 * break: the head moves and waits for the sector to come round.  This
 * driver charges that cost in wall-clock time, so the bench's throughput
 * shows it.
 *
 * The model.  Each device has one head and serves one request at a time,
 * in the order the block layer hands them over (a FIFO drained by one
 * kthread per device).  A request's service time is
 *
 *   positioning + bytes / mbps
 *
 * Positioning is 0 when the request starts at the sector where the
 * previous one ended (the head is already there and the platter carries
 * it on); any other start costs
 *
 *   settle_us + (full_seek_us - settle_us) * sqrt(distance / capacity)
 *   + rot_us
 *
 * The square root is the usual shape of a seek curve (the arm accelerates
 * for half the way and brakes for the other half, so time grows with the
 * root of the distance for all but the longest seeks); rot_us is the
 * average rotational latency, half a revolution.  It is a constant rather
 * than a random draw so that two runs of the same request order cost the
 * same.  The defaults are a 7200 rpm disk: half a revolution is 4167 us,
 * 0.8 ms track to track, 9 ms full stroke (over this device's capacity,
 * which in the benches is a few hundred MiB: charging a full stroke for it
 * already overstates the distances a real multi-TB disk would move, so we
 * stay at the short end of datasheet curves) and 150 MB/s of media rate.
 * There is no write cache: every write is on the "media" when it completes,
 * as with a disk whose cache is off or full during a long stream, and
 * flushes never reach the driver.
 *
 * Timing.  Service times are model times on the monotonic clock: a request
 * starts at the later of its arrival and the end of the one before, and
 * completes at start + service.  The kthread copies the data, then sleeps
 * on an hrtimer until that completion time.  Because the next start is
 * taken from the model's end and not from when the thread woke, timer
 * slack under an emulated CPU (QEMU TCG) does not add up over a queue of
 * requests; a thread that is late anyway (the copy took longer than the
 * transfer time) completes at once and adds the overrun to late_ns, so a
 * run bound by CPU rather than by the model says so.
 *
 * Queueing.  The tag set's depth (queue_depth, default 2) is what the
 * "disk" accepts; the rest waits in the I/O scheduler.  With mq-deadline
 * (the harness sets it, and sets nr_requests) the scheduler holds, merges
 * and sorts requests by sector as it would for a SATA disk; depth 2 keeps
 * the next request ready when one completes, so the head never idles
 * while work waits.
 *
 * Data lives in an xarray of pages indexed by page offset, allocated on
 * first write; reads of sectors never written return zeros.  Only the
 * device's kthread touches the xarray while the disk is live, so it needs
 * no locking of its own.
 *
 * Counters (/sys/block/seekN/seek/): requests, sectors, seeks (requests
 * that did not start where the previous ended), seek_sectors (their
 * distances summed), position_ns, transfer_ns and late_ns.  They only
 * grow; the harness reads them before and after a run.
 */
#include <linux/bits.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/blkdev.h>
#include <linux/blk-mq.h>
#include <linux/highmem.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/math64.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include <linux/xarray.h>

#define SEEK_SECTORS_PER_PAGE	(PAGE_SIZE >> SECTOR_SHIFT)
/* 1 TiB in sectors: keeps distance << 32 within 64 bits */
#define SEEK_MAX_SECTORS	BIT_ULL(31)

static unsigned int nr_devices = 1;
module_param(nr_devices, uint, 0444);
MODULE_PARM_DESC(nr_devices, "number of devices /dev/seekN (1)");

static unsigned int size_mib = 256;
module_param(size_mib, uint, 0444);
MODULE_PARM_DESC(size_mib, "size of each device in MiB (256)");

static unsigned int queue_depth = 2;
module_param(queue_depth, uint, 0444);
MODULE_PARM_DESC(queue_depth, "requests the device accepts at once (2)");

static unsigned int max_kb = 1280;
module_param(max_kb, uint, 0444);
MODULE_PARM_DESC(max_kb, "largest request in KiB, max_hw_sectors_kb (1280)");

static unsigned int mbps = 150;
module_param(mbps, uint, 0444);
MODULE_PARM_DESC(mbps, "media transfer rate in MB/s (150)");

static unsigned int settle_us = 800;
module_param(settle_us, uint, 0444);
MODULE_PARM_DESC(settle_us, "shortest seek (track to track) in us (800)");

static unsigned int full_seek_us = 9000;
module_param(full_seek_us, uint, 0444);
MODULE_PARM_DESC(full_seek_us, "seek across the whole device in us (9000)");

static unsigned int rot_us = 4167;
module_param(rot_us, uint, 0444);
MODULE_PARM_DESC(rot_us, "average rotational latency in us (4167: 7200 rpm)");

/* counters, one sysfs file each; they only grow */
enum seek_stat {
	SEEK_REQUESTS,		/* requests served */
	SEEK_SECTORS,		/* sectors moved */
	SEEK_SEEKS,		/* requests not starting where the last ended */
	SEEK_SEEK_SECTORS,	/* the distances of those, summed */
	SEEK_POSITION_NS,	/* positioning time charged */
	SEEK_TRANSFER_NS,	/* transfer time charged */
	SEEK_LATE_NS,		/* completions later than the model's time */
	SEEK_NR_STATS,
};

struct seek_dev {
	struct blk_mq_tag_set tag_set;
	struct gendisk *disk;
	struct task_struct *head;
	struct xarray pages;
	sector_t capacity;

	spinlock_t lock;		/* protects fifo */
	struct list_head fifo;
	wait_queue_head_t wait;

	/* the kthread's alone */
	sector_t head_pos;		/* where the previous request ended */
	u64 free_ns;			/* model time the previous one completed */
	u64 st[SEEK_NR_STATS];
};

/* per request, after struct request */
struct seek_cmd {
	struct list_head node;
	u64 arrival_ns;
};

static int seek_major;
static struct seek_dev *seek_devs;

static struct seek_dev *seek_of(struct device *dev)
{
	return dev_to_disk(dev)->private_data;
}

static ssize_t seek_stat_show(struct device *dev,
			      struct device_attribute *attr, char *buf);

/* indexed by enum seek_stat: the file's index is its counter */
static struct device_attribute seek_stat_attrs[SEEK_NR_STATS] = {
	[SEEK_REQUESTS] = __ATTR(requests, 0444, seek_stat_show, NULL),
	[SEEK_SECTORS] = __ATTR(sectors, 0444, seek_stat_show, NULL),
	[SEEK_SEEKS] = __ATTR(seeks, 0444, seek_stat_show, NULL),
	[SEEK_SEEK_SECTORS] = __ATTR(seek_sectors, 0444, seek_stat_show, NULL),
	[SEEK_POSITION_NS] = __ATTR(position_ns, 0444, seek_stat_show, NULL),
	[SEEK_TRANSFER_NS] = __ATTR(transfer_ns, 0444, seek_stat_show, NULL),
	[SEEK_LATE_NS] = __ATTR(late_ns, 0444, seek_stat_show, NULL),
};

static ssize_t seek_stat_show(struct device *dev,
			      struct device_attribute *attr, char *buf)
{
	u64 v = READ_ONCE(seek_of(dev)->st[attr - seek_stat_attrs]);

	return sysfs_emit(buf, "%llu\n", v);
}

static struct attribute *seek_attrs[] = {
	&seek_stat_attrs[SEEK_REQUESTS].attr,
	&seek_stat_attrs[SEEK_SECTORS].attr,
	&seek_stat_attrs[SEEK_SEEKS].attr,
	&seek_stat_attrs[SEEK_SEEK_SECTORS].attr,
	&seek_stat_attrs[SEEK_POSITION_NS].attr,
	&seek_stat_attrs[SEEK_TRANSFER_NS].attr,
	&seek_stat_attrs[SEEK_LATE_NS].attr,
	NULL,
};

static const struct attribute_group seek_group = {
	.name = "seek",
	.attrs = seek_attrs,
};

static const struct attribute_group *seek_groups[] = {
	&seek_group,
	NULL,
};

/* add @v to counter @i; only the device's kthread writes them */
static void seek_count(struct seek_dev *sd, enum seek_stat i, u64 v)
{
	WRITE_ONCE(sd->st[i], sd->st[i] + v);
}

/* positioning time for a request starting at @pos; counts a seek */
static u64 seek_position_ns(struct seek_dev *sd, sector_t pos)
{
	u64 dist, root;

	if (pos == sd->head_pos)
		return 0;
	dist = pos > sd->head_pos ? pos - sd->head_pos : sd->head_pos - pos;
	seek_count(sd, SEEK_SEEKS, 1);
	seek_count(sd, SEEK_SEEK_SECTORS, dist);
	/* sqrt(dist / capacity) in 16.16 fixed point: 0 .. 65536 */
	root = int_sqrt64(div64_u64(dist << 32, sd->capacity));
	return (u64)settle_us * NSEC_PER_USEC +
		(((u64)(full_seek_us - settle_us) * NSEC_PER_USEC * root) >> 16) +
		(u64)rot_us * NSEC_PER_USEC;
}

/* the store page holding @sector, allocated (zeroed) if @alloc */
static struct page *seek_page(struct seek_dev *sd, sector_t sector, bool alloc)
{
	pgoff_t idx = sector / SEEK_SECTORS_PER_PAGE;
	struct page *page, *old;

	page = xa_load(&sd->pages, idx);
	if (page || !alloc)
		return page;
	page = alloc_page(GFP_NOIO | __GFP_ZERO);
	if (!page)
		return NULL;
	old = xa_store(&sd->pages, idx, page, GFP_NOIO);
	if (xa_is_err(old)) {
		__free_page(page);
		return NULL;
	}
	return page;
}

/* copy one request's data to or from the store */
static blk_status_t seek_copy(struct seek_dev *sd, struct request *rq)
{
	bool write = req_op(rq) == REQ_OP_WRITE;
	struct req_iterator iter;
	struct bio_vec bv;

	rq_for_each_segment(bv, rq, iter) {
		sector_t sector = iter.iter.bi_sector;
		unsigned int done = 0;

		while (done < bv.bv_len) {
			unsigned int off = (sector % SEEK_SECTORS_PER_PAGE) <<
					   SECTOR_SHIFT;
			unsigned int n = min_t(unsigned int, bv.bv_len - done,
					       PAGE_SIZE - off);
			struct page *page = seek_page(sd, sector, write);

			if (write) {
				if (!page)
					return BLK_STS_RESOURCE;
				memcpy_page(page, off, bv.bv_page,
					    bv.bv_offset + done, n);
			} else if (page) {
				memcpy_page(bv.bv_page, bv.bv_offset + done,
					    page, off, n);
			} else {
				memzero_page(bv.bv_page, bv.bv_offset + done, n);
			}
			done += n;
			sector += n >> SECTOR_SHIFT;
		}
	}
	return BLK_STS_OK;
}

/* sleep until monotonic time @until_ns */
static void seek_sleep_until(u64 until_ns)
{
	ktime_t t = ns_to_ktime(until_ns);

	while (ktime_get_ns() < until_ns) {
		set_current_state(TASK_UNINTERRUPTIBLE);
		schedule_hrtimeout_range(&t, 10 * NSEC_PER_USEC,
					 HRTIMER_MODE_ABS);
	}
}

/* serve one request: charge the model's time, move the data, complete */
static void seek_serve(struct seek_dev *sd, struct request *rq)
{
	struct seek_cmd *cmd = blk_mq_rq_to_pdu(rq);
	sector_t pos = blk_rq_pos(rq);
	unsigned int bytes = blk_rq_bytes(rq);
	u64 position, transfer, start, done, now;
	blk_status_t sts;

	position = seek_position_ns(sd, pos);
	transfer = div_u64((u64)bytes * NSEC_PER_USEC, mbps);
	start = max(cmd->arrival_ns, sd->free_ns);
	done = start + position + transfer;
	sd->free_ns = done;
	sd->head_pos = pos + (bytes >> SECTOR_SHIFT);

	sts = seek_copy(sd, rq);
	seek_sleep_until(done);
	now = ktime_get_ns();

	seek_count(sd, SEEK_REQUESTS, 1);
	seek_count(sd, SEEK_SECTORS, bytes >> SECTOR_SHIFT);
	seek_count(sd, SEEK_POSITION_NS, position);
	seek_count(sd, SEEK_TRANSFER_NS, transfer);
	if (now > done)
		seek_count(sd, SEEK_LATE_NS, now - done);
	blk_mq_end_request(rq, sts);
}

static struct request *seek_pop(struct seek_dev *sd)
{
	struct seek_cmd *cmd;
	unsigned long flags;

	spin_lock_irqsave(&sd->lock, flags);
	cmd = list_first_entry_or_null(&sd->fifo, struct seek_cmd, node);
	if (cmd)
		list_del_init(&cmd->node);
	spin_unlock_irqrestore(&sd->lock, flags);
	return cmd ? blk_mq_rq_from_pdu(cmd) : NULL;
}

static bool seek_idle(struct seek_dev *sd)
{
	unsigned long flags;
	bool empty;

	spin_lock_irqsave(&sd->lock, flags);
	empty = list_empty(&sd->fifo);
	spin_unlock_irqrestore(&sd->lock, flags);
	return empty;
}

/* the head: one per device, serves the FIFO in order */
static int seek_head_fn(void *data)
{
	struct seek_dev *sd = data;
	struct request *rq;

	while (!kthread_should_stop()) {
		wait_event_interruptible(sd->wait, !seek_idle(sd) ||
					 kthread_should_stop());
		while ((rq = seek_pop(sd)))
			seek_serve(sd, rq);
	}
	return 0;
}

static blk_status_t seek_queue_rq(struct blk_mq_hw_ctx *hctx,
				  const struct blk_mq_queue_data *bd)
{
	struct seek_dev *sd = hctx->queue->queuedata;
	struct request *rq = bd->rq;
	struct seek_cmd *cmd = blk_mq_rq_to_pdu(rq);
	unsigned long flags;

	if (req_op(rq) != REQ_OP_READ && req_op(rq) != REQ_OP_WRITE)
		return BLK_STS_NOTSUPP;
	blk_mq_start_request(rq);
	cmd->arrival_ns = ktime_get_ns();
	spin_lock_irqsave(&sd->lock, flags);
	list_add_tail(&cmd->node, &sd->fifo);
	spin_unlock_irqrestore(&sd->lock, flags);
	wake_up(&sd->wait);
	return BLK_STS_OK;
}

static const struct blk_mq_ops seek_mq_ops = {
	.queue_rq = seek_queue_rq,
};

static const struct block_device_operations seek_fops = {
	.owner = THIS_MODULE,
};

static void seek_free_pages(struct seek_dev *sd)
{
	struct page *page;
	unsigned long idx;

	xa_for_each(&sd->pages, idx, page)
		__free_page(page);
	xa_destroy(&sd->pages);
}

/*
 * The disk and its limits: rotational, no write cache, no discard.  On
 * 6.12 the limits are handed to the allocation and a queue is rotational
 * only when it says so (a limit feature); on 6.1 each limit has a setter
 * on the live queue and a new queue is rotational.  The feature's name
 * tells the two apart (6.11, when the limits had moved already).
 */
#ifdef BLK_FEAT_ROTATIONAL
static struct gendisk *seek_alloc_disk(struct seek_dev *sd)
{
	struct queue_limits lim = {
		.logical_block_size	= SECTOR_SIZE,
		.physical_block_size	= PAGE_SIZE,
		.max_hw_sectors		= max_kb << 1,
		.max_segments		= DIV_ROUND_UP(max_kb, PAGE_SIZE >> 10),
		.features		= BLK_FEAT_ROTATIONAL,
	};

	return blk_mq_alloc_disk(&sd->tag_set, &lim, sd);
}
#else
static struct gendisk *seek_alloc_disk(struct seek_dev *sd)
{
	struct gendisk *disk = blk_mq_alloc_disk(&sd->tag_set, sd);
	struct request_queue *q;

	if (IS_ERR(disk))
		return disk;
	q = disk->queue;
	blk_queue_logical_block_size(q, SECTOR_SIZE);
	blk_queue_physical_block_size(q, PAGE_SIZE);
	blk_queue_max_hw_sectors(q, max_kb << 1);
	blk_queue_max_segments(q, DIV_ROUND_UP(max_kb, PAGE_SIZE >> 10));
	blk_queue_write_cache(q, false, false);
	return disk;
}
#endif

static int seek_add(struct seek_dev *sd, int index)
{
	struct gendisk *disk;
	int err;

	xa_init(&sd->pages);
	spin_lock_init(&sd->lock);
	INIT_LIST_HEAD(&sd->fifo);
	init_waitqueue_head(&sd->wait);
	sd->capacity = (sector_t)size_mib << (20 - SECTOR_SHIFT);

	sd->tag_set.ops = &seek_mq_ops;
	sd->tag_set.nr_hw_queues = 1;
	sd->tag_set.queue_depth = queue_depth;
	sd->tag_set.numa_node = NUMA_NO_NODE;
	sd->tag_set.cmd_size = sizeof(struct seek_cmd);
	sd->tag_set.flags = BLK_MQ_F_SHOULD_MERGE;
	sd->tag_set.driver_data = sd;
	err = blk_mq_alloc_tag_set(&sd->tag_set);
	if (err)
		return err;

	disk = seek_alloc_disk(sd);
	if (IS_ERR(disk)) {
		err = PTR_ERR(disk);
		goto free_tags;
	}
	sd->disk = disk;

	disk->major = seek_major;
	disk->first_minor = index;
	disk->minors = 1;
	disk->flags |= GENHD_FL_NO_PART;
	disk->fops = &seek_fops;
	disk->private_data = sd;
	snprintf(disk->disk_name, DISK_NAME_LEN, "seek%d", index);
	set_capacity(disk, sd->capacity);

	sd->head = kthread_run(seek_head_fn, sd, "seek%d", index);
	if (IS_ERR(sd->head)) {
		err = PTR_ERR(sd->head);
		goto put_disk;
	}
	err = device_add_disk(NULL, disk, seek_groups);
	if (err)
		goto stop_head;
	return 0;

stop_head:
	kthread_stop(sd->head);
put_disk:
	put_disk(disk);
free_tags:
	blk_mq_free_tag_set(&sd->tag_set);
	return err;
}

static void seek_remove(struct seek_dev *sd)
{
	/* del_gendisk drains the queue: the head must still run */
	del_gendisk(sd->disk);
	kthread_stop(sd->head);
	put_disk(sd->disk);
	blk_mq_free_tag_set(&sd->tag_set);
	seek_free_pages(sd);
}

static int seek_check_params(void)
{
	if (!nr_devices || nr_devices > 64 || !size_mib ||
	    (u64)size_mib << (20 - SECTOR_SHIFT) > SEEK_MAX_SECTORS ||
	    !queue_depth || queue_depth > 128 ||
	    max_kb < PAGE_SIZE >> 10 || max_kb > 32767 || !mbps ||
	    settle_us > full_seek_us || full_seek_us > USEC_PER_SEC ||
	    rot_us > USEC_PER_SEC)
		return -EINVAL;
	return 0;
}

static int __init seek_init(void)
{
	unsigned int i;
	int err;

	err = seek_check_params();
	if (err) {
		pr_err("seekdisk: invalid module parameters\n");
		return err;
	}
	seek_major = register_blkdev(0, "seekdisk");
	if (seek_major < 0)
		return seek_major;
	seek_devs = kcalloc(nr_devices, sizeof(*seek_devs), GFP_KERNEL);
	if (!seek_devs) {
		err = -ENOMEM;
		goto unregister;
	}
	for (i = 0; i < nr_devices; i++) {
		err = seek_add(&seek_devs[i], i);
		if (err)
			goto remove;
	}
	pr_info("seekdisk: %u x %u MiB, %u MB/s, seek %u..%u us, rotation %u us, depth %u, max %u KiB\n",
		nr_devices, size_mib, mbps, settle_us, full_seek_us, rot_us,
		queue_depth, max_kb);
	return 0;

remove:
	while (i--)
		seek_remove(&seek_devs[i]);
	kfree(seek_devs);
unregister:
	unregister_blkdev(seek_major, "seekdisk");
	return err;
}

static void __exit seek_exit(void)
{
	unsigned int i;

	for (i = 0; i < nr_devices; i++)
		seek_remove(&seek_devs[i]);
	kfree(seek_devs);
	unregister_blkdev(seek_major, "seekdisk");
}

module_init(seek_init);
module_exit(seek_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Memory-backed disk that charges for seeks (md bench member model)");
