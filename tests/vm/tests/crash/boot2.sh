#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 300
#
# Unclean shutdown, boot 2 of 3: md0's superblocks say the array was
# active (dirty); assembling starts a resync (capped so it is seen),
# which completes; region A (everything acknowledged before the
# checkpoint) verifies, `check` finds mismatch_cnt 0; a clean stop leaves
# every superblock "clean".
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

plan=10
[ -n "$DD_MEMBERS" ] && plan=$((plan + 14))
ktap_plan $plan
ktap_check "virtio disks" virtio_disks
# shellcheck disable=SC2086
ktap_check "md0 superblocks: State active (unclean shutdown)" sb_states active $MEMBERS
md_speed_limit 1000 5000
# shellcheck disable=SC2086
ktap_check "md0: mdadm --assemble" mdadm --assemble $MD $MEMBERS
ktap_check "md0: resync runs after assemble" \
	sh -c '. /harness/lib.sh; mdstat_array md0; mdstat_array md0 | grep -Eq "resync *= *[0-9.]+%"'
md_speed_limit
ktap_check "md0: resync completes" wait_resync md0 180
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
