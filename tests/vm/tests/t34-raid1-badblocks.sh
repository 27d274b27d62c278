#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 300
#
# The per-member bad-block log of a 1.2 RAID1 (mdadm reserves a log area
# on every member), members m0 (over ram0) and m1 (dm-delay over ram1,
# reads and writes through separate tables so writes alone can fail):
#   - dev-*/bad_blocks and unacknowledged_bad_blocks exist and are empty;
#     "write_error" and "-write_error" set and clear that state flag;
#     malformed input is refused with EINVAL;
#   - an entry written to bad_blocks is listed, stored in the log on disk
#     (mdadm --examine-badblocks after stop) and listed again after
#     assembly;
#   - reads avoid a recorded bad range: with m1 write-mostly, a read of a
#     range whose copy on m0 was overwritten behind md's back returns
#     m0's garbage (the control: m0 serves reads), and once that range
#     is recorded bad on m0 the same read returns the good copy from m1;
#   - a write that fails on m1 is recorded in m1's log instead of failing
#     m1: the write succeeds, the array stays [UU], m1's state shows
#     write_error, its bad_blocks covers the failed sector, the data
#     reads back, and the entry survives stop and assembly;
#   - with failfast set on m1 a failed write fails m1 instead (no entry).
. /harness/lib.sh

MD=/dev/md0
SYS=/sys/block/md0/md
DISK_KIB=65536
export DM_DISABLE_UDEV=1

setup() {
	md_stop_all
	dm_split_teardown
	brd_setup 2 $DISK_KIB && dm_split_setup || return 1
	mdadm --create $MD --run --level=1 --raid-devices=2 --metadata=1.2 \
		--assume-clean /dev/mapper/m0 /dev/mapper/m1 || return 1
	K0=$(dm_kname m0) && K1=$(dm_kname m1) || return 1
	DO=$(cat $SYS/dev-$K1/offset)
	echo "m0=$K0 m1=$K1 data_offset=$DO"
	mdadm --examine /dev/mapper/m1 | grep 'Bad Block Log'
}

empty_files() {
	for _k in "$K0" "$K1"; do
		for _f in bad_blocks unacknowledged_bad_blocks; do
			[ -e "$SYS/dev-$_k/$_f" ] || { echo "no dev-$_k/$_f"; return 1; }
			[ -z "$(cat "$SYS/dev-$_k/$_f")" ] ||
				{ echo "dev-$_k/$_f not empty"; cat "$SYS/dev-$_k/$_f"; return 1; }
		done
	done
}

write_error_flag() {
	echo write_error > "$SYS/dev-$K0/state" || return 1
	md_member_state "$K0" write_error || return 1
	echo -write_error > "$SYS/dev-$K0/state" || return 1
	! md_member_state "$K0" write_error
}

bad_input() {
	# 22: EINVAL (in-tree and the library's parser)
	sysfs_expect_errno 22 "$SYS/dev-$K0/bad_blocks" "abc" &&
	sysfs_expect_errno 22 "$SYS/dev-$K0/bad_blocks" "100 0" &&
	sysfs_expect_errno 22 "$SYS/dev-$K0/bad_blocks" "100 -8" &&
	[ -z "$(cat "$SYS/dev-$K0/bad_blocks")" ]
}

# listed KNAME SECTOR: some "start length" line of KNAME's bad_blocks
# covers SECTOR
listed() {
	cat "$SYS/dev-$1/bad_blocks"
	awk -v s="$2" '$1 <= s && s < $1 + $2 { f = 1 } END { exit !f }' \
		"$SYS/dev-$1/bad_blocks"
}

# on_disk DEV SECTOR: mdadm --examine-badblocks lists a range covering it
on_disk() {
	mdadm --examine-badblocks "$1" > /tmp/ebb.out 2>&1
	cat /tmp/ebb.out
	awk -v s="$2" '$2 == "for" && $1 <= s && s < $1 + $3 { f = 1 } END { exit !f }' \
		/tmp/ebb.out
}

# reassemble MEMBER SECTOR: stop; the log of /dev/mapper/MEMBER on disk
# must cover SECTOR; assemble again (also when it does not).
reassemble() {
	mdadm --stop $MD || return 1
	_ok=0
	on_disk "/dev/mapper/$1" "$2" || { echo "not in the log on disk"; _ok=1; }
	mdadm --assemble $MD /dev/mapper/m0 /dev/mapper/m1 || return 1
	cat /proc/mdstat
	K0=$(dm_kname m0) && K1=$(dm_kname m1) && return $_ok
}

sysfs_entry() {
	echo "$((DO + 1000)) 8" > "$SYS/dev-$K0/bad_blocks" || return 1
	listed "$K0" $((DO + 1003)) || return 1
	# in-tree stores the log with the next superblock write: a write
	# makes the array dirty (one), safe mode clean again (another)
	dd if=/dev/zero of=$MD bs=4096 seek=1000 count=1 oflag=direct || return 1
	sleep 1
	reassemble m0 $((DO + 1003)) || return 1
	listed "$K0" $((DO + 1003))
}

