#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 400
# SLOW: four backup-file reshapes under fio, about 2.5 min per implementation (TCG)
#
# RAID5 reshapes through mdadm's backup protocol (the same test for both
# implementations): the reshapes mdadm 4.2 does not do by moving the
# data offset, where it keeps a copy of the critical section itself (in
# a backup file, or at the end of a spare) and leaves a forked child
# watching the reshape through md/sync_completed, md/sync_max,
# md/suspend_lo and md/suspend_hi while it writes that copy.  The child
# is mdadm's own (MDADM_NO_SYSTEMCTL=1, as mdadm's test suite sets it:
# no mdadm-grow-continue@ service).  Members are 24 MiB RAM disks; each
# array is written with fio (crc32c) first, and fio writes and verifies
# a region of its own while each reshape runs.  A sampler logs what md
# shows of the protocol (sync_max, sync_min, suspend_lo/hi,
# sync_completed, reshape_position, sync_speed_min) whenever it changes.
# The reshapes run at a fixed sync_speed_min/max; mdadm's monitor
# raises sync_speed_min to 200000 for a chunk change, and the test puts
# the pace back once it has.  Four cases:
#  1. a chunk change in place (4 members, 1.2, 64K -> 128K) with
#     --backup-file: mdadm takes the backup path because a file is
#     given, forks its monitor, suspends writes over what it has not
#     backed up yet (the whole array at first) and removes the file once
#     it has seen the end.  The data offsets stay, chunk_size is new.
#  2. a shrink 5 -> 4 (1.2): --array-size to 3 members' data first,
#     then -n 4 --backup-file (mdadm 4.2 always needs one to shrink):
#     a backwards reshape, watched to its end; the fifth member is a
#     spare afterwards and the array keeps the size it was given.
#  3. a grow 4 -> 5 on 0.90 superblocks, whose data offset cannot move:
#     mdadm backs the critical section up to the end of the spare (no
#     file) and its monitor leaves once the reshape is past it.  The
#     superblocks say 0.91 while it runs (logged) and 0.90.00 after.
#  4. a chunk change (64K -> 32K, --backup-file), slowly, stopped half
#     way (once fio is done and md has recorded a position), then
#     mdadm --assemble --backup-file: mdadm restores what the backup
#     holds past the recorded position, starts the array read-only,
#     makes it active and forks a monitor again; the reshape resumes,
#     ends, and everything written before, during and after the stop
#     verifies.  In-tree md fails that last step (reported as TODO, not
#     counted): it refuses the lower sync_max mdadm's monitor writes
#     (EBUSY while a reshape runs; only "max" from mdadm's start
#     sticks), so it runs ahead of the backup, and for a chunk change in
#     place it records its position only every 10 s: it resumes from
#     there and reshapes again, from the "old" layout, what it had
#     already rewritten (and mdadm restores a backup it read after md
#     had rewritten that part).  This stack must pass it: it goes past
#     old data a crash would need only once mdadm's lower sync_max says
#     the backup holds it.  mdadm 4.2 --assemble itself dies of
#     SIGSEGV there after starting the array (see c4_assemble).
# Every time: the reshape shows in /proc/mdstat and ends, mdadm's
# monitor exits (and removes the backup file), fio saw no error, the
# geometry is the new one, everything written verifies and check finds
# mismatch_cnt 0.  About 2 min per implementation under TCG.
. /harness/lib.sh
. /harness/tests/raid5/common.sh

: "${IMPL:?}"
MD=/dev/md0
SYS=/sys/block/md0/md
BRD_KIB=24576
BK=/tmp/t119.bk
# mdadm forks its own monitor instead of asking systemd for one
export MDADM_NO_SYSTEMCTL=1
# sync_speed_min and _max (KiB/s of each member) during a reshape: a
# fixed pace (about 5 s for a member) so that it is seen running
PACE=5000
# the interrupted case runs slower, to be stopped half way
PACE_SLOW=1000

# ---- what md shows of the protocol ------------------------------------------

