#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 150
#
# mdadm --create raid1 with 2 and with 3 mirrors on RAM disks whose
# contents differ beforehand (zeros / random / other random), so the
# initial resync has real work to do.  Resync is capped at 10 MB/s so it
# is visibly in progress right after create.  After it completes:
#  - /proc/mdstat: "active raid1", [N/N] [U..U], no resync;
#  - mdadm --detail: State clean, Raid/Active/Working Devices N, Failed 0,
#    every member "active sync";
#  - mdadm --examine of each member: Version 1.2, the array's UUID, State
#    clean, Device Role "Active device <its slot>";
#  - the members' data areas (Data Offset from --examine, array size) are
#    byte-identical to each other and to what /dev/md0 reads.
. /harness/lib.sh

MD=/dev/md0

# resync_seen: mdstat shows a resync of md0 in progress
resync_seen() {
	mdstat_array md0
	mdstat_array md0 | grep -Eq 'resync *= *[0-9.]+%'
}

# check_mdstat N: "active raid1" and [N/N] [UUU..] with nothing running
check_mdstat() {
	_u=$(printf "%${1}s" | tr ' ' U)
	mdstat_array md0
	mdstat_array md0 | grep -q '^md0 : active raid1 ' &&
	mdstat_array md0 | grep -q "\[$1/$1\] \[$_u\]" &&
	! mdstat_array md0 | grep -Eq 'resync|recovery'
}

# check_detail N DEV...
check_detail() {
	_n=$1; shift
	mdadm --detail $MD > /tmp/detail || return 1
	cat /tmp/detail
	_rc=0
	for kv in "State:clean" "Raid Level:raid1" "Raid Devices:$_n" \
		  "Total Devices:$_n" "Active Devices:$_n" "Working Devices:$_n" \
		  "Failed Devices:0" "Spare Devices:0" "Version:1.2"; do
		_k=${kv%%:*} _v=${kv#*:}
		_got=$(md_field "$_k" < /tmp/detail)
		[ "$_got" = "$_v" ] || { echo "detail '$_k' is '$_got', want '$_v'"; _rc=1; }
	done
	_i=0
	for d in "$@"; do
		grep -Eq "^ +[0-9]+ +[0-9]+ +[0-9]+ +$_i +active sync +$d\$" /tmp/detail ||
			{ echo "$d is not 'active sync' in slot $_i"; _rc=1; }
		_i=$((_i + 1))
	done
	[ "$(grep -c 'active sync' /tmp/detail)" = "$_n" ] ||
		{ echo "want exactly $_n 'active sync' members"; _rc=1; }
	return $_rc
}

# check_examine DEV...: superblock of each member in slot order
check_examine() {
	_uuid=$(mdadm --detail $MD | md_field UUID)
	[ -n "$_uuid" ] || { echo "no UUID in --detail"; return 1; }
	_rc=0 _i=0
	for d in "$@"; do
		mdadm --examine "$d" > /tmp/examine || { echo "--examine $d failed"; return 1; }
		for kv in "Version:1.2" "Array UUID:$_uuid" "State:clean" \
			  "Raid Level:raid1" "Device Role:Active device $_i" \
			  "Array State:$(printf "%${#}s" | tr ' ' A)"; do
			_k=${kv%%:*} _v=${kv#*:}
			_got=$(md_field "$_k" < /tmp/examine)
			# "Array State : AA ('A' == active, ...)": first word only
			[ "$_k" = "Array State" ] && _got=${_got%% *}
			[ "$_got" = "$_v" ] || { echo "$d: '$_k' is '$_got', want '$_v'"; _rc=1; }
		done
		_i=$((_i + 1))
	done
	return $_rc
}

# check_identical DEV...: data areas of the members equal each other and md0
check_identical() {
	_sz=$(blockdev --getsz $MD)
	_ref=$(dd if=$MD bs=1M iflag=direct,count_bytes count=$((_sz * 512)) 2>/dev/null | md5sum | cut -d' ' -f1)
	echo "md0: $_sz sectors, md5 $_ref"
	_rc=0
	for d in "$@"; do
		_off=$(mdadm --examine "$d" | md_field "Data Offset" | cut -d' ' -f1)
		[ -n "$_off" ] || { echo "$d: no Data Offset"; return 1; }
		_sum=$(dd if="$d" bs=1M iflag=direct,skip_bytes,count_bytes skip=$((_off * 512)) \
			count=$((_sz * 512)) 2>/dev/null | md5sum | cut -d' ' -f1)
		echo "$d: data offset $_off sectors, md5 $_sum"
		[ "$_sum" = "$_ref" ] || _rc=1
	done
	return $_rc
}

# prepare DEV...: different content on each device (zeros on the first,
# 8 MiB of fresh random data at the start of the others), no superblock
prepare() {
	mdadm --zero-superblock "$@" 2>/dev/null
	for d in "$@"; do
		dd if=/dev/zero of="$d" bs=1M count=32 2>/dev/null || return 1
	done
	shift
	for d in "$@"; do
		dd if=/dev/urandom of="$d" bs=1M count=8 conv=notrunc 2>/dev/null || return 1
	done
}

ktap_plan 18
md_speed_limit 1000 10000
ktap_check "brd: three 32 MiB RAM disks" brd_setup 3 32768

for n in 2 3; do
	devs=/dev/ram0
	[ $n -ge 2 ] && devs="$devs /dev/ram1"
	[ $n -ge 3 ] && devs="$devs /dev/ram2"
	# shellcheck disable=SC2086
	prepare $devs
	# shellcheck disable=SC2086
	ktap_check "$n mirrors: mdadm --create" \
		mdadm --create $MD --run --level=1 --raid-devices=$n --metadata=1.2 $devs
	ktap_check "$n mirrors: initial resync in progress" resync_seen
	ktap_check "$n mirrors: resync completes" wait_resync md0 60
	ktap_check "$n mirrors: mdstat active raid1 [$n/$n]" check_mdstat $n
	# shellcheck disable=SC2086
	ktap_check "$n mirrors: mdadm --detail" check_detail $n $devs
	# shellcheck disable=SC2086
	ktap_check "$n mirrors: mdadm --examine of every member" check_examine $devs
	# shellcheck disable=SC2086
	ktap_check "$n mirrors: member data areas identical" check_identical $devs
	ktap_check "$n mirrors: mdadm --stop" mdadm --stop $MD
done
ktap_check "no array left" sh -c '! grep -q "^md0 " /proc/mdstat'
md_speed_limit
brd_teardown
ktap_finish
