#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check`: everything a change must pass, from a fresh Debian 12, on
# the kernel KVER picks (scripts/kver.sh; 6.1 by default, `make check
# KVER=6.12` on the 6.12 LTS kernel).
#   1. prerequisites (tests/vm/setup.sh; a no-op when already done), and
#      the VM accelerator (tests/vm/host-lib.sh: choose_accel)
#   2. user-space unit tests (tests/unit) and the model (tests/model),
#      each only if its Makefile exists; BENCHMARKS.md's summary matches
#      the recorded bench results (tests/vm/bench_report.py --check)
#   3. build the modules (W=1)
#   4. the VM suite against this stack (IMPL=fork unless IMPL is set;
#      `make check-intree` runs the same suite on in-tree md, which is how
#      the tests themselves are checked: CI runs both)
#   5. the unclean-shutdown test (tests/vm/run-crash: three boots over the
#      same disks) for the same implementations
#   6. the installed path (tests/vm/run-install: make install into a
#      staged module tree, modprobe picks this stack; make uninstall,
#      in-tree again), and before the VM stages `make dkms-check`
# Prints each stage's time; exits non-zero if any stage fails.
set -uo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
cd "$SRC" || exit 1

failed=()
summary=()
stage() { # name cmd...
	local name=$1 t0 rc
	shift
	echo
	echo "######## $name"
	t0=$(date +%s)
	"$@"
	rc=$?
	local dt=$(( $(date +%s) - t0 ))
	if [ $rc -eq 0 ]; then
		summary+=("$(printf 'ok      %-10s %5ss' "$name" "$dt")")
	else
		summary+=("$(printf 'FAILED  %-10s %5ss  (exit %s)' "$name" "$dt" "$rc")")
		failed+=("$name")
	fi
	return $rc
}

T0=$(date +%s)
stage setup tests/vm/setup.sh || { echo "check: setup failed" >&2; exit 1; }
# The accelerator (kvm only if a probe guest boots with it, else tcg),
# chosen once here and inherited by both VM stages through the
# environment (VM_ACCEL_USED).  VM_ACCEL=kvm that cannot work stops here.
# shellcheck source=vm/host-lib.sh
. "$SRC/tests/vm/host-lib.sh"
stage accel ensure_setup || exit 1
if [ -f tests/unit/Makefile ]; then stage unit make -C "$SRC" unit; fi
if [ -f tests/model/Makefile ]; then stage model make -C "$SRC" model; fi
stage benchdoc python3 tests/vm/bench_report.py generate --check
if stage build make -C "$SRC" modules; then
	stage dkms make -C "$SRC" -s dkms-check
	stage vm env NO_BUILD=1 IMPL="${IMPL:-fork}" tests/vm/run-tests
	stage crash env NO_BUILD=1 IMPL="${IMPL:-fork}" tests/vm/run-crash
	stage install env NO_BUILD=1 tests/vm/run-install
else
	summary+=("FAILED  vm             -   (not run: build failed)")
	summary+=("FAILED  crash          -   (not run: build failed)")
	summary+=("FAILED  install        -   (not run: build failed)")
	failed+=(vm crash install)
fi

echo
echo "######## make check summary ($(git describe --always --dirty 2>/dev/null), kernel ${KABI:-?}, accel $(accel_label))"
printf '%s\n' "${summary[@]}"
echo "total $(( $(date +%s) - T0 ))s"
if [ ${#failed[@]} -gt 0 ]; then
	echo "make check: FAILED (${failed[*]})"
	exit 1
fi
echo "make check: passed"
