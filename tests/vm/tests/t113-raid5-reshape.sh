#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 300
# SLOW: two grows (4 -> 5 -> 6) over the whole array under fio, about 1 min per implementation (TCG); make check grows 4 -> 5 in t114
#
# RAID5 reshape to more members without a backup file (acceptance of
# reshape, the same test for both implementations): a RAID5 of 4 on
# 24 MiB RAM disks, 1.2 superblocks, 64K chunk, created with
# --data-offset=2M so every member has head-space before its data; all
# of it written with fio (crc32c) first.  Then, twice (4 -> 5, 5 -> 6):
# a spare is added and `mdadm --grow --raid-devices=N` is asked without
# --backup-file, while fio writes and verifies a region of its own again
# and again until the reshape is over.  mdadm 4.2 then takes the
# data-offset path: it writes a lower md/dev-*/new_offset for every
# member (by backup_blocks / old data members: 512 sectors for 4 -> 5,
# 640 for 5 -> 6), raid_disks (SET_ARRAY_INFO) and sync_action=reshape,
# and returns; md moves the data down into the head-space, so nothing
# needs a backup.  Each time:
#  - mdadm --grow succeeds and /proc/mdstat shows md0 reshaping;
#  - the reshape runs to its end: sync_action idle, reshape_position none;
#  - fio during it saw no error;
#  - md/raid_disks is N, the array grew by one member's data
#    (component_size), mdadm --detail: N devices, all active;
#  - every member's superblock records a lower data offset than before
#    (the data moved down: the no-backup path was taken);
#  - everything written so far verifies.
# After the first reshape the space it added takes verified writes.  At
# the end `check` finds mismatch_cnt 0, and after stop and assemble the
# array has 6 members and everything verifies again.
. /harness/lib.sh
. /harness/tests/raid5/common.sh

: "${IMPL:?}"
MD=/dev/md0
SYS=/sys/block/md0/md
BRD_KIB=24576
# 4096 sectors, 4016 of them free before the data: both reshapes need
# 1152.  mdadm 4.2's own choice on 24 MiB members (1 MiB, 1968 free)
# would do too; set, so the test does not hang on that heuristic.
DOFF=2M
# sync_speed_min and _max (KiB/s of each member) for the reshapes: a
# fixed pace (about 5 s for the 22 MiB of a member), so the reshape
# neither ends before it is seen nor crawls at the speed_limit_min md
# falls to while fio writes
PACE=5000
# the regions written so far, "RW BS OFFSET SIZE SEED" a line (r5_fio),
# for verify_all
REGIONS=/tmp/t113.regions
: > $REGIONS

# region_write RW BS OFFSET SIZE SEED: write + verify, remembered
region_write() {
	r5_fio write "$@" && echo "$*" >> $REGIONS
}

verify_all() {
	while read -r v_rw v_bs v_off v_sz v_seed; do
		echo "verify: $v_rw $v_bs at $v_off, $v_sz, seed $v_seed"
		r5_fio verify "$v_rw" "$v_bs" "$v_off" "$v_sz" "$v_seed" \
			< /dev/null || return 1
	done < $REGIONS
}

# md0's members (/dev/ramN), in name order
in_array() {
	for m_d in "$SYS"/dev-*; do
		echo "/dev/${m_d##*/dev-}"
	done
}

# data_offset DEV: the data offset (sectors) DEV's superblock records
data_offset() {
	mdadm --examine "$1" | md_field "Data Offset" | awk '{ print $1 }'
}

# offsets: "DEV OFFSET" for every member, from the superblocks
offsets() {
	echo 3 > /proc/sys/vm/drop_caches
	for o_d in $(in_array); do
		echo "$o_d $(data_offset "$o_d")"
	done
}

# headroom: every member has head-space (mdadm --examine "Unused Space :
# before=S sectors") for both reshapes: 512 + 640 sectors
headroom() {
	for h_d in $(r5_members 4); do
		h_u=$(mdadm --examine "$h_d" | md_field "Unused Space")
		h_b=$(echo "$h_u" | sed -n 's/.*before=\([0-9]*\) sectors.*/\1/p')
		echo "$h_d: data offset $(data_offset "$h_d") sectors, unused space $h_u"
		[ -n "$h_b" ] && [ "$h_b" -ge 1152 ] || return 1
	done
}

