#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 900
# SLOW: every RAID0 geometry, the layout rule and member faults, about 2 min per implementation (TCG); make check keeps t100 and the unit-tested geometry
#
# RAID0 (issue 36) as an admin and the data see it, on members that are
# device-mapper slices of one RAM disk (raid0/common.sh), so that they
# can have any size and fail on demand.  What in-tree md does is the
# reference: every check passes on it.
#
#  - 2, 3 and 4 members, equal sizes (one zone) and unequal (up to four
#    zones), 4K/64K/512K chunks: /proc/mdstat and mdadm --detail (level,
#    members, chunk, layout, Array Size = the sum of the members' usable
#    sizes from their superblocks, each rounded down to the chunk);
#    random blocks written through md0 are found on the member and at
#    the sector that the zone geometry computed by the test puts them,
#    for the original and the alternate multi-zone layout (the sizes are
#    chosen so that the two differ, so a layout mix-up cannot pass); the
#    last sector works; fio crc32c data around every zone boundary, at
#    both ends and inside every zone verifies, and again after
#    --stop/--assemble.
#  - The layout rule: a multi-zone array whose superblocks record no
#    layout (1.2 made with mdadm --layout=dangerous; any 0.90 array)
#    does not start while raid0.default_layout is 0, and the kernel log
#    tells the admin to set raid0.default_layout; it starts with 1 or 2
#    and places data by that layout (data written under 2 fails to
#    verify under 1 and verifies under 2 again); mdadm
#    --update=layout-alternate records the layout, and the array starts
#    at 0 from then on.  A single-zone array without a layout starts at
#    0, and so does one whose second zone has a single member (where the
#    layouts agree).  mdadm 4.2 makes no 0.90 RAID0 at all, so the 0.90
#    array is a RAID1's superblocks rewritten (r0_sb090_raid0).
#  - Member I/O errors: while one member fails every I/O, reading or
#    writing a block on it fails, blocks on the other members read back
#    as written, the array stays clean, and once the member works again
#    everything verifies: an error, never wrong data.
#  - What RAID0 has not got: no sync_action (nothing to check); mdadm
#    --fail is refused yet marks the array broken (writes fail, reads
#    work) until it is stopped; mdadm --add is refused.
. /harness/lib.sh
. /harness/tests/raid0/common.sh

