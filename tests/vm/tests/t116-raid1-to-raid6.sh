#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 600
# SLOW: three level changes and two reshapes under fio, about 1 min per implementation (TCG)
#
# RAID1 -> RAID5 -> RAID6 on a running array (issue 37), with fio
# writing and verifying through each step, the same test for both
# implementations: a RAID1 of 2 on 24 MiB RAM disks (1.2 superblocks,
# mdadm's data offset leaves room before the data), written first.
#  - --level=5: a takeover, nothing moves: a RAID5 of 2, 64K chunk,
#    left-symmetric;
#  - a spare, --raid-devices=3: a reshape (the data offsets move down);
#  - a spare, --level=6: a takeover to RAID6 with an empty Q slot, a
#    restripe to a plain RAID6 layout, then the spare rebuilt as Q.
# Each time mdadm succeeds, everything settles at the geometry asked
# for, fio beside it saw no error and all data verifies; at the end check
# finds nothing and the array assembles again as it was.
. /harness/lib.sh
. /harness/tests/raid5/common.sh

MD=/dev/md0
OFF=8

verify_all() {
	r5_fio verify randwrite 4k 0 8M 31 && r5_bg_verify 8 "$OFF"
}

# step WANT ARGS...: mdadm --grow ARGS under fio; everything settles
# at geometry WANT and verifies
step() {
	r5_grow_under_fio "$OFF" "$@" || return 1
	OFF=$((OFF + 4))
	verify_all
}

create_raid1() {
	mdadm --create $MD --run --level=1 --raid-devices=2 --metadata=1.2 \
		/dev/ram0 /dev/ram1 && wait_resync md0 600
}

restart() {
	_g=$(r5_geometry)
	mdadm --stop $MD || return 1
	mdadm --assemble $MD /dev/ram0 /dev/ram1 /dev/ram2 /dev/ram3 || return 1
	r5_settled && [ "$(r5_geometry)" = "$_g" ] && verify_all
}

ktap_plan 10
ktap_check "brd: four 24 MiB RAM disks" brd_setup 4 24576
ktap_check "raid1: create 2 members" create_raid1
ktap_check "raid1: data written" r5_fio write randwrite 4k 0 8M 31
ktap_check "--level=5: a RAID5 of 2, 64K chunk, left-symmetric" \
	step "raid5 2 65536 2" --level=5
ktap_check "add a spare" mdadm $MD --add /dev/ram2
ktap_check "--raid-devices=3: reshaped onto the spare" \
	step "raid5 3 65536 2" --raid-devices=3
ktap_check "add a spare" mdadm $MD --add /dev/ram3
ktap_check "--level=6: takeover, restripe, the spare rebuilt as Q" \
	step "raid6 4 65536 2" --level=6
ktap_check "check: mismatch_cnt 0" md_check_clean md0 600
ktap_check "stop, assemble: same geometry, everything verifies" restart
brd_teardown
ktap_finish