# watch_start: sample md0's reshape attributes every 0.1 s into
# /tmp/watch.log, a line "UPTIME attr:value ..." whenever one changes
watch_start() {
	rm -f /tmp/watch.stop
	: > /tmp/watch.log
	(
		prev=
		while [ ! -e /tmp/watch.stop ]; do
			cur=$(cd $SYS 2>/dev/null && awk '{ gsub(/ /, ""); printf "%s:%s ", FILENAME, $0 }' \
				sync_action reshape_position sync_completed sync_min \
				sync_max suspend_lo suspend_hi sync_speed_min 2>/dev/null)
			if [ "$cur" != "$prev" ]; then
				echo "$(cut -d' ' -f1 /proc/uptime) $cur" >> /tmp/watch.log
				prev=$cur
			fi
			sleep 0.1
		done
	) > /dev/null 2>&1 &
	WATCH_PID=$!
}

# watch_end: stop the sampler, print what it saw (first and last lines)
watch_end() {
	touch /tmp/watch.stop
	wait "$WATCH_PID"
	w_n=$(wc -l < /tmp/watch.log)
	echo "md0 as sampled ($w_n changes):"
	if [ "$w_n" -le 60 ]; then
		sed 's/^/  /' /tmp/watch.log
	else
		head -n 30 /tmp/watch.log | sed 's/^/  /'
		echo "  ..."
		tail -n 30 /tmp/watch.log | sed 's/^/  /'
	fi
	return 0
}

# watch_field ATTR: the distinct values ATTR took, in order
watch_field() {
	awk -v a="$1" '{
		for (i = 2; i <= NF; i++)
			if (index($i, a ":") == 1) {
				v = substr($i, length(a) + 2)
				if (v != last) print v
				last = v
			}
	}' /tmp/watch.log
}

# suspended_seen: some sample had suspend_hi above suspend_lo (mdadm's
# monitor held back writes over a window it had not backed up yet)
suspended_seen() {
	awk '{
		lo = hi = ""
		for (i = 2; i <= NF; i++) {
			if (index($i, "suspend_lo:") == 1) lo = substr($i, 12)
			if (index($i, "suspend_hi:") == 1) hi = substr($i, 12)
		}
		if (lo != "" && hi != "" && hi + 0 > lo + 0) print "  " $0
	}' /tmp/watch.log > /tmp/suspended
	echo "samples with suspend_hi > suspend_lo: $(wc -l < /tmp/suspended), the first:"
	head -n 3 /tmp/suspended
	[ -s /tmp/suspended ]
}

# protocol_summary: the values md showed of mdadm's writes, for the log
protocol_summary() {
	for p_a in sync_max sync_min suspend_lo suspend_hi sync_speed_min; do
		echo "$p_a took: $(watch_field $p_a | tr '\n' ' ')"
	done
}

# ---- mdadm's monitor ---------------------------------------------------------

# mdadm_pids: the mdadm processes running (the forked monitor)
mdadm_pids() {
	grep -l '^mdadm$' /proc/[0-9]*/comm 2>/dev/null | sed 's|/proc/\([0-9]*\)/comm|\1|'
}

# monitor_running [FILE]: mdadm --grow left a monitor running (and the
# backup FILE exists); the /run/mdadm link to it is listed
monitor_running() {
	m_p=$(mdadm_pids | tr '\n' ' ')
	echo "mdadm processes: ${m_p:-none}"
	# shellcheck disable=SC2012 # for the log only
	ls -l /run/mdadm/ 2>&1 | sed 's/^/  /'
	if [ -n "$1" ]; then
		ls -l "$1" || return 1
	fi
	[ -n "$m_p" ]
}

# monitor_done [FILE]: every mdadm process is gone (60 s at most) and the
# backup FILE with it (mdadm removes it when it has seen the end)
monitor_done() {
	for _i in $(seq 1 300); do
		[ -z "$(mdadm_pids)" ] && break
		sleep 0.2
	done
	m_p=$(mdadm_pids | tr '\n' ' ')
	[ -z "$m_p" ] || { echo "mdadm still running: $m_p"; return 1; }
	echo "the monitor exited"
	if [ -n "$1" ] && [ -e "$1" ]; then
		echo "$1 is still there"
		return 1
	fi
	return 0
}

# ---- arrays and data ---------------------------------------------------------

# fresh: no array, no superblock, no backup file, no mdadm monitor left
# from a case before
fresh() {
	for _p in $(mdadm_pids); do
		kill "$_p"
	done
	for _i in $(seq 1 50); do
		[ -z "$(mdadm_pids)" ] && break
		sleep 0.2
	done
	md_stop_all
	# shellcheck disable=SC2046
	mdadm --zero-superblock $(r5_members 5) 2>/dev/null
	rm -f $BK /run/mdadm/backup_file-md0
	md_speed_limit
	return 0
}

