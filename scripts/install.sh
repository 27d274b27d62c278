#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install this md stack on a Debian 12 host like any out-of-tree driver.
#
#   scripts/install.sh install      copy the built modules to
#                                   $INSTALL_MOD_PATH/lib/modules/$KABI/$INSTALL_MOD_DIR
#                                   (updates/ by default), depmod
#   scripts/install.sh uninstall    remove them again (only files that are
#                                   this stack's), depmod
#   scripts/install.sh dkms-install copy the sources to /usr/src/md-fork-VERSION,
#                                   dkms add, build and install for $KABI
#   scripts/install.sh dkms-remove  dkms remove --all, drop the sources
#   scripts/install.sh dkms-check   dkms build in private trees under
#                                   .cache/dkms-check (changes nothing on the host)
#   scripts/install.sh preflight    only the check below (exit 1: refused)
#
# Why updates/: depmod ranks updates/ above the kernel's own
# kernel/drivers/md/, so with the same module names `modprobe raid1` and
# mdadm's automatic loading pick this stack; removing the files and
# running depmod brings in-tree md back.
#
# install and dkms-install first look at the arrays this host runs and
# refuse, listing them, when this stack cannot serve one yet (FORCE=1
# installs anyway).
#
# Environment: KVER (scripts/kver.sh: 6.1, the default, 6.12 or a
# release), KABI (the release; default: the one tests/vm/setup.sh
# resolved KVER to, .cache/kabi.mk for 6.1), KO_DIR (the built modules;
# default: where make builds them for KVER), INSTALL_MOD_PATH (staging
# root, default /), INSTALL_MOD_DIR (updates), FORCE=1, MDSTAT
# (/proc/mdstat; tests/unit reads samples).
set -euo pipefail

