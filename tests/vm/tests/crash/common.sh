# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh disable=SC2034
#
# Shared by the unclean-shutdown boots (tests/vm/run-crash): the members
# are virtio disks backed by image files on the host, so what reached
# them survives the guest's reset.  Region A is written and verified
# before the checkpoint; region B is being written when boot 1 crashes.
#
# The runner names the variant in /harness/config (CRASH_LEVEL, default
# 1) and gives it as many disks as it needs (run-crash: disks_of):
#   raid1  md0 = vda vdb
#   raid5  md0 = vda..vdd (4 members); md1 = vde vdf vdg (3 members)
#   raid6  md0 = vda..vde (5 members); md1 = vdf..vdi (4 members)
#   raid10 md0 = vda..vdd (near-2 on 4 members, 64K chunks)
#   raid5-replace  md0 = vda..vdd, vde its spare (CRASH_REPLACE below)
#   raid5-reshape  md0 = vda..vdd, grown onto vde (CRASH_RESHAPE below)
#   raid5-reshape-backup  md0 = vda..vdd, grown onto vde in place, the
#                  backup file on vdf
# md0 is the plain crash case.  md1 (parity levels only) is the dirty
# degraded case: after the crash it is assembled without its last member.
. /harness/lib.sh

LEVEL=$(sed -n 's/^CRASH_LEVEL=//p' /harness/config)
LEVEL=${LEVEL:-1}
# CRASH_BITMAP=1: md0 gets an internal write-intent bitmap (chunk 1 MiB)
# and there is no md1; boot 2 measures how much of the array the resync
# touched (only the chunks dirty at the crash should be).
BITMAP=$(sed -n 's/^CRASH_BITMAP=//p' /harness/config)
BITMAP=${BITMAP:-0}
BM_CHUNK=1M
MD=/dev/md0
DD=/dev/md1
case "$LEVEL" in
5)
	MEMBERS="/dev/vda /dev/vdb /dev/vdc /dev/vdd"
	DD_MEMBERS="/dev/vde /dev/vdf /dev/vdg"
	DD_LEFT_OUT=/dev/vdg ;;
6)
	MEMBERS="/dev/vda /dev/vdb /dev/vdc /dev/vdd /dev/vde"
	DD_MEMBERS="/dev/vdf /dev/vdg /dev/vdh /dev/vdi"
	DD_LEFT_OUT=/dev/vdi ;;
10)
	MEMBERS="/dev/vda /dev/vdb /dev/vdc /dev/vdd"
	DD_MEMBERS=
	DD_LEFT_OUT= ;;
*)
	LEVEL=1
	MEMBERS="/dev/vda /dev/vdb"
	DD_MEMBERS=
	DD_LEFT_OUT= ;;
esac
if [ "$BITMAP" = 1 ]; then
	DD_MEMBERS=
	DD_LEFT_OUT=
fi
# CRASH_REPLACE=1 (raid5-replace): md0 = vda..vdd and the spare vde,
# which boot 1 builds as vda's replacement, half way at the crash; once
# boot 2 completes it, md0 = vde vdb vdc vdd (MEMBERS_AFTER), no md1
REPLACE=$(sed -n 's/^CRASH_REPLACE=//p' /harness/config)
REPLACE=${REPLACE:-0}
REPL_DEV=
MEMBERS_AFTER=$MEMBERS
if [ "$REPLACE" = 1 ]; then
	DD_MEMBERS=
	DD_LEFT_OUT=
	REPL_DEV=/dev/vde
	MEMBERS_AFTER="/dev/vde $(echo "$MEMBERS" | cut -d' ' -f2-)"
fi
# CRASH_RESHAPE=1 (raid5-reshape): md0 = vda..vdd grows onto vde (mdadm
# --grow -n 5, the data offsets moving down), half way at the crash;
# from boot 2 on md0 = vda..vde (MEMBERS_AFTER), no md1
RESHAPE=$(sed -n 's/^CRASH_RESHAPE=//p' /harness/config)
RESHAPE=${RESHAPE:-0}
if [ "$RESHAPE" = 1 ]; then
	DD_MEMBERS=
	DD_LEFT_OUT=
	REPL_DEV=/dev/vde
	MEMBERS_AFTER="$MEMBERS /dev/vde"
fi
# CRASH_RESHAPE=2 (raid5-reshape-backup): md0 = vda..vdd grows onto vde
# in place (mdadm --grow -n 5 --backup-file, the data offsets staying),
# the backup file on ext4 on vdf so that it outlives the crash; from
# boot 2 on md0 = vda..vde, no md1
BK_DEV=
BK_DIR=/mnt/bk
BK_FILE=$BK_DIR/md0.bk
if [ "$RESHAPE" = 2 ]; then
	DD_MEMBERS=
	DD_LEFT_OUT=
	REPL_DEV=/dev/vde
	BK_DEV=/dev/vdf
	MEMBERS_AFTER="$MEMBERS /dev/vde"
fi
# md1's members without the one left out
DD_PRESENT=
for _d in $DD_MEMBERS; do
	[ "$_d" = "$DD_LEFT_OUT" ] || DD_PRESENT="$DD_PRESENT $_d"
done
ARRAYS="$MD${DD_MEMBERS:+ $DD}"
# the last disk the guest must see
LAST_DISK=$(echo "$MEMBERS $DD_MEMBERS $REPL_DEV $BK_DEV" | awk '{ print $NF }')