# create METADATA N: RAID5 of N members, 64K chunk, initial sync done
create() {
	fresh
	# shellcheck disable=SC2046
	mdadm --create $MD --run --level=5 --raid-devices="$2" --chunk=64 \
		--metadata="$1" $(r5_members "$2") || return 1
	wait_resync md0 600 || return 1
	cat /proc/mdstat
	echo "component_size $(cat $SYS/component_size) KiB, md0 $(blockdev --getsz $MD) sectors"
}

# data_write MIB: 4k random writes over [0, 8M), 1M sequential ones over
# [16M, MIB M); [8M, 16M) is for fio during the reshapes
data_write() {
	DATA_MIB=$1
	r5_fio write randwrite 4k 0 8M 31 &&
		r5_fio write write 1M 16M "$((DATA_MIB - 16))M" 32
}

# data_verify BG_END: all of data_write's regions and the fio regions of
# the reshapes from 8M to BG_END M verify
data_verify() {
	r5_fio verify randwrite 4k 0 8M 31 &&
		r5_fio verify write 1M 16M "$((DATA_MIB - 16))M" 32 &&
		r5_bg_verify 8 "$1"
}

# all_verifies BG_END: everything written verifies, check finds nothing
all_verifies() {
	data_verify "$1" && md_check_clean md0 300
}

# size_mib: md0's size in MiB
size_mib() { echo $(($(blockdev --getsize64 $MD) / 1048576)); }

# data_offsets: "DEV OFFSET" of every member's superblock
data_offsets() {
	echo 3 > /proc/sys/vm/drop_caches
	for o_d in $(r5_members "$1"); do
		echo "$o_d $(mdadm --examine "$o_d" | md_field "Data Offset" | awk '{ print $1 }')"
	done
}

# pace KIB_S: md0's sync_speed_min and _max
pace() {
	echo "$1" > $SYS/sync_speed_min && echo "$1" > $SYS/sync_speed_max
}

# repace KIB_S: mdadm's monitor raises sync_speed_min to 200000 for a
# reshape that keeps the number of data members (10 s at most after it
# is forked): put the pace back once it has, so the reshape stays
# observable (the monitor restores the value it read when it ends)
repace() {
	for _i in $(seq 1 100); do
		case "$(cat $SYS/sync_speed_min)" in 200000*) break ;; esac
		sleep 0.1
	done
	echo "sync_speed_min once mdadm's monitor has started: $(cat $SYS/sync_speed_min)"
	pace "$1"
}

# grow ARGS...: mdadm --grow md0 ARGS with the sampler on; what mdadm
# said in /tmp/grow.out, /proc/mdstat sampled as soon as it returns in
# /tmp/mdstat.grow
grow() {
	watch_start
	T_GROW=$(uptime_s)
	mdadm --grow $MD "$@" > /tmp/grow.out 2>&1
	g_rc=$?
	cat /tmp/grow.out
	cat /proc/mdstat > /tmp/mdstat.grow
	echo "mdadm --grow $* exit $g_rc; right after:"
	for g_a in sync_action reshape_position sync_max suspend_lo suspend_hi \
		raid_disks chunk_size; do
		echo "  $g_a: $(cat $SYS/$g_a 2>&1)"
	done
	[ $g_rc = 0 ]
}

# reshape_done: the reshape ran to its end (reshape_position none)
reshape_done() {
	wait_resync md0 300 || return 1
	echo "reshape over about $(($(uptime_s) - T_GROW)) s after mdadm --grow"
	r_p=$(cat $SYS/reshape_position)
	echo "sync_action $(cat $SYS/sync_action), reshape_position $r_p, sync_completed $(cat $SYS/sync_completed)"
	cat /proc/mdstat
	[ "$r_p" = none ]
}

# fio_end: the fio run of the reshape saw no error
fio_end() {
	r5_bg_end
}

# geometry_is WANT: r5_geometry is WANT ("raid5 4 131072 2")
geometry_is() {
	g_g=$(r5_geometry)
	echo "geometry: $g_g"
	[ "$g_g" = "$1" ]
}

# ---- case 1: chunk 64K -> 128K in place, backup file ------------------------

c1_create() { create 1.2 4 && data_write "$(size_mib)" && data_offsets 4 > /tmp/offsets.before; }

