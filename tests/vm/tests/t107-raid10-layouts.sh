#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 1200
# SLOW: t103's end-to-end steps on eight more RAID10 layouts, about 2.5 min per implementation (TCG)
#
# The layouts t103 leaves out, each through r10_case's nine steps
# (tests/raid10/common.sh; t103's header says what each asserts):
# n2 on 2, 3 and 5 members, f2 on 2, o2 on 4, n3 on 3 and 5, f3 on 3,
# 64 KiB chunks.  In-tree md passes every step.
. /harness/lib.sh
. /harness/tests/raid10/common.sh

CASES="n2:2:64 n2:3:64 n2:5:64 f2:2:64 o2:4:64 n3:3:64 n3:5:64 f3:3:64"
# shellcheck disable=SC2086
set -- $CASES
ktap_plan $(($# * 9))
brd_setup 5 "$R10_KIB" || ktap_skip_all "no RAM disks"
for c in $CASES; do
	# shellcheck disable=SC2046
	r10_case $(echo "$c" | tr : ' ')
done
md_stop_all
brd_teardown
ktap_finish
