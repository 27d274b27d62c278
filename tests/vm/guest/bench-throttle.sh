#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of `make bench-throttle` (tests/vm/bench-throttle), one boot.
# For each member type (null_blk with a bandwidth limit, brd) and each of
# BT_RUNS rounds, in-tree md and this stack in turn (order swapped every
# round), each on freshly created members and a new array of BT_LEVEL
# over BT_NDEVS members (--assume-clean):
#   T1  each job in bench/throttle/*.fio on the idle array; then, for each
#       sync kind in BT_SYNCS, the job again while that sync runs:
#       "repair" (restarted for each job), "resync", the initial resync
#       of a newly created array (the array is created again, without
#       --assume-clean, for each job), or "recover": the last member is
#       failed, removed, wiped and added back, and rebuilt as a spare
#       (the array is created again, clean, after each); its baseline is
#       the job on the degraded array before the spare is added
#       (degraded-JOB.json), not on the whole one; or "reshape": a new
#       array of BT_NDEVS members (a reshape cannot be repeated on one
#       array) takes the extra member as a spare and `mdadm --grow
#       --raid-devices=BT_NDEVS+1` (no backup file: mdadm moves the data
#       offsets down into the head-space, which prepare checks) starts
#       the reshape; it is frozen and the array created again after the
#       job.  After each sync the job runs on the baseline again
#       (after-KIND-JOB.json)
#   T2  per sync kind: the whole sync with no foreground IO, timed by the
#       kernel's own start and done messages (md_sample keeps progress);
#       a reshape also samples md/sync_completed and md/reshape_position
#       every second (t2-reshape.pos) and records the shape it ended in
#       (t2-reshape.after); with BT_RESHAPE_CHECK=1 (a check of the
#       reshape, not of its speed) the array and the spare are first
#       written whole with random data, and after the reshape a `check`
#       counts mismatches and the added space is read (t2-reshape.after:
#       mismatch_cnt, added_reads_zero)
#   T3  per sync kind and per floor in BT_T3_MIN (sync_speed_min, "5000"
#       by default): the sync starts, the BT_T3_LOAD job (qd16x4-randread
#       by default) runs from BT_LEAD_MS (plus fio's start-up time) for
#       BT_LOAD_S seconds, then nothing for BT_AFTER_MS; md_sample records
#       progress and array IOs every 100 ms throughout.  The default
#       floor and load write t3-KIND.*; any other pair writes
#       t3-KIND-LOAD-minFLOOR.*, so every file says what it measured.
#       With BT_T3_TRACE=1, t3-*.trace: the stripes in use, the
#       throttle's decision and the CPU time of the md threads and
#       kworkers every 0.5 s (a shell that wakes twice a second more)
#   T4  with BT_PIN='RATE...' (KiB/s): per sync kind and rate, the sync
#       pinned there (speed_limit_min = speed_limit_max = RATE) with no
#       foreground for BT_RUNTIME s (pin-KIND-RATE-nofg.cpu), then beside
#       the first T1 job (pin-KIND-RATE-JOB.json and .cpu): what a sync at
#       one given speed costs the foreground and the CPU, the same on both
#       implementations whatever their throttles decide.  A .cpu file is
#       "seconds busy_cpu_s sync_kib" (/proc/stat, sync_completed)
# BT_JOBS=none skips T1 and BT_T2=0 skips T2 (a floor-only run; T3's
# recovery then has no idle speed to reach and is not reported).
# BT_CHUNK (KiB) and BT_DATA_OFFSET (mdadm --data-offset) set the
# arrays' chunk and data offset (empty: mdadm's defaults).  With
# BT_SYNCS=reshape there is one member more than BT_NDEVS (the spare the
# reshape takes; idle otherwise).
# Raw fio JSON and samples go to /out/CFG/IMPL/runN (CFG names level,
# members and their speed), tarred onto /dev/vda for the host.
. /harness/config
. /harness/lib.sh

