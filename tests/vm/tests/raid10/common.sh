# SPDX-License-Identifier: GPL-2.0
# Helpers of the RAID10 tests (t103, t104): arrays on RAM disks
# /dev/ram0..N-1 of R10_KIB each (the caller runs brd_setup), /dev/md0.

R10_MD=/dev/md0
R10_KIB=16384

# r10_create LAYOUT N CHUNK_KIB [mdadm args...]: the first N RAM disks
# wiped (their first MiB, where a superblock may be) into a RAID10 with
# 1.2 superblocks using 12 MiB of each; waits for the initial resync.
# Sets DEVS.
r10_create() {
	_lay=$1 _n=$2 _chunk=$3
	shift 3
	md_stop_all
	DEVS=
	_i=0
	while [ $_i -lt "$_n" ]; do
		dd if=/dev/zero of=/dev/ram$_i bs=1M count=1 2>/dev/null
		DEVS="$DEVS /dev/ram$_i"
		_i=$((_i + 1))
	done
	# shellcheck disable=SC2086 # DEVS: a word list
	mdadm --create $R10_MD --run --level=10 --layout="$_lay" \
		--raid-devices="$_n" --chunk="$_chunk" --size=$((R10_KIB - 4096)) \
		--metadata=1.2 "$@" $DEVS < /dev/null || return 1
	wait_resync md0 300 || return 1
	mdstat_array md0
}
