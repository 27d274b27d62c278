#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 600
#
# mdadm --grow --bitmap=internal and --bitmap=none on a running raid1
# while fio writes (issue 14, acceptance 5): the bitmap appears (mdstat
# line, --detail, magic on both members), goes away, comes back; fio's
# verify pass finds every block as written and "check" finds the
# mirrors identical.  With the bitmap on, md/component_size beyond the
# members' room is ENOSPC (the room is checked before the bitmap), the
# size unchanged.
. /harness/lib.sh

MD=/dev/md0

has_bitmap() {
	mdstat_array md0 | grep -q 'bitmap:' &&
		[ "$(mdadm --detail $MD | md_field 'Intent Bitmap')" = Internal ] ||
		return 1
	for _r in ram0 ram1; do
		echo 3 > /proc/sys/vm/drop_caches
		[ "$(mdadm --examine-bitmap /dev/$_r | md_field Magic)" = 6d746962 ] ||
			return 1
	done
}

no_bitmap() {
	! mdstat_array md0 | grep -q 'bitmap:' &&
		[ "$(cat /sys/block/md0/md/bitmap/location)" = none ]
}

grow_under_load() {
	mdadm --create $MD --run --level=1 --raid-devices=2 --metadata=1.2 \
		--bitmap=none --size=98304 /dev/ram0 /dev/ram1 || return 1
	wait_resync md0 300 || return 1
	fio_write_verify $MD 64M > /tmp/fio.out 2>&1 &
	_pid=$!
	sleep 2
	mdadm --grow $MD --bitmap=internal || { wait $_pid; return 1; }
	cat /proc/mdstat
	has_bitmap || { echo "no bitmap after --grow --bitmap=internal"; wait $_pid; return 1; }
	sleep 3
	mdadm --grow $MD --bitmap=none || { wait $_pid; return 1; }
	no_bitmap || { echo "bitmap left after --bitmap=none"; wait $_pid; return 1; }
	sleep 2
	mdadm --grow $MD --bitmap=internal || { wait $_pid; return 1; }
	has_bitmap || { wait $_pid; return 1; }
	wait $_pid
	fio_log_ok $? || return 1
	md_check_clean md0 300 || return 1
	mdadm --stop $MD || return 1
	mdadm --assemble $MD /dev/ram0 /dev/ram1 || return 1
	has_bitmap || return 1
	fio_verify_only $MD 64M > /tmp/fio.out 2>&1 ||
		{ cat /tmp/fio.out; return 1; }
}

ktap_plan 3
ktap_check "brd: two 128 MiB RAM disks" brd_setup 2 131072
ktap_check "grow --bitmap internal/none/internal under fio, data verifies" grow_under_load
ktap_check "with the bitmap, component_size beyond the members: ENOSPC, unchanged" \
	sysfs_expect_errno 28 /sys/block/md0/md/component_size 1048576
mdadm --stop $MD
brd_teardown
ktap_finish