c1_grow() {
	r5_bg_start 8 8 || return 1
	pace $PACE && grow --chunk=128 --backup-file=$BK && repace $PACE
}

c1_offsets_same() {
	data_offsets 4 > /tmp/offsets.after
	paste /tmp/offsets.before /tmp/offsets.after |
		awk '{ print $1 ": data offset " $2 " -> " $4 " sectors" }'
	cmp -s /tmp/offsets.before /tmp/offsets.after
}

c1_shape() { geometry_is "raid5 4 131072 2" && c1_offsets_same; }

# sync_max_back: md0's sync_max is "max" again.  mdadm's monitor writes
# sync_max on every pass; md refuses a lower one while the reshape runs
# (in-tree: EBUSY), but a write that lands just after the reshape ended
# is taken and would stop the next check there (seen in-tree: 46592 of
# 47104 after the shrink, the critical section at its end).  Logged,
# not judged: it is the race of mdadm's loop, whichever md runs.
sync_max_back() {
	s_m=$(cat $SYS/sync_max)
	echo "sync_max once the monitor is gone: $s_m"
	[ "$s_m" = max ] || echo max > $SYS/sync_max
}

# monitor_end [FILE]: the sampler's log; mdadm's monitor exited (and
# removed FILE); sync_max back to max
monitor_end() {
	watch_end
	protocol_summary
	monitor_done "$@" || return 1
	sync_max_back
}

# ---- case 2: shrink 5 -> 4, array size first, backup file -------------------

c2_create() {
	create 1.2 5 || return 1
	C2_KIB=$(($(cat $SYS/component_size) * 3))
	data_write $((C2_KIB / 1024))
}

c2_array_size() {
	mdadm --grow $MD --array-size="$C2_KIB" || return 1
	s_b=$(blockdev --getsize64 $MD)
	echo "array_size $(cat $SYS/array_size), md0 $s_b bytes, want $((C2_KIB * 1024))"
	[ "$s_b" = $((C2_KIB * 1024)) ]
}

c2_grow() {
	r5_bg_start 8 8 || return 1
	pace $PACE && grow --raid-devices=4 --backup-file=$BK
}

# c2_shape: 4 raid disks, ram4 a spare, the size as set, nothing degraded
c2_shape() {
	for _i in $(seq 1 50); do
		grep -qx spare $SYS/dev-ram4/state 2>/dev/null && break
		sleep 0.2
	done
	mdadm --detail $MD > /tmp/detail || return 1
	s_rd=$(md_field "Raid Devices" < /tmp/detail)
	s_sp=$(md_field "Spare Devices" < /tmp/detail)
	s_b=$(blockdev --getsize64 $MD)
	echo "raid_disks $(cat $SYS/raid_disks), degraded $(cat $SYS/degraded), ram4 $(cat $SYS/dev-ram4/state 2>&1)"
	echo "--detail: $s_rd raid devices, $s_sp spare; md0 $s_b bytes, array_size $(cat $SYS/array_size)"
	[ "$(cat $SYS/raid_disks)" = 4 ] && [ "$s_rd" = 4 ] && [ "$s_sp" = 1 ] &&
		grep -qx spare $SYS/dev-ram4/state &&
		[ "$(cat $SYS/degraded)" = 0 ] && [ "$s_b" = $((C2_KIB * 1024)) ]
}

# ---- case 3: 0.90, grow 4 -> 5, critical section on the spare --------------

c3_create() {
	create 0.90 4 || return 1
	C3_CS=$(cat $SYS/component_size)
	data_write "$(size_mib)"
}

# sb_version DEV: the superblock version mdadm --examine reads on DEV
sb_version() {
	echo 3 > /proc/sys/vm/drop_caches
	mdadm --examine "$1" | md_field Version
}

c3_grow() {
	mdadm $MD --add /dev/ram4 || return 1
	r5_bg_start 8 8 || return 1
	pace $PACE && grow --raid-devices=5 || return 1
	# mdadm 4.2 cannot move a 0.90 data offset: it says it backs up
	grep -q 'critical section' /tmp/grow.out || return 1
	# what the superblock says while the reshape runs (a 0.90 reshape
	# is recorded as minor 91), for the log
	echo "while reshaping: ram0 superblock $(sb_version /dev/ram0)"
}

