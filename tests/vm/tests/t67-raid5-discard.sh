#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 300
#
# Discard on RAID5 and RAID6 (issue 35), both implementations, the same
# assertions (documented behaviour of raid456's devices_handle_discard_
# safely parameter: discard only when the admin vouches that members read
# zeroes from what they discarded, and only whole stripes of data):
#  - with the parameter N (the default) the array offers no discard
#    (queue/discard_max_bytes 0) and blkdiscard on it fails;
#  - with it Y, on null_blk members that discard, it does;
#  - a discard that starts and ends inside rows zeroes exactly the whole
#    rows between, and leaves every other byte as written;
#  - the members took discards, not writes of zeroes, for those rows
#    (their discard sector counts in /sys/block/*/stat grew by at least
#    the rows' share of each member);
#  - a check then finds parity consistent (mismatch_cnt 0);
#  - with a member failed, the degraded array reads the same bytes:
#    parity of the discarded rows rebuilds zeroes;
#  - a discard of whole rows on the degraded array, then the member
#    added back and rebuilt: the array reads what it read before the
#    rebuild (whatever the discard left, it does not change by itself)
#    and a check finds parity consistent.
# The rows are a power of two (two data members, 64 KiB chunks: 128
# KiB), the granularity both stacks use, so the block layer's splits of
# a discard fall between rows on both.
. /harness/lib.sh

MD=/dev/md0
PARAM=/sys/module/raid456/parameters/devices_handle_discard_safely
CHUNK_KIB=64
ROW_KIB=128
FILL_MIB=8
# discard from 1 row + 40 KiB for 20 rows: rows 2..20 are whole
D_OFF=$(((ROW_KIB + 40) * 1024))
D_LEN=$((20 * ROW_KIB * 1024))
Z_FIRST=$((2 * ROW_KIB * 1024))
Z_END=$((21 * ROW_KIB * 1024))

setup_members() { # NR
	NULLB_DISCARD=1 nullb_setup "$1" 64 1000 10
}

param_set() { echo "$1" > $PARAM && echo "parameter: $(cat $PARAM)"; }

create() { # LEVEL NR
	# shellcheck disable=SC2086
	mdadm --create $MD --run --level="$1" --raid-devices="$2" \
		--chunk=$CHUNK_KIB --metadata=1.2 $NULLB_DEVS &&
	wait_resync md0 120
}

dmax() { cat /sys/block/md0/queue/discard_max_bytes; }

offers_none() { echo "discard_max_bytes $(dmax)"; [ "$(dmax)" = 0 ]; }

offers() {
	echo "discard_max_bytes $(dmax), granularity $(cat /sys/block/md0/queue/discard_granularity)"
	[ "$(dmax)" -gt 0 ]
}

refused() {
	if blkdiscard -o 0 -l $((ROW_KIB * 1024)) $MD; then
		echo "blkdiscard succeeded"
		return 1
	fi
	return 0
}

fill() {
	dd if=/dev/urandom of=/tmp/t67.img bs=1M count=$FILL_MIB 2>/dev/null &&
	dd if=/tmp/t67.img of=$MD bs=1M oflag=direct 2>/dev/null
}

# member_discards: the sum of the members' discarded sectors
member_discards() {
	_sum=0
	for _dv in $NULLB_DEVS; do
		_dsc=$(awk '{ print $14 }' "/sys/block/${_dv#/dev/}/stat")
		_sum=$((_sum + _dsc))
	done
	echo $_sum
}

do_discard() {
	T67_BEFORE=$(member_discards)
	blkdiscard -o $D_OFF -l $D_LEN $MD
}

# expected image: the fill with the whole rows zeroed
expect_img() {
	cp /tmp/t67.img /tmp/t67.want &&
	dd if=/dev/zero of=/tmp/t67.want bs=1024 seek=$((Z_FIRST / 1024)) \
		count=$(((Z_END - Z_FIRST) / 1024)) conv=notrunc 2>/dev/null
}

