#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of `make bench`, all in one boot.  For each job in
# BENCH_JOBS (bench/JOB.fio):
#   raw   the job against one RAM disk (array member), no md
#         (fio jobs only, BENCH_RAW_RUNS runs)
#   then in-tree md and the fork stack interleaved ABBA per round
#   (intree, fork, fork, intree), unloading one implementation's modules
#   before loading the other's.
#
# A job file's header comments say what kind of job it is:
#   # ARRAY: LEVEL NDISKS [MEMBER_MIB]   array to build (raid1 2 256)
#   # MD-BENCH: fio                      (default) fio on an --assume-clean
#                                        array: no resync during the run
#   # MD-BENCH: fio-during-resync        every measured run gets a new array
#                                        created without --assume-clean; fio
#                                        starts once the resync runs
#   # MD-BENCH: resync                   no fio: every run creates a new
#                                        array without --assume-clean and
#                                        times its initial resync (idle)
#   # MD-BENCH: dd direct|buffered MIB   no fio (the job file has only
#                                        header lines): each run writes MIB
#                                        MiB of zeros from the start of
#                                        /dev/md0 with dd bs=1M, either
#                                        oflag=direct or through the page
#                                        cache with conv=fsync, on an
#                                        --assume-clean array; MiB/s from
#                                        the wall time of the whole dd,
#                                        fsync included.  The warm-up is a
#                                        discarded dd of 64 MiB (MIB if
#                                        less) per load; no raw runs
#   # SYNC-SPEED-MAX: KIB                speed_limit_max after each load
#   # PREFILL: yes                       write the whole target once per
#                                        load before the warm-up (reads)
#   # FORK-SYSFS: NAME=VALUE             written to the fork's md/NAME
#                                        after each array creation (a knob
#                                        in-tree md does not have)
#   # INTREE-SYSFS: NAME=VALUE           the same for in-tree md (a setting
#                                        in-tree users tune by hand)
#   # MEMBERS: nullb MBPS                null_blk members (memory backed,
#                                        MBPS MB/s each) instead of RAM
#                                        disks, for jobs bound by member
#                                        bandwidth
#   # MEMBERS: seek [NAME=VALUE...]      seekdisk members /dev/seekN
#                                        (tests/vm/seekdisk: memory backed,
#                                        one request at a time, each that
#                                        does not start where the last one
#                                        ended charged a seek and half a
#                                        revolution), NAME=VALUE its module
#                                        parameters (mbps, settle_us,
#                                        full_seek_us, rot_us, queue_depth,
#                                        max_kb); mq-deadline on each with
#                                        nr_requests 64 (nr_requests=N
#                                        there sets another).  Runs record
#                                        the members' seek counters
#   # TARGET: METRIC OP RATIO [why]      not read here: the row(s) of the
#                                        BENCHMARKS.md summary (bench_report.py)
#   # DEGRADE: N                         fail and remove the last N members
#                                        after creating the array
#   # BITMAP: internal [CHUNK]           create with an internal write-intent
#                                        bitmap (mdadm --bitmap-chunk=CHUNK)
# Every load gets fresh members; fio jobs get one discarded warm-up run
# per load.  Around each md run the guest records md/stats/* (fork only),
# sync_action and sync_completed.  Raw fio JSON, those records and
# runs.txt go to /out, which is tarred onto /dev/vda for the host.
. /harness/config
. /harness/lib.sh

RUNS=${BENCH_RUNS:-4}
RAW_RUNS=${BENCH_RAW_RUNS:-2}
WARMUP=${BENCH_WARMUP:-5}
OUT=/out
mkdir -p $OUT
exec 3>> $OUT/bench.log
log() {
	read -r _lup _ < /proc/uptime
	echo "# bench: [$_lup] $*"
	echo "[$_lup] $*" >&3
}

modprobe virtio_pci && modprobe virtio_blk
for m in $RAID_DEPS; do modprobe "$m"; done

# directive FILE KEY: the value of a "# KEY: value" header line.
directive() { sed -n "s/^# $2: *//p" "$1" | head -n1; }

