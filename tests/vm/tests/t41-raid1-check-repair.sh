#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 300
#
# RAID1 check/repair: a clean array checks with mismatch_cnt 0; after
# corrupting 16 KiB of ram1's data area behind md's back, check reports
# mismatches; repair fixes them, a second check reports 0 and the data
# still verifies.
. /harness/lib.sh

MD=/dev/md0
SIZE=16M
SYS=/sys/block/md0/md

sync_and_wait() { # action
	echo "$1" > $SYS/sync_action && sleep 1 && wait_resync md0 120
}
mismatch_is_zero() { echo "mismatch_cnt $(cat $SYS/mismatch_cnt)"; [ "$(cat $SYS/mismatch_cnt)" = 0 ]; }
mismatch_is_nonzero() { echo "mismatch_cnt $(cat $SYS/mismatch_cnt)"; [ "$(cat $SYS/mismatch_cnt)" != 0 ]; }
check_then() { sync_and_wait check && "$@"; }
corrupt_ram1() {
	_off=$(mdadm --examine /dev/ram1 | awk '/Data Offset/ { print $4 }')
	[ -n "$_off" ] || return 1
	# 16 KiB at 1 MiB into the data area, bypassing md
	dd if=/dev/urandom of=/dev/ram1 bs=4096 count=4 \
		seek=$((_off / 8 + 256)) conv=notrunc oflag=direct 2>&1
}

ktap_plan 11
ktap_check "brd: two 64 MiB RAM disks" brd_setup 2 65536
ktap_check "mdadm --create raid1" \
	mdadm --create $MD --run --level=1 --raid-devices=2 --metadata=1.2 \
	/dev/ram0 /dev/ram1
ktap_check "initial resync completes" wait_resync md0 120
ktap_check "fio write + verify" fio_write_verify $MD $SIZE
ktap_check "check on a clean array" sync_and_wait check
ktap_check "mismatch_cnt is 0" mismatch_is_zero
ktap_check "corrupt ram1 behind md" corrupt_ram1
ktap_check "check finds mismatches" check_then mismatch_is_nonzero
ktap_check "repair" sync_and_wait repair
ktap_check "check after repair: mismatch_cnt 0" check_then mismatch_is_zero
ktap_check "data verifies" fio_verify_only $MD $SIZE
cat /proc/mdstat | sed 's/^/# /'
brd_teardown
ktap_finish