RUNS=${BT_RUNS:-3}
RT=${BT_RUNTIME:-5}
MEMBERS=${BT_MEMBERS:-nullb brd}
LEVEL=${BT_LEVEL:-1}
NDEVS=${BT_NDEVS:-2}
SYNCS=${BT_SYNCS:-repair}
NULLB_MBPS=${BT_NULLB_MBPS:-100}
NULLB_MB=${BT_NULLB_MB:-1024}
BRD_MB=${BT_BRD_MB:-1024}
LEAD_MS=${BT_LEAD_MS:-1000}
LOAD_S=${BT_LOAD_S:-4}
AFTER_MS=${BT_AFTER_MS:-2500}
JOBS=${BT_JOBS:-qd1-randread qd16x4-randread qd1-randwrite}
[ "$JOBS" = none ] && JOBS=
T2=${BT_T2:-1}
T3_LOAD=${BT_T3_LOAD:-qd16x4-randread}
T3_MIN=${BT_T3_MIN:-5000}
T3_TRACE=${BT_T3_TRACE:-0}
PIN=${BT_PIN:-}
CHUNK=${BT_CHUNK:-}
DATA_OFFSET=${BT_DATA_OFFSET:-}
RESHAPE_CHECK=${BT_RESHAPE_CHECK:-0}
# reshape_go fills the new array first when set (T2 with RESHAPE_CHECK)
_fill=0
# a reshape grows the array by one member: the last one set up
RESHAPE=0
case " $SYNCS " in *" reshape "*) RESHAPE=1 ;; esac
NMEMB=$((NDEVS + RESHAPE))
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

# members_setup nullb|brd: DEVS, the array's NDEVS members, and with a
# reshape SPARE, the one it grows onto
members_setup() {
	case "$1" in
	nullb)	nullb_setup "$NMEMB" "$NULLB_MB" "$NULLB_MBPS" || return 1
		_all=$NULLB_DEVS ;;
	brd)	brd_setup "$NMEMB" $((BRD_MB * 1024)) || return 1
		_all=$(seq -f /dev/ram%g 0 $((NMEMB - 1)) | tr '\n' ' ') ;;
	esac
	# shellcheck disable=SC2086  # one space between names
	DEVS=$(echo $_all | cut -d' ' -f1-"$NDEVS")
	SPARE=
	# shellcheck disable=SC2086
	[ "$RESHAPE" = 1 ] && SPARE=$(echo $_all | cut -d' ' -f"$NMEMB")
	return 0
}

# cfg_name MEMBERS: the results directory of one configuration
cfg_name() {
	case "$LEVEL/$NDEVS/$1" in
	1/2/brd) echo brd ;;
	1/2/nullb) [ "$NULLB_MBPS" = 100 ] && echo nullb || echo "nullb$NULLB_MBPS" ;;
	*)	[ "$1" = nullb ] && echo "r$LEVEL-${NDEVS}x-nullb$NULLB_MBPS" ||
		echo "r$LEVEL-${NDEVS}x-$1" ;;
	esac
}

# create_array clean|dirty: a new array on $DEVS; "dirty" starts the
# initial resync (--force: RAID5 resyncs rather than recovers a spare)
create_array() {
	md_stop_all
	_ac=--assume-clean
	[ "$1" = dirty ] && _ac=
	# shellcheck disable=SC2086
	timeout 60 mdadm --create $MD --run --force $_ac \
		--level="$LEVEL" --raid-devices="$NDEVS" --metadata=1.2 \
		${CHUNK:+--chunk=$CHUNK} ${DATA_OFFSET:+--data-offset=$DATA_OFFSET} \
		$DEVS 2>&1 || return 1
	[ -b $MD ] || { echo "$MD missing after mdadm --create"; return 1; }
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
	create_array clean || return 1
	[ "$RESHAPE" = 0 ] || headroom_check
}

# gcd A B
gcd() {
	_a=$1 _b=$2
	while [ "$_b" != 0 ]; do _t=$((_a % _b)); _a=$_b; _b=$_t; done
	echo "$_a"
}

