#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 240
#
# An interrupted check resumes, and its progress shows in steps:
# - during a check of a 128 MiB raid1 slowed by sync_speed_max,
#   sync_completed takes at least three values before the check is
#   three quarters through (in-tree records progress about every 1/16
#   of the array); bounded by progress, not by time, so a slow host
#   cannot fail it;
# - `echo idle > sync_action` stops the check and records where it got
#   to in sync_min (0 < sync_min < size);
# - the next check starts there (its first sync_completed is at least
#   sync_min), runs to the end, and then sync_min is 0 again.
. /harness/lib.sh

MD=/dev/md0
SYS=/sys/block/md0/md

now_cs() { cut -d' ' -f1 /proc/uptime | tr -d .; }
# completed: the sector part of "N / M", empty for none/delayed
completed() { sed -n 's,^\([0-9]*\) / [0-9]*$,\1,p' $SYS/sync_completed; }

check_steps() {
	_size=$(($(cat $SYS/component_size) * 2))
	echo check > $SYS/sync_action || return 1
	: > /tmp/t63.seen
	_t0=$(now_cs)
	_n=0
	_c=0
	# 6000 cs: only a check that stopped moving ends the loop by time
	while [ $(($(now_cs) - _t0)) -lt 6000 ] && [ "$_n" -lt 3 ] &&
	      [ "${_c:-0}" -lt $((_size * 3 / 4)) ]; do
		_c=$(completed)
		if [ -n "$_c" ] && ! grep -qx "$_c" /tmp/t63.seen; then
			echo "$_c" >> /tmp/t63.seen
			echo "t+$(($(now_cs) - _t0))0 ms: $_c"
		fi
		_n=$(wc -l < /tmp/t63.seen)
		sleep 0.1
	done
	echo "sync_action $(cat $SYS/sync_action), $_n distinct values"
	[ "$_n" -ge 3 ] && [ "$(cat $SYS/sync_action)" = check ]
}

interrupt() {
	echo idle > $SYS/sync_action && wait_resync md0 30 &&
	[ "$(cat $SYS/sync_action)" = idle ]
}

saved_position() {
	SAVED=$(cat $SYS/sync_min)
	_size=$(($(cat $SYS/component_size) * 2))
	echo "sync_min $SAVED of $_size"
	[ "$SAVED" -gt 0 ] && [ "$SAVED" -lt "$_size" ]
}

resume_from_saved() {
	echo check > $SYS/sync_action || return 1
	_t0=$(now_cs)
	while :; do
		_c=$(completed)
		[ -n "$_c" ] && break
		[ $(($(now_cs) - _t0)) -gt 1000 ] && { echo "no progress shown"; return 1; }
		sleep 0.05
	done
	echo "first sync_completed $_c, sync_min was $SAVED"
	[ "$_c" -ge "$SAVED" ]
}

finish() {
	echo system > $SYS/sync_speed_max && sleep 1 && wait_resync md0 120
}

sync_min_zero() { cat $SYS/sync_min; [ "$(cat $SYS/sync_min)" = 0 ]; }

ktap_plan 9
ktap_check "brd: two 128 MiB RAM disks" brd_setup 2 131072
ktap_check "mdadm --create raid1 --assume-clean" \
	mdadm --create $MD --run --level=1 --raid-devices=2 --metadata=1.2 \
	--assume-clean /dev/ram0 /dev/ram1
ktap_check "sync_speed_max 20000" sh -c "echo 20000 > $SYS/sync_speed_max"
ktap_check "check: sync_completed takes 3 values in its first 3/4" check_steps
ktap_check "echo idle stops the check" interrupt
ktap_check "sync_min holds where it stopped" saved_position
ktap_check "next check starts at sync_min" resume_from_saved
ktap_check "it runs to the end" finish
ktap_check "sync_min is 0 after a full check" sync_min_zero
brd_teardown
ktap_finish
