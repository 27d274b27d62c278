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
. /harness/tests/raid5/common.sh
. /harness/tests/fault/common.sh

MD=/dev/md0
export DM_DISABLE_UDEV=1

setup() {
	md_stop_all
	brd_setup 2 131072 && fault_nullb_cached 2 || return 1
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
	fault_u32 /dev/mapper/lw0 $(((SB + BMO) * 512 + 320))
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

# log_ok LOGDEV DATA_START BM_START: in the order writes became durable
# (fault_lw_walk), the page that clears the bits of the data written
# comes after that data's entries.
log_ok() {
	fault_lw_walk "$1" > /tmp/lw.entries || { cat /tmp/lw.entries; return 1; }
	echo "$1: $(wc -l < /tmp/lw.entries) entries"
	_data=0 _set=0 _clears=0 _bad=0 _marked=0
	while read -r _e _sec _len _flags _at _dlen; do
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
				_bits=$(fault_u32 "$1" $((_at + 320)))
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
	done < /tmp/lw.entries
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
