#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of `make bench-delayed` (tests/vm/bench-delayed), one boot:
# issue 35's bench of two RAID1 arrays on partitions of the same two
# disks.  Each of BD_RUNS rounds runs in-tree md and this stack in turn
# (the order swaps every round), each on fresh members: two null_blk
# disks (memory backed, BD_NULLB_MBPS MB/s each), each cut into two
# BD_PART_MB MiB partitions; md0 is a RAID1 of the first partitions, md1
# of the second ones, both created with --assume-clean.
#   N  neighbour: QD1 4 KiB random reads on md0 (bench/throttle's
#      qd1-randread), first with md1 idle, then while md1 runs `repair`
#      (md0 stays idle and in sync), then with md1 idle again; md_sample
#      records md0's IOs and md1's progress every 100 ms meanwhile
#   R  resync after an unclean shutdown: both arrays are stopped and
#      assembled again with --update=resync, which marks the superblock
#      dirty as a crash does; both resync, one waiting for the other
#      (resync=DELAYED: they share the disks).  Timed from the first
#      assemble until sync_action reads idle on both
# Raw results go to /out/IMPL/runN, tarred onto /dev/vda for the host.
. /harness/config
. /harness/lib.sh

RUNS=${BD_RUNS:-5}
RT=${BD_RUNTIME:-5}
NULLB_MBPS=${BD_NULLB_MBPS:-100}
PART_MB=${BD_PART_MB:-1024}
OUT=/out
JOBDIR=/harness/bench/throttle
SAMPLE=/harness/tools/md_sample
# the first partition starts at 1 MiB; 1 MiB more at the end
PART_SECTORS=$((PART_MB * 2048))
MEMBER_MB=$((2 * PART_MB + 2))
mkdir -p $OUT
exec 3>> $OUT/bench.log
log() { echo "# bench-delayed: $*"; echo "$*" >&3; }

modprobe virtio_pci && modprobe virtio_blk
for m in $RAID_DEPS; do modprobe "$m"; done

# le32 N: N as the 4 little-endian bytes of an MBR field
le32() {
	for _sh in 0 8 16 24; do
		# shellcheck disable=SC2059 # the format is the octal escape
		printf "\\$(printf %03o $((($1 >> _sh) & 255)))"
	done
}

# mbr_part START SECTORS: a primary partition entry of type 0x83
mbr_part() {
	printf '\000\000\000\000\203\000\000\000'
	le32 "$1"
	le32 "$2"
}

# disk_split DEV: two partitions of PART_SECTORS each on DEV, scanned
disk_split() {
	{ mbr_part 2048 $PART_SECTORS
	  mbr_part $((2048 + PART_SECTORS)) $PART_SECTORS
	  head -c 32 /dev/zero
	  printf '\125\252'; } |
		dd of="$1" bs=1 seek=446 conv=notrunc 2> /dev/null || return 1
	blockdev --rereadpt "$1" || return 1
	_n=0
	while [ ! -b "${1}p2" ] && [ $_n -lt 50 ]; do sleep 0.1; _n=$((_n + 1)); done
	[ -b "${1}p1" ] && [ -b "${1}p2" ]
}

# md_make MD PART: a clean RAID1 of partition PART of both disks
md_make() {
	timeout 60 mdadm --create "/dev/$1" --run --assume-clean --level=1 \
		--raid-devices=2 --metadata=1.2 "/dev/nullb0p$2" "/dev/nullb1p$2" 2>&1
}

# md_dirty MD PART: assemble MD marked as needing a whole resync, as
# after an unclean shutdown (no bitmap: the whole array)
md_dirty() {
	timeout 60 mdadm --assemble "/dev/$1" --run --update=resync \
		"/dev/nullb0p$2" "/dev/nullb1p$2" 2>&1
}

