// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/block/mdN/md/ and its dev-XXX/ member directories.
 *
 * Design.  Names, formats and accepted values follow
 * Documentation/admin-guide/md.rst so mdadm drives this stack as it
 * drives in-tree md.  Reads take no mutex (values are READ_ONCE or
 * taken under mddev->lock); every write that changes state runs under
 * reconfig_mutex and is validated completely before anything changes,
 * so a rejected write (-EINVAL, -EBUSY) leaves the array as it was.
 * A member directory is removed from md_misc_wq, never under
 * reconfig_mutex (a write into it may be waiting for that lock), and
 * new_dev waits for such removals before it takes the lock.
 */
#include <linux/ctype.h>
#include <linux/kdev_t.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "md_core.h"
#include "md_badblocks.h"
#include "md_bitmap.h"

#define MD_ATTR_RW(_name, _file) \
	static struct md_sysfs_entry mda_##_name = \
		__ATTR(_file, 0644, _name##_show, _name##_store)
#define MD_ATTR_RO(_name, _file) \
	static struct md_sysfs_entry mda_##_name = \
		__ATTR(_file, 0444, _name##_show, NULL)
#define MD_ATTR_WO(_name, _file) \
	static struct md_sysfs_entry mda_##_name = \
		__ATTR(_file, 0200, NULL, _name##_store)

/* Parse "S", "S.m", "S.mm" or "S.mmm" (newline allowed) into ms. */
int md_parse_msec(const char *buf, unsigned int *msec)
{
	unsigned long sec = 0, frac = 0;
	int digits = 0;
	const char *p = buf;

	if (!isdigit(*p))
		return -EINVAL;
	while (isdigit(*p)) {
		sec = sec * 10 + (*p++ - '0');
		if (sec > UINT_MAX / 1000)
			return -EINVAL;
	}
	if (*p == '.') {
		p++;
		while (isdigit(*p)) {
			if (++digits > 3)
				return -EINVAL;
			frac = frac * 10 + (*p++ - '0');
		}
		if (!digits)
			return -EINVAL;
		while (digits++ < 3)
			frac *= 10;
	}
	if (*p == '\n')
		p++;
	if (*p)
		return -EINVAL;
	*msec = sec * 1000 + frac;
	return 0;
}

/* ---------------------------------------------------------------- */
/* array description */

static ssize_t metadata_version_show(struct mddev *mddev, char *page)
{
	if (mddev->persistent)
		return sysfs_emit(page, "%d.%d\n", mddev->major_version,
				  mddev->minor_version);
	return sysfs_emit(page, "none\n");
}

static ssize_t metadata_version_store(struct mddev *mddev, const char *buf,
				      size_t len)
{
	int major, minor;
	char dot;

	if (mddev->pers || !list_empty(&mddev->disks))
		return -EBUSY;
	if (sysfs_streq(buf, "none")) {
		mddev->major_version = 0;
		mddev->minor_version = 0;
		mddev->persistent = false;
		return len;
	}
	if (sscanf(buf, "%d%c%d", &major, &dot, &minor) != 3 || dot != '.' ||
	    !md_sb_version_ok(major, &minor)) {
		pr_warn("md: %s: only 0.90, 1.0, 1.1 and 1.2 metadata is supported\n",
			mdname(mddev));
		return -EINVAL;
	}
	mddev->major_version = major;
	mddev->minor_version = minor;
	mddev->persistent = true;
	return len;
}
MD_ATTR_RW(metadata_version, metadata_version);

static ssize_t level_show(struct mddev *mddev, char *page)
{
	struct md_personality *p;
	const char *name;
	ssize_t ret;

	spin_lock_irq(&mddev->lock);
	p = mddev->pers;
	name = p ? p->name : md_level_name(mddev->level);
	ret = sysfs_emit(page, "%s\n", name ? name : "");
	spin_unlock_irq(&mddev->lock);
	return ret;
}

static ssize_t level_store(struct mddev *mddev, const char *buf, size_t len)
{
	int level;

	if (md_level_from_name(buf, &level))
		return -EINVAL;
	if (mddev->pers) {
		int err;

		if (level == mddev->level)
			return len;
		err = md_takeover(mddev, level);
		return err ? err : len;
	}
	mddev->level = level;
	return len;
}
MD_ATTR_RW(level, level);

static ssize_t raid_disks_show(struct mddev *mddev, char *page)
{
	int n = READ_ONCE(mddev->raid_disks);

	/* during a reshape "NEW (OLD)", as in-tree */
	if (READ_ONCE(mddev->reshape_position) != MD_MAX_SECTOR &&
	    READ_ONCE(mddev->delta_disks))
		return sysfs_emit(page, "%d (%d)\n", n,
				  n - READ_ONCE(mddev->delta_disks));
	return sysfs_emit(page, "%d\n", n);
}

static ssize_t raid_disks_store(struct mddev *mddev, const char *buf,
				size_t len)
{
	unsigned int n;

	int err;

	if (kstrtouint(buf, 10, &n) || !n || n > MD_SB_DISKS * 2)
		return -EINVAL;
	if (mddev->pers) {
		err = md_set_raid_disks(mddev, n);
		return err ? err : len;
	}
	mddev->raid_disks = n;
	return len;
}
MD_ATTR_RW(raid_disks, raid_disks);

static ssize_t chunk_size_show(struct mddev *mddev, char *page)
{
	return sysfs_emit(page, "%lu\n",
			  (unsigned long)READ_ONCE(mddev->chunk_sectors) << 9);
}

static ssize_t chunk_size_store(struct mddev *mddev, const char *buf,
				size_t len)
{
	unsigned long n;

	if (kstrtoul(buf, 10, &n) || (n && (n < 4096 || !is_power_of_2(n))) ||
	    (n >> 9) > INT_MAX)
		return -EINVAL;
	if (mddev->pers) {
		int err;

		if (n >> 9 == mddev->new_chunk_sectors)
			return len;
		err = md_reshape_ask(mddev, mddev->new_layout, n >> 9,
				     mddev->raid_disks + mddev->delta_disks);
		return err ? err : len;
	}
	mddev->chunk_sectors = n >> 9;
	mddev->new_chunk_sectors = n >> 9;
	return len;
}
MD_ATTR_RW(chunk_size, chunk_size);

static ssize_t layout_show(struct mddev *mddev, char *page)
{
	return sysfs_emit(page, "%d\n", READ_ONCE(mddev->layout));
}

static ssize_t layout_store(struct mddev *mddev, const char *buf, size_t len)
{
	int n;

	if (kstrtoint(buf, 10, &n) || n < 0)
		return -EINVAL;
	if (mddev->pers) {
		int err;

		if (n == mddev->new_layout)
			return len;
		err = md_reshape_ask(mddev, n, mddev->new_chunk_sectors,
				     mddev->raid_disks + mddev->delta_disks);
		return err ? err : len;
	}
	mddev->layout = n;
	mddev->new_layout = n;
	return len;
}
MD_ATTR_RW(layout, layout);

static ssize_t component_size_show(struct mddev *mddev, char *page)
{
	return sysfs_emit(page, "%llu\n",
			  (unsigned long long)READ_ONCE(mddev->dev_sectors) / 2);
}

static ssize_t component_size_store(struct mddev *mddev, const char *buf,
				    size_t len)
{
	unsigned long long kib;
	int err;

	if (kstrtoull(buf, 10, &kib) || kib > (MD_MAX_SECTOR >> 2))
		return -EINVAL;
	if (mddev->pers) {
		err = md_set_dev_sectors(mddev, kib * 2);
		return err ? err : len;
	}
	mddev->dev_sectors = kib * 2;
	return len;
}
MD_ATTR_RW(component_size, component_size);

static ssize_t sync_force_parallel_show(struct mddev *mddev, char *page)
{
	return sysfs_emit(page, "%d\n",
			  READ_ONCE(to_core(mddev)->sync_force_parallel));
}

/* 1: this array's passes do not wait for arrays sharing a disk (md_sync.c) */
static ssize_t sync_force_parallel_store(struct mddev *mddev,
					 const char *buf, size_t len)
{
	unsigned int n;

	if (kstrtouint(buf, 10, &n) || n > 1)
		return -EINVAL;
	WRITE_ONCE(to_core(mddev)->sync_force_parallel, n);
	/* a pass waiting for its turn may go now */
	md_sync_turns_changed();
	return len;
}
MD_ATTR_RW(sync_force_parallel, sync_force_parallel);

static ssize_t sync_min_show(struct mddev *mddev, char *page)
{
	return sysfs_emit(page, "%llu\n", (unsigned long long)
			  READ_ONCE(to_core(mddev)->sync_min_sectors));
}

static ssize_t sync_min_store(struct mddev *mddev, const char *buf,
			      size_t len)
{
	struct md_core *core = to_core(mddev);
	unsigned long long n;

	if (kstrtoull(buf, 10, &n) || n > core->sync_max_sectors)
		return -EINVAL;
	if (test_bit(MDR_RUNNING, &mddev->recovery))
		return -EBUSY;
	/* as in-tree: whole 4 KiB blocks */
	WRITE_ONCE(core->sync_min_sectors, round_down(n, 8));
	return len;
}
MD_ATTR_RW(sync_min, sync_min);

static ssize_t sync_max_show(struct mddev *mddev, char *page)
{
	sector_t n = READ_ONCE(to_core(mddev)->sync_max_sectors);

	if (n == MD_MAX_SECTOR)
		return sysfs_emit(page, "max\n");
	return sysfs_emit(page, "%llu\n", (unsigned long long)n);
}

static ssize_t sync_max_store(struct mddev *mddev, const char *buf,
			      size_t len)
{
	struct md_core *core = to_core(mddev);

	int chunk = READ_ONCE(mddev->chunk_sectors);
	unsigned long long n;
	int err = 0;

	if (sysfs_streq(buf, "max"))
		n = MD_MAX_SECTOR;
	else if (kstrtoull(buf, 10, &n) || n < READ_ONCE(core->sync_min_sectors))
		return -EINVAL;
	/* as in-tree: a whole number of chunks */
	if (n != MD_MAX_SECTOR && chunk > 0 && do_div(n, chunk) != 0)
		return -EINVAL;
	if (n != MD_MAX_SECTOR && chunk > 0)
		n *= chunk;
	/*
	 * As in-tree: while a pass runs the pause point only moves on, so
	 * that what the thread already did past it stays consistent.  A
	 * reshape may be held back, though: mdadm lowers it to what it has
	 * backed up, and the reshape goes no further (nor back) until it
	 * is raised.
	 */
	spin_lock_irq(&mddev->lock);
	if (test_bit(MDR_RUNNING, &mddev->recovery) && !READ_ONCE(mddev->ro) &&
	    !test_bit(MDR_RESHAPE, &mddev->recovery) &&
	    n < core->sync_max_sectors)
		err = -EBUSY;
	else
		WRITE_ONCE(core->sync_max_sectors, n);
	spin_unlock_irq(&mddev->lock);
	if (err)
		return err;
	/* pairs with the wait in md_sync_below_max() */
	wake_up(&mddev->sync_wait);
	return len;
}
MD_ATTR_RW(sync_max, sync_max);

/* "default" unless a size was written, as in-tree */
static ssize_t array_size_show(struct mddev *mddev, char *page)
{
	if (!READ_ONCE(to_core(mddev)->external_size))
		return sysfs_emit(page, "default\n");
	return sysfs_emit(page, "%llu\n",
			  (unsigned long long)READ_ONCE(mddev->array_sectors) / 2);
}

static ssize_t array_size_store(struct mddev *mddev, const char *buf,
				size_t len)
{
	unsigned long long kib = 0;
	bool dflt = sysfs_streq(buf, "default");
	int err;

	if (!dflt && (kstrtoull(buf, 10, &kib) || kib > (MD_MAX_SECTOR >> 2)))
		return -EINVAL;
	err = md_set_array_size(mddev, dflt, kib * 2);
	return err ? err : len;
}
MD_ATTR_RW(array_size, array_size);

static ssize_t resync_start_show(struct mddev *mddev, char *page)
{
	sector_t s = READ_ONCE(mddev->resync_offset);

	if (s == MD_MAX_SECTOR)
		return sysfs_emit(page, "none\n");
	return sysfs_emit(page, "%llu\n", (unsigned long long)s);
}

static ssize_t resync_start_store(struct mddev *mddev, const char *buf,
				  size_t len)
{
	unsigned long long n;

	if (sysfs_streq(buf, "none"))
		n = MD_MAX_SECTOR;
	else if (kstrtoull(buf, 10, &n))
		return -EINVAL;
	if (mddev->pers && !mddev->ro)
		return -EBUSY;
	spin_lock_irq(&mddev->lock);
	mddev->resync_offset = n;
	spin_unlock_irq(&mddev->lock);
	return len;
}
MD_ATTR_RW(resync_start, resync_start);

static ssize_t new_dev_store(struct mddev *mddev, const char *buf, size_t len)
{
	unsigned int major, minor;
	char nl;
	dev_t dev;
	int n, err;

	n = sscanf(buf, "%u:%u%c", &major, &minor, &nl);
	if (n < 2 || (n == 3 && nl != '\n'))
		return -EINVAL;
	dev = MKDEV(major, minor);
	if (MAJOR(dev) != major || MINOR(dev) != minor)
		return -EOVERFLOW;
	/* unlocked entry: this wait must not be under reconfig_mutex */
	md_wait_member_dirs();
	err = mddev_lock_live(mddev);
	if (err)
		return err;
	/* no metadata version yet: in-tree takes it without a superblock */
	if (!mddev->persistent && !mddev->pers)
		err = md_add_bare_disk(mddev, dev);
	else
		err = md_add_new_disk(mddev, dev, NULL, -1);
	mddev_unlock(mddev);
	return err ? err : len;
}

static struct md_sysfs_entry mda_new_dev = {
	.attr = { .name = "new_dev", .mode = 0200 },
	.store = new_dev_store,
	.unlocked = true,
};

/* ---------------------------------------------------------------- */
/* array_state */

enum md_array_state {
	ST_CLEAR, ST_INACTIVE, ST_SUSPENDED, ST_READONLY, ST_READ_AUTO,
	ST_CLEAN, ST_ACTIVE, ST_WRITE_PENDING, ST_ACTIVE_IDLE, ST_BROKEN,
	ST_BAD,
};

static const char * const md_array_states[] = {
	[ST_CLEAR] = "clear", [ST_INACTIVE] = "inactive",
	[ST_SUSPENDED] = "suspended", [ST_READONLY] = "readonly",
	[ST_READ_AUTO] = "read-auto", [ST_CLEAN] = "clean",
	[ST_ACTIVE] = "active", [ST_WRITE_PENDING] = "write-pending",
	[ST_ACTIVE_IDLE] = "active-idle", [ST_BROKEN] = "broken",
};

static ssize_t array_state_show(struct mddev *mddev, char *page)
{
	struct md_core *core = to_core(mddev);
	enum md_array_state st;

	spin_lock_irq(&mddev->lock);
	if (mddev->pers) {
		if (mddev->ro == 1)
			st = ST_READONLY;
		else if (mddev->ro == 2)
			st = ST_READ_AUTO;
		else if (test_bit(MD_SB_CHANGE_PENDING, &mddev->sb_flags))
			st = ST_WRITE_PENDING;
		else if (mddev->in_sync)
			st = ST_CLEAN;
		else if (test_bit(MDC_SAFEMODE_FIRED, &core->core_flags))
			st = ST_ACTIVE_IDLE;
		else
			st = ST_ACTIVE;
		if (st == ST_CLEAN && md_broken(mddev))
			st = ST_BROKEN;
	} else if (list_empty(&mddev->disks) && !mddev->raid_disks &&
		   !mddev->dev_sectors) {
		st = ST_CLEAR;
	} else {
		st = ST_INACTIVE;
	}
	spin_unlock_irq(&mddev->lock);
	return sysfs_emit(page, "%s\n", md_array_states[st]);
}

static int md_start_with_ro(struct mddev *mddev, int ro)
{
	int err;

	if (list_empty(&mddev->disks))
		return -EINVAL;
	mddev->ro = ro;
	err = md_run(mddev);
	if (err)
		mddev->ro = 0;
	return err;
}

static ssize_t array_state_store(struct mddev *mddev, const char *buf,
				 size_t len)
{
	int st = sysfs_match_string(md_array_states, buf);
	int err = 0;

	switch (st) {
	case ST_CLEAR:
		err = md_stop(mddev, 0, NULL);
		break;
	case ST_INACTIVE:
		if (mddev->pers)
			err = md_stop(mddev, 2, NULL);
		break;
	case ST_READONLY:
		if (mddev->pers)
			err = md_set_readonly(mddev, NULL);
		else
			err = md_start_with_ro(mddev, 1);
		break;
	case ST_READ_AUTO:
		if (!mddev->pers) {
			err = md_start_with_ro(mddev, 2);
			break;
		}
		if (mddev->ro == 0)
			err = md_set_readonly(mddev, NULL);
		if (!err && mddev->ro == 1) {
			spin_lock_irq(&mddev->lock);
			mddev->ro = 2;
			spin_unlock_irq(&mddev->lock);
			set_disk_ro(mddev->gendisk, 0);
		}
		break;
	case ST_CLEAN:
		if (!mddev->pers)
			return -EINVAL;
		if (mddev->ro)
			err = md_restart_rw(mddev);
		if (!err)
			err = md_mark_clean(mddev);
		break;
	case ST_ACTIVE:
		if (!mddev->pers)
			err = md_start_with_ro(mddev, 0);
		else if (mddev->ro)
			err = md_restart_rw(mddev);
		break;
	default:
		return -EINVAL;
	}
	md_notify(mddev->sysfs_state);
	return err ? err : len;
}
MD_ATTR_RW(array_state, array_state);

/* ---------------------------------------------------------------- */
/* sync */

static ssize_t sync_action_show(struct mddev *mddev, char *page)
{
	unsigned long r = READ_ONCE(mddev->recovery);
	const char *a = "idle";

	if (r & BIT(MDR_FROZEN)) {
		a = "frozen";
	} else if ((r & BIT(MDR_RUNNING)) ||
		   (!READ_ONCE(mddev->ro) && (r & BIT(MDR_NEEDED)))) {
		if (r & BIT(MDR_RESHAPE))
			a = "reshape";
		else if (r & BIT(MDR_SYNC))
			a = !(r & BIT(MDR_REQUESTED)) ? "resync" :
			    r & BIT(MDR_CHECK) ? "check" : "repair";
		else if (r & BIT(MDR_RECOVER))
			a = "recover";
	}
	return sysfs_emit(page, "%s\n", a);
}

static ssize_t sync_action_store(struct mddev *mddev, const char *buf,
				 size_t len)
{
	bool check = sysfs_streq(buf, "check");

	if (!mddev->pers || !mddev->pers->sync_request)
		return -EINVAL;
	if (sysfs_streq(buf, "reshape")) {
		int err = md_reshape_start(mddev);

		return err ? err : len;
	}
	if (sysfs_streq(buf, "frozen")) {
		set_bit(MDR_FROZEN, &mddev->recovery);
		md_stop_sync(mddev);
	} else if (sysfs_streq(buf, "idle")) {
		md_stop_sync(mddev);
		clear_bit(MDR_FROZEN, &mddev->recovery);
	} else if (sysfs_streq(buf, "resync") || sysfs_streq(buf, "recover")) {
		clear_bit(MDR_FROZEN, &mddev->recovery);
	} else if (check || sysfs_streq(buf, "repair")) {
		int err = md_sync_may_start(mddev);

		if (err)
			return err;
		clear_bit(MDR_FROZEN, &mddev->recovery);
		set_bit(MDR_SYNC, &mddev->recovery);
		set_bit(MDR_REQUESTED, &mddev->recovery);
		if (check)
			set_bit(MDR_CHECK, &mddev->recovery);
		else
			clear_bit(MDR_CHECK, &mddev->recovery);
	} else {
		return -EINVAL;
	}
	set_bit(MDR_NEEDED, &mddev->recovery);
	md_wakeup_thread(mddev);
	md_notify_sync(mddev, MD_KN_ACTION);
	return len;
}
MD_ATTR_RW(sync_action, sync_action);

static ssize_t sync_completed_show(struct mddev *mddev, char *page)
{
	unsigned long recovery = READ_ONCE(mddev->recovery);
	sector_t pos, end;

	if (!(recovery & BIT(MDR_RUNNING)))
		return sysfs_emit(page, "none\n");
	/* waiting for an array that shares a disk to finish its pass */
	if (READ_ONCE(to_core(mddev)->sync_delayed))
		return sysfs_emit(page, "delayed\n");
	/* as in-tree: the resync space, the members for a recovery */
	pos = READ_ONCE(mddev->curr_resync_completed);
	end = md_sync_end(mddev, recovery);
	return sysfs_emit(page, "%llu / %llu\n", (unsigned long long)pos,
			  (unsigned long long)end);
}
MD_ATTR_RO(sync_completed, sync_completed);

static ssize_t sync_speed_show(struct mddev *mddev, char *page)
{
	if (!test_bit(MDR_RUNNING, &mddev->recovery))
		return sysfs_emit(page, "none\n");
	return sysfs_emit(page, "%u\n", md_sync_speed(mddev));
}
MD_ATTR_RO(sync_speed, sync_speed);

/* "N (system)" / "N (local)"; writes take N > 0 or "system". */
static ssize_t md_knob_show(char *page, int local, int system)
{
	return sysfs_emit(page, "%d (%s)\n", local ? local : system,
			  local ? "local" : "system");
}

static int md_knob_parse(const char *buf, int *val)
{
	unsigned int n;

	if (sysfs_streq(buf, "system")) {
		*val = 0;
		return 0;
	}
	if (kstrtouint(buf, 10, &n) || !n || n > INT_MAX)
		return -EINVAL;
	*val = n;
	return 0;
}

static ssize_t sync_speed_min_show(struct mddev *mddev, char *page)
{
	return md_knob_show(page, READ_ONCE(mddev->sync_speed_min),
			    READ_ONCE(md_speed_limit_min));
}

static ssize_t sync_speed_min_store(struct mddev *mddev, const char *buf,
				    size_t len)
{
	int v;

	if (md_knob_parse(buf, &v))
		return -EINVAL;
	WRITE_ONCE(mddev->sync_speed_min, v);
	wake_up(&mddev->sync_wait);
	return len;
}
MD_ATTR_RW(sync_speed_min, sync_speed_min);

static ssize_t sync_speed_max_show(struct mddev *mddev, char *page)
{
	return md_knob_show(page, READ_ONCE(mddev->sync_speed_max),
			    READ_ONCE(md_speed_limit_max));
}

static ssize_t sync_speed_max_store(struct mddev *mddev, const char *buf,
				    size_t len)
{
	int v;

	if (md_knob_parse(buf, &v))
		return -EINVAL;
	WRITE_ONCE(mddev->sync_speed_max, v);
	wake_up(&mddev->sync_wait);
	return len;
}
MD_ATTR_RW(sync_speed_max, sync_speed_max);

static ssize_t sync_io_depth_show(struct mddev *mddev, char *page)
{
	return md_knob_show(page, READ_ONCE(mddev->sync_io_depth),
			    READ_ONCE(md_sync_io_depth_default));
}

/* A throttle knob: a value rt_knob_check() accepts, or "system". */
static int md_rt_knob_parse(const char *buf, enum rt_knob knob, int *val)
{
	if (md_knob_parse(buf, val))
		return -EINVAL;
	if (*val && rt_knob_check(knob, *val))
		return -EINVAL;
	return 0;
}

static ssize_t sync_io_depth_store(struct mddev *mddev, const char *buf,
				   size_t len)
{
	int v;

	if (md_rt_knob_parse(buf, RT_KNOB_IO_DEPTH, &v))
		return -EINVAL;
	WRITE_ONCE(mddev->sync_io_depth, v);
	wake_up(&mddev->sync_wait);
	return len;
}
MD_ATTR_RW(sync_io_depth, sync_io_depth);

static ssize_t sync_busy_pct_show(struct mddev *mddev, char *page)
{
	return md_knob_show(page, READ_ONCE(to_core(mddev)->sync_busy_pct),
			    READ_ONCE(md_sync_busy_pct_default));
}

static ssize_t sync_busy_pct_store(struct mddev *mddev, const char *buf,
				   size_t len)
{
	int v;

	if (md_rt_knob_parse(buf, RT_KNOB_BUSY_PCT, &v))
		return -EINVAL;
	WRITE_ONCE(to_core(mddev)->sync_busy_pct, v);
	wake_up(&mddev->sync_wait);
	return len;
}
MD_ATTR_RW(sync_busy_pct, sync_busy_pct);

static ssize_t sync_idle_ms_show(struct mddev *mddev, char *page)
{
	return md_knob_show(page, READ_ONCE(to_core(mddev)->sync_idle_ms),
			    READ_ONCE(md_sync_idle_ms_default));
}

static ssize_t sync_idle_ms_store(struct mddev *mddev, const char *buf,
				  size_t len)
{
	int v;

	if (md_rt_knob_parse(buf, RT_KNOB_IDLE_MS, &v))
		return -EINVAL;
	WRITE_ONCE(to_core(mddev)->sync_idle_ms, v);
	wake_up(&mddev->sync_wait);
	return len;
}
MD_ATTR_RW(sync_idle_ms, sync_idle_ms);

static ssize_t mismatch_cnt_show(struct mddev *mddev, char *page)
{
	return sysfs_emit(page, "%llu\n", (unsigned long long)
			  atomic64_read(&mddev->resync_mismatches));
}
MD_ATTR_RO(mismatch_cnt, mismatch_cnt);

static ssize_t degraded_show(struct mddev *mddev, char *page)
{
	return sysfs_emit(page, "%d\n", READ_ONCE(mddev->degraded));
}
MD_ATTR_RO(degraded, degraded);

static ssize_t safe_mode_delay_show(struct mddev *mddev, char *page)
{
	unsigned int ms = jiffies_to_msecs(READ_ONCE(mddev->safe_mode_delay));

	if (!ms)
		return sysfs_emit(page, "0\n");
	return sysfs_emit(page, "%u.%03u\n", ms / 1000, ms % 1000);
}

static ssize_t safe_mode_delay_store(struct mddev *mddev, const char *buf,
				     size_t len)
{
	unsigned int ms;
	unsigned long j;

	if (md_parse_msec(buf, &ms))
		return -EINVAL;
	j = ms ? max_t(unsigned long, msecs_to_jiffies(ms), 1) : 0;
	if (j > UINT_MAX)
		return -EINVAL;
	WRITE_ONCE(mddev->safe_mode_delay, j);
	/* a dirty idle array gets its clean check with the new delay */
	if (j && mddev->pers)
		mod_timer(&mddev->safe_mode_timer, jiffies + j);
	return len;
}
MD_ATTR_RW(safe_mode_delay, safe_mode_delay);

static ssize_t safe_mode_adaptive_show(struct mddev *mddev, char *page)
{
	return sysfs_emit(page, "%d\n",
			  READ_ONCE(to_core(mddev)->safe_mode_adaptive));
}

/* 0: the clean check when in-tree md runs it; 1: late after short cleans */
static ssize_t safe_mode_adaptive_store(struct mddev *mddev, const char *buf,
					size_t len)
{
	struct md_core *core = to_core(mddev);
	unsigned int v;

	if (kstrtouint(buf, 10, &v) || v > 1)
		return -EINVAL;
	spin_lock_irq(&mddev->lock);
	WRITE_ONCE(core->safe_mode_adaptive, v);
	if (!v)
		WRITE_ONCE(core->sm_late, false);
	spin_unlock_irq(&mddev->lock);
	return len;
}
MD_ATTR_RW(safe_mode_adaptive, safe_mode_adaptive);

/*
 * What keeps a running array consistent over a crash: "bitmap" with a
 * write-intent bitmap (internal or a file), else "resync" where the
 * level has redundancy and "none" where it has not; "unknown" when not
 * running.  mddev->lock keeps pers and bitmap together.
 */
static const char *md_consistency_policy(struct mddev *mddev)
{
	struct md_personality *p = mddev->pers;

	if (!p)
		return "unknown";
	if (mddev->bitmap)
		return "bitmap";
	return p->sync_request ? "resync" : "none";
}

static ssize_t consistency_policy_show(struct mddev *mddev, char *page)
{
	const char *s;

	spin_lock_irq(&mddev->lock);
	s = md_consistency_policy(mddev);
	spin_unlock_irq(&mddev->lock);
	return sysfs_emit(page, "%s\n", s);
}

/*
 * In-tree writes switch RAID5's partial parity log on ("ppl") or off
 * ("resync"); this stack has no PPL nor journal, so no policy can be
 * switched: the current one is accepted and changes nothing, anything
 * else is refused.  A bitmap comes and goes through bitmap/location.
 */
static ssize_t consistency_policy_store(struct mddev *mddev,
					const char *buf, size_t len)
{
	const char *cur;

	if (sysfs_streq(buf, "ppl") || sysfs_streq(buf, "journal")) {
		pr_info("md: %s: consistency policy refused: PPL and journal are not served by this stack\n",
			mdname(mddev));
		return -EINVAL;
	}
	if (!mddev->pers)
		return -EINVAL;
	cur = md_consistency_policy(mddev);
	if (sysfs_streq(buf, cur))
		return len;
	if ((sysfs_streq(buf, "bitmap") || sysfs_streq(buf, "resync")) &&
	    mddev->pers->sync_request)
		pr_info("md: %s: consistency policy is %s; a bitmap is added or removed through bitmap/location\n",
			mdname(mddev), cur);
	return -EINVAL;
}
MD_ATTR_RW(consistency_policy, consistency_policy);

/* xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx, the bytes in order, as in-tree */
static ssize_t uuid_show(struct mddev *mddev, char *page)
{
	u8 uuid[16];
	int err;

	/* written under reconfig_mutex (superblock load, clear) */
	err = mddev_lock(mddev);
	if (err)
		return err;
	memcpy(uuid, mddev->uuid, sizeof(uuid));
	mddev_unlock(mddev);
	return sysfs_emit(page, "%pUb\n", uuid);
}
MD_ATTR_RO(uuid, uuid);

/* in-tree 6.1's words (later kernels say "recover" and start at "idle") */
static const char * const md_sync_kind_names[] = {
	[MD_SYNC_NONE] = "none",
	[MD_SYNC_RESYNC] = "resync",
	[MD_SYNC_RECOVERY] = "recovery",
	[MD_SYNC_CHECK] = "check",
	[MD_SYNC_REPAIR] = "repair",
};

static ssize_t last_sync_action_show(struct mddev *mddev, char *page)
{
	unsigned int k = READ_ONCE(to_core(mddev)->last_sync_action);

	if (k >= ARRAY_SIZE(md_sync_kind_names))
		k = MD_SYNC_NONE;
	return sysfs_emit(page, "%s\n", md_sync_kind_names[k]);
}
MD_ATTR_RO(last_sync_action, last_sync_action);

static ssize_t max_read_errors_show(struct mddev *mddev, char *page)
{
	return sysfs_emit(page, "%u\n",
			  READ_ONCE(to_core(mddev)->max_read_errors));
}

static ssize_t max_read_errors_store(struct mddev *mddev, const char *buf,
				     size_t len)
{
	unsigned int n;

	if (kstrtouint(buf, 10, &n) || n > INT_MAX)
		return -EINVAL;
	WRITE_ONCE(to_core(mddev)->max_read_errors, n);
	return len;
}
MD_ATTR_RW(max_read_errors, max_read_errors);

/*
 * 1 lets raid1 fail its last working mirror (md_error(), mdadm --fail),
 * as in-tree: the array is then broken (MDF_BROKEN) and fails all IO.
 * 0, the default, keeps that mirror.  Other levels do not read it.  A
 * bit of mddev->flags, so every start of the array resets it: a 1
 * written before the array runs would be lost, and is refused (-EBUSY).
 */
static ssize_t fail_last_dev_show(struct mddev *mddev, char *page)
{
	return sysfs_emit(page, "%d\n",
			  test_bit(MDF_FAIL_LAST_DEV, &mddev->flags));
}

static ssize_t fail_last_dev_store(struct mddev *mddev, const char *buf,
				   size_t len)
{
	bool v;

	if (kstrtobool(buf, &v))
		return -EINVAL;
	if (v && !mddev->pers) {
		pr_info("md: %s: fail_last_dev applies to a running array (it is reset when the array starts)\n",
			mdname(mddev));
		return -EBUSY;
	}
	assign_bit(MDF_FAIL_LAST_DEV, &mddev->flags, v);
	return len;
}
MD_ATTR_RW(fail_last_dev, fail_last_dev);

/*
 * In-tree: raid1 only ("n/a" elsewhere), 1 orders overlapping writes to
 * each member, which write-behind needs.  raid1's write-behind here
 * orders overlapping writes to write-mostly members by itself: 0, the
 * value it has, is accepted, 1 refused.
 */
static ssize_t serialize_policy_show(struct mddev *mddev, char *page)
{
	struct md_personality *p;
	bool raid1;

	spin_lock_irq(&mddev->lock);
	p = mddev->pers;
	raid1 = p && p->level == 1;
	spin_unlock_irq(&mddev->lock);
	return sysfs_emit(page, "%s\n", raid1 ? "0" : "n/a");
}

static ssize_t serialize_policy_store(struct mddev *mddev, const char *buf,
				      size_t len)
{
	bool v;

	if (kstrtobool(buf, &v))
		return -EINVAL;
	if (!v)
		return len;
	if (!mddev->pers || mddev->pers->level != 1)
		pr_info("md: %s: serialize_policy applies to a running raid1 only\n",
			mdname(mddev));
	else
		pr_info("md: %s: serialize_policy refused: write-behind orders its own overlapping writes; per-member serialisation is not served\n",
			mdname(mddev));
	return -EINVAL;
}
MD_ATTR_RW(serialize_policy, serialize_policy);

/* The level a reshape goes to (md_reshape.c); no takeovers yet. */
static ssize_t new_level_show(struct mddev *mddev, char *page)
{
	return sysfs_emit(page, "%d\n", READ_ONCE(mddev->new_level));
}
MD_ATTR_RO(new_level, new_level);

/*
 * In-tree's reshape attributes.  reshape_position: the array sector a
 * running reshape recorded last, "none" without one.  Before the array
 * runs it may be written (the superblocks then say what assembly
 * continues); on a running array only the sync thread moves it, so a
 * write there is -EBUSY, as in-tree.  reshape_direction: "backwards"
 * (data offsets move up, the array is walked from its end) or
 * "forwards", asked for before a reshape starts; fixed while one runs.
 */
static ssize_t reshape_position_show(struct mddev *mddev, char *page)
{
	sector_t pos = READ_ONCE(mddev->reshape_position);

	if (pos == MD_MAX_SECTOR)
		return sysfs_emit(page, "none\n");
	return sysfs_emit(page, "%llu\n", (unsigned long long)pos);
}

static ssize_t reshape_position_store(struct mddev *mddev, const char *buf,
				      size_t len)
{
	unsigned long long n;

	if (mddev->pers)
		return -EBUSY;
	if (sysfs_streq(buf, "none")) {
		mddev->reshape_position = MD_MAX_SECTOR;
		return len;
	}
	if (kstrtoull(buf, 10, &n) || n == MD_MAX_SECTOR)
		return -EINVAL;
	mddev->reshape_position = n;
	return len;
}
MD_ATTR_RW(reshape_position, reshape_position);

static ssize_t reshape_direction_show(struct mddev *mddev, char *page)
{
	return sysfs_emit(page, "%s\n", READ_ONCE(mddev->reshape_backwards) ?
			  "backwards" : "forwards");
}

static ssize_t reshape_direction_store(struct mddev *mddev, const char *buf,
				       size_t len)
{
	if (sysfs_streq(buf, "forwards")) {
		if (mddev->reshape_backwards &&
		    mddev->reshape_position != MD_MAX_SECTOR)
			return -EBUSY;
		WRITE_ONCE(mddev->reshape_backwards, false);
		return len;
	}
	if (!sysfs_streq(buf, "backwards"))
		return -EINVAL;
	if (mddev->reshape_position != MD_MAX_SECTOR)
		return mddev->reshape_backwards ? len : -EBUSY;
	WRITE_ONCE(mddev->reshape_backwards, true);
	return len;
}
MD_ATTR_RW(reshape_direction, reshape_direction);

/*
 * Writes to the array sectors [suspend_lo, suspend_hi) wait (reads go
 * on), as in-tree: mdadm holds the region a backup-file reshape is
 * about to rewrite in place while it copies it to the backup.  Either
 * end may move either way; lo >= hi is the empty range.
 */
static ssize_t suspend_lo_show(struct mddev *mddev, char *page)
{
	return sysfs_emit(page, "%llu\n",
			  (unsigned long long)READ_ONCE(mddev->suspend_lo));
}

static ssize_t suspend_store(struct mddev *mddev, const char *buf,
			     size_t len, bool hi)
{
	unsigned long long n;

	if (kstrtoull(buf, 10, &n))
		return -EINVAL;
	if (hi)
		md_set_suspend(mddev, mddev->suspend_lo, n);
	else
		md_set_suspend(mddev, n, mddev->suspend_hi);
	return len;
}

static ssize_t suspend_lo_store(struct mddev *mddev, const char *buf,
				size_t len)
{
	return suspend_store(mddev, buf, len, false);
}
MD_ATTR_RW(suspend_lo, suspend_lo);

static ssize_t suspend_hi_show(struct mddev *mddev, char *page)
{
	return sysfs_emit(page, "%llu\n",
			  (unsigned long long)READ_ONCE(mddev->suspend_hi));
}

static ssize_t suspend_hi_store(struct mddev *mddev, const char *buf,
				size_t len)
{
	return suspend_store(mddev, buf, len, true);
}
MD_ATTR_RW(suspend_hi, suspend_hi);

/* Bitmap chunks to resync: md_bitmap_set_bits() has the format. */
static ssize_t bitmap_set_bits_store(struct mddev *mddev, const char *buf,
				     size_t len)
{
	int err = md_bitmap_set_bits(mddev, buf);

	return err ? err : len;
}
MD_ATTR_WO(bitmap_set_bits, bitmap_set_bits);

/* Bytes, as upstream; 0 when the array is not running. */
static ssize_t logical_block_size_show(struct mddev *mddev, char *page)
{
	unsigned int lbs = 0;

	spin_lock_irq(&mddev->lock);
	if (mddev->pers)
		lbs = queue_logical_block_size(mddev->gendisk->queue);
	spin_unlock_irq(&mddev->lock);
	return sysfs_emit(page, "%u\n", lbs);
}
MD_ATTR_RO(logical_block_size, logical_block_size);

static struct attribute *md_default_attrs[] = {
	&mda_metadata_version.attr,
	&mda_level.attr,
	&mda_raid_disks.attr,
	&mda_chunk_size.attr,
	&mda_layout.attr,
	&mda_component_size.attr,
	&mda_array_size.attr,
	&mda_resync_start.attr,
	&mda_new_dev.attr,
	&mda_array_state.attr,
	&mda_safe_mode_delay.attr,
	&mda_safe_mode_adaptive.attr,
	&mda_consistency_policy.attr,
	&mda_uuid.attr,
	&mda_max_read_errors.attr,
	&mda_fail_last_dev.attr,
	&mda_serialize_policy.attr,
	&mda_new_level.attr,
	&mda_logical_block_size.attr,
	&mda_reshape_position.attr,
	&mda_reshape_direction.attr,
	NULL,
};

static const struct attribute_group md_default_group = {
	.attrs = md_default_attrs,
};

/*
 * Files of an array that has a sync, there only while its personality
 * runs, as in-tree md's redundancy group (see md_core.h, sync_shown).
 */
static struct attribute *md_sync_attrs[] = {
	&mda_sync_action.attr,
	&mda_last_sync_action.attr,
	&mda_sync_completed.attr,
	&mda_sync_speed.attr,
	&mda_sync_speed_min.attr,
	&mda_sync_speed_max.attr,
	&mda_sync_io_depth.attr,
	&mda_sync_busy_pct.attr,
	&mda_sync_idle_ms.attr,
	&mda_sync_force_parallel.attr,
	&mda_sync_min.attr,
	&mda_sync_max.attr,
	&mda_mismatch_cnt.attr,
	&mda_degraded.attr,
	&mda_suspend_lo.attr,
	&mda_suspend_hi.attr,
	&mda_bitmap_set_bits.attr,
	NULL,
};

static const struct attribute_group md_sync_group = {
	.attrs = md_sync_attrs,
};

static bool md_sync_file(const struct attribute *attr)
{
	int i;

	for (i = 0; md_sync_attrs[i]; i++)
		if (md_sync_attrs[i] == attr)
			return true;
	return false;
}

static const char *const md_sync_kn_names[MD_SYNC_KN_NR] = {
	[MD_KN_ACTION]		= "sync_action",
	[MD_KN_DEGRADED]	= "degraded",
	[MD_KN_COMPLETED]	= "sync_completed",
};

/*
 * Add (@show) or remove the sync files and renew the nodes
 * md_notify_sync() wakes.  Never under reconfig_mutex nor from a store
 * of a sync file: removing a file waits for its stores in progress.
 */
void md_sysfs_sync_files(struct mddev *mddev, bool show)
{
	struct md_core *core = to_core(mddev);
	struct kernfs_node *old[MD_SYNC_KN_NR];
	int i, err;

	mutex_lock(&core->sysfs_mutex);
	if (show == core->sync_shown)
		goto unlock;
	if (show) {
		err = sysfs_create_group(&mddev->kobj, &md_sync_group);
		if (err) {
			pr_warn("md: %s: cannot add the sync files (%d)\n",
				mdname(mddev), err);
			goto unlock;
		}
	}
	for (i = 0; i < MD_SYNC_KN_NR; i++) {
		struct kernfs_node *kn = NULL;

		if (show)
			kn = sysfs_get_dirent(mddev->kobj.sd,
					      md_sync_kn_names[i]);
		old[i] = rcu_replace_pointer(core->sync_kn[i], kn,
					     lockdep_is_held(&core->sysfs_mutex));
	}
	/* md_notify_sync() may still hold an old node */
	synchronize_rcu();
	for (i = 0; i < MD_SYNC_KN_NR; i++)
		if (old[i])
			sysfs_put(old[i]);
	if (!show)
		sysfs_remove_group(&mddev->kobj, &md_sync_group);
	core->sync_shown = show;
unlock:
	mutex_unlock(&core->sysfs_mutex);
}

/* core->sync_files_work: the files as the personality running now wants */
void md_sysfs_sync_work(struct work_struct *ws)
{
	struct md_core *core = container_of(ws, struct md_core,
					    sync_files_work);
	struct mddev *mddev = &core->mddev;
	bool show;

	/* under the lock the personality's module is held by the array */
	spin_lock_irq(&mddev->lock);
	show = mddev->pers && mddev->pers->sync_request;
	spin_unlock_irq(&mddev->lock);
	md_sysfs_sync_files(mddev, show);
	kobject_put(&mddev->kobj);
}

/* After mddev_unlock(), in a caller that holds no sync file's store. */
void md_sysfs_sync_settle(struct mddev *mddev)
{
	flush_work(&to_core(mddev)->sync_files_work);
}

/* ---------------------------------------------------------------- */
/* md/stats/: safe mode and throttle counters */

static ssize_t md_stat_u64(char *page, struct mddev *mddev, const u64 *field)
{
	u64 v;

	spin_lock_irq(&mddev->lock);
	v = *field;
	spin_unlock_irq(&mddev->lock);
	return sysfs_emit(page, "%llu\n", v);
}

#define MD_STAT(_name, _expr) \
static ssize_t stat_##_name##_show(struct mddev *mddev, char *page) \
{ \
	struct md_core *core = to_core(mddev); \
	\
	return md_stat_u64(page, mddev, &(_expr)); \
} \
static struct md_sysfs_entry md_stat_##_name = \
	__ATTR(_name, 0444, stat_##_name##_show, NULL)

/* Writing "0" resets a maximum (e.g. after a warm-up); nothing else. */
static ssize_t md_stat_reset(struct mddev *mddev, const char *buf, size_t len,
			     u64 *field)
{
	unsigned int v;

	if (kstrtouint(buf, 10, &v) || v)
		return -EINVAL;
	spin_lock_irq(&mddev->lock);
	*field = 0;
	spin_unlock_irq(&mddev->lock);
	return len;
}

/* A maximum: as MD_STAT, and writing "0" resets it. */
#define MD_STAT_MAX(_name, _expr) \
static u64 *stat_##_name##_field(struct md_core *core) \
{ \
	return &(_expr); \
} \
static ssize_t stat_##_name##_show(struct mddev *mddev, char *page) \
{ \
	return md_stat_u64(page, mddev, \
			   stat_##_name##_field(to_core(mddev))); \
} \
static ssize_t stat_##_name##_store(struct mddev *mddev, const char *buf, \
				    size_t len) \
{ \
	return md_stat_reset(mddev, buf, len, \
			     stat_##_name##_field(to_core(mddev))); \
} \
static struct md_sysfs_entry md_stat_##_name = \
	__ATTR(_name, 0644, stat_##_name##_show, stat_##_name##_store)

MD_STAT(clean_to_dirty, core->dirty_transitions);
MD_STAT(write_wait_total_ns, core->write_wait_ns_total);
MD_STAT_MAX(write_wait_max_ns, core->write_wait_ns_max);
MD_STAT(clean_check_total_ns, core->clean_check_ns_total);
MD_STAT_MAX(clean_check_max_ns, core->clean_check_ns_max);
MD_STAT(bitmap_wait_total_ns, core->bitmap_wait_ns_total);
MD_STAT_MAX(bitmap_wait_max_ns, core->bitmap_wait_ns_max);

static ssize_t stat_safe_mode_late_show(struct mddev *mddev, char *page)
{
	return sysfs_emit(page, "%d\n", READ_ONCE(to_core(mddev)->sm_late));
}

static struct md_sysfs_entry md_stat_safe_mode_late =
	__ATTR(safe_mode_late, 0444, stat_safe_mode_late_show, NULL);

/* writes_pending and its own counters, under its own lock */
#define WP_STAT(_name, _expr) \
static ssize_t stat_##_name##_show(struct mddev *mddev, char *page) \
{ \
	struct writes_pending *wp = &mddev->wp; \
	struct wp_stats st; \
	\
	wp_get_stats(wp, &st); \
	return sysfs_emit(page, "%lld\n", (long long)(_expr)); \
} \
static struct md_sysfs_entry md_stat_##_name = \
	__ATTR(_name, 0444, stat_##_name##_show, NULL)

WP_STAT(writes_pending, wp_read(wp));
WP_STAT(wp_closed, wp_is_closed(wp));
WP_STAT(wp_closes, st.closes);
WP_STAT(wp_close_fails, st.close_fails);
WP_STAT(wp_opens, st.opens);

/* written by the sync thread without a lock: racy snapshots */
#define RT_STAT(_name, _expr) \
static ssize_t stat_##_name##_show(struct mddev *mddev, char *page) \
{ \
	struct resync_throttle *rt = &mddev->throttle; \
	\
	return sysfs_emit(page, "%llu\n", \
			  (unsigned long long)READ_ONCE(_expr)); \
} \
static struct md_sysfs_entry md_stat_##_name = \
	__ATTR(_name, 0444, stat_##_name##_show, NULL)

RT_STAT(throttled_ns, rt->stats.throttled_ns);
RT_STAT(throttle_samples, rt->stats.samples);
RT_STAT(fg_active_samples, rt->stats.fg_active_samples);
RT_STAT(throttle_max_inflight, rt->last.max_inflight);
RT_STAT(throttle_wait_ns, rt->last.wait_ns);
RT_STAT(throttle_fg_active, rt->last.fg_active);
RT_STAT(throttle_fg_busy_ns, rt->stats.fg_busy_ns);
RT_STAT(throttle_busy_periods, rt->stats.busy_periods);
RT_STAT(throttle_share_pm, rt->stats.share_pm);
RT_STAT(throttle_lat_ratio_pm, rt->stats.lat_ratio_pm);
RT_STAT(throttle_probes, rt->stats.probes);
RT_STAT(throttle_share_cuts, rt->stats.share_cuts);
RT_STAT(throttle_light_ns, rt->stats.light_ns);

static const char * const md_rt_mode_names[RT_MODE_NR] = {
	[RT_MODE_IDLE]		= "idle",
	[RT_MODE_PACED]		= "paced",
	[RT_MODE_FLOOR]		= "floor",
	[RT_MODE_CEILING]	= "ceiling",
	[RT_MODE_PROBE]		= "probe",
};

/* The last decision's mode; "none" before any sync pass ran. */
static ssize_t stat_throttle_mode_show(struct mddev *mddev, char *page)
{
	u32 mode = READ_ONCE(mddev->throttle.stats.mode);

	if (!READ_ONCE(mddev->throttle.stats.samples))
		return sysfs_emit(page, "none\n");
	if (mode >= RT_MODE_NR)
		return sysfs_emit(page, "%u\n", mode);
	return sysfs_emit(page, "%s\n", md_rt_mode_names[mode]);
}

static struct md_sysfs_entry md_stat_throttle_mode =
	__ATTR(throttle_mode, 0444, stat_throttle_mode_show, NULL);

static struct attribute *md_stats_attrs[] = {
	&md_stat_clean_to_dirty.attr,
	&md_stat_write_wait_total_ns.attr,
	&md_stat_write_wait_max_ns.attr,
	&md_stat_clean_check_total_ns.attr,
	&md_stat_clean_check_max_ns.attr,
	&md_stat_bitmap_wait_total_ns.attr,
	&md_stat_bitmap_wait_max_ns.attr,
	&md_stat_safe_mode_late.attr,
	&md_stat_writes_pending.attr,
	&md_stat_wp_closed.attr,
	&md_stat_wp_closes.attr,
	&md_stat_wp_close_fails.attr,
	&md_stat_wp_opens.attr,
	&md_stat_throttled_ns.attr,
	&md_stat_throttle_samples.attr,
	&md_stat_fg_active_samples.attr,
	&md_stat_throttle_max_inflight.attr,
	&md_stat_throttle_wait_ns.attr,
	&md_stat_throttle_fg_active.attr,
	&md_stat_throttle_fg_busy_ns.attr,
	&md_stat_throttle_busy_periods.attr,
	&md_stat_throttle_share_pm.attr,
	&md_stat_throttle_lat_ratio_pm.attr,
	&md_stat_throttle_probes.attr,
	&md_stat_throttle_share_cuts.attr,
	&md_stat_throttle_light_ns.attr,
	&md_stat_throttle_mode.attr,
	NULL,
};

static const struct attribute_group md_stats_group = {
	.name = "stats",
	.attrs = md_stats_attrs,
};

static const struct attribute_group *md_groups[] = {
	&md_default_group,
	&md_stats_group,
	&md_bitmap_group,
	NULL,
};

static ssize_t md_attr_show(struct kobject *kobj, struct attribute *attr,
			    char *page)
{
	struct md_sysfs_entry *e = container_of(attr, struct md_sysfs_entry,
						attr);
	struct mddev *mddev = container_of(kobj, struct mddev, kobj);

	if (!e->show)
		return -EIO;
	return e->show(mddev, page);
}

static ssize_t md_attr_store(struct kobject *kobj, struct attribute *attr,
			     const char *page, size_t len)
{
	struct md_sysfs_entry *e = container_of(attr, struct md_sysfs_entry,
						attr);
	struct mddev *mddev = container_of(kobj, struct mddev, kobj);
	ssize_t ret;

	if (!e->store)
		return -EIO;
	if (!capable(CAP_SYS_ADMIN))
		return -EACCES;
	if (e->unlocked)
		return e->store(mddev, page, len);
	ret = mddev_lock_live(mddev);
	if (ret)
		return ret;
	ret = e->store(mddev, page, len);
	mddev_unlock(mddev);
	/* a sync file's store must not wait for its own removal */
	if (!md_sync_file(attr))
		md_sysfs_sync_settle(mddev);
	return ret;
}

static void md_kobj_release(struct kobject *kobj)
{
	struct mddev *mddev = container_of(kobj, struct mddev, kobj);

	kfree(to_core(mddev));
}

static const struct sysfs_ops md_sysfs_ops = {
	.show = md_attr_show,
	.store = md_attr_store,
};

const struct kobj_type md_ktype = {
	.sysfs_ops = &md_sysfs_ops,
	.release = md_kobj_release,
	.default_groups = md_groups,
};

/* ---------------------------------------------------------------- */
/* dev-XXX/ */

struct md_rdev_entry {
	struct attribute attr;
	ssize_t (*show)(struct md_rdev *rdev, char *page);
	ssize_t (*store)(struct md_rdev *rdev, const char *page, size_t len);
};

#define RDEV_ATTR_RW(_name) \
	static struct md_rdev_entry rdev_##_name = \
		__ATTR(_name, 0644, rdev_##_name##_show, rdev_##_name##_store)

static ssize_t rdev_state_show(struct md_rdev *rdev, char *page)
{
	unsigned long f = READ_ONCE(rdev->flags);
	const char *sep = "";
	size_t n = 0;

	if (f & BIT(RD_FAULTY)) {
		n += sysfs_emit_at(page, n, "%sfaulty", sep);
		sep = ",";
	}
	if (f & BIT(RD_IN_SYNC)) {
		n += sysfs_emit_at(page, n, "%sin_sync", sep);
		sep = ",";
	}
	if (f & BIT(RD_WRITE_MOSTLY)) {
		n += sysfs_emit_at(page, n, "%swrite_mostly", sep);
		sep = ",";
	}
	if (!(f & (BIT(RD_FAULTY) | BIT(RD_IN_SYNC)))) {
		n += sysfs_emit_at(page, n, "%sspare", sep);
		sep = ",";
	}
	if (f & BIT(RD_WRITE_ERROR)) {
		n += sysfs_emit_at(page, n, "%swrite_error", sep);
		sep = ",";
	}
	if (f & BIT(RD_WANT_REPLACEMENT)) {
		n += sysfs_emit_at(page, n, "%swant_replacement", sep);
		sep = ",";
	}
	if (f & BIT(RD_REPLACEMENT)) {
		n += sysfs_emit_at(page, n, "%sreplacement", sep);
		sep = ",";
	}
	if (f & BIT(RD_FAILFAST))
		n += sysfs_emit_at(page, n, "%sfailfast", sep);
	n += sysfs_emit_at(page, n, "\n");
	return n;
}

/*
 * "want_replacement": a member (not a spare, not a replacement itself)
 * asks for a spare to be built beside it.  Refused, with the reason in
 * the log, where it could not be served: this stack builds replacements
 * for RAID1, RAID4/5/6 and RAID10 with 1.x superblocks (0.90 records
 * none).
 */
static int rdev_want_replacement(struct md_rdev *rdev)
{
	struct mddev *mddev = rdev->mddev;

	if (rdev->raid_disk < 0 || test_bit(RD_REPLACEMENT, &rdev->flags))
		return -EINVAL;
	if (!mddev->pers)
		return -EBUSY;
	if (!mddev->pers->replacement || !mddev->persistent ||
	    mddev->major_version != 1) {
		pr_warn("md: %s: cannot replace %pg: this stack builds replacements for RAID1, RAID4/5/6 and RAID10 with 1.x superblocks only\n",
			mdname(mddev), rdev->bdev);
		return -EOPNOTSUPP;
	}
	set_bit(RD_WANT_REPLACEMENT, &rdev->flags);
	set_bit(MDR_NEEDED, &mddev->recovery);
	return 0;
}

static ssize_t rdev_state_store(struct md_rdev *rdev, const char *buf,
				size_t len)
{
	struct mddev *mddev = rdev->mddev;
	int err = 0;

	if (sysfs_streq(buf, "faulty")) {
		if (mddev->pers)
			err = md_fail_request(mddev, rdev);
		else
			set_bit(RD_FAULTY, &rdev->flags);
	} else if (sysfs_streq(buf, "remove")) {
		err = md_remove_rdev(mddev, rdev);
	} else if (sysfs_streq(buf, "writemostly")) {
		set_bit(RD_WRITE_MOSTLY, &rdev->flags);
	} else if (sysfs_streq(buf, "-writemostly")) {
		clear_bit(RD_WRITE_MOSTLY, &rdev->flags);
	} else if (sysfs_streq(buf, "failfast")) {
		set_bit(RD_FAILFAST, &rdev->flags);
	} else if (sysfs_streq(buf, "-failfast")) {
		clear_bit(RD_FAILFAST, &rdev->flags);
	} else if (sysfs_streq(buf, "write_error")) {
		set_bit(RD_WRITE_ERROR, &rdev->flags);
	} else if (sysfs_streq(buf, "-write_error")) {
		clear_bit(RD_WRITE_ERROR, &rdev->flags);
	} else if (sysfs_streq(buf, "want_replacement")) {
		err = rdev_want_replacement(rdev);
	} else if (sysfs_streq(buf, "-want_replacement")) {
		clear_bit(RD_WANT_REPLACEMENT, &rdev->flags);
	} else if (sysfs_streq(buf, "replacement")) {
		if (mddev->pers)
			return -EBUSY;
		set_bit(RD_REPLACEMENT, &rdev->flags);
	} else if (sysfs_streq(buf, "-replacement")) {
		if (mddev->pers)
			return -EBUSY;
		clear_bit(RD_REPLACEMENT, &rdev->flags);
	} else if (sysfs_streq(buf, "insync")) {
		if (mddev->pers)
			return -EBUSY;
		set_bit(RD_IN_SYNC, &rdev->flags);
	} else if (sysfs_streq(buf, "-insync")) {
		if (mddev->pers)
			return -EBUSY;
		clear_bit(RD_IN_SYNC, &rdev->flags);
	} else if (sysfs_streq(buf, "re-add")) {
		bool readd;

		if (!mddev->pers || !test_bit(RD_FAULTY, &rdev->flags) ||
		    rdev->raid_disk >= 0)
			return -EINVAL;
		/*
		 * Without superblocks nothing can say what it missed but the
		 * bitmap, which kept every chunk written since it failed in
		 * sync (md_error() left its slot in saved_raid_disk), as
		 * in-tree.  With superblocks it is rebuilt in full
		 * here; a removed member re-added through ADD_NEW_DISK is
		 * judged by its superblock's events.
		 */
		readd = !mddev->persistent && mddev->bitmap &&
			READ_ONCE(rdev->saved_raid_disk) >= 0;
		clear_bit(RD_FAULTY, &rdev->flags);
		clear_bit(RD_IN_SYNC, &rdev->flags);
		assign_bit(RD_BITMAP_READD, &rdev->flags, readd);
		set_bit(MDR_NEEDED, &mddev->recovery);
	} else {
		return -EINVAL;
	}
	if (err)
		return err;
	if (mddev->pers && !sysfs_streq(buf, "remove")) {
		set_bit(MD_SB_CHANGE_DEVS, &mddev->sb_flags);
		md_wakeup_thread(mddev);
	}
	md_notify(rdev->sysfs_state);
	return len;
}
RDEV_ATTR_RW(state);

static ssize_t rdev_slot_show(struct md_rdev *rdev, char *page)
{
	int slot = READ_ONCE(rdev->raid_disk);

	if (slot < 0)
		return sysfs_emit(page, "none\n");
	return sysfs_emit(page, "%d\n", slot);
}

/*
 * A spare into mirror @slot of a running array (mdadm --replace --with
 * names the replacement so): the personality puts it in the slot if
 * free, or beside the member there if that one wants replacing.
 */
static int rdev_slot_store_running(struct md_rdev *rdev, int slot)
{
	struct mddev *mddev = rdev->mddev;
	int err;

	lockdep_assert_held(&mddev->reconfig_mutex);
	if (rdev->raid_disk >= 0 || test_bit(RD_FAULTY, &rdev->flags) ||
	    test_bit(MDR_RUNNING, &mddev->recovery))
		return -EBUSY;
	/* the levels whose hot_add_disk() takes the slot it is asked for */
	if (!mddev->pers->hot_add_disk || !mddev->pers->replacement)
		return -EBUSY;
	if (slot >= mddev->raid_disks)
		return -ENOSPC;
	rdev->raid_disk = slot;
	err = md_add_spare(mddev, rdev);
	if (err)
		return err;
	set_bit(MDR_NEEDED, &mddev->recovery);
	md_wakeup_thread(mddev);
	return 0;
}

static ssize_t rdev_slot_store(struct md_rdev *rdev, const char *buf,
			       size_t len)
{
	struct mddev *mddev = rdev->mddev;
	int slot, err;

	if (sysfs_streq(buf, "none")) {
		if (rdev->raid_disk < 0)
			return len;
		if (mddev->pers) {
			if (!mddev->pers->hot_remove_disk)
				return -EBUSY;
			err = mddev->pers->hot_remove_disk(mddev, rdev);
			if (err)
				return err;
			md_rdev_leave_slot(rdev);
			set_bit(MD_SB_CHANGE_DEVS, &mddev->sb_flags);
			set_bit(MDR_NEEDED, &mddev->recovery);
			md_wakeup_thread(mddev);
		}
		rdev->raid_disk = -1;
		md_notify(rdev->sysfs_state);
		return len;
	}
	if (kstrtoint(buf, 10, &slot) || slot < 0)
		return -EINVAL;
	if (mddev->pers)
		return rdev_slot_store_running(rdev, slot) ?: len;
	if (mddev->raid_disks && slot >= md_slots(mddev))
		return -ENOSPC;
	rdev->raid_disk = slot;
	rdev->saved_raid_disk = slot;
	return len;
}
RDEV_ATTR_RW(slot);

static ssize_t rdev_offset_show(struct md_rdev *rdev, char *page)
{
	return sysfs_emit(page, "%llu\n",
			  (unsigned long long)READ_ONCE(rdev->data_offset));
}

static ssize_t rdev_offset_store(struct md_rdev *rdev, const char *buf,
				 size_t len)
{
	unsigned long long n;

	if (kstrtoull(buf, 10, &n))
		return -EINVAL;
	if (rdev->mddev->pers)
		return -EBUSY;
	rdev->data_offset = n;
	rdev->new_data_offset = n;
	return len;
}
RDEV_ATTR_RW(offset);

/*
 * Where the member's data starts in the new geometry of the next
 * reshape (md_reshape.c).  Down (a forwards reshape) to no lower than
 * the end of the superblock and the bad block log before it (a 0.90 or
 * 1.0 superblock has no room there); up (reshape_direction backwards
 * first) as far as the data still fits before the device's end or a
 * 1.0 superblock (-E2BIG, as in-tree, after which mdadm tries again).
 * Fixed once a reshape runs (-EBUSY).
 */
static ssize_t rdev_new_offset_show(struct md_rdev *rdev, char *page)
{
	return sysfs_emit(page, "%llu\n",
			  (unsigned long long)READ_ONCE(rdev->new_data_offset));
}

static ssize_t rdev_new_offset_store(struct md_rdev *rdev, const char *buf,
				     size_t len)
{
	struct mddev *mddev = rdev->mddev;
	unsigned long long n;

	if (kstrtoull(buf, 10, &n))
		return -EINVAL;
	if (mddev->reshape_position != MD_MAX_SECTOR)
		return -EBUSY;
	/* as in-tree: no room first (mdadm then takes a backup file) */
	if (n > rdev->data_offset &&
	    (!mddev->persistent || mddev->major_version != 1 ||
	     n + mddev->dev_sectors > md_super_data_limit(rdev)))
		return -E2BIG;
	if (n > rdev->data_offset && !mddev->reshape_backwards) {
		pr_info("md: %s: %pg: new_offset %llu refused: moving data up needs reshape_direction backwards first (data_offset %llu)\n",
			mdname(mddev), rdev->bdev, n,
			(unsigned long long)rdev->data_offset);
		return -EINVAL;
	}
	if (n < rdev->data_offset && n < md_super_data_floor(rdev)) {
		pr_info("md: %s: %pg: new_offset %llu refused: it overlaps the superblock or the bad block log\n",
			mdname(mddev), rdev->bdev, n);
		return -EINVAL;
	}
	WRITE_ONCE(rdev->new_data_offset, n);
	return len;
}
RDEV_ATTR_RW(new_offset);

static ssize_t rdev_size_show(struct md_rdev *rdev, char *page)
{
	return sysfs_emit(page, "%llu\n",
			  (unsigned long long)READ_ONCE(rdev->sectors) / 2);
}

/*
 * KiB of the device the member's data may use.  Before the array runs
 * it is taken as given.  On a running array: what a grown device now
 * offers, 0 for all of it, recorded in the superblocks at once
 * (md_set_rdev_sectors()); -ENOSPC beyond the device, -EBUSY below
 * md/component_size.
 */
static ssize_t rdev_size_store(struct md_rdev *rdev, const char *buf,
			       size_t len)
{
	struct mddev *mddev = rdev->mddev;
	unsigned long long kib;
	int err;

	if (kstrtoull(buf, 10, &kib) || kib > (MD_MAX_SECTOR >> 1))
		return -EINVAL;
	if (mddev->pers) {
		err = md_set_rdev_sectors(mddev, rdev, kib * 2);
		return err ? err : len;
	}
	WRITE_ONCE(rdev->sectors, kib * 2);
	return len;
}
RDEV_ATTR_RW(size);

static ssize_t rdev_errors_show(struct md_rdev *rdev, char *page)
{
	return sysfs_emit(page, "%d\n", atomic_read(&rdev->errors));
}

static ssize_t rdev_errors_store(struct md_rdev *rdev, const char *buf,
				 size_t len)
{
	unsigned int n;

	if (kstrtouint(buf, 10, &n) || n > INT_MAX)
		return -EINVAL;
	atomic_set(&rdev->errors, n);
	return len;
}
RDEV_ATTR_RW(errors);

static ssize_t rdev_recovery_start_show(struct md_rdev *rdev, char *page)
{
	sector_t r = READ_ONCE(rdev->recovery_offset);

	if (test_bit(RD_IN_SYNC, &rdev->flags) || test_bit(RD_FAULTY, &rdev->flags) ||
	    r == MD_MAX_SECTOR)
		return sysfs_emit(page, "none\n");
	return sysfs_emit(page, "%llu\n", (unsigned long long)r);
}

static ssize_t rdev_recovery_start_store(struct md_rdev *rdev,
					 const char *buf, size_t len)
{
	unsigned long long n;
	bool none = sysfs_streq(buf, "none");

	if (!none && kstrtoull(buf, 10, &n))
		return -EINVAL;
	if (rdev->mddev->pers)
		return -EBUSY;
	if (none) {
		rdev->recovery_offset = MD_MAX_SECTOR;
		set_bit(RD_IN_SYNC, &rdev->flags);
	} else {
		rdev->recovery_offset = n;
		clear_bit(RD_IN_SYNC, &rdev->flags);
	}
	return len;
}
RDEV_ATTR_RW(recovery_start);

/*
 * The bad-block list (md_badblocks.c), absolute member sectors, as the
 * block library prints and parses it ("sector length" per line).  A
 * write adds an entry, acknowledged (bad_blocks) or not
 * (unacknowledged_bad_blocks), and asks for a superblock write so a
 * log on disk follows; -ENOSPC when the member keeps no log (0.90, no
 * superblock, no log area) or it is full, -EINVAL for anything else.
 * The list has its own lock (the library's); reconfig_mutex, held
 * for every dev-* store, only keeps rdev->mddev stable.
 */
static ssize_t rdev_bb_store(struct md_rdev *rdev, const char *buf,
			     size_t len, int unack)
{
	struct mddev *mddev = rdev->mddev;
	ssize_t ret;

	ret = badblocks_store(&rdev->badblocks, buf, len, unack);
	if (ret > 0 && mddev && mddev->pers) {
		set_bit(MD_SB_CHANGE_DEVS, &mddev->sb_flags);
		md_wakeup_thread(mddev);
	}
	return ret;
}

static ssize_t rdev_bad_blocks_show(struct md_rdev *rdev, char *page)
{
	return badblocks_show(&rdev->badblocks, page, 0);
}

static ssize_t rdev_bad_blocks_store(struct md_rdev *rdev, const char *buf,
				     size_t len)
{
	return rdev_bb_store(rdev, buf, len, 0);
}
RDEV_ATTR_RW(bad_blocks);

static ssize_t rdev_unacknowledged_bad_blocks_show(struct md_rdev *rdev,
						   char *page)
{
	return badblocks_show(&rdev->badblocks, page, 1);
}

static ssize_t rdev_unacknowledged_bad_blocks_store(struct md_rdev *rdev,
						    const char *buf,
						    size_t len)
{
	return rdev_bb_store(rdev, buf, len, 1);
}
RDEV_ATTR_RW(unacknowledged_bad_blocks);

static struct attribute *rdev_default_attrs[] = {
	&rdev_state.attr,
	&rdev_slot.attr,
	&rdev_offset.attr,
	&rdev_new_offset.attr,
	&rdev_size.attr,
	&rdev_errors.attr,
	&rdev_recovery_start.attr,
	&rdev_bad_blocks.attr,
	&rdev_unacknowledged_bad_blocks.attr,
	NULL,
};
ATTRIBUTE_GROUPS(rdev_default);

static ssize_t rdev_attr_show(struct kobject *kobj, struct attribute *attr,
			      char *page)
{
	struct md_rdev_entry *e = container_of(attr, struct md_rdev_entry, attr);
	struct md_rdev *rdev = container_of(kobj, struct md_rdev, kobj);

	if (!READ_ONCE(rdev->mddev))
		return -ENODEV;
	return e->show(rdev, page);
}

static ssize_t rdev_attr_store(struct kobject *kobj, struct attribute *attr,
			       const char *page, size_t len)
{
	struct md_rdev_entry *e = container_of(attr, struct md_rdev_entry, attr);
	struct md_rdev *rdev = container_of(kobj, struct md_rdev, kobj);
	struct mddev *mddev = READ_ONCE(rdev->mddev);
	ssize_t ret;

	if (!mddev)
		return -ENODEV;
	if (!capable(CAP_SYS_ADMIN))
		return -EACCES;
	ret = mddev_lock(mddev);
	if (ret)
		return ret;
	/* it may have been removed while we waited */
	ret = rdev->mddev == mddev ? e->store(rdev, page, len) : -ENODEV;
	mddev_unlock(mddev);
	return ret;
}

static void rdev_kobj_release(struct kobject *kobj)
{
	struct md_rdev *rdev = container_of(kobj, struct md_rdev, kobj);

	md_bb_exit(rdev);
	kfree(to_core_rdev(rdev));
}

static const struct sysfs_ops rdev_sysfs_ops = {
	.show = rdev_attr_show,
	.store = rdev_attr_store,
};

const struct kobj_type md_rdev_ktype = {
	.sysfs_ops = &rdev_sysfs_ops,
	.release = rdev_kobj_release,
	.default_groups = rdev_default_groups,
};

/* After kobject_add(): the "block" link and the state handle. */
int md_sysfs_add_rdev(struct md_rdev *rdev)
{
	int err;

	err = sysfs_create_link(&rdev->kobj, bdev_kobj(rdev->bdev), "block");
	if (err)
		return err;
	rdev->sysfs_state = sysfs_get_dirent(rdev->kobj.sd, "state");
	return 0;
}
