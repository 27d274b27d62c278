#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 300
#
# RAID1 barrier: random writes race with a slowed-down initial resync and
# then with a recovery onto a fresh spare; afterwards a check must find
# the mirrors identical (mismatch_cnt 0).
. /harness/lib.sh

MD=/dev/md0
SYS=/sys/block/md0/md

fio_race() { # seconds
	(cd /tmp && fio --name=race --filename=$MD --size=120M --rw=randwrite \
		--bs=4k --ioengine=libaio --iodepth=16 --direct=1 \
		--time_based --runtime="$1" --randseed=42 >/dev/null)
}
sync_running() { grep -A3 '^md0 ' /proc/mdstat | grep -Eq 'resync|recovery'; }
race_then_wait() { # seconds
	sync_running || { echo "no resync/recovery running"; return 1; }
	fio_race "$1" || return 1
	echo "${SYS}/sync_action: $(cat $SYS/sync_action)"
	echo 2000000 > $SYS/sync_speed_max
	wait_resync md0 120
}
swap_member() {
	mdadm $MD --fail /dev/ram1 && mdadm $MD --remove /dev/ram1 &&
	echo 5000 > $SYS/sync_speed_max &&
	mdadm $MD --add /dev/ram2 && sleep 1
}

ktap_plan 7
ktap_check "brd: three 128 MiB RAM disks" brd_setup 3 131072
ktap_check "mdadm --create raid1, resync slowed" sh -c \
	"mdadm --create $MD --run --level=1 --raid-devices=2 --metadata=1.2 \
	 /dev/ram0 /dev/ram1 && echo 5000 > $SYS/sync_speed_max"
ktap_check "random writes during resync" race_then_wait 6
ktap_check "check: mirrors identical after resync race" md_check_clean md0 120
ktap_check "fail ram1, recover onto ram2 (slowed)" swap_member
ktap_check "random writes during recovery" race_then_wait 6
ktap_check "check: mirrors identical after recovery race" md_check_clean md0 120
cat /proc/mdstat | sed 's/^/# /'
brd_teardown
ktap_finish
