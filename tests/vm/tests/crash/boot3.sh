#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 120
#
# Unclean shutdown, boot 3 of 3: after boot 2's clean stop, assembling
# starts no resync (mdstat shows none, sync_action idle, resync_start
# "none", right away and a few seconds later); region A still verifies.
. /harness/tests/crash/common.sh

ktap_plan 7
ktap_check "virtio disks vda vdb" virtio_disks
ktap_check "superblocks clean before assemble" \
	sh -c '. /harness/tests/crash/common.sh; sb_state /dev/vda clean && sb_state /dev/vdb clean'
# shellcheck disable=SC2086
ktap_check "mdadm --assemble" mdadm --assemble $MD $MEMBERS
ktap_check "no resync right after assemble" no_resync
sleep 3
ktap_check "still no resync 3 s later" no_resync
# shellcheck disable=SC2086
ktap_check "region A verifies" fio_region VERIFY $A_ARGS
ktap_check "mdadm --stop" mdadm --stop $MD
ktap_finish
