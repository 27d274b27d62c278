#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest test runner: load one implementation, run the selected tests with
# a per-test timeout, check the kernel log after each test, report KTAP.
# Besides KTAP it prints one machine-readable line per result for the host:
#   # RESULT impl=I test=T status=pass|fail|xfail|xpass|skip time=S reason=...
. /harness/config
. /harness/lib.sh

IMPL=${IMPL:?}
TIMEOUT=${TIMEOUT:-300}
# integer factor for every test's timeout (VM_TIMEOUT_SCALE on the host:
# debug kernels under TCG are several times slower)
TIMEOUT_SCALE=${TIMEOUT_SCALE:-1}
# kmemleak (debug kernels): scan after every test ("each") or only after
# the unload ("end", VM_KMEMLEAK_SCAN on the host; see kmemleak_check)
KMEMLEAK_SCAN=${KMEMLEAK_SCAN:-each}
export IMPL

ntests=0
for t in $TESTS; do ntests=$((ntests + 1)); done
total=$((ntests + 2))	# + load_impl + unload_impl
idx=0
aborted=

now() { cut -d' ' -f1 /proc/uptime; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# pgrp_members PGID: pids (with state) still in that process group.
pgrp_members() {
	for st in /proc/[0-9]*/stat; do
		read -r pid comm state ppid pgrp rest < "$st" 2>/dev/null || continue
		[ "$pgrp" = "$1" ] && printf '%s%s:%s ' "$pid" "$comm" "$state"
	done
}

# kernel_check FILE: save and clear the kernel log, print offending lines
# (splat_lines, lib.sh).
kernel_check() {
	dmesg -c > "$1" 2>/dev/null
	splat_lines "$1"
}

# Debug kernels only (the file exists with CONFIG_DEBUG_KMEMLEAK):
# kmemleak_check FILE scans for unreferenced objects, saves the report in
# FILE, forgets the objects it reported (so each is reported once) and
# prints the header of every leak whose allocation backtrace runs through
# md code: an md module's symbol, or a bare address in module space (a
# module that has been unloaded since).  Other kernel leaks stay in FILE.
# The scan's duration goes to /tmp/kmemleak.secs (it is most of a debug
# run's overhead: every allocated object and the memory map are read).
#
# Scanning only at the end ("end") finds the same md leaks as scanning
# after every test: a leaked object stays unreferenced, and after rmmod
# nothing of md's can point at it any more; the report's allocation
# backtrace says which code leaked it, only the test is not named.
KMEMLEAK=/sys/kernel/debug/kmemleak
kmemleak_check() {
	[ -w "$KMEMLEAK" ] || return 0
	_kt0=$(now)
	# Two scans: kmemleak reports an object only if its contents did not
	# change since the previous scan, so one scan alone reports no new
	# leak (make check-debug-bite saw exactly that).
	echo scan > "$KMEMLEAK" 2>/dev/null || { echo "kmemleak: scan failed (disabled?)"; return 0; }
	echo scan > "$KMEMLEAK" 2>/dev/null || { echo "kmemleak: scan failed (disabled?)"; return 0; }
	elapsed "$_kt0" > /tmp/kmemleak.secs
	cat "$KMEMLEAK" > "$1" 2>/dev/null
	echo clear > "$KMEMLEAK" 2>/dev/null
	awk '
	function flush() { if (hdr != "" && md) print hdr " in " where; hdr = ""; md = 0 }
	/^unreferenced object/ { flush(); hdr = "kmemleak: " $0; sub(/:$/, "", hdr); next }
	!md && (/\[(md_mod|raid1|raid456|raid10|raid0|linear)\]$/ || /\] 0xffffffffc[0-9a-f]+$/) {
		md = 1; where = $0; sub(/^ *\[<[0-9a-f]+>\] */, "", where)
	}
	END { flush() }' "$1"
}

# lockdep switches itself off for good after its first report: a report
# at boot (before the runner clears the log) would silently blind it.
lockdep_check() {
	[ -r /proc/lockdep_stats ] || return 0
	grep -q 'debug_locks: *1' /proc/lockdep_stats ||
		echo "lockdep is off (debug_locks 0): an earlier report disabled it"
}

