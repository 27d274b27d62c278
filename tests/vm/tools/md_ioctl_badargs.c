// SPDX-License-Identifier: GPL-2.0
/*
 * md_ioctl_badargs: send md ioctls malformed or out-of-place arguments and
 * check that each is refused with the errno in-tree md (Linux 6.1) returns,
 * and that the running array is unchanged afterwards.
 *
 * usage: md_ioctl_badargs MD MEMBER SPARE FRESH_MD
 *        md_ioctl_badargs --count
 *   MD        a running raid1 (e.g. /dev/md0), idle (no resync)
 *   MEMBER    an active member of MD (e.g. /dev/ram0)
 *   SPARE     a blank block device in no array (e.g. /dev/ram2)
 *   FRESH_MD  an md device node that is not set up (e.g. /dev/md1)
 *
 * Output, one line per case, for the shell test to turn into KTAP:
 *   PASS <case>: got <ERRNO>
 *   FAIL <case>: got <ERRNO|success>, want <ERRNO>[; array changed: ...]
 * plus "# ..." diagnostics.  Exit status 0 iff every case passed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/major.h>
#include <linux/raid/md_p.h>
#include <linux/raid/md_u.h>

/* A user address no process has mapped: copy_{to,from}_user must fail. */
#define BAD_PTR ((unsigned long)16)
/* A block device number no driver owns (major 240 is "local/experimental"). */
#define NODEV_MAJOR 240
#define NODEV_MINOR 77

static int md_fd, md_fd2, fresh_fd;
static dev_t member_dev, spare_dev;
static const char *fresh_path;
static mdu_array_info_t base_info;
static mdu_disk_info_t base_disks[MD_SB_DISKS];
static int failures;
static int is_fork;

static const char *ename(int e)
{
	const char *n;

	if (e == 0)
		return "success";
	n = strerrorname_np(e);
	return n ? n : "E?";
}

/* ioctl returning 0 or the errno it failed with */
static int xioctl(int fd, unsigned long cmd, unsigned long arg)
{
	return ioctl(fd, cmd, arg) < 0 ? errno : 0;
}

/* The same, in a child process that has dropped root (all capabilities). */
static int unprivileged_ioctl(int fd, unsigned long cmd, unsigned long arg)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (setgid(65534) || setuid(65534))
			_exit(255);
		_exit(xioctl(fd, cmd, arg));
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static mdu_disk_info_t disk_info(dev_t dev, int state)
{
	mdu_disk_info_t d;

	memset(&d, 0, sizeof(d));
	d.major = major(dev);
	d.minor = minor(dev);
	d.raid_disk = -1;
	d.state = state;
	return d;
}

/* Snapshot of what must not change: array info (less update time and the
 * clean bit, which follow writes) and every slot's disk info. */
static int snapshot(mdu_array_info_t *ai, mdu_disk_info_t *disks)
{
	int i;

	if (ioctl(md_fd, GET_ARRAY_INFO, ai) < 0)
		return errno;
	ai->utime = 0;
	ai->state &= ~(1 << MD_SB_CLEAN);
	for (i = 0; i < ai->nr_disks + 2 && i < MD_SB_DISKS; i++) {
		memset(&disks[i], 0, sizeof(disks[i]));
		disks[i].number = i;
		if (ioctl(md_fd, GET_DISK_INFO, &disks[i]) < 0)
			return errno;
	}
	return 0;
}

