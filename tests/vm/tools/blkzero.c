// SPDX-License-Identifier: GPL-2.0
/*
 * blkzero MODE DEV OFFSET LENGTH: zero a byte range of a block device the
 * way a file system tool would, and report what the kernel said.
 *
 *   zeroout    ioctl(BLKZEROOUT): the kernel uses write-zeroes where the
 *              device advertises it and falls back to writing zero pages
 *   zero-range fallocate(FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE)
 *   punch      fallocate(FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE): only
 *              offloaded zeroing, no fallback
 *
 * Prints "ok" or the errno name and exits with 0 or the errno number, so
 * a test can assert the exact error.  Usage errors exit with 255.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <linux/falloc.h>
#include <linux/fs.h>

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || end == s || *end ? -1 : 0;
}

int main(int argc, char **argv)
{
	uint64_t off, len, range[2];
	int fd, ret, err;

	if (argc != 5 || parse_u64(argv[3], &off) || parse_u64(argv[4], &len)) {
		fprintf(stderr, "usage: %s zeroout|zero-range|punch DEV OFFSET LENGTH\n",
			argv[0]);
		return 255;
	}
	fd = open(argv[2], O_RDWR);
	if (fd < 0) {
		err = errno;
		printf("open: %s (%d)\n", strerrorname_np(err), err);
		return err;
	}
	if (!strcmp(argv[1], "zeroout")) {
		range[0] = off;
		range[1] = len;
		ret = ioctl(fd, BLKZEROOUT, range);
	} else if (!strcmp(argv[1], "zero-range")) {
		ret = fallocate(fd, FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE,
				(off_t)off, (off_t)len);
	} else if (!strcmp(argv[1], "punch")) {
		ret = fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				(off_t)off, (off_t)len);
	} else {
		fprintf(stderr, "unknown mode %s\n", argv[1]);
		close(fd);
		return 255;
	}
	err = errno;
	close(fd);
	if (ret) {
		printf("%s (%d)\n", strerrorname_np(err), err);
		return err;
	}
	printf("ok\n");
	return 0;
}
