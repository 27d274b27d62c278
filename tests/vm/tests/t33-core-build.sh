#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 300
#
# Arrays without superblock (mdadm --build: SET_ARRAY_INFO with a full
# description and not_persistent, then ADD_NEW_DISK per member):
#   - a RAID1 built on two members runs, resyncs them (no --assume-clean),
#     reports itself non-persistent (/proc/mdstat "super non-persistent",
#     metadata_version "none") over the members' whole size, takes and
#     verifies data, checks clean, and has written nothing to the
#     members that mdadm --examine would take for a superblock;
#   - built again with --assume-clean it does not resync, and the data
#     written before is there (the members are the data, no offset);
#   - a member failed, removed and replaced by a fresh device is rebuilt;
#   - a second SET_ARRAY_INFO (mdadm --build on a built md0) is refused.
. /harness/lib.sh

MD=/dev/md0
FIO_SIZE=24M
DISK_KIB=65536

nosuper() {
	cat /proc/mdstat
	grep -q '^md0 : active raid1 ' /proc/mdstat || return 1
	grep -A1 '^md0 ' /proc/mdstat | grep -q 'super non-persistent' ||
		{ echo "not reported non-persistent"; return 1; }
	_v=$(cat /sys/block/md0/md/metadata_version)
	[ "$_v" = none ] || { echo "metadata_version $_v"; return 1; }
	_kib=$(cat /sys/block/md0/md/component_size)
	[ "$_kib" = $DISK_KIB ] || { echo "component_size $_kib, want $DISK_KIB"; return 1; }
	[ "$(blockdev --getsz $MD)" = $((DISK_KIB * 2)) ] ||
		{ echo "array size $(blockdev --getsz $MD)"; return 1; }
}

build_resync() {
	mdadm --build $MD --level=1 --raid-devices=2 /dev/ram0 /dev/ram1 || return 1
	nosuper || return 1
	_a=$(md_sync_action md0)
	_rs=$(cat /sys/block/md0/md/resync_start)
	echo "sync_action $_a resync_start $_rs"
	[ "$_a" = resync ] || [ "$_rs" != none ] || { echo "no resync"; return 1; }
	wait_resync md0 300 || return 1
	fio_write_verify $MD $FIO_SIZE > /tmp/fio.out 2>&1
	fio_log_ok $? || return 1
	md_check_clean md0 300 || return 1
	mdadm --stop $MD || return 1
	for _d in /dev/ram0 /dev/ram1; do
		if mdadm --examine $_d > /tmp/ex.out 2>&1; then
			cat /tmp/ex.out
			echo "$_d: mdadm finds a superblock"
			return 1
		fi
	done
}

build_clean() {
	mdadm --build $MD --level=1 --raid-devices=2 --assume-clean \
		/dev/ram0 /dev/ram1 || return 1
	nosuper || return 1
	_a=$(md_sync_action md0)
	_rs=$(cat /sys/block/md0/md/resync_start)
	echo "sync_action $_a resync_start $_rs"
	[ "$_a" = idle ] && [ "$_rs" = none ] || { echo "resyncs"; return 1; }
	fio_verify_only $MD $FIO_SIZE > /tmp/fio.out 2>&1
	fio_log_ok $?
}

replace() {
	mdadm $MD --fail /dev/ram1 && mdadm $MD --remove /dev/ram1 || return 1
	_d=$(cat /sys/block/md0/md/degraded)
	[ "$_d" = 1 ] || { echo "degraded $_d after the failure"; return 1; }
	mdadm $MD --add /dev/ram2 || return 1
	sleep 1
	wait_resync md0 300 || return 1
	cat /proc/mdstat
	_d=$(cat /sys/block/md0/md/degraded)
	[ "$_d" = 0 ] || { echo "degraded $_d after the rebuild"; return 1; }
	md_check_clean md0 300 || return 1
	fio_verify_only $MD $FIO_SIZE > /tmp/fio.out 2>&1
	fio_log_ok $?
}

build_twice() {
	if mdadm --build $MD --level=1 --raid-devices=2 /dev/ram1 /dev/ram3 \
		> /tmp/b.out 2>&1; then
		cat /tmp/b.out
		echo "second --build on a built md0 succeeded"
		return 1
	fi
	cat /tmp/b.out
	# the running array is untouched
	grep -q '\[UU\]' /proc/mdstat && fio_verify_only $MD $FIO_SIZE > /tmp/fio.out 2>&1
}

ktap_plan 6
ktap_check "brd: four 64 MiB RAM disks" brd_setup 4 $DISK_KIB
ktap_check "build raid1: non-persistent, resync, data, check 0, no superblock" \
	build_resync
ktap_check "build --assume-clean: no resync, the data is there" build_clean
ktap_check "fail, remove, add a fresh member: rebuilt, check 0" replace
ktap_check "a second --build on the running md0 is refused" build_twice
ktap_check "stop" mdadm --stop $MD
brd_teardown
ktap_finish
