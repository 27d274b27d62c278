#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 600
#
# Parity corruption on RAID5 and RAID6: with the array stopped, 64 KiB of
# one member's data area is overwritten with random bytes; after
# assembly, check reports mismatch_cnt > 0 and changes no member
# (compared by checksum with O_DIRECT reads); repair fixes it and a
# second check reports 0.  Once more on RAID6 assembled without one
# member: what is left of the redundancy is still checked (a page of
# the missing member is rebuilt from one parity, the other compared).
. /harness/lib.sh
. /harness/tests/raid5/common.sh

MD=/dev/md0

# members_sum N: checksum of every member's data area (the superblock
# changes with every event), read with O_DIRECT
members_sum() {
	for _m in $(r5_members "$1"); do
		_off=$(mdadm --examine "$_m" | md_field "Data Offset" | cut -d' ' -f1)
		dd if="$_m" bs=4096 skip=$((_off / 8)) iflag=direct 2>/dev/null | md5sum
	done
}

# corrupt MEMBER: 64 KiB of random bytes 1 MiB into its data area
corrupt() {
	_off=$(mdadm --examine "$1" | md_field "Data Offset" | cut -d' ' -f1)
	echo "data offset $_off sectors"
	[ -n "$_off" ] || return 1
	dd if=/dev/urandom of="$1" bs=4096 count=16 \
		seek=$(( (_off * 512 + 1048576) / 4096 )) oflag=direct conv=notrunc
}

# check_finds N: check reports mismatches and leaves the N members as they were
check_finds() {
	members_sum "$1" > /tmp/sum.before
	echo check > /sys/block/md0/md/sync_action || return 1
	sleep 1
	wait_resync md0 300 || return 1
	_mm=$(cat /sys/block/md0/md/mismatch_cnt)
	echo "mismatch_cnt $_mm"
	members_sum "$1" > /tmp/sum.after
	diff /tmp/sum.before /tmp/sum.after || { echo "check changed a member"; return 1; }
	[ "$_mm" -gt 0 ]
}

# one LEVEL DISKS VICTIM [LEFT_OUT]: the whole sequence, five results;
# with LEFT_OUT the array is assembled without that member
one() {
	_with=
	for _m in $(r5_members "$2"); do
		[ "$_m" = "${4:-}" ] || _with="$_with $_m"
	done
	ktap_check "raid$1: create $2 members, write data" \
		sh -c ". /harness/lib.sh; . /harness/tests/raid5/common.sh; r5_create $1 default $2 64 && r5_data write && mdadm --stop $MD"
	ktap_check "raid$1: corrupt 64 KiB of $3 while stopped" corrupt "$3"
	# shellcheck disable=SC2086
	ktap_check "raid$1: assemble${4:+ without $4}" mdadm --assemble --run $MD $_with
	ktap_check "raid$1: check finds mismatches, changes nothing" check_finds "$2"
	ktap_check "raid$1: repair, then check finds 0" \
		sh -c ". /harness/lib.sh; echo repair > /sys/block/md0/md/sync_action && sleep 1 && wait_resync md0 300 && md_check_clean md0 300 && mdadm --stop $MD && mdadm --zero-superblock $(r5_members "$2")"
}

ktap_plan 16
ktap_check "brd: five 32 MiB RAM disks" brd_setup 5 32768
one 5 4 /dev/ram1
one 6 5 /dev/ram3
one 6 5 /dev/ram1 /dev/ram4
brd_teardown
ktap_finish