# job_copy SRC DST RUNTIME: the job file with its runtime replaced.
job_copy() {
	if [ -n "$3" ]; then
		sed "s/^runtime=.*/runtime=$3/" "$1" > "$2"
	else
		cp "$1" "$2"
	fi
}

# run_fio TARGET DEV JOBFILE JSON
run_fio() {
	BENCH_DEV=$2 fio --output-format=json --output="$4" "$3" > /tmp/fio.err 2>&1
	_rc=$?
	if [ $_rc -ne 0 ]; then
		log "fio failed on $1 ($2): $(tr '\n' ' ' < /tmp/fio.err | cut -c1-300)"
	fi
	return $_rc
}

# run_dd DEV KIND MIB OUT: dd MIB MiB of zeros onto DEV from its start,
# bs=1M, KIND direct (oflag=direct) or buffered (conv=fsync); OUT gets the
# size, the wall time of the whole dd and dd's own report.
run_dd() {
	case "$2" in
	direct) _fl=oflag=direct ;;
	buffered) _fl=conv=fsync ;;
	*) log "dd: unknown kind '$2'"; return 1 ;;
	esac
	# the page cache as empty as the last run left it
	sync
	echo 3 > /proc/sys/vm/drop_caches
	read -r _t0 _ < /proc/uptime
	dd if=/dev/zero of="$1" bs=1M count="$3" "$_fl" > /tmp/dd.err 2>&1
	_rc=$?
	read -r _t1 _ < /proc/uptime
	if [ $_rc -ne 0 ]; then
		log "dd failed on $1: $(tr '\n' ' ' < /tmp/dd.err | cut -c1-300)"
		return $_rc
	fi
	{
		echo "kind $2"
		echo "bytes $(($3 * 1048576))"
		echo "start $_t0"
		echo "end $_t1"
		sed 's/^/dd /' /tmp/dd.err
	} > "$4"
}

# md_record FILE TAG: append "TAG key value" lines: uptime, sync_action,
# sync_completed, the superblock event count of the first member (both
# implementations bump it on every superblock write, e.g. each clean <->
# dirty transition) and every md/stats file of md0 (the fork has them).
md_record() {
	{
		read -r _up _ < /proc/uptime
		echo "$2 uptime $_up"
		blockdev --flushbufs "$(member 0)"
		echo "$2 sb_events $(mdadm --examine "$(member 0)" | md_field Events)"
		# raid0 and linear have no sync files: "none"
		for _f in sync_action sync_completed; do
			_v=none
			[ -r "/sys/block/md0/md/$_f" ] && read -r _v < "/sys/block/md0/md/$_f"
			echo "$2 $_f $_v"
		done
		# raid456: the stripe cache as the run ends
		for _f in stripe_cache_size stripe_cache_current stripe_cache_memory_kb; do
			[ -r "/sys/block/md0/md/$_f" ] || continue
			read -r _v < "/sys/block/md0/md/$_f"
			echo "$2 cache.$_f $_v"
		done
		for _f in /sys/block/md0/md/stats/*; do
			[ -r "$_f" ] || continue
			read -r _v < "$_f"
			echo "$2 stat.${_f##*/} $_v"
		done
		# the fork's maxima cover one run: reset them as it starts
		if [ "$2" = before ]; then
			for _f in /sys/block/md0/md/stats/*_max_ns; do
				[ -w "$_f" ] && echo 0 > "$_f"
			done
		fi
		# member IO of both implementations (reads, read sectors,
		# writes, write sectors), summed over the members; null_blk
		# counts them, brd does not (its stat file stays 0)
		_i=0
		while [ "$_i" -lt "${ndisks:-0}" ]; do
			cat "/sys/block/$(basename "$(member $_i)")/stat"
			_i=$((_i + 1))
		done | awk -v t="$2" '{ r += $1; rs += $3; w += $5; ws += $7 }
			END { print t, "sys.member_reads", r + 0
			      print t, "sys.member_read_sectors", rs + 0
			      print t, "sys.member_writes", w + 0
			      print t, "sys.member_write_sectors", ws + 0 }'
		# seekdisk members: what the head did (seek counters, summed)
		case "$members" in
		seek*)
			_i=0
			while [ "$_i" -lt "$ndisks" ]; do
				for _f in "/sys/block/seek$_i/seek"/*; do
					read -r _v < "$_f"
					echo "${_f##*/} $_v"
				done
				_i=$((_i + 1))
			done | awk -v t="$2" '{ s[$1] += $2 }
				END { for (k in s) printf "%s sys.seek_%s %.0f\n", t, k, s[k] }' ;;
		esac
		# what the vCPUs did: busy ticks (user nice system irq softirq)
		# and inter-processor interrupts, for both implementations
		awk -v t="$2" '/^cpu[0-9]/ { print t, "sys.busy_" $1, $2 + $3 + $4 + $7 + $8 }' /proc/stat
		awk -v t="$2" '$1 ~ /^(RES|CAL|TLB|LOC):$/ {
			n = 0; for (i = 2; i <= NF; i++) if ($i ~ /^[0-9]+$/) n += $i
			print t, "sys." substr($1, 1, 3), n }' /proc/interrupts
	} >> "$1" 2>/dev/null
}

