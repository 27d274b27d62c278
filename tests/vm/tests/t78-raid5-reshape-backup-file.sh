#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 900
# SLOW: five --grow requests under fio (in-tree reshapes each), about 1.5-2 min per implementation (TCG)
#
# Geometry changes of a running RAID5 (4 members, 64K chunk,
# left-symmetric) asked with mdadm --grow while fio writes and verifies:
# --chunk=32, --layout=left-asymmetric, --raid-devices=5 (spare ram4
# added first), --level=6 (spare ram5 added first), --bitmap=internal.
#
# The first three are asked with --backup-file, and this is where the two
# implementations differ, deliberately (raid5.rst, "Reshape"): in-tree md
# reshapes through mdadm's backup file; the fork reshapes only by moving
# the data offsets (t113, t115) and must refuse the backup-file protocol
# cleanly.  --level=6 takes no backup file: both convert (the fork on its
# 4 members, in-tree on the 5 it grew to).  Both add the internal bitmap.
# So the expected outcome branches on $IMPL, and only that:
#   intree: mdadm --grow succeeds, the reshape runs to its end and sysfs
#           shows the new geometry;
#   fork:   backup-file requests: mdadm --grow fails, the kernel log says
#           why (a line naming md0 written by this request), and level,
#           raid_disks, chunk_size, layout in sysfs and mdadm --detail
#           are as before (spares stay spares, no sync action starts);
#           --level=6: as intree, on its own geometry.
# On both, fio (writing during the request) sees no error, everything
# written before and during verifies afterwards, and check finds
# mismatch_cnt 0.
. /harness/lib.sh
. /harness/tests/raid5/common.sh

impl=${IMPL:?}
MD=/dev/md0
SYS=/sys/block/md0/md

# geometry: "level raid_disks chunk_size layout" from sysfs
geometry() {
	echo "$(cat $SYS/level) $(cat $SYS/raid_disks) $(cat $SYS/chunk_size) $(cat $SYS/layout)"
}

same_geometry() {
	_g=$(geometry)
	echo "$_g"
	[ "$_g" = "$BEFORE" ]
}

# detail_is LEVEL DEVICES CHUNK LAYOUT: mdadm --detail agrees
detail_is() {
	mdadm --detail $MD > /tmp/detail || return 1
	_l=$(md_field "Raid Level" < /tmp/detail)
	_n=$(md_field "Raid Devices" < /tmp/detail)
	_c=$(md_field "Chunk Size" < /tmp/detail)
	_y=$(md_field "Layout" < /tmp/detail)
	echo "--detail: $_l, $_n devices, chunk $_c, $_y"
	[ "$_l" = "$1" ] && [ "$_n" = "$2" ] && [ "$_c" = "$3" ] &&
		[ "$_y" = "$4" ]
}

