#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 7200
#
# make torture (issue 31): randomized faults under a verifying load, for
# TORTURE_MIN minutes, from TORTURE_SEED (tests/vm/run-torture sets
# both; the same seed walks the same decisions, though timing differs).
#
# Rounds until the time is up.  Each round: a fresh array of a kind
# drawn from RAID1 x2, RAID1 x3, RAID5 x4, RAID6 x5 (1.2, bad-block
# logs, 64K chunks, 48 MiB RAM disks behind dm-delay members dI whose
# reads and writes go through tables dIr / dIw); fio writes random
# blocks of 4-64 KiB at queue depth 32 with crc32c headers and verifies
# them as it goes (verify_backlog), for the round's length; meanwhile,
# every 2-4 s, one fault event is drawn:
#   fail     mdadm --fail and --remove of a working member
#   readd    a removed member comes back (--re-add, else --add)
#   blank    a removed member comes back wiped (a new spare)
#   rerr     a member's reads fail over a random range
#   werr     a member's writes fail over a random range
#   heal     a member's faults end
# never taking more members out of service (failed, removed, faulty,
# rebuilding or with faults) than the level survives, so every read and
# write must succeed and verify.  At the round's end: faults healed,
# members back, sync done, "check" must find no mismatch.
# Output: one "@@TORTURE ev ..." line per event (round, seconds, event,
# member), one "@@TORTURE round ..." line per round, and a last
# "@@TORTURE summary rounds=N events=N data_errors=N io_errors=N
# mismatch=N seed=S" line; the test fails on any data or IO error or
# mismatch (kernel splats fail it through the runner).
. /harness/lib.sh
. /harness/tests/raid5/common.sh
. /harness/tests/fault/common.sh

export DM_DISABLE_UDEV=1
MD=/dev/md0
SYS=/sys/block/md0/md
# tests/vm/run-torture names them in /harness/config
MIN=$(sed -n 's/^TORTURE_MIN=//p' /harness/config 2>/dev/null)
SEED=$(sed -n 's/^TORTURE_SEED=//p' /harness/config 2>/dev/null)
MIN=${MIN:-5}
SEED=${SEED:-1}
ROUND_S=${TORTURE_ROUND_S:-90}

# the seed's random numbers, one per line, consumed by rnd
awk -v s="$SEED" 'BEGIN { srand(s); for (i = 0; i < 200000; i++) print int(rand() * 1000000) }' > /tmp/rnd
RND_AT=0
# rnd N: a number in [0, N) from the seed's sequence (in R)
rnd() {
	RND_AT=$((RND_AT + 1))
	R=$(sed -n "${RND_AT}p" /tmp/rnd)
	R=$((R % $1))
}

log() { echo "@@TORTURE $*"; }

# member states, in ST_0..ST_4: ok, out (failed and removed), bad
# (faults injected), sync (back, not yet rebuilt)
st() { eval "echo \$ST_$1"; }
set_st() { eval "ST_$1=$2"; }

impaired() {
	_c=0
	_ii=0
	while [ $_ii -lt "$N" ]; do
		[ "$(st $_ii)" = ok ] || _c=$((_c + 1))
		_ii=$((_ii + 1))
	done
	echo $_c
}

# members rebuilt since: sync -> ok once nothing syncs and it is in sync
refresh() {
	_ri=0
	while [ $_ri -lt "$N" ]; do
		# rebuilt and no bad block recorded (a recorded range keeps
		# it out of service there for the rest of the round)
		if [ "$(st $_ri)" = sync ]; then
			_k=$(dm_kname "d$_ri")
			case ",$(cat $SYS/dev-$_k/state 2>/dev/null)," in
			*,in_sync,*)
				[ -z "$(cat $SYS/dev-$_k/bad_blocks $SYS/dev-$_k/unacknowledged_bad_blocks 2>/dev/null)" ] &&
					set_st $_ri ok ;;
			esac
		fi
		# a member md failed on its own (a fault it could not mask)
		if [ "$(st $_ri)" = bad ]; then
			_k=$(dm_kname "d$_ri")
			case ",$(cat $SYS/dev-$_k/state 2>/dev/null)," in
			*,faulty,*) fault_remove $MD "/dev/mapper/d$_ri" > /dev/null 2>&1 &&
				r5_dm_heal $_ri && set_st $_ri out && log ev "$ROUND" "$(uptime_s)" kicked "$_ri" ;;
			esac
		fi
		_ri=$((_ri + 1))
	done
}

