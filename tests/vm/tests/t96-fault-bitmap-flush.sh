#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 240
#
# Issue 31 (7): a bitmap page reaches a member only after a flush of the
# member's cache.  A cleared bit says the members agree on a chunk; if
# the data that made them agree were still in a volatile cache, a power
# cut after the bitmap page landed would leave mirrors that differ with
# no bit telling a resync to look.
#
# Members: null_blk devices with a volatile write cache (cache_size),
# each behind dm-log-writes, which records every write and flush in
# order on a RAM disk.  RAID1 with an internal bitmap (64K chunks, 1 s
# daemon), created --assume-clean, kept dirty (safe_mode_delay 60 s, so
# no clean-marking superblock write flushes in between); 1 MiB is
# written at 32 MiB (whose bits creation set and the daemon cleared,
# after which a dm-log-writes mark) and its bits clear.
# Then each member's log is read (the on-disk format of dm-log-writes:
# a super sector, then per entry one sector {sector, nr_sectors, flags,
# data_len} and its data; flag 1 flush, 2 FUA, 4 discard, 8 mark), in
# the order the writes became durable: the bitmap page that clears the
# bits set for the data must come after the data's own entries.
. /harness/lib.sh

MD=/dev/md0
export DM_DISABLE_UDEV=1

nullb_cached() { # N: /dev/nullb0..N-1, 128 MiB, memory-backed, 32 MiB cache
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

setup() {
	md_stop_all
	brd_setup 2 131072 && nullb_cached 2 || return 1
	modprobe dm-log-writes || return 1
	_s=$(blockdev --getsz /dev/nullb0)
	for _c in 0 1; do
		dmsetup create "lw$_c" --table "0 $_s log-writes /dev/nullb$_c /dev/ram$_c" ||
			return 1
	done
	mdadm --create $MD --run --level=1 --raid-devices=2 --metadata=1.2 \
		--assume-clean --bitmap=internal --bitmap-chunk=64K --delay=1 \
		/dev/mapper/lw0 /dev/mapper/lw1 || return 1
	# stays dirty: no "clean" superblock write (which flushes) comes
	# between the data and the bitmap page that clears its bits
	echo 60 > /sys/block/md0/md/safe_mode_delay &&
	mdadm --examine /dev/mapper/lw0 | grep -E 'Super Offset|Data Offset|Internal Bitmap'
}

# chunk_bits: the on-disk bits of chunks 512-543 on member 0
chunk_bits() {
	echo 3 > /proc/sys/vm/drop_caches
	u64 /dev/mapper/lw0 $(((SB + BMO) * 512 + 320))
}

# wait_clear: until those bits are clear on disk (40 s)
wait_clear() {
	_w=0
	while [ "$(chunk_bits)" != 0 ]; do
		_w=$((_w + 1))
		[ $_w -ge 80 ] && { echo "bits of chunks 512-543 still $(chunk_bits)"; return 1; }
		sleep 0.5
	done
}

# 1 MiB at 32 MiB: chunks 512-527, whose bits are clear first (creation
# sets them all); a mark in each log says where the data's story begins
written() {
	wait_clear &&
	dmsetup message lw0 0 mark start && dmsetup message lw1 0 mark start &&
	dd if=/dev/urandom of=$MD bs=1M seek=32 count=1 oflag=direct 2>/dev/null &&
	sleep 0.5 && echo "bits after the write: $(chunk_bits)" &&
	wait_clear && sleep 1 &&
	mdadm --stop $MD && dmsetup remove lw0 && dmsetup remove lw1
}

# u64 DEV BYTE: the little-endian u64 at BYTE (the low 32 bits suffice)
u64() { dd if="$1" bs=1 skip="$2" count=4 2>/dev/null | od -An -tu4 | tr -d ' '; }

# log_ok LOGDEV DATA_START BM_START.  dm-log-writes logs a write when it
# is durable: a FUA write when it completes, any other write at the next
# flush, before the flush's own entry.  So the log is the order in which
# writes reached stable storage, and the page that clears the bits of
# the data written must come after that data's entries.
log_ok() {
	_n=$(u64 "$1" 16)
	_ss=$(u64 "$1" 24)
	echo "$1: $_n entries, sector size $_ss"
	[ -n "$_n" ] && [ "$_n" -gt 0 ] && [ "$_n" -lt 4000 ] || return 1
	_at=1 _e=0 _data=0 _set=0 _clears=0 _bad=0 _marked=0
	while [ $_e -lt "$_n" ]; do
		_b=$((_at * _ss))
		# the entry's four u64s as eight u32s: low words at 1, 3, 5, 7
		# shellcheck disable=SC2046
		set -- "$1" "$2" "$3" $(dd if="$1" bs="$_ss" skip="$_at" count=1 \
			2>/dev/null | od -An -tu4 -N32)
		_sec=$4 _len=$6 _flags=$8 _dlen=${10}
		_what=
		if [ $((_flags & 8)) != 0 ] && [ $_marked = 0 ]; then
			_what="mark: the data's story begins"
			_marked=1 _data=0 _set=0 _clears=0 _bad=0
		fi
		if [ "$_len" -gt 0 ] && [ $((_flags & 12)) = 0 ]; then
			if [ "$_sec" -ge $(($2 + 65536)) ] &&
			   [ "$_sec" -lt $(($2 + 65536 + 2048)) ]; then
				_data=$((_data + 1))
			elif [ "$_sec" -eq "$3" ]; then
				# chunks 512-543: byte 256 + 64 of the page
				_bits=$(u64 "$1" $((_b + _ss + 320)))
				_what="bitmap bits $_bits"
				if [ "$_bits" != 0 ]; then
					_set=1
				elif [ $_set = 1 ]; then
					_set=0 _clears=$((_clears + 1))
					if [ $_data = 0 ]; then
						_what="$_what: cleared before the data is durable"
						_bad=$((_bad + 1))
					fi
				fi
			fi
		fi
		echo "  $_e: sector $_sec +$_len flags $_flags $_what"
		# the entry's sector, then its data (sectors, or data_len bytes)
		if [ $((_flags & 12)) != 0 ]; then
			_at=$((_at + 1 + (_dlen + _ss - 1) / _ss))
		else
			_at=$((_at + 1 + _len * 512 / _ss))
		fi
		_e=$((_e + 1))
	done
	echo "$_clears clearing bitmap writes, $_bad before the data they cover was durable"
	[ "$_clears" -gt 0 ] && [ $_bad = 0 ]
}

logs_ok() {
	log_ok /dev/ram0 "$DATA" "$BM" && log_ok /dev/ram1 "$DATA" "$BM"
}

ktap_plan 3
ktap_check "RAID1 on null_blk with write caches behind dm-log-writes, bitmap" setup
DATA=$(mdadm --examine /dev/mapper/lw0 2>/dev/null | md_field "Data Offset" | cut -d' ' -f1)
SB=$(mdadm --examine /dev/mapper/lw0 2>/dev/null | md_field "Super Offset" | cut -d' ' -f1)
BMO=$(mdadm --examine /dev/mapper/lw0 2>/dev/null | md_field "Internal Bitmap" | cut -d' ' -f1)
BM=$((SB + ${BMO:-8}))
echo "# data from sector $DATA, bitmap area from $BM"
ktap_check "1 MiB written, the bits clear, the array stopped" written
ktap_check "bits are cleared on a member only after its data is durable" logs_ok
for _c in 0 1; do dmsetup remove "lw$_c" 2>/dev/null; done
nullb_teardown
brd_teardown
ktap_finish
