#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 60
#
# Runs the deliberate bug of a test-only md-mod build (md_bite.c, built
# with MD_BITE=lock|uaf|leak by `make check-debug-bite`).  This test
# itself passes; what must fail it is the runner's check of the kernel
# log and its kmemleak scan after the test.  check-debug-bite passes only
# if that happened with the expected report (lockdep, KASAN or kmemleak).
# Any other build has no "bite" parameter: the test is skipped.
. /harness/lib.sh

BITE=/sys/module/md_mod/parameters/bite
if [ "$IMPL" != fork ] || [ ! -e "$BITE" ]; then
	ktap_skip_all "test only: needs an md-mod built with MD_BITE (make check-debug-bite)"
fi

ktap_plan 2
ktap_check "run the deliberate bug (echo 1 > $BITE)" sh -c "echo 1 > $BITE"
# kmemleak reports an object only once it is 5 s old
ktap_check "wait for the leak to age" sleep 6
ktap_finish
