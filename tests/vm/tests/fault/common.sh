# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# Helpers of the fault tests (t9x), sourced after lib.sh and
# raid5/common.sh.  The invariant every fault test checks: a read returns
# the last acknowledged data or an error, never other data.

# fault_members N KIB [DISKS]: no md array, DISKS (default N) fresh RAM
# disks of KIB, and over the first N the dm members d0..dN-1 of
# raid5/common.sh (r5_dm_setup), with no superblock on them
fault_members() {
	md_stop_all
	r5_dm_teardown 5
	brd_setup "${3:-$1}" "$2" && r5_dm_setup "$1" || return 1
	# shellcheck disable=SC2046
	mdadm --zero-superblock $(r5_dm_members "$1") 2>/dev/null
	return 0
}

# fault_pattern FILE KIB: KIB KiB of random bytes in FILE
fault_pattern() {
	dd if=/dev/urandom of="$1" bs=1k count="$2" 2>/dev/null
}

# fault_put DEV FILE OFFSET_KIB: write FILE at OFFSET_KIB of DEV, direct;
# the exit status says whether the write was acknowledged
fault_put() {
	dd if="$2" of="$1" bs=4k seek=$(($3 / 4)) oflag=direct conv=notrunc \
		2>/tmp/fault_put.err
	_rc=$?
	[ $_rc -eq 0 ] || { echo "write to $1 at ${3}K failed:"; cat /tmp/fault_put.err; }
	return $_rc
}

# fault_read_is DEV OFFSET_KIB KIB FILE [FILE...]: the KIB KiB at
# OFFSET_KIB of DEV (read direct) fail to read (an error is allowed), or
# equal one of the FILEs; fails when they read as anything else
fault_read_is() {
	_dev=$1 _off=$2 _len=$3
	shift 3
	if ! dd if="$_dev" of=/tmp/fault_got bs=1k skip="$_off" count="$_len" \
		iflag=direct 2>/tmp/fault_read.err; then
		echo "$_dev at ${_off}K: read error (allowed): $(tail -n1 /tmp/fault_read.err)"
		return 0
	fi
	for _f in "$@"; do
		if cmp -s /tmp/fault_got "$_f"; then
			echo "$_dev at ${_off}K reads as $_f"
			return 0
		fi
	done
	echo "$_dev at ${_off}K: $_len KiB read back as none of: $*"
	return 1
}

# fault_data_is DEV OFFSET_KIB KIB FILE: as fault_read_is, but the read
# must succeed (redundancy remains there)
fault_data_is() {
	dd if="$1" of=/tmp/fault_got bs=1k skip="$2" count="$3" iflag=direct \
		2>/dev/null || { echo "$1 at ${2}K: read error"; return 1; }
	cmp /tmp/fault_got "$4" || { echo "$1 at ${2}K is not $4"; return 1; }
	echo "$1 at ${2}K holds $4"
}

# fault_slice FILE OFFSET_KIB KIB OUT: OUT is that part of FILE
fault_slice() {
	dd if="$1" of="$4" bs=1k skip="$2" count="$3" 2>/dev/null
}

# fault_remove MD DEV: mdadm --remove, retried for 20 s while the member
# is still busy (a sync it was part of is being stopped).  Its counter
# has a name of its own: callers loop with _i.
fault_remove() {
	_fr=0
	while ! mdadm "$1" --remove "$2" 2>/tmp/fault_rm.err; do
		_fr=$((_fr + 1))
		[ $_fr -ge 40 ] && { cat /tmp/fault_rm.err; return 1; }
		sleep 0.5
	done
}

# fault_nullb_cached N: /dev/nullb0..N-1, 128 MiB, memory-backed, each
# with a 32 MiB volatile write cache (what a flush is for)
fault_nullb_cached() {
	nullb_teardown
	modprobe null_blk nr_devices=0 || return 1
	_c=0
	while [ $_c -lt "$1" ]; do
		_d=$NULLB_CFS/nullb$_c
		mkdir "$_d" &&
		echo 128 > "$_d/size" && echo 1 > "$_d/memory_backed" &&
		echo 32 > "$_d/cache_size" && echo 1 > "$_d/power" || return 1
		_c=$((_c + 1))
	done
	sleep 0.5
	cat /sys/block/nullb0/queue/write_cache
}

# fault_lw_mark LOGDEV DATA_BYTE DATA_LEN: a mark entry's text
fault_lw_mark() {
	dd if="$1" bs=1 skip="$2" count="$3" 2>/dev/null
}

# fault_u32 DEV BYTE: the little-endian u32 at BYTE (the low half of a
# u64 field, enough for the values read here)
fault_u32() {
	dd if="$1" bs=1 skip="$2" count=4 2>/dev/null | od -An -tu4 | tr -d ' '
}

# fault_lw_walk LOGDEV: the entries of a dm-log-writes log, one line
# each: "INDEX SECTOR SECTORS FLAGS DATA_BYTE DATA_LEN" (SECTOR and
# SECTORS in the log's sector size, 512 here; DATA_BYTE: where the
# entry's data starts in LOGDEV; DATA_LEN: a mark's text length).  The
# on-disk format (drivers/md/dm-log-writes.c): a super sector {magic,
# version, nr_entries, sector_size}, then per entry a sector holding
# {sector, nr_sectors, flags, data_len} (four little-endian u64s) and,
# for a mark, its text right after them; a write's nr_sectors sectors
# of data follow that sector (a discard and a mark have none).  Flags:
# 1 flush, 2 FUA, 4 discard, 8 mark, 16 metadata (REQ_META).
# dm-log-writes logs a write once it is durable: a FUA write when it
# completes, any other write at the next flush (before the flush's own
# entry), a mark at once.  So the order of the log is the order writes
# reached stable storage.
fault_lw_walk() {
	_wn=$(fault_u32 "$1" 16)
	_wss=$(fault_u32 "$1" 24)
	_wend=$(($(blockdev --getsz "$1") * 512 / ${_wss:-512}))
	[ -n "$_wn" ] && [ "$_wn" -gt 0 ] && [ "$_wn" -lt 100000 ] ||
		{ echo "$1: not a dm-log-writes log ($_wn entries)" >&2; return 1; }
	_wat=1 _we=0
	while [ $_we -lt "$_wn" ]; do
		# the entry's four u64s as eight u32s: low words at 1, 3, 5, 7
		# shellcheck disable=SC2046
		set -- "$1" $(dd if="$1" bs="$_wss" skip="$_wat" count=1 \
			2>/dev/null | od -An -tu4 -N32)
		if [ $# -lt 9 ] || [ "$6" -gt 31 ] ||
		   [ $((_wat + 1 + $4)) -gt "$_wend" ]; then
			shift
			echo "entry $_we at sector $_wat is not an entry: $*" >&2
			return 1
		fi
		if [ $(($6 & 12)) != 0 ]; then
			echo "$_we $2 $4 $6 $((_wat * _wss + 32)) $8"
			_wat=$((_wat + 1))
		else
			echo "$_we $2 $4 $6 $(((_wat + 1) * _wss)) $8"
			_wat=$((_wat + 1 + $4))
		fi
		_we=$((_we + 1))
	done
}
