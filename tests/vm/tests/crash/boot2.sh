#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 300
#
# Unclean shutdown, boot 2 of 3: md0's superblocks say the array was
# active (dirty); assembling starts a resync (capped so it is seen),
# which completes; region A (everything acknowledged before the
# checkpoint) verifies, `check` finds mismatch_cnt 0; a clean stop leaves
# every superblock "clean".  The member IO of the resync is measured
# against the members' size (the @@RESYNC line, which run-crash reports).
#
# With a bitmap (CRASH_BITMAP=1): the bitmap has dirty chunks after the
# crash, and the resync touches only those: under 10 % of the members.
#
# raid5-replace: vda's replacement, half built at the crash, is one
# again after assembly; it and the resync complete, it holds slot 0.
# raid5-reshape: the grow to 5 members, half way at the crash, goes on
# from the position the superblocks recorded and ends, then the resync.
# raid5-reshape-backup: mdadm --assemble --backup-file (the file on
# vdf) restores what the backup holds past the recorded position, if
# anything; the grow goes on from there and ends, then the resync.
#
# raid5/raid6 also: md1, as dirty, is assembled without its last member.
# Without force that is refused (mdadm --assemble --run fails, the kernel
# log says "cannot start dirty degraded array", nothing runs).  With
# md_mod.start_dirty_degraded=1 it starts (read-only here, so nothing on
# disk changes: its superblocks stay "active") and region A verifies,
# rebuilt from parity where the missing member held it.  With mdadm
# --force (which marks the array clean) it starts read-write and region A
# verifies.
. /harness/tests/crash/common.sh

SDD=/sys/module/md_mod/parameters/start_dirty_degraded

# assemble_refused: without force the dirty degraded md1 does not start
assemble_refused() {
	# shellcheck disable=SC2086
	if mdadm --assemble --run $DD $DD_PRESENT; then
		echo "mdadm --assemble --run started the dirty degraded $DD"
		return 1
	fi
	not_running "$DD"
}

# stop_dd: stop md1 if mdadm left it assembled but not running
stop_dd() {
	[ -b "$DD" ] && mdadm --stop "$DD"
	return 0
}

# bitmap_has_dirty: every md0 member's bitmap has dirty chunks (region B
# was being written at the crash)
bitmap_has_dirty() {
	for _d in $MEMBERS; do
		_n=$(bitmap_dirty "$_d")
		echo "$_d: $_n dirty chunks"
		if [ -z "$_n" ] || [ "$_n" -eq 0 ]; then
			echo "$_d: no dirty chunk"
			return 1
		fi
	done
}

# resync_io IO0 T0 MAXPCT: the member IO since IO0 (sectors) and the time
# since T0 (uptime), as a share of reading and writing every member once;
# fails above MAXPCT percent (and at 0: the dirty chunks need a resync)
resync_io() {
	_io=$(( $(member_io_sectors) - $1 ))
	_all=0
	for _d in $MEMBERS; do
		_all=$((_all + $(cat "/sys/block/${_d#/dev/}/size")))
	done
	read -r _t1 _ < /proc/uptime
	_line=$(awk -v io="$_io" -v all="$_all" -v t0="$2" -v t1="$_t1" 'BEGIN {
		printf "member_io_mib=%.1f members_mib=%.0f share_pct=%.2f secs=%.1f",
			io / 2048, all / 2048, 100 * io / (2 * all), t1 - t0 }')
	echo "@@RESYNC $_line"
	echo "@@RESYNC $_line" > /dev/console
	[ "$_io" -gt 0 ] || return 1
	awk -v io="$_io" -v all="$_all" -v max="$3" 'BEGIN { exit !(100 * io / (2 * all) <= max) }'
}

# all_synced SECS CHECK: every sync pass on md0 done (each waited for up
# to SECS), resync_start none and the function CHECK true, within three
# rounds (one pass may start another)
all_synced() {
	for _r in 1 2 3; do
		wait_resync md0 "$1" || return 1
		sleep 2
		[ "$(cat /sys/block/md0/md/sync_action)" = idle ] &&
			[ "$(cat /sys/block/md0/md/resync_start)" = none ] &&
			"$2" && return 0
	done
	return 1
}