# headroom_check: every member has the head-space (mdadm --examine
# "Unused Space : before=S sectors") the reshape to NDEVS+1 moves its
# data down by, LCM(old data chunks, new data chunks) / old data members
# (mdadm 4.2's backup_blocks); without it mdadm would take the
# backup-file path.  Writes "dev offset before" lines to /tmp/headroom.
headroom_check() {
	_cs=$(($(cat $SYS/chunk_size) / 512))
	_od=$((NDEVS - 1)) _nd=$NDEVS
	[ "$LEVEL" = 6 ] && _od=$((NDEVS - 2)) _nd=$((NDEVS - 1))
	_o=$((_od * _cs)) _n=$((_nd * _cs))
	_need=$((_o * _n / $(gcd $_o $_n) / _od))
	: > /tmp/headroom
	for _d in $DEVS; do
		_u=$(mdadm --examine "$_d" | sed -n 's/.*Unused Space.*before=\([0-9]*\) sectors.*/\1/p')
		_off=$(mdadm --examine "$_d" | sed -n 's/.*Data Offset : \([0-9]*\) sectors.*/\1/p')
		echo "$_d data_offset=$_off before=$_u need=$_need" >> /tmp/headroom
		if [ -z "$_u" ] || [ "$_u" -lt "$_need" ]; then
			echo "$_d: $_u sectors before the data, the reshape needs $_need (set BT_DATA_OFFSET)"
			return 1
		fi
	done
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

# sync_go KIND: start a sync of KIND (repair, resync) without waiting
sync_go() {
	case "$1" in
	repair)	repair_go ;;
	resync)	create_array dirty > /tmp/create.err 2>&1 ||
		log "create for resync failed: $(tr '\n' ' ' < /tmp/create.err | cut -c1-200)" ;;
	recover)
		degrade && spare_add ;;
	reshape)
		reshape_go ;;
	esac
}

# reshape_go: a new array of NDEVS members (a reshape cannot be repeated
# on the same array), SPARE wiped and added, and `mdadm --grow
# --raid-devices=NDEVS+1` without a backup file: mdadm writes the lower
# new_offset of every member, raid_disks and sync_action=reshape, and
# returns
reshape_go() {
	if ! create_array clean > /tmp/create.err 2>&1; then
		log "create for reshape failed: $(tr '\n' ' ' < /tmp/create.err | cut -c1-200)"
		return 1
	fi
	if [ "$_fill" = 1 ]; then
		# random data everywhere (a constant pattern would leave
		# any row's parity consistent), so stale rows show in a check
		(cd /tmp && fio --name=fill --filename=$MD --rw=write --bs=1M \
			--ioengine=libaio --iodepth=8 --direct=1 \
			--refill_buffers > /dev/null 2>&1) ||
			log "$_who: filling the array failed"
		# and the spare, as a disk used before would be: rows the
		# reshape adds must not depend on what it held
		(cd /tmp && fio --name=dirty --filename="$SPARE" --rw=write \
			--bs=1M --ioengine=libaio --iodepth=8 --direct=1 \
			--refill_buffers > /dev/null 2>&1) ||
			log "$_who: writing the spare failed"
	fi
	mdadm --zero-superblock "$SPARE" > /dev/null 2>&1
	{ mdadm $MD --add "$SPARE" &&
	  mdadm --grow $MD --raid-devices=$((NDEVS + 1)); } > /tmp/grow.err 2>&1 &&
		return 0
	log "starting the reshape failed: $(tr '\n' ' ' < /tmp/grow.err | cut -c1-300)"
	return 1
}

