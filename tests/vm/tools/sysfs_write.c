// SPDX-License-Identifier: GPL-2.0
/*
 * sysfs_write FILE VALUE: one write(2) of VALUE plus a newline (what
 * `echo VALUE > FILE` sends) to FILE.  Prints "ok" or the errno name and
 * exits with 0 or with the errno number, so a test can assert the exact
 * error a store handler returned.  An open(2) failure is reported the same
 * way (e.g. EACCES for a read-only attribute), prefixed with "open:".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char buf[4096];
	ssize_t n;
	size_t len;
	int fd, err;

	if (argc != 3) {
		fprintf(stderr, "usage: %s FILE VALUE\n", argv[0]);
		return 255;
	}
	len = strlen(argv[2]);
	if (len + 1 >= sizeof(buf)) {
		fprintf(stderr, "value too long\n");
		return 255;
	}
	memcpy(buf, argv[2], len);
	buf[len++] = '\n';

	fd = open(argv[1], O_WRONLY);
	if (fd < 0) {
		err = errno;
		printf("open: %s (%d)\n", strerrorname_np(err), err);
		return err;
	}
	n = write(fd, buf, len);
	err = errno;
	close(fd);
	if (n < 0) {
		printf("%s (%d)\n", strerrorname_np(err), err);
		return err;
	}
	if ((size_t)n != len) {
		printf("short write: %zd of %zu bytes\n", n, len);
		return 254;
	}
	printf("ok\n");
	return 0;
}