no_replacement() { ! grep -q replacement /sys/block/md0/md/dev-*/state; }

# raid5-replace: every sync done (the recovery that completes the
# replacement and the resync the crash asked for, in either order)
syncs_done() {
	all_synced 180 no_replacement || no_resync "$MD"
}

# raid5-reshape: assembled, the reshape runs on
reshaping() {
	grep -A3 '^md0' /proc/mdstat
	grep -H . /sys/block/md0/md/reshape_position
	grep -q reshape /proc/mdstat &&
		[ "$(cat /sys/block/md0/md/reshape_position)" != none ]
}

five_members() {
	[ "$(cat /sys/block/md0/md/reshape_position)" = none ] &&
		[ "$(cat /sys/block/md0/md/raid_disks)" = 5 ]
}

# raid5-reshape: the reshape ended (5 members) and so did the resync
reshape_done() {
	all_synced 300 five_members && return 0
	grep -H . /sys/block/md0/md/sync_action /sys/block/md0/md/resync_start \
		/sys/block/md0/md/reshape_position /sys/block/md0/md/raid_disks
	return 1
}

# raid5-reshape-backup: vdf's ext4 mounts; the backup file is there if
# mdadm still needed it at the crash (its monitor removes it once the
# grow is past the critical section, which it may be already)
backup_mounted() {
	mkdir -p "$BK_DIR" && mount -t ext4 "$BK_DEV" "$BK_DIR" &&
		ls -l "$BK_DIR"
}

