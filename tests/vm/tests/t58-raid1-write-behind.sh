#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 300
#
# raid1 write-behind (issue 35): mdadm --write-behind=N with a bitmap.
# Member 0, --write-mostly, is "slow", a dm-delay device over /dev/ram1
# whose writes (and flushes) take 200 ms; member 1 is /dev/ram0.  Slow is
# in slot 0 because in-tree 6.1 sends a write behind only when its first
# clone goes to a write-mostly member (the lowest slot that takes the
# write), so with slow in slot 1 it never writes behind.  Both
# implementations, the same assertions (in-tree md's documented
# behaviour, md.rst and mdadm(8)):
#  - made by $partner (--write-behind=256, --bitmap-chunk=4M) and
#    assembled by $IMPL: bitmap/backlog reads 256, slow is write_mostly;
#  - with backlog 256, 4 KiB direct writes (one dd each, timed from
#    /proc/uptime, less the median time of a dd that writes to tmpfs)
#    complete far below the delay: median of 10 at most 50 ms, after
#    one untimed write has set the bitmap bit they share
#    and marked the array dirty (safe_mode_delay 30 s keeps it so);
#    max_backlog_used, reset by writing 0 (any write resets it), is
#    above 0 afterwards;
#  - the data reads back through md (from ram0) and, once the delay has
#    passed, from ram1 itself; of two writes to the same block, ram1
#    ends with the later one;
#  - a read through md right after ram0 is failed (a write to that
#    block returned just before, so it may still be on its way to slow)
#    returns that write's data; later every block reads back from slow
#    alone, and again after the array is stopped and assembled from slow
#    alone, backlog still 256;
#  - ram0 --re-add'ed (recovery from slow): "check" finds no mismatch;
#  - backlog 0 (in-tree takes it with a write-mostly member present):
#    writes take the delay (median of 10 at least 180 ms) and
#    max_backlog_used stays 0; backlog 256 again: median at most 50 ms;
#  - stopped, $partner assembles it: backlog 256, every block intact.
# The timed writes go to every other block (the blocks between are
# written after them, untimed): in-tree 6.1 makes a write to a
# write-mostly member wait for an earlier one still in flight whose
# range overlaps it, and ranges that only touch count (seen, not read in
# its code): writes to adjacent blocks took the delay one after another
# (2026-12-05: 150-230 ms each; 20-40 ms with a block between them).
# Diagnostics: each write's time in centiseconds, and how long after
# the write the failed-member read ran (if it was after 200 ms, that
# check proved nothing about waiting).
. /harness/lib.sh

impl=${IMPL:?}

partner=intree		# for IMPL=intree: itself, reloaded
export DM_DISABLE_UDEV=1
MD=/dev/md0
SYS=/sys/block/md0/md
DELAY_MS=200
BLOCKS=128		# /tmp/wb.data, 4 KiB blocks, all in bitmap chunk 0

now_cs() { cut -d' ' -f1 /proc/uptime | tr -d . | sed 's/^0*//'; }

setup() {
	brd_setup 2 65536 || return 1
	modprobe dm-mod && modprobe dm-delay || return 1
	_sz=$(blockdev --getsz /dev/ram1)
	dmsetup create slow --table \
		"0 $_sz delay /dev/ram1 0 0 /dev/ram1 0 $DELAY_MS" || return 1
	dmsetup table slow
	dd if=/dev/urandom of=/tmp/wb.data bs=4k count=$BLOCKS 2>/dev/null &&
	dd if=/dev/urandom of=/tmp/wb.x1 bs=4k count=1 2>/dev/null
}

# made_by IMPL: IMPL creates the array and stops it
made_by() {
	switch_impl "$1" || return 1
	# mdadm --create has no --readwrite: slow is made write-mostly
	# through sysfs, which the superblock then records
	mdadm --create $MD --run --assume-clean --level=1 --raid-devices=2 \
		--metadata=1.2 --bitmap=internal --bitmap-chunk=4M \
		--write-behind=256 /dev/mapper/slow /dev/ram0 ||
		return 1
	echo writemostly > "$SYS/dev-$(dm_kname slow)/state" || return 1
	mdadm --examine-bitmap /dev/ram0 | grep -i behind
	mdadm --stop $MD
}

