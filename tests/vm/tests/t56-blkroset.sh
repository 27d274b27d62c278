#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 180
#
# BLKROSET on an array (issue 35): `blockdev --setrw` on a read-only
# array makes it read-auto, as in-tree md (its block device method
# set_read_only), so the first write makes it read-write; `--setro` on a
# read-write array marks only the block device.  Both implementations,
# the same assertions:
#  - mdadm --readonly: array_state "readonly", blockdev --getro 1;
#  - blockdev --setrw: array_state "read-auto", --getro 0;
#  - a write then makes it "active" or "clean", and reads back;
#  - blockdev --setro: --getro 1, array_state unchanged; --setrw: 0;
#  - the data written before verifies.
. /harness/lib.sh

MD=/dev/md0
STATE=/sys/block/md0/md/array_state

create() {
	md_stop_all
	brd_setup 2 65536 &&
	mdadm --create $MD --run --assume-clean --level=1 --raid-devices=2 \
		--metadata=1.2 /dev/ram0 /dev/ram1 &&
	fio_write_verify $MD 8M --randseed=57
}

# state_is WANT...: array_state is one of WANT
state_is() {
	_s=$(cat $STATE)
	for _w in "$@"; do
		[ "$_s" = "$_w" ] && return 0
	done
	echo "array_state '$_s', want $*"
	return 1
}

ro_is() {
	_r=$(blockdev --getro $MD)
	[ "$_r" = "$1" ] || { echo "blockdev --getro $_r, want $1"; return 1; }
}

readonly_array() {
	mdadm --readonly $MD && state_is readonly && ro_is 1
}

setrw_read_auto() {
	blockdev --setrw $MD && state_is read-auto && ro_is 0
}

first_write() {
	head -c 4096 /dev/urandom > /tmp/blk || return 1
	dd if=/tmp/blk of=$MD bs=4096 seek=4096 oflag=direct 2> /dev/null ||
		return 1
	state_is active clean || return 1
	dd if=$MD of=/tmp/back bs=4096 skip=4096 count=1 iflag=direct \
		2> /dev/null && cmp /tmp/blk /tmp/back
}

setro_rw_array() {
	_before=$(cat $STATE)
	blockdev --setro $MD && ro_is 1 || return 1
	state_is "$_before" clean active || return 1
	blockdev --setrw $MD && ro_is 0 && state_is "$_before" clean active
}

ktap_plan 7
ktap_check "RAID1 on two RAM disks, 8 MiB written" create
ktap_check "mdadm --readonly: readonly, --getro 1" readonly_array
ktap_check "blockdev --setrw: read-auto, --getro 0" setrw_read_auto
ktap_check "the first write makes it read-write, and reads back" first_write
ktap_check "blockdev --setro on a read-write array marks only the device" \
	setro_rw_array
ktap_check "the data written before verifies" fio_verify_only $MD 8M --randseed=57
ktap_check "stop" mdadm --stop $MD
brd_teardown
ktap_finish
