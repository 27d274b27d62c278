#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 900
#
# The component size of a running RAID10 changes in place (mdadm
# --grow --size), as in-tree md allows it: for near and offset copies,
# which sit at the same member sectors whatever the size.  For n2 on 4
# members and o2 on 3 (64 KiB chunks, 64 MiB RAM disks whose space past
# the array is random, so the copies differ there until synced):
#  - created with --size 24 MiB; fio crc32c data over the whole array and
#    a random block in its last 64 KiB;
#  - --grow --size max: component_size grows, the array is whole chunks
#    per member, over far copies, times members, over near copies of
#    the new size; the grown part is resynced, so a check then finds
#    every copy equal; the old data verifies;
#  - a block written in the new last 64 KiB reads back, and after
#    --stop/--assemble the old data and that block still do;
#  - --grow --size 24 MiB again: no sync starts, the array is its old
#    size and the old data verifies.
# Far copies start at a stride set by the size, so changing it would
# move them: on f2 x3 --grow --size is refused, and the size and the
# data stay as they were.
. /harness/lib.sh
. /harness/tests/raid10/common.sh

R10_KIB=65536
SMALL=24576	# KiB per member at creation
SYS=/sys/block/md0/md

# mk_small LAYOUT N: RAM disks random past their first MiB, a RAID10
# of SMALL KiB per member on them, resynced
mk_small() {
	md_stop_all
	DEVS=
	_i=0
	while [ $_i -lt "$2" ]; do
		dd if=/dev/urandom of=/dev/ram$_i bs=1M seek=1 count=63 oflag=direct 2>/dev/null
		dd if=/dev/zero of=/dev/ram$_i bs=1M count=1 2>/dev/null
		DEVS="$DEVS /dev/ram$_i"
		_i=$((_i + 1))
	done
	# shellcheck disable=SC2086
	mdadm --create $MD --run --level=10 --layout="$1" --raid-devices="$2" \
		--chunk=64 --size=$SMALL --metadata=1.2 $DEVS < /dev/null || return 1
	wait_resync md0 300
}

# size_right LAYOUT N: the array is what the component size gives
size_right() {
	copies "$1"
	_comp=$(cat $SYS/component_size)
	_want=$(( (_comp / 64 / FAR * $2 / NEAR) * 64 ))
	_got=$(( $(blockdev --getsize64 $MD) / 1024 ))
	echo "component_size $_comp KiB: array $_got KiB, want $_want"
	[ "$_got" = "$_want" ]
}

# the last 64 KiB of the array as it is now, written and kept
NEWEND=0
write_new_end() {
	NEWEND=$(( $(blockdev --getsize64 $MD) / 65536 - 1 ))
	dd if=/dev/urandom of=/tmp/newend bs=64k count=1 2>/dev/null &&
	dd if=/tmp/newend of=$MD bs=64k seek=$NEWEND oflag=direct 2>/dev/null &&
	dd if=$MD bs=64k skip=$NEWEND count=1 iflag=direct 2>/dev/null | cmp - /tmp/newend
}

grown() {
	md_grow_max 300 || return 1
	[ "$GROWN_KIB" -gt $((SMALL + 16384)) ] && size_right "$@"
}

reassembled() {
	mdadm --stop $MD || return 1
	# shellcheck disable=SC2086
	mdadm --assemble $MD $DEVS || return 1
	verify_all &&
	dd if=$MD bs=64k skip=$NEWEND count=1 iflag=direct 2>/dev/null | cmp - /tmp/newend
}

shrunk() {
	md_shrink_no_sync $SMALL || return 1
	[ "$(cat $SYS/component_size)" = $SMALL ] && size_right "$@" && verify_all
}

grow_case() { # LAYOUT N
	_nm="$1 x$2"
	N=$2
	ktap_check "$_nm: --size $SMALL KiB, data over the whole array" \
		eval "mk_small $1 $2 && size_right $1 $2 && write_all"
	ktap_check "$_nm: --grow --size max: grown, resynced, size as in-tree" grown "$@"
	ktap_check "$_nm: check after growing finds every copy equal" md_check_clean md0 120
	ktap_check "$_nm: old data verifies after growing" verify_all
	ktap_check "$_nm: the new end takes data, all verifies after reassembly" \
		eval "write_new_end && reassembled"
	ktap_check "$_nm: --grow --size $SMALL: no sync, old size, data verifies" shrunk "$@"
}

far_refused() {
	mk_small f2 3 && write_all || return 1
	_before=$(cat $SYS/component_size)
	if mdadm --grow $MD --size max; then
		echo "mdadm --grow --size max succeeded on f2"
		return 1
	fi
	_after=$(cat $SYS/component_size)
	echo "component_size $_before -> $_after"
	[ "$_before" = "$_after" ] && size_right f2 3 && verify_all
}

ktap_plan 13
brd_setup 4 $R10_KIB || ktap_skip_all "no RAM disks"
grow_case n2 4
grow_case o2 3
ktap_check "f2 x3: --grow --size refused, size and data unchanged" far_refused
md_stop_all
brd_teardown
ktap_finish
