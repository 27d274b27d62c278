#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 420
#
# Issue 31 (1): a sync never copies a mirror's recorded bad range over
# the good mirrors.  3-way RAID1 (1.2, bad-block log) on d0..d2, each a
# dm-delay member whose writes go through their own table (dIw).  The
# array is written with pattern A; then writes to member 0 (slot 0, the
# first source a sync would read) fail over 1 MiB of its data, and a
# write of pattern B to that array range is acknowledged: member 0
# records the range in its bad-block log and stays in sync (both
# implementations).  Member 0 still holds A there, so any sync that
# reads it as a source would write A over B on the good mirrors.  Three
# syncs, each on a fresh array:
#   - repair (sync_action);
#   - resync after assembly with --update=resync;
#   - recovery onto a blank member (all ones, see blank()) that
#     replaces member 2.
# After each: the array reads B in that range and A around it, members
# 1 and 2 hold B (read straight from their RAM disks), a "check" finds
# no mismatch, and after stop and assembly the array still reads B.
. /harness/lib.sh
. /harness/tests/raid5/common.sh
. /harness/tests/fault/common.sh

export DM_DISABLE_UDEV=1	# no udev in the guest: dmsetup makes the nodes
MD=/dev/md0
SYS=/sys/block/md0/md
BAD_KIB=2048			# the failing range: array [2M, 3M)
LEN_KIB=1024

setup() {
	fault_members 3 65536 || return 1
	mdadm --create $MD --run --level=1 --raid-devices=3 --metadata=1.2 \
		--assume-clean /dev/mapper/d0 /dev/mapper/d1 /dev/mapper/d2 ||
		return 1
	mdadm --examine /dev/mapper/d0 | grep 'Bad Block Log' || return 1
	K0=$(dm_kname d0) || return 1
	OFF=$(cat $SYS/dev-$K0/offset)
	echo "member 0 is $K0, data offset $OFF sectors"
	fault_put $MD /tmp/A 0
}

# the write of B over a range whose writes fail on member 0
bad_write() {
	dm_swap d0w "$(lin_err /dev/ram0 $((OFF + BAD_KIB * 2)) $((LEN_KIB * 2)))" &&
	fault_put $MD /tmp/B $BAD_KIB || return 1
	echo "member 0: state $(cat $SYS/dev-$K0/state), bad_blocks:"
	cat $SYS/dev-$K0/bad_blocks
	md_member_state "$K0" in_sync > /dev/null &&
	awk -v s=$((OFF + BAD_KIB * 2)) '$1 <= s && s < $1 + $2 { f = 1 } END { exit !f }' \
		$SYS/dev-$K0/bad_blocks
}

# blank DEV: its first 16 MiB all ones.  Not zeros: mdadm --add copies
# the bad-block-log feature from member 0's superblock (which has a log
# now) without writing the new member's log, and in-tree 6.12 rejects a
# log of zeros ("dm-N does not have a valid v1.2 superblock": its loader
# refuses a zero-length entry), where all ones is an empty log to both
blank() {
	tr '\0' '\377' < /dev/zero | dd of="$1" bs=1M count=16 iflag=fullblock \
		oflag=direct 2>/dev/null
}

do_sync() {
	case $1 in
	repair)
		echo repair > $SYS/sync_action ;;
	resync)
		mdadm --stop $MD &&
		mdadm --assemble $MD --update=resync $(r5_dm_members 3) ;;
	recover)
		mdadm $MD --fail /dev/mapper/d2 && mdadm $MD --remove /dev/mapper/d2 &&
		mdadm --zero-superblock /dev/mapper/d2 &&
		blank /dev/ram2 &&
		mdadm $MD --add /dev/mapper/d2 ;;
	esac || return 1
	sleep 1
	wait_resync md0 300 && cat /proc/mdstat
}

# the array and the good mirrors hold B, and A around it
holds_b() {
	fault_data_is $MD $BAD_KIB $LEN_KIB /tmp/B &&
	fault_data_is $MD 0 $BAD_KIB /tmp/A.lo &&
	fault_data_is $MD $((BAD_KIB + LEN_KIB)) 1024 /tmp/A.hi &&
	fault_data_is /dev/ram1 $((OFF / 2 + BAD_KIB)) $LEN_KIB /tmp/B &&
	fault_data_is /dev/ram2 $((OFF / 2 + BAD_KIB)) $LEN_KIB /tmp/B
}

reassembled_holds_b() {
	mdadm --stop $MD &&
	mdadm --assemble $MD $(r5_dm_members 3) &&
	fault_data_is $MD $BAD_KIB $LEN_KIB /tmp/B
}

fault_pattern /tmp/A 4096
fault_pattern /tmp/B $LEN_KIB
fault_slice /tmp/A 0 $BAD_KIB /tmp/A.lo
fault_slice /tmp/A $((BAD_KIB + LEN_KIB)) 1024 /tmp/A.hi

ktap_plan 18
md_speed_limit 100000 200000
for s in repair resync recover; do
	ktap_check "$s: 3-way RAID1 with bad-block logs, pattern A written" setup
	ktap_check "$s: B over A where member 0 fails writes: acknowledged, recorded bad" bad_write
	ktap_check "$s: the $s ends" do_sync $s
	ktap_check "$s: the array and members 1, 2 hold B" holds_b
	ktap_check "$s: check finds no mismatch" md_check_clean md0 300
	ktap_check "$s: after stop and assembly the array reads B" reassembled_holds_b
done
md_speed_limit
mdadm --stop $MD > /dev/null 2>&1
r5_dm_teardown 3
brd_teardown
ktap_finish
