#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 300
#
# Issue 32: a sequential stream reaches every member in order and in
# large requests.  Spinning disks, SMR disks and cheap flash pay for
# every backward jump and every break in a stream; RAM-backed members
# do not, so no throughput bench shows it.  This reads the members' own
# request trace (tracefs block:block_rq_issue) instead.
#
# Members are null_blk (memory backed, mq-deadline, not throttled: a
# throttled null_blk requeues requests, and a requeue reorders the
# device's queue whatever md sent).  Arrays: RAID1 x2, RAID5 x4, RAID6
# x5, chunk 512 KiB, --assume-clean, no bitmap, so every member request
# past the data offset belongs to the stream.  Streams of ORD_MIB MiB
# from offset 0, each run ORD_REPS times:
#   dd-direct    dd bs=1M oflag=direct (one request at a time)
#   dd-buffered  dd bs=1M conv=fsync (page cache writeback)
#   fio-qd16     fio 512 KiB sequential writes, libaio, iodepth 16
#   dd-row       RAID5/6: dd oflag=direct of one row's data (1.5 MiB)
# Per member, over its requests in issue order (a request issued again
# after a requeue counts once):
#   backward %   requests that start below the one issued just before
#   breaks %     requests that do not start where the previous one ended
#   avg KiB      bytes per request
# The per-member lines are diagnostics; the assertions use the sums over
# the members, median of the repetitions.
#
# The reference is in-tree md, measured first in the same boot; the
# subject is $IMPL.  Each case passes when the subject's backward share
# is at most the reference's + 0.5 points, its break share at most
# + 2 points, and its average request at least 0.9x the reference's.
# Under IMPL=intree the subject is in-tree md again, which shows how far
# two runs of one implementation differ: the queue-depth streams of
# in-tree md's RAID5/6 differ by more than the margins (their order
# depends on which of its threads runs first), and such a case is
# reported as TODO with the numbers; every other case must pass.
#
# A single stream at queue depth 1 must go backward in under 1 % of its
# requests, on RAID5/6 measured with dd-row.  With dd-direct's 1 MiB
# requests on 1.5 MiB rows, a row is written by two requests, and the
# first must update its parity before it is acknowledged: the second
# writes that parity again, one step back on the parity members per
# row, on any implementation.
. /harness/lib.sh

impl=${IMPL:?}
ORD_MIB=${ORD_MIB:-32}
ORD_REPS=${ORD_REPS:-3}
MEMBER_MIB=160
MD=/dev/md0
T=/sys/kernel/tracing
LEVELS="1:2 5:4 6:5"
ROW_KIB=1536			# a row's data: 3 data members x 512 KiB

# streams LEVEL: the streams run on that level (rows only on RAID5/6)
streams() {
	echo dd-direct dd-buffered fio-qd16
	[ "$1" = 1 ] || echo dd-row
}

ktap_plan 13

[ -d $T/events ] || mount -t tracefs nodev $T 2>/dev/null
[ -d $T/events/block/block_rq_issue ] ||
	ktap_skip_all "no block_rq_issue trace event in this kernel"
echo 0 > $T/tracing_on
echo 8192 > $T/buffer_size_kb
echo 1 > $T/events/block/block_rq_issue/enable
nullb_setup 5 $MEMBER_MIB 0 || ktap_skip_all "null_blk setup failed"
# a module on 6.12 (built in on 6.1)
modprobe mq-deadline > /dev/null 2>&1
for _m in $NULLB_DEVS; do
	echo mq-deadline > "/sys/block/${_m#/dev/}/queue/scheduler" ||
		ktap_skip_all "no mq-deadline for ${_m#/dev/}"
done

# majmin DEV: "major,minor" as the trace prints it
majmin() { tr ':' ',' < "/sys/block/${1#/dev/}/dev"; }

# stream NAME: write ORD_MIB MiB to md0 from offset 0
stream() {
	case "$1" in
	dd-direct)
		dd if=/dev/zero of=$MD bs=1M count="$ORD_MIB" oflag=direct 2>&1 ;;
	dd-buffered)
		dd if=/dev/zero of=$MD bs=1M count="$ORD_MIB" conv=fsync 2>&1 ;;
	dd-row)
		dd if=/dev/zero of=$MD bs=${ROW_KIB}k oflag=direct \
			count=$((ORD_MIB * 1024 / ROW_KIB)) 2>&1 ;;
	fio-qd16)
		fio --name=seq --filename=$MD --rw=write --bs=512k --direct=1 \
			--ioengine=libaio --iodepth=16 --size="${ORD_MIB}m" \
			--output-format=terse > /dev/null ;;
	esac
}

# trace_stream NAME OUT: the members' issued requests during stream NAME
trace_stream() {
	sync
	echo > $T/trace
	echo 1 > $T/tracing_on
	stream "$1" > /dev/null
	_ts=$?
	echo 0 > $T/tracing_on
	grep 'block_rq_issue:' $T/trace > "$2"
	return $_ts
}

