#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 1500
# SLOW: linear and RAID0 handed over both ways, ten geometries, about 5 min per implementation (TCG)
#
# On-disk compatibility of linear and RAID0 arrays between the
# implementation under test and in-tree md (for IMPL=intree: in-tree
# again, unloaded and reloaded, which proves the test), both ways:
# one side (the maker) creates the array and writes fio crc32c data
# around every member or zone boundary and at both ends (raid0/common.sh,
# data set 1); the other side assembles it, finds the same size,
# verifies that data and writes more (set 2, inside every stretch); the
# maker assembles it again and verifies both sets.  A difference in where
# either side puts a sector, or in the size it reads from the
# superblocks, fails a verify.
#
# Geometries: linear with 1.2, 1.0 and 0.90 superblocks; RAID0 with
# equal members (one zone) on 1.2 and 0.90, and with unequal members on
# 1.2 (original and alternate layout recorded by mdadm), 1.0 (alternate)
# and 0.90 (no layout field: raid0.default_layout 1 and 2, set on both
# sides).  The unequal sizes are such that the two multi-zone layouts
# place zone 1 differently (checked), so a side using the wrong one
# cannot pass.  mdadm 4.2 makes no 0.90 RAID0, so those arrays are a
# RAID1's superblocks rewritten by the maker's side (r0_sb090_raid0).
# In-tree md lost linear in Linux 6.8: on such a kernel the linear cases
# are skipped, as there is no in-tree side to compare with.
. /harness/lib.sh
. /harness/tests/raid0/common.sh

impl=${IMPL:?}
partner=intree		# for IMPL=intree: itself, reloaded

# The case being run: LEVEL linear|raid0, META 1.2|1.0|0.90, LAY the
# mdadm --layout (default: none given), CHUNK KiB (RAID0), PARAM
# raid0.default_layout on both sides, SIZES of the members in KiB.
LEVEL='' META='' LAY='' CHUNK='' PARAM='' SIZES=''

# side_ready IMPL: IMPL loaded (and for RAID0 its default_layout set)
side_ready() {
	switch_impl "$1" || return 1
	if [ "$LEVEL" = raid0 ]; then r0_param "$PARAM" || return 1; fi
	return 0
}

# shellcheck disable=SC2086 # DEVS and SIZES: word lists
assemble() { mdadm --assemble "$R0_MD" $DEVS && mdstat_array md0; }

# create_side MAKER: slices, the array created by MAKER, data set 1 written
create_side() {
	side_ready "$1" || return 1
	# shellcheck disable=SC2086
	r0_slices $SIZES > /dev/null || return 1
	# shellcheck disable=SC2086
	set -- $SIZES
	DEVS=$(r0_devs 0 $#)
	_l="--layout=$LAY"
	[ "$LAY" = default ] && _l=
	if [ "$LEVEL" = linear ]; then
		# shellcheck disable=SC2086
		mdadm --create "$R0_MD" --run --level=linear --raid-devices=$# \
			--metadata="$META" $DEVS < /dev/null || return 1
	elif [ "$META" = 0.90 ]; then
		# shellcheck disable=SC2086
		r0_create090 "$CHUNK" $DEVS && assemble || return 1
	else
		# shellcheck disable=SC2086
		mdadm --create "$R0_MD" --run --level=0 --raid-devices=$# \
			--chunk="$CHUNK" --metadata="$META" $_l $DEVS < /dev/null ||
			return 1
	fi
	# shellcheck disable=SC2086
	r0_geom "$LEVEL" 1 $DEVS && r0_geom_show || return 1
	if [ "$LEVEL" = raid0 ] && [ "$G_NZ" -gt 1 ]; then
		r0_layouts_differ || return 1
	fi
	r0_data 1 write && mdadm --stop "$R0_MD"
}

# take USER: assembled by USER, same size, set 1 verifies, set 2 written
take() {
	side_ready "$1" && assemble || return 1
	_s=$(cat /sys/block/md0/size)
	[ "$_s" = "$G_END" ] || { echo "md0 is $_s sectors, made as $G_END"; return 1; }
	r0_data 1 verify && r0_data 2 write && mdadm --stop "$R0_MD"
}

# back MAKER: assembled by the maker again, both sets verify
back() {
	side_ready "$1" && assemble || return 1
	r0_data 1 verify && r0_data 2 verify && mdadm --stop "$R0_MD"
}

handover() { create_side "$1" && take "$2" && back "$1"; }

# one_case WHAT LEVEL META LAY CHUNK PARAM KIB...: both directions, two
# KTAP results
one_case() {
	_what=$1
	LEVEL=$2 META=$3 LAY=$4 CHUNK=$5 PARAM=$6
	shift 6
	SIZES=$*
	if [ "$LEVEL" = linear ] && ! intree_has_linear; then
		ktap_skip "$_what: made by $impl, $partner takes it over" "$R0_NO_LINEAR"
		ktap_skip "$_what: made by $partner, $impl takes it over" "$R0_NO_LINEAR"
		return 0
	fi
	ktap_check "$_what: made by $impl, $partner takes it over, $impl verifies" \
		handover "$impl" $partner
	ktap_check "$_what: made by $partner, $impl takes it over, $partner verifies" \
		handover $partner "$impl"
}

ktap_plan 21
ktap_diag "implementation under test: $impl, partner: $partner"
one_case "linear 1.2, 3 unequal" linear 1.2 default 0 0 16384 24576 20480
one_case "linear 1.0, 2 unequal" linear 1.0 default 0 0 16384 24576
one_case "linear 0.90, 3 unequal" linear 0.90 default 0 0 20480 12288 16384
one_case "raid0 1.2, 4 equal, 64K" raid0 1.2 default 64 0 12288 12288 12288 12288
one_case "raid0 1.2, 3 unequal, 512K, original" raid0 1.2 original 512 0 \
	17920 33792 33792
one_case "raid0 1.2, 4 unequal, 64K, alternate" raid0 1.2 alternate 64 0 \
	13376 25600 19456 31744
one_case "raid0 1.0, 3 unequal, 4K, alternate" raid0 1.0 alternate 4 0 \
	16448 32768 32768
one_case "raid0 0.90, 3 equal, 512K" raid0 0.90 default 512 0 16384 16384 16384
one_case "raid0 0.90, 3 unequal, 64K, default_layout 1" raid0 0.90 default 64 1 \
	16512 32768 32768
one_case "raid0 0.90, 3 unequal, 64K, default_layout 2" raid0 0.90 default 64 2 \
	16512 32768 32768
md_stop_all
ktap_check "back to $impl" switch_impl "$impl"
r0_teardown
ktap_finish
