#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 600
#
# A RAID5 grow handed over half way between the implementations (issue
# 37, acceptance 2): one implementation starts mdadm --grow -n 5 on 4
# members of 24 MiB RAM disks (1.2 superblocks, 64K chunks, data offset
# 2 MiB so mdadm moves the data down instead of taking a backup file),
# slowly, with fio writing and verifying beside it; the array is stopped
# half way (the superblocks record the reshape position); the other
# implementation assembles it, continues the reshape from there and ends
# it.  Then: 5 members, the array one member's data larger, every byte
# written before and during the reshape verifies, check finds nothing,
# and it assembles again as a plain array.  Both ways: in-tree starts,
# $IMPL completes; $IMPL starts, in-tree completes.
. /harness/lib.sh
. /harness/tests/raid5/common.sh

: "${IMPL:?}"
MD=/dev/md0
SYS=/sys/block/md0/md

# grow_half FROM: FROM creates the array, writes, starts the grow slowly
# while fio writes a second region, and stops the array half way
grow_half() {
	switch_impl "$1" || return 1
	# shellcheck disable=SC2046
	mdadm --zero-superblock $(r5_members 5) 2>/dev/null
	# shellcheck disable=SC2046
	mdadm --create $MD --run --level=5 --raid-devices=4 --chunk=64 \
		--metadata=1.2 --data-offset=2048 $(r5_members 4) || return 1
	wait_resync md0 600 || return 1
	r5_fio write randwrite 4k 0 8M 31 || return 1
	mdadm $MD --add /dev/ram4 || return 1
	md_speed_limit 100 300
	mdadm --grow $MD --raid-devices=5 || return 1
	# in-tree 6.12 starts it a moment after mdadm returns
	for _i in $(seq 1 50); do
		grep -q "reshape" /proc/mdstat && break
		sleep 0.2
	done
	cat /proc/mdstat
	grep -q "reshape" /proc/mdstat || return 1
	# writes on both sides of the reshape position while it moves
	r5_fio write randwrite 4k 12M 4M 33 || return 1
	r5_reshape_half_way || return 1
	mdadm --stop $MD || return 1
	md_speed_limit
}

# finish_on TO: TO assembles the half-reshaped array, which completes
finish_on() {
	switch_impl "$1" || return 1
	# shellcheck disable=SC2046
	mdadm --assemble $MD $(r5_members 5) || return 1
	cat /proc/mdstat
	wait_resync md0 600 || return 1
	_n=$(cat $SYS/raid_disks) _p=$(cat $SYS/reshape_position)
	_sz=$(blockdev --getsz $MD)
	echo "raid_disks $_n reshape_position $_p size $_sz"
	# 4 data members of 22 MiB (24 MiB less the 2 MiB data offset)
	[ "$_n" = 5 ] && [ "$_p" = none ] && [ "$_sz" -ge 180224 ] || return 1
	r5_fio verify randwrite 4k 0 8M 31 &&
		r5_fio verify randwrite 4k 12M 4M 33 &&
		md_check_clean md0 600 || return 1
	mdadm --stop $MD || return 1
	# shellcheck disable=SC2046
	mdadm --assemble $MD $(r5_members 5) || return 1
	_s=$(cat $SYS/sync_action)
	[ "$_s" = idle ] || { echo "sync_action $_s after assemble"; return 1; }
	r5_fio verify randwrite 4k 0 8M 31 && mdadm --stop $MD
}

handover() { grow_half "$1" && finish_on "$2"; }

ktap_plan 3
ktap_check "brd: five 24 MiB RAM disks" brd_setup 5 24576
ktap_check "grow 4 -> 5 started by in-tree md, stopped half way, completed by $IMPL" \
	handover intree "$IMPL"
ktap_check "grow 4 -> 5 started by $IMPL, stopped half way, completed by in-tree md" \
	handover "$IMPL" intree
md_stop_all
brd_teardown
switch_impl "$IMPL" > /dev/null 2>&1
ktap_finish
