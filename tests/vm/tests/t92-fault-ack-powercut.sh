#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 840
#
# Issue 31 (3): a write is acknowledged only once the superblocks record
# the member that failed it.  Each member dI is a dm-delay device whose
# writes go through table dIw over ramI.  The array runs without
# bad-block logs (a failed write then fails the member on both
# implementations), is made dirty first (safe_mode_delay 60 s keeps it
# so), and then dIw delays every write below the data offset (the
# superblocks) by 4 s, while writes to one member fail over the
# range written next.  A 4 KiB write of pattern B goes there; the
# moment it is acknowledged, the members are copied to RAM disks of
# their own: the power cut.  Assembled from those images, the array
# must read B, and for RAID1 every member it trusts must hold B: a
# member that missed the write may only come back as failed or stale.
# The member that fails the write holds the data there: if it comes
# back in sync, a read (RAID1 reading it, RAID5/6 reading the chunk
# directly) or a resync after the power cut (RAID1 copies from the
# first member) returns A, and the acknowledged write is gone.  The
# test checks that the write did fail that member.
#   - RAID1, 2 and 3 members: member 0;
#   - RAID5, 3 members, 64K chunks: array offset 4K is in member 0's
#     chunk of row 0 (P on member 2);
#   - RAID6, 4 members, 64K chunks: row 0 has P on member 3, Q on
#     member 0, its first data chunk on member 1.
. /harness/lib.sh
. /harness/tests/raid5/common.sh
. /harness/tests/fault/common.sh

export DM_DISABLE_UDEV=1
MD=/dev/md0
SYS=/sys/block/md0/md
KIB=4				# array offset written: 4 KiB, member 0's chunk
DELAY_MS=4000

# setup LEVEL N: brd 2N disks (members ram0..N-1, images ramN..2N-1)
setup() {
	fault_members "$2" 65536 $(($2 * 2)) || return 1
	# shellcheck disable=SC2046
	_c=
	[ "$1" = 1 ] || _c=--chunk=64
	# shellcheck disable=SC2046,SC2086
	mdadm --create $MD --run --level="$1" --raid-devices="$2" $_c \
		--metadata=1.2 --assume-clean $(r5_dm_members "$2") || return 1
	mdadm --stop $MD &&
	# shellcheck disable=SC2046
	mdadm --assemble $MD --update=no-bbl $(r5_dm_members "$2") || return 1
	K0=$(dm_kname d0) || return 1
	OFF=$(cat $SYS/dev-$K0/offset)
	echo 60 > $SYS/safe_mode_delay &&
	fault_put $MD /tmp/A 0 &&
	echo "array_state $(cat $SYS/array_state), data offset $OFF"
}

# slow_sb I [FAIL]: member I's superblock writes wait DELAY_MS; with
# FAIL, its writes to the data range at KIB fail
slow_sb() {
	_t="0 $OFF delay /dev/ram$1 0 $DELAY_MS"
	_s=$((OFF + KIB * 2))
	if [ -n "${2:-}" ]; then
		_t="$_t
$OFF $((_s - OFF)) linear /dev/ram$1 $OFF
$_s 8 error
$((_s + 8)) $((SZ - _s - 8)) linear /dev/ram$1 $((_s + 8))"
	else
		_t="$_t
$OFF $((SZ - OFF)) linear /dev/ram$1 $OFF"
	fi
	dm_swap "d${1}w" "$_t"
}

# slow_all N BAD: slow_sb on every member, BAD failing the write
slow_all() {
	_i=0
	while [ $_i -lt "$1" ]; do
		if [ $_i = "$2" ]; then slow_sb $_i fail; else slow_sb $_i; fi || return 1
		_i=$((_i + 1))
	done
	dmsetup table | grep '^d.w'
}

# cut N BAD: write B, and image the members the moment it is
# acknowledged; the write must have failed member BAD
cut() {
	_t0=$(date +%s)
	dd if=/tmp/B of=$MD bs=4k seek=$((KIB / 4)) oflag=direct conv=notrunc 2>/tmp/cut.err
	_rc=$?
	_i=0
	while [ $_i -lt "$1" ]; do
		dd if=/dev/ram$_i of=/dev/ram$((_i + $1)) bs=1M count=8 2>/dev/null
		_i=$((_i + 1))
	done
	echo "write exit $_rc after $(( $(date +%s) - _t0 )) s (images taken then)"
	cat /tmp/cut.err
	cat /proc/mdstat
	echo "$_rc" > /tmp/cut.rc
	case ",$(cat $SYS/dev-$(dm_kname "d$2")/state)," in
	*,faulty,*) ;;
	*) echo "member $2 did not fail the write: the case tests nothing"
	   return 1 ;;
	esac
}

# from_images N: stop the array, assemble md0 from the images
from_images() {
	mdadm --stop $MD || return 1
	r5_dm_teardown "$1"
	_l=
	_i=0
	while [ $_i -lt "$1" ]; do
		_l="$_l /dev/ram$((_i + $1))"
		_i=$((_i + 1))
	done
	for _d in $_l; do
		echo "$_d: $(mdadm --examine "$_d" | grep -E 'Events|Array State|Device Role' | tr -s ' ' | tr '\n' ';')"
	done
	# a power cut leaves the array dirty: a degraded RAID5 then starts
	# only with start_dirty_degraded (mdadm --force would do the same)
	echo 1 > /sys/module/md_mod/parameters/start_dirty_degraded
	# shellcheck disable=SC2086
	mdadm --assemble $MD --run $_l
	echo 0 > /sys/module/md_mod/parameters/start_dirty_degraded
	cat /proc/mdstat
	[ -d $SYS ]
}

# after_cut N: acknowledged B reads back; each member trusted holds it
after_cut() {
	if [ "$(cat /tmp/cut.rc)" != 0 ]; then
		echo "the write was not acknowledged: A or B may read back"
		fault_read_is $MD $KIB 4 /tmp/A.k /tmp/B
		return
	fi
	fault_data_is $MD $KIB 4 /tmp/B || return 1
	case $2 in raid1*) ;; *) return 0 ;; esac
	for _d in $SYS/dev-*; do
		case ",$(cat "$_d/state")," in *,in_sync,*) ;; *) continue ;; esac
		_o=$(cat "$_d/offset")
		_k=$(basename "$_d")
		_k=${_k#dev-}
		fault_data_is "/dev/$_k" $((_o / 2 + KIB)) 4 /tmp/B || return 1
	done
}

fault_pattern /tmp/A 256
fault_pattern /tmp/B 4
fault_slice /tmp/A $KIB 4 /tmp/A.k

ktap_plan 20
for c in "1 2 0 raid1" "1 3 0 raid1-3" "5 3 0 raid5" "6 4 1 raid6"; do
	# shellcheck disable=SC2086
	set -- $c
	lvl=$1 n=$2 bad=$3 name=$4
	ktap_check "$name: $n members, no bad-block log, dirty" setup "$lvl" "$n"
	ktap_check "$name: superblock writes take ${DELAY_MS} ms; member $bad fails the write" \
		slow_all "$n" "$bad"
	ktap_check "$name: write B, image the members at its acknowledgment" cut "$n" "$bad"
	ktap_check "$name: assembled from the images" from_images "$n"
	ktap_check "$name: B reads back; every member trusted holds it" after_cut "$n" "$name"
	mdadm --stop $MD > /dev/null 2>&1
done
brd_teardown
ktap_finish
