#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 1500
# SLOW: the fault matrix (issue 31): 4 array kinds x 7 failures, about 6 min per implementation (TCG)
#
# One invariant for every case: every read returns the last acknowledged
# data or an error, never other data; where redundancy remains, nothing
# acknowledged is lost at all, every write succeeds, and once the array
# settles "check" finds no mismatch.
#
# Array kinds: RAID1 with 2 and with 3 members, RAID5 on 4 and RAID6 on
# 5 members (64K chunks), 1.2 superblocks with bad-block logs, members
# d0..dN-1: dm-delay devices whose reads and writes go through tables
# dIr and dIw over 32 MiB RAM disks, so either direction can fail over
# the data area (the superblock stays writable).
#
# Each case: a fresh array; fio writes region 1 (random 4k, crc32c
# headers); the failure; fio writes and verifies region 2 while it is
# present; the array settles (any sync ends); region 1 and 2 verify with
# the failure still there; the faults are healed, "check" runs (where
# redundancy remained), and both regions verify again after the array
# is stopped and assembled.  Failures (member 0 unless said):
#   rerr     reads fail
#   werr     writes fail
#   dead     reads and writes fail
#   beyond   members 1..R (R = redundancy) failed and removed first,
#            then member 0's writes fail: past the redundancy limit;
#            here reads may fail, but must never return other data
#   resync   the array is created without --assume-clean; during the
#            initial resync the last member's writes fail
#   recover  the last member is replaced by a blank one; during its
#            rebuild member 0's reads fail (past the limit where R = 1:
#            member 0 is then the only copy, reads may fail)
#   repair   during a repair member 0's reads fail
# In-tree md fails the RAID1 repair cells (see INTREE_RAID1_REPAIR):
# reported as TODO there, not counted.
# Not here: a power cut at the acknowledgment (t92), bad blocks during
# sync (t90), a write error on a degraded RAID5 (t91), a failed rebuild
# re-added (t93).
. /harness/lib.sh
. /harness/tests/raid5/common.sh
. /harness/tests/fault/common.sh

export DM_DISABLE_UDEV=1
MD=/dev/md0
SYS=/sys/block/md0/md
R1="--offset=0 --size=6M --randseed=11"
R2="--offset=6M --size=3M --randseed=12"

# fio_job MODE ARGS...: MODE write (write, then verify) or verify
fio_job() {
	_m=$1
	shift
	if [ "$_m" = write ]; then set -- "$@" --do_verify=1; else set -- "$@" --verify_only; fi
	# shellcheck disable=SC2086
	(cd /tmp && fio --name=m --filename=$MD --rw=randwrite --bs=4k \
		--ioengine=libaio --iodepth=8 --direct=1 --verify=crc32c \
		--verify_fatal=1 --randrepeat=1 --verify_state_save=0 \
		--eta=never $FIO_EXTRA "$@") > /tmp/fio.out 2>&1
	_rc=$?
	if grep -Eiq 'verify failed|bad magic|bad header|verify: bad' /tmp/fio.out; then
		echo "fio: data that was never written read back"
		cat /tmp/fio.out
		return 1
	fi
	if [ -n "$LOSSY" ]; then
		echo "fio exit $_rc (errors allowed past the redundancy limit)"
		grep -E 'err=' /tmp/fio.out | head -3
		return 0
	fi
	fio_log_ok $_rc
}

# mk LEVEL N [--assume-clean]
mk() {
	fault_members "$2" 32768 || return 1
	_c=
	[ "$1" = 1 ] || _c=--chunk=64
	# shellcheck disable=SC2046,SC2086
	mdadm --create $MD --run --level="$1" --raid-devices="$2" $_c \
		--metadata=1.2 ${3:-} $(r5_dm_members "$2") > /tmp/mk.out 2>&1 ||
		{ cat /tmp/mk.out; return 1; }
	OFF=$(cat $SYS/dev-$(dm_kname d0)/offset)
	LEN=$((SZ - OFF - 8))
}

# fail_r I / fail_w I / heal I
fail_r() { dm_swap "d${1}r" "$(lin_err "/dev/ram$1" "$OFF" "$LEN")"; }
fail_w() { dm_swap "d${1}w" "$(lin_err "/dev/ram$1" "$OFF" "$LEN")"; }

drop() { # I: fail and remove member I
	mdadm $MD --fail "/dev/mapper/d$1" > /dev/null 2>&1
	fault_remove $MD "/dev/mapper/d$1" > /dev/null
	return 0
}

settle() {
	echo system > $SYS/sync_speed_max
	wait_resync md0 300
}