c3_shape() {
	s_sz=$(blockdev --getsz $MD)
	echo "raid_disks $(cat $SYS/raid_disks), degraded $(cat $SYS/degraded), md0 $s_sz sectors, want $((C3_CS * 8))"
	[ "$(cat $SYS/raid_disks)" = 5 ] && [ "$(cat $SYS/degraded)" = 0 ] &&
		[ "$s_sz" = $((C3_CS * 8)) ] && geometry_is "raid5 5 65536 2"
}

c3_version() {
	v_ok=0
	for v_d in $(r5_members 5); do
		v_v=$(sb_version "$v_d")
		echo "$v_d: Version $v_v"
		[ "$v_v" = 0.90.00 ] || v_ok=1
	done
	return $v_ok
}

# ---- case 4: chunk 64K -> 32K in place, stopped half way, resumed -----------

c4_create() { c1_create; }

# c4_grow: a slow reshape, fio at 8M
c4_grow() {
	r5_bg_start 8 8 || return 1
	pace $PACE_SLOW && grow --chunk=32 --backup-file=$BK && repace $PACE_SLOW
}

# c4_stop: once fio is done and the reshape has recorded a position,
# stop the array; the superblocks still record a reshape
c4_stop() {
	r5_bg_end || return 1
	r5_reshape_half_way || return 1
	cat /proc/mdstat
	mdadm --stop $MD || return 1
	watch_end
	protocol_summary
	# the monitor notices that the array went away; it must be gone
	# before the array is assembled again (it would write md0's
	# suspend_* and sync_action on its way out)
	for _i in $(seq 1 150); do
		[ -z "$(mdadm_pids)" ] && break
		sleep 0.2
	done
	c_p=$(mdadm_pids | tr '\n' ' ')
	echo "mdadm processes after the stop: ${c_p:-none}"
	[ -z "$c_p" ] || return 1
	ls -l $BK || return 1
	echo 3 > /proc/sys/vm/drop_caches
	mdadm --examine /dev/ram0 | grep -E 'Reshape|Chunk|New Chunk|Feature'
	mdadm --examine /dev/ram0 | grep -q 'Reshape pos'
}

# c4_assemble: mdadm --assemble --backup-file: it restores what the
# backup holds past the recorded position, starts md0 read-only, makes
# it active (the reshape resumes) and forks a monitor.  mdadm 4.2 then
# dies of SIGSEGV (exit 139) on its way out, whichever md runs:
# reshape_array() closes the array's fd before fork(), and Assemble's
# reopen_mddev() looks that closed fd's name up (fd2devnm: NULL).  The
# array is running by then, so that exit status is taken, with md0
# active, as success.
c4_assemble() {
	watch_start
	T_GROW=$(uptime_s)
	# shellcheck disable=SC2046
	mdadm --assemble $MD --backup-file=$BK $(r5_members 4) > /tmp/grow.out 2>&1
	a_rc=$?
	cat /tmp/grow.out
	cat /proc/mdstat > /tmp/mdstat.grow
	a_st=$(cat $SYS/array_state 2>&1)
	echo "mdadm --assemble exit $a_rc; array_state $a_st, reshape_position $(cat $SYS/reshape_position 2>&1)"
	case "$a_rc" in
	0) ;;
	139) echo "(mdadm 4.2's SIGSEGV after forking its monitor)" ;;
	*) return 1 ;;
	esac
	case "$a_st" in active|clean|active-idle) ;; *) return 1 ;; esac
	repace $PACE_SLOW && r5_bg_start 12 12
}

c4_shape() { geometry_is "raid5 4 32768 2" && c1_offsets_same; }

c4_verify() { data_verify 16; }

# c4_verify_case: what in-tree md does is reported, not counted: it
# refuses mdadm's lower sync_max while the reshape runs (EBUSY), so the
# reshape runs ahead of the monitor's backup, and records its position
# only every 10 s for a chunk change in place: the stripes it reshaped
# since are reshaped again from the old layout when it resumes (and
# the backup mdadm restores was read after md had rewritten it)
INTREE_C4="data around the stop point is reshaped twice: md ran ahead of mdadm's backup (a lower sync_max is refused while it runs), recorded its position only every 10 s, and mdadm restored a backup it had read after md rewrote that part"
c4_verify_case() {
	if [ "$IMPL" = intree ]; then
		c4_verify > /tmp/c4.out 2>&1
		v_rc=$?
		grep -vE '^ *([|]|[a-z]*lat |bw |iops|cpu|IO depths|submit|complete|issued|latency|lat [(])' /tmp/c4.out | sed 's/^/# /'
		if [ $v_rc = 0 ]; then
			ktap_ok "$1"
		else
			ktap_todo "$1" "in-tree: $INTREE_C4"
		fi
	else
		ktap_check "$1" c4_verify
	fi
}

