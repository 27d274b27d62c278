#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of `make bench`, all in one boot.  For each bench/*.fio job:
#   raw   the job against one RAM disk (array member), no md
#   then in-tree md and the fork stack interleaved ABBA per round
#   (intree, fork, fork, intree), unloading one implementation's modules
#   before loading the other's.  Every load gets fresh RAM disks, a new
#   array (--assume-clean: no resync during the measurement) and one
#   discarded warm-up run.
# Raw fio JSON and runs.txt go to /out, which is tarred onto /dev/vda for
# the host to summarise.
. /harness/config
. /harness/lib.sh

RUNS=${BENCH_RUNS:-4}
WARMUP=${BENCH_WARMUP:-5}
OUT=/out
mkdir -p $OUT
exec 3>> $OUT/bench.log
log() { echo "# bench: $*"; echo "$*" >&3; }

modprobe virtio_pci && modprobe virtio_blk
for m in $RAID_DEPS; do modprobe "$m"; done

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

# prepare TARGET LEVEL NDISKS: load TARGET's modules and build the array.
prepare() {
	md_stop_all
	unload_impl > /dev/null 2>&1
	brd_setup "$3" 262144 || { echo "brd setup failed"; return 1; }
	[ "$1" = raw ] && return 0
	load_impl "$1" > /tmp/load.err 2>&1 || { cat /tmp/load.err; return 1; }
	impl_check "$1" || return 1
	_devs=
	_i=0
	while [ $_i -lt "$3" ]; do _devs="$_devs /dev/ram$_i"; _i=$((_i + 1)); done
	# shellcheck disable=SC2086
	timeout 60 mdadm --create /dev/md0 --run --force --assume-clean \
		--level="$2" --raid-devices="$3" --metadata=1.2 $_devs 2>&1 ||
		return 1
	[ -b /dev/md0 ] || { echo "/dev/md0 missing after mdadm --create"; return 1; }
}

echo "# bench: runs=$RUNS warmup=${WARMUP}s jobs: $BENCH_JOBS"
for job in $BENCH_JOBS; do
	src=/harness/bench/$job.fio
	d=$OUT/$job
	mkdir -p "$d"
	job_copy "$src" /tmp/job.fio "${BENCH_RUNTIME:-}"
	job_copy "$src" /tmp/warm.fio "$WARMUP"
	set -- $(sed -n 's/^# ARRAY: *//p' "$src" | head -n1)
	level=${1:-raid1}
	ndisks=${2:-2}
	: > "$d/runs.txt"
	echo "level=$level ndisks=$ndisks runs=$RUNS warmup=$WARMUP" > "$d/params.txt"

	# raw member baseline
	log "$job: raw /dev/ram0"
	if prepare raw "$level" "$ndisks" > /tmp/prep.err 2>&1; then
		run_fio raw /dev/ram0 /tmp/warm.fio /tmp/warm.json
		i=1
		while [ $i -le "$RUNS" ]; do
			run_fio raw /dev/ram0 /tmp/job.fio "$d/raw-$i.json" &&
				echo "raw $i raw raw-$i.json" >> "$d/runs.txt"
			i=$((i + 1))
		done
	else
		echo "raw: $(tr '\n' ' ' < /tmp/prep.err)" >> "$d/broken.txt"
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
			log "$job: load $t, create $level on $ndisks RAM disks"
			if ! prepare "$t" "$level" "$ndisks" > /tmp/prep.err 2>&1; then
				why=$(tr '\n' ' ' < /tmp/prep.err | cut -c1-300)
				log "$job: $t NOT FUNCTIONAL: $why"
				echo "$t: array creation failed: $why" >> "$d/broken.txt"
				cur=
				continue
			fi
			cur=$t
			run_fio "$t" /dev/md0 /tmp/warm.fio /tmp/warm.json
		fi
		eval "n=\$((n_$t + 1))"
		eval "n_$t=$n"
		if run_fio "$t" /dev/md0 /tmp/job.fio "$d/$t-$n.json"; then
			g=$t
			[ "$t" = intree ] && g=intree-$grp
			echo "$t $n $g $t-$n.json" >> "$d/runs.txt"
			log "$job: $t run $n done"
		fi
	done
	md_stop_all
	unload_impl > /dev/null 2>&1
	cat /proc/mdstat > "$d/mdstat.txt" 2>/dev/null
done
brd_teardown

dmesg > $OUT/dmesg.txt
if grep -E 'kernel BUG at|BUG: |WARNING: |Oops|general protection fault|soft lockup|hard LOCKUP|blocked for more than|stall|KASAN|UBSAN|corruption|Kernel panic' $OUT/dmesg.txt > $OUT/kernel-splats.txt; then
	echo "# bench: KERNEL LOG PROBLEMS:"
	sed 's/^/# dmesg: /' $OUT/kernel-splats.txt
fi
uname -r > $OUT/kernel.txt
exec 3>&-
tar -cf /dev/vda -C $OUT . && sync && echo "# bench: results written to virtio disk"
