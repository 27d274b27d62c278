#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 1200
# SLOW: the fault matrix of t95 for RAID10 (issue 36): 2 array kinds x 7 failures, about 2.5 min per implementation (TCG)
#
# t95's fault matrix (issue 31) for RAID10, with t95's invariant: every
# read returns the last acknowledged data or an error, never other data;
# where redundancy remains, nothing acknowledged is lost at all, every
# write succeeds, and once the array settles "check" finds no mismatch.
#
# Array kinds: RAID10 near-2 on 4 members (chunk c on members 2c mod 4
# and 2c+1 mod 4: members 0 and 1 are partners, so are 2 and 3) and
# RAID10 far-2 on 3 members (chunk c in the first area of member c mod
# 3 and the second area of member c+1 mod 3: any two members hold both
# copies of some chunk), 64K chunks, 1.2 superblocks with bad-block
# logs, members d0..dN-1 as in t95 (dm-delay devices whose reads and
# writes go through tables dIr and dIw over 32 MiB RAM disks, so either
# direction can fail over the data area; the superblock stays writable).
#
# Each case as in t95: a fresh array; fio writes region 1 (random 4k,
# crc32c headers); the failure; fio writes and verifies region 2 while
# it is present; the array settles (any sync ends); region 1 and 2
# verify with the failure still there; the faults are healed, "check"
# runs (where redundancy remained), and both regions verify again after
# the array is stopped and assembled.  Failures (member 0 unless said):
#   rerr     reads fail
#   werr     writes fail
#   dead     reads and writes fail
#   beyond   member 1 (a partner of member 0: near-2 x4 members 0 and
#            1 hold chunks 0, 2, ...; far-2 x3 members 0 and 1 hold
#            chunks 0, 3, ...) is failed and removed first, then member
#            0's writes fail: past the redundancy limit; here reads may
#            fail, but must never return other data
#   resync   the array is created without --assume-clean; during the
#            initial resync the last member's writes fail
#   recover  a member whose chunks have their other copy on member 0
#            (near-2 x4: member 1; far-2 x3: member 2, which holds
#            chunks 2, 5, ... whose first copy is on member 0's first
#            area) is replaced by a blank one; during its rebuild member
#            0's reads fail: past the limit, member 0 is then the only
#            copy of some chunks, reads may fail, never return zeros or
#            other data (a rebuilt range that was never read must not
#            read as good)
#   repair   during a repair member 0's reads fail
# Helpers: fault/common.sh and raid5/common.sh, as t95.
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

# mk LAYOUT N [--assume-clean]: RAID10 LAYOUT on d0..dN-1, 64K chunks
mk() {
	fault_members "$2" 32768 || return 1
	# shellcheck disable=SC2046,SC2086
	mdadm --create $MD --run --level=10 --layout="$1" --raid-devices="$2" \
		--chunk=64 --metadata=1.2 ${3:-} $(r5_dm_members "$2") \
		> /tmp/mk.out 2>&1 || { cat /tmp/mk.out; return 1; }
	mdadm --examine /dev/mapper/d0 | grep -q 'Bad Block Log' ||
		{ echo "no bad-block log on d0"; return 1; }
	OFF=$(cat "$SYS/dev-$(dm_kname d0)/offset")
	LEN=$((SZ - OFF - 8))
}

# fail_r I / fail_w I: reads / writes of member I's data area fail
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

# run_case LAYOUT N REBUILT CASE: one cell of the matrix (REBUILT: the
# member the recover case replaces)
run_case() {
	CLAY=$1 CN=$2 CREB=$3 CCASE=$4
	LOSSY=
	FIO_EXTRA=
	_clean=--assume-clean
	[ "$CCASE" = resync ] && _clean=
	mk "$CLAY" "$CN" $_clean || return 1
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
		drop 1
		fail_w 0
		LOSSY=1 ;;
	resync)
		fail_w $((CN - 1)) ;;
	recover)
		drop "$CREB"
		mdadm --zero-superblock "/dev/mapper/d$CREB"
		echo 3000 > $SYS/sync_speed_max
		mdadm $MD --add "/dev/mapper/d$CREB" > /dev/null || return 1
		sleep 1
		fail_r 0 &&
		LOSSY=1 ;;
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
	# shellcheck disable=SC2086,SC2015
	fio_job verify $R1 && { [ -n "$LOSSY" ] || fio_job verify $R2; } ||
		{ echo "after stop and assembly"; return 1; }
	mdadm --stop $MD > /dev/null
}

# name:layout:members:rebuilt member of the recover case
KINDS="raid10-n2x4:n2:4:1 raid10-f2x3:f2:3:2"
CASES="rerr werr dead beyond resync recover repair"
# shellcheck disable=SC2086 # word lists on purpose
set -- $KINDS
_nk=$#
# shellcheck disable=SC2086
set -- $CASES
ktap_plan $((_nk * $#))
md_speed_limit 1000 200000
for k in $KINDS; do
	name=${k%%:*}
	rest=${k#*:}
	lay=${rest%%:*}
	rest=${rest#*:}
	n=${rest%%:*}
	reb=${rest#*:}
	for c in $CASES; do
		_kl=$(dmesg | wc -l)
		ktap_check "$name $c" run_case "$lay" "$n" "$reb" "$c" ||
			dmesg | tail -n +$((_kl + 1)) | grep -v drop_caches |
				tail -n 25 | sed 's/^/# kernel: /'
	done
done
md_speed_limit
md_stop_all
r5_dm_teardown 5
brd_teardown
ktap_finish
