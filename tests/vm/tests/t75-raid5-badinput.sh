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
. /harness/lib.sh
. /harness/tests/raid5/common.sh

MD=/dev/md0
F=/sys/block/md0/md/stripe_cache_size

accepts() {
	sysfs_expect_errno 0 $F "$1" && [ "$(cat $F)" = "$1" ]
}

reload_raid456() {
	mdadm --stop $MD || return 1
	rmmod raid456 || return 1
	[ ! -d /sys/module/raid456 ] || return 1
	case $IMPL in
	fork) insmod /harness/fork/raid456.ko ;;
	*) modprobe raid456 ;;
	esac
}

ktap_plan 14
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
brd_teardown
ktap_finish
