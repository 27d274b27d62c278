#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 300
#
# Issue 31 (2) and (9, last): a write that fails on a member of a
# degraded RAID5 never leaves a row that reads back as data nobody
# wrote.  RAID5, 4 members d0..d3 (dm-delay, writes through dIw), 64K
# chunks, left-symmetric: row 0 holds data chunk 0 on member 0, chunk 1
# on member 1, chunk 2 on member 2, parity on member 3.  Pattern A is
# written, member 2 is failed and removed, then writes to member 0's
# first chunk fail and 4 KiB of pattern B is written at array offset 0.
# Parity takes the new value whatever happens to member 0, so member 2's
# chunk, rebuilt from parity and member 0, would be wrong if member 0
# were still trusted.  Every read of the row must return A (B for the
# written block, if acknowledged) or an error.
#
# Then mdadm --fail of a member the degraded array still needs: the
# member is marked faulty (in-tree fails it and marks the array broken;
# the ioctl says EBUSY), and no read returns other data.
. /harness/lib.sh
. /harness/tests/raid5/common.sh
. /harness/tests/fault/common.sh

export DM_DISABLE_UDEV=1
MD=/dev/md0
SYS=/sys/block/md0/md

setup() {
	fault_members 4 65536 || return 1
	# fresh RAM disks are zero, so --assume-clean parity is right
	# shellcheck disable=SC2046
	mdadm --create $MD --run --level=5 --raid-devices=4 --chunk=64 \
		--metadata=1.2 --assume-clean $(r5_dm_members 4) || return 1
	K0=$(dm_kname d0) || return 1
	OFF=$(cat $SYS/dev-$K0/offset)
	fault_put $MD /tmp/A 0
}

degrade() {
	mdadm $MD --fail /dev/mapper/d2 && mdadm $MD --remove /dev/mapper/d2 &&
	md_array_as "[4/3] [UU_U]" 1
}

failing_write() {
	dm_swap d0w "$(lin_err /dev/ram0 "$OFF" 128)" || return 1
	if fault_put $MD /tmp/B 0; then
		echo "the write was acknowledged"
		cp /tmp/B /tmp/B.acked
	else
		rm -f /tmp/B.acked
	fi
	echo "member 0: $(cat $SYS/dev-$K0/state 2>/dev/null); array: $(cat $SYS/array_state)"
	cat /proc/mdstat
	return 0
}

# every 4 KiB of row 0's data chunks reads as allowed
row_reads_ok() {
	# block 0: A, or B whether acknowledged or not (a failed write may
	# have landed), or an error
	fault_read_is $MD 0 4 /tmp/A.0 /tmp/B || return 1
	# chunk 1 (member 1) and chunk 2 (member 2, rebuilt from parity)
	for _k in 64 128 132 188; do
		fault_slice /tmp/A $_k 4 /tmp/A.k
		fault_read_is $MD $_k 4 /tmp/A.k || return 1
	done
}

# mdadm --fail of member 1, which the degraded array needs
fail_needed() {
	r5_dm_heal 0
	setup && degrade || return 1
	mdadm $MD --fail /dev/mapper/d1
	echo "mdadm --fail: exit $?"
	K1=$(dm_kname d1)
	cat /proc/mdstat
	echo "array_state $(cat $SYS/array_state)"
	md_member_state "$K1" faulty
}

fault_pattern /tmp/A 1024
fault_pattern /tmp/B 4
fault_slice /tmp/A 0 4 /tmp/A.0
fault_slice /tmp/A 64 64 /tmp/A.c1

ktap_plan 7
ktap_check "RAID5 on 4 members, pattern A written" setup
ktap_check "member 2 failed and removed" degrade
ktap_check "4 KiB of B at 0 while member 0 fails writes there" failing_write
ktap_check "row 0 reads A (or B where written) or an error, never other data" row_reads_ok
ktap_check "chunk 1 (member 1, not missing) reads A" \
	fault_data_is $MD 64 64 /tmp/A.c1
ktap_check "mdadm --fail of a needed member marks it faulty" fail_needed
ktap_check "row 0 still reads A or an error" row_reads_ok
mdadm --stop $MD > /dev/null 2>&1
r5_dm_teardown 4
brd_teardown
ktap_finish
