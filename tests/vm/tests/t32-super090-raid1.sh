#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 900
#
# Version-0.90 superblocks on RAID1, compatible both ways between the
# implementation under test ($IMPL) and in-tree md (for IMPL=intree:
# in-tree again, unloaded and reloaded, which proves the test):
#   - one side creates a 0.90 RAID1 with two mirrors and a spare,
#     resyncs, writes crc32c-checked data and stops; the other side
#     assembles it whole (spare included), verifies, checks (mismatch_cnt
#     0) and stops; mdadm --examine of every member must then read as the
#     maker left it, apart from update time, events and checksum (so the
#     disk table, this_disk, state and counts are written alike);
#   - one side fails a mirror, lets the spare rebuild into its slot and
#     removes the failed one; the other assembles the survivors whole,
#     verifies and checks; --examine must show the spare's new role as
#     the maker's side wrote it;
#   - a 0.90 superblock with a bad checksum, or with the magic of the
#     other byte order, is refused when written to new_dev (the kernel
#     log names the member; on fork also why), and mdadm --assemble
#     leaves such a member out.
. /harness/lib.sh

impl=${IMPL:?}
partner=intree		# for IMPL=intree: itself, reloaded
MD=/dev/md0
FIO_SIZE=24M
DISK_KIB=65536
# 0.90: MD_NEW_SIZE_SECTORS(131072) = 131072 - 128 sectors
SB=$(( (DISK_KIB * 2 - 128) * 512 ))

# examine_norm DEV: mdadm --examine without what every update changes.
examine_norm() {
	mdadm --examine "$1" | grep -Ev 'Update Time|Checksum|Events|^ *$'
}

note_sbs() { # SUFFIX DEV...
	_s=$1
	shift
	for _d in "$@"; do
		examine_norm "$_d" > "/tmp/ex$_s.${_d#/dev/}" || return 1
	done
}