ktap_plan 44
ktap_check "brd: five 24 MiB RAM disks" brd_setup 5 $BRD_KIB

c="1: chunk 64K -> 128K in place"
ktap_check "$c: 4 members (1.2), the whole array written" c1_create
ktap_check "$c: mdadm --grow --chunk=128 --backup-file under fio succeeds" c1_grow
ktap_check "$c: /proc/mdstat shows md0 reshaping" r5_reshaping
ktap_check "$c: mdadm left its monitor running, the backup file exists" \
	monitor_running $BK
ktap_check "$c: the reshape runs to its end" reshape_done
ktap_check "$c: the monitor saw the end: it exited and removed the file" monitor_end $BK
ktap_check "$c: writes were suspended over a window not yet backed up" \
	suspended_seen
ktap_check "$c: fio during the reshape: no error" fio_end
ktap_check "$c: chunk_size 131072, data offsets unchanged" c1_shape
ktap_check "$c: everything verifies, check: mismatch_cnt 0" all_verifies 12

c="2: shrink 5 -> 4"
ktap_check "$c: 5 members (1.2), what stays written" c2_create
ktap_check "$c: mdadm --grow --array-size to 3 members' data" c2_array_size
ktap_check "$c: mdadm --grow --raid-devices=4 --backup-file under fio succeeds" c2_grow
ktap_check "$c: /proc/mdstat shows md0 reshaping" r5_reshaping
ktap_check "$c: mdadm left its monitor running, the backup file exists" \
	monitor_running $BK
ktap_check "$c: the reshape runs to its end" reshape_done
ktap_check "$c: the monitor saw the end: it exited and removed the file" monitor_end $BK
ktap_check "$c: fio during the reshape: no error" fio_end
ktap_check "$c: raid_disks 4, the fifth member a spare, the size as set" c2_shape
ktap_check "$c: everything verifies, check: mismatch_cnt 0" all_verifies 12

c="3: 0.90, grow 4 -> 5"
ktap_check "$c: 4 members (0.90), the whole array written" c3_create
ktap_check "$c: spare added, mdadm --grow --raid-devices=5 under fio succeeds" c3_grow
ktap_check "$c: /proc/mdstat shows md0 reshaping" r5_reshaping
ktap_check "$c: the reshape runs to its end" reshape_done
ktap_check "$c: the monitor passed the critical section and exited" monitor_end
ktap_check "$c: fio during the reshape: no error" fio_end
ktap_check "$c: raid_disks 5, the array one member's data bigger" c3_shape
ktap_check "$c: every superblock says 0.90.00 again" c3_version
ktap_check "$c: everything verifies, check: mismatch_cnt 0" all_verifies 12

c="4: chunk 64K -> 32K, stopped half way"
ktap_check "$c: 4 members (1.2), the whole array written" c4_create
ktap_check "$c: mdadm --grow --chunk=32 --backup-file, slowly, under fio" c4_grow
ktap_check "$c: /proc/mdstat shows md0 reshaping" r5_reshaping
ktap_check "$c: mdadm left its monitor running, the backup file exists" \
	monitor_running $BK
ktap_check "$c: stopped half way, the superblocks record the reshape" c4_stop
ktap_check "$c: mdadm --assemble --backup-file succeeds, fio again" c4_assemble
ktap_check "$c: /proc/mdstat shows md0 reshaping again" r5_reshaping
ktap_check "$c: mdadm left a monitor running again, the backup file exists" \
	monitor_running $BK
ktap_check "$c: the reshape runs to its end" reshape_done
ktap_check "$c: the monitor saw the end: it exited and removed the file" monitor_end $BK
ktap_check "$c: fio during the resumed reshape: no error" fio_end
ktap_check "$c: chunk_size 32768, data offsets unchanged" c4_shape
c4_verify_case "$c: everything written before, during and after the stop verifies"
ktap_check "$c: check: mismatch_cnt 0" md_check_clean md0 300

dmesg | grep -E 'reshape|critical|capacity change' | sed 's/^/# dmesg: /'
fresh
brd_teardown
ktap_finish
