#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 300
#
# Allocation failures in the md threads (issue 12): a 2-disk raid1 of RAM
# disks resyncs (slowly, so the sync thread runs throughout) while fio
# writes and verifies crc32c data, with failslab and fail_page_alloc
# failing a share (INJECT_PCT) of the allocations made by the array's md
# thread (md0_raid1) and its sync thread (md0_resync) - the task filter is
# on, so only tasks with /proc/PID/make-it-fail set see failures; fio's
# own submissions are not touched.  Every allocation those threads make
# either has a mempool or another fallback behind it or must fail cleanly.
# Asserted:
#  - failures were really injected (the fault-injection log lines);
#  - every write fio was told had completed verifies, during injection
#    and again after it (nothing acknowledged is lost), and the array
#    kept both members (an allocation failure is no member failure);
#  - once injection stops the resync finishes, a check finds the mirrors
#    identical, the data still verifies after a stop and assemble;
#  - no kernel splat (the runner's log check: lockdep, KASAN, warnings,
#    kmemleak).
# Where the sync thread allocates: in-tree for every sync request; this
# stack keeps finished requests' buffers for the next ones and allocates
# only while the number in flight grows.  At the test's slow sync speed
# that happened before injection began (one fork run saw 1 injected
# failure, the next none), so once fio runs the sync's floor is raised:
# the sync goes to full depth and allocates its new buffers under
# injection, in both implementations.
# Fault injection exists only in the debug kernel of `make check-debug`
# (CONFIG_FAILSLAB, CONFIG_FAIL_PAGE_ALLOC); elsewhere the test is
# skipped, with that reason.
. /harness/lib.sh

MD=/dev/md0
DBG=/sys/kernel/debug
FAILSLAB=$DBG/failslab
FAILPAGE=$DBG/fail_page_alloc
INJECT_PCT=5
SIZE=24M

if [ ! -d "$FAILSLAB" ] || [ ! -d "$FAILPAGE" ]; then
	ktap_skip_all "no allocation fault injection in this kernel ($FAILSLAB, $FAILPAGE: CONFIG_FAILSLAB and CONFIG_FAIL_PAGE_ALLOC, set in the debug kernel of make check-debug)"
fi

# md_thread_pids: pids of the array's md thread and sync thread (this
# stack also has the rescuer of its md0_raid1 workqueue, same name)
md_thread_pids() {
	for _c in /proc/[0-9]*/comm; do
		case "$(cat "$_c" 2>/dev/null)" in
		md0_raid1|md0_resync) _p=${_c#/proc/}; echo "${_p%/comm}" ;;
		esac
	done
}

# mark VALUE: set make-it-fail of those threads; an md0_raid1 and the
# md0_resync must both exist
mark() {
	_md=0 _sync=0
	for _p in $(md_thread_pids); do
		echo "$1" > "/proc/$_p/make-it-fail" || return 1
		_comm=$(cat "/proc/$_p/comm")
		echo "pid $_p ($_comm): make-it-fail $1"
		case "$_comm" in
		md0_resync) _sync=$((_sync + 1)) ;;
		*) _md=$((_md + 1)) ;;
		esac
	done
	[ "$_md" -ge 1 ] && [ "$_sync" = 1 ]
}

# inject PCT: fail PCT% of the marked tasks' slab and page allocations,
# sleeping ones and order-0 pages included; 0 stops it
inject() {
	for _d in "$FAILSLAB" "$FAILPAGE"; do
		echo Y > "$_d/task-filter" &&
		echo N > "$_d/ignore-gfp-wait" &&
		echo 1 > "$_d/interval" &&
		echo -1 > "$_d/times" &&
		echo 0 > "$_d/space" &&
		echo 1 > "$_d/verbose" &&
		echo "$1" > "$_d/probability" || return 1
	done
	echo N > "$FAILPAGE/ignore-gfp-highmem" &&
	echo 0 > "$FAILPAGE/min-order"
}

fio_write() {
	fio_write_verify $MD $SIZE > /tmp/fio.out 2>&1
	fio_log_ok $?
}

# fio_write_ramp: fio_write, and 2 s into it the sync's speed floor goes
# up (see above); the sync may then finish before fio does
fio_write_ramp() {
	fio_write &
	_fio=$!
	sleep 2
	md_speed_limit 50000 200000
	wait $_fio
}

fio_verify() {
	fio_verify_only $MD $SIZE > /tmp/fio.out 2>&1
	fio_log_ok $?
}

# injected: the fault-injection notices (rate-limited: a lower bound)
injected() {
	_n=$(dmesg | grep -c 'FAULT_INJECTION: forcing a failure')
	echo "$_n fault-injection notices in the kernel log"
	dmesg | grep -A1 'FAULT_INJECTION: forcing a failure' | grep -m4 name
	[ "$_n" -gt 0 ]
}

both_members() {
	mdadm --detail $MD > /tmp/detail.out 2>&1
	grep -E 'State :|Active Devices|Failed Devices' /tmp/detail.out
	[ "$(md_field 'Active Devices' < /tmp/detail.out)" = 2 ] &&
	[ "$(md_field 'Failed Devices' < /tmp/detail.out)" = 0 ]
}

resyncing() {
	mdstat_array md0
	mdstat_array md0 | grep -Eq 'resync *= *[0-9.]+%'
}

ktap_plan 14
md_speed_limit 500 1000
ktap_check "brd: two 64 MiB RAM disks" brd_setup 2 65536
ktap_check "mdadm --create raid1" \
	mdadm --create $MD --run --level=1 --raid-devices=2 --metadata=1.2 \
	/dev/ram0 /dev/ram1
ktap_check "resync running" resyncing
ktap_check "make-it-fail on md0_raid1 and md0_resync" mark 1
ktap_check "inject: $INJECT_PCT% of their allocations fail" inject $INJECT_PCT
ktap_check "fio $SIZE randwrite + verify under injection, sync sped up" fio_write_ramp
ktap_check "allocation failures were injected" injected
inject 0 > /dev/null 2>&1
mark 0 > /dev/null 2>&1
ktap_check "injection stopped" inject 0
ktap_check "both members still in the array" both_members
md_speed_limit
ktap_check "resync completes" wait_resync md0 240
ktap_check "data verifies after injection" fio_verify
ktap_check "check: mirrors identical (mismatch_cnt 0)" md_check_clean md0 120
ktap_check "stop and assemble" sh -c "mdadm --stop $MD && mdadm --assemble $MD /dev/ram0 /dev/ram1"
ktap_check "data verifies after assemble" fio_verify
brd_teardown
ktap_finish