SRC=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=kver.sh
. "$SRC/scripts/kver.sh"
MODULES=(md-mod linear raid0 raid1 raid10 raid456)
# Sources a DKMS build needs: nothing from tests/ or the benches.  A DKMS
# build probes its own kernel (md_compat_probe.sh writes md_compat_gen.h),
# so a md_compat_gen.h that a build here left behind stays out.
DKMS_FILES=(Kbuild dkms.conf md_compat_probe.sh ./*.c ./*.h)
DKMS_GENERATED=(md_compat_gen.h)
# Levels this stack serves today.
SERVED_LEVELS="linear raid0 raid1 raid4 raid5 raid6 raid10"

die() { echo "install: $*" >&2; exit 1; }

# the kernel: every action but the preflight, which reads only MDSTAT;
# TARGET is the kernel the preflight checks
TARGET=
if [ "${1:-}" != preflight ]; then
	kver_init "$SRC" || exit 1
	KABI=${KABI:-$(kver_kabi)}
	[ -n "$KABI" ] || die "no release for KVER=$KVER (run make setup KVER=$KVER, or set KVER=<kernel release>)"
	KO_DIR=${KO_DIR:-$(kver_ko_dir "$SRC" "$KABI")}
	TARGET=$KABI
fi
ROOT=${INSTALL_MOD_PATH:-}
DIR=${INSTALL_MOD_DIR:-updates}
case "$DIR" in
''|/*|*..*) die "INSTALL_MOD_DIR must be a relative path below lib/modules/${KABI:-<release>} (got '$DIR')" ;;
esac
MODDIR=$ROOT/lib/modules/${KABI:-}
MDSTAT=${MDSTAT:-/proc/mdstat}
VERSION=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$SRC/dkms.conf")
NAME=$(sed -n 's/^PACKAGE_NAME="\(.*\)"$/\1/p' "$SRC/dkms.conf")
if [ -z "$VERSION" ] || [ -z "$NAME" ]; then
	die "dkms.conf has no PACKAGE_NAME/PACKAGE_VERSION"
fi

# The kernels this stack supports: dkms.conf's BUILD_EXCLUSIVE_KERNEL, the
# one list (6.1 and 6.12); DKMS builds for no other.
KERNELS_RE=$(sed -n 's/^BUILD_EXCLUSIVE_KERNEL="\(.*\)"$/\1/p' "$SRC/dkms.conf")
[ -n "$KERNELS_RE" ] || die "dkms.conf has no BUILD_EXCLUSIVE_KERNEL"

# preflight: the host's arrays and dm-raid targets this stack cannot
# serve, and (when installing) a kernel it does not support
preflight() {
	local bad=() line dev level
	if [ -n "$TARGET" ] && ! [[ "$TARGET" =~ $KERNELS_RE ]]; then
		bad+=("kernel $TARGET: this stack supports 6.1 and 6.12 only (dkms.conf, BUILD_EXCLUSIVE_KERNEL)")
	fi
	if [ -r "$MDSTAT" ]; then
		while read -r line; do
			case "$line" in
			md*" : "*)
				dev=${line%% *}
				# "md0 : active (auto-read-only) raid1 ram1[1] ..."; an
				# inactive array shows no level until it runs
				level=$(awk '{ for (i = 3; i <= NF; i++)
					if ($i ~ /^(raid[0-9]+|linear|multipath|faulty)$/) { print $i; exit } }' <<<"$line")
				[ -z "$level" ] || [[ " $SERVED_LEVELS " == *" $level "* ]] ||
					bad+=("$dev: level $level is not served by this stack")
				[[ "$line" != *"](J)"* ]] ||
					bad+=("$dev: a write journal is not served by this stack")
				;;
			*"super external:"*)
				bad+=("$dev: external metadata (IMSM/DDF, mdmon) is not served by this stack")
				;;
			*"reshape ="*)
				bad+=("$dev: a reshape in progress is not served by this stack")
				;;
			esac
		done < "$MDSTAT"
	fi
	if command -v dmsetup > /dev/null &&
	   dmsetup table --target raid 2> /dev/null | grep -q ':'; then
		bad+=("dm-raid targets are active (they link against in-tree md)")
	fi
	if [ ${#bad[@]} -eq 0 ]; then
		echo "install: preflight: no array or dm-raid target here that this stack cannot serve"
		return 0
	fi
	printf 'install: this host runs what this stack cannot serve:\n' >&2
	printf '  %s\n' "${bad[@]}" >&2
	if [ "${FORCE:-0}" = 1 ]; then
		echo "install: FORCE=1: installing anyway" >&2
		return 0
	fi
	die "refusing to install (FORCE=1 overrides)"
}

run_depmod() {
	if [ -n "$ROOT" ]; then
		depmod -b "$ROOT" "$KABI"
	else
		depmod "$KABI"
	fi
}

# is_ours FILE: a module of this stack (MODULE_VERSION ends in -fork)
is_ours() {
	case "$(modinfo -F version "$1" 2>/dev/null)" in
	*-fork) return 0 ;;
	esac
	return 1
}

do_install() {
	local m
	for m in "${MODULES[@]}"; do
		[ -e "$KO_DIR/$m.ko" ] || die "$m.ko not built in $KO_DIR (make modules KVER=$KVER)"
	done
	# a module built for another kernel would not load there
	[ "$(modinfo -F vermagic "$KO_DIR/md-mod.ko" | cut -d' ' -f1)" = "$KABI" ] ||
		die "$KO_DIR/md-mod.ko is built for $(modinfo -F vermagic "$KO_DIR/md-mod.ko" | cut -d' ' -f1), not $KABI (make install KVER=$KABI)"
	preflight
	mkdir -p "$MODDIR/$DIR"
	for m in "${MODULES[@]}"; do
		install -m 0644 "$KO_DIR/$m.ko" "$MODDIR/$DIR/$m.ko"
		echo "install: $MODDIR/$DIR/$m.ko"
	done
	run_depmod
	echo "install: done; modprobe now loads this stack for $KABI (undo: make uninstall)"
}

do_uninstall() {
	local m f n=0
	for m in "${MODULES[@]}"; do
		f=$MODDIR/$DIR/$m.ko
		[ -e "$f" ] || continue
		if ! is_ours "$f"; then
			echo "install: leaving $f: not a module of this stack" >&2
			continue
		fi
		rm -f "$f"
		echo "install: removed $f"
		n=$((n + 1))
	done
	rmdir "$MODDIR/$DIR" 2> /dev/null || true
	[ -d "$MODDIR" ] && run_depmod
	echo "install: $n module(s) removed; modprobe loads in-tree md again"
}

need_dkms() {
	command -v dkms > /dev/null || die "dkms is not installed (apt-get install dkms)"
}

# stage_sources DIR: the files a DKMS build needs
stage_sources() {
	rm -rf "$1"
	mkdir -p "$1"
	(cd "$SRC" && cp "${DKMS_FILES[@]}" "$1/")
	(cd "$1" && rm -f "${DKMS_GENERATED[@]}")
}

do_dkms_install() {
	need_dkms
	preflight
	if dkms status -m "$NAME" -v "$VERSION" 2> /dev/null | grep -q .; then
		dkms remove -m "$NAME" -v "$VERSION" --all
	fi
	stage_sources "/usr/src/$NAME-$VERSION"
	dkms add -m "$NAME" -v "$VERSION"
	dkms build -m "$NAME" -v "$VERSION" -k "$KABI"
	dkms install -m "$NAME" -v "$VERSION" -k "$KABI"
	dkms status -m "$NAME"
}

do_dkms_remove() {
	need_dkms
	if dkms status -m "$NAME" -v "$VERSION" 2> /dev/null | grep -q .; then
		dkms remove -m "$NAME" -v "$VERSION" --all
	else
		echo "install: $NAME/$VERSION is not in DKMS"
	fi
	rm -rf "/usr/src/${NAME:?}-${VERSION:?}"
}

# dkms build with private source, build and install trees: proves that
# dkms.conf and Kbuild build under DKMS without touching the host, for
# every kernel whose headers are installed (/lib/modules/REL/build) and
# that dkms.conf supports, as DKMS would on a host; KABI's must be among
# them.  A kernel dkms.conf excludes is listed as such, and must be one.
do_dkms_check() {
	local top=$SRC/.cache/dkms-check ko f k rc built=() skipped=()
	local trees=(--sourcetree "$top/src" --dkmstree "$top/tree" --installtree "$top/install")
	need_dkms
	[ -d "/lib/modules/$KABI/build" ] ||
		die "no headers of $KABI (/lib/modules/$KABI/build; make setup KVER=$KVER)"
	rm -rf "$top"
	mkdir -p "$top/tree" "$top/install"
	# DKMS signs with its own key, made on first use in /var/lib/dkms:
	# a private key here keeps the host as it was
	export mok_signing_key=$top/mok.key mok_certificate=$top/mok.pub
	stage_sources "$top/src/$NAME-$VERSION"
	dkms add -m "$NAME" -v "$VERSION" "${trees[@]}"
	for f in /lib/modules/*/build; do
		k=${f#/lib/modules/}
		k=${k%/build}
		rc=0
		dkms build -m "$NAME" -v "$VERSION" -k "$k" "${trees[@]}" || rc=$?
		if [ "$rc" = 77 ] && ! [[ "$k" =~ $KERNELS_RE ]]; then
			echo "dkms-check: $k: not supported (BUILD_EXCLUSIVE_KERNEL), DKMS builds nothing for it"
			skipped+=("$k")
			continue
		fi
		[ "$rc" = 0 ] || die "dkms build for $k failed (exit $rc)"
		for ko in "${MODULES[@]}"; do
			f=$(find "$top/tree/$NAME/$VERSION/$k" -name "$ko.ko*" | head -n1)
			[ -n "$f" ] || die "dkms build for $k made no $ko.ko"
			echo "dkms-check: $k: built $ko ($(modinfo -F version "$f"), $(modinfo -F vermagic "$f" | cut -d' ' -f1))"
		done
		built+=("$k")
	done
	[[ " ${built[*]} " == *" $KABI "* ]] || die "nothing built for $KABI"
	echo "dkms-check: built for ${built[*]}${skipped[*]:+; not supported: ${skipped[*]}}"
}

case "${1:-}" in
install) do_install ;;
uninstall) do_uninstall ;;
dkms-install) do_dkms_install ;;
dkms-remove) do_dkms_remove ;;
dkms-check) do_dkms_check ;;
preflight) preflight ;;
*) die "usage: $0 install|uninstall|dkms-install|dkms-remove|dkms-check|preflight" ;;
esac
