#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 900
# SLOW: device-mapper read/write faults on RAID5 and RAID6, about 2 min per implementation (TCG)
#
# Member I/O errors on RAID5 and RAID6, injected with device-mapper over
# RAM disks.  Every member dI is a dm-delay (0 ms) device whose reads go
# to table dIr and writes to table dIw (both linear over ramI), so reads
# and writes of a range can fail on their own.  The arrays have no
# bad-block log (--update=no-bbl): a failed write or a read that cannot
# be corrected then fails the member on both implementations (in-tree
# would otherwise park the range in the log).  Member sectors below are
# relative to the data offset; 64K chunks, left-symmetric, so row 0 of
# the 4-member RAID5 holds data chunk 1 on member 1 (array sector 128 +
# s), and row 0 of the 5-member RAID6 data chunks 0 and 1 on members 1
# and 2 (array sectors s and 128 + s).
#
# RAID5, 4 members:
#  - corrected read error: member 1's page at 16 is corrupted behind md's
#    back and its reads fail; writes to member 1 are held (d1w suspended)
#    while one 4 KiB O_DIRECT read of that array block goes on.  Once md
#    has issued its rewrite (a write is in flight on d1), reads are made
#    to work again and d1w resumed: the reader gets the right data, the
#    page on ram1 holds it again (rewritten from the reconstruction), the
#    read-back succeeded (member 1 in sync, its "errors" count > 0, "read
#    error corrected" in the log);
#  - uncorrectable read error: member 1's page at 64 is corrupted and its
#    reads fail for good: fio verify_only of everything passes (served by
#    reconstruction), the page on ram1 is rewritten with the right data
#    and the read-back fails.  When the member is failed differs: the
#    fork reads back at once and fails it (raid5.rst, "Errors"); in-tree
#    leaves the failed read-back on the cached stripe and decides at the
#    page's next read.  So the page is read once more (dd) before the
#    check that member 1 is failed ([4/3]); degraded writes verify;
#  - write errors (a fresh array): writes to member 2 fail over its whole
#    data area, then fio writes and verifies: member 2 is failed, fio
#    sees no error, every acknowledged block verifies.
# RAID6, 5 members: members 1 and 2 both fail reads of their page at 16
#  (the same row; both pages corrupted): fio verify_only passes (two data
#  pages rebuilt from P and Q), both pages are rewritten, both members
#  fail the read-back and (after one more read of each page, as above)
#  are failed ([5/3]); writes verify with two members missing.  Then, on
#  a fresh array, writes to members 1 and 3 fail at the same time: fio's
#  writes fail both, fio sees no error, everything verifies.
. /harness/lib.sh
. /harness/tests/raid5/common.sh

export DM_DISABLE_UDEV=1	# no udev in the guest: dmsetup makes the nodes
MD=/dev/md0

# mk_array LEVEL N: create on d0..dN-1, resync, restart without the
# bad-block log, write 8 MiB of 4k random data (verified)
mk_array() {
	# shellcheck disable=SC2046
	mdadm --zero-superblock $(r5_dm_members "$2") 2>/dev/null
	# shellcheck disable=SC2046
	mdadm --create $MD --run --level="$1" --raid-devices="$2" --chunk=64 \
		--metadata=1.2 $(r5_dm_members "$2") || return 1
	wait_resync md0 600 || return 1
	mdadm --stop $MD || return 1
	# shellcheck disable=SC2046
	mdadm --assemble $MD --update=no-bbl $(r5_dm_members "$2") || return 1
	mdadm --examine /dev/mapper/d0 | grep -q 'Bad Block Log' &&
		{ echo "bad-block log still there"; return 1; }
	cat /proc/mdstat
	r5_fio write randwrite 4k 0 8M 31
}

# corrupt I S: remember the md5 of member I's page at data sector S in
# SUM_I_S, then overwrite it on ramI behind md's back
corrupt() {
	_s=$((OFF + $2))
	_sum=$(r5_range_md5 "/dev/ram$1" $_s 8)
	eval "SUM_$1_$2=$_sum"
	dd if=/dev/urandom of="/dev/ram$1" bs=512 seek=$_s count=8 \
		conv=notrunc 2>/dev/null
	[ "$(r5_range_md5 "/dev/ram$1" $_s 8)" != "$_sum" ]
}