# assembled_by IMPL DEVS...: IMPL assembles the array from DEVS
assembled_by() {
	_i=$1
	shift
	switch_impl "$_i" || return 1
	mdadm --assemble --run $MD "$@" || return 1
	mdstat_array md0
}

backlog_is() {
	_b=$(cat $SYS/bitmap/backlog)
	echo "bitmap/backlog $_b"
	[ "$_b" = "$1" ]
}

slow_write_mostly() { md_member_state "$(dm_kname slow)" write_mostly; }

# put BLOCK: write /tmp/wb.data's block BLOCK to the same block of md0
put() {
	dd if=/tmp/wb.data of=$MD bs=4k skip="$1" seek="$1" count=1 \
		oflag=direct 2>/dev/null
}

# timed_writes FIRST COUNT: put blocks FIRST, FIRST+2, ... (COUNT of
# them), one dd each, each time in centiseconds, the median less what a
# dd alone takes in /tmp/wb.median; then the blocks between, untimed, so
# FIRST .. FIRST+2*COUNT-1 are written
timed_writes() {
	: > /tmp/wb.times
	_i=0
	while [ "$_i" -lt "$2" ]; do
		_t0=$(now_cs)
		put $(($1 + 2 * _i)) || return 1
		echo $(($(now_cs) - _t0)) >> /tmp/wb.times
		_i=$((_i + 1))
	done
	_i=0
	while [ "$_i" -lt "$2" ]; do
		put $(($1 + 2 * _i + 1)) || return 1
		_i=$((_i + 1))
	done
	_med=$(sort -n /tmp/wb.times | sed -n "$((($2 + 1) / 2))p")
	_base=$(dd_cost)
	echo "write times (cs): $(tr '\n' ' ' < /tmp/wb.times)median $_med, a dd alone $_base"
	echo $((_med - _base)) > /tmp/wb.median
}

# dd_cost: the median time (cs) of a dd that writes nothing to md: what
# starting a process costs here (a debug kernel under TCG: ~16 cs), taken
# off the write times
dd_cost() {
	: > /tmp/wb.base
	for _j in 1 2 3 4 5; do
		_t0=$(now_cs)
		dd if=/tmp/wb.data of=/tmp/wb.null bs=4k count=1 2>/dev/null
		echo $(($(now_cs) - _t0)) >> /tmp/wb.base
	done
	sort -n /tmp/wb.base | sed -n 3p
}

# fast_writes FIRST COUNT: an untimed write sets the chunk's bit (and
# marks the array dirty), then the timed ones: median at most 50 ms
# The array stays dirty between the timed writes: marking it dirty
# writes the superblocks, slow's too, which takes the delay (in-tree
# marks it clean 200 ms after the last write)
stay_dirty() { echo 30 > $SYS/safe_mode_delay; }

fast_writes() {
	stay_dirty || return 1
	put $(($1 - 1)) || return 1
	timed_writes "$1" "$2" || return 1
	[ "$(cat /tmp/wb.median)" -le 5 ]
}

# slow_writes FIRST COUNT: median at least 180 ms
slow_writes() {
	stay_dirty || return 1
	timed_writes "$1" "$2" || return 1
	[ "$(cat /tmp/wb.median)" -ge 18 ]
}

max_used() {
	_u=$(cat $SYS/bitmap/max_backlog_used)
	echo "bitmap/max_backlog_used $_u"
	case "$1" in
	0) [ "$_u" = 0 ] ;;
	*) [ "$_u" -gt 0 ] ;;
	esac
}

reset_max_used() {
	echo 0 > $SYS/bitmap/max_backlog_used && max_used 0
}

# same_blocks FIRST COUNT DEV SECTOR: COUNT 4 KiB blocks of DEV from
# 512-byte sector SECTOR equal /tmp/wb.data's blocks FIRST..
same_blocks() {
	dd if=/tmp/wb.data of=/tmp/wb.want bs=4k skip="$1" count="$2" \
		2>/dev/null &&
	dd if="$3" of=/tmp/wb.got bs=4k iflag=direct,skip_bytes \
		skip=$(($4 * 512)) count="$2" 2>/dev/null &&
	cmp /tmp/wb.want /tmp/wb.got
}

md_blocks() { same_blocks "$1" "$2" $MD $(($1 * 8)); }

