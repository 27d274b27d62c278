#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 900
# SLOW: bitmap files on ext4, raid1 and raid5, about 55 s per implementation; keeps make check under 30 min
#
# A write-intent bitmap kept in a file (mdadm --bitmap=FILE:
# SET_BITMAP_FILE), as mdadm's own 05r1-bitmapfile, 05r1-grow-external
# and 05r5-bitmapfile use it (issue 15).
#
# raid1 over two dm-linear members (over RAM disks, so the block layer
# counts the sectors written to each), 4 MiB chunks, daemon_sleep 1 s:
#   - created with the file: /proc/mdstat names it, --detail shows it
#     as the Intent Bitmap, md/bitmap/location says "file", and the
#     members' superblocks announce no internal bitmap (feature map 0);
#   - fio writes verify and the file's bits clear on time;
#   - fail, remove, write 1 MiB, re-add: the file keeps the dirty chunk
#     while degraded and the recovery writes only about that chunk;
#   - stop, assemble with the file: data verifies, "check" gives 0;
#   - under fio: --grow --bitmap=none, then a new file: nothing lost;
#   - bad input: a file of garbage and the file of another array make
#     the assembly fail and leave nothing running; the right file then
#     assembles.
# raid1 without superblocks (mdadm --build) keeps its bitmap in a file
# too: --re-add of a removed member recovers only the chunks written
# while it was out (nothing else can tell what it missed).
# raid5 (3 RAM disks): created with a file, written, stopped, assembled
# with it, verified, "check" gives 0.
# The files live on an ext4 on a fourth RAM disk: in-tree md reaches a
# bitmap file's blocks through bmap(), which tmpfs lacks (it refuses the
# file: "bitmap read error ... -22").  Without ext4 (the debug kernel)
# the test is skipped with that reason.
. /harness/lib.sh

bitmap_file_fs_or_skip

MD=/dev/md0
FS=/tmp/bmfs
BM=$FS/bm
export DM_DISABLE_UDEV=1
CHUNK_SECTORS=8192
M0=/dev/mapper/m0
M1=/dev/mapper/m1

file_bitmap_shown() { # FILE
	mdstat_array md0 | grep -q "bitmap: .*, file: $1\$" ||
		{ echo "mdstat:"; mdstat_array md0; return 1; }
	_ib=$(mdadm --detail $MD | md_field 'Intent Bitmap')
	[ "$_ib" = "$1" ] || { echo "--detail Intent Bitmap: '$_ib'"; return 1; }
	_loc=$(cat /sys/block/md0/md/bitmap/location)
	[ "$_loc" = file ] || { echo "md/bitmap/location: $_loc"; return 1; }
	for _m in $M0 $M1; do
		_fm=$(mdadm --examine "$_m" | md_field 'Feature Map')
		[ "$_fm" = 0x0 ] || { echo "$_m: feature map $_fm"; return 1; }
	done
}

create_r1() {
	rm -f $BM
	mdadm --create $MD --run --level=1 --raid-devices=2 --metadata=1.2 \
		--bitmap=$BM --bitmap-chunk=4M --delay=1 --size=98304 $M0 $M1 ||
		return 1
	wait_resync md0 300 || return 1
	file_bitmap_shown $BM
}

write_and_clear() {
	fio_write_verify $MD 32M > /tmp/fio.out 2>&1 ||
		{ cat /tmp/fio.out; return 1; }
	wait_bitmap_dirty 0 $BM
}

readd_dirty_only() {
	mdadm $MD --fail $M1 && mdadm $MD --remove $M1 || return 1
	blob_write $MD || return 1
	sleep 3	# a few daemon periods: a degraded array keeps its bits
	_dirty=$(bitmap_dirty $BM)
	echo "dirty chunks in the file while degraded: $_dirty"
	[ "${_dirty:-0}" -ge 1 ] || return 1
	readd_only_dirty $MD $M1 m1 $CHUNK_SECTORS
}

reassemble() {
	mdadm --stop $MD || return 1
	mdadm --assemble $MD --bitmap=$BM $M0 $M1 || return 1
	file_bitmap_shown $BM || return 1
	dd if=$MD of=/tmp/back bs=1M skip=40 count=1 iflag=direct 2>/dev/null &&
		cmp /tmp/blob /tmp/back || return 1
	md_check_clean md0 300
}

grow_none_file() {
	fio_write_verify $MD 64M > /tmp/fio.out 2>&1 &
	_pid=$!
	sleep 2
	mdadm --grow $MD --bitmap=none || { wait $_pid; return 1; }
	_loc=$(cat /sys/block/md0/md/bitmap/location)
	if mdstat_array md0 | grep -q 'bitmap:' || [ "$_loc" != none ]; then
		echo "bitmap left after --bitmap=none (location $_loc)"
		wait $_pid
		return 1
	fi
	sleep 2
	rm -f $BM.2
	mdadm --grow $MD --bitmap=$BM.2 --bitmap-chunk=4M --delay=1 ||
		{ wait $_pid; return 1; }
	file_bitmap_shown $BM.2 || { wait $_pid; return 1; }
	wait $_pid
	fio_log_ok $? || return 1
	wait_bitmap_dirty 0 $BM.2 || return 1
	md_check_clean md0 300
}

