#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 600
#
# RAID10 (issue 36) member I/O errors, injected with device-mapper over
# RAM disks, as t14 for RAID1 and t76 for RAID5.  Every member dI is a
# dm-delay (0 ms) device whose reads go to table dIr and writes to table
# dIw (both linear over the 32 MiB ramI), so reads and writes of a range
# fail on their own.  RAID10 near-2 on 4 members, 64K chunks: array
# chunk c is on members 2(c mod 2) and 2(c mod 2)+1 at member data
# sector 128(c/2); members 0 and 1 hold the even chunks.  fio writes
# 8 MiB of 4k crc32c blocks at 0, and a 256 KiB pattern is written at
# array 16 MiB (chunks 256..259): array block 4098 is member 0's page at
# data sector 16400 (and member 1's), block 4130 the page at 16528.
#
# Which copy serves a read: both implementations prefer a member with no
# IO pending.  So before a read of a page on members 0 and 1, a write to
# array 20 MiB (chunk 320, members 0 and 1, another barrier bucket) is
# held on member 1 (d1w suspended, the array already active so no
# superblock write is due): the read goes to member 0.  In-tree md's
# read-error handling waits for every pending request, so the held write
# is let go 2 s after the read started.
#
#  - corrected read error: member 0's page at 16400 is corrupted behind
#    md's back and its reads fail; the read of block 4098 goes to member
#    0 with its writes held (d0w suspended); once md's rewrite is in
#    flight on d0, reads of d0 work again and d0w resumes: the reader got
#    the pattern, member 0's page holds it again (rewritten from member
#    1), the read-back succeeded: member 0 in sync, [4/4], its "errors"
#    count > 0, "read error corrected" in the kernel log;
#  - uncorrectable read error: member 0's page at 16528 is corrupted and
#    its reads fail for good; the read of block 4130 gets the pattern,
#    the page is rewritten from member 1 and the read-back fails.  What
#    then differs, as for RAID1 (raid1.rst, "Errors"; t14): in-tree
#    records the page in member 0's bad-block log and keeps it in sync
#    ([4/4]); the fork fails member 0 ([4/3] [_UUU], "rewrite of sector
#    ... failed" in the log).  Every fio block still verifies;
#  - a member whose reads always fail is failed: member 2's reads fail
#    over its whole data area; fio verify_only passes (up to 5 times)
#    until member 2 is faulty (in-tree after max_read_errors, 20; the
#    fork at the first failed read-back), and every pass verifies; the
#    array then runs degraded (in-tree [4/3] [UU_U], fork [4/2] [_U_U]),
#    new writes verify, and so does everything after stop and assemble;
#  - write errors, bad-block log (a fresh array): writes to member 1 fail
#    over member data sectors [1024, 2048); fio writes and verifies 8
#    MiB: no error, every block verifies, member 1 stays in sync ([4/4]),
#    its bad_blocks list is not empty and every entry lies in that range
#    (absolute member sectors); after writes work again, stop and
#    assemble: the entries are still listed and the data verifies;
#  - write errors, no bad-block log (a fresh array, --update=no-bbl):
#    writes to member 3 fail over its data area; fio writes and verifies:
#    no error, every block verifies, member 3 faulty, [4/3] [UUU_].
. /harness/lib.sh
. /harness/tests/raid5/common.sh
. /harness/tests/fault/common.sh

impl=${IMPL:?}

export DM_DISABLE_UDEV=1	# no udev in the guest: dmsetup makes the nodes
MD=/dev/md0
SYS=/sys/block/md0/md
N=4

# fio8 MODE [SEED [OFFSET]]: 8 MiB of 4k random writes at OFFSET (0),
# MODE write (and verify) or verify
fio8() {
	r5_fio "$1" randwrite 4k "${3:-0}" 8M "${2:-31}"
}

