#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build (or reuse) a debug variant of the Debian cloud kernel the VM
# harness boots: the same source (Debian's linux-source-6.1) and the same
# config (.cache/kernel-$KABI/boot/config-$KABI), cut down with
# localmodconfig to the modules the guest loads, plus the debug options in
# scripts/debug-kernel.config (lockdep, KASAN, kmemleak, UBSAN, object
# debugging, KUnit, fault injection).
#
# usage: scripts/debug-kernel.sh [--print-dir]
#
# The result lives outside the clone, in
#   $DEBUG_KERNEL_CACHE/debug-kernel-<source version>-<hash of the inputs>/
#     boot/vmlinuz-$REL boot/config-$REL boot/System.map-$REL
#     lib/modules/$REL/     modules_install output (INSTALL_MOD_PATH)
#     build/                the O= build tree: .config, Module.symvers and
#                           everything `make -C build M=...` needs
#     build.log             the kernel build's output
#     .done                 written last; its presence means "complete"
# (same layout as .cache/kernel-$KABI, so VM_KERNEL_DIR can point at it).
# A second run with the same inputs only checks .done and prints the path.
# With --print-dir the directory is the only thing written to stdout.
#
# Environment:
#   DEBUG_KERNEL_CACHE  cache root (default /var/cache/md-fork)
#   DEBUG_KERNEL_JOBS   make -j (default 2); the build always runs under
#                       nice -n 19 so it does not disturb timing-sensitive VMs
#   DEBUG_KERNEL_CONFIG_ONLY=1  stop after writing and checking .config
set -euo pipefail

SRC=$(cd "$(dirname "$0")/.." && pwd)
FRAGMENT=$SRC/scripts/debug-kernel.config
CACHEROOT=${DEBUG_KERNEL_CACHE:-/var/cache/md-fork}
JOBS=${DEBUG_KERNEL_JOBS:-2}
SRCPKG=linux-source-6.1
TARBALL=/usr/src/$SRCPKG.tar.xz
# Modules the guest needs beyond the harness's GUEST_MODULES.
EXTRA_MODULES="kunit"
# Bump when the way the inputs are turned into a kernel changes in a way
# the inputs themselves do not show, to force a rebuild everywhere.
RECIPE=1

PRINT_DIR=0
case "${1:-}" in
--print-dir) PRINT_DIR=1 ;;
"") ;;
-h|--help) sed -n '4,28s/^# \{0,1\}//p' "$0"; exit 0 ;;
*) echo "debug-kernel: unknown argument '$1'" >&2; exit 2 ;;
esac

say() { echo "debug-kernel: $*" >&2; }
fail() { echo "debug-kernel: error: $*" >&2; exit 1; }

SUDO=
[ "$(id -u)" = 0 ] || SUDO=sudo

# --- prerequisites -------------------------------------------------------
"$SRC/tests/vm/setup.sh" >&2 || fail "tests/vm/setup.sh failed"
KABI=$(sed -n 's/^KABI := //p' "$SRC/.cache/kabi.mk")
[ -n "$KABI" ] || fail "no KABI in .cache/kabi.mk"
CLOUDCFG=$SRC/.cache/kernel-$KABI/boot/config-$KABI
[ -r "$CLOUDCFG" ] || fail "cloud kernel config $CLOUDCFG missing (tests/vm/setup.sh)"
[ -r "$TARBALL" ] || fail "$TARBALL missing (apt-get install $SRCPKG)"
[ -r "$FRAGMENT" ] || fail "config fragment $FRAGMENT missing"

# Tools the kernel build needs that the module build does not.
BUILD_PKGS=(flex bison bc libelf-dev libssl-dev perl)
todo=()
for p in "${BUILD_PKGS[@]}"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
		grep -q '^install ok installed$' || todo+=("$p")