# report NAME STATUS TIME REASON
report() {
	idx=$((idx + 1))
	case "$2" in
	pass)	echo "ok $idx $1" ;;
	xpass)	echo "ok $idx $1 # XPASS expected to fail on fork ($4)" ;;
	skip)	echo "ok $idx $1 # SKIP $4" ;;
	xfail)	echo "not ok $idx $1 # TODO xfail on fork: $4" ;;
	*)	echo "not ok $idx $1${4:+ # $4}" ;;
	esac
	echo "# RESULT impl=$IMPL test=$1 status=$2 time=$3 reason=$4"
}

# Background watchdog: if a test outlives its deadline by 60 s (stuck in
# the kernel, unkillable), dump blocked tasks and the kernel log, reboot.
(
	while sleep 5; do
		[ -f /tmp/deadline ] || continue
		read -r name dl < /tmp/deadline
		if [ "$(cut -d. -f1 /proc/uptime)" -gt $((dl + 60)) ]; then
			echo "# WATCHDOG: $name stuck past its timeout; blocked tasks and kernel log follow"
			echo w > /proc/sysrq-trigger
			dmesg | sed 's/^/# dmesg: /'
			echo "# RESULT impl=$IMPL test=$name status=fail time=- reason=hung (watchdog reboot)"
			echo "@@HARNESS-END rc=1"
			sleep 1
			echo b > /proc/sysrq-trigger
		fi
	done
) &
wdpid=$!

echo "KTAP version 1"
echo "# impl: $IMPL  kernel: $(uname -r)  timeout: ${TIMEOUT}s x$TIMEOUT_SCALE"
echo "1..$total"

dmesg -c > /dev/null
# what boot left behind is not ours: report it once, then forget it
if [ -w "$KMEMLEAK" ] && [ "$KMEMLEAK_SCAN" = each ]; then
	kmemleak_check /tmp/kmemleak.boot > /dev/null
	echo "# kmemleak: $(grep -c '^unreferenced object' /tmp/kmemleak.boot) unreferenced object(s) after boot, ignored (scan $(cat /tmp/kmemleak.secs)s)"
elif [ -w "$KMEMLEAK" ]; then
	echo "# kmemleak: one scan, after the unload (KMEMLEAK_SCAN=$KMEMLEAK_SCAN)"
fi
t0=$(now)
log=/tmp/load.log
if load_impl "$IMPL" > "$log" 2>&1 && impl_check "$IMPL" >> "$log" 2>&1; then
	st=pass; why=
else
	st=fail; why="load_impl $IMPL failed"; aborted="$why"
fi
splat=$(kernel_check /tmp/dmesg.load; lockdep_check)
sed 's/^/# /' "$log"
[ "$st" = fail ] && sed 's/^/# dmesg: /' /tmp/dmesg.load
if [ -n "$splat" ]; then
	echo "$splat" | sed 's/^/# kernel: /'
	st=fail; why="kernel log: $(echo "$splat" | head -n1)"
fi
report load_impl "$st" "$(elapsed "$t0")" "$why"

