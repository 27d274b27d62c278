// SPDX-License-Identifier: GPL-2.0
/*
 * nowait_io [-b] read|write DEV OFFSET LENGTH BYTE [TRIES]: one O_DIRECT
 * pwritev2()/preadv2() of LENGTH bytes at OFFSET with RWF_NOWAIT (-b:
 * without it), the way io_uring or an AIO server asks a block device not
 * to make it wait.
 *
 *   write  writes LENGTH bytes of BYTE (0-255)
 *   read   reads them and checks that every byte is BYTE
 *
 * RWF_NOWAIT allows the kernel to answer EAGAIN instead of sleeping, so
 * an EAGAIN is retried, 10 ms apart, until TRIES attempts (default 1:
 * no retry) were made.  Prints "ok" and how many EAGAINs came before, or
 * the errno's name, and exits with 0 or the errno (EAGAIN after the last
 * try).  A read that does not match exits with 254 and says where; usage
 * errors exit with 255.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/uio.h>

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || end == s || *end ? -1 : 0;
}

static void nap_10ms(void)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };

	nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	uint64_t off, len, byte, tries = 1, i, again = 0;
	int flags = RWF_NOWAIT, fd, write_op, err = 0;
	unsigned char *buf;
	struct iovec iov;
	ssize_t n = -1;

	if (argc > 1 && !strcmp(argv[1], "-b")) {
		flags = 0;
		argv++;
		argc--;
	}
	if ((argc != 6 && argc != 7) || parse_u64(argv[3], &off) ||
	    parse_u64(argv[4], &len) || parse_u64(argv[5], &byte) ||
	    byte > 255 || !len || (argc == 7 && parse_u64(argv[6], &tries)) ||
	    !tries || (strcmp(argv[1], "read") && strcmp(argv[1], "write"))) {
		fprintf(stderr, "usage: %s [-b] read|write DEV OFFSET LENGTH BYTE [TRIES]\n",
			argv[0]);
		return 255;
	}
	write_op = !strcmp(argv[1], "write");
	if (posix_memalign((void **)&buf, 4096, len)) {
		fprintf(stderr, "out of memory\n");
		return 255;
	}
	memset(buf, write_op ? (int)byte : (int)(~byte & 0xff), len);
	fd = open(argv[2], (write_op ? O_WRONLY : O_RDONLY) | O_DIRECT);
	if (fd < 0) {
		err = errno;
		printf("open: %s (%d)\n", strerrorname_np(err), err);
		return err;
	}
	iov.iov_base = buf;
	iov.iov_len = len;
	for (i = 0; i < tries; i++) {
		if (write_op)
			n = pwritev2(fd, &iov, 1, (off_t)off, flags);
		else
			n = preadv2(fd, &iov, 1, (off_t)off, flags);
		err = n < 0 ? errno : 0;
		if (err != EAGAIN)
			break;
		again++;
		if (i + 1 < tries)
			nap_10ms();
	}
	close(fd);
	if (err) {
		printf("%s (%d) after %llu EAGAIN\n", strerrorname_np(err), err,
		       (unsigned long long)again);
		return err;
	}
	if ((uint64_t)n != len) {
		printf("short %s: %zd of %llu bytes\n", argv[1], n,
		       (unsigned long long)len);
		return 254;
	}
	if (!write_op) {
		for (i = 0; i < len; i++) {
			if (buf[i] != byte) {
				printf("mismatch at byte %llu: 0x%02x, want 0x%02x\n",
				       (unsigned long long)(off + i), buf[i],
				       (unsigned int)byte);
				return 254;
			}
		}
	}
	printf("ok (%llu EAGAIN before)\n", (unsigned long long)again);
	return 0;
}