# reshape_pos_sampler FILE: every second until killed, "uptime_s
# mdstat_pos/total sync_completed reshape_position" (what each stack
# reports of the reshape's progress; mdstat and sync_completed are per
# member, reshape_position in array sectors)
reshape_pos_sampler() {
	while :; do
		read -r _up _x < /proc/uptime
		_p=$(sed -n '/^md0 /,/^$/s/.*reshape *=.*(\([0-9]*\/[0-9]*\)).*/\1/p' /proc/mdstat)
		# "done / total" or "none"
		read -r _sc _x _st < $SYS/sync_completed 2> /dev/null || _sc=-
		read -r _rp < $SYS/reshape_position 2> /dev/null || _rp=-
		echo "$_up ${_p:--} $_sc${_st:+/$_st} $_rp"
		sleep 1
	done > "$1"
}

# reshape_shape FILE: the shape md0 ended in (raid_disks, sizes, offsets)
reshape_shape() {
	{
		for _a in raid_disks component_size chunk_size reshape_position \
			sync_action degraded stripe_cache_size; do
			echo "$_a $(cat $SYS/$_a 2>&1)"
		done
		echo "size_sectors $(blockdev --getsz $MD)"
		for _d in "$SYS"/dev-*; do
			echo "${_d##*/} slot=$(cat "$_d/slot") offset=$(cat "$_d/offset") new_offset=$(cat "$_d/new_offset" 2>&1) state=$(cat "$_d/state")"
		done
		cat /tmp/headroom 2> /dev/null
	} > "$1"
	if [ "$RESHAPE_CHECK" = 1 ]; then
		# the space the reshape added: the last MiB of the array
		_mib=$(($(blockdev --getsz $MD) / 2048))
		dd if=/dev/zero of=/tmp/zero1m bs=1M count=1 2> /dev/null
		if dd if=$MD bs=1M skip=$((_mib - 1)) count=1 iflag=direct 2> /dev/null |
			cmp -s - /tmp/zero1m; then
			echo "added_reads_zero yes" >> "$1"
		else
			echo "added_reads_zero no" >> "$1"
		fi
		echo check > $SYS/sync_action
		wait_action '!idle' 20
		wait_resync md0 600 > /dev/null
		echo "mismatch_cnt $(cat $SYS/mismatch_cnt)" >> "$1"
	fi
	[ "$(cat $SYS/raid_disks)" = $((NDEVS + 1)) ] &&
		[ "$(cat $SYS/reshape_position)" = none ] && return 0
	log "$_who: the reshape did not end in $((NDEVS + 1)) members: $(tr '\n' ' ' < "$1" | cut -c1-200)"
	return 1
}

# degrade: fail, remove and wipe the last member (the array runs degraded)
degrade() {
	_last=${DEVS##* }
	{ mdadm $MD --fail "$_last" && mdadm $MD --remove "$_last" &&
	  mdadm --zero-superblock "$_last"; } > /tmp/degrade.err 2>&1 && return 0
	log "degrading failed: $(tr '\n' ' ' < /tmp/degrade.err | cut -c1-200)"
	return 1
}

# spare_add: add the wiped member back; md rebuilds it
spare_add() {
	mdadm $MD --add "${DEVS##* }" > /tmp/spare.err 2>&1 && return 0
	log "adding the spare failed: $(tr '\n' ' ' < /tmp/spare.err | cut -c1-200)"
	return 1
}

# wait_action STATE|!STATE TENTHS: poll md0's sync_action until it is
# STATE (with "!": is not), at most TENTHS x 0.1 s
wait_action() {
	_n=0
	while [ $_n -lt "$2" ]; do
		case "$1" in
		!*)	[ "$(md_sync_action md0)" != "${1#!}" ] && return 0 ;;
		*)	[ "$(md_sync_action md0)" = "$1" ] && return 0 ;;
		esac
		sleep 0.1
		_n=$((_n + 1))
	done
	return 1
}

# sync_start KIND: start it and wait until md reports it
sync_start() {
	sync_go "$1" || return 1
	wait_action '!idle' 20
}

