#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 420
#
# mdadm --replace on RAID1 (issue 37): 3 mirrors on RAM disks, 1.2
# superblocks, spares beside them, data written and verified with fio.
#  - --replace with a spare md picks: while it is built the spare is
#    "replacement" in its dev-*/state, in the replaced member's slot and
#    (R) in /proc/mdstat, and the array stays whole (degraded 0); once
#    built it holds the slot in sync, the replaced member is faulty and
#    can be --removed, the data verifies;
#  - --replace --with names the spare, while fio writes and verifies;
#  - a replacement half built survives stop and assemble: it is still a
#    replacement in its slot, goes on and completes, data verifies;
#  - the member being replaced fails half way: the replacement takes
#    its slot and is rebuilt as an ordinary member, data verifies;
#  - the replacement fails half way: the member keeps its slot, the
#    array stays whole, and `check` finds 0 mismatches;
#  - handed over half built, both ways: a replacement that in-tree md
#    started is still one on this stack after assembly and completes,
#    and the reverse (for IMPL=intree: in-tree, unloaded and reloaded).
. /harness/lib.sh

MD=/dev/md0
SYS=/sys/block/md0/md
SIZE=24M

state_has() { # DEV WORD
	_s=$(cat "$SYS/dev-${1#/dev/}/state" 2> /dev/null)
	echo "${1#/dev/}: $_s"
	case ",$_s," in *,"$2",*) return 0 ;; esac
	return 1
}

slot_is() { # DEV SLOT
	_s=$(cat "$SYS/dev-${1#/dev/}/slot" 2> /dev/null)
	echo "${1#/dev/} slot: $_s"
	[ "$_s" = "$2" ]
}

# the one member whose state says replacement (empty if none)
replacement_dev() {
	for _d in "$SYS"/dev-*; do
		case ",$(cat "$_d/state")," in
		*,replacement,*) echo "/dev/${_d##*/dev-}" ;;
		esac
	done
}

# DEV took the slot over: no longer "replacement" (within 10 s: the
# md thread hands the slot over once it removed the replaced member)
took_over() {
	_n=0
	while state_has "$1" replacement > /dev/null && [ $_n -lt 20 ]; do
		sleep 0.5
		_n=$((_n + 1))
	done
	! state_has "$1" replacement
}

slow() { echo "${1:-500}" > $SYS/sync_speed_max; }
fast() { echo 200000 > $SYS/sync_speed_max; }

fresh_spare() { # DEV: wipe it and add it as a spare
	mdadm --zero-superblock "$1" > /dev/null 2>&1
	mdadm $MD --add "$1"
}

# exactly one spare: faulty members and other spares leave the array,
# one RAM disk outside it is wiped and added
one_spare() {
	for _d in "$SYS"/dev-*; do
		_s=$(cat "$_d/state")
		case ",$_s," in
		*,faulty,*|*,spare,*)
			[ "$(cat "$_d/slot")" = none ] &&
				mdadm $MD --remove "/dev/${_d##*/dev-}" > /dev/null ;;
		esac
	done
	for _d in /dev/ram0 /dev/ram1 /dev/ram2 /dev/ram3 /dev/ram4 /dev/ram5; do
		[ -e "$SYS/dev-${_d#/dev/}" ] || { fresh_spare $_d; return; }
	done
	return 1
}

create() {
	brd_setup 6 32768 || return 1
	mdadm --create $MD --run --level=1 --raid-devices=3 --metadata=1.2 \
		--assume-clean /dev/ram0 /dev/ram1 /dev/ram2 || return 1
	mdadm $MD --add /dev/ram3 /dev/ram4 || return 1
	fio_write_verify $MD $SIZE > /tmp/fio.out 2>&1
	fio_log_ok $?
}

REPL=
replace_building() {
	slow
	mdadm $MD --replace /dev/ram0 || return 1
	sleep 2
	REPL=$(replacement_dev)
	echo "replacement: '$REPL'"
	mdstat_array md0
	[ -n "$REPL" ] && slot_is "$REPL" 0 && state_has /dev/ram0 in_sync &&
		mdstat_array md0 | grep -q "${REPL#/dev/}\[[0-9]*\](R)" &&
		md_array_as "[3/3] [UUU]" 0
}

replace_done() {
	fast
	wait_resync md0 120 || return 1
	state_has /dev/ram0 faulty && slot_is "$REPL" 0 &&
		state_has "$REPL" in_sync && took_over "$REPL" &&
		md_array_as "[3/3] [UUU]" 0 &&
		fio_verify_only $MD $SIZE > /tmp/fio.out 2>&1 && fio_log_ok 0 &&
		mdadm $MD --remove /dev/ram0
}

