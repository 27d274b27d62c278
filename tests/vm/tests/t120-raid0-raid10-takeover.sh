#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 300
# SLOW: a takeover each way with a rebuild, about 16 s per implementation (TCG); t117 covers md_takeover() in make check
#
# RAID0 <-> RAID10 on a running array (issue 37), the same test for both
# implementations: a RAID0 of 2 on 24 MiB RAM disks (one zone), 64K
# chunk, written with fio first.
#  - mdadm --grow --level=10 --add ram2 ram3: a takeover, nothing moves:
#    a RAID10 of 4, near-2 copies (layout 258), the RAID0 members in
#    slots 0 and 2, the size unchanged; the two added members are
#    rebuilt as the second copies (slots 1 and 3), and check is clean;
#  - mdadm --grow --level=0: mdadm fails and removes one member of each
#    pair, then the takeover back: a RAID0 of 2, the size unchanged.
# After each step the data verifies and md/rdN names the member mdadm
# placed there; at the end the RAID0 assembles again and verifies.
. /harness/lib.sh
. /harness/tests/raid5/common.sh

MD=/dev/md0
SYS=/sys/block/md0/md

# slot_of DEV: the slot md/dev-DEV/slot says
slot_of() {
	cat $SYS/dev-"$1"/slot
}

create() {
	mdadm --create $MD --run --level=0 --raid-devices=2 --chunk=64 \
		--metadata=1.2 /dev/ram0 /dev/ram1 || return 1
	SIZE=$(blockdev --getsz $MD)
}

to_raid10() {
	mdadm --grow $MD --level=10 --add /dev/ram2 /dev/ram3 || return 1
	cat /proc/mdstat
	echo "slots: ram0 $(slot_of ram0), ram1 $(slot_of ram1)"
	[ "$(slot_of ram0)" = 0 ] && [ "$(slot_of ram1)" = 2 ] &&
		r5_fio verify randwrite 4k 0 8M 31
}

rebuilt() {
	sleep 1 && wait_resync md0 300 && cat /proc/mdstat &&
		r5_taken_over raid10 4 258 0 && md_check_clean md0 300 &&
		r5_fio verify randwrite 4k 0 8M 31 &&
		r5_fio write randwrite 4k 8M 4M 32
}

to_raid0() {
	mdadm --grow $MD --level=0 || return 1
	cat /proc/mdstat
	r5_taken_over raid0 2 0 - && r5_fio verify randwrite 4k 0 8M 31 &&
		r5_fio verify randwrite 4k 8M 4M 32
}

restart() {
	# the members mdadm kept, by slot
	_m="/dev/$(basename "$(readlink -f $SYS/rd0)" | sed 's/^dev-//')"
	_m="$_m /dev/$(basename "$(readlink -f $SYS/rd1)" | sed 's/^dev-//')"
	echo "members: $_m"
	mdadm --stop $MD || return 1
	# shellcheck disable=SC2086
	mdadm --assemble $MD $_m
	cat /proc/mdstat
	[ "$(cat $SYS/level)" = raid0 ] && [ "$(cat $SYS/raid_disks)" = 2 ] &&
		r5_fio verify randwrite 4k 0 8M 31 &&
		r5_fio verify randwrite 4k 8M 4M 32
}

ktap_plan 7
ktap_check "brd: four 24 MiB RAM disks" brd_setup 4 24576
ktap_check "raid0: create 2 members, 64K chunk" create
ktap_check "raid0: data written" r5_fio write randwrite 4k 0 8M 31
ktap_check "--level=10 --add 2: RAID10 near-2 of 4, members in slots 0 and 2, data verifies" \
	to_raid10
ktap_check "the added members are rebuilt as second copies; check clean" \
	rebuilt
ktap_check "--level=0: RAID0 of 2 again, data verifies" to_raid0
ktap_check "stop, assemble: RAID0 of 2, data verifies" restart
brd_teardown
ktap_finish
