#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 180
#
# Unclean shutdown, boot 2 of 3: the members' superblocks say the array
# was active (dirty); assembling starts a resync (capped so it is seen),
# which completes; region A (everything acknowledged before the
# checkpoint) verifies, `check` finds the mirrors identical; a clean stop
# leaves both superblocks "clean".
. /harness/tests/crash/common.sh

ktap_plan 11
ktap_check "virtio disks vda vdb" virtio_disks
ktap_check "vda superblock: State active (unclean shutdown)" sb_state /dev/vda active
ktap_check "vdb superblock: State active (unclean shutdown)" sb_state /dev/vdb active
md_speed_limit 1000 5000
# shellcheck disable=SC2086
ktap_check "mdadm --assemble" mdadm --assemble $MD $MEMBERS
ktap_check "resync runs after assemble" \
	sh -c '. /harness/lib.sh; mdstat_array md0; mdstat_array md0 | grep -Eq "resync *= *[0-9.]+%"'
md_speed_limit
ktap_check "resync completes" wait_resync md0 120
ktap_check "resync_start none after resync" \
	sh -c 'cat /sys/block/md0/md/resync_start; [ "$(cat /sys/block/md0/md/resync_start)" = none ]'
# shellcheck disable=SC2086
ktap_check "region A verifies" fio_region VERIFY $A_ARGS
ktap_check "check: mirrors identical (mismatch_cnt 0)" md_check_clean md0
ktap_check "mdadm --stop" mdadm --stop $MD
ktap_check "both superblocks clean after stop" \
	sh -c '. /harness/tests/crash/common.sh; sb_state /dev/vda clean && sb_state /dev/vdb clean'
ktap_finish