# pick STATE: a random member in STATE (in M), or fail
pick() {
	_cands=
	_pi=0
	while [ $_pi -lt "$N" ]; do
		[ "$(st $_pi)" = "$1" ] && _cands="$_cands $_pi"
		_pi=$((_pi + 1))
	done
	[ -n "$_cands" ] || return 1
	# shellcheck disable=SC2086
	set -- $_cands
	rnd $#
	shift $R
	M=$1
}

range_table() { # I KIND(r|w): a random error range in the data area
	rnd $((LEN / 2))
	_s=$((OFF + R))
	rnd 8192
	_l=$((R + 8))
	[ $((_s + _l)) -lt $((SZ - 8)) ] || _l=8
	dm_swap "d${1}$2" "$(lin_err "/dev/ram$1" "$_s" "$_l")"
}

event() {
	refresh
	# pick and range_table draw numbers too: keep the event's own
	rnd 6
	_ev=$R
	case $_ev in
	0) [ "$(impaired)" -lt "$RED" ] && pick ok || return 0
	   mdadm $MD --fail "/dev/mapper/d$M" > /dev/null 2>&1
	   fault_remove $MD "/dev/mapper/d$M" > /dev/null || return 1
	   set_st "$M" out; log ev "$ROUND" "$(uptime_s)" fail "$M" ;;
	1) pick out || return 0
	   mdadm $MD --re-add "/dev/mapper/d$M" > /dev/null 2>&1 ||
		mdadm $MD --add "/dev/mapper/d$M" > /dev/null || return 1
	   set_st "$M" sync; log ev "$ROUND" "$(uptime_s)" readd "$M" ;;
	2) pick out || return 0
	   mdadm --zero-superblock "/dev/mapper/d$M"
	   mdadm $MD --add "/dev/mapper/d$M" > /dev/null || return 1
	   set_st "$M" sync; log ev "$ROUND" "$(uptime_s)" blank "$M" ;;
	3|4) [ "$(impaired)" -lt "$RED" ] && pick ok || return 0
	   _d=r
	   [ $_ev = 4 ] && _d=w
	   range_table "$M" $_d || return 1
	   set_st "$M" bad; log ev "$ROUND" "$(uptime_s)" "${_d}err" "$M" ;;
	5) pick bad || return 0
	   r5_dm_heal "$M" || return 1
	   set_st "$M" sync; log ev "$ROUND" "$(uptime_s)" heal "$M" ;;
	esac
	EVENTS=$((EVENTS + 1))
}

# bring every member back and in sync
restore() {
	_si=0
	while [ $_si -lt "$N" ]; do
		case $(st $_si) in
		bad) r5_dm_heal $_si ;;
		out) mdadm $MD --add "/dev/mapper/d$_si" > /dev/null 2>&1 ;;
		esac
		_si=$((_si + 1))
	done
	# a member whose faults md turned into a failure: back in too
	for _d in $SYS/dev-*; do
		case ",$(cat "$_d/state")," in
		*,faulty,*) _k=${_d##*/dev-}
			_n=$(cat "/sys/block/$_k/dm/name")
			fault_remove $MD "/dev/mapper/$_n" > /dev/null &&
			mdadm $MD --add "/dev/mapper/$_n" > /dev/null ;;
		esac
	done
	sleep 1
	wait_resync md0 600
}

