#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check-debug`: the VM suite and the crash test on a debug build of
# the same Debian kernel (lockdep, KASAN, kmemleak, UBSAN, object debugging;
# see scripts/debug-kernel.config).
#   1. build or reuse the debug kernel (scripts/debug-kernel.sh; cached
#      outside the clone, the first build takes a while)
#   2. build our modules against it in .cache/debug-build/ (the normal
#      build in the top directory stays on the distro headers), and the
#      KUnit suites (kunit/) in .cache/debug-build/kunit/
#   3. tests/vm/run-tests and tests/vm/run-crash booting that kernel, for
#      IMPL (default both; the debug kernel's own md modules are "intree");
#      t01-kunit loads the KUnit suites there
# Timeouts are multiplied by VM_TIMEOUT_SCALE (default below): the debug
# kernel under TCG is several times slower than the cloud kernel.
# Arguments are passed to run-tests (e.g. a test glob); with any, the
# crash test is skipped unless CRASH=1.  CRASH_VARIANTS="raid5 raid6"
# runs only those variants of it (run-crash's names).
#
# `make check-debug-bite` (--bite [lock|uaf|leak]...): instead of the
# suite, build md-mod once per deliberate bug (md_bite.c, MD_BITE=...),
# run t02-debug-bite with each on the debug kernel and pass only if that
# run failed with the expected report: lockdep, KASAN, kmemleak.
#
# DEBUG_KERNEL_DIR=DIR uses an already built debug kernel tree (the layout
# scripts/debug-kernel.sh writes) instead of building or looking one up.
# Prints each stage's time; exits non-zero if any stage fails.
set -uo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
cd "$SRC" || exit 1
# scripts/debug-kernel.sh builds Debian's linux-source-6.1 only
if [ "${KVER:-6.1}" != 6.1 ]; then
	echo "check-debug: the debug kernel is Debian's 6.1 only (KVER=$KVER)" >&2
	exit 2
fi

DEFAULT_SCALE=10
export VM_TIMEOUT_SCALE=${VM_TIMEOUT_SCALE:-$DEFAULT_SCALE}
# With the harness's "quiet" command line the debug guest twice sat idle
# with no console output for minutes; with these it booted every time.
# Not understood yet: a workaround, overridable (VM_APPEND= for none).
# On a loaded host (load 8-17, 2 cores) 3 of 9 debug boots still hung,
# idle (qemu near 0% CPU), right after "Running RCU-tasks wait API self
# tests"; nolapic_timer did not prevent it (1 of 2).
export VM_APPEND=${VM_APPEND-loglevel=7 earlyprintk=ttyS0,115200}
# That hang is caught by the boot bound and the guest started again
# (boot_vm, VM_BOOT_TRIES).  The debug guest reaches its /init in about
# 20 s (a whole crash boot 1 took 72 s): wait 180 s, not the scaled
# 1200 s, before giving up on a boot, and try three times (a crash boot 2
# hung twice in a row at the same self test, 2026-12-03).
export VM_BOOT_S=${VM_BOOT_S:-180}
export VM_BOOT_TRIES=${VM_BOOT_TRIES:-3}
BUILD=$SRC/.cache/debug-build
# One kmemleak scan per implementation, after the unload, instead of one
# after every test: a scan took 80-140 s (4 GiB guest, TCG), more than
# most tests, and finds the same md leaks at the end (README, "Debug
# kernel").  VM_KMEMLEAK_SCAN=each names the test that leaked.
export VM_KMEMLEAK_SCAN=${VM_KMEMLEAK_SCAN:-end}

failed=()
summary=()
stage() { # name cmd...
	local name=$1 t0 rc dt
	shift
	echo
	echo "######## $name"
	t0=$(date +%s)
	"$@"
	rc=$?
	dt=$(( $(date +%s) - t0 ))
	if [ $rc -eq 0 ]; then
		summary+=("$(printf 'ok      %-10s %6ss' "$name" "$dt")")
	else
		summary+=("$(printf 'FAILED  %-10s %6ss  (exit %s)' "$name" "$dt" "$rc")")
		failed+=("$name")
	fi
	return $rc
}

# build_in DIR [KBUILD ARGS...]: copy the module sources into DIR,
# touching only files whose content changed (kbuild then rebuilds just
# those), and build them there against the debug kernel.
build_in() {
	local dir=$1 f
	shift
	"$SRC"/scripts/copy-sources.sh "$dir" || return 1
	make -C "$DKDIR/build" M="$dir" W=1 "$@" modules || return 1
	for f in md-mod raid1 raid456; do
		[ -e "$dir/$f.ko" ] || { echo "check-debug: $dir/$f.ko missing" >&2; return 1; }
	done
	# the .ko must fit the kernel it will be loaded into
	modinfo -F vermagic "$dir/md-mod.ko" | grep -q "^$(basename "$DKDIR"/lib/modules/*) " || {
		echo "check-debug: md-mod.ko vermagic does not match the debug kernel" >&2
		return 1
	}
}