# prepare IMPL: IMPL loaded, fresh split members, md0 and md1 clean
prepare() {
	md_stop_all
	unload_impl > /dev/null 2>&1
	nullb_setup 2 "$MEMBER_MB" "$NULLB_MBPS" || { echo "null_blk setup failed"; return 1; }
	if ! { disk_split /dev/nullb0 && disk_split /dev/nullb1; }; then
		echo "partitioning failed"
		return 1
	fi
	load_impl "$1" > /tmp/load.err 2>&1 || { cat /tmp/load.err; return 1; }
	impl_check "$1" || return 1
	md_speed_limit
	md_make md0 1 && md_make md1 2
}

# run_fio JSON [RUNTIME]: QD1 4 KiB random reads on md0
run_fio() {
	BENCH_DEV=/dev/md0 BENCH_RUNTIME=${2:-$RT} fio --output-format=json \
		--output="$1" "$JOBDIR/qd1-randread.fio" > /tmp/fio.err 2>&1 && return 0
	log "$_who: fio failed: $(tr '\n' ' ' < /tmp/fio.err | cut -c1-300)"
	return 1
}

# wait_md MD STATE|!STATE TENTHS: MD's sync_action is (with "!": is
# not) STATE within TENTHS x 0.1 s
wait_md() {
	_n=0
	while [ $_n -lt "$3" ]; do
		case "$2" in
		!*)	[ "$(md_sync_action "$1")" != "${2#!}" ] && return 0 ;;
		*)	[ "$(md_sync_action "$1")" = "$2" ] && return 0 ;;
		esac
		sleep 0.1
		_n=$((_n + 1))
	done
	return 1
}

stats_dump() { # MD FILE: this stack's throttle counters of MD
	[ -d "/sys/block/$1/md/stats" ] || return 0
	for _f in /sys/block/"$1"/md/stats/*; do
		[ -f "$_f" ] && echo "${_f##*/} $(cat "$_f")"
	done > "$2"
}

# now_cs: uptime in hundredths of a second
now_cs() { awk '{ printf "%d\n", $1 * 100 }' /proc/uptime; }

# neighbour DIR: test N
neighbour() {
	run_fio /tmp/warm.json 2
	run_fio "$1/idle.json" || return 1
	stats_dump md1 "$1/n-before.stats"
	echo 0 > /sys/block/md1/md/sync_min
	echo repair > /sys/block/md1/md/sync_action
	wait_md md1 '!idle' 20 || { log "$_who: md1's repair did not start"; return 1; }
	# fio may take seconds to start under TCG: sample until it is done
	$SAMPLE md0 100 600000 > "$1/n-md0.samples" &
	_s0=$!
	$SAMPLE md1 100 600000 > "$1/n-md1.samples" &
	_s1=$!
	run_fio "$1/neighbour.json"
	kill $_s0 $_s1 2> /dev/null
	wait $_s0 $_s1 2> /dev/null
	_a0=$(md_sync_action md0) _a1=$(md_sync_action md1)
	echo "md0 $_a0 md1 $_a1" > "$1/n-actions.txt"
	[ "$_a1" = repair ] || log "$_who: md1's repair ended before the reads did ($_a1)"
	[ "$_a0" = idle ] || log "$_who: md0 was not idle ($_a0)"
	stats_dump md1 "$1/n-after.stats"
	echo idle > /sys/block/md1/md/sync_action
	wait_resync md1 120 > /dev/null
	# idle again: the reads of one boot drift by 10-20 % within a minute
	# under TCG, so each run is compared with the idle runs on both sides
	run_fio "$1/idle2.json"
}