round() {
	rnd 4
	case $R in
	0) LVL=1 N=2 RED=1 ;;
	1) LVL=1 N=3 RED=2 ;;
	2) LVL=5 N=4 RED=1 ;;
	3) LVL=6 N=5 RED=2 ;;
	esac
	fault_members "$N" 49152 || return 1
	_c=
	[ "$LVL" = 1 ] || _c=--chunk=64
	# shellcheck disable=SC2046,SC2086
	mdadm --create $MD --run --level=$LVL --raid-devices=$N $_c \
		--metadata=1.2 --assume-clean $(r5_dm_members "$N") > /dev/null 2>&1 || return 1
	OFF=$(cat $SYS/dev-$(dm_kname d0)/offset)
	LEN=$((SZ - OFF - 16))
	_i=0
	while [ $_i -lt 5 ]; do set_st $_i ok; _i=$((_i + 1)); done
	# fio in the background: verifying random writes, time-based.
	# norandommap + serialize_overlap: a time-based job refills its
	# random map in the middle of a pass (fio's get_next_rand_block),
	# so a new write could overlap a block written just before and not
	# yet verified, or be in flight while it is read back: a torn
	# read fio would report as corruption.  Without the map fio keeps
	# the written blocks in a tree that drops an overwritten one, and
	# serialize_overlap never lets two overlapping IOs run at once.
	(cd /tmp && fio --name=t --filename=$MD --rw=randwrite --bsrange=4k-64k \
		--norandommap --serialize_overlap=1 \
		--ioengine=libaio --iodepth=32 --direct=1 --size=32M \
		--verify=crc32c --verify_backlog=64 --verify_fatal=1 \
		--time_based --runtime="$ROUND_S" --randseed="$SEED" \
		--eta=never > /tmp/fio.round 2>&1; echo $? > /tmp/fio.rc) &
	_fio=$!
	_end=$(( $(uptime_s) + ROUND_S - 5 ))
	while [ "$(uptime_s)" -lt "$_end" ] && kill -0 $_fio 2>/dev/null; do
		rnd 3
		sleep $((2 + R))
		if ! event > /tmp/ev.out 2>&1; then
			log ev "$ROUND" "$(uptime_s)" event-failed "${M:--}"
			sed 's/^/# /' /tmp/ev.out
			cat /proc/mdstat
			break
		fi
		cat /tmp/ev.out
	done
	wait $_fio
	_rc=$(cat /tmp/fio.rc)
	_derr=0 _ioerr=0
	if grep -Eiq 'verify failed|bad magic|bad header|verify: bad' /tmp/fio.round; then
		_derr=1
		cat /tmp/fio.round
	elif [ "$_rc" != 0 ]; then
		_ioerr=1
		cat /tmp/fio.round
	fi
	restore
	_mm=-1
	if md_check_clean md0 600 > /tmp/check.out 2>&1; then _mm=0; else
		_mm=$(cat $SYS/mismatch_cnt); cat /tmp/check.out; fi
	log round "$ROUND" "level=$LVL members=$N fio_rc=$_rc data_errors=$_derr io_errors=$_ioerr mismatch=$_mm $(grep -o 'WRITE: bw=[^,]*' /tmp/fio.round) verified $(grep -o 'READ: bw=[^,]*, [^,]*, io=[^ ]*' /tmp/fio.round | sed 's/.*io=//')"
	DERR=$((DERR + _derr)) IOERR=$((IOERR + _ioerr))
	[ "$_mm" = 0 ] || MM=$((MM + 1))
	mdadm --stop $MD > /dev/null 2>&1
}

ktap_plan 1
md_speed_limit 5000 200000
ROUND=0 EVENTS=0 DERR=0 IOERR=0 MM=0
DEADLINE=$(( $(uptime_s) + MIN * 60 ))
log start "minutes=$MIN seed=$SEED impl=$impl"
while [ "$(uptime_s)" -lt "$DEADLINE" ]; do
	ROUND=$((ROUND + 1))
	round || { log round "$ROUND" setup-failed; DERR=$((DERR + 1)); break; }
done
md_speed_limit
md_stop_all
r5_dm_teardown 5
brd_teardown
log summary "rounds=$ROUND events=$EVENTS data_errors=$DERR io_errors=$IOERR mismatch=$MM seed=$SEED"
if [ $DERR = 0 ] && [ $IOERR = 0 ] && [ $MM = 0 ]; then
	ktap_ok "torture: $ROUND rounds, $EVENTS fault events, 0 data errors"
else
	ktap_not_ok "torture: data_errors=$DERR io_errors=$IOERR mismatch=$MM (seed $SEED)"
fi
ktap_finish
