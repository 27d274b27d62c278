# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# KVER: the one variable that picks the kernel this stack is built for,
# booted with and installed into (README, "Kernels").  Sourced by
# tests/vm/setup.sh, tests/vm/host-lib.sh and scripts/install.sh; the
# Makefile maps KVER to the same files in make.
#
#   KVER=6.1     Debian 12's cloud kernel, the default: the release that
#                the metapackage linux-image-cloud-amd64 depends on
#   KVER=6.12    the 6.12 LTS cloud kernel of bookworm-security: the
#                release that linux-image-6.12-cloud-amd64 depends on
#   KVER=X.Y     likewise through linux-image-X.Y-cloud-amd64
#   KVER=REL     one kernel release as `uname -r` prints it, for example
#                6.12.118+deb12-cloud-amd64
#
# tests/vm/setup.sh resolves KVER to a release (KABI) and writes it to
# KABI_FILE: .cache/kabi.mk for 6.1 (the file of the days before KVER),
# .cache/kabi-$KVER.mk for any other.  The modules for 6.1 build in the
# top directory as always, those for any other kernel in
# .cache/build-$KABI/ (KO_DIR), so that builds for two kernels never
# overwrite each other.  KABI set without KVER is an older spelling of
# KVER=REL.

# the scripts that source this file read what it sets
# shellcheck disable=SC2034
KVER_DEFAULT=6.1

# kver_init SRC: check KVER and set KVER_SERIES (X.Y, or empty for a
# release), KVER_META (the metapackage that names a series' release) and
# KABI_FILE.
kver_init() {
	local cache=$1/.cache
	if [ -z "${KVER:-}" ]; then
		KVER=${KABI:-$KVER_DEFAULT}
	fi
	KVER_SERIES='' KVER_META=''
	if [[ "$KVER" =~ ^[0-9]+\.[0-9]+$ ]]; then
		KVER_SERIES=$KVER KVER_META=linux-image-$KVER-cloud-amd64
		if [ "$KVER" = "$KVER_DEFAULT" ]; then
			KVER_META=linux-image-cloud-amd64
		fi
	elif ! [[ "$KVER" =~ ^[0-9]+\.[0-9]+\.[0-9A-Za-z.+~_-]+$ ]]; then
		echo "KVER must be a series such as 6.1 or 6.12, or a release such as 6.12.118+deb12-cloud-amd64 (got '$KVER')" >&2
		return 1
	fi
	KABI_FILE=$cache/kabi-$KVER.mk
	[ "$KVER" = "$KVER_DEFAULT" ] && KABI_FILE=$cache/kabi.mk
	return 0
}

# kver_kabi: print KVER's release: KVER itself, or for a series the
# release recorded in KABI_FILE (nothing before setup.sh recorded one)
kver_kabi() {
	if [ -z "$KVER_SERIES" ]; then
		echo "$KVER"
	elif [ -e "$KABI_FILE" ]; then
		sed -n 's/^KABI := //p' "$KABI_FILE"
	fi
}

# kver_ko_dir SRC KABI: where the modules for that release are built
kver_ko_dir() {
	if [ "$KVER" = "$KVER_DEFAULT" ]; then
		echo "$1"
	else
		echo "$1/.cache/build-$2"
	fi
}
