#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of `make bench-throttle` (tests/vm/bench-throttle), one boot.
# For each member type (null_blk with a 100 MB/s bandwidth limit, brd) and
# each of BT_RUNS rounds, in-tree md and this stack in turn (order swapped
# every round), each on freshly created members and a new RAID1
# (--assume-clean):
#   T1  for each job in bench/throttle/*.fio: the job on the idle array,
#       then again while a repair runs (repair restarted for each job)
#   T2  a repair with no foreground IO, timed by the kernel's own start
#       and done messages (md_sample keeps the progress too)
#   T3  sync_speed_min 5000: a repair starts, QD16 x 4 random reads run
#       from BT_LEAD_MS (plus fio's start-up time) for BT_LOAD_S seconds,
#       then nothing for BT_AFTER_MS; md_sample records progress and
#       array IOs every 100 ms throughout
# Raw fio JSON and samples go to /out, tarred onto /dev/vda for the host.
. /harness/config
. /harness/lib.sh

RUNS=${BT_RUNS:-3}
RT=${BT_RUNTIME:-5}
MEMBERS=${BT_MEMBERS:-nullb brd}
NULLB_MB=${BT_NULLB_MB:-1024}
BRD_MB=${BT_BRD_MB:-1024}
LEAD_MS=${BT_LEAD_MS:-1000}
LOAD_S=${BT_LOAD_S:-4}
AFTER_MS=${BT_AFTER_MS:-2500}
JOBS=${BT_JOBS:-qd1-randread qd16x4-randread qd1-randwrite}
JOBDIR=/harness/bench/throttle
OUT=/out
MD=/dev/md0
SYS=/sys/block/md0/md
SAMPLE=/harness/tools/md_sample
mkdir -p $OUT
exec 3>> $OUT/bench.log
log() { echo "# bench-throttle: $*"; echo "$*" >&3; }

modprobe virtio_pci && modprobe virtio_blk
for m in $RAID_DEPS; do modprobe "$m"; done

members_setup() { # nullb|brd
	case "$1" in
	nullb)	nullb_setup 2 "$NULLB_MB" && DEVS=$NULLB_DEVS ;;
	brd)	brd_setup 2 $((BRD_MB * 1024)) && DEVS="/dev/ram0 /dev/ram1" ;;
	esac
}

members_teardown() {
	md_stop_all
	nullb_teardown
	brd_teardown
}

# prepare IMPL MEMBERS: load IMPL on fresh members, create the array.
prepare() {
	md_stop_all
	unload_impl > /dev/null 2>&1
	members_teardown
	members_setup "$2" || { echo "member setup failed"; return 1; }
	load_impl "$1" > /tmp/load.err 2>&1 || { cat /tmp/load.err; return 1; }
	impl_check "$1" || return 1
	md_speed_limit
	# shellcheck disable=SC2086
	timeout 60 mdadm --create $MD --run --force --assume-clean \
		--level=1 --raid-devices=2 --metadata=1.2 $DEVS 2>&1 || return 1
	[ -b $MD ] || { echo "$MD missing after mdadm --create"; return 1; }
}

# run_fio JOB JSON [RUNTIME]
run_fio() {
	BENCH_DEV=$MD BENCH_RUNTIME=${3:-$RT} fio --output-format=json \
		--output="$2" "$JOBDIR/$1.fio" > /tmp/fio.err 2>&1 && return 0
	log "fio $1 failed: $(tr '\n' ' ' < /tmp/fio.err | cut -c1-300)"
	return 1
}

# in-tree resumes an interrupted check/repair at sync_min (it records
# where it stopped there); every repair here starts at sector 0
repair_go() {
	echo 0 > $SYS/sync_min
	echo repair > $SYS/sync_action
}

repair_start() {
	repair_go || return 1
	_n=0
	while [ "$(md_sync_action md0)" = idle ] && [ $_n -lt 20 ]; do
		sleep 0.1
		_n=$((_n + 1))
	done
}

repair_stop() {
	echo idle > $SYS/sync_action
	wait_resync md0 120 > /dev/null
}

stats_dump() { # DIR: fork's throttle counters
	[ -d $SYS/stats ] || return 0
	for _f in "$SYS"/stats/throttle* "$SYS"/stats/fg_active_samples; do
		[ -e "$_f" ] && echo "${_f##*/} $(cat "$_f")"
	done > "$1"
}

# one_round IMPL MEMBERS RUN
one_round() {
	_dir=$OUT/$2/$1/run$3
	mkdir -p "$_dir"
	log "$2 run $3: $1: prepare"
	if ! prepare "$1" "$2" > /tmp/prep.err 2>&1; then
		log "$2 run $3: $1 NOT FUNCTIONAL: $(tr '\n' ' ' < /tmp/prep.err | cut -c1-300)"
		return 1
	fi
	# warm-up (discarded)
	run_fio qd1-randread /tmp/warm.json 2

	# T1
	for _j in $JOBS; do
		run_fio "$_j" "$_dir/idle-$_j.json"
		repair_start
		# fio may take seconds to start under TCG: sample until killed
		$SAMPLE md0 100 600000 > "$_dir/sync-$_j.samples" &
		_s=$!
		run_fio "$_j" "$_dir/sync-$_j.json"
		kill $_s 2> /dev/null
		wait $_s 2> /dev/null
		[ "$(md_sync_action md0)" = repair ] ||
			log "$2 run $3: $1: repair ended before $_j did"
		repair_stop
		log "$2 run $3: $1: T1 $_j done"
	done

	# T2
	dmesg -c > /dev/null
	repair_go
	$SAMPLE md0 50 300000 until-idle > "$_dir/t2.samples"
	dmesg > "$_dir/t2.dmesg"
	stats_dump "$_dir/t2.stats"
	log "$2 run $3: $1: T2 done"

	# T3
	echo 5000 > $SYS/sync_speed_min
	$SAMPLE md0 100 600000 > "$_dir/t3.samples" &
	_s=$!
	repair_go
	sleep "$(awk -v m="$LEAD_MS" 'BEGIN { printf "%.3f", m / 1000 }')"
	run_fio qd16x4-randread "$_dir/t3-fio.json" "$LOAD_S"
	sleep "$(awk -v m="$AFTER_MS" 'BEGIN { printf "%.3f", m / 1000 }')"
	kill $_s 2> /dev/null
	wait $_s 2> /dev/null
	[ "$(md_sync_action md0)" = repair ] ||
		log "$2 run $3: $1: repair ended before T3 did"
	stats_dump "$_dir/t3.stats"
	repair_stop
	echo system > $SYS/sync_speed_min
	log "$2 run $3: $1: T3 done"
	md_stop_all
}

echo "# bench-throttle: runs=$RUNS runtime=${RT}s members: $MEMBERS jobs: $JOBS"
{
	echo "runs=$RUNS runtime=$RT nullb_mb=$NULLB_MB brd_mb=$BRD_MB"
	echo "lead_ms=$LEAD_MS load_s=$LOAD_S after_ms=$AFTER_MS"
	echo "jobs=$JOBS"
	echo "members=$MEMBERS"
} > $OUT/params.txt
for mem in $MEMBERS; do
	r=1
	while [ "$r" -le "$RUNS" ]; do
		if [ $((r % 2)) = 1 ]; then order="intree fork"; else order="fork intree"; fi
		for impl in $order; do
			one_round "$impl" "$mem" "$r"
		done
		r=$((r + 1))
	done
	members_teardown
	unload_impl > /dev/null 2>&1
done

bench_finish bench-throttle $OUT
