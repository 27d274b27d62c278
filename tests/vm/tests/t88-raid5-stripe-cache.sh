#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 600
#
# The RAID5 stripe cache under load, on 5 null_blk members of 64 MiB at
# 100 MB/s each (4 data members, chunk 64 KiB: a row of data is 256 KiB).
# Members that take time to write keep stripes busy: on RAM disks, which
# complete every write at once, 256 stripes always suffice.
#
# Both implementations: stripe_cache_size reads 256 on a new array and
# reads back what is written; 1 MiB and 4 MiB writes at queue depth 32
# (a 4 MiB request takes all 256 stripes of the default cache) and 4 KiB
# random writes verify.
#
# The fork only (in-tree md has none of these files; the steps SKIP
# there with the reason):
#   - the cache grew past stripe_cache_size under that load, by itself
#     (stripe_cache_current, md/stats/stripe_cache_grown), and stayed
#     within stripe_cache_budget_kb (stripe_cache_memory_kb);
#   - 1 MiB writes aligned to the rows read nothing from the members
#     (md/stats/stripe_write_reads): every row is written whole;
#   - a stream of 320 KiB writes (rows of 256 KiB, so 3 of 4 requests
#     end inside a row) submitted one request at a time reads at most
#     what the stripes that went on with their row incomplete can read
#     (2 pages each: the cheaper of rmw and rcw with 4 data members),
#     where nothing held back would read a page in every stripe of
#     about 150 rows (about 2,400); at least one stripe got its row
#     from the next request (stripe_row_waits, stripe_row_wait_unfilled).
#     This step runs last, on a fresh array of members that take 20 ms
#     per request (a disk's order): the next request of the stream must be
#     in flight while a tail waits.  On the 50 us members fio (crc32c under
#     TCG) was slower than the array, at queue depth 1 in effect, and a
#     stream at queue depth 1 rightly sends every waiting row on unfilled;
#   - 4 KiB random writes count as read-modify-writes;
#   - memory pressure (drop_caches 2 runs the shrinkers) gives back every
#     unused stripe above stripe_cache_size; so does a budget of 0;
#   - an idle cache shrinks by itself (trim every 5 s);
#   - stripe_cache_budget_kb refuses garbage and more than RAM (EINVAL,
#     unchanged).
. /harness/lib.sh
. /harness/tests/raid5/common.sh

impl=${IMPL:?}
MD0=/sys/block/md0/md
F=$MD0/stripe_cache_size
B=$MD0/stripe_cache_budget_kb

stat() { cat "$MD0/stats/$1"; }
cur() { cat $MD0/stripe_cache_current; }

# seq_qd32 BS SEED [verify]: BS writes over [16M, 80M), verified (or
# only the verify of what SEED wrote there); 16 requests per io_submit,
# which plugs them together: 16 x 4 MiB take 4096 stripes at once
seq_qd32() {
	_bs=$1
	shift
	_v=--do_verify=1
	[ "$2" = verify ] && _v=--verify_only
	(cd /tmp && fio --name=seq --filename=/dev/md0 --rw=write --bs="$_bs" \
		--ioengine=libaio --iodepth=32 --iodepth_batch_submit=16 \
		--direct=1 --offset=16M \
		--size=64M --verify=crc32c --verify_fatal=1 "$_v" \
		--randseed="$1" --verify_state_save=0 --eta=never) \
		> /tmp/fio.out 2>&1
	fio_log_ok $?
}

size_round_trip() {
	sysfs_expect_errno 0 $F 1024 && [ "$(cat $F)" = 1024 ] &&
		sysfs_expect_errno 0 $F 256 && [ "$(cat $F)" = 256 ]
}

grew() {
	_c=$(cur) _g=$(stat stripe_cache_grown)
	_m=$(cat $MD0/stripe_cache_memory_kb) _b=$(cat $B)
	echo "current $_c grown $_g memory ${_m}KiB budget ${_b}KiB"
	[ "$_c" -gt 256 ] && [ "$_g" -gt 256 ] && [ "$_m" -le "$_b" ]
}

no_reads() {
	_r1=$(stat stripe_write_reads)
	seq_qd32 1M 62 || return 1
	_r2=$(stat stripe_write_reads)
	echo "member reads by writes: $_r1 -> $_r2;" \
		"full $(stat stripe_writes_full) rmw $(stat stripe_writes_rmw)" \
		"rcw $(stat stripe_writes_rcw)"
	[ "$_r2" = "$_r1" ]
}

# A 64 MiB stream of 320 KiB writes at queue depth 8, one request per
# io_submit, verified, over [96M, 160M) of a fresh array, the idle
# stripes dropped first, so no row is in the cache (a cached row reads
# nothing either way).  The first request is no stream yet:
# its last row (16 stripes) may read too.
stream_rows() {
	echo 2 > /proc/sys/vm/drop_caches
	_r1=$(stat stripe_write_reads) _w1=$(stat stripe_row_waits)
	_u1=$(stat stripe_row_wait_unfilled)
	(cd /tmp && fio --name=stream --filename=/dev/md0 --rw=write \
		--bs=320k --ioengine=libaio --iodepth=8 --direct=1 \
		--offset=96M --size=64M --verify=crc32c --verify_fatal=1 \
		--do_verify=1 --randseed=68 --verify_state_save=0 \
		--eta=never) > /tmp/fio.out 2>&1
	fio_log_ok $? || return 1
	_r=$(($(stat stripe_write_reads) - _r1))
	_w=$(($(stat stripe_row_waits) - _w1))
	_u=$(($(stat stripe_row_wait_unfilled) - _u1))
	echo "member reads by writes $_r; stripes that waited for their row" \
		"$_w, went on unfilled $_u; full $(stat stripe_writes_full)" \
		"rmw $(stat stripe_writes_rmw) rcw $(stat stripe_writes_rcw)"
	[ "$_w" -gt "$_u" ] && [ "$_r" -le $((2 * (16 + _u))) ]
}