create() {
	# shellcheck disable=SC2046
	mdadm --create $MD --run --level=5 --raid-devices=4 --chunk=64 \
		--metadata=1.2 --data-offset=$DOFF $(r5_members 4) || return 1
	wait_resync md0 120 || return 1
	cat /proc/mdstat
	SIZE0=$(blockdev --getsz $MD)
	echo "md0: $SIZE0 sectors, component_size $(cat $SYS/component_size) KiB"
}

# the whole array: 4k random writes over [0, 8M), 1M sequential ones
# from 16M to its end ([8M, 16M) is for the fio runs during the reshapes)
initial_data() {
	region_write randwrite 4k 0 8M 31 &&
	region_write write 1M 16M "$((SIZE0 / 2048 - 16))M" 32
}

# bg_fio_start OFF_M SEED: fio write + verify of 4 MiB at OFF_M MiB,
# rate limited, run again and again until bg_fio_end; returns once its
# writes reach md0
bg_fio_start() {
	b_w=$(md_writes)
	rm -f /tmp/bg.stop /tmp/bg.passes
	(
		n=0
		while [ ! -e /tmp/bg.stop ]; do
			(cd /tmp && fio --name=bg --filename=$MD --rw=randwrite \
				--bs=4k --ioengine=libaio --iodepth=16 --direct=1 \
				--size=4M --offset="$1M" --verify=crc32c \
				--verify_fatal=1 --randrepeat=1 --randseed="$2" \
				--verify_state_save=0 --do_verify=1 --rate=,2m \
				--eta=never) > /tmp/fio.out 2>&1
			rc=$?
			n=$((n + 1))
			echo "$n" > /tmp/bg.passes
			[ $rc = 0 ] || exit $rc
			grep -q 'err= *[1-9]' /tmp/fio.out && exit 1
		done
		exit 0
	) > /dev/null 2>&1 &
	bg_pid=$!
	BG="randwrite 4k $1M 4M $2"
	wait_writes_start "$b_w"
}

bg_fio_end() {
	touch /tmp/bg.stop
	wait "$bg_pid"
	b_rc=$?
	echo "fio passes (4 MiB written and verified each): $(cat /tmp/bg.passes)"
	fio_log_ok $b_rc && echo "$BG" >> $REGIONS
}

# sysfs_snap: what md0 shows of the reshape (for the log)
sysfs_snap() {
	for s_a in sync_action reshape_position reshape_direction raid_disks \
		component_size stripe_cache_size sync_speed_min sync_speed_max; do
		echo "  $s_a: $(cat "$SYS/$s_a" 2>&1)"
	done
	for s_d in "$SYS"/dev-*; do
		echo "  ${s_d##*/}: slot $(cat "$s_d/slot") offset $(cat "$s_d/offset") new_offset $(cat "$s_d/new_offset" 2>&1) state $(cat "$s_d/state")"
	done
}

# grow N: mdadm --grow --raid-devices=N, no backup file; /proc/mdstat
# sampled as soon as it returns (into /tmp/mdstat.grow)
grow() {
	SIZE_BEFORE=$(blockdev --getsz $MD)
	offsets > /tmp/offsets.before
	echo "before:"
	sysfs_snap
	echo "$PACE" > $SYS/sync_speed_min && echo "$PACE" > $SYS/sync_speed_max ||
		return 1
	T_GROW=$(uptime_s)
	mdadm --grow $MD --raid-devices="$1"
	g_rc=$?
	cat /proc/mdstat > /tmp/mdstat.grow
	echo "mdadm --grow exit $g_rc; right after:"
	sysfs_snap
	sed 's/^/  mdstat: /' /tmp/mdstat.grow
	[ $g_rc = 0 ]
}

reshape_done() {
	wait_resync md0 120 || return 1
	echo "reshape over after about $(($(uptime_s) - T_GROW)) s"
	r_p=$(cat $SYS/reshape_position)
	echo "sync_action $(cat $SYS/sync_action), reshape_position $r_p"
	cat /proc/mdstat
	[ "$r_p" = none ]
}