# sync_stop KIND: stop it; a resync or recovery would restart after
# "idle", so it is frozen and the array created again clean for what
# follows
sync_stop() {
	case "$1" in
	repair)	echo idle > $SYS/sync_action
		wait_resync md0 120 > /dev/null ;;
	resync|recover|reshape)
		echo frozen > $SYS/sync_action
		wait_action frozen 100
		create_array clean > /dev/null 2>&1 ;;
	esac
}

# sampler_start FILE INTERVAL_MS: md_sample on md0 until sampler_stop
sampler_start() {
	$SAMPLE md0 "$2" 600000 > "$1" &
	_sampler=$!
}

sampler_stop() {
	kill $_sampler 2> /dev/null
	wait $_sampler 2> /dev/null
}

# sync_check KIND WHAT: the sync of KIND must still run when WHAT ends
sync_check() {
	[ "$(md_sync_action md0)" = "$1" ] ||
		log "$_who: $1 ended before $2 did"
}

stats_dump() { # DIR: fork's throttle counters
	[ -d $SYS/stats ] || return 0
	for _f in "$SYS"/stats/throttle* "$SYS"/stats/fg_active_samples; do
		[ -e "$_f" ] && echo "${_f##*/} $(cat "$_f")"
	done > "$1"
}

# t3_trace FILE: every 0.5 s until killed, "uptime_s stripe_cache_active
# throttle_mode throttle_max_inflight" (the last two: this stack only),
# "pid:run_ns:wait_ns:nice" of each md thread and kworker that existed
# when it started (where the CPU went) and "wchan:FUNCTION" where the sync
# thread sleeps; builtins only, as the shell gets
# little CPU under the load
t3_trace() {
	_pids=
	_rs=
	for _p in /proc/[0-9]*; do
		read -r _c < "$_p/comm" 2> /dev/null || continue
		case "$_c" in
		md*|kworker*) _pids="$_pids ${_p#/proc/}"; echo "# ${_p#/proc/} $_c" ;;
		esac
		case "$_c" in
		md*_resync) _rs="$_rs ${_p#/proc/}" ;;
		esac
	done
	while :; do
		read -r _up _x < /proc/uptime
		read -r _act < $SYS/stripe_cache_active 2> /dev/null || _act=-
		read -r _mode < $SYS/stats/throttle_mode 2> /dev/null || _mode=-
		read -r _mi < $SYS/stats/throttle_max_inflight 2> /dev/null || _mi=-
		_l="$_up $_act $_mode $_mi"
		for _p in $_pids; do
			read -r _r _w _x < "/proc/$_p/schedstat" 2> /dev/null ||
				continue
			read -r _st < "/proc/$_p/stat" 2> /dev/null
			# the 19th field, nice (comm has no spaces here)
			set -- $_st
			_l="$_l $_p:$_r:$_w:${19:-?}"
		done
		for _p in $_rs; do
			# wchan ends without a newline
			_wc=
			read -r _wc < "/proc/$_p/wchan" 2> /dev/null
			_l="$_l wchan:${_wc:-?}"
		done
		# where a kworker doing raid5 work is: its top 3 frames
		for _p in $_pids; do
			read -r _c < "/proc/$_p/comm" 2> /dev/null || continue
			case "$_c" in *raid5*) ;; *) continue ;; esac
			_n=0 _stk=
			while [ $_n -lt 3 ] && read -r _x _fn; do
				_stk="$_stk<${_fn%%+*}"
				_n=$((_n + 1))
			done < "/proc/$_p/stack"
			_l="$_l stack$_p:${_stk#<}"
		done
		echo "$_l"
		sleep 0.5
	done
}

# cpu_mark: "uptime_s busy_cpu_s sync_sectors_done" now
cpu_mark() {
	read -r _up _x < /proc/uptime
	read -r _c _u _n _s _i _w _q _sq _st _x < /proc/stat
	_done=$(cut -d' ' -f1 $SYS/sync_completed 2> /dev/null)
	case "$_done" in ''|*[!0-9]*) _done=0 ;; esac
	echo "$_up $(((_u + _n + _s + _q + _sq + _st) * 10)) $_done"
}

