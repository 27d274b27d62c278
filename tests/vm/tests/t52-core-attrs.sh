#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 360
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
#    (raid1), both take 0 and refuse "abc"; fail_last_dev takes 1 and
#    reads it back; array_size reads "default"; bitmap/space reads 0
#    (nothing written: in-tree does not record a 1.x bitmap's room) and
#    refuses 0 and "abc" (EINVAL).
#  - with no reshape under way: reshape_position reads "none",
#    reshape_direction "forwards", suspend_lo and suspend_hi 0 (both
#    take 0 and refuse "abc" with EINVAL), and every dev-*/new_offset
#    reads its dev-*/offset, takes that value back and refuses "abc".
#  - bitmap/chunksize refuses 100 and its own value with EBUSY while the
#    bitmap exists; bitmap/backlog refuses 5 with EINVAL while no member
#    is write-mostly, and takes 5 (reads it back) once one is.
#  - bitmap_set_bits "1 3-4" on a 4 MiB-chunk bitmap whose bits are all
#    clear: accepted, and right after it the bitmap on each member
#    records 3 dirty chunks; sync_action "resync" then runs a pass that
#    ends within 60 s.
#  - the last working mirror: with fail_last_dev 0 a request to fail it
#    leaves it in_sync; with 1 it becomes faulty, md/degraded reads 2
#    and a direct read of the array fails.
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
# last_sync_action before any sync, the errno of serialize_policy=1 on
# raid1 (in-tree takes it; this stack has no write-behind, and refuses),
# what writing "none" to reshape_position and "forwards" to
# reshape_direction answers, whether the marked chunks are cleared
# within 40 s of the resync "resync" asks for (this stack starts it at
# once and clears them after it), array_state and the errno of the fail
# requests once the last mirror is asked to fail.
. /harness/lib.sh

MD=/dev/md0
SYS=/sys/block/md0/md
EINVAL=22
E2BIG=7
EBUSY=16

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
		--bitmap=internal --bitmap-chunk=4M /dev/ram0 /dev/ram1 ||
		return 1
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
	is bitmap/space 0 || _rc=1
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
	done
	try serialize_policy 1
	echo 0 > $SYS/serialize_policy 2>/dev/null
	sysfs_expect_errno 0 $SYS/fail_last_dev 1 || _rc=1
	is fail_last_dev 1 || _rc=1
	sysfs_expect_errno 0 $SYS/fail_last_dev 0 || _rc=1
	is fail_last_dev 0 || _rc=1
	sysfs_expect_errno $EINVAL $SYS/bitmap/space 0 || _rc=1
	sysfs_expect_errno $EINVAL $SYS/bitmap/space abc || _rc=1
	return $_rc
}

# no_reshape: the reshape attributes as in-tree reads them with none
# under way; the writes both take and refuse
no_reshape() {
	_rc=0
	is reshape_position none || _rc=1
	is reshape_direction forwards || _rc=1
	for _a in suspend_lo suspend_hi; do
		is $_a 0 || _rc=1
		sysfs_expect_errno 0 $SYS/$_a 0 || _rc=1
		sysfs_expect_errno $EINVAL $SYS/$_a abc || _rc=1
		is $_a 0 || _rc=1
	done
	for _d in "$SYS"/dev-*; do
		_o=$(cat "$_d/offset")
		_n=$(cat "$_d/new_offset")
		echo "${_d##*/}: offset $_o, new_offset $_n"
		[ "$_n" = "$_o" ] || { echo "new_offset is not offset"; _rc=1; }
		sysfs_expect_errno 0 "$_d/new_offset" "$_o" || _rc=1
		sysfs_expect_errno $EINVAL "$_d/new_offset" abc || _rc=1
	done
	try reshape_position none
	try reshape_direction forwards
	return $_rc
}

# bitmap_knobs: chunksize busy under a bitmap; backlog needs write-mostly
bitmap_knobs() {
	_rc=0
	_cs=$(attr bitmap/chunksize)
	sysfs_expect_errno $EBUSY $SYS/bitmap/chunksize 100 || _rc=1
	sysfs_expect_errno $EBUSY $SYS/bitmap/chunksize "$_cs" || _rc=1
	is bitmap/backlog 0 || _rc=1
	sysfs_expect_errno $EINVAL $SYS/bitmap/backlog 5 || _rc=1
	echo writemostly > $SYS/dev-ram1/state || _rc=1
	md_member_state ram1 write_mostly || _rc=1
	sysfs_expect_errno 0 $SYS/bitmap/backlog 5 || _rc=1
	is bitmap/backlog 5 || _rc=1
	sysfs_expect_errno 0 $SYS/bitmap/backlog 0 || _rc=1
	echo -writemostly > $SYS/dev-ram1/state || _rc=1
	return $_rc
}