# grow_case NAME WANT_GEOMETRY FORK_WANT ARGS...: the request under fio
# load.  WANT_GEOMETRY is what intree ends with; FORK_WANT what the fork
# ends with, or "refuse" (it must keep BEFORE).  mdadm converts RAID5 to
# RAID6 through a "-6" layout and then restripes to the plain one.
grow_case() {
	_g=$1 _want=$2 _fwant=$3
	shift 3
	[ "$impl" = fork ] && [ "$_fwant" != refuse ] && _want=$_fwant
	BEFORE=$(geometry)
	dmesg -c > /dev/null
	ktap_check "$_g: fio running" r5_bg_start "$OFF" "$OFF"
	mdadm --grow $MD "$@" > /tmp/grow.out 2>&1
	_rc=$?
	sed 's/^/# mdadm: /' /tmp/grow.out
	if [ "$impl" = intree ] || [ "$_fwant" != refuse ]; then
		ktap_check "$_g: $impl: mdadm --grow succeeds" [ $_rc = 0 ]
		ktap_check "$_g: $impl: reshape runs to its end" \
			sh -c "sleep 2; . /harness/lib.sh; wait_resync md0 600 && sleep 2 && wait_resync md0 600"
		ktap_check "$_g: $impl: sysfs geometry now $_want" \
			sh -c "g='$(geometry)'; echo \"\$g\"; [ \"\$g\" = '$_want' ]"
	else
		ktap_check "$_g: fork: mdadm --grow fails" [ $_rc != 0 ]
		ktap_check "$_g: fork: kernel log says why" \
			sh -c "dmesg | grep -E 'md0.*(not supported|no reshape|refus)'"
		ktap_check "$_g: fork: sysfs geometry unchanged ($BEFORE)" \
			sh -c "g='$(geometry)'; echo \"\$g\"; [ \"\$g\" = '$BEFORE' ] &&
			[ \"\$(cat $SYS/sync_action)\" = idle ]"
	fi
	ktap_check "$_g: fio during the request: no error" r5_bg_end
	OFF=$((OFF + 4))
}

verify_all() {
	r5_fio verify randwrite 4k 0 8M 31 && r5_bg_verify 8 "$OFF"
}

restart_verify() {
	mdadm --stop $MD || return 1
	# shellcheck disable=SC2046
	mdadm --assemble $MD $(r5_members 6) || return 1
	cat /proc/mdstat
	verify_all
}

ktap_plan 35
ktap_check "brd: six 24 MiB RAM disks" brd_setup 6 24576
ktap_check "raid5: create 4 members, 64K chunk" r5_create 5 default 4 64
ktap_check "raid5: data written" r5_fio write randwrite 4k 0 8M 31
OFF=8
# A backup file for the restriping requests: without one mdadm refuses
# on the fork by itself (it has no md/dev-*/new_offset to restripe in
# place), so the kernel would never see the request.
grow_case "--chunk=32" "raid5 4 32768 2" refuse --chunk=32 \
	--backup-file=/tmp/bk1
grow_case "--layout=left-asymmetric" "raid5 4 32768 0" refuse \
	--layout=left-asymmetric --backup-file=/tmp/bk2
ktap_check "add spare ram4" mdadm $MD --add /dev/ram4
grow_case "--raid-devices=5" "raid5 5 32768 0" refuse --raid-devices=5 \
	--backup-file=/tmp/bk3
ktap_check "add spare ram5" mdadm $MD --add /dev/ram5
grow_case "--level=6" "raid6 6 32768 0" "raid6 5 65536 2" --level=6
# An internal bitmap is no reshape: both add it under load (issue 14).
BEFORE=$(geometry)
ktap_check "--bitmap=internal: fio running" r5_bg_start "$OFF" "$OFF"
ktap_check "--bitmap=internal: mdadm --grow succeeds" \
	mdadm --grow $MD --bitmap=internal
ktap_check "--bitmap=internal: /proc/mdstat shows the bitmap" \
	sh -c "grep -A3 '^md0' /proc/mdstat | grep -q 'bitmap:'"
ktap_check "--bitmap=internal: geometry unchanged ($BEFORE)" same_geometry
ktap_check "--bitmap=internal: fio during the request: no error" r5_bg_end
OFF=$((OFF + 4))
if [ "$impl" = intree ]; then
	ktap_check "intree: --detail: raid6, 6 devices, 32K, left-asymmetric" \
		detail_is raid6 6 32K left-asymmetric
	ktap_check "intree: internal bitmap present" \
		sh -c "mdadm --detail $MD | grep -i 'bitmap : internal'"
else
	ktap_check "fork: --detail: raid6, 5 devices, 64K, left-symmetric" \
		detail_is raid6 5 64K left-symmetric
	ktap_check "fork: internal bitmap present" \
		sh -c "mdadm --detail $MD | grep -i 'bitmap : internal'"
fi
ktap_check "everything written verifies" verify_all
ktap_check "check: mismatch_cnt 0" md_check_clean md0 600
ktap_check "stop, assemble, everything verifies" restart_verify
brd_teardown
ktap_finish