for name in $TESTS; do
	t=/harness/tests/$name.sh
	xfail=
	[ "$IMPL" = fork ] && xfail=$(sed -n 's/^# XFAIL_FORK: *//p' "$t" | head -n1)
	tmo=$(sed -n 's/^# TIMEOUT: *\([0-9]*\).*/\1/p' "$t" | head -n1)
	tmo=$(( ${tmo:-$TIMEOUT} * TIMEOUT_SCALE ))
	echo "# ---- $name (impl=$IMPL, timeout=${tmo}s${xfail:+, XFAIL_FORK})"
	if [ -n "$aborted" ]; then
		report "$name" fail 0 "not run: $aborted"
		continue
	fi
	if ! mm=$(impl_check "$IMPL"); then
		report "$name" fail 0 "$mm"
		continue
	fi
	t0=$(now)
	echo "$name $(( $(cut -d. -f1 /proc/uptime) + tmo ))" > /tmp/deadline
	rm -f /tmp/rc
	{
		(cd /tmp && setsid sh -c 'echo $$ > /tmp/pgid; exec timeout -s KILL "$0" sh "$1"' "$tmo" "$t" 2>&1)
		echo $? > /tmp/rc
		kill -KILL -- "-$(cat /tmp/pgid)" 2>/dev/null
	} | tee "/tmp/$name.out" | sed 's/^/    /'
	rm -f /tmp/deadline
	rc=$(cat /tmp/rc 2>/dev/null || echo 1)
	secs=$(elapsed "$t0")
	why=
	if awk -v s="$secs" -v t="$tmo" 'BEGIN { exit !(s >= t) }'; then
		st=fail; why="timeout after ${tmo}s"
		echo w > /proc/sysrq-trigger
	elif [ "$rc" = "$KSFT_SKIP" ]; then
		st=skip; why=$(sed -n 's/^1\.\.0 # SKIP *//p' "/tmp/$name.out" | head -n1)
		why=${why:-test skipped itself}
	elif [ "$rc" = 0 ]; then
		st=pass
	else
		st=fail; why="exit status $rc"
	fi
	# Results the test reported must agree with its exit status.
	if [ "$st" = pass ] && grep -Eq '^not ok [0-9]+' "/tmp/$name.out" &&
	   grep -E '^not ok [0-9]+' "/tmp/$name.out" | grep -vq '# TODO'; then
		st=fail; why="a subtest reported not ok"
	fi
	if [ "$st" = fail ] && [ -n "$xfail" ]; then
		st=xfail; why=$xfail
	elif [ "$st" = pass ] && [ -n "$xfail" ]; then
		st=xpass; why=$xfail
	fi
	# A kernel splat or an md leak always fails the test, XFAIL or not.
	splat=$(kernel_check "/tmp/dmesg.$name")
	leak=
	if [ "$KMEMLEAK_SCAN" = each ] && [ -w "$KMEMLEAK" ]; then
		leak=$(kmemleak_check "/tmp/kmemleak.$name")
		echo "# kmemleak: scan after $name took $(cat /tmp/kmemleak.secs)s"
	fi
	if [ -n "$leak" ]; then
		echo "# kmemleak after $name:"
		sed 's/^/# kmemleak: /' "/tmp/kmemleak.$name"
		splat="${splat:+$splat
}$leak"
	fi
	if [ -n "$splat" ]; then
		echo "# kernel log during $name:"
		sed 's/^/# dmesg: /' "/tmp/dmesg.$name"
		st=fail; why="kernel log: $(echo "$splat" | head -n1)"
	elif [ "$st" = fail ] || [ "$st" = xfail ]; then
		[ -s "/tmp/dmesg.$name" ] && sed 's/^/# dmesg: /' "/tmp/dmesg.$name"
	fi
	# After a timeout, go on only if the test's processes could be killed;
	# tasks stuck in the kernel mean the remaining results would be noise.
	if [ "$why" = "timeout after ${tmo}s" ]; then
		sleep 2
		left=$(pgrp_members "$(cat /tmp/pgid)")
		if [ -n "$left" ]; then
			aborted="previous test $name timed out leaving unkillable tasks ($left)"
			echo "# $aborted"
		fi
	fi
	report "$name" "$st" "$secs" "$why"
done

kill "$wdpid" 2>/dev/null
t0=$(now)
if unload_impl > /tmp/unload.log 2>&1 && [ "$(impl_loaded)" = none ]; then
	st=pass; why=
else
	st=fail; why="unload_impl failed"
fi
brd_teardown > /dev/null 2>&1
sed 's/^/# /' /tmp/unload.log
splat=$(kernel_check /tmp/dmesg.unload)
leak=$(kmemleak_check /tmp/kmemleak.unload)
[ -s /tmp/kmemleak.secs ] && echo "# kmemleak: scan after the unload took $(cat /tmp/kmemleak.secs)s"
if [ -n "$leak" ]; then
	sed 's/^/# kmemleak: /' /tmp/kmemleak.unload
	splat="${splat:+$splat
}$leak"
fi
if [ -n "$splat" ]; then
	echo "$splat" | sed 's/^/# kernel: /'
	st=fail; why="kernel log: $(echo "$splat" | head -n1)"
fi
report unload_impl "$st" "$(elapsed "$t0")" "$why"
exit 0
