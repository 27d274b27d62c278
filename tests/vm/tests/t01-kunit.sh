#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 120
#
# The KUnit suites of the md stack (issue 12): the writes_pending and
# resync throttle scenarios of tests/unit/ (one copy of the cases, see
# tests/unit/wp_scenarios.h and rt_scenarios.h) compiled into test
# modules (kunit/) and run inside the kernel, under lockdep, KASAN,
# UBSAN and kmemleak.  They are built only against the debug kernel
# (tests/check-debug.sh puts them and the kernel's kunit.ko in
# /harness/kunit/); on any other run this test is skipped, with the
# reason.
#
# Each suite runs when its module is loaded; its KTAP comes from
# /sys/kernel/debug/kunit/SUITE/results and is shown as a subtest.  The
# suite's own last line ("ok 1 SUITE" or "not ok 1 SUITE") is the result,
# so one failing case fails this test and the run.  The suites do not
# use md-mod: they pass or fail the same with either IMPL.
. /harness/lib.sh

KU=$HARNESS/kunit
SUITES="md_wp_kunit:md_writes_pending md_rt_kunit:md_resync_throttle"

[ -e "$KU/md_wp_kunit.ko" ] ||
	ktap_skip_all "no KUnit suites in this run (built only against the debug kernel: make check-debug)"

# run_suite MODULE SUITE: load it (the suite runs during the load), show
# its KTAP, unload it; succeed if KUnit says the suite passed.
run_suite() {
	_mod=$1 _suite=$2 _res=/sys/kernel/debug/kunit/$2/results
	insmod "$KU/$_mod.ko" || { echo "insmod $_mod.ko failed"; return 1; }
	if [ ! -r "$_res" ]; then
		echo "$_res missing (KUNIT_DEBUGFS off, or the suite did not register)"
		rmmod "$_mod"
		return 1
	fi
	cat "$_res" > "/tmp/kunit.$_suite"
	rmmod "$_mod" || { echo "rmmod $_mod failed"; return 1; }
	cat "/tmp/kunit.$_suite"
	echo "cases: $(grep -cE '^ +ok ' "/tmp/kunit.$_suite") ok," \
		"$(grep -cE '^ +not ok ' "/tmp/kunit.$_suite") not ok"
	tail -n1 "/tmp/kunit.$_suite" | grep -q "^ok 1 $_suite\$"
}

ktap_plan 3
if [ -d /sys/module/kunit ]; then
	ktap_ok "kunit framework loaded"
else
	ktap_check "load the kernel's kunit.ko" insmod "$KU/kunit.ko"
fi
for s in $SUITES; do
	ktap_check "KUnit suite ${s#*:}" run_suite "${s%%:*}" "${s#*:}"
done
ktap_finish
