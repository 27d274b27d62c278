#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 900
# SLOW: RAID5 and RAID6 with 0.90 superblocks both ways with in-tree md, about 4-6 min per implementation (TCG)
#
# Version-0.90 superblocks on RAID5 and RAID6, compatible both ways
# between the implementation under test ($IMPL) and in-tree md (for
# IMPL=intree: in-tree again, unloaded and reloaded, which proves the
# test):
#   - one side creates a 0.90 array (RAID5 on four members, RAID6 on
#     five), lets the initial sync finish and writes crc32c-checked
#     data; the other side assembles it whole, verifies the data and
#     runs check (mismatch_cnt 0); mdadm --examine of every member must
#     then read as the maker left it, apart from update time, events and
#     checksum;
#   - one side fails a RAID5 member and stops the degraded array; the
#     other assembles it degraded (the failed member left out by the
#     superblocks, not by the command line), reads the data back through
#     parity, then rebuilds the member and checks.
. /harness/lib.sh
. /harness/tests/raid5/common.sh

impl=${IMPL:?}
partner=intree		# for IMPL=intree: itself, reloaded

examine_norm() {
	mdadm --examine "$1" | grep -Ev 'Update Time|Checksum|Events|^ *$'
}

wipe() {
	# shellcheck disable=SC2046
	mdadm --zero-superblock $(r5_members 5) 2>/dev/null
	true
}

# make090 MAKER LEVEL DISKS: create 0.90, sync, data, stop, note sbs.
make090() {
	switch_impl "$1" || return 1
	wipe
	# shellcheck disable=SC2046
	mdadm --create $R5_MD --run --metadata=0.90 --level="$2" \
		--raid-devices="$3" --chunk=64 $(r5_members "$3") || return 1
	wait_resync md0 600 || return 1
	cat /proc/mdstat
	[ "$(cat /sys/block/md0/md/metadata_version)" = 0.90 ] || return 1
	r5_data write || return 1
	mdadm --stop $R5_MD || return 1
	for _d in $(r5_members "$3"); do
		examine_norm "$_d" > "/tmp/ex1.${_d#/dev/}" || return 1
	done
}

# take090 USER DISKS: assemble whole, verify, check, stop, compare sbs.
take090() {
	r5_take "$1" "$2" || return 1
	for _d in $(r5_members "$2"); do
		_n=${_d#/dev/}
		examine_norm "$_d" > "/tmp/ex2.$_n" || return 1
		if ! diff "/tmp/ex1.$_n" "/tmp/ex2.$_n"; then
			echo "$_n: superblock differs beyond time/events/checksum"
			return 1
		fi
	done
}

handoff() { make090 "$1" "$3" "$4" && take090 "$2" "$4"; }

# degraded MAKER USER: MAKER fails ram2 of a 4-member RAID5, rewrites the
# data degraded and stops;
# USER assembles all four names, must leave ram2 out, reads through
# parity, re-adds ram2, rebuilds, checks.
degraded() {
	make090 "$1" 5 4 || return 1
	# shellcheck disable=SC2046
	mdadm --assemble $R5_MD $(r5_members 4) || return 1
	mdadm $R5_MD --fail /dev/ram2 || return 1
	# Write after the failure: the array goes dirty and clean again, so
	# ram2's events end at least two behind.  A member failed with no
	# write after it can be only one behind when the stop comes before
	# the md thread's second superblock update, and mdadm takes a
	# member one event behind back in sync by design (both
	# implementations; seen once).
	r5_data write || return 1
	r5_data verify || return 1
	mdadm --stop $R5_MD || return 1

	switch_impl "$2" || return 1
	# shellcheck disable=SC2046
	mdadm --assemble --run $R5_MD $(r5_members 4)
	cat /proc/mdstat
	_d=$(cat /sys/block/md0/md/degraded 2>/dev/null)
	[ "$_d" = 1 ] || { echo "degraded '$_d', want 1"; return 1; }
	grep -q 'ram2' /proc/mdstat && { echo "failed ram2 was taken"; return 1; }
	r5_data verify || return 1
	mdadm --zero-superblock /dev/ram2
	mdadm $R5_MD --add /dev/ram2 || return 1
	sleep 1
	wait_resync md0 600 || return 1
	_d=$(cat /sys/block/md0/md/degraded)
	[ "$_d" = 0 ] || { echo "degraded $_d after the rebuild"; return 1; }
	md_check_clean md0 600 || return 1
	r5_data verify || return 1
	mdadm --stop $R5_MD
}

ktap_plan 8
ktap_diag "implementation under test: $impl, partner: $partner"
ktap_check "brd: five 32 MiB RAM disks" brd_setup 5 32768
ktap_check "raid5 made by $impl, used by $partner" handoff "$impl" $partner 5 4
ktap_check "raid5 made by $partner, used by $impl" handoff $partner "$impl" 5 4
ktap_check "raid6 made by $impl, used by $partner" handoff "$impl" $partner 6 5
ktap_check "raid6 made by $partner, used by $impl" handoff $partner "$impl" 6 5
ktap_check "raid5 degraded by $impl, rebuilt by $partner" degraded "$impl" $partner
ktap_check "raid5 degraded by $partner, rebuilt by $impl" degraded $partner "$impl"
md_stop_all
ktap_check "back to $impl" switch_impl "$impl"
brd_teardown
ktap_finish