# load_target TARGET: unload whatever md is loaded, load TARGET's modules
# (raw: none) and apply SYNC-SPEED-MAX.
load_target() {
	md_stop_all
	unload_impl > /dev/null 2>&1
	[ "$1" = raw ] && return 0
	load_impl "$1" > /tmp/load.err 2>&1 || { cat /tmp/load.err; return 1; }
	impl_check "$1" || return 1
	if [ -n "$speed_max" ]; then
		echo "$speed_max" > /proc/sys/dev/raid/speed_limit_max || return 1
	fi
}

# member I: the I-th member device
member() {
	case "$members" in
	nullb*) echo "/dev/nullb$1" ;;
	seek*) echo "/dev/seek$1" ;;
	*) echo "/dev/ram$1" ;;
	esac
}

# seekdisk members (tests/vm/seekdisk), the seek benches' disks.  Their
# queue is what a SATA disk's is under mq-deadline: the scheduler's
# requests (nr_requests, which the elevator sets to twice the device's
# small queue depth) raised to 64, as for a disk with NCQ depth 32, so
# mq-deadline holds, merges and sorts the work the disk has not taken.
SEEK_NR_REQUESTS=64

seek_teardown() {
	md_stop_all
	[ -d /sys/module/seekdisk ] && rmmod seekdisk
	return 0
}

# seek_setup NR SIZE_MIB [NAME=VALUE...]: fresh /dev/seek0..NR-1
seek_setup() {
	_nr=$1
	_mib=$2
	shift 2
	seek_teardown
	_mp=
	_nrq=$SEEK_NR_REQUESTS
	for _p in "$@"; do
		case "$_p" in
		nr_requests=*) _nrq=${_p#*=} ;;
		*=*) _mp="$_mp $_p" ;;
		*) echo "seek member parameter '$_p' is not NAME=VALUE"; return 1 ;;
		esac
	done
	# shellcheck disable=SC2086 # NAME=VALUE words
	insmod /harness/seekdisk.ko nr_devices="$_nr" size_mib="$_mib" $_mp || return 1
	_i=0
	while [ "$_i" -lt "$_nr" ]; do
		_n=0
		while [ ! -b "/dev/seek$_i" ] && [ $_n -lt 50 ]; do sleep 0.1; _n=$((_n + 1)); done
		[ -b "/dev/seek$_i" ] || { echo "/dev/seek$_i did not appear"; return 1; }
		_q=/sys/block/seek$_i/queue
		if ! { echo mq-deadline > "$_q/scheduler" &&
		       echo "$_nrq" > "$_q/nr_requests"; }; then
			echo "seek$_i: cannot set mq-deadline, nr_requests $_nrq"
			return 1
		fi
		_i=$((_i + 1))
	done
}

# fresh_members: new, empty member devices
fresh_members() {
	case "$members" in
	nullb*)
		brd_teardown
		nullb_setup "$ndisks" "$member_mib" "${members#nullb }" ||
			{ echo "null_blk setup failed"; return 1; } ;;
	seek*)
		brd_teardown
		# shellcheck disable=SC2086 # NAME=VALUE words
		seek_setup "$ndisks" "$member_mib" ${members#seek} ||
			{ echo "seekdisk setup failed"; return 1; }
		# the model the summary names (the job's directory, $d)
		for _f in /sys/module/seekdisk/parameters/*; do
			read -r _v < "$_f"
			echo "${_f##*/} $_v"
		done > "$d/seekdisk.txt" ;;
	*)
		brd_setup "$ndisks" $((member_mib * 1024)) ||
			{ echo "brd setup failed"; return 1; } ;;
	esac
}

