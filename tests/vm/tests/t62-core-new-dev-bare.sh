#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 180
#
# md/new_dev before a metadata version is set (metadata_version "none"):
# the device joins as a spare without its superblock being read (mdadm's
# 23rdev-lifetime relies on it), a second add of it and a metadata version
# write are refused, bad input changes nothing, "remove" takes it out,
# adds racing removes for a few seconds leave nothing behind, and the
# devices are free for a normal array afterwards.
. /harness/lib.sh

SYS=/sys/block/md0/md

new_md0() {
	echo md0 > /sys/module/md_mod/parameters/new_array && [ -d $SYS ]
}

metadata_none() { cat $SYS/metadata_version; [ "$(cat $SYS/metadata_version)" = none ]; }

ram0_spare() {
	[ -d $SYS/dev-ram0 ] || { echo "no dev-ram0"; return 1; }
	echo "state $(cat $SYS/dev-ram0/state) slot $(cat $SYS/dev-ram0/slot)"
	[ "$(cat $SYS/dev-ram0/state)" = spare ] &&
	[ "$(cat $SYS/dev-ram0/slot)" = none ]
}

ram0_gone() {
	_i=0
	while [ -e $SYS/dev-ram0 ]; do
		_i=$((_i + 1))
		[ $_i -gt 50 ] && { echo "dev-ram0 still there"; return 1; }
		sleep 0.1
	done
}

# race SECONDS: add ram0 in one loop and remove it in another; both
# must have succeeded at least once (one line per success)
race() {
	: > /tmp/t62.adds
	: > /tmp/t62.removes
	(while :; do echo "$DEVT" > $SYS/new_dev && echo >> /tmp/t62.adds; done) 2>/dev/null &
	_add=$!
	(while :; do echo remove > $SYS/dev-ram0/state && echo >> /tmp/t62.removes; done) 2>/dev/null &
	_rm=$!
	sleep "$1"
	kill $_add $_rm
	wait $_add $_rm 2>/dev/null
	_a=$(wc -l < /tmp/t62.adds)
	_r=$(wc -l < /tmp/t62.removes)
	echo "adds $_a removes $_r"
	[ "$_a" -gt 0 ] && [ "$_r" -gt 0 ]
}

# leave_empty: remove ram0 if the race left it in, see no member
# directory remain (they go away asynchronously), clear the array
leave_empty() {
	[ -e $SYS/dev-ram0 ] && echo remove > $SYS/dev-ram0/state
	_i=0
	while ls $SYS | grep -q '^dev-'; do
		_i=$((_i + 1))
		[ $_i -gt 50 ] && { ls $SYS | grep '^dev-'; return 1; }
		sleep 0.1
	done
	echo clear > $SYS/array_state
}

create_after() {
	mdadm --create /dev/md0 --run --level=1 --raid-devices=2 --metadata=1.2 \
		/dev/ram0 /dev/ram1 && wait_resync md0 120 && mdadm --stop /dev/md0
}

ktap_plan 14
ktap_check "brd: two 64 MiB RAM disks" brd_setup 2 65536
DEVT=$(cat /sys/block/ram0/dev)
ktap_check "new_array md0" new_md0
ktap_check "metadata_version is none" metadata_none
ktap_check "new_dev $DEVT accepted" sysfs_expect_errno 0 $SYS/new_dev "$DEVT"
ktap_check "ram0 is a spare without a slot" ram0_spare
ktap_check "same device again: EBUSY" sysfs_expect_errno 16 $SYS/new_dev "$DEVT"
ktap_check "metadata_version 1.2 with a member: EBUSY" \
	sysfs_expect_errno 16 $SYS/metadata_version 1.2
ktap_check "new_dev garbage: EINVAL" sysfs_expect_errno 22 $SYS/new_dev foo
ktap_check "ram0 unchanged" ram0_spare
ktap_check "remove ram0" sysfs_expect_errno 0 $SYS/dev-ram0/state remove
ktap_check "dev-ram0 is gone" ram0_gone
ktap_check "adds racing removes for 3 s" race 3
ktap_check "no member left, array cleared" leave_empty
ktap_check "ram0 and ram1 make a raid1 afterwards" create_after
brd_teardown
ktap_finish
