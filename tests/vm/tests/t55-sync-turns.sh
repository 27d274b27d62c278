#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 300
#
# Passes of arrays that share a disk take turns (issue 35), as the
# Debian installer's layout needs: several RAID1 arrays on partitions of
# the same two disks.  Both implementations, the same assertions
# (documented behaviour of md: md.rst's sync_force_parallel and
# sync_completed, /proc/mdstat's resync=DELAYED):
#  - md0 and md1 are RAID1 arrays on partitions 1 and 2 of two RAM disks;
#  - md0's check pauses at sync_max 4 MiB, so it keeps running; a check
#    asked of md1 then waits: /proc/mdstat shows resync=DELAYED under
#    md1, its sync_completed reads "delayed", its sync_action "check",
#    and it stays so;
#  - sync_force_parallel refuses garbage (EINVAL); set to 1 on md1, the
#    waiting check goes on and finishes while md0 stays paused;
#  - with it back at 0, md1 waits again behind md0's paused check;
#    stopping md0's check (sync_action idle) lets md1's run to its end;
#  - both arrays' data compare clean at the end (mismatch_cnt 0);
#  - this stack only (in-tree has no md/stats): md1's pass counts md0's
#    foreground IO as busy, the disk being one (md/stats/fg_active_samples
#    of md1 does not move while nothing reads, and grows while only md0
#    is read).
. /harness/lib.sh

impl=${IMPL:?}

EINVAL=22
MIB=2048	# sectors
PART_SECTORS=61440	# 30 MiB

# le32 N: N as 4 little-endian bytes
le32() {
	printf "\\$(printf %03o $(($1 & 255)))\\$(printf %03o $((($1 >> 8) & 255)))"
	printf "\\$(printf %03o $((($1 >> 16) & 255)))\\$(printf %03o $((($1 >> 24) & 255)))"
}

# mbr_entry START SECTORS: one primary partition entry, type 0x83
mbr_entry() {
	printf '\000\000\000\000\203\000\000\000'
	le32 "$1"
	le32 "$2"
}

# two 30 MiB partitions on each of two 64 MiB RAM disks
disks_setup() {
	md_stop_all
	brd_teardown
	modprobe brd rd_nr=2 rd_size=65536 max_part=4 || return 1
	for _d in /dev/ram0 /dev/ram1; do
		_n=0
		while [ ! -b $_d ] && [ $_n -lt 50 ]; do sleep 0.1; _n=$((_n + 1)); done
		{ mbr_entry 2048 $PART_SECTORS
		  mbr_entry $((2048 + PART_SECTORS)) $PART_SECTORS
		  head -c 32 /dev/zero
		  printf '\125\252'; } |
			dd of=$_d bs=1 seek=446 conv=notrunc 2> /dev/null || return 1
		blockdev --rereadpt $_d || return 1
	done
	_n=0
	while [ ! -b /dev/ram1p2 ] && [ $_n -lt 50 ]; do sleep 0.1; _n=$((_n + 1)); done
	ls /dev/ram*p*
	[ -b /dev/ram0p1 ] && [ -b /dev/ram0p2 ] && [ -b /dev/ram1p1 ] &&
		[ -b /dev/ram1p2 ]
}

arrays_create() {
	mdadm --create /dev/md0 --run --assume-clean --level=1 \
		--raid-devices=2 --metadata=1.2 /dev/ram0p1 /dev/ram1p1 &&
	mdadm --create /dev/md1 --run --assume-clean --level=1 \
		--raid-devices=2 --metadata=1.2 /dev/ram0p2 /dev/ram1p2 &&
	fio_write_verify /dev/md0 16M --randseed=55 &&
		fio_write_verify /dev/md1 16M --randseed=56
}

sys() { echo "/sys/block/$1/md/$2"; }

# completed_is MD VALUE TENTHS: sync_completed starts with VALUE within
# TENTHS x 0.1 s ("delayed" or a sector count)
completed_is() {
	_n=0
	while [ $_n -lt "$3" ]; do
		case "$(cat "$(sys "$1" sync_completed)")" in
		"$2" | "$2 / "*) return 0 ;;
		esac
		sleep 0.1
		_n=$((_n + 1))
	done
	echo "$1 sync_completed '$(cat "$(sys "$1" sync_completed)")', want '$2'"
	return 1
}

md0_paused() {
	echo $((4 * MIB)) > "$(sys md0 sync_max)" &&
		echo check > "$(sys md0 sync_action)" || return 1
	completed_is md0 $((4 * MIB)) 300
}