# cpu_span MARK0 MARK1: "seconds busy_cpu_s sync_kib" between two marks
cpu_span() {
	echo "$1 $2" | awk '{ printf "%.3f %.3f %d\n", $4 - $1, ($5 - $2) / 1000, ($6 - $3) / 2 }'
}

# pin_one KIND RATE JOB DIR: T4 for one sync kind and rate
pin_one() {
	md_speed_limit "$2" "$2"
	if ! sync_start "$1"; then
		md_speed_limit
		return 1
	fi
	sleep 1
	_m0=$(cpu_mark)
	if [ "${BT_PERF:-0}" = 1 ] && command -v perf > /dev/null; then
		perf record -q -a -g -e cpu-clock -F 499 -o /tmp/perf.data \
			-- sleep "$RT" > /dev/null 2>&1
	else
		sleep "$RT"
	fi
	_m1=$(cpu_mark)
	cpu_span "$_m0" "$_m1" > "$4/pin-$1-$2-nofg.cpu"
	if [ -e /tmp/perf.data ]; then
		perf report -i /tmp/perf.data --stdio --no-children \
			--sort comm,dso,sym -g none 2> /dev/null | head -150 \
			> "$4/pin-$1-$2-nofg.perf.txt"
		perf report -i /tmp/perf.data --stdio --children \
			--sort sym -g none 2> /dev/null | head -150 \
			> "$4/pin-$1-$2-nofg.perfc.txt"
		rm -f /tmp/perf.data
	fi
	_m0=$(cpu_mark)
	run_fio "$3" "$4/pin-$1-$2-$3.json"
	_m1=$(cpu_mark)
	cpu_span "$_m0" "$_m1" > "$4/pin-$1-$2-$3.cpu"
	sync_check "$1" "T4 $2"
	sync_stop "$1"
	md_speed_limit
}

# t3_name KIND FLOOR: T3's file prefix; the default floor and load keep
# the names of runs recorded before both could be chosen
t3_name() {
	if [ "$T3_LOAD" = qd16x4-randread ] && [ "$T3_MIN" = 5000 ]; then
		echo "t3-$1"
	else
		echo "t3-$1-$T3_LOAD-min$2"
	fi
}

