#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 300
#
# RAID1 read errors: members are dm-linear over RAM disks.  After writing
# checksummed data, the second member's data area is swapped for a dm
# "error" target.  Every read must still return good data (retried on the
# first member), and writes must keep working.
. /harness/lib.sh

MD=/dev/md0
SIZE=16M

dm_setup() {
	modprobe dm-mod 2>/dev/null
	_sz=$(blockdev --getsz /dev/ram0) || return 1
	dmsetup create r1a --table "0 $_sz linear /dev/ram0 0" &&
	dmsetup create r1b --table "0 $_sz linear /dev/ram1 0" &&
	dmsetup mknodes &&	# no udev in the guest
	[ -b /dev/mapper/r1a ] && [ -b /dev/mapper/r1b ]
}
dm_break_r1b() {
	_sz=$(blockdev --getsz /dev/ram1) || return 1
	_off=$(mdadm --examine /dev/mapper/r1b | awk '/Data Offset/ { print $4 }')
	[ -n "$_off" ] || return 1
	printf '0 %s linear /dev/ram1 0\n%s %s error\n' \
		"$_off" "$_off" $((_sz - _off)) > /tmp/r1b.table
	cat /tmp/r1b.table
	dmsetup load r1b /tmp/r1b.table && dmsetup suspend r1b &&
	dmsetup resume r1b
}
cleanup() {
	md_stop_all
	dmsetup remove r1a 2>/dev/null
	dmsetup remove r1b 2>/dev/null
	brd_teardown
}
array_alive() {
	cat /proc/mdstat
	_st=$(cat /sys/block/md0/md/array_state) || return 1
	echo "array_state $_st"
	case "$_st" in clean|active|active-idle|write-pending) ;; *) return 1 ;; esac
}

ktap_plan 9
ktap_check "brd: two 64 MiB RAM disks" brd_setup 2 65536
ktap_check "dm-linear members r1a, r1b" dm_setup
ktap_check "mdadm --create raid1" \
	mdadm --create $MD --run --level=1 --raid-devices=2 --metadata=1.2 \
	/dev/mapper/r1a /dev/mapper/r1b
ktap_check "initial resync completes" wait_resync md0 120
ktap_check "fio write + verify" fio_write_verify $MD $SIZE
ktap_check "r1b data area now returns errors" dm_break_r1b
ktap_check "reads still verify" fio_verify_only $MD $SIZE
ktap_check "array still running" array_alive
ktap_check "writes still work" fio_write_verify $MD $SIZE --randseed=777
dmesg | grep -E 'raid1|md0' | tail -20 | sed 's/^/# /'
cleanup
ktap_finish