# mk GLAY LAYOUT CHUNK_KIB META KIB...: fresh slices of those sizes, a
# RAID0 over all of them (LAYOUT as mdadm --layout takes it, or
# default); DEVS, N and the geometry (layout GLAY) set
mk() {
	_gl=$1 _lay=$2 _chunk=$3 _meta=$4
	shift 4
	r0_slices "$@" > /dev/null || return 1
	N=$#
	DEVS=$(r0_devs 0 $#)
	_l="--layout=$_lay"
	[ "$_lay" = default ] && _l=
	# shellcheck disable=SC2086 # word splitting on purpose
	mdadm --create "$R0_MD" --run --level=0 --raid-devices=$N \
		--chunk="$_chunk" --metadata="$_meta" $_l $DEVS < /dev/null || return 1
	cat /proc/mdstat
	geom "$_gl"
}

# shellcheck disable=SC2086
geom() { r0_geom raid0 "$1" $DEVS && r0_geom_show; }

# status_right CHUNK_KIB LAYOUT: mdstat, --detail fields, size
status_right() {
	r0_mdstat_right raid0 "super 1.2 ${1}k chunks" || return 1
	r0_detail_has "Raid Level" raid0 "Raid Devices" "$N" "Total Devices" "$N" \
		"Chunk Size" "${1}K" Layout "$2" State clean || return 1
	r0_size_right
}

placed_differ() { r0_layouts_differ && r0_placed; }
write_all() { r0_tail && r0_data 1 write && r0_data 2 write; }
verify_all() { r0_data 1 verify && r0_data 2 verify; }

# reassemble_verify: stop, assemble from DEVS, everything verifies
reassemble_verify() {
	mdadm --stop "$R0_MD" || return 1
	# shellcheck disable=SC2086
	mdadm --assemble "$R0_MD" $DEVS || return 1
	mdstat_array md0
	verify_all
}

# one_case NAME GLAY LAYOUT CHUNK_KIB DETAIL_LAYOUT KIB...: five results
one_case() {
	_nm=$1 _gl=$2 _lay=$3 _ck=$4 _dl=$5
	shift 5
	ktap_check "$_nm: created" mk "$_gl" "$_lay" "$_ck" 1.2 "$@"
	ktap_check "$_nm: /proc/mdstat, --detail, Array Size" status_right "$_ck" "$_dl"
	if [ "${G_NZ:-1}" -gt 1 ]; then
		ktap_check "$_nm: blocks land where layout $_gl puts them (and not the other)" \
			placed_differ
	else
		ktap_check "$_nm: blocks land where the striping puts them" r0_placed
	fi
	ktap_check "$_nm: last sector; data across zones and ends verifies" write_all
	ktap_check "$_nm: stop, assemble, everything verifies" reassemble_verify
}

# ---- the layout rule -------------------------------------------------------

# not_running: md0 does not run (an inactive md0 is stopped)
not_running() {
	if mdstat_array md0 | grep -q '^md0 : active'; then
		mdstat_array md0
		return 1
	fi
	mdadm --stop "$R0_MD" > /dev/null 2>&1
	return 0
}

# create_unknown META KIB...: a multi-zone RAID0 whose superblocks
# record no layout (1.2: mdadm --layout=dangerous; 0.90: made from a
# RAID1's superblocks, then assembled), at default_layout 0: mdadm
# fails, md0 does not run
create_unknown() {
	_meta=$1
	shift
	r0_slices "$@" > /dev/null || return 1
	r0_param 0 || return 1
	N=$#
	DEVS=$(r0_devs 0 $#)
	if [ "$_meta" = 0.90 ]; then
		# shellcheck disable=SC2086
		r0_create090 64 $DEVS || return 1
		r0_log_mark
		# shellcheck disable=SC2086
		mdadm --assemble "$R0_MD" $DEVS && { cat /proc/mdstat; return 1; }
	else
		r0_log_mark
		# shellcheck disable=SC2086
		mdadm --create "$R0_MD" --run --level=0 --raid-devices=$N --chunk=64 \
			--metadata="$_meta" --layout=dangerous $DEVS < /dev/null &&
			{ cat /proc/mdstat; return 1; }
	fi
	not_running
}

# log_says_default_layout: the kernel log names the parameter to set
log_says_default_layout() {
	r0_log_since | grep -i raid0
	r0_log_since | grep -q 'raid0\.default_layout'
}

# start_with V: stopped, default_layout V, then md0 assembles from DEVS
start_with() {
	md_stop_all
	r0_param "$1" || return 1
	# shellcheck disable=SC2086
	mdadm --assemble "$R0_MD" $DEVS || return 1
	mdstat_array md0
}

# examine_layout WANT: every member's superblock shows Layout WANT
# (empty: no Layout line, the layout is not recorded)
examine_layout() {
	for _d in $DEVS; do
		_v=$(mdadm --examine "$_d" | md_field Layout)
		echo "$_d: Layout '$_v'"
		[ "$_v" = "$1" ] || return 1
	done
}

# placed_as LAYOUT: layout LAYOUT is in force: blocks land there
placed_as() { geom "$1" && placed_differ; }
placed_write() { placed_as "$1" && write_all; }

# wrong_layout_fails: the data written under one layout does not verify
# under the other (nothing is written here)
wrong_layout_fails() {
	geom 1 > /dev/null || return 1
	if r0_data 1 verify; then
		echo "data written under layout 2 verified under layout 1"
		return 1
	fi
	echo "(that verify failed, as it must)"
}

back_to_2() { start_with 2 && geom 2 > /dev/null && verify_all; }

# update_alternate: at default_layout 0, mdadm --assemble
# --update=layout-alternate records the layout and the array starts
update_alternate() {
	md_stop_all
	r0_param 0 || return 1
	# shellcheck disable=SC2086
	mdadm --assemble "$R0_MD" --update=layout-alternate $DEVS || return 1
	mdstat_array md0
	examine_layout alternate &&
	r0_detail_has Layout alternate > /dev/null
}

# recorded_verify: stopped and assembled at default_layout 0 again:
# runs, data verifies
recorded_verify() {
	start_with 0 && geom 2 > /dev/null && verify_all
}

# starts_unknown KIB...: a RAID0 over slices of those sizes made with
# --layout=dangerous at default_layout 0 runs: mdadm --detail says the
# layout is unknown; blocks land right, data verifies after stop/assemble
starts_unknown() {
	r0_param 0 || return 1
	mk 1 dangerous 64 1.2 "$@" || return 1
	examine_layout "" && r0_detail_has Layout -unknown- > /dev/null &&
	r0_placed && write_all && reassemble_verify
}

# v090_runs: the 0.90 array refused at 0 runs at default_layout 1:
# mdstat has no "super", the original placement, data verifies after
# stop/assemble
v090_runs() {
	start_with 1 || return 1
	geom 1 || return 1
	r0_mdstat_right raid0 "64k chunks" || return 1
	r0_size_right && placed_differ && write_all && reassemble_verify
}

# ---- errors, --fail, --add ---------------------------------------------------

# mk_err_array: RAID0 over s0..s2 (16 MiB, 64K chunks), data sets 1 and 2
# written, the first sample block of each member remembered; s3 is
# spare, for --add
mk_err_array() {
	r0_slices 16384 16384 16384 16384 > /dev/null || return 1
	DEVS=$(r0_devs 0 3)
	N=3
	# shellcheck disable=SC2086
	mdadm --create "$R0_MD" --run --level=0 --raid-devices=3 --chunk=64 \
		--metadata=1.2 $DEVS < /dev/null || return 1
	geom 1 && write_all && snap 0 1 2
}

heal_verify() {
	r0_slice_heal 1 || return 1
	reads_same 0 1 2 && verify_all
}

reassemble_clean() {
	reassemble_verify || return 1
	array_state_is clean && reads_same 0 1 2
}

# add_refused: mdadm --add of a blank s3 fails, md0 keeps 3 members
add_refused() {
	r0_zero /dev/mapper/s3 || return 1
	if mdadm "$R0_MD" --add /dev/mapper/s3; then
		echo "mdadm --add succeeded"
		mdadm --detail "$R0_MD"
		return 1
	fi
	mdstat_array md0
	r0_detail_has "Raid Devices" 3 "Total Devices" 3 State clean > /dev/null
}

ktap_plan 47
ktap_check "raid0 module loaded, default_layout 0" r0_param 0

# ---- geometries ----
# Usable sizes are the slice less mdadm's 1 MiB data offset; the
# multi-zone ones give zone 0 a number of chunks that the next zone's
# member count does not divide, so the layouts differ from zone 1 on.
one_case "2 equal, 4K" 1 default 4 -unknown- 16384 16384
one_case "3 equal, 512K" 1 default 512 -unknown- 20480 20480 20480
one_case "4 unequal (4 zones), 64K, mdadm's default layout" 1 default 64 original \
	13376 25600 19456 31744
one_case "3 unequal (2 zones), 512K, --layout=alternate" 2 alternate 512 alternate \
	17920 33792 33792

# ---- the layout rule ----
ktap_check "1.2, no layout recorded, 2 zones, default_layout 0: does not start" \
	create_unknown 1.2 16448 32768 32768
ktap_check "kernel log tells to set raid0.default_layout" log_says_default_layout
ktap_check "superblocks record no layout" examine_layout ""
ktap_check "default_layout 2: starts" start_with 2
ktap_check "default_layout 2: alternate placement, data verifies" placed_write 2
ktap_check "default_layout 1: starts" start_with 1
ktap_check "default_layout 1: data written under 2 does not verify" \
	wrong_layout_fails
ktap_check "default_layout 2 again: everything verifies" back_to_2
ktap_check "--update=layout-alternate at default_layout 0: starts, recorded" \
	update_alternate
ktap_check "layout recorded: stop, assemble at 0, everything verifies" \
	recorded_verify
ktap_check "single zone, no layout recorded, default_layout 0: runs, data verifies" \
	starts_unknown 16384 16384 16384
ktap_check "2 zones, the second of one member, no layout, default_layout 0: runs" \
	starts_unknown 16384 16384 32768
ktap_check "0.90 (no layout field), 2 zones, default_layout 0: does not start" \
	create_unknown 0.90 16512 32768 32768
ktap_check "kernel log tells to set raid0.default_layout" log_says_default_layout
ktap_check "0.90 at default_layout 1: runs, original placement, data verifies" \
	v090_runs
md_stop_all
r0_param 0 > /dev/null

# ---- errors, sync_action, --fail, --add ----
ktap_check "3 equal, 64K: created, data written" mk_err_array
ktap_check "no sync_action: nothing to check on raid0" no_sync_action
ktap_check "member 1 fails every I/O" r0_slice_fail 1
ktap_check "reading a block on member 1 fails" reads_fail 1
ktap_check "blocks on members 0 and 2 read back as written" reads_same 0 2
ktap_check "writing a block on member 1 fails" writes_fail 1
ktap_check "array still running: array_state clean" array_state_is clean
ktap_check "member 1 works again: everything verifies" heal_verify
ktap_check "mdadm --add: refused, still 3 members" add_refused
ktap_check "mdadm --fail: refused, array broken: writes fail, reads work" \
	r0_fail_broken s1 0 1 2
ktap_check "stop, assemble: array clean, everything verifies" reassemble_clean
r0_teardown
ktap_finish
