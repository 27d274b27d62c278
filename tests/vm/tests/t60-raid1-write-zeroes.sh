#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 240
#
# RAID1 on members that advertise write-zeroes but refuse some of it: loop
# devices over tmpfs files advertise write-zeroes, yet tmpfs cannot zero a
# range without deallocating it, so the no-unmap write-zeroes that zeroing
# asks for fails on them.  The array must not pass such requests on:
# md0 advertises no write-zeroes, zeroing through md0 works (the block
# layer writes zero pages), an offload-only zeroing fails with EOPNOTSUPP,
# no member is failed, no member logs a refused write-zeroes, and the
# mirrors still agree.
. /harness/lib.sh

MD=/dev/md0
SYS=/sys/block/md0/md
DIR=/mnt/t60
ZERO=/harness/tools/blkzero

loops_setup() {
	modprobe loop || return 1
	mkdir -p $DIR && mount -t tmpfs -o size=200m t60 $DIR || return 1
	for _i in 0 1 2; do
		dd if=/dev/zero of=$DIR/m$_i bs=1M count=0 seek=64 2>/dev/null &&
		losetup /dev/loop$_i $DIR/m$_i || return 1
	done
	losetup -a
}

loops_teardown() {
	mdadm --stop $MD >/dev/null 2>&1
	for _i in 0 1 2; do losetup -d /dev/loop$_i 2>/dev/null; done
	umount $DIR 2>/dev/null
	return 0
}

# wz_max DEV: write_zeroes_max_bytes of DEV's queue
wz_max() { cat "/sys/block/$1/queue/write_zeroes_max_bytes"; }

member_advertises() { echo "loop2: $(wz_max loop2)"; [ "$(wz_max loop2)" -gt 0 ]; }

# Zero 1 MiB of loop2 directly: the kernel tries a no-unmap write-zeroes,
# loop2 refuses it (logged), then it falls back to writing zeroes.
member_refuses() {
	dmesg -c > /dev/null
	$ZERO zero-range /dev/loop2 0 1048576 || return 1
	dmesg | grep 'WRITE_ZEROES' || { echo "loop2 took the write-zeroes"; return 1; }
	dmesg -c > /dev/null
}

md_advertises_none() { echo "md0: $(wz_max md0)"; [ "$(wz_max md0)" = 0 ]; }

fill_random() { # OFFSET_MIB COUNT_MIB
	dd if=/dev/urandom of=$MD bs=1M seek="$1" count="$2" oflag=direct 2>&1
}

# reads_zero OFFSET_MIB COUNT_MIB: that range of md0 holds only zero bytes
reads_zero() {
	_nz=$(dd if=$MD bs=1M skip="$1" count="$2" iflag=direct 2>/dev/null |
	      tr -d '\000' | wc -c)
	echo "non-zero bytes: $_nz"
	[ "$_nz" = 0 ]
}

expect_rc() { # RC CMD...: CMD exits with RC
	_want=$1
	shift
	"$@"
	_rc=$?
	[ "$_rc" = "$_want" ] || { echo "exit $_rc, want $_want"; return 1; }
}

no_member_failed() {
	for _m in loop0 loop1; do
		md_member_state "$_m" in_sync || return 1
	done
	echo "degraded: $(cat $SYS/degraded)"
	[ "$(cat $SYS/degraded)" = 0 ] &&
	[ "$(mdadm --detail $MD | md_field 'Failed Devices')" = 0 ]
}

no_errors_logged() {
	if dmesg | grep -E 'WRITE_ZEROES|not supported error|I/O error|md/raid1:md0: Disk failure'; then
		return 1
	fi
	return 0
}

ktap_plan 14
if ! ktap_check "three loop devices over tmpfs files" loops_setup; then
	loops_teardown
	ktap_finish
fi
ktap_check "a loop member advertises write-zeroes" member_advertises
ktap_check "a loop member refuses no-unmap write-zeroes" member_refuses
ktap_check "mdadm --create raid1 on loop0 loop1" \
	mdadm --create $MD --run --level=1 --raid-devices=2 --metadata=1.2 \
	/dev/loop0 /dev/loop1
ktap_check "initial resync completes" wait_resync md0 120
ktap_check "md0 advertises no write-zeroes" md_advertises_none
ktap_check "fill 12 MiB with random data" fill_random 4 12
ktap_check "BLKZEROOUT of 8 MiB succeeds" $ZERO zeroout $MD $((4 << 20)) $((8 << 20))
ktap_check "fallocate zero-range of 4 MiB succeeds" \
	$ZERO zero-range $MD $((12 << 20)) $((4 << 20))
ktap_check "zeroed 12 MiB reads back as zeros" reads_zero 4 12
ktap_check "offload-only zeroing (punch hole) fails with EOPNOTSUPP" \
	expect_rc 95 $ZERO punch $MD 0 $((1 << 20))
ktap_check "no member failed" no_member_failed
ktap_check "no refused write-zeroes or IO error logged" no_errors_logged
ktap_check "mirrors agree (check: mismatch_cnt 0)" md_check_clean md0 120
cat /proc/mdstat | sed 's/^/# /'
loops_teardown
ktap_finish
