#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 900
# SLOW: five --grow requests under fio, about 1.5-2 min per implementation (TCG)
#
# Geometry changes of a running RAID5 (4 members, 64K chunk,
# left-symmetric) asked with mdadm --grow while fio writes and verifies:
# --chunk=32, --layout=left-asymmetric, --raid-devices=5 (spare ram4
# added first), --level=6 (spare ram5 added first), --bitmap=internal.
#
# The first three are asked with --backup-file: mdadm then leaves the
# data offsets where they are and reshapes in place, holding each
# region it is about to rewrite (md/suspend_lo, suspend_hi), copying it
# to the file and letting the reshape on by md/sync_max; its forked
# monitor follows the reshape to the end.  --level=6 takes no backup
# file (the data-offset path).  Then the internal bitmap is added.  On
# both implementations, for each request:
#   - mdadm --grow succeeds, the reshape runs to its end and sysfs shows
#     the new geometry (level raid_disks chunk_size layout);
#   - fio (writing during the request) sees no error.
# At the end mdadm --detail agrees, everything written before and
# during verifies, check finds mismatch_cnt 0, and it all verifies again
# after stop and assemble.
. /harness/lib.sh
. /harness/tests/raid5/common.sh

: "${IMPL:?}"
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

# grow_case NAME WANT_GEOMETRY ARGS...: the request under fio load.
# mdadm converts RAID5 to RAID6 through a "-6" layout and then restripes
# to the plain one.
grow_case() {
	_g=$1 _want=$2
	shift 2
	ktap_check "$_g: fio running" r5_bg_start "$OFF" "$OFF"
	mdadm --grow $MD "$@" > /tmp/grow.out 2>&1
	_rc=$?
	sed 's/^/# mdadm: /' /tmp/grow.out
	ktap_check "$_g: mdadm --grow succeeds" [ $_rc = 0 ]
	ktap_check "$_g: reshape runs to its end" \
		sh -c "sleep 2; . /harness/lib.sh; wait_resync md0 600 && sleep 2 && wait_resync md0 600"
	ktap_check "$_g: sysfs geometry now $_want" \
		sh -c "g='$(geometry)'; echo \"\$g\"; [ \"\$g\" = '$_want' ]"
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
# as mdadm's own suite: its monitor is a forked child, not a systemd unit
export MDADM_NO_SYSTEMCTL=1
grow_case "--chunk=32" "raid5 4 32768 2" --chunk=32 --backup-file=/tmp/bk1
grow_case "--layout=left-asymmetric" "raid5 4 32768 0" \
	--layout=left-asymmetric --backup-file=/tmp/bk2
ktap_check "add spare ram4" mdadm $MD --add /dev/ram4
grow_case "--raid-devices=5" "raid5 5 32768 0" --raid-devices=5 \
	--backup-file=/tmp/bk3
ktap_check "add spare ram5" mdadm $MD --add /dev/ram5
grow_case "--level=6" "raid6 6 32768 0" --level=6
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
ktap_check "--detail: raid6, 6 devices, 32K, left-asymmetric" \
	detail_is raid6 6 32K left-asymmetric
ktap_check "internal bitmap present" \
	sh -c "mdadm --detail $MD | grep -i 'bitmap : internal'"
ktap_check "everything written verifies" verify_all
ktap_check "check: mismatch_cnt 0" md_check_clean md0 600
ktap_check "stop, assemble, everything verifies" restart_verify
brd_teardown
ktap_finish
