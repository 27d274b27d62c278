# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# Helpers shared by the t6x RAID4/5/6 tests (sourced after lib.sh).
# Arrays are md0 over /dev/ram0..N-1.

R5_MD=/dev/md0

# r5_members N: "/dev/ram0 ... /dev/ramN-1"
r5_members() {
	_l=
	_i=0
	while [ $_i -lt "$1" ]; do
		_l="$_l /dev/ram$_i"
		_i=$((_i + 1))
	done
	echo "$_l"
}

# r5_fio MODE RW BS OFFSET SIZE SEED: one job, iodepth 16; MODE write
# (write + verify) or verify (verify_only).
r5_fio() {
	_mode=$1 _rw=$2 _bs=$3 _off=$4 _sz=$5 _seed=$6
	if [ "$_mode" = write ]; then set -- --do_verify=1; else set -- --verify_only; fi
	(cd /tmp && fio --name="c$_bs" --filename=$R5_MD --rw="$_rw" --bs="$_bs" \
		--ioengine=libaio --iodepth=16 --direct=1 --size="$_sz" \
		--offset="$_off" --verify=crc32c --verify_fatal=1 \
		--randrepeat=1 --randseed="$_seed" --verify_state_save=0 \
		--eta=never "$@") > /tmp/fio.out 2>&1
	fio_log_ok $?
}

# r5_data MODE: 4k random writes over [0, 8M), 1M sequential over [8M, 16M)
r5_data() {
	r5_fio "$1" randwrite 4k 0 8M 31 && r5_fio "$1" write 1M 8M 8M 32
}

# r5_create LEVEL LAYOUT DISKS CHUNK_KIB: mdadm --create (LAYOUT
# "default": mdadm's choice; mdadm takes no --layout for RAID4), wait for
# the initial sync
r5_create() {
	_lay="--layout=$2"
	[ "$2" = default ] && _lay=
	# shellcheck disable=SC2046,SC2086 # word splitting on purpose
	mdadm --create $R5_MD --run --level="$1" $_lay \
		--raid-devices="$3" --chunk="$4" --metadata=1.2 \
		$(r5_members "$3") || return 1
	wait_resync md0 600 || return 1
	cat /proc/mdstat
}

# r5_make MAKER LEVEL LAYOUT DISKS CHUNK: create with MAKER, write, stop
r5_make() {
	switch_impl "$1" || return 1
	# shellcheck disable=SC2046
	mdadm --zero-superblock $(r5_members "$4") 2>/dev/null
	r5_create "$2" "$3" "$4" "$5" || return 1
	r5_data write || return 1
	mdadm --stop $R5_MD
}

# r5_take USER DISKS: assemble with USER, verify, check 0, stop
r5_take() {
	switch_impl "$1" || return 1
	# shellcheck disable=SC2046
	mdadm --assemble $R5_MD $(r5_members "$2") || return 1
	cat /proc/mdstat
	_d=$(cat /sys/block/md0/md/degraded)
	[ "$_d" = 0 ] || { echo "degraded $_d after assemble"; return 1; }
	r5_data verify || return 1
	md_check_clean md0 600 || return 1
	mdadm --stop $R5_MD
}

# r5_handover MAKER USER LEVEL LAYOUT DISKS CHUNK
r5_handover() {
	r5_make "$1" "$3" "$4" "$5" "$6" && r5_take "$2" "$5"
}

# r5_compat_case IMPL PARTNER LEVEL LAYOUT DISKS CHUNK: both directions,
# two KTAP results
r5_compat_case() {
	_what="raid$3 $4 $5 disks ${6}K"
	ktap_check "$_what: made by $1, $2 assembles, verifies, check 0" \
		r5_handover "$1" "$2" "$3" "$4" "$5" "$6"
	ktap_check "$_what: made by $2, $1 assembles, verifies, check 0" \
		r5_handover "$2" "$1" "$3" "$4" "$5" "$6"
}

# ---- members through device-mapper -----------------------------------------

# r5_dm_setup N: members dI (I < N) over /dev/ramI through device-mapper:
# dI is a dm-delay (0 ms) device whose reads go to table dIr and writes to
# table dIw, both linear over ramI, so reads and writes can be made to
# fail on their own (dm_swap dIr|dIw "$(lin_err /dev/ramI START LEN)").
# Sets SZ (member size in sectors).  Run with DM_DISABLE_UDEV=1.
r5_dm_setup() {
	modprobe dm-mod && modprobe dm-delay || return 1
	SZ=$(blockdev --getsz /dev/ram0)
	_i=0
	while [ $_i -lt "$1" ]; do
		dmsetup create "d${_i}r" --table "0 $SZ linear /dev/ram$_i 0" &&
		dmsetup create "d${_i}w" --table "0 $SZ linear /dev/ram$_i 0" &&
		dmsetup create "d$_i" --table \
			"0 $SZ delay /dev/mapper/d${_i}r 0 0 /dev/mapper/d${_i}w 0 0" ||
			return 1
		_i=$((_i + 1))
	done
}

# r5_dm_heal I: member I reads and writes ramI again
r5_dm_heal() {
	dm_swap "d${1}r" "0 $SZ linear /dev/ram$1 0" &&
	dm_swap "d${1}w" "0 $SZ linear /dev/ram$1 0"
}

r5_dm_teardown() { # N
	_i=0
	while [ $_i -lt "$1" ]; do
		for _n in "d$_i" "d${_i}r" "d${_i}w"; do
			dmsetup remove "$_n" 2>/dev/null
		done
		_i=$((_i + 1))
	done
	return 0
}

