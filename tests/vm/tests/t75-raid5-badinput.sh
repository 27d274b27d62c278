#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 300
#
# Bad input on a running RAID5: stripe_cache_size below 17, above 32768
# or not a number gets EINVAL and keeps its value; 17, 32768 and back to
# 256 are accepted and read back; stripe_cache_active stays readable;
# data written before verifies afterwards.  Then raid456 is unloaded
# after the array stops and loaded again (the runner fails the test on
# any kernel warning).
#
# Then the smallest geometry, created with mdadm: RAID5 on 2 members (a
# mirror with parity for its copy, what a RAID1 of two is taken over
# as): both implementations run it, fio verifies, check is clean, and it
# stops with nothing left running (md0 not active, no stripe cache
# files, raid456 not held by anything).  Finally raid456 is unloaded
# with no array left (and loaded again for the tests that follow).
. /harness/lib.sh
. /harness/tests/raid5/common.sh

impl=${IMPL:?}
MD=/dev/md0
F=/sys/block/md0/md/stripe_cache_size

accepts() {
	sysfs_expect_errno 0 $F "$1" && [ "$(cat $F)" = "$1" ]
}

# rmmod_reload: unload raid456 (no array uses it), load it again
rmmod_reload() {
	rmmod raid456 || return 1
	[ ! -d /sys/module/raid456 ] || return 1
	case $impl in
	fork) insmod /harness/fork/raid456.ko ;;
	*) modprobe raid456 ;;
	esac
}

reload_raid456() {
	mdadm --stop $MD && rmmod_reload
}

# nothing_started: no array is running and raid456 is not in use
nothing_started() {
	cat /proc/mdstat
	! grep -q '^md0 : active' /proc/mdstat || return 1
	[ ! -e /sys/block/md0/md/stripe_cache_size ] || return 1
	_r=$(cat /sys/module/raid456/refcnt)
	echo "raid456 refcnt $_r"
	[ "$_r" = 0 ]
}

# geometry_runs NAME MDADM_CREATE_ARGS...: it starts, fio verifies,
# check is clean, and it stops with nothing left running
geometry_runs() {
	_n=$1
	shift
	mdadm --zero-superblock /dev/ram0 /dev/ram1 /dev/ram2 /dev/ram3 \
		2>/dev/null
	mdadm --create $MD --run --metadata=1.2 --chunk=64 "$@" \
		> /tmp/create.out 2>&1
	_rc=$?
	sed 's/^/# mdadm: /' /tmp/create.out
	ktap_check "$_n: runs, fio verifies, check clean" sh -c "
		[ $_rc = 0 ] && . /harness/lib.sh &&
		. /harness/tests/raid5/common.sh && wait_resync md0 300 &&
		cat /proc/mdstat && r5_fio write randwrite 4k 0 4M 41 &&
		md_check_clean md0 300"
	mdadm --stop $MD > /dev/null 2>&1
	ktap_check "$_n: stops, nothing left running" nothing_started
}

ktap_plan 17
ktap_check "brd: four 32 MiB RAM disks" brd_setup 4 32768
ktap_check "raid5: create, write data" \
	sh -c ". /harness/lib.sh; . /harness/tests/raid5/common.sh; r5_create 5 default 4 64 && r5_data write"
ktap_check "stripe_cache_size 0: EINVAL, unchanged" sysfs_expect_errno 22 $F 0
ktap_check "stripe_cache_size 16: EINVAL, unchanged" sysfs_expect_errno 22 $F 16
ktap_check "stripe_cache_size 32769: EINVAL, unchanged" sysfs_expect_errno 22 $F 32769
ktap_check "stripe_cache_size garbage: EINVAL, unchanged" sysfs_expect_errno 22 $F 12abc
ktap_check "stripe_cache_size -1: EINVAL, unchanged" sysfs_expect_errno 22 $F -1
ktap_check "stripe_cache_size 17 accepted" accepts 17
ktap_check "data verifies with 17 stripes" r5_data verify
ktap_check "stripe_cache_size 32768 accepted" accepts 32768
ktap_check "stripe_cache_size 256 accepted" accepts 256
ktap_check "stripe_cache_active readable" sh -c "cat /sys/block/md0/md/stripe_cache_active"
ktap_check "rmmod raid456 after stop, load again" reload_raid456
# shellcheck disable=SC2046
ktap_check "assemble again, data verifies" \
	sh -c ". /harness/lib.sh; . /harness/tests/raid5/common.sh; mdadm --assemble $MD $(r5_members 4) && r5_data verify"
mdadm --stop $MD
geometry_runs "raid5, 2 members" --level=5 --raid-devices=2 /dev/ram0 /dev/ram1
ktap_check "rmmod raid456 with no array left, load again" rmmod_reload
brd_teardown
ktap_finish