# ram1_blocks FIRST COUNT: the same, on ram1 under slow (past md and dm)
ram1_blocks() {
	_off=$(mdadm --examine /dev/mapper/slow | md_field "Data Offset" |
		cut -d' ' -f1)
	[ -n "$_off" ] || { echo "no data offset"; return 1; }
	same_blocks "$1" "$2" /dev/ram1 $((_off + $1 * 8))
}

# after the delay, slow holds blocks 1-20 and the later write to 30
on_slow() {
	sleep 1
	ram1_blocks 1 20 && ram1_blocks 30 1
}

# two writes to block 30, the second the one kept
overlap() {
	dd if=/tmp/wb.x1 of=$MD bs=4k seek=30 count=1 oflag=direct \
		2>/dev/null && put 30 && md_blocks 30 1
}

# write block 40, fail ram0 at once, read block 40 (from slow)
fail_read() {
	put 40 || return 1
	_t0=$(now_cs)
	mdadm $MD --fail /dev/ram0 || return 1
	_t1=$(now_cs)
	md_blocks 40 1
	_rc=$?
	echo "ram0 failed $((_t1 - _t0)) cs after the write returned," \
		"block 40 read back by $(($(now_cs) - _t0)) cs"
	return $_rc
}

all_blocks() { md_blocks 1 20 && md_blocks 30 1 && md_blocks 40 1; }

readd_ram0() {
	mdadm $MD --re-add /dev/ram0 || return 1
	sleep 1
	wait_resync md0 120 && md_check_clean md0 120
}

stop_assemble_slow() {
	mdadm --stop $MD && mdadm --assemble --run $MD /dev/mapper/slow
}

kept() { backlog_is 256 && all_blocks; }

later_blocks() { sleep 1; md_blocks 50 20 && md_blocks 70 20; }

partner_assembles() {
	mdadm --stop $MD &&
	assembled_by $partner /dev/ram0 /dev/mapper/slow
}

intact() { kept && md_blocks 50 20 && md_blocks 70 20; }

ktap_plan 25
ktap_diag "implementation under test: $impl, partner: $partner"
md_speed_limit
ktap_check "brd, slow = dm-delay over ram1 (${DELAY_MS} ms writes)" setup
ktap_check "$partner creates raid1 --write-behind=256, slow (W) + ram0" \
	made_by $partner
ktap_check "$impl assembles it" assembled_by "$impl" /dev/ram0 \
	/dev/mapper/slow
ktap_check "bitmap/backlog reads 256" backlog_is 256
ktap_check "slow is write_mostly" slow_write_mostly
ktap_check "max_backlog_used: writing 0 resets it" reset_max_used
ktap_check "backlog 256: 4 KiB writes far below the delay" fast_writes 1 10
ktap_check "max_backlog_used > 0 after them" max_used some
ktap_check "the data reads back through md" md_blocks 1 20
ktap_check "two writes to one block: md reads the later" overlap
ktap_check "after the delay ram1 holds the data, the later write last" \
	on_slow
ktap_check "read right after failing ram0: the write's data, from slow" \
	fail_read
sleep 1
ktap_check "every block reads back from slow alone" all_blocks
ktap_check "stop, assemble from slow alone" stop_assemble_slow
ktap_check "backlog still 256, every block reads back" kept
ktap_check "re-add ram0, recovery, check finds no mismatch" readd_ram0
ktap_check "echo 0 > bitmap/backlog" sysfs_expect_errno 0 \
	$SYS/bitmap/backlog 0
reset_max_used > /dev/null
ktap_check "backlog 0: writes take the delay" slow_writes 50 10
ktap_check "backlog 0: max_backlog_used stays 0" max_used 0
ktap_check "echo 256 > bitmap/backlog" sysfs_expect_errno 0 \
	$SYS/bitmap/backlog 256
ktap_check "backlog 256 again: writes far below the delay" \
	fast_writes 70 10
ktap_check "md reads back what was written with and without backlog" \
	later_blocks
ktap_check "$partner assembles it" partner_assembles
ktap_check "$partner: backlog 256, every block intact" intact
mdadm --stop $MD > /dev/null 2>&1
dmsetup remove slow
ktap_check "back to $impl" switch_impl "$impl"
brd_teardown
ktap_finish