# r5_dm_members N: "/dev/mapper/d0 ... /dev/mapper/dN-1"
r5_dm_members() {
	_l=
	_i=0
	while [ $_i -lt "$1" ]; do
		_l="$_l /dev/mapper/d$_i"
		_i=$((_i + 1))
	done
	echo "$_l"
}

# r5_range_md5 DEV SECTOR COUNT: md5 of a range, read with O_DIRECT (md's
# writes bypass DEV's page cache)
r5_range_md5() {
	dd if="$1" bs=4k iflag=direct,skip_bytes,count_bytes \
		skip=$(($2 * 512)) count=$(($3 * 512)) 2>/dev/null |
		md5sum | cut -d' ' -f1
}

# r5_bg_start OFF_M SEED: fio write + verify of 4 MiB at OFF_M MiB of md0
# in the background, rate limited (2 MB/s) so it overlaps a request
# made meanwhile; returns once its writes reach md0.  r5_bg_end waits
# for it and checks its log.
r5_bg_start() {
	_w=$(md_writes)
	(cd /tmp && fio --name=bg --filename=$R5_MD --rw=randwrite --bs=4k \
		--ioengine=libaio --iodepth=16 --direct=1 --size=4M \
		--offset="$1M" --verify=crc32c --verify_fatal=1 --randrepeat=1 \
		--randseed="$2" --verify_state_save=0 --do_verify=1 \
		--rate=,2m --eta=never) > /tmp/fio.out 2>&1 &
	R5_BG_PID=$!
	wait_writes_start "$_w"
}

r5_bg_end() {
	wait "$R5_BG_PID"
	fio_log_ok $?
}

# r5_bg_verify FIRST END: verify the regions r5_bg_start wrote, 4 MiB at
# FIRST, FIRST + 4, ... below END MiB (each with its offset as seed)
r5_bg_verify() {
	_o=$1
	while [ "$_o" -lt "$2" ]; do
		r5_fio verify randwrite 4k "${_o}M" 4M "$_o" || return 1
		_o=$((_o + 4))
	done
}

# r5_geometry: "level raid_disks chunk_size layout" of md0 from sysfs
r5_geometry() {
	_s=/sys/block/md0/md
	echo "$(cat $_s/level) $(cat $_s/raid_disks) $(cat $_s/chunk_size) $(cat $_s/layout)"
}

# r5_taken_over LEVEL DISKS LAYOUT DEGRADED: after a takeover sysfs
# agrees ("-" for no degraded file) and md0's size is $SIZE still
r5_taken_over() {
	_s=/sys/block/md0/md
	_d=$(cat $_s/degraded 2>/dev/null || echo -)
	_g="$(cat $_s/level) $(cat $_s/raid_disks) $(cat $_s/layout) $_d"
	_z=$(blockdev --getsz /dev/md0)
	echo "level raid_disks layout degraded: $_g; size $_z (was $SIZE)"
	[ "$_g" = "$1 $2 $3 $4" ] && [ "$_z" = "$SIZE" ]
}

# r5_reshaping: md0 showed a reshape in /proc/mdstat: in the sample the
# caller took into /tmp/mdstat.grow when mdadm returned, or (md may
# start its sync thread a moment after sync_action=reshape) one taken
# every 0.2 s after it, 10 s at most
r5_reshaping() {
	_i=0
	until awk '$1 == "md0" { p = 1 } p && /^ *$/ { exit } p' /tmp/mdstat.grow |
		grep -q 'reshape'; do
		_i=$((_i + 1))
		[ $_i -gt 50 ] && { cat /tmp/mdstat.grow; return 1; }
		sleep 0.2
		cat /proc/mdstat > /tmp/mdstat.grow
	done
	awk '$1 == "md0" { p = 1 } p && /^ *$/ { exit } p' /tmp/mdstat.grow
}

# r5_settled: md0 runs no reshape or rebuild and nothing is degraded
# (one pass may start another: up to four rounds)
r5_settled() {
	_s=/sys/block/md0/md
	for _r in 1 2 3 4; do
		wait_resync md0 600 || return 1
		sleep 2
		[ "$(cat $_s/sync_action)" = idle ] &&
			[ "$(cat $_s/reshape_position)" = none ] &&
			[ "$(cat $_s/degraded)" = 0 ] && return 0
	done
	grep -H . $_s/sync_action $_s/reshape_position $_s/degraded
	return 1
}

# r5_grow_under_fio OFF_M WANT ARGS...: mdadm --grow md0 ARGS while
# r5_bg_start writes 4 MiB at OFF_M (seed OFF_M); then every reshape and
# rebuild ends, mdadm's own last step too (the level it writes once a
# restripe is done), fio saw no error and the geometry is WANT
r5_grow_under_fio() {
	_off=$1 _want=$2
	shift 2
	r5_bg_start "$_off" "$_off" || return 1
	mdadm --grow $R5_MD "$@" 2>&1
	_rc=$?
	cat /proc/mdstat
	[ $_rc = 0 ] && r5_settled || { r5_bg_end; return 1; }
	for _i in $(seq 1 100); do
		[ "$(r5_geometry)" = "$_want" ] && break
		sleep 0.2
	done
	r5_settled || { r5_bg_end; return 1; }
	r5_bg_end || return 1
	_g=$(r5_geometry)
	echo "geometry: $_g"
	[ "$_g" = "$_want" ]
}

# r5_reshape_half_way: md0's reshape has recorded a position past its
# start and is not done (within 30 s)
r5_reshape_half_way() {
	for _i in $(seq 1 300); do
		_p=$(cat /sys/block/md0/md/reshape_position)
		case "$_p" in
		none) echo "reshape already done"; return 1 ;;
		0) ;;
		*) echo "reshape_position $_p"; return 0 ;;
		esac
		sleep 0.1
	done
	echo "reshape_position still $_p"
	return 1
}