# set_bits: bitmap_set_bits marks chunks 1, 3 and 4 of a clear bitmap
set_bits() {
	_c=$(attr bitmap/chunksize)
	echo "bitmap/chunksize $_c, component_size $(attr component_size) KiB"
	[ "$_c" = 4194304 ] || return 1
	wait_bitmap_dirty 0 /dev/ram0 /dev/ram1 || return 1
	sysfs_expect_errno 0 $SYS/bitmap_set_bits "1 3-4" || return 1
	_rc=0
	for _d in /dev/ram0 /dev/ram1; do
		_n=$(bitmap_dirty $_d)
		echo "$_d: $_n dirty chunks after bitmap_set_bits"
		[ "$_n" = 3 ] || _rc=1
	done
	echo "resync_start $(attr resync_start)," \
		"sync_action $(md_sync_action md0)"
	mdstat_array md0
	# this stack resyncs the marked chunks at once; "resync" asks both
	echo resync > $SYS/sync_action || _rc=1
	wait_resync md0 60 || _rc=1
	echo "after the pass: last_sync_action $(attr last_sync_action)," \
		"resync_start $(attr resync_start)"
	if wait_bitmap_dirty 0 /dev/ram0 /dev/ram1 > /dev/null; then
		echo "the marked chunks were cleared after the pass"
	else
		echo "the marked chunks were not cleared within 40 s:" \
			"$(bitmap_dirty /dev/ram0) dirty"
	fi
	return $_rc
}

# last_mirror: fail_last_dev 0 keeps the last working mirror, 1 fails it
last_mirror() {
	echo faulty > $SYS/dev-ram1/state || return 1
	md_member_state ram1 faulty || return 1
	sysfs_expect_errno 0 $SYS/fail_last_dev 0 || return 1
	try dev-ram0/state faulty
	md_member_state ram0 in_sync || return 1
	sysfs_expect_errno 0 $SYS/fail_last_dev 1 || return 1
	try dev-ram0/state faulty
	echo "array_state $(attr array_state)"
	md_member_state ram0 faulty || return 1
	is degraded 2 || return 1
	if dd if=$MD of=/dev/null bs=4096 count=1 iflag=direct; then
		echo "a read of an array without a working mirror succeeded"
		return 1
	fi
	return 0
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

ktap_plan 18
md_speed_limit
ktap_check "raid1 of 2 x 64 MiB brd, internal bitmap, resynced" raid1_bitmap
ktap_check "raid1+bitmap: consistency_policy bitmap, as --detail" policy_is bitmap
ktap_check "raid1: uuid in in-tree's form, --detail's UUID" uuid_matches
ktap_check "raid1: last_sync_action, max_read_errors, fail_last_dev, serialize_policy, array_size, bitmap/space read as in-tree" raid1_reads
ktap_check "last_sync_action reads check after a check" check_then_last
ktap_check "max_read_errors: 7 round-trips, abc refused (EINVAL, unchanged)" read_errors_knob
ktap_check "fail_last_dev, serialize_policy take 0 and refuse abc; fail_last_dev takes 1; bitmap/space refuses 0 and abc" zero_knobs
ktap_check "reshape_position none, reshape_direction forwards, suspend_lo/hi 0, new_offset the offset" no_reshape
ktap_check "bitmap/chunksize EBUSY under a bitmap; bitmap/backlog only with a write-mostly member" bitmap_knobs
ktap_check "bitmap_set_bits: 3 chunks marked on every member's bitmap" set_bits
ktap_check "consistency_policy writes leave it bitmap" policy_writes
ktap_check "raid1: array_size shrinks the array, E2BIG above, default restores" array_size_shrink
ktap_check "raid1 after --grow --bitmap=none: consistency_policy resync, as --detail" bitmap_none
ktap_check "raid1: fail_last_dev 0 keeps the last mirror, 1 fails it and reads fail" last_mirror
ktap_check "raid5 of 3 x 64 MiB brd, no bitmap" raid5_create
ktap_check "raid5: resync policy, uuid, serialize_policy n/a and 1 refused" raid5_reads
ktap_check "raid5: array_size shrinks the array, E2BIG above, default restores" array_size_shrink
ktap_check "raid5 after --grow --bitmap=internal: consistency_policy bitmap, as --detail" raid5_bitmap
md_stop_all
brd_teardown
ktap_finish