# make_array TARGET CLEAN: fresh members and, unless TARGET is raw, a new
# /dev/md0 (created --assume-clean if CLEAN is 1, else it resyncs).
make_array() {
	md_stop_all
	fresh_members || return 1
	[ "$1" = raw ] && return 0
	_devs=
	_i=0
	while [ $_i -lt "$ndisks" ]; do _devs="$_devs $(member $_i)"; _i=$((_i + 1)); done
	_clean=
	[ "$2" = 1 ] && _clean=--assume-clean
	# mdadm adds no bitmap by itself below 100 GiB: say so either way
	# (but it refuses any --bitmap, even none, for levels without one)
	_bm=--bitmap=none
	case $level in raid0|linear) _bm= ;; esac
	if [ -n "$bitmap" ]; then
		_bm="--bitmap=${bitmap%% *}"
		case "$bitmap" in
		*" "*) _bm="$_bm --bitmap-chunk=${bitmap#* }" ;;
		esac
	fi
	# shellcheck disable=SC2086
	timeout 60 mdadm --create /dev/md0 --run --force $_clean $_bm \
		--level="$level" --raid-devices="$ndisks" --metadata=1.2 $_devs 2>&1 ||
		return 1
	[ -b /dev/md0 ] || { echo "/dev/md0 missing after mdadm --create"; return 1; }
	if [ -n "$degrade" ]; then
		# Fail and remove the last DEGRADE members: a degraded array
		# serves their data by reconstruction.
		_i=$((ndisks - degrade))
		while [ $_i -lt "$ndisks" ]; do
			mdadm /dev/md0 --fail "$(member $_i)" --remove "$(member $_i)" > /dev/null 2>&1 ||
				{ echo "cannot fail $(member $_i)"; return 1; }
			_i=$((_i + 1))
		done
		grep -q "^md0 : active.*" /proc/mdstat || { echo "md0 not active after degrading"; return 1; }
	fi
	# FORK-SYSFS / INTREE-SYSFS: this target's knob, if any
	_knob=
	[ "$1" = fork ] && _knob=$fork_sysfs
	[ "$1" = intree ] && _knob=$intree_sysfs
	if [ -n "$_knob" ]; then
		echo "${_knob#*=}" > "/sys/block/md0/md/${_knob%%=*}" ||
			{ echo "cannot set md/$_knob"; return 1; }
	fi
}

# wait_sync_running: until md0's sync_completed shows progress (10 s max).
wait_sync_running() {
	_i=0
	while [ $_i -lt 100 ]; do
		read -r _c < /sys/block/md0/md/sync_completed
		[ "$_c" != none ] && return 0
		sleep 0.1
		_i=$((_i + 1))
	done
	echo "resync did not start within 10 s (sync_action $(cat /sys/block/md0/md/sync_action))"
	return 1
}

# time_resync FILE: poll md0 every 0.1 s from now until its sync is over;
# FILE gets "sample UPTIME COMPLETED" lines, then start/end/size records.
# Fails after 300 s or if the array is not in sync at the end.
time_resync() {
	read -r _t0 _ < /proc/uptime
	echo "start uptime $_t0" > "$1"
	read -r _v < /sys/block/md0/md/component_size
	echo "size component_kib $_v" >> "$1"
	_seen=0
	while :; do
		read -r _up _ < /proc/uptime
		read -r _a < /sys/block/md0/md/sync_action
		read -r _c < /sys/block/md0/md/sync_completed
		if [ "$_c" != none ]; then
			_seen=1
			echo "sample $_up ${_c%% *}" >> "$1"
		elif [ "$_a" = idle ] && [ $_seen = 1 ]; then
			break
		fi
		if [ "${_up%.*}" -ge $((${_t0%.*} + 300)) ]; then
			echo "resync not done after 300 s: $_a $_c"
			return 1
		fi
		if [ $_seen = 0 ] && [ "${_up%.*}" -ge $((${_t0%.*} + 10)) ]; then
			echo "resync did not start within 10 s: $_a $_c"
			return 1
		fi
		sleep 0.1
	done
	echo "end uptime $_up" >> "$1"
	read -r _v < /sys/block/md0/md/resync_start
	echo "end resync_start $_v" >> "$1"
	[ "$_v" = none ] || { echo "array not in sync after resync: resync_start $_v"; return 1; }
	md_record "$1" end
}