took_slot() {
	grep -H . /sys/block/md0/md/dev-*/state /sys/block/md0/md/dev-*/slot
	[ "$(cat "/sys/block/md0/md/dev-${REPL_DEV#/dev/}/slot")" = 0 ] &&
		grep -q in_sync "/sys/block/md0/md/dev-${REPL_DEV#/dev/}/state" &&
		{ ! [ -e /sys/block/md0/md/dev-vda ] ||
			grep -q faulty /sys/block/md0/md/dev-vda/state; }
}

plan=10
[ -n "$DD_MEMBERS" ] && plan=$((plan + 14))
[ "$REPLACE" = 1 ] && plan=$((plan + 1))
[ "$BITMAP" = 1 ] && plan=$((plan + 1))
[ "$RESHAPE" = 2 ] && plan=$((plan + 1))
ktap_plan $plan
ktap_check "virtio disks" virtio_disks
# shellcheck disable=SC2086
ktap_check "md0 superblocks: State active (unclean shutdown)" sb_states active $MEMBERS
[ "$BITMAP" = 1 ] &&
	ktap_check "md0: the bitmap has dirty chunks" bitmap_has_dirty
# the resync's member IO and time count from here, the assemble
io0=$(member_io_sectors)
read -r t0 _ < /proc/uptime
if [ "$RESHAPE" != 0 ]; then
	# raid5-reshape-backup: mdadm needs its backup file to assemble
	bk_arg=
	if [ "$RESHAPE" = 2 ]; then
		ktap_check "$BK_DEV: the backup file's ext4 mounts" backup_mounted
		bk_arg=--backup-file=$BK_FILE
	fi
	md_speed_limit 100 300
	# shellcheck disable=SC2086
	ktap_check "md0: mdadm --assemble${bk_arg:+ --backup-file}, 5 members with the reshape recorded" \
		mdadm --assemble $MD $MEMBERS_AFTER $bk_arg
	ktap_check "md0: the reshape continues from the recorded position" \
		reshaping
	md_speed_limit
	ktap_check "md0: the reshape and the resync complete: 5 members" \
		reshape_done
	MEMBERS=$MEMBERS_AFTER
elif [ "$REPLACE" = 1 ]; then
	md_speed_limit 100 300
	# shellcheck disable=SC2086
	ktap_check "md0: mdadm --assemble, with the half-built replacement" \
		mdadm --assemble $MD $MEMBERS $REPL_DEV
	ktap_check "md0: $REPL_DEV is still vda's replacement in slot 0" \
		replacement_is "$REPL_DEV" 0
	md_speed_limit
	ktap_check "md0: the replacement and the resync complete" syncs_done
	ktap_check "md0: $REPL_DEV took slot 0, vda is faulty" took_slot
	MEMBERS=$MEMBERS_AFTER
elif [ "$BITMAP" = 1 ]; then
	# shellcheck disable=SC2086
	ktap_check "md0: mdadm --assemble" mdadm --assemble $MD $MEMBERS
	ktap_check "md0: resync completes" wait_resync md0 180
	# region B is 32 MiB of the array, region A 16 MiB: under 10 %
	ktap_check "md0: the resync touched only the dirty chunks (< 10 % of the members)" \
		resync_io "$io0" "$t0" 10
else
	md_speed_limit 1000 5000
	# shellcheck disable=SC2086
	ktap_check "md0: mdadm --assemble" mdadm --assemble $MD $MEMBERS
	ktap_check "md0: resync runs after assemble" \
		sh -c '. /harness/lib.sh; mdstat_array md0; mdstat_array md0 | grep -Eq "resync *= *[0-9.]+%"'
	md_speed_limit
	ktap_check "md0: resync completes" wait_resync md0 180
	# a full resync, for comparison with the bitmap variants (time
	# includes the first seconds at a capped speed)
	resync_io "$io0" "$t0" 100 | sed 's/^/# /'
fi
ktap_check "md0: resync_start none after resync" \
	sh -c 'cat /sys/block/md0/md/resync_start; [ "$(cat /sys/block/md0/md/resync_start)" = none ]'
# shellcheck disable=SC2086
ktap_check "md0: region A verifies" fio_region $MD VERIFY $A_ARGS
ktap_check "md0: check: mismatch_cnt 0" md_check_clean md0 180
ktap_check "md0: mdadm --stop" mdadm --stop "$MD"
# shellcheck disable=SC2086
ktap_check "md0: superblocks clean after stop" sb_states clean $MEMBERS
if [ -n "$DD_MEMBERS" ]; then
	# shellcheck disable=SC2086
	ktap_check "md1 superblocks: State active (unclean shutdown)" \
		sb_states active $DD_MEMBERS
	ktap_check "start_dirty_degraded is 0; 'x' is refused (-EINVAL)" \
		sh -c ". /harness/lib.sh; cat $SDD; [ \"\$(cat $SDD)\" = 0 ] && sysfs_expect_errno 22 $SDD x"
	ktap_check "md1 without $DD_LEFT_OUT: mdadm --assemble --run refused" assemble_refused
	stop_dd
	ktap_check "md1: kernel log says why" \
		klog_has "md/raid:md1: cannot start dirty degraded array"
	echo 1 > $SDD
	# shellcheck disable=SC2086
	ktap_check "md1: start_dirty_degraded=1: mdadm --assemble --run --readonly starts it" \
		mdadm --assemble --run --readonly $DD $DD_PRESENT
	echo 0 > $SDD
	ktap_check "md1: kernel log: starting dirty degraded array" \
		klog_has "md/raid:md1: starting dirty degraded array"
	ktap_check "md1: read-only, degraded $(dd_status)" \
		running_as "$DD" readonly "$(dd_status)"
	# shellcheck disable=SC2086
	ktap_check "md1: region A verifies (degraded)" fio_region $DD VERIFY $A_ARGS
	ktap_check "md1: mdadm --stop" mdadm --stop "$DD"
	# shellcheck disable=SC2086
	ktap_check "md1: superblocks still active (read-only wrote nothing)" \
		sb_states active $DD_PRESENT
	# shellcheck disable=SC2086
	ktap_check "md1: mdadm --assemble --run --force starts it" \
		mdadm --assemble --run --force $DD $DD_PRESENT
	# raid6 with one member missing: in-tree mdadm asks for a repair
	ktap_check "md1: degraded $(dd_status), no sync left after 120 s" \
		sh -c ". /harness/tests/crash/common.sh; wait_resync md1 120 && running_as $DD clean '$(dd_status)'"
	# shellcheck disable=SC2086
	ktap_check "md1: region A verifies (degraded)" fio_region $DD VERIFY $A_ARGS
	# (not every superblock says clean now: in-tree md leaves those
	# mdadm did not mark alone; boot 3 shows the array starts clean)
	ktap_check "md1: mdadm --stop" mdadm --stop "$DD"
fi
ktap_finish
