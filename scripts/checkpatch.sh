#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make checkpatch`: run the kernel's checkpatch.pl (taken from the Debian
# linux-source package, cached in .cache/) over the top-level C sources
# and headers and the guest's test module tests/vm/seekdisk/.  Exits
# non-zero on any error or warning.
set -euo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
CACHE=$SRC/.cache
TARBALL=${LINUX_SOURCE_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
CP=$CACHE/checkpatch

if [ ! -x "$CP/scripts/checkpatch.pl" ]; then
	[ -e "$TARBALL" ] || "$SRC/tests/vm/setup.sh"
	[ -e "$TARBALL" ] || { echo "checkpatch: $TARBALL missing" >&2; exit 2; }
	rm -rf "$CP.tmp"
	mkdir -p "$CP.tmp"
	top=$(basename "$TARBALL" .tar.xz)
	tar -xJf "$TARBALL" -C "$CP.tmp" --strip-components=1 \
		"$top/scripts/checkpatch.pl" "$top/scripts/spelling.txt" \
		"$top/scripts/const_structs.checkpatch"
	rm -rf "$CP"
	mv "$CP.tmp" "$CP"
fi

cd "$SRC"
# checkpatch caches camelcase findings in the cwd when it sees a git tree
trap 'rm -f "$SRC"/.checkpatch-camelcase.git.*' EXIT
shopt -s nullglob
files=()
for f in *.c *.h; do
	case "$f" in *.mod.c | md_compat_gen.h) continue ;; esac	# generated
	files+=("$f")
done
for f in tests/vm/seekdisk/*.c; do files+=("$f"); done
[ ${#files[@]} -gt 0 ] || { echo "checkpatch: no *.c/*.h files"; exit 0; }
# --no-tree: we are not a kernel tree; spelling.txt and const_structs are
# found next to checkpatch.pl.  --strict CHECKs are printed but only
# ERRORs and WARNINGs fail.
out=$("$CP/scripts/checkpatch.pl" --strict --no-tree --no-summary --terse \
	--show-types -f "${files[@]}" 2>&1) || true
[ -z "$out" ] || printf '%s\n' "$out"
nerr=$(grep -c ': ERROR:' <<<"$out" || true)
nwarn=$(grep -c ': WARNING:' <<<"$out" || true)
nchk=$(grep -c ': CHECK:' <<<"$out" || true)
echo "checkpatch: ${#files[@]} files, $nerr errors, $nwarn warnings, $nchk checks"
[ "$nerr" = 0 ] && [ "$nwarn" = 0 ]
