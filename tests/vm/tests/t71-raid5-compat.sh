#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 1500
# SLOW: every RAID4/5 layout both ways, about 3 min per implementation (TCG, idle host)
#
# On-disk compatibility of RAID4 and RAID5 between the implementation
# under test and in-tree md (for IMPL=intree: in-tree again, unloaded
# and reloaded, which proves the test), both ways, for every RAID5
# layout, RAID4, 3..6 members and 4K/64K/512K chunks: one side creates
# the array, lets the initial sync finish and writes crc32c-checked data
# (4k random and 1M sequential); the other assembles it, verifies the
# data and runs check, which must find mismatch_cnt 0.  A geometry or
# parity difference shows up as a fio verify failure or a mismatch.
. /harness/lib.sh
. /harness/tests/raid5/common.sh

impl=${IMPL:?}
partner=intree

ktap_plan 20
ktap_check "brd: six 32 MiB RAM disks" brd_setup 6 32768
r5_compat_case "$impl" $partner 4 default 4 64
r5_compat_case "$impl" $partner 4 default 3 512
r5_compat_case "$impl" $partner 5 left-asymmetric 3 4
r5_compat_case "$impl" $partner 5 right-asymmetric 5 512
r5_compat_case "$impl" $partner 5 left-symmetric 4 64
r5_compat_case "$impl" $partner 5 right-symmetric 6 64
r5_compat_case "$impl" $partner 5 parity-first 4 64
r5_compat_case "$impl" $partner 5 parity-last 4 4
r5_compat_case "$impl" $partner 5 left-symmetric 6 512
md_stop_all
ktap_check "back to $impl" switch_impl "$impl"
brd_teardown
ktap_finish
