#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 600
#
# Cache flushes on RAID4/5/6 over members with a volatile write cache
# (loop devices on tmpfs files: "write back"; brd has none, so the block
# layer ends a flush to it at once and no brd test sees a flush reach a
# member).  Per level: fsync'd direct writes verify, mke2fs (it fsyncs
# the device), an ext4 whose journal sends PREFLUSH|FUA writes carries a
# fio verify across a remount, check finds no mismatch, and with a
# member failed the same fsync'd writes still complete.  (The ext4 steps
# are skipped, with that reason, on a kernel without ext4: the debug one.)  Every step runs
# under `timeout`: a flush that never completes fails the step.
. /harness/lib.sh

MD=/dev/md0
MNT=/mnt/t85
NLOOP=4

loops_setup() {
	modprobe loop max_loop=8 || return 1
	_i=0
	while [ $_i -lt $NLOOP ]; do
		dd if=/dev/zero of=/tmp/t85.$_i bs=1M count=0 seek=48 2>/dev/null &&
		losetup /dev/loop$_i /tmp/t85.$_i || return 1
		_i=$((_i + 1))
	done
}

loops_teardown() {
	md_stop_all
	_i=0
	while [ $_i -lt $NLOOP ]; do
		losetup -d /dev/loop$_i 2>/dev/null
		rm -f /tmp/t85.$_i
		_i=$((_i + 1))
	done
	return 0
}

# the members and the array advertise a volatile cache: flushes reach us
write_back() {
	for _b in loop0 md0; do
		_wc=$(cat /sys/block/$_b/queue/write_cache)
		echo "$_b: $_wc"
		[ "$_wc" = "write back" ] || return 1
	done
}

# fsync_verify OFFSET: 8 MiB of 16k direct writes, fsync after every 4
fsync_verify() {
	(cd /tmp && timeout 120 fio --name=fsync --filename=$MD --rw=randwrite \
		--bs=16k --ioengine=psync --direct=1 --fsync=4 --size=8M \
		--offset="$1" --verify=crc32c --verify_fatal=1 --do_verify=1 \
		--randrepeat=1 --randseed=85 --verify_state_save=0 \
		--eta=never) > /tmp/fio.out 2>&1
	fio_log_ok $?
}

mkfs() {
	timeout 120 /sbin/mke2fs -q -F -t ext4 $MD
}

# fs_fio MODE: 16 MiB file through the page cache, fsync'd, crc32c
fs_fio() {
	if [ "$1" = write ]; then set -- --do_verify=1 --fsync=16; else set -- --verify_only; fi
	(cd /tmp && timeout 180 fio --name=fs --filename=$MNT/f --rw=randwrite \
		--bs=4k --ioengine=psync --size=16M --verify=crc32c \
		--verify_fatal=1 --randrepeat=1 --randseed=86 \
		--verify_state_save=0 --eta=never "$@") > /tmp/fio.out 2>&1
	fio_log_ok $?
}

fs_write() {
	mkdir -p $MNT && mount -t ext4 $MD $MNT && fs_fio write &&
	timeout 60 sync && umount $MNT
}

fs_reverify() {
	mount -t ext4 $MD $MNT && fs_fio verify && umount $MNT
}

# fail_one: the last member faulty and removed, the array degraded
fail_one() {
	mdadm $MD --fail /dev/loop$((NLOOP - 1)) &&
	mdadm $MD --remove /dev/loop$((NLOOP - 1)) &&
	mdstat_array md0 | grep -F '_]'
}

# a member failed and removed: the flushes go to the ones left
degraded() {
	fail_one && fsync_verify 16M
}

ktap_plan 30
for level in 4 5 6; do
	ktap_check "raid$level: four loop members on tmpfs files" loops_setup
	ktap_check "raid$level: mdadm --create" \
		mdadm --create $MD --run --level=$level --raid-devices=$NLOOP \
		--chunk=64 --metadata=1.2 /dev/loop0 /dev/loop1 /dev/loop2 /dev/loop3
	ktap_check "raid$level: initial sync completes" wait_resync md0 240
	ktap_check "raid$level: members and array are write back" write_back
	ktap_check "raid$level: fsync'd direct writes verify" fsync_verify 0
	ktap_check "raid$level: mke2fs -t ext4" mkfs
	if grep -qw ext4 /proc/filesystems; then
		ktap_check "raid$level: ext4 fsync'd file writes verify" fs_write
		ktap_check "raid$level: the file verifies after a remount" fs_reverify
	else
		# the debug kernel is built without disk file systems
		ktap_skip "raid$level: ext4 fsync'd file writes verify" "no ext4 in this kernel"
		ktap_skip "raid$level: the file verifies after a remount" "no ext4 in this kernel"
	fi
	ktap_check "raid$level: check: mismatch_cnt 0" md_check_clean md0 240
	ktap_check "raid$level: degraded, fsync'd writes verify" degraded
	loops_teardown
done
ktap_finish
