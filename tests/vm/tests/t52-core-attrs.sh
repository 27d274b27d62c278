#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 300
#
# The md core's array attributes (issue 35: no knob silently ignored).
# Both implementations, the same assertions, each one something in-tree
# md 6.1 does (Documentation/admin-guide/md.rst and its sysfs files):
#  - RAID1 with an internal bitmap: consistency_policy reads "bitmap",
#    and mdadm --detail's "Consistency Policy" says the same; uuid has
#    the form xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx and is --detail's UUID
#    (1.2 metadata: the same bytes in the same order); after the initial
#    resync last_sync_action reads "resync", after a check "check";
#    max_read_errors reads 20 (the default), takes 7 and refuses "abc"
#    with EINVAL, staying 7; fail_last_dev reads 0, serialize_policy 0
#    (raid1), both take 0 and refuse "abc"; array_size reads "default";
#    bitmap/space is a number and refuses 0 and "abc" (EINVAL).
#  - writes to consistency_policy ("resync", "ppl", "abc") leave it
#    "bitmap" (the errno differs: in-tree's raid1 answers EBUSY to every
#    write, this stack EINVAL, and accepts the current value; printed).
#  - array_size: a size below the array's sets the capacity to it and
#    reads back; above it E2BIG, "abc" EINVAL, both changing nothing;
#    "default" gives the whole size back and reads "default".
#  - --grow --bitmap=none: consistency_policy and --detail say "resync".
#  - RAID5 without a bitmap: "resync" both ways, uuid as --detail,
#    serialize_policy "n/a", and 1 refused with EINVAL; array_size as
#    on raid1; --grow --bitmap=internal: "bitmap" both ways.
# Printed, not asserted (they differ between kernels or implementations,
# or are not in in-tree 6.1): new_level, logical_block_size,
# last_sync_action before any sync, the errno of fail_last_dev=1 and
# serialize_policy=1 on raid1 (in-tree takes them; this stack has no
# broken raid1 nor write-behind, and refuses), bitmap/space's value.
. /harness/lib.sh

MD=/dev/md0
SYS=/sys/block/md0/md
EINVAL=22
E2BIG=7

# attr NAME: the attribute's content, "(absent)" when there is none
attr() {
	if [ -e "$SYS/$1" ]; then
		cat "$SYS/$1"
	else
		echo "(absent)"
	fi
}

# is NAME WANT: the attribute reads WANT
is() {
	_v=$(attr "$1")
	echo "$1: $_v"
	[ "$_v" = "$2" ] || { echo "$1 reads '$_v', want '$2'"; return 1; }
}

# try NAME VALUE: write VALUE, print the errno (0: taken) and the content
try() {
	/harness/tools/sysfs_write "$SYS/$1" "$2"
	echo "write '$2' to $1: exit $?, reads '$(attr "$1")'"
}

# policy_is WANT: md/consistency_policy and --detail agree on WANT
policy_is() {
	is consistency_policy "$1" || return 1
	_p=$(mdadm --detail $MD | md_field "Consistency Policy")
	echo "--detail Consistency Policy: $_p"
	[ "$_p" = "$1" ]
}

# uuid_matches: md/uuid in in-tree's form, the bytes of --detail's UUID
uuid_matches() {
	_u=$(attr uuid)
	_d=$(mdadm --detail $MD | md_field UUID)
	echo "md/uuid $_u, --detail UUID $_d"
	echo "$_u" | grep -Eq '^[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}$' ||
		{ echo "md/uuid is not in the xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx form"; return 1; }
	[ "$(echo "$_u" | tr -d -)" = "$(echo "$_d" | tr -d : | tr A-F a-f)" ]
}

# not_in_6_1: print what in-tree 6.1 may lack or words differently
not_in_6_1() {
	echo "new_level: $(attr new_level), level $(attr level)"
	echo "logical_block_size: $(attr logical_block_size)," \
		"queue $(cat /sys/block/md0/queue/logical_block_size)"
	echo "bitmap/space: $(attr bitmap/space)"
}

raid1_bitmap() {
	md_stop_all
	brd_setup 3 65536 || return 1
	mdadm --create $MD --run --level=1 --raid-devices=2 --metadata=1.2 \
		--bitmap=internal /dev/ram0 /dev/ram1 || return 1
	echo "last_sync_action during the first resync: $(attr last_sync_action)"
	wait_resync md0 300
}

raid1_reads() {
	_rc=0
	not_in_6_1
	is last_sync_action resync || _rc=1
	is max_read_errors 20 || _rc=1
	is fail_last_dev 0 || _rc=1
	is serialize_policy 0 || _rc=1
	is array_size default || _rc=1
	attr bitmap/space | grep -Eq '^[0-9]+$' ||
		{ echo "bitmap/space is not a number"; _rc=1; }
	return $_rc
}