# shape_is N: raid_disks N, the array one member's data bigger than
# before, mdadm --detail agrees, nothing degraded
shape_is() {
	s_n=$(cat $SYS/raid_disks)
	s_cs=$(cat $SYS/component_size)
	s_sz=$(blockdev --getsz $MD)
	echo "raid_disks $s_n, component_size $s_cs KiB, md0 $SIZE_BEFORE -> $s_sz sectors"
	mdadm --detail $MD > /tmp/detail || return 1
	s_rd=$(md_field "Raid Devices" < /tmp/detail)
	s_ad=$(md_field "Active Devices" < /tmp/detail)
	s_st=$(md_field "State" < /tmp/detail)
	echo "--detail: $s_rd raid devices, $s_ad active, state $s_st, degraded $(cat $SYS/degraded)"
	[ "$s_n" = "$1" ] && [ "$s_sz" = $((SIZE_BEFORE + s_cs * 2)) ] &&
		[ "$s_rd" = "$1" ] && [ "$s_ad" = "$1" ] &&
		[ "$(cat $SYS/degraded)" = 0 ]
}

# offsets_down: every member's superblock records a lower data offset
# than before the reshape (the new member: than when it was added)
offsets_down() {
	offsets > /tmp/offsets.after
	o_ok=0
	while read -r o_dev o_new; do
		o_old=$(awk -v d="$o_dev" '$1 == d { print $2 }' /tmp/offsets.before)
		echo "$o_dev: data offset $o_old -> $o_new sectors"
		[ -n "$o_old" ] && [ -n "$o_new" ] && [ "$o_new" -lt "$o_old" ] ||
			o_ok=1
	done < /tmp/offsets.after
	return $o_ok
}

# grow_case N SPARE OFF_M: the steps of one reshape to N members
grow_case() {
	g="$(($1 - 1)) -> $1 members"
	ktap_check "$g: spare $2 added" sh -c "mdadm $MD --add $2 &&
		grep -q spare $SYS/dev-${2#/dev/}/state"
	ktap_check "$g: fio writing and verifying at $3M" bg_fio_start "$3" "$3"
	ktap_check "$g: mdadm --grow --raid-devices=$1 without a backup file succeeds" \
		grow "$1"
	ktap_check "$g: /proc/mdstat shows md0 reshaping" r5_reshaping
	ktap_check "$g: the reshape runs to its end (reshape_position none)" \
		reshape_done
	ktap_check "$g: fio during the reshape: no error" bg_fio_end
	ktap_check "$g: raid_disks $1, the array grew by one member's data" \
		shape_is "$1"
	ktap_check "$g: every member's data offset moved down (no backup needed)" \
		offsets_down
	ktap_check "$g: everything written so far verifies" verify_all
}

restart_verify() {
	mdadm --stop $MD || return 1
	# shellcheck disable=SC2046
	mdadm --assemble $MD $(r5_members 6) || return 1
	cat /proc/mdstat
	echo "raid_disks $(cat $SYS/raid_disks), degraded $(cat $SYS/degraded)"
	[ "$(cat $SYS/raid_disks)" = 6 ] && [ "$(cat $SYS/degraded)" = 0 ] &&
		verify_all
}

ktap_plan 25
ktap_check "brd: six 24 MiB RAM disks" brd_setup 6 $BRD_KIB
ktap_check "raid5: create 4 members, 64K chunk, data offset $DOFF" create
ktap_check "every member has head-space for two reshapes" headroom
ktap_check "the whole array written (fio, crc32c)" initial_data
grow_case 5 /dev/ram4 8
ktap_check "the added space takes verified writes" \
	region_write randwrite 64k "$((SIZE0 / 2048))M" 8M 33
grow_case 6 /dev/ram5 12
ktap_check "check: mismatch_cnt 0" md_check_clean md0 120
ktap_check "stop, assemble 6 members, everything verifies" restart_verify
dmesg | grep -E 'reshape|capacity change' | sed 's/^/# dmesg: /'
brd_teardown
ktap_finish