/* Empty when MD still looks like base_*, else what differs. */
static void array_diff(char *out, size_t len)
{
	mdu_array_info_t ai;
	static mdu_disk_info_t disks[MD_SB_DISKS];
	int err, i;

	out[0] = 0;
	err = snapshot(&ai, disks);
	if (err) {
		snprintf(out, len, "GET_ARRAY_INFO/GET_DISK_INFO failed: %s", ename(err));
		return;
	}
	if (memcmp(&ai, &base_info, sizeof(ai))) {
		snprintf(out, len,
			 "array info: level %d->%d raid_disks %d->%d active %d->%d working %d->%d failed %d->%d spare %d->%d nr_disks %d->%d state %#x->%#x",
			 base_info.level, ai.level, base_info.raid_disks, ai.raid_disks,
			 base_info.active_disks, ai.active_disks,
			 base_info.working_disks, ai.working_disks,
			 base_info.failed_disks, ai.failed_disks,
			 base_info.spare_disks, ai.spare_disks,
			 base_info.nr_disks, ai.nr_disks, base_info.state, ai.state);
		return;
	}
	for (i = 0; i < ai.nr_disks + 2 && i < MD_SB_DISKS; i++) {
		if (memcmp(&disks[i], &base_disks[i], sizeof(disks[i]))) {
			snprintf(out, len,
				 "disk %d: %d:%d slot %d state %#x -> %d:%d slot %d state %#x", i,
				 base_disks[i].major, base_disks[i].minor,
				 base_disks[i].raid_disk, base_disks[i].state,
				 disks[i].major, disks[i].minor, disks[i].raid_disk,
				 disks[i].state);
			return;
		}
	}
}

/* The fresh md device must still be unconfigured. */
static void fresh_diff(char *out, size_t len)
{
	mdu_array_info_t ai;
	int err = xioctl(fresh_fd, GET_ARRAY_INFO, (unsigned long)&ai);

	out[0] = 0;
	if (err != ENODEV)
		snprintf(out, len, "%s: GET_ARRAY_INFO gave %s, want ENODEV (unconfigured)",
			 fresh_path, ename(err));
}

static void check(const char *name, int got, int want, int on_fresh)
{
	char diff[512];

	array_diff(diff, sizeof(diff));
	if (!diff[0] && on_fresh)
		fresh_diff(diff, sizeof(diff));
	if (got == want && !diff[0]) {
		printf("PASS %s: got %s\n", name, ename(got));
	} else {
		failures++;
		printf("FAIL %s: got %s, want %s%s%s\n", name, ename(got), ename(want),
		       diff[0] ? "; changed: " : "", diff);
	}
	fflush(stdout);
}

/* ---- cases -------------------------------------------------------------- */

static int c_unknown_cmd(void) { return xioctl(md_fd, _IO(MD_MAJOR, 0x7f), 0); }
static int c_obsolete_set_disk_info(void) { return xioctl(md_fd, SET_DISK_INFO, 0); }
static int c_raid_version_null(void) { return xioctl(md_fd, RAID_VERSION, 0); }
static int c_get_array_info_null(void) { return xioctl(md_fd, GET_ARRAY_INFO, 0); }
static int c_get_array_info_bad(void) { return xioctl(md_fd, GET_ARRAY_INFO, BAD_PTR); }
static int c_get_disk_info_null(void) { return xioctl(md_fd, GET_DISK_INFO, 0); }
static int c_set_array_info_bad(void) { return xioctl(md_fd, SET_ARRAY_INFO, BAD_PTR); }

static int set_array_info_changed(void (*change)(mdu_array_info_t *))
{
	mdu_array_info_t ai;

	if (ioctl(md_fd, GET_ARRAY_INFO, &ai) < 0)
		return -1;
	change(&ai);
	return xioctl(md_fd, SET_ARRAY_INFO, (unsigned long)&ai);
}

static void ch_major(mdu_array_info_t *ai) { ai->major_version = 99; }
static void ch_level(mdu_array_info_t *ai) { ai->level = 5; }
static void ch_two(mdu_array_info_t *ai) { ai->raid_disks += 1; ai->layout += 1; }
static int c_set_array_info_major(void) { return set_array_info_changed(ch_major); }
static int c_set_array_info_level(void) { return set_array_info_changed(ch_level); }
static int c_set_array_info_two(void) { return set_array_info_changed(ch_two); }

