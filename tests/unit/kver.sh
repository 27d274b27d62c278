#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/kver.sh, what KVER names (the files a series' release is
# recorded in, where a kernel's modules are built), and the kernels
# dkms.conf's BUILD_EXCLUSIVE_KERNEL (which install.sh reads too) lets
# DKMS build for.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0

check() { # NAME WANT GOT
	n=$((n + 1))
	if [ "$2" = "$3" ]; then
		echo "ok $n $1"
	else
		echo "not ok $n $1 # got '$3', want '$2'"
		failed=$((failed + 1))
	fi
}

# kv KVER KABI: what kver.sh makes of them, in a shell of its own, with
# a fake tree whose 6.12 release is recorded
kv() {
	# shellcheck disable=SC2016 # the inner shell expands them
	env -i PATH="$PATH" ${1:+KVER=$1} ${2:+KABI=$2} bash -c '
		. "$0/scripts/kver.sh"
		kver_init "$1" || { echo fail; exit 0; }
		r=$(kver_kabi)
		echo "$KVER|${KVER_META:--}|${KABI_FILE#"$1"/}|${r:--}|$(kver_ko_dir "$1" "${r:-R}" | sed "s|^$1|T|")"
	' "$top" "$tmp"
}
mkdir -p "$tmp/.cache"
echo "KABI := 6.12.118+deb12-cloud-amd64" > "$tmp/.cache/kabi-6.12.mk"

echo "KTAP version 1"
echo "1..14"
check "no KVER is 6.1, through the default metapackage, built in the top directory" \
	"6.1|linux-image-cloud-amd64|.cache/kabi.mk|-|T" "$(kv '' '')"
check "KVER=6.12: its metapackage and record, built in its own directory" \
	"6.12|linux-image-6.12-cloud-amd64|.cache/kabi-6.12.mk|6.12.118+deb12-cloud-amd64|T/.cache/build-6.12.118+deb12-cloud-amd64" \
	"$(kv 6.12 '')"
check "a release is its own KABI" \
	"6.12.118+deb12-cloud-amd64|-|.cache/kabi-6.12.118+deb12-cloud-amd64.mk|6.12.118+deb12-cloud-amd64|T/.cache/build-6.12.118+deb12-cloud-amd64" \
	"$(kv 6.12.118+deb12-cloud-amd64 '')"
check "KABI alone is the older spelling of a release" \
	"6.1.0-57-cloud-amd64|-|.cache/kabi-6.1.0-57-cloud-amd64.mk|6.1.0-57-cloud-amd64|T/.cache/build-6.1.0-57-cloud-amd64" \
	"$(kv '' 6.1.0-57-cloud-amd64)"
check "KVER wins over KABI" "6.12" "$(kv 6.12 6.1.0-57-cloud-amd64 | cut -d'|' -f1)"
check "KVER=bogus is refused" "fail" "$(kv bogus '' 2>/dev/null)"
check "KVER=6.x is refused" "fail" "$(kv 6.x '' 2>/dev/null)"

# shellcheck disable=SC1091
re=$(. "$top/dkms.conf" && echo "$BUILD_EXCLUSIVE_KERNEL")
for k in 6.1.0-57-cloud-amd64 6.12.118+deb12-cloud-amd64 6.12.57+deb13-amd64; do
	[[ "$k" =~ $re ]] && got=yes || got=no
	check "dkms.conf builds for $k" yes "$got"
done
for k in 6.6.0-1-amd64 6.13.2-amd64 6.120.0 5.10.0-30-amd64; do
	[[ "$k" =~ $re ]] && got=yes || got=no
	check "dkms.conf does not build for $k" no "$got"
done
echo "# kver: $((n - failed))/$n passed"
[ "$failed" = 0 ]