# restored I S: member I's page at S holds its content from before corrupt
restored() {
	_want=$(eval "echo \$SUM_$1_$2")
	_got=$(r5_range_md5 "/dev/ram$1" $((OFF + $2)) 8)
	echo "ram$1 data sector $2: $_got, want $_want"
	[ "$_got" = "$_want" ]
}

read_fails() { # I S: reads of member I's page at S fail
	drop_cache &&
	dm_swap "d${1}r" "$(lin_err "/dev/ram$1" $((OFF + $2)) 8)"
}

# wait_member_write I: a write to dI is in flight (held by suspended dIw)
wait_member_write() {
	_k=$(dm_kname "d$1")
	_n=0
	while [ "$(awk '{ print $2 }' "/sys/block/$_k/inflight")" -lt 1 ]; do
		_n=$((_n + 1))
		[ $_n -gt 300 ] && { echo "no write reached d$1"; return 1; }
		sleep 0.1
	done
	cat "/sys/block/$_k/inflight"
}

# corrected_read: case 1 (see the top); array block 18 = member 1's page
# at data sector 16
corrected_read() {
	dmsetup suspend d1w || return 1
	dd if=$MD of=/tmp/blk bs=4k skip=18 count=1 iflag=direct 2>/dev/null &
	_dd=$!
	wait_member_write 1
	_rc=$?
	dm_swap d1r "0 $SZ linear /dev/ram1 0" || _rc=1
	dmsetup resume d1w || _rc=1
	wait $_dd || { echo "read failed"; _rc=1; }
	_got=$(md5sum < /tmp/blk | cut -d' ' -f1)
	echo "read back $_got, want $SUM_1_16"
	[ "$_got" = "$SUM_1_16" ] || _rc=1
	return $_rc
}

# drop_cache: empty the stripe cache (both implementations free unused
# stripes when it shrinks), so the reads below reach the members
drop_cache() {
	echo 17 > /sys/block/md0/md/stripe_cache_size &&
	echo 256 > /sys/block/md0/md/stripe_cache_size
}

both_read_fail() { read_fails 1 16 && read_fails 2 16; }

# read_block B...: 4 KiB array block B reads (O_DIRECT) and verifies as
# one of fio's blocks
read_block() {
	for _b in "$@"; do
		dd if=$MD of=/dev/null bs=4k skip="$_b" count=1 iflag=direct ||
			return 1
	done
	r5_fio verify randwrite 4k 0 8M 31
}

errors_counted() { # KNAME
	_e=$(cat "/sys/block/md0/md/dev-$1/errors")
	echo "dev-$1/errors: $_e"
	[ "$_e" -gt 0 ]
}

# write_errors I...: writes to each member I start failing over its data
# area, then fio writes and verifies 8 MiB at 8 MiB (its first writes
# hit the failing members; swapping tables under a running fio was too
# slow under TCG to land while it still wrote)
write_errors() {
	for _i in "$@"; do
		_t=$(printf '0 %s linear /dev/ram%s 0\n%s %s error\n' "$OFF" \
			"$_i" "$OFF" $((SZ - OFF)))
		dm_swap "d${_i}w" "$_t" || return 1
	done
	r5_fio write randwrite 4k 8M 8M 7
}

ktap_plan 38
md_speed_limit 50000
ktap_check "brd: five 20 MiB RAM disks" brd_setup 5 20480
ktap_check "dm: d0..d4, reads and writes through separate tables" \
	r5_dm_setup 5

# ---- RAID5: read errors ----
ktap_check "raid5: 4 members, no bad-block log, data written" mk_array 5 4
OFF=$(mdadm --examine /dev/mapper/d1 | md_field "Data Offset" | cut -d' ' -f1)
K1=$(dm_kname d1)
K2=$(dm_kname d2)
echo "# data offset $OFF; member 1 is $K1, member 2 is $K2"
dmesg -c > /dev/null
ktap_check "raid5: member 1 page 16 corrupted behind md's back" corrupt 1 16
ktap_check "raid5: its reads fail, writes held" read_fails 1 16
ktap_check "raid5: read served, rewrite issued, then reads work again" \
	corrected_read
ktap_check "raid5: page rewritten with the reconstructed data" restored 1 16
ktap_check "raid5: member 1 still in_sync, [4/4]" sh -c "
	. /harness/lib.sh; md_member_state $K1 in_sync &&
	md_array_as '[4/4] [UUUU]' 0"