static int c_add_new_disk_bad(void) { return xioctl(md_fd, ADD_NEW_DISK, BAD_PTR); }

static int c_add_new_disk_nodev(void)
{
	mdu_disk_info_t d = disk_info(makedev(NODEV_MAJOR, NODEV_MINOR), 0);

	return xioctl(md_fd, ADD_NEW_DISK, (unsigned long)&d);
}

static int c_add_new_disk_overflow(void)
{
	mdu_disk_info_t d = disk_info(0, 0);

	d.major = 1 << 20;	/* does not fit in a dev_t's 12 major bits */
	d.minor = 1;
	return xioctl(md_fd, ADD_NEW_DISK, (unsigned long)&d);
}

static int c_add_new_disk_member(void)
{
	mdu_disk_info_t d = disk_info(member_dev, 0);

	return xioctl(md_fd, ADD_NEW_DISK, (unsigned long)&d);
}

static int c_hot_remove_spare(void) { return xioctl(md_fd, HOT_REMOVE_DISK, spare_dev); }
static int c_hot_remove_active(void) { return xioctl(md_fd, HOT_REMOVE_DISK, member_dev); }
static int c_faulty_spare(void) { return xioctl(md_fd, SET_DISK_FAULTY, spare_dev); }

static int c_faulty_nodev(void)
{
	return xioctl(md_fd, SET_DISK_FAULTY, makedev(NODEV_MAJOR, NODEV_MINOR));
}

static int c_hot_add_v1(void) { return xioctl(md_fd, HOT_ADD_DISK, spare_dev); }
static int c_stop_open(void) { return xioctl(md_fd, STOP_ARRAY, 0); }
static int c_stop_ro_open(void) { return xioctl(md_fd, STOP_ARRAY_RO, 0); }
static int c_restart_rw(void) { return xioctl(md_fd, RESTART_ARRAY_RW, 0); }
static int c_run_running(void) { return xioctl(md_fd, RUN_ARRAY, 0); }
static int c_bitmap_remove_none(void) { return xioctl(md_fd, SET_BITMAP_FILE, (unsigned long)-1); }
static int c_bitmap_badfd(void) { return xioctl(md_fd, SET_BITMAP_FILE, 999); }
static int c_unpriv_stop(void) { return unprivileged_ioctl(md_fd2, STOP_ARRAY, 0); }
static int c_unpriv_faulty(void) { return unprivileged_ioctl(md_fd, SET_DISK_FAULTY, member_dev); }

static int c_fresh_get_info(void)
{
	mdu_array_info_t ai;

	return xioctl(fresh_fd, GET_ARRAY_INFO, (unsigned long)&ai);
}

static int c_fresh_run(void) { return xioctl(fresh_fd, RUN_ARRAY, 0); }

static int c_fresh_bad_major(void)
{
	mdu_array_info_t ai;

	memset(&ai, 0, sizeof(ai));
	ai.major_version = 99;	/* raid_disks 0: "just set the sb version" */
	return xioctl(fresh_fd, SET_ARRAY_INFO, (unsigned long)&ai);
}

static int c_fresh_add_nodev(void)
{
	mdu_disk_info_t d = disk_info(makedev(NODEV_MAJOR, NODEV_MINOR), 0);

	return xioctl(fresh_fd, ADD_NEW_DISK, (unsigned long)&d);
}

static int c_fresh_add_blank(void)
{
	mdu_disk_info_t d = disk_info(spare_dev, 0);

	return xioctl(fresh_fd, ADD_NEW_DISK, (unsigned long)&d);
}

static int c_fresh_hot_add(void) { return xioctl(fresh_fd, HOT_ADD_DISK, spare_dev); }

