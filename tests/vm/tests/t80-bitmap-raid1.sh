#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 900
# SLOW: bitmap layout at 4 MiB and 64 MiB chunks both ways with in-tree md, about 3-4 min per implementation (TCG)
#
# Internal write-intent bitmap on raid1 (issue 14, acceptance 1 and 2).
#
# For bitmap chunks of 4 MiB and 64 MiB, on $IMPL:
#   - mdadm --create --bitmap=internal, initial resync;
#   - /proc/mdstat shows the "bitmap: ... <chunk>KB chunk" line,
#     --detail says "Intent Bitmap : Internal", --examine-bitmap of both
#     members shows the magic, version 4, the chunk size and state OK;
#   - fio writes and verifies; left idle, the bits are cleared lazily
#     (0 dirty on disk on both members);
#   - one direct 1 MiB write: its chunk's bit is on disk on both members
#     as soon as the write returned; idle again, it is cleared.
# Compatibility both ways: an array with a bitmap made by one
# implementation is assembled, written (fio) and stopped by the other,
# then assembled by the maker again: bitmap state OK with the array's
# events, "check" finds mismatch_cnt 0, fio verifies.
. /harness/lib.sh

MD=/dev/md0
impl=${IMPL:?}
partner=intree		# for IMPL=intree: itself, reloaded

# create CHUNK: a two-disk raid1 with an internal bitmap, resynced.
create() {
	mdadm --create $MD --run --level=1 --raid-devices=2 --metadata=1.2 \
		--bitmap=internal --bitmap-chunk="$1" --size=98304 \
		/dev/ram0 /dev/ram1 || return 1
	wait_resync md0 300
}

# layout CHUNK_KIB MB_TEXT: what mdstat, --detail and -X report.
layout() {
	cat /proc/mdstat
	mdstat_array md0 | grep -q "bitmap: .*, $1KB chunk" ||
		{ echo "no bitmap line with $1KB chunk"; return 1; }
	_ib=$(mdadm --detail $MD | md_field "Intent Bitmap")
	[ "$_ib" = Internal ] || { echo "Intent Bitmap: '$_ib'"; return 1; }
	for _r in ram0 ram1; do
		mdadm --examine-bitmap /dev/$_r
		[ "$(bitmap_field /dev/$_r Magic)" = 6d746962 ] || return 1
		[ "$(bitmap_field /dev/$_r Version)" = 4 ] || return 1
		[ "$(bitmap_field /dev/$_r Chunksize)" = "$2" ] || return 1
		[ "$(bitmap_field /dev/$_r State)" = OK ] || return 1
	done
}

# one_write: a direct 1 MiB write at 40 MiB; its chunk dirty at once.
one_write() {
	wait_bitmap_dirty 0 /dev/ram0 /dev/ram1 || return 1
	dd if=/dev/urandom of=$MD bs=1M seek=40 count=1 oflag=direct \
		2>/dev/null || return 1
	_d0=$(bitmap_dirty /dev/ram0)
	_d1=$(bitmap_dirty /dev/ram1)
	echo "right after the write: ram0 $_d0 dirty, ram1 $_d1 dirty"
	[ "$_d0" -ge 1 ] && [ "$_d0" -le 2 ] && [ "$_d1" -ge 1 ] &&
		[ "$_d1" -le 2 ] || return 1
	wait_bitmap_dirty 0 /dev/ram0 /dev/ram1
}

# compat MAKER USER
compat() {
	switch_impl "$1" || return 1
	create 4M || return 1
	fio_write_verify $MD 32M > /tmp/fio.out 2>&1 ||
		{ cat /tmp/fio.out; return 1; }
	mdadm --stop $MD || return 1

	switch_impl "$2" || return 1
	mdadm --assemble $MD /dev/ram0 /dev/ram1 || return 1
	cat /proc/mdstat
	fio_verify_only $MD 32M > /tmp/fio.out 2>&1 ||
		{ cat /tmp/fio.out; return 1; }
	fio_write_verify $MD 32M --randseed=99 > /tmp/fio.out 2>&1 ||
		{ cat /tmp/fio.out; return 1; }
	mdadm --stop $MD || return 1

	switch_impl "$1" || return 1
	mdadm --assemble $MD /dev/ram0 /dev/ram1 || return 1
	for _r in ram0 ram1; do
		[ "$(bitmap_field /dev/$_r State)" = OK ] ||
			{ mdadm --examine-bitmap /dev/$_r; return 1; }
	done
	_ev=$(mdadm --examine /dev/ram0 | md_field Events)
	_bev=$(bitmap_field /dev/ram0 Events)
	echo "superblock events $_ev, bitmap events $_bev"
	[ "$_bev" -ge "$_ev" ] || return 1
	md_check_clean md0 300 || return 1
	fio_verify_only $MD 32M --randseed=99 > /tmp/fio.out 2>&1 ||
		{ cat /tmp/fio.out; return 1; }
	mdadm --stop $MD
}

wipe() { mdadm --zero-superblock /dev/ram0 /dev/ram1 2>/dev/null; true; }

ktap_plan 14
ktap_diag "implementation under test: $impl, partner: $partner"
ktap_check "brd: two 128 MiB RAM disks" brd_setup 2 131072

for c in 4:4096:"4 MB" 64:65536:"64 MB"; do
	mib=${c%%:*}
	rest=${c#*:}
	kib=${rest%%:*}
	text=${rest#*:}
	wipe
	ktap_check "${mib}M chunk: create with --bitmap=internal" create "${mib}M"
	ktap_check "${mib}M chunk: mdstat, --detail, --examine-bitmap" layout "$kib" "$text"
	ktap_check "${mib}M chunk: fio write+verify" sh -c \
		". /harness/lib.sh; fio_write_verify $MD 32M > /tmp/fio.out 2>&1 || { cat /tmp/fio.out; exit 1; }"
	ktap_check "${mib}M chunk: a write's bit is on disk at once, cleared when idle" one_write
	ktap_check "${mib}M chunk: stop" mdadm --stop $MD
done

wipe
ktap_check "made by $impl, used by $partner, back: consistent" compat "$impl" $partner
wipe
ktap_check "made by $partner, used by $impl, back: consistent" compat $partner "$impl"

md_stop_all
ktap_check "back to $impl" switch_impl "$impl"
brd_teardown
ktap_finish
