#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 1200
#
# RAID10 (issue 36) as an admin and the data see it, on RAM disks.  What
# in-tree md does is the reference: every check passes on it.  For one
# layout of each kind (n2 on 4 members and f2 on 3 with 512 KiB chunks,
# o2 on 3 with 64 KiB; t107 runs eight more: 2 and 3 copies, 2 to 5
# members), each of r10_case's nine steps (tests/raid10/common.sh):
#  - mdadm --create starts the initial resync, which completes;
#    /proc/mdstat shows "raid10", the chunk and the copies as in-tree
#    words them ("64K chunks 2 near-copies", "2 far-copies",
#    "2 offset-copies") and [N/N]; the array size is whole chunks per
#    member, over far copies, times members, over near copies;
#  - fio crc32c data over the whole array, from the first to the last
#    sector, verifies; a check pass finds mismatch_cnt 0 (every copy
#    equal);
#  - --stop / --assemble: the data verifies again;
#  - a member failed under a fio load: fio sees no error and verifies,
#    the array runs degraded ([N/N-1]) and every block still reads;
#  - that member removed, wiped and added as a blank spare while fio
#    writes and verifies: recovery rebuilds it, the array is [N/N] again, the data verifies and a
#    check finds mismatch_cnt 0, so the rebuilt copies equal the others;
#  - n2 on 2 members: after that rebuild the other member is failed, so
#    that the rebuilt member alone serves the data, which verifies.
#  - Not enough members: failing both members that hold some chunk's
#    copies is refused for the second one (mdadm --fail exits non-zero
#    or the member stays), the array keeps serving the data.
#  - Repair: 4 KiB of the second copy of array sector 0 (n2 on 4: member
#    1 at its data offset) overwritten behind md's back: check reports
#    mismatch_cnt > 0, repair rewrites it from the first copy, a second
#    check finds 0 and the data verifies.
#  - Re-add with a bitmap (n2 on 4, internal bitmap): a member failed and
#    removed, 64 KiB written while it is out, the member re-added
#    (mdadm --re-add, which needs the bitmap) while fio writes and
#    verifies elsewhere, without error: the array is [4/4] again,
#    the block reads back and check finds every copy equal.
#  - Two blank members rebuilt in one recovery (n2 x4: members 0 and 2,
#    one of each mirror pair, so at one member sector they hold different
#    array chunks): both added while sync_action is frozen, then the
#    recovery (slowed to 2 MB/s) runs with both members rebuilding at
#    once (each has a slot and a recovery_start), under fio; afterwards
#    [4/4], the data verifies, check is clean, and with their partners
#    failed the two rebuilt members alone serve every block.
. /harness/lib.sh
. /harness/tests/raid10/common.sh

# one layout of each kind here; t107 runs the others
CASES="n2:4:512 f2:3:512 o2:3:64"
NCASES=$(echo $CASES | wc -w)

ktap_plan $((NCASES * 9 + 5))
brd_setup 5 $KIB || ktap_skip_all "no RAM disks"

for c in $CASES; do
	# shellcheck disable=SC2046,SC2086
	r10_case $(echo "$c" | tr : ' ')
done

# n2 on 2: the rebuilt ram0 alone (ram1 failed) serves everything
one_case_n2_alone() {
	N=2
	mk n2 2 64 > /dev/null && write_all > /dev/null &&
	mdadm --fail $MD /dev/ram0 && readd_blank /dev/ram0 > /dev/null &&
	alone_verify /dev/ram1
}
ktap_check "n2 x2: rebuilt member alone serves the data" one_case_n2_alone

one_case_last_copy() {
	N=4
	mk n2 4 64 > /dev/null && write_all > /dev/null &&
	last_copy_kept /dev/ram0 /dev/ram1
}
ktap_check "n2 x4: the last copy of a chunk is not failed" one_case_last_copy

