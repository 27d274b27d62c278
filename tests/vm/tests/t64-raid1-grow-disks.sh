#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 300
#
# raid_disks of a running raid1 changes without a reshape (what mdadm's
# 02r1add and 05r1-failfast do): `mdadm --grow -n 3` adds a slot that the
# spare fills by recovery, a failed member is dropped and `--grow -n 2`
# closes the gap, the data stays intact, the superblocks record the new
# count across stop/assemble, md/raid_disks takes the same changes, and
# shrinking below the members in a slot is refused with EBUSY, nothing
# changed.
. /harness/lib.sh

MD=/dev/md0
SYS=/sys/block/md0/md

raid_disks_is() {
	echo "raid_disks $(cat $SYS/raid_disks)"
	[ "$(cat $SYS/raid_disks)" = "$1" ]
}

# grow_n N: mdadm --grow -n N, then no sync left running
grow_n() { mdadm --grow $MD -n "$1" && sleep 1 && wait_resync md0 120; }

fail_ram0() {
	mdadm $MD --fail /dev/ram0 || return 1
	# the md thread takes the failed member out of its slot
	_i=0
	while [ "$(cat $SYS/dev-ram0/slot)" != none ]; do
		_i=$((_i + 1))
		[ $_i -gt 50 ] && { echo "ram0 still in slot $(cat $SYS/dev-ram0/slot)"; return 1; }
		sleep 0.1
	done
}

# examine_raid_devices DEV N: DEV's superblock records N raid devices
examine_raid_devices() {
	_n=$(mdadm --examine "$1" | md_field "Raid Devices")
	echo "$1: Raid Devices $_n"
	[ "$_n" = "$2" ]
}

slots_are() { # expected "dev:slot ..." list
	for _p in $1; do
		_d=${_p%%:*} _s=${_p#*:}
		echo "$_d slot $(cat $SYS/dev-$_d/slot)"
		[ "$(cat $SYS/dev-$_d/slot)" = "$_s" ] || return 1
		[ -e "$SYS/rd$_s" ] || { echo "no rd$_s link"; return 1; }
	done
}

closed_up() { md_array_as "[2/2] [UU]" 0 && slots_are "ram1:0 ram2:1"; }

ktap_plan 22
ktap_check "brd: three 64 MiB RAM disks" brd_setup 3 65536
ktap_check "raid1 on ram0 ram1, spare ram2" \
	mdadm --create $MD --run --level=1 --raid-devices=2 --metadata=1.2 \
	/dev/ram0 /dev/ram1 --spare-devices=1 /dev/ram2
ktap_check "initial resync completes" wait_resync md0 120
ktap_check "8 MiB pattern written" md_pattern_write
ktap_check "mdadm --grow -n 3: the spare is rebuilt into slot 2" grow_n 3
ktap_check "raid_disks is 3" raid_disks_is 3
ktap_check "[3/3] [UUU]" md_array_as "[3/3] [UUU]" 0
ktap_check "fail ram0, it leaves its slot" fail_ram0
ktap_check "[3/2] [_UU]" md_array_as "[3/2] [_UU]" 1
ktap_check "md/raid_disks 1 with two in slots: EBUSY, unchanged" \
	sysfs_expect_errno 16 $SYS/raid_disks 1
ktap_check "md/raid_disks 0: EINVAL, unchanged" sysfs_expect_errno 22 $SYS/raid_disks 0
ktap_check "mdadm --grow -n 2: the gap closes" grow_n 2
ktap_check "[2/2] [UU], ram1 in slot 0, ram2 in slot 1" closed_up
ktap_check "data intact" md_pattern_intact
ktap_check "md/raid_disks 3: an empty slot, degraded" sysfs_expect_errno 0 $SYS/raid_disks 3
ktap_check "[3/2] [UU_]" md_array_as "[3/2] [UU_]" 1
ktap_check "md/raid_disks 2 again" sysfs_expect_errno 0 $SYS/raid_disks 2
ktap_check "remove ram0, stop" sh -c "mdadm $MD --remove /dev/ram0 && mdadm --stop $MD"
ktap_check "ram1's superblock records 2 raid devices" examine_raid_devices /dev/ram1 2
ktap_check "assemble ram1 ram2" mdadm --assemble $MD /dev/ram1 /dev/ram2
ktap_check "[2/2] [UU] after assemble" md_array_as "[2/2] [UU]" 0
ktap_check "data intact after assemble" md_pattern_intact
brd_teardown
ktap_finish