# mk_array [no-bbl]: a fresh near-2 array on d0..d3, fio data written
mk_array() {
	md_stop_all
	_h=0
	while [ $_h -lt $N ]; do r5_dm_heal $_h || return 1; _h=$((_h + 1)); done
	# shellcheck disable=SC2046
	mdadm --zero-superblock $(r5_dm_members $N) 2>/dev/null
	# shellcheck disable=SC2046
	mdadm --create $MD --run --level=10 --layout=n2 --raid-devices=$N \
		--chunk=64 --metadata=1.2 --assume-clean $(r5_dm_members $N) ||
		return 1
	if [ "${1:-}" = no-bbl ]; then
		mdadm --stop $MD || return 1
		# shellcheck disable=SC2046
		mdadm --assemble $MD --update=no-bbl $(r5_dm_members $N) ||
			return 1
		mdadm --examine /dev/mapper/d0 | grep -q 'Bad Block Log' &&
			{ echo "bad-block log still there"; return 1; }
	else
		mdadm --examine /dev/mapper/d0 | grep 'Bad Block Log' ||
			{ echo "no bad-block log"; return 1; }
	fi
	cat /proc/mdstat
	fio8 write
}

# pattern: 256 KiB at array 16 MiB, its pages at 8K (block 4098) and
# 136K (block 4130) kept
pattern() {
	fault_pattern /tmp/pat 256 &&
	fault_put $MD /tmp/pat 16384 &&
	fault_slice /tmp/pat 8 4 /tmp/p4098 &&
	fault_slice /tmp/pat 136 4 /tmp/p4130
}

# corrupt I S: member I's page at data sector S overwritten behind md's back
corrupt() {
	_s=$((OFF + $2))
	_b=$(r5_range_md5 "/dev/ram$1" $_s 8)
	dd if=/dev/urandom of="/dev/ram$1" bs=512 seek=$_s count=8 \
		conv=notrunc 2>/dev/null
	[ "$(r5_range_md5 "/dev/ram$1" $_s 8)" != "$_b" ]
}

read_fails() { # I S: reads of member I's page at data sector S fail
	dm_swap "d${1}r" "$(lin_err "/dev/ram$1" $((OFF + $2)) 8)"
}

bad_page() { corrupt "$1" "$2" && read_fails "$1" "$2"; }

# page_is I S FILE: member I's page at data sector S holds FILE
page_is() {
	_got=$(r5_range_md5 "/dev/ram$1" $((OFF + $2)) 8)
	_want=$(md5sum < "$3" | cut -d' ' -f1)
	echo "ram$1 data sector $2: $_got, want $_want ($3)"
	[ "$_got" = "$_want" ]
}

# inflight_w I: writes in flight on dI
inflight_w() { awk '{ print $2 }' "/sys/block/$(dm_kname "d$1")/inflight"; }

# wait_member_write I: a write to dI is in flight (held by suspended dIw)
wait_member_write() {
	_n=0
	while [ "$(inflight_w "$1")" -lt 1 ]; do
		_n=$((_n + 1))
		[ $_n -gt 300 ] && { echo "no write reached d$1"; return 1; }
		sleep 0.1
	done
	echo "d$1 inflight: $(cat "/sys/block/$(dm_kname "d$1")/inflight")"
}

# wait_member_idle I: no write in flight on dI
wait_member_idle() {
	_n=0
	while [ "$(inflight_w "$1")" -gt 0 ]; do
		_n=$((_n + 1))
		[ $_n -gt 300 ] && { echo "writes stay in flight on d$1"; return 1; }
		sleep 0.1
	done
}

# hold_member1: the array active (one write to block 5119), then a write
# to block 5120 held on member 1, done on member 0; sets HELD (its dd)
hold_member1() {
	dd if=/dev/urandom of=$MD bs=4k seek=5119 count=1 oflag=direct \
		2>/dev/null || return 1
	cat $SYS/array_state
	dmsetup suspend d1w || return 1
	dd if=/dev/urandom of=$MD bs=4k seek=5120 count=1 oflag=direct \
		2>/dev/null &
	HELD=$!
	wait_member_write 1 && wait_member_idle 0
}

# read_to FILE BLOCK: array block BLOCK read (direct) into FILE, in the
# background; sets RD (its dd)
read_to() {
	dd if=$MD of="$1" bs=4k skip="$2" count=1 iflag=direct 2>/tmp/rd.err &
	RD=$!
}

# got FILE WANT: the read's dd succeeded and FILE holds WANT
got() {
	wait "$RD" || { echo "the read failed: $(cat /tmp/rd.err)"; return 1; }
	cmp "$1" "$2" || { echo "$1 is not $2"; return 1; }
	echo "read back $2"
}

