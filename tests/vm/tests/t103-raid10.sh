#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 1200
#
# RAID10 (issue 36) as an admin and the data see it, on RAM disks.  What
# in-tree md does is the reference: every check passes on it.  For each
# layout (near, far and offset copies, 2 and 3 copies, 2 to 5 members,
# chunks of 64 KiB and 512 KiB):
#  - mdadm --create starts the initial resync, which completes;
#    /proc/mdstat shows "raid10", the chunk and the copies as in-tree
#    words them ("64K chunks 2 near-copies", "2 far-copies",
#    "2 offset-copies") and [N/N]; the array size is whole chunks per
#    member, over far copies, times members, over near copies;
#  - fio crc32c data over the whole array, from the first to the last
#    sector, verifies; a check pass finds mismatch_cnt 0 (every copy
#    equal);
#  - --stop / --assemble: the data verifies again;
#  - a member failed under a fio load: fio sees no error and verifies,
#    the array runs degraded ([N/N-1]) and every block still reads;
#  - that member removed, wiped and added as a blank spare: recovery
#    rebuilds it, the array is [N/N] again, the data verifies and a
#    check finds mismatch_cnt 0, so the rebuilt copies equal the others;
#  - then the member holding each sector's other copy is failed, for
#    n2 and f2 on 2 members, so that the rebuilt member alone serves the
#    data, which verifies.
#  - Not enough members: failing both members that hold some chunk's
#    copies is refused for the second one (mdadm --fail exits non-zero
#    or the member stays), the array keeps serving the data.
#  - Repair: 4 KiB of the second copy of array sector 0 (n2 on 4: member
#    1 at its data offset) overwritten behind md's back: check reports
#    mismatch_cnt > 0, repair rewrites it from the first copy, a second
#    check finds 0 and the data verifies.
#  - Re-add with a bitmap (n2 on 4, internal bitmap): a member failed and
#    removed, 64 KiB written while it is out, the member re-added
#    (mdadm --re-add, which needs the bitmap): the array is [4/4] again,
#    the block reads back and check finds every copy equal.
. /harness/lib.sh
. /harness/tests/raid10/common.sh

MD=$R10_MD
KIB=$R10_KIB

# mk LAYOUT N CHUNK_KIB: a RAID10 on the first N RAM disks, resynced
mk() { r10_create "$@"; }

# words LAYOUT N CHUNK_KIB: what /proc/mdstat must say after "blocks super 1.2"
words() {
	_k=${1%[0-9]*} _c=${1#?} _w=
	_near=1 _far=1
	case $_k in n) _near=$_c ;; *) _far=$_c ;; esac
	[ "$_near" -lt "$2" ] && _w="$3K chunks"
	[ "$_near" -gt 1 ] && _w="$_w $_near near-copies"
	[ "$_k" = f ] && _w="$_w $_far far-copies"
	[ "$_k" = o ] && _w="$_w $_far offset-copies"
	echo "${_w# } [$2/$2]"
}

# copies LAYOUT: NEAR and FAR set from an mdadm layout name (n2, f2, o3)
copies() {
	NEAR=1 FAR=1
	case $1 in n*) NEAR=${1#n} ;; *) FAR=${1#?} ;; esac
}

# status_right LAYOUT N CHUNK_KIB: mdstat words and the array size
status_right() {
	_want=$(words "$@")
	copies "$1"
	_line=$(mdstat_array md0 | sed -n 2p)
	echo "mdstat: $_line"
	echo "want:   ... super 1.2 $_want"
	case $_line in *"super 1.2 $_want"*) ;; *) return 1 ;; esac
	_comp=$(cat /sys/block/md0/md/component_size)
	_size=$(( (_comp / $3 / FAR * $2 / NEAR) * $3 ))
	_got=$(( $(blockdev --getsize64 $MD) / 1024 ))
	echo "component_size $_comp KiB: array $_got KiB, want $_size"
	[ "$_got" = "$_size" ]
}

# fio's data below the last 64 KiB, which dd writes and reads
ARRAY_BYTES=0 FIO_BYTES=0
write_all() {
	ARRAY_BYTES=$(blockdev --getsize64 $MD)
	FIO_BYTES=$((ARRAY_BYTES - 65536))
	fio_write_verify $MD "$FIO_BYTES" --number_ios=4096 > /tmp/fio.out 2>&1
	fio_log_ok $? || return 1
	# the last 64 KiB too, where the last chunk lives
	dd if=/dev/urandom of=/tmp/tail bs=64k count=1 2>/dev/null &&
	dd if=/tmp/tail of=$MD bs=64k seek=$((ARRAY_BYTES / 65536 - 1)) oflag=direct 2>/dev/null
}

verify_all() {
	fio_verify_only $MD "$FIO_BYTES" --number_ios=4096 > /tmp/fio.out 2>&1
	fio_log_ok $? || return 1
	dd if=$MD bs=64k skip=$((ARRAY_BYTES / 65536 - 1)) count=1 iflag=direct 2>/dev/null |
		cmp - /tmp/tail
}

reassemble_verify() {
	mdadm --stop $MD || return 1
	# shellcheck disable=SC2086
	mdadm --assemble $MD $DEVS || return 1
	mdstat_array md0
	verify_all
}

# fail_under_load DEV: fail DEV while fio writes (and verifies)
fail_under_load() {
	# the first 1024 blocks of write_all's set again: the same data
	(fio_write_verify $MD "$FIO_BYTES" --number_ios=1024 --rate=1m \
		> /tmp/fio.out 2>&1; echo $? > /tmp/fio.rc) &
	sleep 2
	mdadm --fail $MD "$1" || return 1
	wait
	fio_log_ok "$(cat /tmp/fio.rc)" || return 1
	mdstat_array md0
	mdstat_array md0 | grep -q "\[$N/$((N - 1))\]"
}