# resync_both DIR: test R
resync_both() {
	if ! { mdadm --stop /dev/md0 && mdadm --stop /dev/md1; } > /dev/null 2>&1; then
		log "$_who: stopping the arrays failed"
		return 1
	fi
	dmesg -c > /dev/null
	_t0=$(now_cs)
	if ! { md_dirty md0 1 && md_dirty md1 2; } > /tmp/asm.err; then
		log "$_who: assemble failed: $(tr '\n' ' ' < /tmp/asm.err | cut -c1-300)"
		return 1
	fi
	_t1=$(now_cs)
	cat /proc/mdstat > "$1/r-mdstat.txt"
	# progress of both, for the timeline (they end on their own)
	$SAMPLE md0 100 600000 until-idle > "$1/r-md0.samples" &
	_r0=$!
	$SAMPLE md1 100 600000 until-idle > "$1/r-md1.samples" &
	_r1=$!
	# both have a sync to run: wait until each shows it, then both idle
	if ! { wait_md md0 '!idle' 50 && wait_md md1 '!idle' 50; }; then
		log "$_who: a resync did not start (md0 $(md_sync_action md0), md1 $(md_sync_action md1))"
	fi
	_delayed=0 _end=
	while [ "$(( $(now_cs) - _t0 ))" -lt 60000 ]; do
		grep -q 'resync=DELAYED' /proc/mdstat && _delayed=1
		if [ "$(md_sync_action md0)" = idle ] && [ "$(md_sync_action md1)" = idle ]; then
			_end=$(now_cs)
			break
		fi
		sleep 0.1
	done
	dmesg > "$1/r.dmesg"
	sleep 0.3
	kill $_r0 $_r1 2> /dev/null
	wait $_r0 $_r1 2> /dev/null
	stats_dump md0 "$1/r-md0.stats"
	stats_dump md1 "$1/r-md1.stats"
	cat /proc/mdstat >> "$1/r-mdstat.txt"
	[ -n "$_end" ] || { log "$_who: the resyncs did not end within 600 s"; return 1; }
	echo "start_cs=$_t0 assembled_cs=$_t1 idle_cs=$_end delayed_seen=$_delayed" > "$1/r-times.txt"
	for _md in md0 md1; do
		_c=$(cat /sys/block/$_md/md/resync_start 2> /dev/null)
		echo "$_md resync_start $_c" >> "$1/r-times.txt"
	done
}

# warm_up: write a member's worth of null_blk memory once and free it.
# Guest memory QEMU has not touched yet is slow to fill under TCG: the
# first round's resyncs, which write one disk whole, ran at half speed
# there, whichever implementation came first.  Later rounds reuse the
# pages a previous round freed; so does round 1 after this.
warm_up() {
	nullb_setup 1 "$MEMBER_MB" 0 || return 1
	(cd /tmp && fio --name=warm --filename=/dev/nullb0 --rw=write --bs=1M \
		--direct=1 --ioengine=libaio --iodepth=4 > /dev/null 2>&1)
	nullb_teardown
}

# one_round IMPL RUN
one_round() {
	_dir=$OUT/$1/run$2
	_who="run $2: $1"
	mkdir -p "$_dir"
	log "$_who: prepare"
	if ! prepare "$1" > /tmp/prep.err 2>&1; then
		log "$_who NOT FUNCTIONAL: $(tr '\n' ' ' < /tmp/prep.err | cut -c1-300)"
		return 1
	fi
	neighbour "$_dir" && log "$_who: N done"
	resync_both "$_dir" && log "$_who: R done"
	md_stop_all
}

echo "# bench-delayed: runs=$RUNS runtime=${RT}s partitions ${PART_MB} MiB on null_blk at ${NULLB_MBPS} MB/s"
echo "runs=$RUNS runtime=$RT nullb_mbps=$NULLB_MBPS part_mb=$PART_MB" > $OUT/params.txt
_t=$(now_cs)
warm_up
log "warm-up: $(( ($(now_cs) - _t) / 100 )) s"
r=1
while [ "$r" -le "$RUNS" ]; do
	if [ $((r % 2)) = 1 ]; then order="intree fork"; else order="fork intree"; fi
	for impl in $order; do
		one_round "$impl" "$r"
	done
	r=$((r + 1))
done
md_stop_all
nullb_teardown
unload_impl > /dev/null 2>&1

bench_finish bench-delayed $OUT
