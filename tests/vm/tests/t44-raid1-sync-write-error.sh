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

dm_kname() { # NAME: kernel name (dm-N) of a dm device
	for _b in /sys/block/dm-*; do
		[ "$(cat "$_b/dm/name" 2>/dev/null)" = "$1" ] && { basename "$_b"; return 0; }
	done
	return 1
}

dm_setup() {
	modprobe dm-mod && modprobe dm-delay || return 1
	SZ=$(blockdev --getsz /dev/ram1)
	dmsetup create m0 --table "0 $SZ linear /dev/ram0 0" &&
	dmsetup create m1r --table "0 $SZ linear /dev/ram1 0" &&
	dmsetup create m1w --table "0 $SZ linear /dev/ram1 0" &&
	dmsetup create m1 --table "0 $SZ delay /dev/mapper/m1r 0 0 /dev/mapper/m1w 0 0"
}

dm_teardown() {
	for _n in m1 m1r m1w m0; do dmsetup remove "$_n" 2>/dev/null; done
	return 0
}

# m1w_fail START LEN: writes to ram1's [START, START+LEN) fail
m1w_fail() {
	_end=$(($1 + $2))
	dmsetup load m1w --table "$(printf '0 %s linear /dev/ram1 0\n%s %s error\n%s %s linear /dev/ram1 %s\n' \
		"$1" "$1" "$2" "$_end" $((SZ - _end)) "$_end")" && dmsetup resume m1w
}

member_faulty() { # KNAME
	cat "/sys/block/md0/md/dev-$1/state"
	case ",$(cat "/sys/block/md0/md/dev-$1/state")," in
	*,faulty,*) return 0 ;;
	esac
	return 1
}

array_degraded() {
	mdstat_array md0
	echo "degraded: $(cat /sys/block/md0/md/degraded)"
	mdstat_array md0 | grep -qF "[2/1] [U_]" &&
	[ "$(cat /sys/block/md0/md/degraded)" = 1 ]
}

in_sync() {
	echo "resync_start $(cat /sys/block/md0/md/resync_start)"
	[ "$(cat /sys/block/md0/md/resync_start)" = none ]
}

ktap_plan 10
md_speed_limit
ktap_check "brd: two 64 MiB RAM disks" brd_setup 2 65536
ktap_check "dm: m0 linear; m1 = delay(reads m1r, writes m1w)" dm_setup
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
ktap_check "writes to member 1 fail 4 MiB into the data" m1w_fail $((OFF + 8192)) 65536
ktap_check "assemble --update=resync" \
	mdadm --assemble $MD --update=resync /dev/mapper/m0 /dev/mapper/m1
sleep 1
ktap_check "resync ends" wait_resync md0 120
ktap_check "member 1 faulty" member_faulty "$K1"
ktap_check "degraded: [2/1] [U_], degraded 1" array_degraded
ktap_check "array in sync (one mirror left)" in_sync
ktap_check "array reads and takes writes that verify" fio_write_verify $MD 4M
mdadm --stop $MD > /dev/null 2>&1
dm_teardown
brd_teardown
ktap_finish
