#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 1800
# SLOW: RAID10 handed over both ways with in-tree md, eleven layouts (two with 0.90 superblocks), with resync, check and recovery on each side, about 6 min per implementation (TCG)
#
# On-disk compatibility of RAID10 arrays between the implementation
# under test and in-tree md (for IMPL=intree: in-tree again, unloaded
# and reloaded, which proves the test), both ways.  The maker creates
# the array (its initial resync runs to the end) and writes fio crc32c
# data over the first half of the array and 64 KiB at its last sector
# (set 1).  The taker assembles it: the same size, set 1 verifies, a
# check pass finds mismatch_cnt 0, it writes set 2 over the second half;
# then it fails member 0, removes it, wipes it and adds it back blank,
# and its recovery rebuilds the member.  The maker assembles the array
# again: both sets verify and its own check finds mismatch_cnt 0.  A
# difference in where either side puts a copy, in the array or member
# size it derives, or in what recovery writes where fails a verify or a
# check.  Some cases carry an internal bitmap, whose size the two sides
# must agree on too; two have 0.90 superblocks (at the members' end).
. /harness/lib.sh
. /harness/tests/raid10/common.sh

impl=${IMPL:?}
partner=intree		# for IMPL=intree: itself, reloaded
MD=$R10_MD
LAY='' N='' CHUNK='' BITMAP='' SECTORS='' DEVS=''

assemble() {
	# shellcheck disable=SC2086
	mdadm --assemble $MD $DEVS || return 1
	mdstat_array md0
}

# data SET write|verify: set 1 the first half (and the last 64 KiB),
# set 2 the second half but that
data() {
	_b=$((SECTORS * 512)) _half=$((SECTORS * 256))
	_off=0 _len=$_half
	[ "$1" = 2 ] && _off=$_half _len=$((_b - _half - 65536))
	if [ "$2" = write ]; then
		fio_write_verify $MD "$_len" --offset="$_off" --number_ios=2048 \
			> /tmp/fio.out 2>&1
		fio_log_ok $? || return 1
		[ "$1" = 2 ] && return 0
		dd if=/dev/urandom of=/tmp/tail bs=64k count=1 2>/dev/null &&
		dd if=/tmp/tail of=$MD bs=64k seek=$((_b / 65536 - 1)) oflag=direct 2>/dev/null
		return
	fi
	fio_verify_only $MD "$_len" --offset="$_off" --number_ios=2048 > /tmp/fio.out 2>&1
	fio_log_ok $? || return 1
	[ "$1" = 2 ] && return 0
	dd if=$MD bs=64k skip=$((_b / 65536 - 1)) count=1 iflag=direct 2>/dev/null |
		cmp - /tmp/tail
}

make_side() {
	switch_impl "$1" || return 1
	_bm=--bitmap=none
	[ "$BITMAP" = 1 ] && _bm=--bitmap=internal
	r10_create "$LAY" "$N" "$CHUNK" $_bm || return 1
	SECTORS=$(cat /sys/block/md0/size)
	data 1 write && mdadm --stop $MD
}

take_side() {
	switch_impl "$1" && assemble || return 1
	_s=$(cat /sys/block/md0/size)
	[ "$_s" = "$SECTORS" ] || { echo "md0 is $_s sectors, made as $SECTORS"; return 1; }
	data 1 verify && md_check_clean md0 120 && data 2 write || return 1
	mdadm --fail $MD /dev/ram0 && mdadm --remove $MD /dev/ram0 &&
		mdadm --zero-superblock /dev/ram0 && mdadm --add $MD /dev/ram0 || return 1
	sleep 1
	wait_resync md0 300 || return 1
	mdstat_array md0
	mdstat_array md0 | grep -q "\[$N/$N\]" && mdadm --stop $MD
}

back_side() {
	switch_impl "$1" && assemble || return 1
	data 1 verify && data 2 verify && md_check_clean md0 120 && mdadm --stop $MD
}

handover() { make_side "$1" && take_side "$2" && back_side "$1"; }

# one_case LAYOUT N CHUNK_KIB BITMAP [META]: both directions, two
# results; META the superblock version (1.2)
one_case() {
	LAY=$1 N=$2 CHUNK=$3 BITMAP=$4 R10_META=${5:-1.2}
	_w="$LAY x$N ${CHUNK}K"
	[ "$BITMAP" = 1 ] && _w="$_w bitmap"
	[ "$R10_META" != 1.2 ] && _w="$_w $R10_META"
	ktap_check "$_w: made by $impl, $partner takes it over and rebuilds a member, $impl verifies" \
		handover "$impl" $partner
	ktap_check "$_w: made by $partner, $impl takes it over and rebuilds a member, $partner verifies" \
		handover $partner "$impl"
}

ktap_plan 23
ktap_diag "implementation under test: $impl, partner: $partner"
brd_setup 5 $R10_KIB || ktap_skip_all "no RAM disks"
one_case n2 2 64 0
one_case n2 3 64 1
one_case n2 4 512 0
one_case n2 5 64 0
one_case f2 2 64 1
one_case f2 3 64 0
one_case o2 3 64 0
one_case n3 4 64 1
one_case f3 4 64 0
one_case n2 4 64 0 0.90
one_case f2 3 64 1 0.90
md_stop_all
ktap_check "back to $impl" switch_impl "$impl"
brd_teardown
ktap_finish
