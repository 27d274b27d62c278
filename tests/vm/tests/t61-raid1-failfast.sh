#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 240
#
# failfast is kept: `mdadm --create --failfast` and `mdadm --add
# --failfast` set the member's failfast flag (ADD_NEW_DISK state bit
# MD_DISK_FAILFAST, 1.x superblock devflags), dev-*/state shows it and
# takes failfast/-failfast, GET_DISK_INFO reports it (mdadm --detail), it
# survives stop and assemble, and an add without it clears it.
. /harness/lib.sh

MD=/dev/md0
SYS=/sys/block/md0/md

has() { md_member_state "$1" "$2"; }
lacks() { ! md_member_state "$1" "$2"; }

# detail_failfast N: mdadm --detail lists N devices as failfast
detail_failfast() {
	mdadm --detail $MD | sed -n '/Number/,$p'
	_n=$(mdadm --detail $MD | sed -n '/Number/,$p' | grep -c failfast)
	[ "$_n" = "$1" ]
}

all_failfast() { has ram0 failfast && has ram1 failfast && has ram2 failfast; }
both_failfast() { has ram0 failfast && has ram1 failfast; }
cleared_in_sync() { lacks ram0 failfast && has ram0 in_sync; }
add_spare_failfast() {
	mdadm $MD --add --failfast /dev/ram2 || return 1
	cat $SYS/dev-ram2/state
	[ "$(cat $SYS/dev-ram2/state)" = spare,failfast ]
}
fail_remove_ram1() {
	mdadm $MD --fail /dev/ram1 && sleep 1 && mdadm $MD --remove /dev/ram1
}
readd_ram1_plain() {
	mdadm $MD --add --nofailfast /dev/ram1 && sleep 1 && wait_resync md0 120
}

ktap_plan 17
ktap_check "brd: three 64 MiB RAM disks" brd_setup 3 65536
ktap_check "mdadm --create --failfast raid1 ram0 ram1" \
	mdadm --create $MD --run --level=1 --raid-devices=2 --metadata=1.2 \
	--failfast /dev/ram0 /dev/ram1
ktap_check "initial resync completes" wait_resync md0 120
ktap_check "ram0 and ram1 show failfast" both_failfast
ktap_check "mdadm --detail lists both as failfast" detail_failfast 2
ktap_check "echo -failfast clears it" sysfs_expect_errno 0 $SYS/dev-ram0/state -failfast
ktap_check "ram0 lacks failfast, still in_sync" cleared_in_sync
ktap_check "bad state word refused, state unchanged" \
	sysfs_expect_errno 22 $SYS/dev-ram0/state failfastx
ktap_check "echo failfast sets it" sysfs_expect_errno 0 $SYS/dev-ram0/state failfast
ktap_check "ram0 shows failfast again" has ram0 failfast
ktap_check "mdadm --add --failfast ram2: a failfast spare" add_spare_failfast
ktap_check "mdadm --stop" mdadm --stop $MD
ktap_check "mdadm --assemble" mdadm --assemble $MD /dev/ram0 /dev/ram1 /dev/ram2
ktap_check "failfast on all three after assemble" all_failfast
ktap_check "fail and remove ram1" fail_remove_ram1
ktap_check "ram1 added back with --nofailfast" readd_ram1_plain
ktap_check "ram1 lacks failfast" lacks ram1 failfast
mdadm --detail $MD | sed 's/^/# /'
brd_teardown
ktap_finish
