#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 240
#
# A resync whose writes to one member fail.  Member 1 is a dm-delay device
# (0 ms) that sends writes to its own dm table (m1w) over ram1; the array
# is created clean, its bad-block logs are dropped (--update=no-bbl, so a
# failed sync write cannot be parked as a bad block on in-tree md), m1w
# gets an error range 4 MiB into the data, and the array is assembled
# with --update=resync.  The resync reads member 0 and writes member 1:
# the failed sync write fails member 1 (on the fork: from raid1's worker,
# the one place a sync write that failed is finished), the array runs
# [2/1] [U_], the resync ends with the array in sync (one mirror left),
# and the array still reads and takes writes that verify.
. /harness/lib.sh

export DM_DISABLE_UDEV=1	# no udev in the guest: dmsetup makes the nodes
MD=/dev/md0

in_sync() {
	echo "resync_start $(cat /sys/block/md0/md/resync_start)"
	[ "$(cat /sys/block/md0/md/resync_start)" = none ]
}

ktap_plan 10
md_speed_limit
ktap_check "brd: two 64 MiB RAM disks" brd_setup 2 65536
ktap_check "dm: m0 linear; m1 = delay(reads m1r, writes m1w)" dm_split_setup
K1=$(dm_kname m1)
echo "# member 1 is $K1"
ktap_check "create clean, drop the bad-block logs" sh -c "
	mdadm --create $MD --run --assume-clean --level=1 --raid-devices=2 \
		--metadata=1.2 /dev/mapper/m0 /dev/mapper/m1 &&
	mdadm --stop $MD &&
	mdadm --assemble $MD --update=no-bbl /dev/mapper/m0 /dev/mapper/m1 &&
	! mdadm --examine /dev/mapper/m1 | grep -q 'Bad Block Log' &&
	mdadm --stop $MD"
OFF=$(mdadm --examine /dev/mapper/m1 | md_field "Data Offset" | cut -d' ' -f1)
ktap_check "writes to member 1 fail 4 MiB into the data" \
	dm_swap m1w "$(lin_err /dev/ram1 $((OFF + 8192)) 65536)"
ktap_check "assemble --update=resync" \
	mdadm --assemble $MD --update=resync /dev/mapper/m0 /dev/mapper/m1
sleep 1
ktap_check "resync ends" wait_resync md0 120
ktap_check "member 1 faulty" md_member_state "$K1" faulty
ktap_check "degraded: [2/1] [U_], degraded 1" md_array_as "[2/1] [U_]" 1
ktap_check "array in sync (one mirror left)" in_sync
ktap_check "array reads and takes writes that verify" fio_write_verify $MD 4M
mdadm --stop $MD > /dev/null 2>&1
dm_split_teardown
brd_teardown
ktap_finish
