# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# mdadm --replace, the cases t109 (RAID1) and t110 (RAID4/5/6) share
# (sourced after lib.sh).  The caller sets LEVEL and NDEV (members);
# the array is md0 over /dev/ram0..NDEV-1, 1.2 superblocks, with two
# spares; NDEV + 3 RAM disks of RP_KIB KiB (32 MiB).
#
# Each case is a function for ktap_check:
#  - rp_create: the array, two spares, data written;
#  - rp_building: --replace with a spare md picks: while it is built the
#    spare is "replacement" in its dev-*/state, in the replaced member's
#    slot and (R) in /proc/mdstat, and the array stays whole;
#  - rp_done: once built it holds the slot in sync, the replaced member
#    is faulty and can be --removed, the data verifies;
#  - rp_with_under_fio: --replace --with names the spare, while fio
#    writes and verifies;
#  - rp_reassemble: a replacement half built survives stop and
#    assemble: it is still a replacement in its slot, goes on and
#    completes, data verifies;
#  - rp_member_fails: the member being replaced fails half way: the
#    replacement takes its slot and is rebuilt as an ordinary member;
#  - rp_replacement_fails: the replacement fails half way: the member
#    keeps its slot, the array stays whole, `check` finds 0 mismatches;
#  - rp_other_fails: another member fails while the replacement is
#    built: it completes from the rebuilt rows, data verifies;
#  - rp_handover FROM TO: FROM starts the replacement, TO assembles the
#    array half way and completes it (in-tree md and this stack, both
#    ways; IMPL=intree: in-tree, unloaded and reloaded).

. /harness/tests/raid5/common.sh	# r5_members

MD=/dev/md0
SYS=/sys/block/md0/md
SIZE=24M
NDISKS=$((NDEV + 3))
RP_KIB=${RP_KIB:-32768}
# "[N/N] [UU..U]": every slot held
WHOLE="[$NDEV/$NDEV] [$(printf "%${NDEV}s" | tr ' ' U)]"

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

# a spare of the array other than DEV
spare_dev() { # DEV
	for _d in "$SYS"/dev-*; do
		[ "/dev/${_d##*/dev-}" = "$1" ] && continue
		case ",$(cat "$_d/state")," in
		*,spare,*) echo "/dev/${_d##*/dev-}"; return ;;
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
	_i=0
	while [ $_i -lt $NDISKS ]; do
		[ -e "$SYS/dev-ram$_i" ] || { fresh_spare /dev/ram$_i; return; }
		_i=$((_i + 1))
	done
	return 1
}

rp_create() {
	brd_setup "$NDISKS" "$RP_KIB" || return 1
	# RAM disks read zeroes: data and parity agree from the start
	# shellcheck disable=SC2046
	mdadm --create $MD --run --level=$LEVEL --raid-devices=$NDEV \
		--metadata=1.2 --assume-clean $(r5_members "$NDEV") || return 1
	mdadm $MD --add "/dev/ram$NDEV" "/dev/ram$((NDEV + 1))" || return 1
	fio_write_verify $MD $SIZE > /tmp/fio.out 2>&1
	fio_log_ok $?
}

REPL=
rp_building() {
	slow
	mdadm $MD --replace /dev/ram0 || return 1
	sleep 2
	REPL=$(replacement_dev)
	echo "replacement: '$REPL'"
	mdstat_array md0
	[ -n "$REPL" ] && slot_is "$REPL" 0 && state_has /dev/ram0 in_sync &&
		mdstat_array md0 | grep -q "${REPL#/dev/}\[[0-9]*\](R)" &&
		md_array_as "$WHOLE" 0
}

rp_done() {
	fast
	wait_resync md0 120 || return 1
	state_has /dev/ram0 faulty && slot_is "$REPL" 0 &&
		state_has "$REPL" in_sync && took_over "$REPL" &&
		md_array_as "$WHOLE" 0 &&
		fio_verify_only $MD $SIZE > /tmp/fio.out 2>&1 && fio_log_ok 0 &&
		mdadm $MD --remove /dev/ram0
}

rp_with_under_fio() {
	fresh_spare /dev/ram0 || return 1
	_spare=$(spare_dev /dev/ram0)
	echo "spare: '$_spare'"
	[ -n "$_spare" ] || return 1
	(sleep 1; mdadm $MD --replace /dev/ram1 --with "$_spare") &
	fio_write_verify $MD $SIZE --rate=2m --randseed=109 > /tmp/fio.out 2>&1
	_rc=$?
	wait
	fio_log_ok $_rc || return 1
	wait_resync md0 120 || return 1
	took_over "$_spare" && slot_is "$_spare" 1 &&
		state_has "$_spare" in_sync && state_has /dev/ram1 faulty &&
		mdadm $MD --remove /dev/ram1 &&
		fio_verify_only $MD $SIZE --randseed=109 > /tmp/fio.out 2>&1 &&
		fio_log_ok 0
}

