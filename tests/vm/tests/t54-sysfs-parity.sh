#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 180
#
# sysfs parity walk (issue 35): on a RAID1 of 2 and a RAID5 of 4 brd
# disks, both with an internal bitmap, every entry of md/, of one
# member's dev-*/ and of md/bitmap/ is recorded as one line
#
#   # PARITY level=L attr=KEY mode=M read=R valid=V wrote=W changed=C
#     after=A restore=S invalid=I iwrote=X ichanged=D
#
# (one line; KEY is NAME, dev-*/NAME or bitmap/NAME, a directory NAME/, a
# symbolic link has mode=link).  R and A are "ok:VALUE" (first line,
# 48 characters at most) or "errno:N"; V, S and I are "ok", "errno:N"
# or "skip:WHY" (ro: no write bit, destructive: never written here,
# unknown: no value known to be harmless); C and D are y, n or "-".
# Values are escaped: '%' as %25, a blank as %20, a tab as %09.
#
# Each writable attribute gets a VALID value (plan(), below: one that
# harms nothing, usually one that changes the setting, which is then
# restored) and an INVALID one.  Attributes that change the array's
# shape, state or on-disk layout are never written.
#
# The harness runs this once per implementation; tests/vm/sysfs_parity.py
# puts the two console logs side by side (make sysfs-parity), which is
# where the implementations are compared.  Here, for both, the same
# assertions: each walk gets through every entry and leaves the array
# as it found it (not degraded, no sync running, array_state clean or
# active).
. /harness/lib.sh

MD=/dev/md0
SYS=/sys/block/md0/md
SW=$HARNESS/tools/sysfs_write
ERR=/tmp/t54.err

# enc TEXT: the first line of TEXT, 48 characters at most, escaped
enc() {
	printf '%s\n' "$1" | head -n1 | tr -d '\r' | cut -c1-48 |
		sed 's/%/%25/g; s/ /%20/g; s/	/%09/g'
}

# msg_errno TEXT: the errno number a tool's error message names
msg_errno() {
	case "$1" in
	*"Operation not permitted"*) echo 1 ;;
	*"No such file"*) echo 2 ;;
	*"Input/output error"*) echo 5 ;;
	*"Permission denied"*) echo 13 ;;
	*"Device or resource busy"*|*"Resource busy"*) echo 16 ;;
	*"No such device"*) echo 19 ;;
	*"Invalid argument"*) echo 22 ;;
	*"No space left"*) echo 28 ;;
	*"Numerical result out of range"*) echo 34 ;;
	*"not supported"*|*"Not supported"*) echo 95 ;;
	*) echo unknown ;;
	esac
}

# rd FILE: RD is "ok:VALUE" or "errno:N", RD_RAW the value as read
rd() {
	if RD_RAW=$(head -n1 "$1" 2> "$ERR"); then
		RD="ok:$(enc "$RD_RAW")"
	else
		RD_RAW=
		RD="errno:$(msg_errno "$(cat "$ERR")")"
	fi
}

# wr FILE VALUE: "ok" or "errno:N" for one write(2) of VALUE (sysfs_write)
wr() {
	"$SW" "$1" "$2" > /dev/null 2>&1
	_e=$?
	if [ "$_e" = 0 ]; then echo ok; else echo "errno:$_e"; fi
}

# alt CUR A B: A, or B when the setting already is A
alt() {
	if [ "$1" = "$2" ]; then echo "$3"; else echo "$2"; fi
}