check_then_last() {
	md_check_clean md0 120 || return 1
	is last_sync_action check
}

read_errors_knob() {
	sysfs_expect_errno 0 $SYS/max_read_errors 7 || return 1
	is max_read_errors 7 || return 1
	sysfs_expect_errno $EINVAL $SYS/max_read_errors abc || return 1
	is max_read_errors 7 || return 1
	sysfs_expect_errno 0 $SYS/max_read_errors 20
}

zero_knobs() {
	_rc=0
	for _a in fail_last_dev serialize_policy; do
		sysfs_expect_errno 0 $SYS/$_a 0 || _rc=1
		sysfs_expect_errno $EINVAL $SYS/$_a abc || _rc=1
		is $_a 0 || _rc=1
		try $_a 1
		echo 0 > $SYS/$_a 2>/dev/null
	done
	sysfs_expect_errno $EINVAL $SYS/bitmap/space 0 || _rc=1
	sysfs_expect_errno $EINVAL $SYS/bitmap/space abc || _rc=1
	return $_rc
}

policy_writes() {
	for _v in bitmap resync ppl abc; do
		try consistency_policy $_v
	done
	policy_is bitmap
}

# array_size_shrink: KiB below the whole size, then back to default
array_size_shrink() {
	_full=$(blockdev --getsize64 $MD) || return 1
	_kib=$((_full / 1024))
	echo "whole size $_kib KiB"
	sysfs_expect_errno $E2BIG $SYS/array_size $((_kib + 1024)) || return 1
	sysfs_expect_errno $EINVAL $SYS/array_size abc || return 1
	sysfs_expect_errno 0 $SYS/array_size 16384 || return 1
	is array_size 16384 || return 1
	_b=$(blockdev --getsize64 $MD)
	echo "md0 $_b bytes"
	[ "$_b" = $((16384 * 1024)) ] || return 1
	sysfs_expect_errno 0 $SYS/array_size default || return 1
	is array_size default || return 1
	_b=$(blockdev --getsize64 $MD)
	echo "md0 $_b bytes"
	[ "$_b" = "$_full" ]
}

bitmap_none() {
	mdadm --grow $MD --bitmap=none || return 1
	echo "bitmap/space: $(attr bitmap/space)"
	policy_is resync
}

raid5_create() {
	brd_setup 3 65536 || return 1
	mdadm --create $MD --run --assume-clean --level=5 --raid-devices=3 \
		--metadata=1.2 --bitmap=none /dev/ram0 /dev/ram1 /dev/ram2 ||
		return 1
	echo "last_sync_action before any sync: $(attr last_sync_action)"
	not_in_6_1
}

raid5_reads() {
	_rc=0
	policy_is resync || _rc=1
	uuid_matches || _rc=1
	is max_read_errors 20 || _rc=1
	is serialize_policy n/a || _rc=1
	sysfs_expect_errno $EINVAL $SYS/serialize_policy 1 || _rc=1
	is array_size default || _rc=1
	return $_rc
}

raid5_bitmap() {
	mdadm --grow $MD --bitmap=internal || return 1
	echo "bitmap/space: $(attr bitmap/space)"
	policy_is bitmap
}

ktap_plan 14
md_speed_limit
ktap_check "raid1 of 2 x 64 MiB brd, internal bitmap, resynced" raid1_bitmap
ktap_check "raid1+bitmap: consistency_policy bitmap, as --detail" policy_is bitmap
ktap_check "raid1: uuid in in-tree's form, --detail's UUID" uuid_matches
ktap_check "raid1: last_sync_action, max_read_errors, fail_last_dev, serialize_policy, array_size, bitmap/space read as in-tree" raid1_reads
ktap_check "last_sync_action reads check after a check" check_then_last
ktap_check "max_read_errors: 7 round-trips, abc refused (EINVAL, unchanged)" read_errors_knob
ktap_check "fail_last_dev, serialize_policy take 0 and refuse abc; bitmap/space refuses 0 and abc" zero_knobs
ktap_check "consistency_policy writes leave it bitmap" policy_writes
ktap_check "raid1: array_size shrinks the array, E2BIG above, default restores" array_size_shrink
ktap_check "raid1 after --grow --bitmap=none: consistency_policy resync, as --detail" bitmap_none
ktap_check "raid5 of 3 x 64 MiB brd, no bitmap" raid5_create
ktap_check "raid5: resync policy, uuid, serialize_policy n/a and 1 refused" raid5_reads
ktap_check "raid5: array_size shrinks the array, E2BIG above, default restores" array_size_shrink
ktap_check "raid5 after --grow --bitmap=internal: consistency_policy bitmap, as --detail" raid5_bitmap
md_stop_all
brd_teardown
ktap_finish