# setup_load TARGET: once per module load: the array (fio jobs) and the
# discarded warm-up.
setup_load() {
	case "$mode" in
	fio)
		make_array "$1" 1 || return 1
		if [ "$prefill" = yes ]; then
			fio --name=prefill --filename="$(dev_of "$1")" --rw=write --bs=1M \
				--ioengine=libaio --iodepth=4 --direct=1 > /tmp/prefill.out 2>&1 ||
				{ cat /tmp/prefill.out; return 1; }
		fi
		run_fio "$1" "$(dev_of "$1")" /tmp/warm.fio /tmp/warm.json ;;
	fio-during-resync)
		make_array "$1" 0 || return 1
		run_fio "$1" /dev/md0 /tmp/warm.fio /tmp/warm.json ;;
	dd)
		make_array "$1" 1 || return 1
		_w=64
		[ "$dd_mib" -lt $_w ] && _w=$dd_mib
		run_dd /dev/md0 "$dd_kind" "$_w" /tmp/warm.dd || return 1 ;;
	esac
	return 0
}

dev_of() { if [ "$1" = raw ]; then member 0; else echo /dev/md0; fi; }

# measure TARGET N DIR: one measured run; sets rfile to its result file.
measure() {
	case "$mode" in
	fio)
		[ "$1" != raw ] && md_record "$3/$1-$2.md.txt" before
		run_fio "$1" "$(dev_of "$1")" /tmp/job.fio "$3/$1-$2.json" || return 1
		[ "$1" != raw ] && md_record "$3/$1-$2.md.txt" after
		rfile=$1-$2.json ;;
	fio-during-resync)
		if ! { make_array "$1" 0 && wait_sync_running; } > /tmp/mk.err 2>&1; then
			log "$1 run $2: $(tr '\n' ' ' < /tmp/mk.err | cut -c1-300)"
			return 1
		fi
		md_record "$3/$1-$2.md.txt" before
		run_fio "$1" /dev/md0 /tmp/job.fio "$3/$1-$2.json" || return 1
		md_record "$3/$1-$2.md.txt" after
		rfile=$1-$2.json ;;
	dd)
		md_record "$3/$1-$2.md.txt" before
		run_dd /dev/md0 "$dd_kind" "$dd_mib" "$3/$1-$2.dd.txt" || return 1
		md_record "$3/$1-$2.md.txt" after
		rfile=$1-$2.dd.txt ;;
	resync)
		if ! { make_array "$1" 0 && time_resync "$3/$1-$2.resync.txt"; } \
				> /tmp/mk.err 2>&1; then
			log "$1 run $2: $(tr '\n' ' ' < /tmp/mk.err | cut -c1-300)"
			return 1
		fi
		rfile=$1-$2.resync.txt ;;
	esac
}