# plan KEY CUR: the values for attribute KEY (current value CUR): VV the
# valid one (or skip:WHY), RV what restores the setting afterwards (empty:
# nothing to restore), IV the invalid one.
plan() {
	VV='' RV='' IV=zz9
	case "$1" in
	# shape, state, members and on-disk layout: never written
	array_state|sync_action|level|raid_disks|new_dev|component_size|\
	array_size|layout|chunk_size|resync_start|metadata_version|\
	reshape_position|reshape_direction|suspend_lo|suspend_hi|\
	consistency_policy|bitmap_set_bits|\
	bitmap/location|bitmap/metadata|\
	dev-\*/state|dev-\*/slot|dev-\*/offset|dev-\*/new_offset|\
	dev-\*/size|dev-\*/recovery_start|dev-\*/bad_blocks|\
	dev-\*/unacknowledged_bad_blocks|dev-\*/ppl_sector|dev-\*/ppl_size)
		VV=skip:destructive ;;
	# md/
	safe_mode_delay) VV=$(alt "$2" 0.300 0.400) RV=$2 ;;
	safe_mode_adaptive) VV=$(alt "$2" 1 0) RV=$2 IV=2 ;;
	sync_speed_min) VV=2000 RV=system IV=-5 ;;
	sync_speed_max) VV=100000 RV=system IV=-5 ;;
	sync_io_depth) VV=8 RV=system IV=0 ;;
	sync_busy_pct) VV=50 RV=system IV=101 ;;
	sync_idle_ms) VV=100 RV=system IV=10001 ;;
	sync_force_parallel) VV=$(alt "$2" 1 0) RV=$2 IV=2 ;;
	# whole chunks of every chunk size used here (64 KiB), sync_max first
	sync_max) VV=8192 RV=max ;;
	sync_min) VV=2048 RV=$2 ;;
	max_read_errors) VV=$(alt "$2" 21 22) RV=$2 ;;
	fail_last_dev) VV=$(alt "$2" 1 0) RV=$2 ;;
	serialize_policy)
		# in-tree: RAID1 only, "n/a" elsewhere (nothing to restore)
		case "$2" in
		0|1) VV=$(alt "$2" 1 0) RV=$2 ;;
		*) VV=1 ;;
		esac ;;
	new_level) VV=$2 ;;
	# md/, RAID4/5/6
	stripe_cache_size) VV=$(alt "$2" 512 1024) RV=$2 IV=16 ;;
	stripe_cache_budget_kb) VV=$(alt "$2" 16384 32768) RV=$2 ;;
	preread_bypass_threshold) VV=$(alt "$2" 2 3) RV=$2 IV=999999 ;;
	skip_copy) VV=$(alt "$2" 1 0) RV=$2 ;;
	group_thread_cnt) VV=$(alt "$2" 1 0) RV=$2 IV=8193 ;;
	rmw_level) VV=$(alt "$2" 0 1) RV=$2 IV=3 ;;
	stripe_size|ppl_write_hint) VV=$2 ;;
	journal_mode) VV=write-through ;;
	# dev-*/
	dev-\*/errors) VV=$(alt "$2" 5 6) RV=$2 ;;
	# bitmap/
	bitmap/space) VV=$2 IV=0 ;;
	bitmap/time_base) VV=$(alt "$2" 6 7) RV=$2 ;;
	bitmap/backlog) VV=$2 IV=16384 ;;
	bitmap/chunksize) VV=$2 IV=100 ;;
	bitmap/can_clear) VV=$(alt "$2" false true) RV=$2 ;;
	bitmap/max_backlog_used) VV=0 ;;
	*) VV=skip:unknown ;;
	esac
}

# attr_row LEVEL KEY FILE: record one regular file
attr_row() {
	_m=0$(stat -c %a "$3")
	_read=skip:wo _cur=
	if [ $((_m & 0444)) -ne 0 ]; then
		rd "$3"
		_read=$RD _cur=$RD_RAW
	fi
	plan "$2" "$_cur"
	_v=skip:ro _c=- _after=- _rs=- _i=skip:ro _ic=-
	[ $((_m & 0222)) -ne 0 ] || VV=skip:ro
	case "$VV" in
	skip:*)
		_v=$VV _i=$VV VV='' IV='' ;;
	*)
		_v=$(wr "$3" "$VV")
		# changed: the whole first line, not just what is printed
		if [ "$_read" != skip:wo ]; then
			rd "$3"
			_after=$RD _c=y
			[ "$RD:$RD_RAW" = "$_read:$_cur" ] && _c=n
		fi
		if [ "$_v" = ok ] && [ -n "$RV" ]; then
			_rs=$(wr "$3" "$RV")
		fi
		# the invalid value, on the setting as restored
		_b=
		if [ "$_read" != skip:wo ]; then
			rd "$3"
			_b="$RD:$RD_RAW"
		fi
		_i=$(wr "$3" "$IV")
		if [ -n "$_b" ]; then
			rd "$3"
			_ic=y
			[ "$RD:$RD_RAW" = "$_b" ] && _ic=n
			# an invalid value taken: put the setting back
			[ $_ic = n ] || wr "$3" "${RV:-$_cur}" > /dev/null
		fi ;;
	esac
	ktap_diag "PARITY level=$1 attr=$2 mode=$_m read=$_read valid=$_v wrote=$(enc "$VV") changed=$_c after=$_after restore=$_rs invalid=$_i iwrote=$(enc "$IV") ichanged=$_ic"
}

