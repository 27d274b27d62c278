#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 420
#
# mdadm --replace on RAID5 (issue 37): 4 members on 16 MiB RAM disks,
# 1.2 superblocks, spares beside them, data written and verified with
# fio; the cases of tests/replace/common.sh:
#  - --replace with a spare md picks: it is "replacement" in the
#    replaced member's slot and (R) in /proc/mdstat while it is built,
#    the array stays whole; then it holds the slot, the replaced member
#    is faulty and removable, data verifies;
#  - --replace --with the named spare while fio writes and verifies;
#  - a half-built replacement survives stop/assemble and completes;
#  - the member being replaced fails half way: the replacement takes its
#    slot; the replacement fails half way: the member stays, check clean;
#  - another member fails half way: the replacement completes from what
#    the rest rebuild, the array is short that member only;
#  - handed over half built, both ways, between in-tree md and this stack.
# RAID6 runs the same cases in t111, RAID10 in t112 (both SLOW).
. /harness/lib.sh
LEVEL=${RP_LEVEL:-5}
NDEV=4
RP_OTHER=1
RP_KIB=16384
. /harness/tests/replace/common.sh

: "${IMPL:?}"

ktap_plan 10
rp_cases "RAID$LEVEL"
ktap_finish
