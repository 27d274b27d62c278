#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 300
#
# In-tree raid456's md/ knobs (issue 35): group_thread_cnt, rmw_level,
# skip_copy, preread_bypass_threshold and stripe_size, on a RAID5 of 4
# brd RAM disks (3 data members, chunk 64 KiB), created --assume-clean
# so every row's parity is trusted and read-modify-write is allowed.
#
# Both implementations, the same assertions:
#  - each file reads in-tree's default, in its format: group_thread_cnt
#    0, rmw_level 1, skip_copy 0, preread_bypass_threshold 1,
#    stripe_size 4096 (the VM is x86-64: 4 KiB pages);
#  - values both accept read back as written: group_thread_cnt 1, 4, 0;
#    rmw_level 0, 2, 1; skip_copy 0; preread_bypass_threshold 1;
#  - garbage and out-of-range values get EINVAL and change nothing:
#    group_thread_cnt abc, -1, 8193 (in-tree's limit is 8192); rmw_level
#    abc, 3, -1; skip_copy abc; preread_bypass_threshold abc and 100000
#    (above stripe_cache_size, which in-tree refuses too);
#  - stripe_size is read-only: a write of 8192, abc or even 4096 fails
#    to open (EACCES, as in-tree makes the file on 4 KiB pages) and
#    changes nothing;
#  - ppl_write_hint (an array without a partial parity log) reads 0 and
#    refuses 0, 1 and abc with EINVAL, changing nothing;
#  - group_thread_cnt changed six times while a rate-limited fio writes
#    4 KiB blocks: the writes verify (in-tree suspends the array for a
#    change, the fork shuts its request gate and moves rows to workers);
#  - data written with fio --verify before the changes still verifies
#    after each, and everything written verifies at the end.
#
# The fork only (the steps SKIP on in-tree md with the reason):
#  - rmw_level 0: 4 KiB random writes over rows not cached yet add
#    nothing to md/stats/stripe_writes_rmw (in-tree has no such counter);
#  - rmw_level 2: the same writes do count as read-modify-writes: on 4
#    members one page costs two reads either way (old data and P, or the
#    two other data pages), a tie that level 1 gives to
#    reconstruct-write and level 2 to read-modify-write;
#  - skip_copy 1, preread_bypass_threshold 0 get EINVAL, unchanged (the
#    fork always copies and counts no bypass; in-tree accepts both, its
#    answers are printed as diagnostics and undone);
. /harness/lib.sh
. /harness/tests/raid5/common.sh

impl=${IMPL:?}
SYS=/sys/block/md0/md
EINVAL=22

create() {
	md_stop_all
	brd_setup 4 65536 || return 1
	# shellcheck disable=SC2046 # word splitting on purpose
	mdadm --create "$R5_MD" --run --assume-clean --level=5 \
		--raid-devices=4 --chunk=64 --metadata=1.2 $(r5_members 4) ||
		return 1
	cat /proc/mdstat
}

# reads FILE WANT: FILE reads WANT
reads() {
	_v=$(cat "$SYS/$1")
	[ "$_v" = "$2" ] || { echo "$1 reads '$_v', want '$2'"; return 1; }
}

defaults() {
	_rc=0
	reads group_thread_cnt 0 || _rc=1
	reads rmw_level 1 || _rc=1
	reads skip_copy 0 || _rc=1
	reads preread_bypass_threshold 1 || _rc=1
	reads stripe_size 4096 || _rc=1
	return $_rc
}

# round_trip FILE VALUE...: each written is read back
# (lib.sh's sysfs_expect_errno sets _f and _v: keep to other names)
round_trip() {
	_knob=$1
	shift
	for _val in "$@"; do
		sysfs_expect_errno 0 "$SYS/$_knob" "$_val" &&
			reads "$_knob" "$_val" || return 1
	done
}

# refused FILE VALUE...: each gets EINVAL and changes nothing
refused() {
	_knob=$1
	shift
	for _val in "$@"; do
		sysfs_expect_errno $EINVAL "$SYS/$_knob" "$_val" || return 1
	done
}

# then_verify CMD...: CMD, then the data of r5_data still verifies
then_verify() {
	"$@" && r5_data verify
}

# 4 KiB random writes over [16M, 32M) at 2000 IOPS (about 2 s), verified,
# while group_thread_cnt goes 1 3 2 0 4 0
group_under_load() {
	(cd /tmp && fio --name=c4k --filename="$R5_MD" --rw=randwrite --bs=4k \
		--ioengine=libaio --iodepth=16 --direct=1 --size=16M \
		--offset=16M --rate_iops=2000 --verify=crc32c \
		--verify_fatal=1 --do_verify=1 --randrepeat=1 --randseed=61 \
		--verify_state_save=0 --eta=never) > /tmp/fio.out 2>&1 &
	_pid=$!
	_ok=0
	for _n in 1 3 2 0 4 0; do
		sleep 0.2
		round_trip group_thread_cnt "$_n" || { _ok=1; break; }
	done
	_running=no
	kill -0 $_pid 2>/dev/null && _running=yes
	echo "fio still writing after the last change: $_running"
	wait $_pid
	fio_log_ok $? || return 1
	[ $_ok = 0 ] && [ $_running = yes ]
}

rmw_count() { cat $SYS/stats/stripe_writes_rmw 2>/dev/null || echo none; }

