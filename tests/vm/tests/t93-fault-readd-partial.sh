#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 420
#
# Issue 31 (5): a spare that failed part-way through its rebuild is not
# re-added through the bitmap shortcut.  RAID1 on d0, d1 (dm members over
# RAM disks) with an internal bitmap; the array holds random data.  d1 is
# failed, removed, wiped (superblock and data) and added back: a full
# rebuild, slowed to 2 MB/s.  Once d1's superblock records a recovery
# offset (a checkpoint), d1 is failed and removed, and then added back
# with that superblock through md/new_dev (as an incremental assembly
# would hand it to the running array).
# Past that offset d1 never held the data, so the re-add must rebuild it
# there, whatever the bitmap says: when the rebuild ends, d1's data area
# equals d0's and "check" finds no mismatch.  The bitmap is clean
# before d1 first fails and nothing is written after, so a re-add that
# trusted the bitmap would copy nothing at all.
. /harness/lib.sh
. /harness/tests/raid5/common.sh
. /harness/tests/fault/common.sh

export DM_DISABLE_UDEV=1
MD=/dev/md0
SYS=/sys/block/md0/md

setup() {
	fault_members 2 65536 || return 1
	mdadm --create $MD --run --level=1 --raid-devices=2 --metadata=1.2 \
		--bitmap=internal --bitmap-chunk=1M --assume-clean \
		/dev/mapper/d0 /dev/mapper/d1 || return 1
	OFF=$(cat $SYS/dev-$(dm_kname d0)/offset)
	SECTORS=$(($(cat $SYS/component_size) * 2))
	dd if=/dev/urandom of=$MD bs=1M oflag=direct 2>/dev/null
	echo "data offset $OFF, $SECTORS sectors"
	# every bit clear: nothing the bitmap tells to copy from here on
	wait_bitmap_dirty 0 /dev/mapper/d0
}

# the rebuild of a wiped d1 runs, slowly, until d1's superblock records
# a recovery offset; then d1 fails
partial_rebuild() {
	mdadm $MD --fail /dev/mapper/d1 && mdadm $MD --remove /dev/mapper/d1 &&
	mdadm --zero-superblock /dev/mapper/d1 || return 1
	dd if=/dev/zero of=/dev/mapper/d1 bs=1M oflag=direct 2>/dev/null
	echo 2000 > $SYS/sync_speed_max &&
	mdadm $MD --add /dev/mapper/d1 || return 1
	_i=0
	while [ $_i -lt 120 ]; do
		_ro=$(mdadm --examine /dev/mapper/d1 2>/dev/null | md_field "Recovery Offset")
		[ -n "$_ro" ] && [ "${_ro%% *}" != 0 ] && break
		sleep 0.5
		_i=$((_i + 1))
	done
	echo "d1's superblock: Recovery Offset ${_ro:-none}; $(cat $SYS/sync_completed)"
	[ -n "$_ro" ] || return 1
	mdadm $MD --fail /dev/mapper/d1 && fault_remove $MD /dev/mapper/d1 || return 1
	mdadm --examine /dev/mapper/d1 | grep -E 'Recovery Offset|Events|Device Role'
}

readd() {
	echo system > $SYS/sync_speed_max
	# the kernel judges the superblock as it is (mdadm --re-add refuses
	# a member with a recovery offset; md's own hot-add path does not)
	cat /sys/block/$(dm_kname d1)/dev > $SYS/new_dev || return 1
	# in-tree adds it as a spare and waits to be asked to use it
	echo recover > $SYS/sync_action
	sleep 1
	wait_resync md0 300 || return 1
	cat /proc/mdstat
	md_array_as "[2/2] [UU]" 0
}

same_data() {
	_a=$(r5_range_md5 /dev/ram0 "$OFF" "$SECTORS")
	_b=$(r5_range_md5 /dev/ram1 "$OFF" "$SECTORS")
	echo "d0 $_a, d1 $_b"
	[ "$_a" = "$_b" ]
}

ktap_plan 5
ktap_check "RAID1 with an internal bitmap, random data" setup
ktap_check "a full rebuild of d1 checkpoints, then d1 fails" partial_rebuild
ktap_check "d1 re-added: the rebuild ends, [UU]" readd
ktap_check "d1's data area equals d0's" same_data
ktap_check "check finds no mismatch" md_check_clean md0 300
mdadm --stop $MD > /dev/null 2>&1
r5_dm_teardown 2
brd_teardown
ktap_finish