ktap_check "raid5: member 1 errors count the corrected read" \
	errors_counted "$K1"
ktap_check "raid5: kernel log: read error corrected" \
	sh -c "dmesg | grep 'read error corrected'"
dmesg -c > /dev/null
ktap_check "raid5: member 1 page 64 corrupted" corrupt 1 64
ktap_check "raid5: its reads fail for good (writes work)" read_fails 1 64
ktap_check "raid5: fio verify_only: every block verifies" \
	r5_fio verify randwrite 4k 0 8M 31
ktap_check "raid5: page rewritten with the reconstructed data" restored 1 64
ktap_check "raid5: the page's array block read once more" read_block 24
ktap_check "raid5: read-back failed: member 1 faulty, [4/3]" sh -c "
	. /harness/lib.sh; md_member_state $K1 faulty &&
	md_array_as '[4/3] [U_UU]' 1"
ktap_check "raid5: kernel log: not corrected, member failed" sh -c "
	dmesg | grep -i 'read error not corrected' &&
	dmesg | grep 'Disk failure on $K1'"
ktap_check "raid5: degraded writes verify" r5_fio write randwrite 4k 8M 4M 33
ktap_check "raid5: everything verifies degraded" \
	r5_fio verify randwrite 4k 0 8M 31
mdadm --stop $MD
r5_dm_heal 1

# ---- RAID5: write errors ----
ktap_check "raid5: fresh array, data written" mk_array 5 4
ktap_check "raid5: writes to member 2 fail: fio write+verify sees no error" \
	write_errors 2
ktap_check "raid5: member 2 faulty, [4/3]" sh -c "
	. /harness/lib.sh; md_member_state $K2 faulty &&
	md_array_as '[4/3] [UU_U]' 1"
ktap_check "raid5: all data verifies degraded" sh -c "
	. /harness/lib.sh; . /harness/tests/raid5/common.sh
	r5_fio verify randwrite 4k 0 8M 31 && r5_fio verify randwrite 4k 8M 8M 7"
mdadm --stop $MD
r5_dm_heal 2

# ---- RAID6: read errors on two members at once ----
ktap_check "raid6: 5 members, no bad-block log, data written" mk_array 6 5
OFF=$(mdadm --examine /dev/mapper/d1 | md_field "Data Offset" | cut -d' ' -f1)
dmesg -c > /dev/null
ktap_check "raid6: member 1 page 16 corrupted" corrupt 1 16
ktap_check "raid6: member 2 page 16 corrupted" corrupt 2 16
ktap_check "raid6: reads of both pages fail for good" both_read_fail
ktap_check "raid6: fio verify_only: every block verifies" \
	r5_fio verify randwrite 4k 0 8M 31
ktap_check "raid6: member 1 page rewritten" restored 1 16
ktap_check "raid6: member 2 page rewritten" restored 2 16
ktap_check "raid6: the pages' array blocks read once more" read_block 2 18
ktap_check "raid6: both members faulty, [5/3]" sh -c "
	. /harness/lib.sh; md_member_state $K1 faulty &&
	md_member_state $K2 faulty && md_array_as '[5/3] [U__UU]' 2"
ktap_check "raid6: writes with two members missing verify" \
	r5_fio write randwrite 4k 8M 4M 34
ktap_check "raid6: everything verifies" r5_fio verify randwrite 4k 0 8M 31
mdadm --stop $MD
r5_dm_heal 1
r5_dm_heal 2

# ---- RAID6: write errors on two members at once ----
K3=$(dm_kname d3)
ktap_check "raid6: fresh array, data written" mk_array 6 5
ktap_check "raid6: writes to members 1 and 3 fail at once: fio sees no error" \
	write_errors 1 3
ktap_check "raid6: members 1 and 3 faulty, [5/3]" sh -c "
	. /harness/lib.sh; md_member_state $K1 faulty &&
	md_member_state $K3 faulty && md_array_as '[5/3] [U_U_U]' 2"
ktap_check "raid6: all data verifies with two members failed" sh -c "
	. /harness/lib.sh; . /harness/tests/raid5/common.sh
	r5_fio verify randwrite 4k 0 8M 31 && r5_fio verify randwrite 4k 8M 8M 7"
mdadm --stop $MD
md_speed_limit
r5_dm_teardown 5
brd_teardown
ktap_finish
