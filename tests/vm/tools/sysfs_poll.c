// SPDX-License-Identifier: GPL-2.0
/*
 * sysfs_poll FILE SECONDS: wait for a change notification on FILE (a sysfs
 * attribute, or /proc/mdstat) and report it.
 *
 * Reads FILE once, prints "start: <content>" and then sleeps in poll(2)
 * for POLLPRI/POLLERR, which sysfs (sysfs_notify) and /proc/mdstat (md's
 * event counter) raise only when the kernel announces a change: poll on
 * such a file never wakes up by itself.  After each wake-up the file is
 * read again from the start; as soon as its content differs from the first
 * read it prints "changed: <content>" and exits 0.  Exit 1 when SECONDS
 * pass without a notification that changed the content, 255 on usage or
 * I/O errors.  Prints "ready" (and flushes) once it is waiting, so a test
 * can start it in the background and know when to trigger the change.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static char first[4096], now[4096];

/* Read all of @fd from offset 0 into @buf (NUL-terminated, newlines kept). */
static int read_all(int fd, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t n;

	if (lseek(fd, 0, SEEK_SET) < 0)
		return -1;
	while (len + 1 < size) {
		n = read(fd, buf + len, size - 1 - len);
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		len += n;
	}
	buf[len] = '\0';
	return 0;
}

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct pollfd pfd;
	double deadline, left;
	int fd, wakeups = 0, rc;

	if (argc != 3) {
		fprintf(stderr, "usage: %s FILE SECONDS\n", argv[0]);
		return 255;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || read_all(fd, first, sizeof(first))) {
		printf("%s: %s\n", argv[1], strerror(errno));
		return 255;
	}
	printf("start: %s", first);
	printf("ready\n");
	fflush(stdout);
	deadline = mono_s() + atof(argv[2]);
	for (;;) {
		left = deadline - mono_s();
		if (left <= 0) {
			printf("no change notified within %s s (%d wake-ups)\n",
			       argv[2], wakeups);
			return 1;
		}
		pfd.fd = fd;
		pfd.events = POLLPRI | POLLERR;
		pfd.revents = 0;
		rc = poll(&pfd, 1, (int)(left * 1000) + 1);
		if (rc < 0) {
			if (errno == EINTR)
				continue;
			printf("poll: %s\n", strerror(errno));
			return 255;
		}
		if (rc == 0)
			continue;
		wakeups++;
		/* reading again re-arms the notification */
		if (read_all(fd, now, sizeof(now))) {
			printf("read: %s\n", strerror(errno));
			return 255;
		}
		if (strcmp(now, first)) {
			printf("changed: %s", now);
			printf("after %d wake-up(s)\n", wakeups);
			return 0;
		}
	}
}
