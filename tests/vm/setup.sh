#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install everything the build and the VM test harness need on Debian 12,
# then fetch and unpack the Debian cloud kernel image that the guest boots:
# the kernel KVER picks (scripts/kver.sh; 6.1 by default, 6.12 from
# bookworm-security), with its headers.
# Idempotent: a second run only checks and exits within a second or two.
set -euo pipefail

SRC=$(cd "$(dirname "$0")/../.." && pwd)
CACHE=$SRC/.cache
mkdir -p "$CACHE"
# shellcheck source=../../scripts/kver.sh
. "$SRC/scripts/kver.sh"
kver_init "$SRC" || exit 2

SUDO=
[ "$(id -u)" = 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive

PKGS=(qemu-system-x86 busybox-static mdadm fio e2fsprogs cpio spin gnuplot-nox sparse
      linux-source-6.1 xz-utils gzip make gcc libc6-dev python3 kmod dmsetup
      ca-certificates dkms
      git)

missing_pkgs() {
	local p
	for p in "$@"; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
			grep -q '^install ok installed$' || echo "$p"
	done
}

APT_UPDATED=0
apt_install() {
	local todo
	todo=$(missing_pkgs "$@")
	[ -n "$todo" ] || return 0
	if [ $APT_UPDATED = 0 ]; then
		$SUDO apt-get update -q
		APT_UPDATED=1
	fi
	# shellcheck disable=SC2086
	$SUDO apt-get install -y -q --no-install-recommends $todo
}

apt_install "${PKGS[@]}"

# Resolve a series (KVER=6.1, 6.12) to its release through the cloud
# metapackage, so the headers we build against and the image we boot
# always match; a release (KVER=6.12.118+deb12-cloud-amd64) is taken as is.
resolve_kabi() {
	apt-cache depends "$KVER_META" 2>/dev/null |
		sed -n 's/.*Depends: linux-image-\([0-9].*-cloud-amd64\).*/\1/p' | head -n1
}
KABI=$KVER
if [ -n "$KVER_SERIES" ]; then
	KABI=$(resolve_kabi)
	if [ -z "$KABI" ] && [ $APT_UPDATED = 0 ]; then
		$SUDO apt-get update -q
		APT_UPDATED=1
		KABI=$(resolve_kabi)
	fi
fi
[ -n "$KABI" ] || { echo "setup: cannot resolve KVER=$KVER to a kernel release (no $KVER_META in apt)" >&2; exit 1; }

apt_install "linux-headers-$KABI"

KTREE=$CACHE/kernel-$KABI
if [ ! -e "$KTREE/.done" ]; then
	echo "setup: fetching linux-image-$KABI"
	rm -rf "$KTREE" "$CACHE/deb"
	mkdir -p "$CACHE/deb" "$KTREE"
	# apt-get download as root warns about the _apt sandbox; harmless.
	(cd "$CACHE/deb" && apt-get download -q "linux-image-$KABI" 2>&1 |
		grep -v 'unsandboxed' || true)
	deb=$(ls "$CACHE"/deb/linux-image-"$KABI"_*.deb)
	dpkg-deb -x "$deb" "$KTREE"
	depmod -b "$KTREE" "$KABI"
	rm -rf "$CACHE/deb"
	touch "$KTREE/.done"
fi

want="KABI := $KABI"
if [ "$(cat "$KABI_FILE" 2>/dev/null)" != "$want" ]; then
	echo "$want" > "$KABI_FILE"
fi
echo "setup: ok (KVER=$KVER: kernel $KABI, image in ${KTREE#"$SRC"/})"