# corrected_read: case 1 (see the top)
corrected_read() {
	hold_member1 || return 1
	dmsetup suspend d0w || return 1
	read_to /tmp/blk 4098
	sleep 2
	dmsetup resume d1w || return 1
	wait "$HELD" || echo "the held write failed"
	_rc=0
	wait_member_write 0 || _rc=1
	dm_swap d0r "0 $SZ linear /dev/ram0 0" || _rc=1
	dmsetup resume d0w || _rc=1
	got /tmp/blk /tmp/p4098 || _rc=1
	return $_rc
}

# uncorrected_read: case 2's read (member 0's reads of the page fail)
uncorrected_read() {
	hold_member1 || return 1
	read_to /tmp/blk 4130
	sleep 2
	dmsetup resume d1w || return 1
	wait "$HELD" || echo "the held write failed"
	got /tmp/blk /tmp/p4130
}

errors_counted() { # KNAME
	_e=$(cat "$SYS/dev-$1/errors")
	echo "dev-$1/errors: $_e"
	[ "$_e" -gt 0 ]
}

# bb_within KNAME FROM TO: the member's bad_blocks list is not empty and
# every entry lies in member sectors [FROM, TO)
bb_within() {
	cat "$SYS/dev-$1/bad_blocks"
	grep -q . "$SYS/dev-$1/bad_blocks" || { echo "no bad block"; return 1; }
	awk -v f="$2" -v t="$3" '$1 < f || $1 + $2 > t { bad = 1 }
		END { exit bad }' "$SYS/dev-$1/bad_blocks"
}

# reads_fail_until_faulty I: reads of member I fail over its data area
# (but its last 8 sectors: lin_err keeps a linear tail);
# fio verify_only (every pass must verify) until member I is faulty
reads_fail_until_faulty() {
	_k=$(dm_kname "d$1")
	dm_swap "d${1}r" "$(lin_err "/dev/ram$1" "$OFF" $((SZ - OFF - 8)))" ||
		return 1
	_p=0
	while [ $_p -lt 5 ]; do
		fio8 verify || return 1
		_p=$((_p + 1))
		echo "pass $_p: dev-$_k $(cat "$SYS/dev-$_k/state"), errors $(cat "$SYS/dev-$_k/errors")"
		md_member_state "$_k" faulty > /dev/null && return 0
	done
	return 1
}

# write_errors I FROM LEN: writes to member I fail over data sectors
# [FROM, FROM+LEN), then fio writes and verifies (swapping the table
# under a running fio is too slow under TCG to land while it writes)
write_errors() {
	dm_swap "d${1}w" "$(lin_err "/dev/ram$1" $((OFF + $2)) "$3")" &&
	fio8 write 7
}

reassemble() {
	mdadm --stop $MD || return 1
	# shellcheck disable=SC2046
	mdadm --assemble $MD --run $(r5_dm_members $N) || return 1
	cat /proc/mdstat
}

ktap_plan 32
md_speed_limit 50000
ktap_check "brd: four 32 MiB RAM disks" brd_setup $N 32768
ktap_check "dm: d0..d3, reads and writes through separate tables" \
	r5_dm_setup $N

# ---- read errors ----
ktap_check "raid10 n2 x4, 64K chunks, bad-block logs; fio data written" \
	mk_array
ktap_check "256 KiB pattern at array 16 MiB" pattern
# the array stays active between writes (no superblock write is due
# while member 1's writes are held)
echo 60 > $SYS/safe_mode_delay
OFF=$(cat "$SYS/dev-$(dm_kname d0)/offset")
K0=$(dm_kname d0)
K1=$(dm_kname d1)
K2=$(dm_kname d2)
echo "# data offset $OFF; members 0, 1, 2: $K0 $K1 $K2"
dmesg -c > /dev/null
ktap_check "member 0's page at 16400 corrupted behind md's back" \
	corrupt 0 16400
ktap_check "its reads fail, writes held" read_fails 0 16400
ktap_check "read served (member 1 busy: from member 0), rewrite issued, then reads work again" \
	corrected_read