rmw_counted() {
	_w1=$(stat stripe_writes_rmw)
	r5_fio write randwrite 4k 0 8M 63 || return 1
	_w2=$(stat stripe_writes_rmw)
	echo "rmw $_w1 -> $_w2, reads $(stat stripe_write_reads)"
	[ "$_w2" -gt "$_w1" ]
}

# at_min: no more stripes than stripe_cache_size (all idle ones freed)
at_min() {
	_c=$(cur)
	echo "current $_c, stripe_cache_size $(cat $F)," \
		"shrunk $(stat stripe_cache_shrunk)"
	[ "$_c" -le "$(cat $F)" ]
}

drop_to_min() {
	seq_qd32 4M 64 || return 1
	[ "$(cur)" -gt 256 ] || { echo "did not grow: $(cur)"; return 1; }
	echo 2 > /proc/sys/vm/drop_caches
	at_min
}

budget_zero() {
	_old=$(cat $B)
	seq_qd32 4M 65 || return 1
	sysfs_expect_errno 0 $B 0 || return 1
	at_min || return 1
	seq_qd32 4M 66 || return 1
	at_min || return 1
	sysfs_expect_errno 0 $B "$_old"
}

idle_trim() {
	echo "before: current $(cur) grown $(stat stripe_cache_grown)" \
		"shrunk $(stat stripe_cache_shrunk) budget $(cat $B)"
	seq_qd32 4M 67 || return 1
	_c0=$(cur)
	echo "after: current $_c0 grown $(stat stripe_cache_grown)" \
		"shrunk $(stat stripe_cache_shrunk)"
	_i=0
	while [ $_i -lt 30 ]; do
		sleep 1
		_i=$((_i + 1))
		[ "$(cur)" -lt "$_c0" ] && break
	done
	echo "current $_c0 -> $(cur) after ${_i}s idle"
	[ "$(cur)" -lt "$_c0" ]
}

ram_kib=$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)

fork_only() { # name cmd...
	_n=$1
	shift
	if [ "$impl" = fork ]; then
		ktap_check "$_n" "$@"
	else
		ktap_skip "$_n" "in-tree md has no such file or counter"
	fi
}

ktap_plan 18
# create_nullb [--assume-clean]
create_nullb() {
	# shellcheck disable=SC2086 # word splitting on purpose
	mdadm --create /dev/md0 --run --level=5 --raid-devices=5 --chunk=64 \
		--metadata=1.2 "$@" $NULLB_DEVS || return 1
	wait_resync md0 600 || return 1
	cat /proc/mdstat
}

ktap_check "null_blk: five 64 MiB members, 100 MB/s" nullb_setup 5 64 100
ktap_check "raid5: create on 5, chunk 64K" create_nullb
ktap_check "stripe_cache_size: 256 on a new array" \
	sh -c "[ \$(cat $F) = 256 ]"
ktap_check "stripe_cache_size: 1024 and back to 256 read back" \
	size_round_trip
ktap_check "1 MiB writes, QD32: verify" seq_qd32 1M 61
ktap_check "4 MiB writes, QD32: verify" seq_qd32 4M 60
fork_only "fork: the cache grew by itself, within its budget" grew
fork_only "fork: row-aligned 1 MiB writes read nothing" no_reads
fork_only "fork: 4 KiB random writes verify, counted as rmw" rmw_counted
fork_only "fork: drop_caches gives back every idle stripe above the minimum" \
	drop_to_min
fork_only "fork: budget 0 keeps the cache at stripe_cache_size" budget_zero
fork_only "fork: an idle cache shrinks by itself" idle_trim
fork_only "fork: budget garbage: EINVAL, unchanged" \
	sysfs_expect_errno 22 $B 12abc
fork_only "fork: budget above RAM: EINVAL, unchanged" \
	sysfs_expect_errno 22 $B $((ram_kib + 1))
# the last writes over [16M, 80M): 4M seed 67 (fork), 4M seed 60 (in-tree)
last=60
[ "$impl" = fork ] && last=67
ktap_check "all data verifies" seq_qd32 4M $last verify
mdadm --stop /dev/md0 > /dev/null 2>&1
ktap_check "null_blk: five 64 MiB members, 100 MB/s, 20 ms per request" \
	nullb_setup 5 64 100 20000
ktap_check "raid5: create on 5, chunk 64K, --assume-clean" \
	create_nullb --assume-clean
fork_only "fork: a stream of 320 KiB writes fills its rows, reads only where a row went on unfilled" \
	stream_rows
mdadm --stop /dev/md0 > /dev/null 2>&1
nullb_teardown
ktap_finish