# Region B starts at least 4 MiB after region A ends, so no stripe row
# holds both (a row is at most 3 data chunks of 64 KiB here): when the
# crash leaves B's parity stale, rebuilding a missing member of A's rows
# from parity is still right.  Parity arrays get 8 MiB of A: 4 KiB random
# writes are slow on them under TCG (read-modify-write).
A_SIZE=16M
case "$LEVEL" in 1|10) ;; *) A_SIZE=8M ;; esac
A_ARGS="--offset=0 --size=$A_SIZE --randseed=4242"
B_ARGS="--offset=20M --size=32M --randseed=777"
# raid5-reshape-backup: A is written before the grow, which is inside A
# at the crash; B lies clear of A
if [ "$RESHAPE" = 2 ]; then
	A_ARGS="--offset=8M --size=16M --randseed=4242"
	B_ARGS="--offset=32M --size=16M --randseed=777"
fi

virtio_disks() {
	modprobe virtio_pci && modprobe virtio_blk || return 1
	_i=0
	while [ ! -b "$LAST_DISK" ] && [ $_i -lt 100 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	# shellcheck disable=SC2086
	ls -l $MEMBERS $DD_MEMBERS
}

# members_of MD: the member list of md0 or md1
members_of() {
	if [ "$1" = "$DD" ]; then echo "$DD_MEMBERS"; else echo "$MEMBERS"; fi
}

# md_create MD: a fresh array of LEVEL over its members; no initial sync
# (the disks are zeroed image files: every parity and copy already
# matches); RAID10 is near-2
md_create() {
	_chunk=
	[ "$LEVEL" = 1 ] || _chunk=--chunk=64
	[ "$LEVEL" = 10 ] && _chunk="$_chunk --layout=n2"
	_bm=--bitmap=none
	[ "$BITMAP" = 1 ] && _bm="--bitmap=internal --bitmap-chunk=$BM_CHUNK"
	# shellcheck disable=SC2046,SC2086
	mdadm --create "$1" --run --level="$LEVEL" \
		--raid-devices=$(members_of "$1" | wc -w) $_chunk --metadata=1.2 \
		--assume-clean $_bm $(members_of "$1")
}

# member_io_sectors: sectors read plus written on md0's members so far
member_io_sectors() {
	for _d in $MEMBERS; do
		cat "/sys/block/${_d#/dev/}/stat"
	done | awk '{ n += $3 + $7 } END { print n + 0 }'
}

# fio_region MD WRITE|VERIFY ARGS...: a region's pattern, written or verified
fio_region() {
	_dev=$1 _m=$2
	shift 2
	if [ "$_m" = WRITE ]; then set -- "$@" --do_verify=1; else set -- "$@" --verify_only; fi
	# shellcheck disable=SC2086
	(cd /tmp && fio --name=region --filename="$_dev" $FIO_VERIFY_ARGS --eta=never "$@") \
		> /tmp/fio.out 2>&1
	fio_log_ok $?
}

# sb_state DEV WANT: the member's superblock says "State : WANT"
sb_state() {
	_s=$(mdadm --examine "$1" | md_field State)
	echo "$1: State : $_s"
	[ "$_s" = "$2" ]
}

# sb_states WANT DEV...: sb_state for every DEV (each one printed)
sb_states() {
	_want=$1 _rc=0
	shift
	for _d in "$@"; do
		sb_state "$_d" "$_want" || _rc=1
	done
	return $_rc
}

# no_resync [MD]: nothing running, nothing pending
no_resync() {
	_n=$(basename "${1:-$MD}")
	mdstat_array "$_n"
	echo "sync_action $(cat "/sys/block/$_n/md/sync_action"), resync_start $(cat "/sys/block/$_n/md/resync_start")"
	! mdstat_array "$_n" | grep -Eq 'resync|recovery|PENDING|DELAYED' &&
	[ "$(cat "/sys/block/$_n/md/sync_action")" = idle ] &&
	[ "$(cat "/sys/block/$_n/md/resync_start")" = none ]
}

# not_running MD: the array is not active (mdstat, array_state)
not_running() {
	_n=$(basename "$1")
	cat /proc/mdstat
	echo "array_state: $(cat "/sys/block/$_n/md/array_state" 2>/dev/null || echo '(no array)')"
	! grep -Eq "^$_n : active" /proc/mdstat
}

# klog_has TEXT: the kernel log of this boot holds TEXT (no dmesg -c: the
# runner reads the log after the test for splats)
klog_has() {
	dmesg | grep -F "$1" || { echo "no kernel-log line with '$1'"; return 1; }
}

# running_as MD STATE MDSTAT: MD runs with array_state STATE and its
# mdstat lines show MDSTAT (e.g. "[3/2] [UU_]")
running_as() {
	_n=$(basename "$1")
	mdstat_array "$_n"
	echo "array_state: $(cat "/sys/block/$_n/md/array_state")"
	[ "$(cat "/sys/block/$_n/md/array_state")" = "$2" ] &&
	mdstat_array "$_n" | grep -qF "$3"
}

# dd_status: md1's mdstat status when its last member is missing
dd_status() {
	_u=
	for _d in $DD_PRESENT; do _u=${_u}U; done
	_n=$(echo "$DD_MEMBERS" | wc -w)
	echo "[$_n/$((_n - 1))] [${_u}_]"
}

# replacement_is DEV SLOT: DEV is md0's replacement in SLOT, (R) in mdstat
replacement_is() {
	_st=$(cat "/sys/block/md0/md/dev-${1#/dev/}/state" 2> /dev/null)
	_sl=$(cat "/sys/block/md0/md/dev-${1#/dev/}/slot" 2> /dev/null)
	mdstat_array md0
	echo "${1#/dev/}: $_st, slot $_sl"
	case ",$_st," in *,replacement,*) ;; *) return 1 ;; esac
	[ "$_sl" = "$2" ] &&
		mdstat_array md0 | grep -q "${1#/dev/}\[[0-9]*\](R)"
}