ktap_check "member 0's page rewritten with the pattern" page_is 0 16400 /tmp/p4098
ktap_check "member 0 still in_sync, [4/4] [UUUU]" sh -c "
	. /harness/lib.sh; md_member_state $K0 in_sync &&
	md_array_as '[4/4] [UUUU]' 0"
ktap_check "member 0's errors count the corrected read" errors_counted "$K0"
ktap_check "kernel log: read error corrected" \
	sh -c "dmesg | grep 'read error corrected'"
dmesg -c > /dev/null
ktap_check "member 0's page at 16528 corrupted, its reads fail for good" \
	bad_page 0 16528
ktap_check "read served (member 1 busy: from member 0, then member 1)" \
	uncorrected_read
ktap_check "member 0's page rewritten with the pattern" page_is 0 16528 /tmp/p4130
if [ "$impl" = intree ]; then
	ktap_check "intree: member 0 still in_sync, [4/4] [UUUU]" sh -c "
		. /harness/lib.sh; md_member_state $K0 in_sync &&
		md_array_as '[4/4] [UUUU]' 0"
	ktap_check "intree: the page in member 0's bad-block log" \
		bb_within "$K0" $((OFF + 16528)) $((OFF + 16536))
else
	ktap_check "fork: member 0 faulty, [4/3] [_UUU]" sh -c "
		. /harness/lib.sh; md_member_state $K0 faulty &&
		md_array_as '[4/3] [_UUU]' 1"
	ktap_check "fork: kernel log says why" sh -c "
		dmesg | grep -E 'rewrite of sector [0-9]+ on $K0 failed' &&
		dmesg | grep -q 'Disk failure on $K0'"
fi
ktap_check "fio verify_only: every block verifies" fio8 verify
ktap_check "reads of member 2 always fail: every pass verifies until it is faulty" \
	reads_fail_until_faulty 2
if [ "$impl" = intree ]; then
	ktap_check "intree: degraded [4/3] [UU_U]" md_array_as "[4/3] [UU_U]" 1
else
	ktap_check "fork: degraded [4/2] [_U_U]" md_array_as "[4/2] [_U_U]" 2
fi
ktap_check "degraded: new writes verify" fio8 write 33 8M
ktap_check "stop, assemble: everything verifies" sh -c "
	. /harness/lib.sh; . /harness/tests/raid5/common.sh
	mdadm --stop $MD && mdadm --assemble $MD --run $(r5_dm_members $N) &&
	cat /proc/mdstat && r5_fio verify randwrite 4k 0 8M 31 &&
	r5_fio verify randwrite 4k 8M 8M 33 &&
	dd if=$MD bs=4k skip=4096 count=64 iflag=direct 2>/dev/null | cmp - /tmp/pat"

# ---- write errors, bad-block log ----
ktap_check "fresh array, bad-block logs; fio data written" mk_array
OFF=$(cat "$SYS/dev-$(dm_kname d0)/offset")
K1=$(dm_kname d1)
ktap_check "writes to member 1's data sectors [1024, 2048) fail; fio writes + verifies" \
	write_errors 1 1024 1024
ktap_check "member 1 still in_sync, [4/4] [UUUU]" sh -c "
	. /harness/lib.sh; md_member_state $K1 in_sync &&
	md_array_as '[4/4] [UUUU]' 0"
ktap_check "member 1's bad blocks: in the failing range only" \
	bb_within "$K1" $((OFF + 1024)) $((OFF + 2048))
r5_dm_heal 1
ktap_check "writes work again; stop, assemble" reassemble
ktap_check "bad blocks still listed" bb_within "$K1" $((OFF + 1024)) $((OFF + 2048))
ktap_check "everything verifies" fio8 verify 7

# ---- write errors, no bad-block log ----
ktap_check "fresh array, no bad-block log; fio data written" mk_array no-bbl
K3=$(dm_kname d3)
ktap_check "writes to member 3 fail over its data area; fio writes + verifies" \
	write_errors 3 0 $((SZ - OFF - 8))
ktap_check "member 3 faulty" md_member_state "$K3" faulty
ktap_check "degraded: [4/3] [UUU_], degraded 1" md_array_as "[4/3] [UUU_]" 1
mdadm --stop $MD > /dev/null 2>&1
md_speed_limit
r5_dm_teardown $N
brd_teardown
ktap_finish