not_running() {
	! mdstat_array md0 | grep -q active ||
		{ echo "md0 is running:"; mdstat_array md0; return 1; }
}

bad_files() {
	mdadm --stop $MD || return 1
	dd if=/dev/urandom of=$FS/garbage bs=4k count=4 conv=fsync 2>/dev/null
	if mdadm --assemble $MD --bitmap=$FS/garbage $M0 $M1; then
		echo "assembled with a garbage bitmap file"
		return 1
	fi
	not_running || return 1
	mdadm --stop $MD 2>/dev/null
	# another array's file: its uuid is not this array's
	rm -f $FS/other
	mdadm --create /dev/md1 --run --level=1 --raid-devices=2 \
		--metadata=1.2 --bitmap=$FS/other --bitmap-chunk=4M \
		--size=8192 /dev/ram2 missing || return 1
	mdadm --stop /dev/md1 || return 1
	if mdadm --assemble $MD --bitmap=$FS/other $M0 $M1; then
		echo "assembled with another array's bitmap file"
		return 1
	fi
	not_running || return 1
	mdadm --stop $MD 2>/dev/null
	mdadm --assemble $MD --bitmap=$BM.2 $M0 $M1 || return 1
	fio_verify_only $MD 64M > /tmp/fio.out 2>&1 ||
		{ cat /tmp/fio.out; return 1; }
	mdadm --stop $MD
}

# build_readd PAUSE: PAUSE seconds between --fail and --remove.  After a
# pause the failed member has left its slot and mdadm's --remove leaves
# it attached (in-tree too); --re-add then goes through dev-*/state.
build_readd() {
	mdadm --zero-superblock $M0 $M1 2>/dev/null
	rm -f $FS/bb
	mdadm --build $MD --level=1 --raid-devices=2 --bitmap=$FS/bb \
		--bitmap-chunk=4M --delay=1 $M0 $M1 || return 1
	wait_resync md0 300 || return 1
	fio_write_verify $MD 32M > /tmp/fio.out 2>&1 ||
		{ cat /tmp/fio.out; return 1; }
	wait_bitmap_dirty 0 $FS/bb || return 1
	mdadm $MD --fail $M1 || return 1
	sleep "$1"
	mdadm $MD --remove $M1 || return 1
	blob_write $MD || return 1
	readd_only_dirty $MD $M1 m1 $CHUNK_SECTORS || return 1
	fio_verify_only $MD 32M > /tmp/fio.out 2>&1 ||
		{ cat /tmp/fio.out; return 1; }
	mdadm --stop $MD
}

raid5_file() {
	rm -f $BM.5
	mdadm --zero-superblock /dev/ram0 /dev/ram1 /dev/ram2 2>/dev/null
	mdadm --create $MD --run --level=5 --raid-devices=3 --metadata=1.2 \
		--chunk=64 --bitmap=$BM.5 --bitmap-chunk=4M --delay=1 \
		--size=32768 /dev/ram0 /dev/ram1 /dev/ram2 || return 1
	mdstat_array md0 | grep -q "bitmap: .*, file: $BM.5\$" ||
		{ mdstat_array md0; return 1; }
	wait_resync md0 300 || return 1
	fio_write_verify $MD 48M > /tmp/fio.out 2>&1 ||
		{ cat /tmp/fio.out; return 1; }
	mdadm --stop $MD || return 1
	mdadm --assemble $MD --bitmap=$BM.5 /dev/ram0 /dev/ram1 /dev/ram2 ||
		return 1
	fio_verify_only $MD 48M > /tmp/fio.out 2>&1 ||
		{ cat /tmp/fio.out; return 1; }
	wait_bitmap_dirty 0 $BM.5 || return 1
	md_check_clean md0 300 || return 1
	mdadm --stop $MD
}

ktap_plan 12
ktap_check "brd: four 128 MiB RAM disks" brd_setup 4 131072
ktap_check "ext4 on ram3 at $FS for the bitmap files" ext4_mount /dev/ram3 $FS
ktap_check "dm-linear members m0, m1" sh -c \
	'modprobe dm-mod && SZ=$(blockdev --getsz /dev/ram0) &&
	 dmsetup create m0 --table "0 $SZ linear /dev/ram0 0" &&
	 dmsetup create m1 --table "0 $SZ linear /dev/ram1 0"'
ktap_check "raid1 --bitmap=FILE: mdstat, --detail, location, no internal bitmap" \
	create_r1
ktap_check "fio verifies; the file's bits clear on time" write_and_clear
ktap_check "fail, remove, write 1 MiB, re-add: the file keeps the chunk, only it recovers" \
	readd_dirty_only
ktap_check "stop, assemble with the file: data as written, check 0" reassemble
ktap_check "under fio: --grow --bitmap=none, then a new file: nothing lost" \
	grow_none_file
ktap_check "a garbage file, another array's file: assembly fails, nothing runs" \
	bad_files
ktap_check "--build with a file: --re-add recovers only the chunk written meanwhile" \
	build_readd 0
ktap_check "--build, the failed member left attached: --re-add, only that chunk" \
	build_readd 2
md_stop_all
dmsetup remove m1 2>/dev/null
dmsetup remove m0 2>/dev/null
ktap_check "raid5 --bitmap=FILE: written, stopped, assembled with it, check 0" \
	raid5_file
md_stop_all
umount $FS
brd_teardown
ktap_finish
