#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 300
#
# The component size of a running raid1 changes in place (mdadm's
# 02r1grow): `mdadm --grow --size max` grows the array to what every
# member allows and resyncs the added part (the members differ there
# beforehand: a check afterwards finds no mismatch), `--grow --size N`
# shrinks it without a sync, the data below stays intact, the size is in
# the superblocks across stop/assemble, and md/component_size refuses a
# size no member has room for (ENOSPC) or garbage (EINVAL), unchanged.
. /harness/lib.sh

MD=/dev/md0
SYS=/sys/block/md0/md
HALF=32768	# KiB

# ram1 differs from ram0 past the first 40 MiB (outside the half-size
# array): only a resync of the grown part makes them agree
scribble_ram1() {
	dd if=/dev/urandom of=/dev/ram1 bs=1M seek=40 count=16 oflag=direct 2>/dev/null
}

grown_to_max() {
	md_grow_max 120 || return 1
	[ "$GROWN_KIB" -gt $((HALF + 16384)) ] &&
	[ "$(blockdev --getsize64 $MD)" = $((GROWN_KIB * 1024)) ]
}

stopped_records() { mdadm --stop $MD && examine_used_size /dev/ram0 $HALF; }
assembled_intact() {
	mdadm --assemble $MD /dev/ram0 /dev/ram1 && md_size_is $HALF && md_pattern_intact
}

ktap_plan 15
ktap_check "brd: two 64 MiB RAM disks" brd_setup 2 65536
ktap_check "ram1 differs from ram0 beyond 40 MiB" scribble_ram1
ktap_check "raid1 --size $HALF KiB on ram0 ram1" \
	mdadm --create $MD --run --level=1 --raid-devices=2 --metadata=1.2 \
	--size=$HALF /dev/ram0 /dev/ram1
ktap_check "initial resync completes" wait_resync md0 120
ktap_check "md0 is $HALF KiB" md_size_is $HALF
ktap_check "8 MiB pattern written" md_pattern_write
ktap_check "component_size beyond the members: ENOSPC, unchanged" \
	sysfs_expect_errno 28 $SYS/component_size 1048576
ktap_check "component_size garbage: EINVAL, unchanged" \
	sysfs_expect_errno 22 $SYS/component_size 12x
ktap_check "mdadm --grow --size max: grown and resynced" grown_to_max
ktap_check "check finds the grown part in sync" md_check_clean md0 120
ktap_check "mdadm --grow --size $HALF: no sync" md_shrink_no_sync $HALF
ktap_check "md0 is $HALF KiB again" md_size_is $HALF
ktap_check "data intact" md_pattern_intact
ktap_check "stop; ram0 records $HALF KiB" stopped_records
ktap_check "assemble: $HALF KiB, data intact" assembled_intact
brd_teardown
ktap_finish