# md1's check waits for md0's turn, and keeps waiting
md1_delayed() {
	echo check > "$(sys md1 sync_action)" || return 1
	completed_is md1 delayed 100 || return 1
	sleep 2
	completed_is md1 delayed 1 || return 1
	_a=$(md_sync_action md1)
	[ "$_a" = check ] || { echo "md1 sync_action '$_a'"; return 1; }
	mdstat_array md1
	mdstat_array md1 | grep -q 'resync=DELAYED' ||
		{ echo "no resync=DELAYED under md1"; return 1; }
	completed_is md0 $((4 * MIB)) 1
}

parallel_goes() {
	echo 1 > "$(sys md1 sync_force_parallel)" || return 1
	wait_resync md1 120 || return 1
	_m=$(cat "$(sys md1 mismatch_cnt)")
	[ "$_m" = 0 ] || { echo "md1 mismatch_cnt $_m"; return 1; }
	# md0 never moved meanwhile
	completed_is md0 $((4 * MIB)) 1 &&
		[ "$(md_sync_action md0)" = check ]
}

stop_holder() {
	echo 0 > "$(sys md1 sync_force_parallel)" || return 1
	md1_delayed || return 1
	echo idle > "$(sys md0 sync_action)" || return 1
	wait_resync md1 120 || return 1
	_m=$(cat "$(sys md1 mismatch_cnt)")
	[ "$_m" = 0 ] || { echo "md1 mismatch_cnt $_m"; return 1; }
	echo "md0 $(md_sync_action md0), md1 $(md_sync_action md1)"
}

fork_only() { # name cmd...
	_n=$1
	shift
	if [ "$impl" = fork ]; then
		ktap_check "$_n" "$@"
	else
		ktap_skip "$_n" "in-tree md has no md/stats"
	fi
}

fg_samples() { cat "$(sys md1 stats/fg_active_samples)"; }

# (wait_resync and completed_is set _a, _n...: names of our own here)
neighbour_busy() {
	echo 2000 > "$(sys md1 sync_speed_max)" &&
		echo check > "$(sys md1 sync_action)" || return 1
	sleep 1
	_nb0=$(fg_samples)
	sleep 2
	_nb1=$(fg_samples)
	(cd /tmp && fio --name=nb --filename=/dev/md0 --readonly \
		--rw=randread --bs=4k --ioengine=libaio --iodepth=1 --direct=1 \
		--size=16M --time_based --runtime=3 > /tmp/nb.out 2>&1)
	_nbrc=$?
	_nb2=$(fg_samples)
	_nbact=$(md_sync_action md1)
	echo idle > "$(sys md1 sync_action)"
	echo system > "$(sys md1 sync_speed_max)"
	echo "md1 ($_nbact) fg_active_samples: $_nb0 -> $_nb1 while quiet," \
		"-> $_nb2 while md0 was read; fio exit $_nbrc"
	wait_resync md1 60 || return 1
	[ "$_nbrc" = 0 ] && [ "$_nbact" = check ] && [ "$_nb1" = "$_nb0" ] &&
		[ "$_nb2" -gt "$_nb1" ]
}

both_clean() {
	echo max > "$(sys md0 sync_max)" &&
		echo 0 > "$(sys md0 sync_min)" || return 1
	md_check_clean md0 && md_check_clean md1
}

ktap_plan 10
ktap_check "two RAM disks, two partitions each" disks_setup
ktap_check "RAID1 md0 on the first partitions, md1 on the second" arrays_create
ktap_check "md0: a check paused at sync_max 4 MiB" md0_paused
ktap_check "md1: a check waits (resync=DELAYED, sync_completed delayed)" \
	md1_delayed
ktap_check "sync_force_parallel: garbage is EINVAL" \
	sysfs_expect_errno $EINVAL "$(sys md1 sync_force_parallel)" 2
ktap_check "sync_force_parallel 1: md1's check runs to its end beside md0's" \
	parallel_goes
ktap_check "sync_force_parallel 0: md1 waits again; md0's check stopped, md1's runs" \
	stop_holder
ktap_check "both arrays compare clean" both_clean
fork_only "fork: md1's pass counts md0's foreground IO as busy" neighbour_busy
ktap_check "stop both" sh -c "mdadm --stop /dev/md1 && mdadm --stop /dev/md0"
brd_teardown
ktap_finish