# measure TRACE DEVS OFFSET: per member, then "all BACK BREAKS AVGKIB N"
# last; DEVS are "major,minor" words, OFFSET the data offset in sectors
measure() {
	awk -v devs="$2" -v off="$3" '
	BEGIN { n = split(devs, d, " "); for (i = 1; i <= n; i++) want[d[i]] = i }
	{
		for (f = 1; f <= NF; f++) if ($f == "block_rq_issue:") break
		dev = $(f + 1); sec = $(f + 5); len = $(f + 7)
		if (!(dev in want) || len == 0 || sec < off) next
		k = want[dev]
		# a request the device requeued is issued again: not a new one
		if (cnt[k] > 0 && sec == last[k] && sec + len == end[k]) next
		if (cnt[k] > 0) {
			if (sec < last[k]) back[k]++
			if (sec != end[k]) brk[k]++
		}
		cnt[k]++; bytes[k] += len * 512
		last[k] = sec; end[k] = sec + len
	}
	function line(name, c, b, r, by) {
		printf "%s %.1f %.1f %.1f %d\n", name,
			c > 1 ? 100 * b / (c - 1) : 0,
			c > 1 ? 100 * r / (c - 1) : 0,
			c ? by / c / 1024 : 0, c
	}
	END {
		for (k = 1; k <= n; k++) {
			line("member" (k - 1), cnt[k], back[k], brk[k], bytes[k])
			C += cnt[k]; B += back[k]; R += brk[k]; Y += bytes[k]
			if (cnt[k] > 1) P += cnt[k] - 1
		}
		printf "all %.1f %.1f %.1f %d\n", P ? 100 * B / P : 0,
			P ? 100 * R / P : 0, C ? Y / C / 1024 : 0, C
	}' "$1"
}

# medians FILE: the median backward %, breaks % and average KiB of the
# "all" lines in FILE, one per repetition
medians() {
	for _col in 2 3 4; do
		awk -v c=$_col '{ print $c }' "$1" | sort -n |
			awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
	done
}

# run_impl WHO IMPL: every level and stream on IMPL; results in
# /tmp/ord.WHO.LEVEL.STREAM (the measure lines)
run_impl() {
	switch_impl "$2" > /dev/null || { ktap_diag "loading $2 failed"; return 1; }
	for _lv in $LEVELS; do
		_lev=${_lv%:*}
		_nd=${_lv#*:}
		_devs=
		_mm=
		for _m in $NULLB_DEVS; do
			[ "$(echo "$_devs" | wc -w)" -lt "$_nd" ] || break
			_devs="$_devs $_m"
			_mm="$_mm $(majmin "$_m")"
		done
		_c=
		[ "$_lev" = 1 ] || _c=--chunk=512
		# shellcheck disable=SC2086
		mdadm --create $MD --run --level="$_lev" --raid-devices="$_nd" \
			$_c --metadata=1.2 --bitmap=none --assume-clean \
			$_devs > /tmp/ord.mdadm 2>&1 ||
			{ sed 's/^/# /' /tmp/ord.mdadm; return 1; }
		_k=$(echo "$_devs" | awk '{ sub("/dev/", "", $1); print $1 }')
		_off=$(cat /sys/block/md0/md/dev-"$_k"/offset)
		_rep=1
		while [ $_rep -le "$ORD_REPS" ]; do
			for _s in $(streams "$_lev"); do
				trace_stream "$_s" /tmp/ord.trace || {
					ktap_diag "$_s on RAID$_lev failed"
					return 1
				}
				measure /tmp/ord.trace "$_mm" "$_off" > /tmp/ord.m
				awk -v w="$1" -v l="$_lev" -v s="$_s" -v r=$_rep '{
					printf "# %s RAID%s %-11s %d %-7s backward %5.1f %%  breaks %5.1f %%  avg %6.1f KiB  (%d requests)\n",
						w, l, s, r, $1, $2, $3, $4, $5 }' /tmp/ord.m
				grep '^all ' /tmp/ord.m >> "/tmp/ord.$1.$_lev.$_s"
			done
			_rep=$((_rep + 1))
		done
		mdadm --stop $MD > /dev/null 2>&1 || return 1
	done
}

rm -f /tmp/ord.ref.* /tmp/ord.sub.*
run_impl ref intree && run_impl sub "$impl"
# a failed run leaves its result files missing: the cases below say so
for _lv in $LEVELS; do
	_lev=${_lv%:*}
	for _s in $(streams "$_lev"); do
		_r=/tmp/ord.ref.$_lev.$_s
		_u=/tmp/ord.sub.$_lev.$_s
		_name="RAID$_lev $_s: $impl in order as in-tree md"
		if [ ! -s "$_r" ] || [ ! -s "$_u" ]; then
			ktap_not_ok "$_name"
			ktap_diag "no measurement (see the lines above)"
			continue
		fi
		# shellcheck disable=SC2046
		set -- $(medians "$_r") $(medians "$_u")
		ktap_diag "RAID$_lev $_s medians: in-tree $1 % back, $2 % breaks, $3 KiB; $impl $4 %, $5 %, $6 KiB"
		_why=$(awk -v rb="$1" -v rr="$2" -v ra="$3" -v sb="$4" \
			-v sr="$5" -v sa="$6" 'BEGIN {
			if (sb > rb + 0.5) printf "backward %.1f %% > %.1f + 0.5; ", sb, rb
			if (sr > rr + 2) printf "breaks %.1f %% > %.1f + 2; ", sr, rr
			if (sa < 0.9 * ra) printf "avg %.1f KiB < 0.9 x %.1f; ", sa, ra
		}')
		if [ -z "$_why" ]; then
			ktap_ok "$_name"
		elif [ "$impl" = intree ]; then
			ktap_todo "$_name" "in-tree md against itself: $_why"
		else
			ktap_not_ok "$_name"
			ktap_diag "$_why"
		fi
		[ "$_s" = dd-row ] || continue
		_name="RAID$_lev dd-row: $impl issues under 1 % backward"
		if awk -v b="$4" 'BEGIN { exit !(b < 1) }'; then
			ktap_ok "$_name"
		elif [ "$impl" = intree ]; then
			ktap_todo "$_name" "in-tree md: backward $4 %"
		else
			ktap_not_ok "$_name"
			ktap_diag "backward $4 %"
		fi
	done
done
echo 0 > $T/events/block/block_rq_issue/enable
nullb_teardown
ktap_finish
