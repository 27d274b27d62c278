#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 240
#
# sync_max (issue 35): a check pauses there and goes on when it is raised;
# sync_min/sync_max bound a check to a window.  Both implementations, the
# same assertions (documented behaviour of md's sysfs):
#  - sync_max refuses a non-number, a value below sync_min and, on an
#    array with a chunk size, a value that is not a whole number of chunks
#    (EINVAL), and lowering it while a pass runs (EBUSY);
#  - a check with sync_max 16 MiB stops with sync_completed at exactly
#    that point and stays there, still "check"; raising sync_max to "max"
#    lets it finish, after which sync_max reads "max" again;
#  - a block that differs between the mirrors at 40 MiB is not counted by
#    a check of [0, 16 MiB), and is by a check of [32, 48 MiB).
. /harness/lib.sh

MD=/dev/md0
SYS=/sys/block/md0/md
EINVAL=22
EBUSY=16
MIB=2048	# sectors

# completed_is SECTORS TENTHS: sync_completed reads "SECTORS / ..." within
# TENTHS x 0.1 s
completed_is() {
	_n=0
	while [ $_n -lt "$2" ]; do
		case "$(cat $SYS/sync_completed)" in
		"$1 / "*) return 0 ;;
		esac
		sleep 0.1
		_n=$((_n + 1))
	done
	echo "sync_completed '$(cat $SYS/sync_completed)', want '$1 / ...'"
	return 1
}

raid1_create() {
	md_stop_all
	brd_setup 2 65536 &&
	mdadm --create $MD --run --assume-clean --level=1 --raid-devices=2 \
		--metadata=1.2 /dev/ram0 /dev/ram1
}

refusals() {
	_rc=0
	sysfs_expect_errno $EINVAL $SYS/sync_max abc || _rc=1
	echo 4096 > $SYS/sync_min || _rc=1
	sysfs_expect_errno $EINVAL $SYS/sync_max 2048 || _rc=1
	echo 0 > $SYS/sync_min || _rc=1
	return $_rc
}

# a check that pauses at 16 MiB, refuses to be pulled back, goes on to the end
pause_and_resume() {
	echo 0 > $SYS/sync_min && echo $((16 * MIB)) > $SYS/sync_max || return 1
	echo check > $SYS/sync_action || return 1
	completed_is $((16 * MIB)) 600 || return 1
	sleep 2
	completed_is $((16 * MIB)) 1 || return 1
	_a=$(md_sync_action md0)
	[ "$_a" = check ] || { echo "sync_action '$_a' while paused"; return 1; }
	sysfs_expect_errno $EBUSY $SYS/sync_max $((8 * MIB)) || return 1
	echo "paused: $(cat $SYS/sync_completed); raising sync_max"
	echo max > $SYS/sync_max || return 1
	wait_resync md0 120 || return 1
	_m=$(cat $SYS/sync_max)
	[ "$_m" = max ] || { echo "sync_max '$_m' after the check finished"; return 1; }
}

# differ_at MIB: 4 KiB of the second mirror's data at MIB differ.  fsync
# puts them on brd: on Debian's 6.1.192-3 kernel (2026-11-26) a 512-byte
# O_DIRECT write to ram1 stayed out of md's sight (its checks counted
# nothing) until ram1 was read through its own device or flushed.
differ_at() {
	_off=$(mdadm --examine /dev/ram1 | md_field "Data Offset" | cut -d' ' -f1)
	[ -n "$_off" ] || { echo "no data offset"; return 1; }
	head -c 4096 /dev/urandom |
		dd of=/dev/ram1 bs=512 seek=$((_off + $1 * MIB)) \
		conv=notrunc,fsync oflag=direct 2> /dev/null
}

# window_check LO HI: check [LO, HI) MiB, wait for the pause, stop; prints
# mismatch_cnt
window_check() {
	echo max > $SYS/sync_max && echo "$(($1 * MIB))" > $SYS/sync_min &&
	echo "$(($2 * MIB))" > $SYS/sync_max && echo check > $SYS/sync_action ||
		return 1
	completed_is $(($2 * MIB)) 600 > /dev/null || return 1
	echo idle > $SYS/sync_action
	wait_resync md0 60 > /dev/null || return 1
	cat $SYS/mismatch_cnt
}

windows() {
	differ_at 40 || return 1
	_lo=$(window_check 0 16) || return 1
	_hi=$(window_check 32 48) || return 1
	echo "mismatch_cnt: [0, 16 MiB) $_lo, [32, 48 MiB) $_hi"
	[ "$_lo" = 0 ] && [ "$_hi" -gt 0 ]
}

raid5_chunks() {
	md_stop_all
	brd_setup 3 65536 &&
	mdadm --create $MD --run --assume-clean --level=5 --raid-devices=3 \
		--chunk=64 --metadata=1.2 /dev/ram0 /dev/ram1 /dev/ram2 || return 1
	# 64 KiB chunks: 128 sectors
	sysfs_expect_errno $EINVAL $SYS/sync_max 1000 || return 1
	sysfs_expect_errno 0 $SYS/sync_max 1024 || return 1
	_m=$(cat $SYS/sync_max)
	[ "$_m" = 1024 ] || { echo "sync_max '$_m', want 1024"; return 1; }
	echo max > $SYS/sync_max
}

ktap_plan 5
md_speed_limit
ktap_check "raid1 of 2 x 64 MiB brd" raid1_create
ktap_check "sync_max: abc and below sync_min refused" refusals
ktap_check "a check pauses at sync_max, resumes when it is raised" pause_and_resume
ktap_check "sync_min/sync_max bound a check's window" windows
ktap_check "raid5: sync_max a whole number of chunks" raid5_chunks
md_stop_all
brd_teardown
ktap_finish