# repair_case: n2 x4, the second copy of sector 0 corrupted, repaired
repair_case() {
	N=4
	mk n2 4 64 > /dev/null && write_all > /dev/null || return 1
	_off=$(mdadm --examine /dev/ram1 | md_field "Data Offset" | awk '{ print $1 }')
	echo "ram1 data offset $_off sectors"
	dd if=/dev/urandom of=/dev/ram1 bs=4k count=1 seek=$((_off / 8)) oflag=direct 2>/dev/null || return 1
	echo check > /sys/block/md0/md/sync_action && sleep 1 && wait_resync md0 120 || return 1
	_mm=$(cat /sys/block/md0/md/mismatch_cnt)
	echo "after corruption: mismatch_cnt $_mm"
	[ "$_mm" -gt 0 ] || return 1
	echo repair > /sys/block/md0/md/sync_action && sleep 1 && wait_resync md0 120 || return 1
	md_check_clean md0 120 && verify_all
}
ktap_check "n2 x4: check finds a corrupted copy, repair rewrites it" repair_case

# readd_case: n2 x4 with a bitmap, member 2 out while data is written,
# re-added: only the dirty chunks are copied
readd_case() {
	N=4
	r10_create n2 4 64 --bitmap=internal --bitmap-chunk=64K > /dev/null || return 1
	write_all > /dev/null || return 1
	mdadm --fail $MD /dev/ram2 && mdadm --remove $MD /dev/ram2 || return 1
	dd if=/dev/urandom of=/tmp/blk bs=64k count=1 2>/dev/null &&
	# the last 64 KiB, which fio never writes (write_all)
	dd if=/tmp/blk of=$MD bs=64k seek=$((ARRAY_BYTES / 65536 - 1)) oflag=direct 2>/dev/null || return 1
	load_start
	mdadm --re-add $MD /dev/ram2 || { wait; return 1; }
	load_end || return 1
	sleep 1
	wait_resync md0 120 || return 1
	mdstat_array md0
	mdstat_array md0 | grep -q "\[4/4\]" || return 1
	dd if=$MD bs=64k skip=$((ARRAY_BYTES / 65536 - 1)) count=1 iflag=direct 2>/dev/null | cmp - /tmp/blk &&
	md_check_clean md0 120
}
ktap_check "n2 x4 bitmap: a re-added member catches up, data and copies agree" readd_case

# two_blank_case: n2 x4, ram0 and ram2 rebuilt by one recovery
two_blank_case() {
	N=4
	mk n2 4 64 > /dev/null && write_all > /dev/null || return 1
	for _d in ram0 ram2; do
		mdadm --fail $MD /dev/$_d && mdadm --remove $MD /dev/$_d &&
		mdadm --zero-superblock /dev/$_d || return 1
	done
	echo frozen > /sys/block/md0/md/sync_action || return 1
	mdadm --add $MD /dev/ram0 /dev/ram2 || return 1
	echo 2000 > /sys/block/md0/md/sync_speed_max
	load_start
	echo idle > /sys/block/md0/md/sync_action
	sleep 2
	_st=
	for _d in ram0 ram2; do
		_st="$_st $(cat /sys/block/md0/md/dev-$_d/slot)"
		_st="$_st $(cat /sys/block/md0/md/dev-$_d/recovery_start)"
	done
	echo "slot, recovery_start: ram0, ram2:$_st"
	load_end || return 1
	# both in a slot, both rebuilding: one recovery for the two
	case "$_st" in *none*) return 1 ;; esac
	echo system > /sys/block/md0/md/sync_speed_max
	wait_resync md0 300 || return 1
	mdstat_array md0
	mdstat_array md0 | grep -q "\[4/4\]" || return 1
	verify_all && md_check_clean md0 120 || return 1
	mdadm --fail $MD /dev/ram1 && mdadm --fail $MD /dev/ram3 || return 1
	mdstat_array md0
	mdstat_array md0 | grep -q "\[4/2\]" && verify_all
}
ktap_check "n2 x4: two blank members rebuilt together, each alone serves its half" two_blank_case

md_stop_all
brd_teardown
ktap_finish