/*
 * The second SET_ARRAY_INFO after one that configured the array with a full
 * (0.90-style) description; on in-tree md the first must succeed, and
 * STOP_ARRAY afterwards puts the device back unconfigured.  The fork takes
 * array descriptions only for arrays without superblock (not_persistent,
 * mdadm --build; a deliberate difference documented in
 * Documentation/architecture.rst): there the first call itself must be
 * refused, with EINVAL, and that errno is the result.
 */
static int c_fresh_set_twice(void)
{
	mdu_array_info_t ai;
	int err;

	memset(&ai, 0, sizeof(ai));
	ai.major_version = 0;
	ai.minor_version = 90;
	ai.level = 1;
	ai.raid_disks = 2;
	ai.nr_disks = 2;
	ai.size = 1024;
	ai.state = 1 << MD_SB_CLEAN;
	err = xioctl(fresh_fd, SET_ARRAY_INFO, (unsigned long)&ai);
	if (is_fork)
		return err;
	if (err) {
		printf("# setup SET_ARRAY_INFO on %s failed: %s\n", fresh_path, ename(err));
		return -1;
	}
	err = xioctl(fresh_fd, SET_ARRAY_INFO, (unsigned long)&ai);
	if (xioctl(fresh_fd, STOP_ARRAY, 0))
		printf("# cleanup STOP_ARRAY on %s failed: %s\n", fresh_path, ename(errno));
	return err;
}

struct tcase {
	const char *name;
	int (*run)(void);
	int want;
	int fresh;	/* also check FRESH_MD stays unconfigured */
	int want_fork;	/* non-zero: the fork's errno, a documented difference */
};

static const struct tcase cases[] = {
	{ "unknown md ioctl number _IO(9, 0x7f)", c_unknown_cmd, ENOTTY, 0, 0 },
	{ "obsolete SET_DISK_INFO", c_obsolete_set_disk_info, ENOTTY, 0, 0 },
	{ "RAID_VERSION, NULL pointer", c_raid_version_null, EFAULT, 0, 0 },
	{ "GET_ARRAY_INFO, NULL pointer", c_get_array_info_null, EFAULT, 0, 0 },
	{ "GET_ARRAY_INFO, bad pointer", c_get_array_info_bad, EFAULT, 0, 0 },
	{ "GET_DISK_INFO, NULL pointer", c_get_disk_info_null, EFAULT, 0, 0 },
	{ "SET_ARRAY_INFO, bad pointer", c_set_array_info_bad, EFAULT, 0, 0 },
	{ "SET_ARRAY_INFO on running array, major_version 99", c_set_array_info_major, EINVAL, 0, 0 },
	{ "SET_ARRAY_INFO on running array, level change", c_set_array_info_level, EINVAL, 0, 0 },
	{ "SET_ARRAY_INFO on running array, two changes at once", c_set_array_info_two, EINVAL, 0, 0 },
	{ "ADD_NEW_DISK, bad pointer", c_add_new_disk_bad, EFAULT, 0, 0 },
	{ "ADD_NEW_DISK of a nonexistent major:minor", c_add_new_disk_nodev, ENXIO, 0, 0 },
	{ "ADD_NEW_DISK, major overflows dev_t", c_add_new_disk_overflow, EOVERFLOW, 0, 0 },
	{ "ADD_NEW_DISK of an active member", c_add_new_disk_member, EBUSY, 0, 0 },
	{ "HOT_REMOVE_DISK of a device not in the array", c_hot_remove_spare, ENXIO, 0, 0 },
	{ "HOT_REMOVE_DISK of an active in-sync member", c_hot_remove_active, EBUSY, 0, 0 },
	{ "SET_DISK_FAULTY of a device not in the array", c_faulty_spare, ENODEV, 0, 0 },
	{ "SET_DISK_FAULTY of a nonexistent major:minor", c_faulty_nodev, ENODEV, 0, 0 },
	{ "HOT_ADD_DISK on a v1.2 array", c_hot_add_v1, EINVAL, 0, 0 },
	{ "STOP_ARRAY while held open twice", c_stop_open, EBUSY, 0, 0 },
	{ "STOP_ARRAY_RO while held open twice", c_stop_ro_open, EBUSY, 0, 0 },
	{ "RESTART_ARRAY_RW on a read-write array", c_restart_rw, EBUSY, 0, 0 },
	{ "RUN_ARRAY on a running array", c_run_running, EBUSY, 0, 0 },
	{ "SET_BITMAP_FILE -1 without a bitmap", c_bitmap_remove_none, ENOENT, 0, 0 },
	{ "SET_BITMAP_FILE of a closed fd", c_bitmap_badfd, EBADF, 0, 0 },
	{ "STOP_ARRAY without CAP_SYS_ADMIN", c_unpriv_stop, EACCES, 0, 0 },
	{ "SET_DISK_FAULTY without CAP_SYS_ADMIN", c_unpriv_faulty, EACCES, 0, 0 },
	{ "unconfigured md: GET_ARRAY_INFO", c_fresh_get_info, ENODEV, 1, 0 },
	{ "unconfigured md: RUN_ARRAY with no disks", c_fresh_run, EINVAL, 1, 0 },
	{ "unconfigured md: SET_ARRAY_INFO major_version 99", c_fresh_bad_major, EINVAL, 1, 0 },
	{ "unconfigured md: ADD_NEW_DISK of a nonexistent major:minor", c_fresh_add_nodev, ENXIO, 1, 0 },
	{ "unconfigured md: ADD_NEW_DISK of a device without superblock", c_fresh_add_blank, EINVAL, 1, 0 },
	{ "unconfigured md: HOT_ADD_DISK", c_fresh_hot_add, ENODEV, 1, 0 },
	{ "unconfigured md: SET_ARRAY_INFO twice (fork: persistent description refused)",
	  c_fresh_set_twice, EBUSY, 1, EINVAL },
};

