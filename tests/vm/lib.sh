# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# Guest-side library for tests/vm/tests/*.sh (busybox sh).  A test:
#
#   #!/bin/sh
#   # XFAIL_FORK: why it is expected to fail on the fork stack (optional)
#   # TIMEOUT: 300                 (optional, seconds; default from host)
#   . /harness/lib.sh
#   ktap_plan 3
#   ktap_check "create array" mdadm --create ...
#   ...
#   ktap_finish
#
# The runner (guest/runner.sh) exports IMPL=intree|fork before a test
# starts and has already loaded that implementation (load_impl).

impl=${IMPL:-unknown}
KTAP_N=0
KTAP_PLANNED=0
KTAP_FAILED=0
HARNESS=${HARNESS:-/harness}

# ---- KTAP ---------------------------------------------------------------

ktap_plan() {
	KTAP_PLANNED=$1
	echo "KTAP version 1"
	echo "1..$1"
}

ktap_diag() { echo "# $*"; }

ktap_ok() { KTAP_N=$((KTAP_N + 1)); echo "ok $KTAP_N $*"; }

ktap_not_ok() {
	KTAP_N=$((KTAP_N + 1))
	KTAP_FAILED=$((KTAP_FAILED + 1))
	echo "not ok $KTAP_N $*"
}

# bitmap_file_fs_or_skip: skip the whole test unless the kernel has ext4:
# in-tree md reaches a bitmap file's blocks through bmap(), which tmpfs
# lacks, so bitmap files live on an ext4 on a RAM disk
bitmap_file_fs_or_skip() {
	grep -qw ext4 /proc/filesystems || modprobe ext4 2>/dev/null
	grep -qw ext4 /proc/filesystems ||
		ktap_skip_all "no ext4 in this kernel (in-tree md needs a bmap()-capable file system for bitmap files)"
}

# ext4_mount DEV DIR: a new ext4 on DEV (e2fsprogs' mke2fs), mounted at DIR
ext4_mount() {
	/sbin/mke2fs -q -F -t ext4 "$1" && mkdir -p "$2" && mount -t ext4 "$1" "$2"
}

# ktap_todo NAME REASON: a known failure, reported, not counted (KTAP's
# TODO directive); for the cases in-tree md itself fails
ktap_todo() {
	KTAP_N=$((KTAP_N + 1))
	echo "not ok $KTAP_N $1 # TODO $2"
}

ktap_skip() { # name reason
	KTAP_N=$((KTAP_N + 1))
	echo "ok $KTAP_N $1 # SKIP $2"
}

# ktap_check NAME CMD [ARGS...]: run CMD, indent its output as diagnostics,
# report ok/not ok by its exit status.
ktap_check() {
	_name=$1
	shift
	_out=/tmp/ktap_check.$$
	"$@" > "$_out" 2>&1
	_rc=$?
	sed 's/^/# /' "$_out"
	rm -f "$_out"
	if [ $_rc -eq 0 ]; then
		ktap_ok "$_name"
	else
		ktap_not_ok "$_name"
		ktap_diag "command failed (exit $_rc): $*"
	fi
	return $_rc
}

# ktap_finish: exit 0 only if every planned result was reported ok.
ktap_finish() {
	if [ "$KTAP_N" -ne "$KTAP_PLANNED" ]; then
		ktap_diag "plan mismatch: planned $KTAP_PLANNED, reported $KTAP_N"
		exit 1
	fi
	[ "$KTAP_FAILED" -eq 0 ] && exit 0
	exit 1
}

# Exit status telling the runner the whole test is skipped (kselftest).
KSFT_SKIP=4
ktap_skip_all() { echo "KTAP version 1"; echo "1..0 # SKIP $*"; exit $KSFT_SKIP; }

# ---- implementations ----------------------------------------------------

# Distro modules raid456 depends on; loaded for both implementations so the
# fork's raid456.ko finds its symbols.
RAID_DEPS="libcrc32c xor raid6_pq async_tx async_memcpy async_xor async_pq async_raid6_recov"

