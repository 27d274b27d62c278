#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 600
#
# mdadm --fail, --remove, then --re-add of the same member of a RAID5
# (and of two RAID6 members) without a bitmap, as in-tree md behaves.
# The member's superblock is older than the array's and, without a
# bitmap, nothing records which rows changed while it was out, so the
# kernel does not take it back as an up-to-date member: mdadm --re-add
# fails ("not possible") and changes nothing.  mdadm --add of the same
# device then puts it back into its old (empty) slot as a new member: a
# full recovery.  New data is written while it is out; afterwards its
# role is the old one, the array is [n/n], every block verifies, check
# finds mismatch_cnt 0, and with other members failed the reads that need
# the rebuilt member verify.
. /harness/lib.sh
. /harness/tests/raid5/common.sh

MD=/dev/md0

# role DEV: the "Device Role" mdadm --examine reports
role() { mdadm --examine "$1" | md_field "Device Role"; }

out_and_back() { # MEMBER...
	for _m in "$@"; do
		mdadm $MD --fail "$_m" || return 1
	done
	sleep 1
	for _m in "$@"; do
		mdadm $MD --remove "$_m" || return 1
	done
	cat /proc/mdstat
}

# readd_refused MEMBER...: --re-add fails for each, array unchanged
readd_refused() {
	_before=$(mdstat_array md0)
	for _m in "$@"; do
		mdadm $MD --re-add "$_m" > /tmp/readd.out 2>&1 &&
			{ cat /tmp/readd.out; return 1; }
		cat /tmp/readd.out
		grep -q 'not possible' /tmp/readd.out || return 1
	done
	[ "$(mdstat_array md0)" = "$_before" ]
}

add_back() { # MEMBER...
	for _m in "$@"; do
		mdadm $MD --add "$_m" || return 1
	done
	cat /proc/mdstat
	sleep 1
	wait_resync md0 600
}

same_role() { # DEV WANT
	_r=$(role "$1")
	echo "$1: role '$_r', want '$2'"
	[ "$_r" = "$2" ]
}

ktap_plan 26
ktap_check "brd: five 24 MiB RAM disks" brd_setup 5 24576

# RAID5
ktap_check "raid5: create 4 members, 64K chunk" r5_create 5 default 4 64
ktap_check "raid5: data written" r5_fio write randwrite 4k 0 8M 31
R1=$(role /dev/ram1)
ktap_check "raid5: --fail, --remove ram1" out_and_back /dev/ram1
ktap_check "raid5: writes while it is out verify" \
	r5_fio write randwrite 4k 8M 4M 32
ktap_check "raid5: --re-add ram1 refused, nothing changed" \
	readd_refused /dev/ram1
ktap_check "raid5: --add ram1, recovery completes" add_back /dev/ram1
ktap_check "raid5: [4/4] [UUUU], degraded 0" md_array_as "[4/4] [UUUU]" 0
ktap_check "raid5: ram1 back in its old role" same_role /dev/ram1 "$R1"
ktap_check "raid5: all data verifies" sh -c "
	. /harness/lib.sh; . /harness/tests/raid5/common.sh
	r5_fio verify randwrite 4k 0 8M 31 && r5_fio verify randwrite 4k 8M 4M 32"
ktap_check "raid5: check: mismatch_cnt 0" md_check_clean md0 600
ktap_check "raid5: ram0 failed: reads through the re-added member verify" \
	sh -c ". /harness/lib.sh; . /harness/tests/raid5/common.sh
	mdadm $MD --fail /dev/ram0 &&
	r5_fio verify randwrite 4k 0 8M 31 && r5_fio verify randwrite 4k 8M 4M 32"
ktap_check "raid5: stop" mdadm --stop $MD

# RAID6
mdadm --zero-superblock /dev/ram0 /dev/ram1 /dev/ram2 /dev/ram3 2>/dev/null
ktap_check "raid6: create 5 members, 64K chunk" r5_create 6 default 5 64
ktap_check "raid6: data written" r5_fio write randwrite 4k 0 8M 31
R1=$(role /dev/ram1)
R3=$(role /dev/ram3)
ktap_check "raid6: --fail, --remove ram1 and ram3" \
	out_and_back /dev/ram1 /dev/ram3
ktap_check "raid6: writes with both out verify" \
	r5_fio write randwrite 4k 8M 4M 32
ktap_check "raid6: --re-add of ram1, ram3 refused, nothing changed" \
	readd_refused /dev/ram1 /dev/ram3
ktap_check "raid6: --add both, recovery completes" \
	add_back /dev/ram1 /dev/ram3
ktap_check "raid6: [5/5] [UUUUU], degraded 0" md_array_as "[5/5] [UUUUU]" 0
ktap_check "raid6: ram1 back in its old role" same_role /dev/ram1 "$R1"
ktap_check "raid6: ram3 back in its old role" same_role /dev/ram3 "$R3"
ktap_check "raid6: all data verifies" sh -c "
	. /harness/lib.sh; . /harness/tests/raid5/common.sh
	r5_fio verify randwrite 4k 0 8M 31 && r5_fio verify randwrite 4k 8M 4M 32"
ktap_check "raid6: check: mismatch_cnt 0" md_check_clean md0 600
ktap_check "raid6: ram0, ram2 failed: reads through the re-added verify" \
	sh -c ". /harness/lib.sh; . /harness/tests/raid5/common.sh
	mdadm $MD --fail /dev/ram0 && mdadm $MD --fail /dev/ram2 &&
	r5_fio verify randwrite 4k 0 8M 31 && r5_fio verify randwrite 4k 8M 4M 32"
ktap_check "raid6: stop" mdadm --stop $MD
brd_teardown
ktap_finish
