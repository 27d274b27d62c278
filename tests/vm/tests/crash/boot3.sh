#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 180
#
# Unclean shutdown, boot 3 of 3: after boot 2's clean stop, assembling
# md0 starts no resync (mdstat shows none, sync_action idle, resync_start
# "none", right away and a few seconds later); region A still verifies.
# raid5/raid6 also: md1, which mdadm --force marked clean in boot 2,
# starts degraded without force and without a resync; region A verifies.
# With a bitmap: boot 2's clean stop left no dirty chunk in it.
. /harness/tests/crash/common.sh
# raid5-replace: the replacement holds vda's slot since boot 2;
# raid5-reshape: vde is the fifth member since boot 2
MEMBERS=$MEMBERS_AFTER

plan=7
[ -n "$DD_MEMBERS" ] && plan=$((plan + 5))
[ "$BITMAP" = 1 ] && plan=$((plan + 1))
ktap_plan $plan
ktap_check "virtio disks" virtio_disks
# shellcheck disable=SC2086
ktap_check "md0: superblocks clean before assemble" sb_states clean $MEMBERS
if [ "$BITMAP" = 1 ]; then
	# shellcheck disable=SC2086
	ktap_check "md0: no dirty chunk in the bitmap after the clean stop" \
		wait_bitmap_dirty 0 $MEMBERS
fi
# shellcheck disable=SC2086
ktap_check "md0: mdadm --assemble" mdadm --assemble $MD $MEMBERS
ktap_check "md0: no resync right after assemble" no_resync "$MD"
sleep 3
ktap_check "md0: still no resync 3 s later" no_resync "$MD"
# shellcheck disable=SC2086
ktap_check "md0: region A verifies" fio_region $MD VERIFY $A_ARGS
ktap_check "md0: mdadm --stop" mdadm --stop "$MD"
if [ -n "$DD_MEMBERS" ]; then
	# shellcheck disable=SC2086
	ktap_check "md1 without $DD_LEFT_OUT: mdadm --assemble --run (no force) starts it" \
		mdadm --assemble --run $DD $DD_PRESENT
	ktap_check "md1: degraded $(dd_status)" running_as "$DD" clean "$(dd_status)"
	ktap_check "md1: no resync" no_resync "$DD"
	# shellcheck disable=SC2086
	ktap_check "md1: region A verifies (degraded)" fio_region $DD VERIFY $A_ARGS
	ktap_check "md1: mdadm --stop" mdadm --stop "$DD"
fi
ktap_finish