# run_case LEVEL N RED CASE: one cell of the matrix
run_case() {
	CL=$1 CN=$2 CRED=$3 CCASE=$4
	LOSSY=
	FIO_EXTRA=
	_clean=--assume-clean
	[ "$CCASE" = resync ] && _clean=
	mk "$CL" "$CN" $_clean || return 1
	if [ "$CCASE" = resync ]; then
		echo 3000 > $SYS/sync_speed_max
	else
		wait_resync md0 120 || return 1
	fi
	# shellcheck disable=SC2086
	fio_job write $R1 || { echo "region 1 before any failure"; return 1; }
	case $CCASE in
	rerr) fail_r 0 ;;
	werr) fail_w 0 ;;
	dead) fail_r 0 && fail_w 0 ;;
	beyond)
		_h=1
		while [ $_h -le "$CRED" ]; do drop $_h; _h=$((_h + 1)); done
		fail_w 0
		LOSSY=1 ;;
	resync)
		fail_w $((CN - 1)) ;;
	recover)
		drop $((CN - 1))
		mdadm --zero-superblock "/dev/mapper/d$((CN - 1))"
		echo 3000 > $SYS/sync_speed_max
		mdadm $MD --add "/dev/mapper/d$((CN - 1))" > /dev/null || return 1
		sleep 1
		fail_r 0 &&
		if [ "$CRED" = 1 ]; then LOSSY=1; fi ;;
	repair)
		echo 3000 > $SYS/sync_speed_max
		echo repair > $SYS/sync_action
		sleep 1
		fail_r 0 ;;
	esac || { echo "injecting $CCASE failed"; return 1; }
	[ -n "$LOSSY" ] && FIO_EXTRA="--continue_on_error=io"
	cat /proc/mdstat
	# shellcheck disable=SC2086
	fio_job write $R2 || { echo "region 2 during the failure"; return 1; }
	settle || return 1
	cat /proc/mdstat
	# shellcheck disable=SC2086
	fio_job verify $R1 || { echo "region 1 settled, failure present"; return 1; }
	# past the limit, region 2's writes may have failed: fio cannot
	# tell which, so only region 1 (acknowledged before) is read back
	# shellcheck disable=SC2086
	[ -n "$LOSSY" ] || fio_job verify $R2 ||
		{ echo "region 2 settled, failure present"; return 1; }
	_h=0
	while [ $_h -lt "$CN" ]; do r5_dm_heal $_h; _h=$((_h + 1)); done
	if [ -z "$LOSSY" ]; then
		md_check_clean md0 300 || { echo "check after healing"; return 1; }
	fi
	mdadm --stop $MD > /dev/null || return 1
	# shellcheck disable=SC2046
	mdadm --assemble $MD --run $(r5_dm_members "$CN") > /tmp/as.out 2>&1 ||
		{ cat /tmp/as.out; [ -n "$LOSSY" ] && return 0; return 1; }
	cat /proc/mdstat
	# shellcheck disable=SC2086
	fio_job verify $R1 && { [ -n "$LOSSY" ] || fio_job verify $R2; } ||
		{ echo "after stop and assembly"; return 1; }
	mdadm --stop $MD > /dev/null
}

# In-tree md itself fails one cell per RAID1 kind: after a repair during
# which a mirror's reads failed (and fio wrote and read), the faults
# healed, "check" finds the mirrors differ (2312 sectors x2, 4768 x3 in
# the run of 2026-12-04) while nothing read back wrong.  The cause in
# in-tree is not traced yet; this stack passes those cells.
INTREE_RAID1_REPAIR="mirrors differ after a repair that met read errors (see the header)"

KINDS=${T95_KINDS:-"raid1-2:1:2:1 raid1-3:1:3:2 raid5:5:4:1 raid6:6:5:2"}
CASES=${T95_CASES:-"rerr werr dead beyond resync recover repair"}
set -- $KINDS
_nk=$#
set -- $CASES
ktap_plan $((_nk * $#))
md_speed_limit 1000 200000
for k in $KINDS; do
	name=${k%%:*}
	rest=${k#*:}
	lvl=${rest%%:*}
	rest=${rest#*:}
	n=${rest%%:*}
	red=${rest#*:}
	for c in $CASES; do
		_kl=$(dmesg | wc -l)
		case "$impl:$name $c" in
		intree:raid1-2\ repair|intree:raid1-3\ repair)
			# in-tree's own result, reported, not counted
			if run_case "$lvl" "$n" "$red" "$c" > /tmp/cell.out 2>&1; then
				ktap_ok "$name $c"
			else
				sed 's/^/# /' /tmp/cell.out | grep -v 'READ:\|WRITE:'
				ktap_todo "$name $c" "in-tree: $INTREE_RAID1_REPAIR"
			fi
			continue ;;
		esac
		ktap_check "$name $c" run_case "$lvl" "$n" "$red" "$c" ||
			dmesg | tail -n +$((_kl + 1)) | grep -v drop_caches |
				tail -n 25 | sed 's/^/# kernel: /'

	done
done
md_speed_limit
md_stop_all
r5_dm_teardown 5
brd_teardown
ktap_finish