replace_with_under_fio() {
	fresh_spare /dev/ram0 || return 1
	_spare=/dev/ram3
	[ "$REPL" = /dev/ram3 ] && _spare=/dev/ram4
	(sleep 1; mdadm $MD --replace /dev/ram1 --with $_spare) &
	fio_write_verify $MD $SIZE --rate=2m --randseed=109 > /tmp/fio.out 2>&1
	_rc=$?
	wait
	fio_log_ok $_rc || return 1
	wait_resync md0 120 || return 1
	took_over $_spare && slot_is $_spare 1 && state_has $_spare in_sync &&
		state_has /dev/ram1 faulty && mdadm $MD --remove /dev/ram1 &&
		fio_verify_only $MD $SIZE --randseed=109 > /tmp/fio.out 2>&1 &&
		fio_log_ok 0
}

# the members holding slots 0..2, in slot order
members() {
	for _s in 0 1 2; do
		for _d in "$SYS"/dev-*; do
			[ "$(cat "$_d/slot")" = "$_s" ] &&
				! grep -q replacement "$_d/state" &&
				echo "/dev/${_d##*/dev-}"
		done
	done
}

# start_replacing N: with one spare, the member of the N-th slot (1-based)
# is replaced slowly, half way after 2 s: HM the member, REPL the spare
# (not _m: switch_impl's helpers use it)
start_replacing() {
	one_spare || return 1
	HM=$(members | sed -n "${1}p")
	slow 300
	mdadm $MD --replace "$HM" || return 1
	sleep 2
	REPL=$(replacement_dev)
	echo "replacement of $HM: '$REPL'"
	[ -n "$REPL" ]
}

# the data of the --with case verifies
verified() {
	fio_verify_only $MD $SIZE --randseed=109 > /tmp/fio.out 2>&1 &&
		fio_log_ok 0
}

# reassemble_on IMPL: stop the array with a replacement half built for
# slot 0, assemble it on IMPL (loaded afresh), where the replacement is
# still one in slot 0 and completes
reassemble_on() {
	_hall=$(ls -d "$SYS"/dev-* | sed "s|.*/dev-|/dev/|")
	mdadm --stop $MD && switch_impl "$1" || return 1
	# the rebuild goes on at once: slow for everyone until it was seen
	md_speed_limit 100 300
	# shellcheck disable=SC2086
	mdadm --assemble $MD $_hall || return 1
	sleep 1
	md_speed_limit
	cat /proc/mdstat
	state_has "$REPL" replacement && slot_is "$REPL" 0 || return 1
	fast
	wait_resync md0 120 && took_over "$REPL" && slot_is "$REPL" 0 &&
		state_has "$REPL" in_sync && state_has "$HM" faulty &&
		mdadm $MD --remove "$HM" && md_check_clean md0 && verified
}

reassemble_half_built() { start_replacing 1 && reassemble_on "$impl"; }

member_fails_half_way() {
	start_replacing 2 && mdadm $MD --fail "$HM" || return 1
	sleep 1
	cat /proc/mdstat
	fast
	# the rebuild restarts for it once the failed member left the slot
	wait_resync md0 120 && took_over "$REPL" && sleep 1 &&
		wait_resync md0 120 || return 1
	slot_is "$REPL" 1 && state_has "$REPL" in_sync &&
		md_array_as "[3/3] [UUU]" 0 && mdadm $MD --remove "$HM" && verified
}

replacement_fails_half_way() {
	start_replacing 3 && mdadm $MD --fail "$REPL" || return 1
	fast
	wait_resync md0 120 || return 1
	cat /proc/mdstat
	state_has "$REPL" faulty && slot_is "$HM" 2 && state_has "$HM" in_sync &&
		md_array_as "[3/3] [UUU]" 0 && md_check_clean md0 && verified
}

# handover FROM TO: FROM starts replacing the member of slot 0 and stops
# the array half way; TO assembles it and completes the replacement
handover() {
	_hall=$(ls -d "$SYS"/dev-* | sed "s|.*/dev-|/dev/|")
	mdadm --stop $MD && switch_impl "$1" || return 1
	# shellcheck disable=SC2086
	mdadm --assemble $MD $_hall && start_replacing 1 && reassemble_on "$2"
}

impl=${IMPL:?}

ktap_plan 9
ktap_check "RAID1 of 3 with 2 spares, data written" create
ktap_check "--replace: a spare is built as the replacement, array whole" \
	replace_building
ktap_check "the replacement takes the slot, the replaced member is faulty and removable, data verifies" \
	replace_done
ktap_check "--replace --with the named spare while fio writes; data verifies" \
	replace_with_under_fio
ktap_check "a half-built replacement survives stop/assemble and completes" \
	reassemble_half_built
ktap_check "the replaced member fails half way: the replacement takes its slot" \
	member_fails_half_way
ktap_check "the replacement fails half way: the member stays, check clean" \
	replacement_fails_half_way
ktap_check "half built by in-tree md, completed by $impl" handover intree "$impl"
ktap_check "half built by $impl, completed by in-tree md" handover "$impl" intree
md_stop_all
brd_teardown
switch_impl "$impl" > /dev/null 2>&1
ktap_finish