#define NCASES (sizeof(cases) / sizeof(cases[0]))

static dev_t rdev_of(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0 || !S_ISBLK(st.st_mode)) {
		printf("# %s: not a block device\n", path);
		exit(2);
	}
	return st.st_rdev;
}

static int open_or_die(const char *path)
{
	int fd = open(path, O_RDONLY);

	if (fd < 0) {
		printf("# open %s: %s\n", path, strerror(errno));
		exit(2);
	}
	return fd;
}

int main(int argc, char **argv)
{
	size_t i;
	int err;

	if (argc == 2 && !strcmp(argv[1], "--count")) {
		printf("%zu\n", NCASES);
		return 0;
	}
	if (argc != 5) {
		fprintf(stderr, "usage: %s MD MEMBER SPARE FRESH_MD | --count\n", argv[0]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	md_fd = open_or_die(argv[1]);
	md_fd2 = open_or_die(argv[1]);
	member_dev = rdev_of(argv[2]);
	spare_dev = rdev_of(argv[3]);
	fresh_path = argv[4];
	fresh_fd = open_or_die(fresh_path);
	err = snapshot(&base_info, base_disks);
	if (err) {
		printf("# %s: GET_ARRAY_INFO/GET_DISK_INFO: %s\n", argv[1], ename(err));
		return 2;
	}
	printf("# %s: level %d, %d raid disks, %d active, %d working\n", argv[1],
	       base_info.level, base_info.raid_disks, base_info.active_disks,
	       base_info.working_disks);
	/* the guest runner exports IMPL=intree|fork */
	is_fork = getenv("IMPL") && !strcmp(getenv("IMPL"), "fork");
	for (i = 0; i < NCASES; i++)
		check(cases[i].name, cases[i].run(),
		      is_fork && cases[i].want_fork ? cases[i].want_fork : cases[i].want,
		      cases[i].fresh);
	close(fresh_fd);
	close(md_fd2);
	close(md_fd);
	return failures ? 1 : 0;
}
