#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 600
# SLOW: four restripes and level changes under fio, about 50 s per implementation (TCG); make check runs a grow in t114
#
# In-place restripes and level changes of a running RAID5 without a
# backup file (issue 37), with fio writing and verifying through each,
# the same test for both implementations: 4 members on 24 MiB RAM disks,
# 1.2 superblocks (mdadm's data offset leaves room before the data), 64K
# chunk, left-symmetric, all of it written first.  In turn:
#  - --chunk=128: mdadm moves the data offsets (forwards, down: more room
#    before the data than after);
#  - --layout=left-asymmetric: the room before and after is even now,
#    so mdadm moves them up and the reshape walks the array backwards;
#  - --level=6 with a spare added: a takeover to RAID6 with an empty Q
#    slot (layout left-asymmetric-6), then a restripe back to a plain
#    RAID6 layout, degraded, after which the spare is rebuilt;
#  - --level=5: a restripe to the -6 layout, then the takeover back to
#    RAID5, the former Q member a spare.
# Each time: mdadm succeeds, the reshape and any rebuild end, sysfs shows
# the geometry mdadm asked for, fio beside it saw no error, and all data
# verifies.  At the end check finds nothing and the array assembles
# again with the same geometry.
. /harness/lib.sh
. /harness/tests/raid5/common.sh

MD=/dev/md0
OFF=16


# change WANT ARGS...: mdadm --grow ARGS under fio; everything settles
# at geometry WANT and verifies
change() {
	r5_grow_under_fio "$OFF" "$@" || return 1
	OFF=$((OFF + 4))
	verify_all
}

verify_all() {
	r5_fio verify randwrite 4k 0 16M 31 && r5_bg_verify 16 "$OFF"
}

restart() {
	_g=$(r5_geometry)
	mdadm --stop $MD || return 1
	# the four members and the former Q member, a spare now
	# shellcheck disable=SC2046
	mdadm --assemble $MD $(r5_members 5) || return 1
	r5_settled && [ "$(r5_geometry)" = "$_g" ] && verify_all
}

ktap_plan 10
ktap_check "brd: five 24 MiB RAM disks" brd_setup 5 24576
ktap_check "raid5: create 4 members, 64K chunk" r5_create 5 default 4 64
ktap_check "raid5: data written" r5_fio write randwrite 4k 0 16M 31
ktap_check "--chunk=128 (data moves down, forwards)" \
	change "raid5 4 131072 2" --chunk=128
ktap_check "--layout=left-asymmetric (data moves up, backwards)" \
	change "raid5 4 131072 0" --layout=left-asymmetric
ktap_check "add a spare" mdadm $MD --add /dev/ram4
ktap_check "--level=6: takeover, restripe, the spare rebuilt as Q" \
	change "raid6 5 131072 0" --level=6
ktap_check "--level=5: restripe to -6, takeover back to RAID5" \
	change "raid5 4 131072 0" --level=5
ktap_check "check: mismatch_cnt 0" md_check_clean md0 600
ktap_check "stop, assemble: same geometry, everything verifies" restart
brd_teardown
ktap_finish
