#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 600
# SLOW: the bitmap through --grow --size, about 30 s per implementation (TCG); mdadm's 05r1-grow-internal covers it on RAID1
#
# mdadm --grow --bitmap=internal and --bitmap=none on a running raid1
# while fio writes (issue 14, acceptance 5): the bitmap appears (mdstat
# line, --detail, magic on both members), goes away, comes back; fio's
# verify pass finds every block as written and "check" finds the
# mirrors identical.  With the bitmap on, md/component_size beyond the
# members' room is ENOSPC (the room is checked before the bitmap), the
# size unchanged.  Then --grow --size=max with a bitmap that has to
# take a larger chunk to fit (in-tree resizes its bitmap the same way),
# and in-tree md reading the resized bitmap.
. /harness/lib.sh

MD=/dev/md0

has_bitmap() {
	mdstat_array md0 | grep -q 'bitmap:' &&
		[ "$(mdadm --detail $MD | md_field 'Intent Bitmap')" = Internal ] ||
		return 1
	for _r in ram0 ram1; do
		echo 3 > /proc/sys/vm/drop_caches
		[ "$(mdadm --examine-bitmap /dev/$_r | md_field Magic)" = 6d746962 ] ||
			return 1
	done
}

no_bitmap() {
	! mdstat_array md0 | grep -q 'bitmap:' &&
		[ "$(cat /sys/block/md0/md/bitmap/location)" = none ]
}

grow_under_load() {
	mdadm --create $MD --run --level=1 --raid-devices=2 --metadata=1.2 \
		--bitmap=none --size=98304 /dev/ram0 /dev/ram1 || return 1
	wait_resync md0 300 || return 1
	fio_write_verify $MD 64M > /tmp/fio.out 2>&1 &
	_pid=$!
	sleep 2
	mdadm --grow $MD --bitmap=internal || { wait $_pid; return 1; }
	cat /proc/mdstat
	has_bitmap || { echo "no bitmap after --grow --bitmap=internal"; wait $_pid; return 1; }
	sleep 3
	mdadm --grow $MD --bitmap=none || { wait $_pid; return 1; }
	no_bitmap || { echo "bitmap left after --bitmap=none"; wait $_pid; return 1; }
	sleep 2
	mdadm --grow $MD --bitmap=internal || { wait $_pid; return 1; }
	has_bitmap || { wait $_pid; return 1; }
	wait $_pid
	fio_log_ok $? || return 1
	md_check_clean md0 300 || return 1
	mdadm --stop $MD || return 1
	mdadm --assemble $MD /dev/ram0 /dev/ram1 || return 1
	has_bitmap || return 1
	fio_verify_only $MD 64M > /tmp/fio.out 2>&1 ||
		{ cat /tmp/fio.out; return 1; }
}

# examine-bitmap fields of ram0 as numbers: sync size (KiB), chunk (KiB),
# bits
bitmap_geom() {
	echo 3 > /proc/sys/vm/drop_caches
	mdadm --examine-bitmap /dev/ram0 > /tmp/xb || return 1
	_sync=$(md_field 'Sync Size' < /tmp/xb | cut -d' ' -f1)
	_chunk=$(md_field Chunksize < /tmp/xb)
	case "$_chunk" in
	*KB) _chunk=${_chunk% KB} ;;
	*MB) _chunk=$((${_chunk% MB} * 1024)) ;;
	*) echo "chunk size '$_chunk'"; return 1 ;;
	esac
	_bits=$(md_field Bitmap < /tmp/xb | cut -d' ' -f1)
	_off=$(mdadm --examine /dev/ram0 | md_field 'Internal Bitmap')
	echo "bitmap: sync $_sync KiB, chunk $_chunk KiB, $_bits bits, at $_off"
}

# --grow --size=max with an internal bitmap whose bits no longer fit
# its space: a 1.0 superblock leaves 4 KiB for the bitmap on devices
# this small, 4 KiB chunks over 96 MiB need 3 KiB of bits, over the
# whole device more than 4 KiB.  As in-tree, the grow succeeds with a
# larger chunk; the bitmap covers the new size, the new part is
# resynced, the mirrors agree and the data verifies after a restart.
grow_size_with_bitmap() {
	mdadm --stop $MD
	mdadm --zero-superblock /dev/ram0 /dev/ram1 2>/dev/null
	mdadm --create $MD --run --level=1 --raid-devices=2 --metadata=1.0 \
		--bitmap=internal --bitmap-chunk=4 --size=98304 \
		/dev/ram0 /dev/ram1 || return 1
	wait_resync md0 300 || return 1
	bitmap_geom || return 1
	[ "$_sync" = 98304 ] && [ "$_chunk" = 4 ] ||
		{ echo "unexpected bitmap before the grow"; return 1; }
	fio_write_verify $MD 64M > /tmp/fio.out 2>&1 &
	_pid=$!
	sleep 2
	mdadm --grow $MD --size=max || { wait $_pid; return 1; }
	wait $_pid
	fio_log_ok $? || return 1
	_size=$(cat /sys/block/md0/md/component_size)
	[ "$_size" -gt 98304 ] || { echo "component_size $_size"; return 1; }
	wait_resync md0 300 || return 1
	bitmap_geom || return 1
	[ "$_sync" = "$_size" ] ||
		{ echo "bitmap sync size $_sync, component size $_size"; return 1; }
	[ "$_chunk" -gt 4 ] && [ $((_bits * _chunk)) -ge "$_size" ] ||
		{ echo "the bitmap does not cover $_size KiB"; return 1; }
	md_check_clean md0 300 || return 1
	mdadm --stop $MD || return 1
	mdadm --assemble $MD /dev/ram0 /dev/ram1 || return 1
	has_bitmap || return 1
	fio_verify_only $MD 64M > /tmp/fio.out 2>&1 ||
		{ cat /tmp/fio.out; return 1; }
}

# The resized bitmap read by in-tree md (for IMPL=intree: itself,
# reloaded): assembles with the chunk size the resize chose, the data
# verifies, the mirrors agree; then back to the implementation under test.
resized_in_intree() {
	_want=$_chunk
	mdadm --stop $MD || return 1
	switch_impl intree || return 1
	mdadm --assemble $MD /dev/ram0 /dev/ram1 || return 1
	has_bitmap || return 1
	bitmap_geom || return 1
	[ "$_chunk" = "$_want" ] ||
		{ echo "chunk $_chunk KiB, was $_want"; return 1; }
	fio_verify_only $MD 64M > /tmp/fio.out 2>&1 ||
		{ cat /tmp/fio.out; return 1; }
	md_check_clean md0 300 || return 1
	mdadm --stop $MD || return 1
	switch_impl "$IMPL"
}

ktap_plan 5
ktap_check "brd: two 128 MiB RAM disks" brd_setup 2 131072
ktap_check "grow --bitmap internal/none/internal under fio, data verifies" grow_under_load
ktap_check "with the bitmap, component_size beyond the members: ENOSPC, unchanged" \
	sysfs_expect_errno 28 /sys/block/md0/md/component_size 1048576
ktap_check "grow --size=max past the bitmap's space: larger chunk, covered, verifies" \
	grow_size_with_bitmap
ktap_check "the resized bitmap read by in-tree md: verifies, mirrors agree" \
	resized_in_intree
mdadm --stop $MD
brd_teardown
ktap_finish