load_impl() { # intree|fork
	for _m in $RAID_DEPS; do
		modprobe "$_m" || return 1
	done
	case "$1" in
	intree)
		echo intree > /run/harness-impl
		modprobe md-mod && modprobe raid1 && modprobe raid456 ;;
	fork)
		echo fork > /run/harness-impl
		insmod "$HARNESS/fork/md-mod.ko" &&
		insmod "$HARNESS/fork/linear.ko" &&
		insmod "$HARNESS/fork/raid0.ko" &&
		insmod "$HARNESS/fork/raid1.ko" &&
		insmod "$HARNESS/fork/raid10.ko" &&
		insmod "$HARNESS/fork/raid456.ko" ;;
	*)	echo "load_impl: unknown implementation '$1'" >&2; return 1 ;;
	esac
}

unload_impl() {
	_rc=0
	mdadm --stop --scan >/dev/null 2>&1
	for _m in raid456 raid10 raid1 raid0 linear md_mod; do
		if [ -d "/sys/module/$_m" ]; then
			rmmod "$_m" || _rc=1
		fi
	done
	rm -f /run/harness-impl
	return $_rc
}

# impl_loaded: print which implementation is loaded (intree, fork, none).
impl_loaded() {
	if [ ! -d /sys/module/md_mod ]; then
		echo none
	elif case "$(cat /sys/module/md_mod/version 2>/dev/null)" in *fork*) true ;; *) false ;; esac; then
		echo fork
	else
		echo intree
	fi
}

# impl_check WANT: every md module present must belong to WANT.
impl_check() {
	_got=$(impl_loaded)
	if [ "$_got" != "$1" ]; then
		echo "implementation mismatch: want $1, md_mod is $_got (version '$(cat /sys/module/md_mod/version 2>/dev/null)')"
		return 1
	fi
	for _m in linear raid0 raid1 raid10 raid456; do
		[ -d "/sys/module/$_m" ] || continue
		_v=$(cat "/sys/module/$_m/version" 2>/dev/null)
		case "$1:$_v" in
		fork:*fork*|intree:) ;;
		intree:*fork*|fork:*) echo "implementation mismatch: $_m version '$_v' with md_mod=$1"; return 1 ;;
		esac
	done
	return 0
}

# switch_impl intree|fork: unload whatever md is loaded, load that one
switch_impl() {
	unload_impl || return 1
	load_impl "$1" && impl_check "$1"
}

# ---- block devices -------------------------------------------------------

