#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 300
#
# RAID0 <-> RAID5 on a running array (issue 37), the same test for both
# implementations: a RAID0 of 3 on 24 MiB RAM disks (one zone: every
# member as large), 64K chunk, written with fio first.
#  - mdadm --grow --level=5 --layout=parity-last: a takeover, nothing
#    moves: a RAID5 of 4 with the parity slot empty (degraded 1, the
#    size unchanged); a spare added is rebuilt as the parity member;
#  - mdadm --grow --level=0: mdadm removes the parity member, then the
#    takeover back: a RAID0 of 3, the size unchanged, layout 0 (which
#    the superblock does not record: assembled again it reads -1).
# After each step the data verifies; after the rebuild check is clean;
# at the end the RAID0 assembles again and verifies.
. /harness/lib.sh
. /harness/tests/raid5/common.sh

MD=/dev/md0
SYS=/sys/block/md0/md

create() {
	# shellcheck disable=SC2046
	mdadm --create $MD --run --level=0 --raid-devices=3 --chunk=64 \
		--metadata=1.2 $(r5_members 3) || return 1
	SIZE=$(blockdev --getsz $MD)
}

to_raid5() {
	mdadm --grow $MD --level=5 --layout=parity-last && cat /proc/mdstat &&
		r5_taken_over raid5 4 5 1 && r5_fio verify randwrite 4k 0 8M 31
}

rebuilt() {
	mdadm $MD --add /dev/ram3 && sleep 1 && wait_resync md0 300 &&
		cat /proc/mdstat && r5_taken_over raid5 4 5 0 &&
		md_check_clean md0 300 && r5_fio verify randwrite 4k 0 8M 31
}

to_raid0() {
	mdadm --grow $MD --level=0 && cat /proc/mdstat &&
		r5_taken_over raid0 3 0 - && r5_fio verify randwrite 4k 0 8M 31
}

restart() {
	mdadm --stop $MD || return 1
	# shellcheck disable=SC2046
	mdadm --assemble $MD $(r5_members 3) && r5_taken_over raid0 3 -1 - &&
		r5_fio verify randwrite 4k 0 8M 31
}

ktap_plan 7
ktap_check "brd: four 24 MiB RAM disks" brd_setup 4 24576
ktap_check "raid0: create 3 members, 64K chunk" create
ktap_check "raid0: data written" r5_fio write randwrite 4k 0 8M 31
ktap_check "--level=5 --layout=parity-last: RAID5 of 4, parity slot empty, data verifies" \
	to_raid5
ktap_check "a spare is rebuilt as the parity member; check clean" rebuilt
ktap_check "--level=0: RAID0 of 3 again, data verifies" to_raid0
ktap_check "stop, assemble: RAID0 of 3, data verifies" restart
brd_teardown
ktap_finish
