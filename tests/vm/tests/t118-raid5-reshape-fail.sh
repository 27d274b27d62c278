#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 600
# SLOW: a grow with a member failed half way, then a rebuild, about 15 s per implementation (TCG); make check runs t114
#
# A member fails half way through a RAID5 grow (issue 37, acceptance 5),
# the same test for both implementations: 4 members on 24 MiB RAM disks
# (1.2 superblocks, 64K chunk), written first; a spare added and
# mdadm --grow --raid-devices=5 asked, slowly; once the reshape has
# recorded a position, a member of the old geometry is failed while fio
# writes and verifies.  The reshape goes on degraded and ends: 5 slots,
# one failed, and everything written before and during it verifies.
# Then the failed member is removed and added back as a spare, is
# rebuilt, and check finds nothing.
. /harness/lib.sh
. /harness/tests/raid5/common.sh

MD=/dev/md0
SYS=/sys/block/md0/md

grow_slowly() {
	mdadm $MD --add /dev/ram4 || return 1
	md_speed_limit 100 300
	mdadm --grow $MD --raid-devices=5 && r5_reshape_half_way
}

fail_half_way() {
	r5_bg_start 12 12 || return 1
	mdadm $MD --fail /dev/ram1 || { r5_bg_end; return 1; }
	md_speed_limit
	wait_resync md0 600
	_rc=$?
	r5_bg_end || return 1
	[ $_rc = 0 ] || return 1
	cat /proc/mdstat
	_n=$(cat $SYS/raid_disks) _p=$(cat $SYS/reshape_position)
	_d=$(cat $SYS/degraded)
	echo "raid_disks $_n reshape_position $_p degraded $_d"
	[ "$_n" = 5 ] && [ "$_p" = none ] && [ "$_d" = 1 ] &&
		r5_fio verify randwrite 4k 0 8M 31 && r5_bg_verify 12 16
}

rebuilt() {
	mdadm $MD --remove /dev/ram1 && mdadm --zero-superblock /dev/ram1 &&
		mdadm $MD --add /dev/ram1 || return 1
	sleep 1
	r5_settled && md_check_clean md0 600 &&
		r5_fio verify randwrite 4k 0 8M 31 && r5_bg_verify 12 16
}

ktap_plan 6
ktap_check "brd: five 24 MiB RAM disks" brd_setup 5 24576
ktap_check "raid5: create 4 members, 64K chunk" r5_create 5 default 4 64
ktap_check "raid5: data written" r5_fio write randwrite 4k 0 8M 31
ktap_check "--grow --raid-devices=5, slowly: half way" grow_slowly
ktap_check "a member fails half way under fio: the reshape ends degraded, data verifies" \
	fail_half_way
ktap_check "the member rebuilt as a spare: check clean, data verifies" rebuilt
md_speed_limit
brd_teardown
ktap_finish