reads_expected() {
	dd if=$MD bs=1M count=$FILL_MIB iflag=direct 2>/dev/null > /tmp/t67.got
	cmp /tmp/t67.got /tmp/t67.want && return 0
	cmp -l /tmp/t67.got /tmp/t67.want | awk '
		NR == 1 { print "first difference at byte " $1 - 1 }
		END { print NR " bytes differ" }'
	return 1
}

# every member discarded its share of the whole rows: NR members, each
# holds (rows x chunk) of them, data or parity
members_discarded() { # NR
	_got=$(($(member_discards) - T67_BEFORE))
	_rows=$(((Z_END - Z_FIRST) / (ROW_KIB * 1024)))
	_want=$(($1 * _rows * CHUNK_KIB * 2))
	echo "member sectors discarded: $_got (at least $_want)"
	[ "$_got" -ge "$_want" ]
}

fail_one() {
	set -- $NULLB_DEVS
	mdadm $MD --fail "$1" && sleep 1 &&
	echo "degraded: $(cat /sys/block/md0/md/degraded)" &&
	[ "$(cat /sys/block/md0/md/degraded)" = 1 ]
}

# rows 30..39, whole, on the degraded array; what md0 reads afterwards
degraded_discard() {
	blkdiscard -o $((30 * ROW_KIB * 1024)) -l $((10 * ROW_KIB * 1024)) \
		$MD &&
	dd if=$MD bs=1M count=$FILL_MIB iflag=direct 2>/dev/null > /tmp/t67.want
}

# the failed member back as a new one, rebuilt
rebuild_one() {
	set -- $NULLB_DEVS
	mdadm $MD --remove "$1" && mdadm --zero-superblock "$1" &&
	mdadm $MD --add "$1" && sleep 1 && wait_resync md0 120 &&
	echo "degraded: $(cat /sys/block/md0/md/degraded)" &&
	[ "$(cat /sys/block/md0/md/degraded)" = 0 ]
}

one_level() { # LEVEL NR
	ktap_check "RAID$1: $2 null_blk members that discard" setup_members "$2" ||
		return 1
	ktap_check "RAID$1: parameter N" param_set N
	ktap_check "RAID$1: mdadm --create, resync" create "$1" "$2"
	ktap_check "RAID$1: parameter N: no discard offered" offers_none
	ktap_check "RAID$1: parameter N: blkdiscard fails" refused
	mdadm --stop $MD >/dev/null 2>&1
	# shellcheck disable=SC2086
	mdadm --zero-superblock $NULLB_DEVS
	ktap_check "RAID$1: parameter Y" param_set Y
	ktap_check "RAID$1: mdadm --create, resync" create "$1" "$2"
	ktap_check "RAID$1: parameter Y: discard offered" offers
	ktap_check "RAID$1: fill $FILL_MIB MiB" fill
	ktap_check "RAID$1: blkdiscard inside rows" do_discard
	expect_img
	ktap_check "RAID$1: whole rows read zero, the rest as written" \
		reads_expected
	ktap_check "RAID$1: the members discarded those rows" \
		members_discarded "$2"
	ktap_check "RAID$1: check finds parity consistent" md_check_clean md0 120
	ktap_check "RAID$1: one member failed" fail_one
	ktap_check "RAID$1: degraded reads the same" reads_expected
	ktap_check "RAID$1: degraded: blkdiscard of whole rows" degraded_discard
	ktap_check "RAID$1: member added back, rebuilt" rebuild_one
	ktap_check "RAID$1: reads as before the rebuild" reads_expected
	ktap_check "RAID$1: check finds parity consistent" md_check_clean md0 120
	mdadm --stop $MD >/dev/null 2>&1
	param_set N >/dev/null
	nullb_teardown
}

ktap_plan 38
one_level 5 3
one_level 6 4
rm -f /tmp/t67.img /tmp/t67.want /tmp/t67.got
ktap_finish
