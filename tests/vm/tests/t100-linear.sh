#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 600
#
# Linear arrays (issue 36): what an admin and the data see, on members
# of unequal sizes that are device-mapper slices of one RAM disk
# (raid0/common.sh).
#
#  - 2 and 3 members: /proc/mdstat and mdadm --detail (level linear,
#    members, Array Size = the sum of the members' usable sizes as their
#    superblocks record them); random blocks written through md0 are
#    found on the member and sector the concatenation puts them (first
#    and last block of every member); the last sector works; fio crc32c
#    data around every member boundary, at both ends and inside every
#    member verifies, and again after --stop/--assemble.
#  - mdadm --grow --add appends a member: the array grows by exactly
#    that member's usable size, the old data still verifies, the new
#    space (and the old end, now a member boundary) takes data that
#    verifies after --stop/--assemble of all four.
#  - Member I/O errors: while one member fails every I/O, reading or
#    writing a block on it fails, blocks on the other members read back
#    as written, and once it works again everything verifies: an error,
#    never wrong data.
#  - What linear has not got: no sync_action (nothing to check); a
#    plain mdadm --add (without --grow) is refused; mdadm --fail is
#    refused yet marks the array broken (writes fail, reads work) until
#    it is stopped.
# In-tree md lost its linear personality in Linux 6.8: on a kernel
# without it, IMPL=intree skips the whole test; the fork has its own.
. /harness/lib.sh
. /harness/tests/raid0/common.sh

if [ "$(impl_loaded)" = intree ] && ! intree_has_linear; then
	ktap_skip_all "$R0_NO_LINEAR"
fi

# mk N KIB...: fresh slices of those sizes, a linear array over the first
# N of them; DEVS, N and the geometry set
mk() {
	N=$1
	shift
	r0_slices "$@" > /dev/null || return 1
	DEVS=$(r0_devs 0 "$N")
	# shellcheck disable=SC2086 # word splitting on purpose
	mdadm --create "$R0_MD" --run --level=linear --raid-devices="$N" \
		--metadata=1.2 $DEVS < /dev/null || return 1
	cat /proc/mdstat
	geom
}

# shellcheck disable=SC2086
geom() { r0_geom linear 1 $DEVS && r0_geom_show; }

status_right() {
	r0_mdstat_right linear "super 1.2 0k rounding" || return 1
	r0_detail_has "Raid Level" linear "Raid Devices" "$N" "Total Devices" "$N" \
		Rounding 0K State clean || return 1
	r0_size_right
}

write_all() { r0_tail && r0_data 1 write && r0_data 2 write; }
verify_all() { r0_data 1 verify && r0_data 2 verify; }

reassemble_verify() {
	mdadm --stop "$R0_MD" || return 1
	# shellcheck disable=SC2086
	mdadm --assemble "$R0_MD" $DEVS || return 1
	mdstat_array md0
	verify_all
}

# one_case NAME N KIB...: five results
one_case() {
	_nm=$1
	shift
	ktap_check "$_nm: created" mk "$@"
	ktap_check "$_nm: /proc/mdstat, --detail, Array Size" status_right
	ktap_check "$_nm: blocks land where the concatenation puts them" r0_placed
	ktap_check "$_nm: last sector; data across members and ends verifies" write_all
	ktap_check "$_nm: stop, assemble, everything verifies" reassemble_verify
}

# grow_add: mdadm --grow --add of s3: one member more, md0 larger by its
# usable size (its superblock's Avail Dev Size)
grow_add() {
	_old=$G_END
	r0_zero /dev/mapper/s3 || return 1
	mdadm --grow "$R0_MD" --add /dev/mapper/s3 || return 1
	mdstat_array md0
	_g=$(r0_member_geom /dev/mapper/s3) || { echo "$_g"; return 1; }
	_add=$(echo "$_g" | awk '{ print $2 }')
	_now=$(cat /sys/block/md0/size)
	echo "md0 $_old -> $_now sectors, s3 usable $_add"
	[ "$_now" = $((_old + _add)) ]
}

# grown_status: the new member is part of the geometry, mdstat and --detail
grown_status() {
	DEVS=$(r0_devs 0 4)
	N=4
	geom && status_right
}

# grown_data: blocks land right on all four, the data sets over the new
# geometry (the old end is now a boundary, the new end at s3's end)
grown_data() { r0_placed && write_all; }

# plain_add_refused: mdadm --add (not --grow) of a blank slice s4 fails,
# md0 keeps its 4 members and its size
plain_add_refused() {
	_sz=$(cat /sys/block/md0/size)
	r0_zero /dev/mapper/s4 || return 1
	if mdadm "$R0_MD" --add /dev/mapper/s4; then
		echo "mdadm --add succeeded"
		mdadm --detail "$R0_MD"
		return 1
	fi
	mdstat_array md0
	r0_detail_has "Raid Devices" 4 "Total Devices" 4 State clean > /dev/null &&
	[ "$(cat /sys/block/md0/size)" = "$_sz" ]
}

heal_verify() {
	r0_slice_heal 1 || return 1
	reads_same 0 1 2 3 && verify_all
}

reassemble_clean() {
	reassemble_verify || return 1
	array_state_is clean && reads_same 0 1 2 3
}

ktap_plan 26
one_case "2 members (16M, 24M)" 2 16384 24576
one_case "3 members (20M, 12M, 28M)" 3 20480 12288 28672 16384 16384
ktap_check "--grow --add: a fourth member, md0 grows by its usable size" grow_add
ktap_check "old data still verifies" verify_all
ktap_check "4 members: /proc/mdstat, --detail, Array Size" grown_status
ktap_check "4 members: blocks land right, data over the new geometry verifies" \
	grown_data
ktap_check "4 members: stop, assemble, everything verifies" reassemble_verify
ktap_check "no sync_action: nothing to check on linear" no_sync_action
ktap_check "first block of every member remembered" snap 0 1 2 3
ktap_check "member 1 fails every I/O" r0_slice_fail 1
ktap_check "reading a block on member 1 fails" reads_fail 1
ktap_check "blocks on members 0, 2 and 3 read back as written" reads_same 0 2 3
ktap_check "writing a block on member 1 fails" writes_fail 1
ktap_check "array still running: array_state clean" array_state_is clean
ktap_check "member 1 works again: everything verifies" heal_verify
ktap_check "mdadm --add (not --grow): refused, still 4 members" plain_add_refused
ktap_check "mdadm --fail: refused, array broken: writes fail, reads work" \
	r0_fail_broken s1 0 1 2 3
ktap_check "stop, assemble: array clean, everything verifies" reassemble_clean
r0_teardown
ktap_finish
