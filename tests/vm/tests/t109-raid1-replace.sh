#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 420
# SLOW: the replacement cases on RAID1, about 1 min per implementation (TCG); make check runs them on RAID5 (t110), mdadm's 01replace on RAID1 too
#
# mdadm --replace on RAID1 (issue 37): 3 mirrors on RAM disks, 1.2
# superblocks, spares beside them, data written and verified with fio.
#  - --replace with a spare md picks: while it is built the spare is
#    "replacement" in its dev-*/state, in the replaced member's slot and
#    (R) in /proc/mdstat, and the array stays whole (degraded 0); once
#    built it holds the slot in sync, the replaced member is faulty and
#    can be --removed, the data verifies;
#  - --replace --with names the spare, while fio writes and verifies;
#  - a replacement half built survives stop and assemble: it is still a
#    replacement in its slot, goes on and completes, data verifies;
#  - the member being replaced fails half way: the replacement takes
#    its slot and is rebuilt as an ordinary member, data verifies;
#  - the replacement fails half way: the member keeps its slot, the
#    array stays whole, and `check` finds 0 mismatches;
#  - handed over half built, both ways: a replacement that in-tree md
#    started is still one on this stack after assembly and completes,
#    and the reverse (for IMPL=intree: in-tree, unloaded and reloaded).
. /harness/lib.sh
LEVEL=1
NDEV=3
. /harness/tests/replace/common.sh

: "${IMPL:?}"

ktap_plan 9
rp_cases RAID1
ktap_finish