same_sbs() { # DEV...
	for _d in "$@"; do
		_n=${_d#/dev/}
		examine_norm "$_d" > "/tmp/ex2.$_n" || return 1
		if ! diff "/tmp/ex1.$_n" "/tmp/ex2.$_n"; then
			echo "$_n: superblock differs beyond time/events/checksum"
			return 1
		fi
	done
}

wipe() {
	mdadm --zero-superblock /dev/ram0 /dev/ram1 /dev/ram2 /dev/ram3 2>/dev/null
	true
}

# whole ACTIVE SPARES: the running array has no missing mirror, ACTIVE
# working mirrors and SPARES spares.
whole() {
	cat /proc/mdstat
	_d=$(cat /sys/block/md0/md/degraded)
	[ "$_d" = 0 ] || { echo "degraded $_d"; return 1; }
	_a=$(mdadm --detail $MD | md_field 'Active Devices')
	_s=$(mdadm --detail $MD | md_field 'Spare Devices')
	[ "$_a" = "$1" ] && [ "$_s" = "$2" ] ||
		{ echo "active $_a spare $_s, want $1 and $2"; return 1; }
	grep -q '^md0 .* super' /proc/mdstat &&
		{ echo "0.90 is unnamed in /proc/mdstat"; return 1; }
	[ "$(cat /sys/block/md0/md/metadata_version)" = 0.90 ]
}

# make_array MAKER: 0.90 RAID1, two mirrors and a spare, data, stop.
make_array() {
	switch_impl "$1" || return 1
	wipe
	mdadm --create $MD --run --metadata=0.90 --level=1 --raid-devices=2 \
		--spare-devices=1 /dev/ram0 /dev/ram1 /dev/ram2 || return 1
	wait_resync md0 300 || return 1
	whole 2 1 || return 1
	fio_write_verify $MD $FIO_SIZE > /tmp/fio.out 2>&1
	fio_log_ok $? || return 1
	mdadm --stop $MD || return 1
	note_sbs 1 /dev/ram0 /dev/ram1 /dev/ram2
}

# use_array USER: assemble all three, verify, check, compare.
use_array() {
	switch_impl "$1" || return 1
	mdadm --assemble $MD /dev/ram0 /dev/ram1 /dev/ram2 || return 1
	whole 2 1 || return 1
	fio_verify_only $MD $FIO_SIZE > /tmp/fio.out 2>&1
	fio_log_ok $? || return 1
	md_check_clean md0 300 || return 1
	mdadm --stop $MD || return 1
	same_sbs /dev/ram0 /dev/ram1 /dev/ram2
}

# rebuild MAKER USER: MAKER fails ram1, the spare ram2 takes its slot,
# ram1 is removed; USER assembles ram0 + ram2.
rebuild() {
	make_array "$1" || return 1
	mdadm --assemble $MD /dev/ram0 /dev/ram1 /dev/ram2 || return 1
	mdadm $MD --fail /dev/ram1 || return 1
	sleep 1
	wait_resync md0 300 || return 1
	mdadm $MD --remove /dev/ram1 || return 1
	whole 2 0 || return 1
	mdadm --stop $MD || return 1
	note_sbs 1 /dev/ram0 /dev/ram2
	grep -q 'this .* active sync' /tmp/ex1.ram2 ||
		{ cat /tmp/ex1.ram2; echo "ram2 not recorded active"; return 1; }

	switch_impl "$2" || return 1
	mdadm --assemble $MD /dev/ram0 /dev/ram2 || return 1
	whole 2 0 || return 1
	fio_verify_only $MD $FIO_SIZE > /tmp/fio.out 2>&1
	fio_log_ok $? || return 1
	md_check_clean md0 300 || return 1
	mdadm --stop $MD || return 1
	same_sbs /dev/ram0 /dev/ram2
}

# refused OFFSET VALUE WHY: ram1's 0.90 superblock with the u32 at
# OFFSET set to VALUE must be refused through new_dev (the kernel log
# names ram1; on fork it says WHY) and left out by mdadm --assemble.
refused() {
	_old=$(get32 /dev/ram1 $((SB + $1)))
	put32 /dev/ram1 $((SB + $1)) "$2"
	_rc=0
	dmesg -C
	_mm=$(cat /sys/class/block/ram1/dev)
	echo md0 > /sys/module/md_mod/parameters/new_array 2>/dev/null
	echo 0.90 > /sys/block/md0/md/metadata_version || _rc=1
	if [ $_rc = 0 ] && echo "$_mm" > /sys/block/md0/md/new_dev 2>/dev/null; then
		echo "new_dev took ram1"
		_rc=1
	fi
	dmesg | grep ram1 || { echo "no kernel message names ram1"; _rc=1; }
	if [ "$impl" = fork ] && ! dmesg | grep -q "ram1: .*$3"; then
		echo "fork: no reason '$3' given"
		_rc=1
	fi
	echo clear > /sys/block/md0/md/array_state 2>/dev/null
	md_stop_all
	mdadm --assemble --run $MD /dev/ram0 /dev/ram1 > /tmp/as.out 2>&1
	cat /tmp/as.out
	if grep -q '\[UU\]' /proc/mdstat; then
		echo "assembled with the damaged ram1"
		_rc=1
	fi
	md_stop_all
	put32 /dev/ram1 $((SB + $1)) "$_old"
	return $_rc
}

# refuse_cases: make a 0.90 array, damage ram1 two ways, restore.
refuse_cases() {
	switch_impl "$impl" || return 1
	wipe
	mdadm --create $MD --run --metadata=0.90 --level=1 --raid-devices=2 \
		--assume-clean /dev/ram0 /dev/ram1 || return 1
	mdadm --stop $MD || return 1
	_bad=0
	# sb_csum: word 38 (generic state word 6)
	_c=$(get32 /dev/ram1 $((SB + 152)))
	refused 152 $(( (_c + 1) % 4294967296 )) "checksum" || _bad=1
	# the magic as the other byte order writes it
	refused 0 $((0xfc4e2ba9)) "magic" || _bad=1
	mdadm --assemble $MD /dev/ram0 /dev/ram1 || return 1
	cat /proc/mdstat
	grep -q '\[UU\]' /proc/mdstat || { echo "restored ram1 not taken"; _bad=1; }
	mdadm --stop $MD
	return $_bad
}

handoff() { make_array "$1" && use_array "$2"; }

ktap_plan 7
ktap_diag "implementation under test: $impl, partner: $partner"
ktap_check "brd: four 64 MiB RAM disks" brd_setup 4 $DISK_KIB
ktap_check "made by $impl, $partner assembles it whole, data, check 0, sb kept" \
	handoff "$impl" $partner
ktap_check "made by $partner, $impl assembles it whole, data, check 0, sb kept" \
	handoff $partner "$impl"
ktap_check "spare rebuilt by $impl, $partner assembles the result" \
	rebuild "$impl" $partner
ktap_check "spare rebuilt by $partner, $impl assembles the result" \
	rebuild $partner "$impl"
ktap_check "$impl refuses a bad checksum and a foreign magic" refuse_cases
md_stop_all
ktap_check "back to $impl" switch_impl "$impl"
brd_teardown
ktap_finish
