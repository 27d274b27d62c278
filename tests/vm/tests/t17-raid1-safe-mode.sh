#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 120
#
# Safe mode as a monitoring tool sees it (issue 4, invariant 3):
#  - both: after a write, once writes stop, the array becomes "clean"
#    (array_state, and "clean" in every member's superblock) well within
#    twice safe_mode_delay plus slack for the emulator (t20 checks the
#    default delay and that delay 0 keeps a written array "active");
#  - fork only (in-tree has no such knob; skipped there):
#    safe_mode_adaptive refuses values other than 0 and 1; with 1, a clean
#    period shorter than safe_mode_delay turns stats/safe_mode_late on, the
#    array still becomes clean once writes stop, and a clean period longer
#    than the delay turns it off again; writing 0 turns it off at once;
#    stats/clean_check_max_ns and write_wait_max_ns reset on "0" and
#    refuse anything else.
# Clean periods are made short or long against a 1 s delay, far from
# what the emulator's scheduling noise could blur.
. /harness/lib.sh

MD=/dev/md0
S=/sys/block/md0/md
EINVAL=22

ktap_plan 12

write4k() { # [SEEK]
	dd if=/dev/urandom of=$MD bs=4k count=1 seek="${1:-0}" oflag=direct 2>/dev/null
}

# state_within SECONDS STATE: array_state reads STATE within SECONDS.
state_within() {
	_n=$(($1 * 50))
	while [ "$_n" -gt 0 ]; do
		grep -q "^$2\$" $S/array_state && return 0
		sleep 0.02
		_n=$((_n - 1))
	done
	echo "array_state still '$(cat $S/array_state)' after $1 s, want $2"
	return 1
}

members_clean() {
	for _d in /dev/ram0 /dev/ram1; do
		_st=$(mdadm --examine $_d | md_field State)
		echo "$_d: State : $_st"
		[ "$_st" = clean ] || return 1
	done
}

write_then_clean() { # DELAY SECONDS
	echo "$1" > $S/safe_mode_delay && write4k && state_within "$2" clean
}

late_is() {
	_v=$(cat $S/stats/safe_mode_late)
	echo "stats/safe_mode_late: $_v, want $1"
	[ "$_v" = "$1" ]
}

adaptive_refuses() {
	grep -q '^0$' $S/safe_mode_adaptive &&
	sysfs_expect_errno $EINVAL $S/safe_mode_adaptive 2 &&
	sysfs_expect_errno $EINVAL $S/safe_mode_adaptive -1 &&
	sysfs_expect_errno $EINVAL $S/safe_mode_adaptive x
}

# A write right after the array went clean ends a clean period far
# shorter than the 1 s delay.
short_clean_period() {
	echo 1 > $S/safe_mode_adaptive && write_then_clean 1 5 && write4k 8 &&
		late_is 1
}

# Clean for 1.5 s, longer than the delay, then a write.
long_clean_period() {
	state_within 5 clean && sleep 1.5 && write4k 16 && late_is 0
}

# The two maxima: "0" resets (both were set by the clean/dirty cycles
# above), anything else is refused and changes nothing.
max_reset() { # (sysfs_expect_errno sets _f)
	for _m in clean_check_max_ns write_wait_max_ns; do
		echo "$_m: $(cat $S/stats/$_m)"
		[ "$(cat $S/stats/$_m)" != 0 ] || return 1
		sysfs_expect_errno $EINVAL $S/stats/$_m 5 &&
		sysfs_expect_errno $EINVAL $S/stats/$_m x &&
		sysfs_expect_errno 0 $S/stats/$_m 0 || return 1
		[ "$(cat $S/stats/$_m)" = 0 ] || return 1
	done
}

adaptive_off() {
	write_then_clean 1 5 && write4k 24 && late_is 1 &&
		echo 0 > $S/safe_mode_adaptive && late_is 0
}

ktap_check "brd: two 32 MiB RAM disks" brd_setup 2 32768
ktap_check "mdadm --create raid1 --assume-clean" \
	mdadm --create $MD --run --assume-clean --level=1 --raid-devices=2 \
	--metadata=1.2 /dev/ram0 /dev/ram1
ktap_check "delay 0.2 s: a write, then array_state clean within 3 s" \
	write_then_clean 0.2 3
ktap_check "every member's superblock says clean" members_clean

if [ ! -e $S/safe_mode_adaptive ]; then
	for t in "safe_mode_adaptive: 2, -1, x refused" \
		"safe_mode_adaptive 1: a short clean period turns safe_mode_late on" \
		"late: array_state clean within 5 s once writes stop" \
		"late: every member's superblock says clean" \
		"a clean period longer than the delay turns safe_mode_late off" \
		"safe_mode_adaptive 0 turns safe_mode_late off at once" \
		"stats: the two maxima reset on 0, refuse anything else"; do
		ktap_skip "$t" "fork-only files (in-tree md has none)"
	done
else
	ktap_check "safe_mode_adaptive: 2, -1, x refused" adaptive_refuses
	ktap_check "safe_mode_adaptive 1: a short clean period turns safe_mode_late on" \
		short_clean_period
	ktap_check "late: array_state clean within 5 s once writes stop" \
		state_within 5 clean
	ktap_check "late: every member's superblock says clean" members_clean
	ktap_check "a clean period longer than the delay turns safe_mode_late off" \
		long_clean_period
	ktap_check "safe_mode_adaptive 0 turns safe_mode_late off at once" \
		adaptive_off
	ktap_check "stats: the two maxima reset on 0, refuse anything else" \
		max_reset
fi
ktap_check "mdadm --stop" mdadm --stop $MD
ktap_finish