degraded_verify() { verify_all; }

readd_blank() {
	mdadm --remove $MD "$1" || return 1
	mdadm --zero-superblock "$1" || return 1
	mdadm --add $MD "$1" || return 1
	sleep 1
	wait_resync md0 300 || return 1
	mdstat_array md0
	mdstat_array md0 | grep -q "\[$N/$N\]"
}

rebuilt_verify() { verify_all && md_check_clean md0 120; }

# alone_verify OTHER: fail OTHER (the rebuilt member's partner): the
# rebuilt member alone holds that half, the data verifies
alone_verify() {
	mdadm --fail $MD "$1" || return 1
	mdstat_array md0
	verify_all
}

# last_copy_kept A B: A failed, then B (A's only partner) refused
last_copy_kept() {
	mdadm --fail $MD "$1" || return 1
	mdadm --fail $MD "$2"
	mdadm --detail $MD | tail -n "$N"
	_s=$(mdadm --detail $MD | grep " $2\$")
	echo "$2: $_s"
	case $_s in *"active sync"*) ;; *) return 1 ;; esac
	verify_all
}

# one_case LAYOUT N CHUNK_KIB
one_case() {
	_nm="$1 x$2 ${3}K"
	N=$2
	ktap_check "$_nm: created, initial resync done" mk "$@"
	ktap_check "$_nm: mdstat words and array size as in-tree" status_right "$@"
	ktap_check "$_nm: data over the whole array verifies" write_all
	ktap_check "$_nm: check finds every copy equal" md_check_clean md0 120
	ktap_check "$_nm: stop, assemble, data verifies" reassemble_verify
	ktap_check "$_nm: member failed under fio: no error, degraded" fail_under_load /dev/ram0
	ktap_check "$_nm: degraded, every block reads back" degraded_verify
	ktap_check "$_nm: blank member added, recovery rebuilds it" readd_blank /dev/ram0
	ktap_check "$_nm: rebuilt copies verify and check clean" rebuilt_verify
}

CASES="n2:2:64 n2:3:64 n2:4:512 n2:5:64 f2:2:64 f2:3:512 o2:3:64 o2:4:64 n3:3:64 n3:5:64 f3:3:64"
NCASES=$(echo $CASES | wc -w)

ktap_plan $((NCASES * 9 + 4))
brd_setup 5 $KIB || ktap_skip_all "no RAM disks"

for c in $CASES; do
	# shellcheck disable=SC2046,SC2086
	one_case $(echo "$c" | tr : ' ')
done

# n2 on 2: the rebuilt ram0 alone (ram1 failed) serves everything
one_case_n2_alone() {
	N=2
	mk n2 2 64 > /dev/null && write_all > /dev/null &&
	mdadm --fail $MD /dev/ram0 && readd_blank /dev/ram0 > /dev/null &&
	alone_verify /dev/ram1
}
ktap_check "n2 x2: rebuilt member alone serves the data" one_case_n2_alone

one_case_last_copy() {
	N=4
	mk n2 4 64 > /dev/null && write_all > /dev/null &&
	last_copy_kept /dev/ram0 /dev/ram1
}
ktap_check "n2 x4: the last copy of a chunk is not failed" one_case_last_copy

# repair_case: n2 x4, the second copy of sector 0 corrupted, repaired
repair_case() {
	N=4
	mk n2 4 64 > /dev/null && write_all > /dev/null || return 1
	_off=$(mdadm --examine /dev/ram1 | md_field "Data Offset" | awk '{ print $1 }')
	echo "ram1 data offset $_off sectors"
	dd if=/dev/urandom of=/dev/ram1 bs=4k count=1 seek=$((_off / 8)) oflag=direct 2>/dev/null || return 1
	echo check > /sys/block/md0/md/sync_action && sleep 1 && wait_resync md0 120 || return 1
	_mm=$(cat /sys/block/md0/md/mismatch_cnt)
	echo "after corruption: mismatch_cnt $_mm"
	[ "$_mm" -gt 0 ] || return 1
	echo repair > /sys/block/md0/md/sync_action && sleep 1 && wait_resync md0 120 || return 1
	md_check_clean md0 120 && verify_all
}
ktap_check "n2 x4: check finds a corrupted copy, repair rewrites it" repair_case

# readd_case: n2 x4 with a bitmap, member 2 out while data is written,
# re-added: only the dirty chunks are copied
readd_case() {
	N=4
	r10_create n2 4 64 --bitmap=internal --bitmap-chunk=64K > /dev/null || return 1
	write_all > /dev/null || return 1
	mdadm --fail $MD /dev/ram2 && mdadm --remove $MD /dev/ram2 || return 1
	dd if=/dev/urandom of=/tmp/blk bs=64k count=1 2>/dev/null &&
	dd if=/tmp/blk of=$MD bs=64k seek=3 oflag=direct 2>/dev/null || return 1
	mdadm --re-add $MD /dev/ram2 || return 1
	sleep 1
	wait_resync md0 120 || return 1
	mdstat_array md0
	mdstat_array md0 | grep -q "\[4/4\]" || return 1
	dd if=$MD bs=64k skip=3 count=1 iflag=direct 2>/dev/null | cmp - /tmp/blk &&
	md_check_clean md0 120
}
ktap_check "n2 x4 bitmap: a re-added member catches up, data and copies agree" readd_case

md_stop_all
brd_teardown
ktap_finish
