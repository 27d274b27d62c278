#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 1500
# SLOW: every RAID6 layout both ways, about 5 min per implementation (TCG, idle host)
#
# On-disk compatibility of RAID6 (P and Q) between the implementation
# under test and in-tree md, both ways, for every supported RAID6
# layout (the DDF ones too), 4..6 members and 4K/64K/512K chunks; see
# t71 for the method.
# check verifies P and Q on both implementations.
. /harness/lib.sh
. /harness/tests/raid5/common.sh

impl=${IMPL:?}
partner=intree

ktap_plan 32
ktap_check "brd: six 32 MiB RAM disks" brd_setup 6 32768
r5_compat_case "$impl" $partner 6 left-symmetric 4 64
r5_compat_case "$impl" $partner 6 left-asymmetric 5 4
r5_compat_case "$impl" $partner 6 right-asymmetric 6 512
r5_compat_case "$impl" $partner 6 right-symmetric 5 64
r5_compat_case "$impl" $partner 6 parity-first 5 64
r5_compat_case "$impl" $partner 6 parity-last 4 64
r5_compat_case "$impl" $partner 6 left-symmetric 6 4
r5_compat_case "$impl" $partner 6 left-asymmetric-6 5 64
r5_compat_case "$impl" $partner 6 right-asymmetric-6 5 64
r5_compat_case "$impl" $partner 6 left-symmetric-6 6 64
r5_compat_case "$impl" $partner 6 right-symmetric-6 5 64
r5_compat_case "$impl" $partner 6 ddf-zero-restart 5 64
r5_compat_case "$impl" $partner 6 ddf-N-restart 6 4
r5_compat_case "$impl" $partner 6 ddf-N-continue 4 512
r5_compat_case "$impl" $partner 6 ddf-N-continue 6 64
md_stop_all
ktap_check "back to $impl" switch_impl "$impl"
brd_teardown
ktap_finish