# walk LEVEL DIR PREFIX: every entry of DIR; regular files get attr_row,
# links and subdirectories (not dev-* nor bitmap, walked on their own)
# a line of their own, not followed
walk() {
	for _f in "$2"/*; do
		[ -e "$_f" ] || [ -L "$_f" ] || continue
		_n=${_f##*/}
		if [ -L "$_f" ]; then
			_t=$(readlink "$_f")
			ktap_diag "PARITY level=$1 attr=$3$_n mode=link read=ok:$(enc "${_t##*/}") valid=skip:link wrote= changed=- after=- restore=- invalid=skip:link iwrote= ichanged=-"
		elif [ -d "$_f" ]; then
			# md/'s own dev-* and bitmap are walked on their own
			if [ -z "$3" ]; then
				case "$_n" in dev-*|bitmap) continue ;; esac
			fi
			ktap_diag "PARITY level=$1 attr=$3$_n/ mode=dir read=skip:dir valid=skip:dir wrote= changed=- after=- restore=- invalid=skip:dir iwrote= ichanged=-"
		elif [ -f "$_f" ]; then
			attr_row "$1" "$3$_n" "$_f"
		else
			continue
		fi
		ROWS=$((ROWS + 1))
	done
}

# parity LEVEL NDISKS MDADM_ARGS...: create the array, walk it, check
# that it is as it was
parity() {
	_lvl=$1 _nd=$2
	shift 2
	md_stop_all
	brd_setup "$_nd" 65536 || return 1
	_devs=
	_i=0
	while [ $_i -lt "$_nd" ]; do
		_devs="$_devs /dev/ram$_i"
		_i=$((_i + 1))
	done
	# shellcheck disable=SC2086 # one word per member
	mdadm --create $MD --run --assume-clean --level="$_lvl" \
		--raid-devices="$_nd" --metadata=1.2 --bitmap=internal \
		--bitmap-chunk=4M "$@" $_devs > "$ERR" 2>&1 ||
		{ sed 's/^/# /' "$ERR"; return 1; }
	_dev=$(for _d in "$SYS"/dev-*; do echo "$_d"; done | head -n1)
	[ -d "$_dev" ] || { ktap_diag "no dev-* under $SYS"; return 1; }
	ROWS=0
	ktap_diag "PARITY-BEGIN level=$_lvl impl=${IMPL:-unknown} kernel=$(uname -r)"
	walk "$_lvl" "$SYS" ""
	walk "$_lvl" "$_dev" "dev-*/"
	walk "$_lvl" "$SYS/bitmap" "bitmap/"
	ktap_diag "PARITY-END level=$_lvl impl=${IMPL:-unknown} rows=$ROWS"
	_st=$(cat "$SYS/array_state") _dg=$(cat "$SYS/degraded")
	_sa=$(md_sync_action md0)
	ktap_diag "after the walk: array_state $_st, degraded $_dg, sync_action $_sa"
	case "$_st" in clean|active|active-idle) ;; *) return 1 ;; esac
	[ "$_dg" = 0 ] && [ "$_sa" = idle ]
}

ktap_plan 2
md_speed_limit
if parity raid1 2; then
	ktap_ok "raid1: every md/, dev-*/ and bitmap/ entry walked"
else
	ktap_not_ok "raid1: every md/, dev-*/ and bitmap/ entry walked"
fi
if parity raid5 4 --chunk=64; then
	ktap_ok "raid5: every md/, dev-*/ and bitmap/ entry walked"
else
	ktap_not_ok "raid5: every md/, dev-*/ and bitmap/ entry walked"
fi
md_stop_all
brd_teardown
rm -f "$ERR"
ktap_finish