# The KUnit suites (kunit/Kbuild) in $BUILD/kunit, plus the kernel's own
# kunit.ko: the guest's base initramfs only has the harness's modules.
build_kunit() {
	local dir=$BUILD/kunit f ku
	mkdir -p "$dir"
	for f in "$SRC"/kunit/Kbuild "$SRC"/kunit/*.c; do
		cmp -s "$f" "$dir/${f##*/}" || cp "$f" "$dir/"
	done
	make -C "$DKDIR/build" M="$dir" MD_FORK_SRC="$SRC" W=1 modules || return 1
	ku=$(find "$DKDIR"/lib/modules/*/kernel/lib/kunit -name kunit.ko | head -n1)
	[ -n "$ku" ] || { echo "check-debug: no kunit.ko in $DKDIR (CONFIG_KUNIT=m?)" >&2; return 1; }
	cp "$ku" "$dir/kunit.ko"
	for f in md_wp_kunit md_rt_kunit; do
		[ -e "$dir/$f.ko" ] || { echo "check-debug: $dir/$f.ko missing" >&2; return 1; }
	done
}

build_debug_modules() {
	build_in "$BUILD" && build_kunit
}

# bite VARIANT: md-mod with that deliberate bug; the t02-debug-bite run
# must fail with the expected report as the reason and nothing else fail.
# The report belongs to t02 (lockdep, KASAN: the kernel log after it) or
# to unload_impl (kmemleak: the leak is found by the scan after the
# unload, as in make check-debug).
bite() {
	local v=$1 dir=$SRC/.cache/debug-build-bite-$1 want sum line nfail
	case "$v" in
	lock) want='possible circular locking dependency' ;;
	uaf) want='KASAN: [a-z-]*use-after-free' ;;
	leak) want='kmemleak: unreferenced object' ;;
	*) echo "check-debug: unknown bite variant '$v' (lock, uaf, leak)" >&2; return 2 ;;
	esac
	# start from the normal debug build: only md_bite.o and md-mod.ko are new
	[ -d "$dir" ] || [ ! -e "$BUILD/md-mod.ko" ] || cp -a "$BUILD" "$dir"
	rm -rf "$dir/kunit"
	build_in "$dir" MD_BITE="$v" || return 1
	if VM_KERNEL_DIR=$DKDIR FORK_KO_DIR=$dir NO_BUILD=1 IMPL=fork \
		tests/vm/run-tests t02-debug-bite; then
		echo "check-debug: bite $v: the run passed, the bug was not caught" >&2
		return 1
	fi
	sum=$SRC/results/vm-latest/summary.txt
	line=$(grep -E "^FAIL +fork +(t02-debug-bite|unload_impl) .*kernel log: .*$want" "$sum")
	nfail=$(grep -c '^FAIL' "$sum")
	echo "check-debug: bite $v: ${line:-no failure with the expected report}"
	if [ -z "$line" ]; then
		echo "check-debug: bite $v: expected a report matching '$want'" >&2
		return 1
	fi
	if [ "$nfail" != 1 ]; then
		echo "check-debug: bite $v: $nfail failures, expected only the bug's" >&2
		return 1
	fi
}

T0=$(date +%s)
stage setup tests/vm/setup.sh || { echo "check-debug: setup failed" >&2; exit 1; }
DKDIR=
kernel() {
	if [ -n "${DEBUG_KERNEL_DIR:-}" ]; then
		DKDIR=$DEBUG_KERNEL_DIR
		[ -e "$DKDIR/.done" ] || { echo "check-debug: $DKDIR is not a complete debug kernel tree" >&2; return 1; }
		return 0
	fi
	DKDIR=$(scripts/debug-kernel.sh --print-dir) && [ -n "$DKDIR" ]
}
if ! stage kernel kernel; then
	echo "check-debug: the debug kernel build failed" >&2
	exit 1
fi
echo "check-debug: kernel $DKDIR"
crash=1
[ $# -gt 0 ] && crash=${CRASH:-0}
if [ "${1:-}" = --bite ]; then
	shift
	[ $# -gt 0 ] || set -- lock uaf leak
	for v in "$@"; do
		stage "bite-$v" bite "$v"
	done
elif stage build build_debug_modules; then
	export VM_KERNEL_DIR=$DKDIR FORK_KO_DIR=$BUILD VM_KUNIT_DIR=$BUILD/kunit NO_BUILD=1
	stage vm env IMPL="${IMPL:-both}" tests/vm/run-tests "$@"
	if [ "$crash" = 1 ]; then
		# shellcheck disable=SC2086 # a list of variant names
		stage crash env IMPL="${IMPL:-both}" tests/vm/run-crash ${CRASH_VARIANTS:-}
	fi
else
	summary+=("FAILED  vm              -   (not run: build failed)")
	failed+=(vm)
fi

echo
echo "######## make check-debug summary ($(git describe --always --dirty 2>/dev/null), timeouts x$VM_TIMEOUT_SCALE)"
printf '%s\n' "${summary[@]}"
echo "total $(( $(date +%s) - T0 ))s"
if [ ${#failed[@]} -gt 0 ]; then
	echo "make check-debug: FAILED (${failed[*]})"
	exit 1
fi
echo "make check-debug: passed"
