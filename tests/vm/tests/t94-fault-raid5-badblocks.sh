#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 240
#
# Issue 31 (4): RAID4/5/6 honour the bad-block log.  RAID5 on 4 RAM
# disks, 64K chunks (1.2, so each member has a log): row 0 holds array
# chunk 1 on member 1.  Pattern A is written; then member 1's copy of
# that chunk is overwritten behind md's back (array stopped meanwhile,
# so no cached stripe holds the row).  Read as it is (one 64K
# read: the direct path), the array returns that garbage (the control:
# nothing tells md).  Once the range
# is recorded in member 1's bad-block log (md/dev-*/bad_blocks, as
# in-tree md or raid1 would have left it), the same read returns A,
# rebuilt from the other members.
. /harness/lib.sh
. /harness/tests/raid5/common.sh
. /harness/tests/fault/common.sh

MD=/dev/md0
SYS=/sys/block/md0/md

setup() {
	md_stop_all
	brd_setup 4 32768 || return 1
	# shellcheck disable=SC2046
	mdadm --create $MD --run --level=5 --raid-devices=4 --chunk=64 \
		--metadata=1.2 --assume-clean $(r5_members 4) || return 1
	OFF=$(cat $SYS/dev-ram1/offset)
	fault_put $MD /tmp/A 0 &&
	mdadm --examine /dev/ram1 | grep 'Bad Block Log'
}

# with the array stopped (so no stripe cache holds the row) and assembled
corrupt() {
	mdadm --stop $MD || return 1
	dd if=/dev/urandom of=/tmp/junk bs=64k count=1 2>/dev/null &&
	dd if=/tmp/junk of=/dev/ram1 bs=512 seek="$OFF" count=128 \
		oflag=direct conv=notrunc &&
	fault_data_is /dev/ram1 $((OFF / 2)) 64 /tmp/junk &&
	# shellcheck disable=SC2046
	mdadm --assemble $MD $(r5_members 4)
}

# reads of array chunk 1, past the page cache
chunk1_is() {
	dd if=$MD of=/tmp/got bs=64k skip=1 count=1 iflag=direct 2>/dev/null &&
	cmp /tmp/got "$1"
}

control() {
	dd if=$MD of=/tmp/got bs=64k skip=1 count=1 iflag=direct 2>/dev/null &&
	cmp /tmp/got /tmp/junk
}

record() {
	echo "$OFF 128" > $SYS/dev-ram1/bad_blocks || return 1
	cat $SYS/dev-ram1/bad_blocks
}

fault_pattern /tmp/A 512
fault_slice /tmp/A 64 64 /tmp/A.c1

ktap_plan 5
ktap_check "RAID5 on 4 members with bad-block logs, pattern A" setup
ktap_check "member 1's chunk overwritten behind md's back" corrupt
ktap_check "control: unrecorded, the array reads the garbage" control
ktap_check "recorded bad on member 1" record
ktap_check "the array reads A there, rebuilt" chunk1_is /tmp/A.c1
mdadm --stop $MD > /dev/null 2>&1
brd_teardown
ktap_finish