# brd_setup [NR] [SIZE_KIB]: fresh RAM disks /dev/ram0..NR-1 (default 4 x 256 MiB).
brd_setup() {
	_nr=${1:-4}
	_kib=${2:-262144}
	brd_teardown
	modprobe brd rd_nr="$_nr" rd_size="$_kib" max_part=0 || return 1
	_i=0
	while [ ! -b /dev/ram$((_nr - 1)) ] && [ $_i -lt 50 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	[ -b /dev/ram$((_nr - 1)) ]
}

brd_teardown() {
	md_stop_all
	[ -d /sys/module/brd ] && rmmod brd
	return 0
}

# null_blk members through configfs (memory_backed and mbps are configfs
# only in 6.1): 100 MB/s each, timer completions after 50 us, blk-mq, so
# resync and foreground IO share a device's bandwidth as on a disk.
NULLB_CFS=/sys/kernel/config/nullb

nullb_teardown() {
	for _d in "$NULLB_CFS"/nullb*; do
		[ -d "$_d" ] || continue
		echo 0 > "$_d/power" 2>/dev/null
		rmdir "$_d"
	done
	[ -d /sys/module/null_blk ] && rmmod null_blk
	return 0
}

# nullb_setup NR SIZE_MIB [MBPS [LAT_US]]: fresh /dev/nullb0..NR-1 (MBPS
# MB/s each, default 100; every request completes LAT_US after it
# starts, default 50), listed in NULLB_DEVS; NULLB_DISCARD=1: they
# serve discard (and read zeroes from what they discarded).
nullb_setup() {
	nullb_teardown
	modprobe null_blk nr_devices=0 || return 1
	NULLB_DEVS=
	_i=0
	while [ "$_i" -lt "$1" ]; do
		_d=$NULLB_CFS/nullb$_i
		mkdir "$_d" || return 1
		echo "$2" > "$_d/size" &&
		echo 1 > "$_d/memory_backed" &&
		echo "${3:-100}" > "$_d/mbps" &&
		echo 2 > "$_d/irqmode" &&
		echo $((${4:-50} * 1000)) > "$_d/completion_nsec" &&
		echo 2 > "$_d/queue_mode" &&
		echo 32 > "$_d/hw_queue_depth" &&
		echo "${NULLB_DISCARD:-0}" > "$_d/discard" &&
		echo 1 > "$_d/power" || return 1
		# 6.1 names the disk after the configfs directory
		NULLB_DEVS="$NULLB_DEVS /dev/nullb$_i"
		_i=$((_i + 1))
	done
	for _dev in $NULLB_DEVS; do
		_n=0
		while [ ! -b "$_dev" ] && [ $_n -lt 50 ]; do sleep 0.1; _n=$((_n + 1)); done
		[ -b "$_dev" ] || { echo "$_dev did not appear"; return 1; }
	done
}

md_stop_all() {
	for _d in /dev/md[0-9]* /dev/md/*; do
		[ -b "$_d" ] && mdadm --stop "$_d" >/dev/null 2>&1
	done
	return 0
}

# ---- md helpers -----------------------------------------------------------

# md_sync_action MD (md0): print sync_action or "none".
md_sync_action() {
	cat "/sys/block/$1/md/sync_action" 2>/dev/null || echo none
}

# wait_resync MD [TIMEOUT_S]: wait until no resync/recovery/reshape runs.
wait_resync() {
	_md=${1#/dev/}
	_tmo=${2:-120}
	[ -d "/sys/block/$_md/md" ] || { echo "wait_resync: $_md is not an md array"; return 1; }
	_t0=$(uptime_s)
	while :; do
		_a=$(md_sync_action "$_md")
		if [ "$_a" = idle ] && ! grep -A3 "^$_md " /proc/mdstat | grep -Eq 'resync|recovery|reshape|check'; then
			return 0
		fi
		if [ $(( $(uptime_s) - _t0 )) -ge "$_tmo" ]; then
			echo "wait_resync: $_md still '$_a' after ${_tmo}s"
			cat /proc/mdstat
			return 1
		fi
		sleep 0.5
	done
}

uptime_s() { cut -d. -f1 /proc/uptime; }

# ---- fio -----------------------------------------------------------------

# fio_write_verify DEV SIZE [extra fio args]: random 4k writes with crc32c
# checksums, then read everything back and verify.
FIO_VERIFY_ARGS="--rw=randwrite --bs=4k --ioengine=libaio --iodepth=16 --direct=1 --verify=crc32c --verify_fatal=1 --randrepeat=1 --randseed=1234 --verify_state_save=0"
fio_write_verify() {
	_dev=$1; _size=$2; shift 2
	(cd /tmp && fio --name=verify --filename="$_dev" --size="$_size" $FIO_VERIFY_ARGS --do_verify=1 "$@")
}

# fio_verify_only DEV SIZE: verify data written by fio_write_verify.
fio_verify_only() {
	_dev=$1; _size=$2; shift 2
	(cd /tmp && fio --name=verify --filename="$_dev" --size="$_size" $FIO_VERIFY_ARGS --verify_only "$@")
}

# fio_log_ok RC: fio exited with RC after writing its report to
# /tmp/fio.out.  Succeed when it exited 0 and reported no error (print the
# summary lines); otherwise print the whole report and fail.
fio_log_ok() {
	if [ "$1" -eq 0 ] && ! grep -q 'err= *[1-9]' /tmp/fio.out; then
		grep -E 'err=|WRITE:|READ:|verify' /tmp/fio.out
		return 0
	fi
	echo "fio exit status $1"
	cat /tmp/fio.out
	return 1
}

# md_pattern_write: 8 MiB of random bytes at the start of md0, their md5
# kept for md_pattern_intact (one pattern at a time per test)
md_pattern_write() {
	dd if=/dev/urandom of=/tmp/md_pattern bs=1M count=8 2>/dev/null &&
	dd if=/tmp/md_pattern of=/dev/md0 bs=1M oflag=direct 2>/dev/null &&
	md5sum < /tmp/md_pattern > /tmp/md_pattern.sum
}

md_pattern_intact() {
	dd if=/dev/md0 bs=1M count=8 iflag=direct 2>/dev/null | md5sum |
		cmp - /tmp/md_pattern.sum
}

# md_grow_max [TIMEOUT_S]: mdadm --grow md0 --size max, then wait for the
# resync of what growing added (120 s); GROWN_KIB: the new component_size
GROWN_KIB=0
md_grow_max() {
	mdadm --grow /dev/md0 --size max || return 1
	sleep 1
	wait_resync md0 "${1:-120}" || return 1
	GROWN_KIB=$(cat /sys/block/md0/md/component_size)
	echo "component_size $GROWN_KIB KiB"
}

# md_shrink_no_sync KIB: mdadm --grow --size KIB on md0 starts no sync
md_shrink_no_sync() {
	mdadm --grow /dev/md0 --size "$1" || return 1
	sleep 0.5
	echo "sync_action $(cat /sys/block/md0/md/sync_action)"
	[ "$(cat /sys/block/md0/md/sync_action)" = idle ]
}

# md_size_is KIB [DATA_MEMBERS]: md0 uses KIB of each member
# (component_size) and is KIB x DATA_MEMBERS (default 1) big
md_size_is() {
	_s=$(cat /sys/block/md0/md/component_size)
	_b=$(blockdev --getsize64 /dev/md0)
	echo "component_size $_s, md0 $_b bytes"
	[ "$_s" = "$1" ] && [ "$_b" = $(($1 * 1024 * ${2:-1})) ]
}

# examine_used_size DEV KIB: DEV's superblock records KIB per member
examine_used_size() {
	_u=$(mdadm --examine "$1" | md_field "Used Dev Size" | awk '{ print $1 }')
	echo "$1: Used Dev Size $_u sectors"
	[ "$_u" = $(($2 * 2)) ]
}

# md_check_clean MD [TIMEOUT_S]: run a "check" pass to its end and require
# mismatch_cnt 0 (the mirrors hold the same data).
md_check_clean() {
	_md=${1#/dev/}
	echo check > "/sys/block/$_md/md/sync_action" || return 1
	sleep 1
	wait_resync "$_md" "${2:-60}" || return 1
	_mm=$(cat "/sys/block/$_md/md/mismatch_cnt")
	echo "mismatch_cnt $_mm"
	[ "$_mm" = 0 ]
}

# ---- device-mapper members -------------------------------------------------

# dm_kname NAME: kernel name (dm-N) of a dm device
dm_kname() {
	for _b in /sys/block/dm-*; do
		[ "$(cat "$_b/dm/name" 2>/dev/null)" = "$1" ] && { basename "$_b"; return 0; }
	done
	return 1
}

# blob_write MD: 1 MiB of random data at 40 MiB of MD (direct), kept in
# /tmp/blob for readd_only_dirty
blob_write() {
	dd if=/dev/urandom of=/tmp/blob bs=1M count=1 2>/dev/null
	dd if=/tmp/blob of="$1" bs=1M seek=40 count=1 oflag=direct 2>/dev/null
}

# readd_only_dirty MD MEMBER DMNAME CHUNK_SECTORS: --re-add MEMBER (the
# dm device DMNAME) to MD (md0) after blob_write, wait for the recovery
# and check that it wrote at least the blob's 2048 sectors and at most
# three bitmap chunks to the member (sectors from its block-layer
# stat), that md0 is whole, "check" finds nothing and the blob reads back
readd_only_dirty() {
	_w0=$(awk '{ print $7 }' "/sys/block/$(dm_kname "$3")/stat")
	mdadm "$1" --re-add "$2" || return 1
	sleep 1
	wait_resync md0 300 || return 1
	_w1=$(awk '{ print $7 }' "/sys/block/$(dm_kname "$3")/stat")
	_d=$(cat /sys/block/md0/md/degraded)
	echo "sectors written to $3 by the re-add: $((_w1 - _w0)) (degraded $_d)"
	[ "$_d" = 0 ] || return 1
	[ $((_w1 - _w0)) -ge 2048 ] || return 1
	[ $((_w1 - _w0)) -le $((3 * $4)) ] || return 1
	md_check_clean md0 300 || return 1
	dd if="$1" of=/tmp/back bs=1M skip=40 count=1 iflag=direct 2>/dev/null &&
		cmp /tmp/blob /tmp/back
}

# dm_swap NAME TABLE: replace a live table
dm_swap() {
	dmsetup load "$1" --table "$2" && dmsetup resume "$1"
}

# lin_err DEV START LEN: a table linear over DEV (SZ sectors) except an
# error target on [START, START+LEN)
lin_err() {
	_end=$(($2 + $3))
	printf '0 %s linear %s 0\n%s %s error\n%s %s linear %s %s\n' \
		"$2" "$1" "$2" "$3" "$_end" $((SZ - _end)) "$1" "$_end"
}

# dm_split_setup: m0 linear over ram0; m1 a dm-delay (0 ms) device whose
# reads go through table m1r and writes through table m1w, both linear
# over ram1, so each direction can fail on its own (dm_swap + lin_err).
# Sets SZ to the member size in sectors.  Run with DM_DISABLE_UDEV=1.
dm_split_setup() {
	modprobe dm-mod && modprobe dm-delay || return 1
	SZ=$(blockdev --getsz /dev/ram1)
	dmsetup create m0 --table "0 $SZ linear /dev/ram0 0" &&
	dmsetup create m1r --table "0 $SZ linear /dev/ram1 0" &&
	dmsetup create m1w --table "0 $SZ linear /dev/ram1 0" &&
	dmsetup create m1 --table "0 $SZ delay /dev/mapper/m1r 0 0 /dev/mapper/m1w 0 0" ||
		return 1
	dmsetup table
}

dm_split_teardown() {
	for _n in m1 m1r m1w m0; do dmsetup remove "$_n" 2>/dev/null; done
	return 0
}

# md_member_state KNAME STATE: md0's member KNAME has STATE among its flags
md_member_state() {
	cat "/sys/block/md0/md/dev-$1/state"
	case ",$(cat "/sys/block/md0/md/dev-$1/state")," in
	*,"$2",*) return 0 ;;
	esac
	return 1
}

# md_array_as MDSTAT DEGRADED: md0's mdstat line shows MDSTAT (e.g.
# "[2/1] [U_]") and md/degraded reads DEGRADED
md_array_as() {
	mdstat_array md0
	echo "degraded: $(cat /sys/block/md0/md/degraded)"
	mdstat_array md0 | grep -qF "$1" &&
	[ "$(cat /sys/block/md0/md/degraded)" = "$2" ]
}

# md_writes: writes md0 has completed (/sys/block/md0/stat).
md_writes() { awk '{ print $5 }' /sys/block/md0/stat; }

# wait_writes_start COUNT: until md0 has completed more than COUNT writes
# (a background fio is going); 20 s at most.
wait_writes_start() {
	_i=0
	while [ "$(md_writes)" -le "$1" ]; do
		_i=$((_i + 1))
		[ $_i -gt 200 ] && { echo "no writes reached md0"; return 1; }
		sleep 0.1
	done
}

# ---- mdadm output, resync speed, sysfs errors -------------------------------

# md_field KEY: from `mdadm --detail`/`--examine` text on stdin, print the
# value of the first "KEY : value" line (e.g. md_field "Data Offset").
md_field() { sed -n "s/^ *$1 : *\(.*[^ ]\) *$/\1/p" | head -n1; }

# get32 DEV OFFSET: the little-endian u32 at byte OFFSET of DEV, decimal
# (read past the page cache)
get32() {
	echo 3 > /proc/sys/vm/drop_caches
	dd if="$1" bs=1 skip="$2" count=4 2>/dev/null | od -An -tu4 | tr -d ' '
}

# put32 DEV OFFSET VALUE: store VALUE there as a little-endian u32
put32() {
	_v=$3
	_b=
	for _i in 0 1 2 3; do
		_b="$_b\\$(printf %o $((_v % 256)))"
		_v=$((_v / 256))
	done
	# shellcheck disable=SC2059
	printf "$_b" | dd of="$1" bs=1 seek="$2" conv=notrunc,fsync 2>/dev/null
}

# bitmap_field DEV FIELD: a field of mdadm --examine-bitmap DEV, read past
# the page cache (md writes the bitmap around it)
bitmap_field() {
	echo 3 > /proc/sys/vm/drop_caches
	mdadm --examine-bitmap "$1" | md_field "$2"
}

# bitmap_dirty DEV: the number of dirty chunks the bitmap on DEV records
bitmap_dirty() {
	bitmap_field "$1" Bitmap | sed -n 's/.*bits (chunks), \([0-9]*\) dirty.*/\1/p'
}

# wait_bitmap_dirty N DEV...: until the bitmap on every DEV records N
# dirty chunks (40 s); what they record if not
wait_bitmap_dirty() {
	_want=$1
	shift
	_i=0
	while [ $_i -lt 40 ]; do
		_ok=1
		for _d in "$@"; do
			[ "$(bitmap_dirty "$_d")" = "$_want" ] || { _ok=0; break; }
		done
		[ $_ok = 1 ] && return 0
		sleep 1
		_i=$((_i + 1))
	done
	for _d in "$@"; do
		echo "$_d: $(bitmap_dirty "$_d") dirty chunks, want $_want"
	done
	mdadm --examine-bitmap "$1"
	return 1
}

# mdstat_array MD: the /proc/mdstat lines of one array (md0).
mdstat_array() { awk -v md="$1" '$1 == md { p = 1 } p && /^ *$/ { exit } p' /proc/mdstat; }

# md_speed_limit MIN MAX: system-wide resync speed limits in KiB/s;
# md_speed_limit (no arguments) restores the kernel defaults.
md_speed_limit() {
	echo "${1:-1000}" > /proc/sys/dev/raid/speed_limit_min &&
	echo "${2:-200000}" > /proc/sys/dev/raid/speed_limit_max
}

# sysfs_expect_errno ERRNO FILE VALUE: writing VALUE to FILE must fail with
# ERRNO (a number; 0 for success) and, on failure, leave FILE's content as
# it was.  Uses /harness/tools/sysfs_write to see the errno.
sysfs_expect_errno() {
	_want=$1 _f=$2 _v=$3
	_before=$(cat "$_f" 2>&1)
	/harness/tools/sysfs_write "$_f" "$_v"
	_got=$?
	_after=$(cat "$_f" 2>&1)
	if [ "$_got" != "$_want" ]; then
		echo "write '$_v' to $_f: exit $_got, want $_want"
		return 1
	fi
	if [ "$_want" != 0 ] && [ "$_before" != "$_after" ]; then
		echo "$_f changed from '$_before' to '$_after'"
		return 1
	fi
	return 0
}

# ---- change notifications ---------------------------------------------------

# poll_bg NAME FILE: start tools/sysfs_poll on FILE (a sysfs attribute or
# /proc/mdstat) in the background, pid in $poll_pid; returns once it is
# waiting in poll(2), which only a kernel change notification ends
poll_bg() {
	"$HARNESS/tools/sysfs_poll" "$2" 120 > "/tmp/poll.$1" 2>&1 &
	# shellcheck disable=SC2034 # read by the test
	poll_pid=$!
	_i=0
	while ! grep -q '^ready$' "/tmp/poll.$1"; do
		_i=$((_i + 1))
		[ $_i -gt 100 ] && { cat "/tmp/poll.$1"; return 1; }
		sleep 0.1
	done
	cat "/tmp/poll.$1"
}

# poll_woken NAME PID [ERE]: the poller was woken and saw the content
# change (to a line matching ERE if given) within its 120 s
poll_woken() {
	wait "$2"
	_rc=$?
	cat "/tmp/poll.$1"
	[ $_rc = 0 ] || return 1
	[ -z "$3" ] || grep -Eq "^changed: ($3)\$" "/tmp/poll.$1"
}

# splat_lines LOG: the lines of a kernel log that fail a run (splat-re),
# after splat-known.awk has taken out the known bugs outside md; those
# are shown on stderr as "# splat-known: ...".  A missing pattern or
# filter file is itself printed, never a silent pass.
splat_lines() {
	if [ ! -r "$HARNESS/splat-re" ] || [ ! -r "$HARNESS/splat-known.awk" ]; then
		echo "harness: cannot read $HARNESS/splat-re or splat-known.awk"
		return 0
	fi
	awk -f "$HARNESS/splat-known.awk" "$1" > /tmp/splat-filtered.log
	grep -a '^splat-known: ' /tmp/splat-filtered.log | sed 's/^/# /' >&2
	grep -aEf "$HARNESS/splat-re" /tmp/splat-filtered.log
	return 0
}

# bench_finish NAME DIR: end of a guest bench run.  Saves the kernel log
# and any splat lines in it, records the kernel release, closes the bench
# log (fd 3) and tars DIR onto /dev/vda for the host to unpack.
bench_finish() {
	dmesg > "$2/dmesg.txt"
	splat_lines "$2/dmesg.txt" > "$2/kernel-splats.txt" 2> "$2/kernel-known.txt"
	if [ -s "$2/kernel-splats.txt" ]; then
		echo "# $1: KERNEL LOG PROBLEMS:"
		sed 's/^/# dmesg: /' "$2/kernel-splats.txt"
	fi
	uname -r > "$2/kernel.txt"
	exec 3>&-
	tar -cf /dev/vda -C "$2" . && sync && echo "# $1: results written to virtio disk"
}
