#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# copy-sources.sh DIR: make DIR a build directory of this stack's modules
# for another kernel (make KVER=..., tests/check-debug.sh).  Kbuild
# writes its objects beside the sources, so each kernel builds in its own
# copy.  Copies only the files whose content changed, so that kbuild
# rebuilds just what they touch, and leaves out the top directory's
# kbuild output (md_compat_gen.h is probed again for DIR's kernel).
set -eu

SRC=$(cd "$(dirname "$0")/.." && pwd)
dir=$1
mkdir -p "$dir"
for f in "$SRC"/Kbuild "$SRC"/dkms.conf "$SRC"/md_compat_probe.sh \
	 "$SRC"/*.c "$SRC"/*.h; do
	[ -e "$f" ] || continue
	case "$f" in
	*.mod.c|*/md_compat_gen.h) continue ;;
	esac
	cmp -s "$f" "$dir/${f##*/}" || cp "$f" "$dir/"
done