# one_round IMPL MEMBERS RUN
one_round() {
	_cfg=$(cfg_name "$2")
	_dir=$OUT/$_cfg/$1/run$3
	_who="$_cfg run $3: $1"
	mkdir -p "$_dir"
	log "$_who: prepare"
	if ! prepare "$1" "$2" > /tmp/prep.err 2>&1; then
		log "$_who NOT FUNCTIONAL: $(tr '\n' ' ' < /tmp/prep.err | cut -c1-300)"
		return 1
	fi
	# warm-up (discarded)
	run_fio qd1-randread /tmp/warm.json 2

	# T1
	for _j in $JOBS; do
		run_fio "$_j" "$_dir/idle-$_j.json"
	done
	for _k in $SYNCS; do
		for _j in $JOBS; do
			if [ "$_k" = recover ]; then
				# the baseline: the same degraded array, no rebuild
				degrade
				run_fio "$_j" "$_dir/degraded-$_j.json"
				spare_add && wait_action '!idle' 20
			else
				sync_start "$_k"
			fi
			# fio may take seconds to start under TCG: sample until stopped
			sampler_start "$_dir/$_k-$_j.samples" 100
			run_fio "$_j" "$_dir/$_k-$_j.json"
			sampler_stop
			stats_dump "$_dir/$_k-$_j.stats"
			sync_check "$_k" "$_j"
			sync_stop "$_k"
			# the baseline again: reads drift within a boot, so each
			# run is compared with the baseline on both sides
			if [ "$_k" = recover ]; then
				degrade
				run_fio "$_j" "$_dir/after-$_k-$_j.json"
				create_array clean > /dev/null 2>&1
			else
				run_fio "$_j" "$_dir/after-$_k-$_j.json"
			fi
			log "$_who: T1 $_k $_j done"
		done
	done

	for _k in $SYNCS; do
		# T2
		if [ "$T2" = 1 ]; then
			# the kernel log from here on (not cleared: what came
			# before stays for bench_finish's check for splats)
			read -r _t0 _x < /proc/uptime
			[ "$_k" = reshape ] && _fill=$RESHAPE_CHECK
			sync_go "$_k"
			_fill=0
			_pos=
			if [ "$_k" = reshape ]; then
				reshape_pos_sampler "$_dir/t2-$_k.pos" &
				_pos=$!
			fi
			$SAMPLE md0 50 600000 until-idle > "$_dir/t2-$_k.samples"
			dmesg | awk -v t0="$_t0" '{ t = $0; sub(/^\[ */, "", t); sub(/\].*/, "", t) }
				t + 0 >= t0' > "$_dir/t2-$_k.dmesg"
			if [ -n "$_pos" ]; then
				kill "$_pos" 2> /dev/null
				wait "$_pos" 2> /dev/null
				# after the log is kept: its check must not time T2
				reshape_shape "$_dir/t2-$_k.after"
			fi
			stats_dump "$_dir/t2-$_k.stats"
			log "$_who: T2 $_k done"
		fi

		# T3
		for _min in $T3_MIN; do
			_t3=$_dir/$(t3_name "$_k" "$_min")
			# the floor is set before the sync starts (a resync creates
			# a new array, so system-wide), the samples start with it
			md_speed_limit "$_min"
			sync_go "$_k"
			sampler_start "$_t3.samples" 100
			_trace=
			if [ "$T3_TRACE" = 1 ]; then
				read -r _up _x < /proc/uptime
				echo "# samples start at uptime $_up" > "$_t3.trace"
				t3_trace >> "$_t3.trace" &
				_trace=$!
			fi
			sleep "$(awk -v m="$LEAD_MS" 'BEGIN { printf "%.3f", m / 1000 }')"
			run_fio "$T3_LOAD" "$_t3-fio.json" "$LOAD_S"
			if [ -n "$_trace" ]; then
				kill "$_trace" 2> /dev/null
				wait "$_trace" 2> /dev/null
			fi
			sleep "$(awk -v m="$AFTER_MS" 'BEGIN { printf "%.3f", m / 1000 }')"
			sampler_stop
			sync_check "$_k" T3
			stats_dump "$_t3.stats"
			sync_stop "$_k"
			md_speed_limit
			log "$_who: T3 $_k min $_min done"
		done

		# T4
		for _rate in $PIN; do
			_j=${JOBS%% *}
			[ -n "$_j" ] || _j=qd1-randread
			pin_one "$_k" "$_rate" "$_j" "$_dir" ||
				log "$_who: T4 $_k at $_rate did not start"
			log "$_who: T4 $_k pinned at $_rate done"
		done
	done
	md_stop_all
}

echo "# bench-throttle: RAID$LEVEL x$NDEVS runs=$RUNS runtime=${RT}s members: $MEMBERS syncs: $SYNCS jobs: $JOBS t3: $T3_LOAD min $T3_MIN"
{
	echo "level=$LEVEL ndevs=$NDEVS nullb_mbps=$NULLB_MBPS"
	echo "syncs=$SYNCS"
	echo "runs=$RUNS runtime=$RT nullb_mb=$NULLB_MB brd_mb=$BRD_MB"
	echo "lead_ms=$LEAD_MS load_s=$LOAD_S after_ms=$AFTER_MS"
	echo "jobs=$JOBS"
	echo "t2=$T2"
	echo "t3_load=$T3_LOAD"
	echo "t3_min=$T3_MIN"
	echo "pin=$PIN"
	echo "chunk=${CHUNK:-default} data_offset=${DATA_OFFSET:-default} reshape_check=$RESHAPE_CHECK"
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