# the members holding slots 0..NDEV-1, in slot order
members() {
	_slot=0
	while [ $_slot -lt "$NDEV" ]; do
		for _d in "$SYS"/dev-*; do
			[ "$(cat "$_d/slot")" = "$_slot" ] &&
				! state_has "/dev/${_d##*/dev-}" replacement \
					> /dev/null &&
				echo "/dev/${_d##*/dev-}"
		done
		_slot=$((_slot + 1))
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

rp_reassemble() { start_replacing 1 && reassemble_on "$IMPL"; }

rp_member_fails() {
	start_replacing 2 && mdadm $MD --fail "$HM" || return 1
	sleep 1
	cat /proc/mdstat
	fast
	# the rebuild restarts for it once the failed member left the slot
	wait_resync md0 120 && took_over "$REPL" && sleep 1 &&
		wait_resync md0 120 || return 1
	slot_is "$REPL" 1 && state_has "$REPL" in_sync &&
		md_array_as "$WHOLE" 0 && mdadm $MD --remove "$HM" && verified
}

rp_replacement_fails() {
	start_replacing 3 && mdadm $MD --fail "$REPL" || return 1
	fast
	wait_resync md0 120 || return 1
	cat /proc/mdstat
	state_has "$REPL" faulty && slot_is "$HM" 2 && state_has "$HM" in_sync &&
		md_array_as "$WHOLE" 0 && md_check_clean md0 && verified &&
		# it still wants one: no more, the next spare is for others
		echo -want_replacement > "$SYS/dev-${HM#/dev/}/state"
}

# another member fails while the replacement is built: the copy goes on
# from what the other members rebuild; the replaced member still leaves
# for the replacement, the array is short the failed one until a spare
# rebuilds it
rp_other_fails() {
	start_replacing 1 || return 1
	_other=$(members | sed -n 3p)
	mdadm $MD --fail "$_other" || return 1
	fast
	wait_resync md0 120 && took_over "$REPL" || return 1
	cat /proc/mdstat
	slot_is "$REPL" 0 && state_has "$REPL" in_sync && state_has "$HM" faulty &&
		state_has "$_other" faulty &&
		md_array_as "[$NDEV/$((NDEV - 1))]" 1 && verified || return 1
	# whole again: a fresh spare takes the failed member's slot
	one_spare && sleep 1 && wait_resync md0 120 &&
		md_array_as "$WHOLE" 0 && md_check_clean md0 && verified
}

rp_handover() { # FROM TO
	_hall=$(ls -d "$SYS"/dev-* | sed "s|.*/dev-|/dev/|")
	mdadm --stop $MD && switch_impl "$1" || return 1
	# shellcheck disable=SC2086
	mdadm --assemble $MD $_hall && start_replacing 1 && reassemble_on "$2"
}

# rp_cases: the cases above as KTAP lines, for level name NAME (nine;
# ten with RP_OTHER=1)
rp_cases() { # NAME
	ktap_check "$1 of $NDEV with 2 spares, data written" rp_create
	ktap_check "$1: --replace: a spare is built as the replacement, array whole" \
		rp_building
	ktap_check "$1: the replacement takes the slot, the replaced member is faulty and removable, data verifies" \
		rp_done
	ktap_check "$1: --replace --with the named spare while fio writes; data verifies" \
		rp_with_under_fio
	ktap_check "$1: a half-built replacement survives stop/assemble and completes" \
		rp_reassemble
	ktap_check "$1: the replaced member fails half way: the replacement takes its slot" \
		rp_member_fails
	ktap_check "$1: the replacement fails half way: the member stays, check clean" \
		rp_replacement_fails
	[ "${RP_OTHER:-0}" = 1 ] &&
		ktap_check "$1: another member fails half way: the replacement completes from the rest" \
			rp_other_fails
	ktap_check "$1: half built by in-tree md, completed by $IMPL" \
		rp_handover intree "$IMPL"
	ktap_check "$1: half built by $IMPL, completed by in-tree md" \
		rp_handover "$IMPL" intree
	md_stop_all
	brd_teardown
	switch_impl "$IMPL" > /dev/null 2>&1
}