echo "# bench: runs=$RUNS raw runs=$RAW_RUNS warmup=${WARMUP}s jobs: $BENCH_JOBS"
for job in $BENCH_JOBS; do
	src=/harness/bench/$job.fio
	d=$OUT/$job
	mkdir -p "$d"
	job_copy "$src" /tmp/job.fio "${BENCH_RUNTIME:-}"
	job_copy "$src" /tmp/warm.fio "$WARMUP"
	# shellcheck disable=SC2046
	set -- $(directive "$src" ARRAY)
	level=${1:-raid1}
	ndisks=${2:-2}
	member_mib=${3:-256}
	mode=$(directive "$src" MD-BENCH)
	mode=${mode:-fio}
	# dd KIND MIB
	dd_kind=
	dd_mib=
	dd_size=job
	case "$mode" in
	dd\ *)
		# shellcheck disable=SC2086
		set -- $mode
		mode="dd"
		dd_kind=$2
		dd_mib=${BENCH_DD_MIB:-$3}
		dd_size=${BENCH_DD_MIB:-job} ;;
	esac
	speed_max=$(directive "$src" SYNC-SPEED-MAX)
	prefill=$(directive "$src" PREFILL)
	fork_sysfs=$(directive "$src" FORK-SYSFS)
	intree_sysfs=$(directive "$src" INTREE-SYSFS)
	members=$(directive "$src" MEMBERS)
	degrade=$(directive "$src" DEGRADE)
	bitmap=$(directive "$src" BITMAP)
	case "$mode" in
	fio|fio-during-resync|resync) ;;
	dd)
		case "$dd_kind:$dd_mib" in
		direct:[1-9]*|buffered:[1-9]*) ;;
		*) log "$job: MD-BENCH dd wants direct|buffered and a size in MiB"; continue ;;
		esac ;;
	*) log "$job: unknown MD-BENCH mode '$mode'"; continue ;;
	esac
	: > "$d/runs.txt"
	echo "mode=$mode level=$level ndisks=$ndisks member_mib=$member_mib runs=$RUNS raw_runs=$RAW_RUNS warmup=$WARMUP speed_max=${speed_max:-default} prefill=${prefill:-no} fork_sysfs=${fork_sysfs:-none} intree_sysfs=${intree_sysfs:-none} members=$(echo "${members:-brd}" | tr ' ' :) degrade=${degrade:-0} bitmap=$(echo "${bitmap:-none}" | tr ' ' :) runtime=${BENCH_RUNTIME:-job} dd=${dd_kind:-none}:${dd_mib:-0} dd_size=$dd_size" > "$d/params.txt"

	# raw member baseline (plain fio jobs only)
	if [ "$mode" = fio ] && [ "$RAW_RUNS" -gt 0 ]; then
		log "$job: raw $(member 0)"
		if load_target raw > /tmp/prep.err 2>&1 && setup_load raw > /tmp/prep.err 2>&1; then
			i=1
			while [ $i -le "$RAW_RUNS" ]; do
				measure raw $i "$d" && echo "raw $i raw $rfile" >> "$d/runs.txt"
				i=$((i + 1))
			done
		else
			echo "raw: $(tr '\n' ' ' < /tmp/prep.err)" >> "$d/broken.txt"
		fi
	fi

	# ABBA rounds: intree fork fork intree; the first in-tree run of a
	# round is A/A group a, the last group b.
	rounds=$(( (RUNS + 1) / 2 ))
	sched=
	r=1
	while [ $r -le $rounds ]; do
		sched="$sched intree:a fork:- fork:- intree:b"
		r=$((r + 1))
	done
	cur=
	n_intree=0
	n_fork=0
	for slot in $sched; do
		t=${slot%:*}
		grp=${slot#*:}
		grep -q "^$t:" "$d/broken.txt" 2>/dev/null && continue
		if [ "$t" != "$cur" ]; then
			log "$job: load $t ($mode, $level on $ndisks x ${member_mib} MiB ${members:-brd})"
			if ! { load_target "$t" && setup_load "$t"; } > /tmp/prep.err 2>&1; then
				why=$(tr '\n' ' ' < /tmp/prep.err | cut -c1-300)
				log "$job: $t NOT FUNCTIONAL: $why"
				echo "$t: array creation failed: $why" >> "$d/broken.txt"
				cur=
				continue
			fi
			cur=$t
		fi
		if [ "$t" = intree ]; then
			n_intree=$((n_intree + 1))
			n=$n_intree
		else
			n_fork=$((n_fork + 1))
			n=$n_fork
		fi
		if measure "$t" "$n" "$d"; then
			g=$t
			[ "$t" = intree ] && g=intree-$grp
			echo "$t $n $g $rfile" >> "$d/runs.txt"
			log "$job: $t run $n done"
		fi
	done
	md_stop_all
	unload_impl > /dev/null 2>&1
	cat /proc/mdstat > "$d/mdstat.txt" 2>/dev/null
	# seekdisk holds its members' data in memory: free it for the next job
	seek_teardown
done
brd_teardown
nullb_teardown

bench_finish bench $OUT