# rmw_run LEVEL OFFSET SEED: rmw_level LEVEL, then 4 KiB random writes
# over 8 MiB at OFFSET (rows nothing wrote yet), verified; the rmw
# counter before and after goes to /tmp/rmw.LEVEL
rmw_run() {
	sysfs_expect_errno 0 $SYS/rmw_level "$1" || return 1
	_c0=$(rmw_count)
	r5_fio write randwrite 4k "$2" 8M "$3" || return 1
	_c1=$(rmw_count)
	echo "$_c0 $_c1" > "/tmp/rmw.$1"
	echo "rmw_level $1: stripe_writes_rmw $_c0 -> $_c1," \
		"rcw $(cat $SYS/stats/stripe_writes_rcw 2>/dev/null)"
}

rmw_grew() { # LEVEL: did /tmp/rmw.LEVEL grow
	read -r _c0 _c1 < "/tmp/rmw.$1" || return 1
	echo "stripe_writes_rmw $_c0 -> $_c1"
	[ "$_c1" -gt "$_c0" ]
}

rmw_none() {
	read -r _c0 _c1 < /tmp/rmw.0 || return 1
	echo "stripe_writes_rmw $_c0 -> $_c1"
	[ "$_c1" = "$_c0" ]
}

# fork_only NAME REASON CMD...: the fork's own behaviour; SKIP on in-tree
fork_only() {
	_n=$1 _why=$2
	shift 2
	if [ "$impl" = fork ]; then
		ktap_check "$_n" "$@"
	else
		ktap_skip "$_n" "$_why"
	fi
}

# intree_diag FILE VALUE UNDO: on in-tree md, what writing VALUE does
# (printed); if it was taken, UNDO is written back
intree_diag() {
	[ "$impl" = intree ] || return 0
	_r=$(/harness/tools/sysfs_write "$SYS/$1" "$2")
	ktap_diag "in-tree: $1 $2: $_r, reads '$(cat "$SYS/$1")'"
	[ "$_r" = ok ] && echo "$3" > "$SYS/$1"
	return 0
}

skip_copy_both() {
	round_trip skip_copy 0 && refused skip_copy abc
}

preread_both() {
	round_trip preread_bypass_threshold 1 &&
	refused preread_bypass_threshold abc 100000
}

stripe_size_both() {
	sysfs_expect_errno 13 "$SYS/stripe_size" 8192 &&
		sysfs_expect_errno 13 "$SYS/stripe_size" abc &&
		sysfs_expect_errno 13 "$SYS/stripe_size" 4096
}

ppl_hint_both() {
	reads ppl_write_hint 0 && refused ppl_write_hint 0 1 abc &&
		reads ppl_write_hint 0
}

all_verify() {
	r5_data verify &&
	r5_fio verify randwrite 4k 16M 16M 61 &&
	r5_fio verify randwrite 4k 32M 8M 71 &&
	r5_fio verify randwrite 4k 40M 8M 72
}

ktap_plan 19
ktap_check "raid5 on 4 x 64 MiB brd, --assume-clean" create
ktap_check "4 KiB random and 1 MiB sequential writes verify" r5_data write
ktap_check "defaults: group_thread_cnt 0, rmw_level 1, skip_copy 0, preread_bypass_threshold 1, stripe_size 4096" \
	defaults
ktap_check "group_thread_cnt 1, 4, 0 read back; data verifies" \
	then_verify round_trip group_thread_cnt 1 4 0
ktap_check "group_thread_cnt abc, -1, 8193: EINVAL, unchanged" \
	refused group_thread_cnt abc -1 8193
ktap_check "group_thread_cnt changed under 4 KiB writes: they verify" \
	group_under_load
ktap_check "rmw_level 0, 2, 1 read back; data verifies" \
	then_verify round_trip rmw_level 0 2 1
ktap_check "rmw_level abc, 3, -1: EINVAL, unchanged" \
	refused rmw_level abc 3 -1
ktap_check "rmw_level 0: 4 KiB random writes verify" rmw_run 0 32M 71
fork_only "fork: at rmw_level 0 no write reads old data and parity" \
	"in-tree md has no md/stats/stripe_writes_rmw" rmw_none
ktap_check "rmw_level 2: 4 KiB random writes verify" rmw_run 2 40M 72
fork_only "fork: at rmw_level 2 a 4 KiB write (a tie on 4 members) reads old data and parity" \
	"in-tree md has no md/stats/stripe_writes_rmw" rmw_grew 2
echo 1 > $SYS/rmw_level
ktap_check "skip_copy 0 accepted, abc EINVAL; data verifies" \
	then_verify skip_copy_both
intree_diag skip_copy 1 0
fork_only "fork: skip_copy 1: EINVAL, unchanged (write data is always copied)" \
	"in-tree md implements skip_copy and accepts 1" refused skip_copy 1
ktap_check "preread_bypass_threshold 1 accepted, abc and 100000 EINVAL; data verifies" \
	then_verify preread_both
intree_diag preread_bypass_threshold 0 1
fork_only "fork: preread_bypass_threshold 0: EINVAL, unchanged (no bypass is counted)" \
	"in-tree md accepts 0..stripe_cache_size" \
	refused preread_bypass_threshold 0
ktap_check "stripe_size read-only: 8192, abc, 4096 EACCES, unchanged" \
	stripe_size_both
ktap_check "ppl_write_hint reads 0; 0, 1, abc EINVAL, unchanged" ppl_hint_both
ktap_check "all data verifies" all_verify
md_stop_all
brd_teardown
ktap_finish
