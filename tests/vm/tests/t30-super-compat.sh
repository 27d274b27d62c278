#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 600
#
# On-disk compatibility of version-1 superblocks between the
# implementation under test ($IMPL) and a partner implementation loaded
# in the same boot: in-tree md when testing the fork, in-tree md again
# (unloaded and reloaded) when testing in-tree, which proves the test.
#
# For each of 1.0, 1.1, 1.2 and each direction (made by $IMPL, used by
# the partner; made by the partner, used by $IMPL):
#   - mdadm --create a two-disk RAID1, initial resync, fio write+verify;
#   - stop, switch implementation, mdadm --assemble;
#   - "check" must find mismatch_cnt 0, fio must verify;
#   - after stopping, mdadm --examine of each member must match what
#     the maker left, apart from update time, events and checksum.
# Then a rebuild interrupted half way on one implementation must resume
# from the recorded recovery_offset on the other and end consistent.
. /harness/lib.sh

MD=/dev/md0
FIO_SIZE=32M
ARRAY_KIB=65536

impl=${IMPL:?}
partner=intree		# for IMPL=intree: itself, reloaded

# examine_norm DEV: mdadm --examine without what every update changes.
examine_norm() {
	mdadm --examine "$1" | grep -Ev 'Update Time|Checksum|Events|^ *$'
}

# make_array MAKER VERSION: create, resync, write, stop, note superblocks.
make_array() {
	switch_impl "$1" || return 1
	mdadm --create $MD --run --level=1 --raid-devices=2 --metadata="$2" \
		--size=$ARRAY_KIB /dev/ram0 /dev/ram1 || return 1
	wait_resync md0 300 || return 1
	fio_write_verify $MD $FIO_SIZE > /tmp/fio.out 2>&1 ||
		{ cat /tmp/fio.out; return 1; }
	mdadm --stop $MD || return 1
	examine_norm /dev/ram0 > /tmp/ex.ram0
	examine_norm /dev/ram1 > /tmp/ex.ram1
}

# use_array USER: assemble, check, verify, stop, compare superblocks.
use_array() {
	switch_impl "$1" || return 1
	mdadm --assemble $MD /dev/ram0 /dev/ram1 || return 1
	cat /proc/mdstat
	_d=$(cat /sys/block/md0/md/degraded)
	[ "$_d" = 0 ] || { echo "degraded $_d after assemble"; return 1; }
	md_check_clean md0 300 || return 1
	fio_verify_only $MD $FIO_SIZE > /tmp/fio.out 2>&1 ||
		{ cat /tmp/fio.out; return 1; }
	mdadm --stop $MD || return 1
	for _r in ram0 ram1; do
		examine_norm /dev/$_r > /tmp/ex2.$_r
		if ! diff /tmp/ex.$_r /tmp/ex2.$_r; then
			echo "$_r superblock changed beyond time/events/checksum"
			return 1
		fi
	done
}

# rebuild_split MAKER USER: MAKER starts rebuilding ram2 into a degraded
# array and is stopped half way; USER must resume and finish it.
rebuild_split() {
	switch_impl "$1" || return 1
	mdadm --create $MD --run --level=1 --raid-devices=2 --metadata=1.2 \
		--size=$ARRAY_KIB /dev/ram0 /dev/ram1 || return 1
	wait_resync md0 300 || return 1
	fio_write_verify $MD $FIO_SIZE > /tmp/fio.out 2>&1 ||
		{ cat /tmp/fio.out; return 1; }
	mdadm $MD --fail /dev/ram1 && mdadm $MD --remove /dev/ram1 || return 1
	echo 4000 > /sys/block/md0/md/sync_speed_max || return 1
	mdadm $MD --add /dev/ram2 || return 1
	sleep 4
	cat /proc/mdstat
	mdadm --stop $MD || return 1
	_ro=$(mdadm --examine /dev/ram2 | sed -n 's/.*Recovery Offset : \([0-9]*\).*/\1/p')
	echo "ram2 recovery offset: ${_ro:-none}"
	case "$_ro" in
	''|0) echo "no partial rebuild recorded"; return 1 ;;
	esac

	switch_impl "$2" || return 1
	mdadm --assemble $MD /dev/ram0 /dev/ram2 || return 1
	_sc=$(cat /sys/block/md0/md/sync_completed)
	cat /proc/mdstat
	echo "sync_completed right after assembly: $_sc"
	case "$_sc" in
	none) ;;
	*) [ "${_sc%% *}" -ge "$_ro" ] || { echo "rebuild restarted below $_ro"; return 1; } ;;
	esac
	wait_resync md0 300 || return 1
	_d=$(cat /sys/block/md0/md/degraded)
	[ "$_d" = 0 ] || { echo "degraded $_d after rebuild"; return 1; }
	md_check_clean md0 300 || return 1
	fio_verify_only $MD $FIO_SIZE > /tmp/fio.out 2>&1 ||
		{ cat /tmp/fio.out; return 1; }
	mdadm --stop $MD
}

wipe() { mdadm --zero-superblock /dev/ram0 /dev/ram1 /dev/ram2 2>/dev/null; true; }

ktap_plan 16
ktap_diag "implementation under test: $impl, partner: $partner"
ktap_check "brd: three 128 MiB RAM disks" brd_setup 3 131072

for v in 1.0 1.1 1.2; do
	wipe
	ktap_check "$v: made by $impl" make_array "$impl" $v
	ktap_check "$v: $partner assembles, check 0, fio verifies, sb kept" \
		use_array $partner
	wipe
	ktap_check "$v: made by $partner" make_array $partner $v
	ktap_check "$v: $impl assembles, check 0, fio verifies, sb kept" \
		use_array "$impl"
done

wipe
ktap_check "rebuild started by $impl resumes on $partner" rebuild_split "$impl" $partner
wipe
ktap_check "rebuild started by $partner resumes on $impl" rebuild_split $partner "$impl"

# leave the implementation the runner loaded
md_stop_all
ktap_check "back to $impl" switch_impl "$impl"
brd_teardown
ktap_finish