done
if [ ${#todo[@]} -gt 0 ]; then
	say "installing build prerequisites: ${todo[*]}"
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q \
		--no-install-recommends "${todo[@]}" >&2 ||
		fail "apt-get install ${todo[*]} failed"
fi

VER=$(dpkg-query -W -f='${Version}' "$SRCPKG" 2>/dev/null) ||
	fail "$SRCPKG is not installed"

# The module list, in the format localmodconfig reads (`lsmod` output).
# GUEST_MODULES is the harness's own list, so the two cannot drift apart.
# shellcheck disable=SC2016
guest_modules=$(bash -c '. "$1/tests/vm/host-lib.sh"; echo $GUEST_MODULES' _ "$SRC") ||
	fail "cannot read GUEST_MODULES from tests/vm/host-lib.sh"
# shellcheck disable=SC2086  # word lists on purpose
modules=$(printf '%s\n' $guest_modules $EXTRA_MODULES | tr - _ | sort -u)
[ -n "$modules" ] || fail "empty module list"

KEY=$( {
	echo "recipe $RECIPE"
	echo "$SRCPKG $VER"
	sha1sum < "$TARBALL" | cut -c1-40
	cat "$CLOUDCFG" "$FRAGMENT"
	echo "$modules"
	gcc --version | head -n1
} | sha1sum | cut -c1-12)
DKDIR=$CACHEROOT/debug-kernel-$VER-$KEY
OUT=$DKDIR/build

if [ -e "$DKDIR/.done" ]; then
	say "reusing $DKDIR"
	if [ $PRINT_DIR = 1 ]; then echo "$DKDIR"; fi
	exit 0
fi

$SUDO mkdir -p "$CACHEROOT"
[ -w "$CACHEROOT" ] || $SUDO chown "$(id -u):$(id -g)" "$CACHEROOT"
mkdir -p "$DKDIR"
# One builder at a time per cache entry (CI and a developer on one host).
exec 9>"$DKDIR/.lock"
flock -n 9 || { say "another build of $DKDIR is running, waiting"; flock 9; }
if [ -e "$DKDIR/.done" ]; then
	say "reusing $DKDIR (built by the other run)"
	if [ $PRINT_DIR = 1 ]; then echo "$DKDIR"; fi
	exit 0
fi

T0=$(date +%s)

# --- source: unpacked once per package version, shared by all configs ---
KSRC_PARENT=$CACHEROOT/src-$VER
KSRC=$KSRC_PARENT/$SRCPKG
if [ ! -e "$KSRC_PARENT/.done" ]; then
	say "unpacking $TARBALL ($VER)"
	rm -rf "$KSRC_PARENT" "$KSRC_PARENT.tmp"
	mkdir -p "$KSRC_PARENT.tmp"
	nice -n 19 tar -xJf "$TARBALL" -C "$KSRC_PARENT.tmp"
	mv "$KSRC_PARENT.tmp" "$KSRC_PARENT"
	touch "$KSRC_PARENT/.done"
fi
[ -e "$KSRC/Makefile" ] || fail "$KSRC does not look like a kernel tree"

kmake() { nice -n 19 make -C "$KSRC" O="$OUT" "$@"; }
LOG=$DKDIR/build.log
echo "==== $(date -u '+%F %T') debug-kernel.sh" >> "$LOG"	# a resumed build keeps the earlier log

# --- config --------------------------------------------------------------
mkdir -p "$OUT"
# Keep the previous .config's time stamp when the result is the same, so
# resuming an interrupted build does not rebuild what is already built.
rm -f "$OUT/.config.prev"
if [ -e "$OUT/.config" ]; then cp -p "$OUT/.config" "$OUT/.config.prev"; fi
cp "$CLOUDCFG" "$OUT/.config"
printf 'Module Size Used by\n' > "$DKDIR/lsmod"
while read -r m; do echo "$m 0 0"; done <<<"$modules" >> "$DKDIR/lsmod"
say "config: cloud config + localmodconfig ($(wc -w <<<"$modules") modules) + ${FRAGMENT#"$SRC"/}"
# localmodconfig asks about nothing new (same source as the config), but
# feed it empty answers in case it does.
kmake LSMOD="$DKDIR/lsmod" localmodconfig < <(yes '') >>"$LOG" 2>&1 ||
	{ tail -n 30 "$LOG" >&2; fail "localmodconfig failed (log $LOG)"; }

# Merge the fragment: drop every symbol it names from .config, append it.
frag_syms=$(sed -n -e 's/^\(CONFIG_[A-Za-z0-9_]*\)=.*/\1/p' \
	-e 's/^# \(CONFIG_[A-Za-z0-9_]*\) is not set$/\1/p' "$FRAGMENT")
grep -v -w -F -f <(echo "$frag_syms") "$OUT/.config" > "$OUT/.config.merged" || true
grep -E '^(CONFIG_|# CONFIG_.* is not set$)' "$FRAGMENT" >> "$OUT/.config.merged"
mv "$OUT/.config.merged" "$OUT/.config"
kmake olddefconfig >>"$LOG" 2>&1 ||
	{ tail -n 30 "$LOG" >&2; fail "olddefconfig failed (log $LOG)"; }

# Every fragment line must have survived olddefconfig.
bad=0
while IFS= read -r line; do
	case "$line" in
	CONFIG_*=*)
		sym=${line%%=*}
		got=$(grep -E "^$sym=" "$OUT/.config" || echo "$sym unset")
		if [ "$got" != "$line" ]; then
			say "  wanted $line, got $got"
			bad=1
		fi
		;;
	"# CONFIG_"*" is not set")
		sym=${line#"# "}; sym=${sym%% *}
		if grep -qE "^$sym=" "$OUT/.config"; then
			say "  wanted $sym off, got $(grep -E "^$sym=" "$OUT/.config")"
			bad=1
		fi
		;;
	esac
done < "$FRAGMENT"
[ $bad = 0 ] || fail "the final .config lost options from ${FRAGMENT#"$SRC"/} (missing dependencies?)"
if [ -e "$OUT/.config.prev" ] && cmp -s "$OUT/.config" "$OUT/.config.prev"; then
	touch -r "$OUT/.config.prev" "$OUT/.config"
fi

say "config ok: every option in ${FRAGMENT#"$SRC"/} is set"

if [ "${DEBUG_KERNEL_CONFIG_ONLY:-0}" = 1 ]; then
	say "DEBUG_KERNEL_CONFIG_ONLY=1: stopping before the build ($OUT/.config)"
	exit 0
fi
say "building with make -j$JOBS under nice -n 19 (log $LOG)"

# --- build -----------------------------------------------------------------
TB=$(date +%s)
if ! kmake -j"$JOBS" bzImage modules >>"$LOG" 2>&1; then
	tail -n 40 "$LOG" >&2
	fail "kernel build failed (log $LOG)"
fi
# Only known once the build has turned .config into auto.conf.
REL=$(cat "$OUT/include/config/kernel.release" 2>/dev/null) ||
	fail "no include/config/kernel.release after the build"
rm -rf "${DKDIR:?}/lib" "${DKDIR:?}/boot"
mkdir -p "$DKDIR/boot"
if ! kmake INSTALL_MOD_PATH="$DKDIR" INSTALL_MOD_STRIP=1 modules_install >>"$LOG" 2>&1; then
	tail -n 20 "$LOG" >&2
	fail "modules_install failed (log $LOG)"
fi
cp "$OUT/arch/x86/boot/bzImage" "$DKDIR/boot/vmlinuz-$REL"
cp "$OUT/.config" "$DKDIR/boot/config-$REL"
cp "$OUT/System.map" "$DKDIR/boot/System.map-$REL"
depmod -b "$DKDIR" "$REL"
TBUILD=$(( $(date +%s) - TB ))

# Every module the guest asks for must exist as a module or be built in.
missing=()
for m in $modules; do
	re="(^|/)${m//_/[-_]}\\.ko(:|\$)"
	if ! grep -qE "$re" "$DKDIR/lib/modules/$REL/modules.dep" &&
	   ! grep -qE "(^|/)${m//_/[-_]}\\.ko\$" "$DKDIR/lib/modules/$REL/modules.builtin"; then
		missing+=("$m")
	fi
done
[ ${#missing[@]} = 0 ] || fail "modules the guest needs were not built: ${missing[*]}"
[ -s "$OUT/Module.symvers" ] || fail "no Module.symvers in $OUT"

touch "$DKDIR/.done"
T1=$(date +%s)
say "built $REL in $((TBUILD / 60))m$((TBUILD % 60))s (kernel + modules; $((T1 - T0))s in all)"
say "  image $(du -h "$DKDIR/boot/vmlinuz-$REL" | cut -f1), modules $(du -sh "$DKDIR/lib/modules/$REL" | cut -f1), build tree $(du -sh "$OUT" | cut -f1)"
say "  $DKDIR"
if [ $PRINT_DIR = 1 ]; then echo "$DKDIR"; fi
