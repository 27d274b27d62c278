#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 600
# SLOW: two bitmap handovers with in-tree md on 0.90 superblocks, about 1 min per implementation (TCG)
#
# --re-add with an internal bitmap on 0.90 superblocks (issue 14,
# acceptance 4 and 2), whose bitmap has one place: right after the
# superblock at the end of each member (its magic is looked for there).
# As t81: the failure and the write on in-tree md, the re-add on $IMPL
# (it must trust the partner's bits), and the reverse; the recovery must
# write only the dirty chunk and every byte must read back as written.
. /harness/lib.sh
. /harness/tests/bitmap/readd.sh

ktap_plan 5
readd_setup
ktap_check "0.90: $partner fails and writes, $impl re-adds from its bits" \
	readd $partner "$impl" 0.90
ktap_check "0.90: $impl fails and writes, $partner re-adds from its bits" \
	readd "$impl" $partner 0.90
readd_teardown
ktap_finish
