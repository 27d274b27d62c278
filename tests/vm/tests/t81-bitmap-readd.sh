#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 900
#
# --re-add with an internal bitmap (issue 14, acceptance 4 and 2).
#
# raid1 over two dm-linear members (over RAM disks, so the block layer
# counts the sectors written to each), 4 MiB bitmap chunks, 96 MiB of
# data: fio writes and verifies, the bits clear, m1 is failed and
# removed, 1 MiB is written at 40 MiB (one chunk), m1 is re-added.  The
# recovery must write at most a few chunks to m1 (sectors counted from
# /sys/block/dm-N/stat), far below the array size, and "check" must find
# mismatch_cnt 0 with every byte readable as written.
#
# Three ways: all on $IMPL; the failure and the write on the partner
# (in-tree md), then the array stopped and assembled degraded by $IMPL,
# which re-adds (it must trust the partner's bits); and the reverse.
# t89 does the two handovers with 0.90 superblocks.
. /harness/lib.sh
. /harness/tests/bitmap/readd.sh

ktap_plan 6
readd_setup
ktap_check "$impl: fail, remove, write 1 MiB, re-add: only the dirty chunk" \
	readd "$impl" "$impl"
ktap_check "$partner fails and writes, $impl re-adds from its bits" \
	readd $partner "$impl"
ktap_check "$impl fails and writes, $partner re-adds from its bits" \
	readd "$impl" $partner
readd_teardown
ktap_finish
