#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 900
# SLOW: three layouts, two failures and a double rebuild each; keeps make check under 30 min
#
# RAID6 with the three DDF layouts (ddf-zero-restart, ddf-N-restart,
# ddf-N-continue), whose Q syndrome orders data by member number with
# zero blocks where P and Q sit: for each, create (4 or 5 members), write
# crc32c-checked data, fail one member (reads rebuilt from P, or from Q
# where P is the missing one's partner), then a second (every row loses
# two of data, P and Q: the two-failure recoveries), verify, write more
# degraded, rebuild both members as spares, verify everything and check
# finds mismatch_cnt 0.  t72 proves the layouts' placement and parity
# against in-tree md; this proves the reconstruction paths on them.
. /harness/lib.sh
. /harness/tests/raid5/common.sh

MD=/dev/md0

# fail_verify DEV: DEV faulty, every block still reads back right
fail_verify() {
	mdadm $MD --fail "$1" && r5_data verify
}

# readd_both A B: both failed members removed, wiped, added back as
# spares; the recovery of both runs to its end
readd_both() {
	mdadm $MD --remove failed && mdadm --zero-superblock "$1" "$2" &&
	mdadm $MD --add "$1" "$2" && sleep 1 && wait_resync md0 600
}

# whole_verify: nothing degraded, the data of both phases verifies
whole_verify() {
	[ "$(cat /sys/block/md0/md/degraded)" = 0 ] && r5_data verify &&
	r5_fio verify randwrite 4k 16M 8M 33
}

# ddf_case LAYOUT DISKS CHUNK FIRST SECOND
ddf_case() {
	# own names: the lib helpers' _a, _l, _n... are globals
	ddf_l=$1 ddf_n=$2 ddf_c=$3 ddf_a=$4 ddf_b=$5
	ddf_w="$ddf_l, $ddf_n members, ${ddf_c}K"
	# shellcheck disable=SC2046
	mdadm --zero-superblock $(r5_members "$ddf_n") 2>/dev/null
	ktap_check "$ddf_w: create, initial sync" \
		r5_create 6 "$ddf_l" "$ddf_n" "$ddf_c"
	ktap_check "$ddf_w: data written and verified" r5_data write
	ktap_check "$ddf_w: --fail $ddf_a, data verifies" fail_verify "$ddf_a"
	ktap_check "$ddf_w: --fail $ddf_b too, data verifies with two missing" \
		fail_verify "$ddf_b"
	ktap_check "$ddf_w: degraded writes verify" \
		r5_fio write randwrite 4k 16M 8M 33
	ktap_check "$ddf_w: remove both, add them back as spares, recovery completes" \
		readd_both "$ddf_a" "$ddf_b"
	ktap_check "$ddf_w: [$ddf_n/$ddf_n], everything verifies" whole_verify
	ktap_check "$ddf_w: check: mismatch_cnt 0" md_check_clean md0 600
	mdadm --stop $MD
}

ktap_plan 25
ktap_check "brd: five 48 MiB RAM disks" brd_setup 5 49152
ddf_case ddf-zero-restart 5 64 /dev/ram1 /dev/ram3
ddf_case ddf-N-restart 5 4 /dev/ram0 /dev/ram4
ddf_case ddf-N-continue 4 512 /dev/ram2 /dev/ram1
brd_teardown
ktap_finish