# sector_md5 SECTOR: md5 of 4 KiB of md0 at SECTOR, read from the
# members (the page cache dropped first)
sector_md5() {
	blockdev --flushbufs $MD
	echo 3 > /proc/sys/vm/drop_caches
	dd if=$MD bs=512 skip="$1" count=8 iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1
}

reads_avoid() {
	_s=8192
	dd if=/dev/urandom of=/tmp/good bs=4096 count=1 2>/dev/null
	dd if=/dev/urandom of=/tmp/junk bs=4096 count=1 2>/dev/null
	dd if=/tmp/good of=$MD bs=512 seek=$_s count=8 conv=fsync 2>/dev/null || return 1
	_good=$(md5sum < /tmp/good | cut -d' ' -f1)
	_junk=$(md5sum < /tmp/junk | cut -d' ' -f1)
	# behind md's back: m0's copy becomes junk
	dd if=/tmp/junk of=/dev/ram0 bs=512 seek=$((DO + _s)) count=8 \
		conv=notrunc,fsync || return 1
	blockdev --flushbufs /dev/ram0
	echo writemostly > "$SYS/dev-$K1/state" || return 1
	_r=$(sector_md5 $_s)
	echo "good $_good junk $_junk read $_r"
	for _m in ram0 ram1; do
		echo "$_m: $(dd if=/dev/$_m bs=512 skip=$((DO + _s)) count=8 2>/dev/null | md5sum)"
	done
	[ "$_r" = "$_junk" ] || { echo "control: read $_r, not m0's junk $_junk"; return 1; }
	echo "$((DO + _s)) 8" > "$SYS/dev-$K0/bad_blocks" || return 1
	_r=$(sector_md5 $_s)
	[ "$_r" = "$_good" ] || { echo "read $_r, want m1's copy $_good"; return 1; }
	echo -writemostly > "$SYS/dev-$K1/state"
}

write_recorded() {
	_s=16384
	dm_swap m1w "$(lin_err /dev/ram1 $((DO + _s)) 8)" || return 1
	dd if=/dev/urandom of=/tmp/w bs=4096 count=1 2>/dev/null
	dd if=/tmp/w of=$MD bs=512 seek=$_s count=8 oflag=direct conv=fsync || return 1
	_want=$(md5sum < /tmp/w | cut -d' ' -f1)
	md_array_as "[2/2] [UU]" 0 || return 1
	md_member_state "$K1" write_error || return 1
	listed "$K1" $((DO + _s)) || return 1
	[ "$(sector_md5 $_s)" = "$_want" ] || { echo "data does not read back"; return 1; }
	dm_swap m1w "0 $SZ linear /dev/ram1 0" || return 1
	reassemble m1 $((DO + _s)) || return 1
	listed "$K1" $((DO + _s)) || return 1
	[ "$(sector_md5 $_s)" = "$_want" ] || { echo "data lost after assembly"; return 1; }
}

# failfast_write: with failfast set on m1, a write that fails there
# fails m1 at once (failfast: no bad block kept), the write succeeds.
failfast_write() {
	_s=24576
	echo -writemostly > "$SYS/dev-$K1/state" || return 1
	echo failfast > "$SYS/dev-$K1/state" || return 1
	dm_swap m1w "$(lin_err /dev/ram1 $((DO + _s)) 8)" || return 1
	dd if=/dev/urandom of=/tmp/w bs=4096 count=1 2>/dev/null
	dd if=/tmp/w of=$MD bs=512 seek=$_s count=8 oflag=direct conv=fsync || return 1
	_want=$(md5sum < /tmp/w | cut -d' ' -f1)
	md_member_state "$K1" faulty || return 1
	md_array_as "[2/1] [U_]" 1 || return 1
	listed "$K1" $((DO + _s)) && { echo "recorded as bad blocks instead"; return 1; }
	[ "$(sector_md5 $_s)" = "$_want" ] || { echo "data does not read back"; return 1; }
	dm_swap m1w "0 $SZ linear /dev/ram1 0"
}

ktap_plan 9
ktap_check "setup: RAID1 1.2 on m0, m1 with a bad-block log" setup
ktap_check "bad_blocks files exist, empty" empty_files
ktap_check "state write_error / -write_error" write_error_flag
ktap_check "bad input to bad_blocks: EINVAL, nothing recorded" bad_input
ktap_check "a bad_blocks entry is stored and survives assembly" sysfs_entry
ktap_check "reads avoid a recorded bad range" reads_avoid
ktap_check "a failed write is recorded, member kept, entry persists" write_recorded
ktap_check "failfast member: a failed write fails it, no bad block" failfast_write
ktap_check "stop" mdadm --stop $MD
dm_split_teardown
brd_teardown
ktap_finish
