#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 240
#
# Member failure and replacement on a 2-disk raid1 (RAM disks, no bitmap):
#  - `mdadm --fail` a member while fio writes (rate-limited so the failure
#    lands mid-write): fio sees no error and verifies; the array runs
#    degraded: [2/1] [U_], md/degraded 1, the member "faulty"; a poll(2)
#    on its dev-*/state is woken by the change, and one pass of
#    `mdadm --monitor` reports DegradedArray;
#  - --remove: the survivor's superblock is rewritten and the removed
#    member's number has role 0xffff there (what in-tree 6.1 writes for a
#    number no member holds; 0xfffe only while a faulty member is bound);
#  - --add of a blank spare: recovery is visible in mdstat and
#    completes ([2/2] [UU], degraded 0); the spare holds slot 1;
#  - the rebuilt member alone serves all the data: fail+remove the other
#    one and fio verify_only passes;
#  - re-adding the failed member without a bitmap is refused: its
#    superblock's events are behind and there is no bitmap to catch it up,
#    so it cannot rejoin in sync; mdadm 4.2 reports "--re-add ... is not
#    possible", exits 1, and the array is unchanged (nothing in the kernel
#    log);
#  - a plain --add of that former member is accepted: it becomes a spare
#    and a full recovery (visible in mdstat) rebuilds it into the free
#    slot; data verifies and `check` finds 0 mismatches.
. /harness/lib.sh

MD=/dev/md0
SIZE=32M

# degraded_as WANT_MDSTAT WANT_DEGRADED: e.g. "[2/1] [U_]" 1
degraded_as() {
	mdstat_array md0
	echo "degraded: $(cat /sys/block/md0/md/degraded)"
	mdstat_array md0 | grep -qF "$1" &&
	[ "$(cat /sys/block/md0/md/degraded)" = "$2" ]
}

member_state() { # DEV: its State column in --detail ("" if absent)
	mdadm --detail $MD | awk -v d="$1" '$NF == d { $1 = $2 = $3 = $4 = ""; $NF = ""; print }' |
		sed 's/^ *//; s/ *$//'
}

is_faulty() {
	_s=$(member_state "$1")
	echo "$1: '$_s'"
	[ "$_s" = faulty ]
}

not_listed() {
	mdadm --detail $MD | tail -n 4
	[ -z "$(member_state "$1")" ] && ! mdstat_array md0 | grep -q "${1#/dev/}\["
}

recovering() {
	mdstat_array md0
	mdstat_array md0 | grep -Eq 'recovery *= *[0-9.]+%'
}

in_sync_as() { # DEV SLOT
	mdadm --examine "$1" > /tmp/ex || return 1
	grep -E 'Device Role|State :|Events' /tmp/ex
	[ "$(member_state "$1")" = "active sync" ] &&
	[ "$(md_field "Device Role" < /tmp/ex)" = "Active device $2" ]
}

# refused CMD...: CMD must fail and leave the array's member list unchanged
refused() {
	_b=$(mdadm --detail $MD | grep -E '^ +[0-9-]+ +[0-9]+ +[0-9]+ ')
	"$@"
	_rc=$?
	_a=$(mdadm --detail $MD | grep -E '^ +[0-9-]+ +[0-9]+ +[0-9]+ ')
	echo "exit $_rc"
	[ $_rc -ne 0 ] || { echo "not refused"; return 1; }
	[ "$_b" = "$_a" ] || { echo "members changed:"; echo "$_b"; echo "->"; echo "$_a"; return 1; }
}

# sb_u DEV OFFSET TYPE: a field of DEV's 1.2 superblock (4 KiB in), read
# with O_DIRECT (md writes superblocks below the page cache)
sb_u() {
	dd if="$1" bs=4096 skip=1 count=1 iflag=direct 2>/dev/null |
		od -An -t"$3" -j "$2" -N "${3#?}" | tr -d ' '
}

# removed_role_free EVENTS: once ram0's superblock has been rewritten
# after the removal (events moved on from EVENTS), ram1's number (1) has
# role 0xffff there, as in-tree writes it for a number no member holds
removed_role_free() {
	_i=0
	while [ "$(sb_u /dev/ram0 200 u8)" = "$1" ] && [ $_i -lt 50 ]; do
		sleep 0.2
		_i=$((_i + 1))
	done
	_r=$(sb_u /dev/ram0 258 x2)
	echo "ram0: events $1 -> $(sb_u /dev/ram0 200 u8), dev_roles[1] = 0x$_r"
	[ "$_r" = ffff ]
}

# monitor_reports EVENT: one pass of mdadm --monitor over all arrays runs
# its --program with EVENT for md0
monitor_reports() {
	rm -f /tmp/monitor.events
	printf '#!/bin/sh\necho "$*" >> /tmp/monitor.events\n' > /tmp/monitor.sh
	chmod +x /tmp/monitor.sh
	mdadm --monitor --oneshot --scan --program=/tmp/monitor.sh
	cat /tmp/monitor.events
	grep -Eq "^$1 /dev/md0( |\$)" /tmp/monitor.events
}

ktap_plan 32
md_speed_limit
ktap_check "brd: three 64 MiB RAM disks" brd_setup 3 65536
ktap_check "mdadm --create raid1 ram0 ram1" \
	mdadm --create $MD --run --level=1 --raid-devices=2 --metadata=1.2 \
	/dev/ram0 /dev/ram1
ktap_check "initial resync completes" wait_resync md0 120

# --- fail a member under write load ---
w0=$(md_writes)
# shellcheck disable=SC2086 # FIO_VERIFY_ARGS is a list of options
(cd /tmp && exec fio --name=failwrite --filename=$MD --size=$SIZE $FIO_VERIFY_ARGS \
	--do_verify=1 --rate=,8m --eta=never) > /tmp/fio.out 2>&1 &
fio_pid=$!
ktap_check "fio is writing" wait_writes_start "$w0"
ktap_check "poll md/dev-ram1/state started" poll_bg state /sys/block/md0/md/dev-ram1/state
# shellcheck disable=SC2154 # set by poll_bg (lib.sh)
state_pid=$poll_pid
ktap_check "mdadm --fail ram1 while fio writes" mdadm $MD --fail /dev/ram1
ktap_check "poll on dev-ram1/state woken: faulty" poll_woken state "$state_pid" ".*faulty.*"
ktap_check "fio was still running when ram1 failed" kill -0 $fio_pid
wait $fio_pid
ktap_check "fio: no error, data verifies across the failure" fio_log_ok $?
ktap_check "degraded: [2/1] [U_], md/degraded 1" degraded_as "[2/1] [U_]" 1
ktap_check "ram1 is faulty in --detail" is_faulty /dev/ram1
ktap_check "mdadm --monitor --oneshot reports DegradedArray" monitor_reports DegradedArray

# --- remove, add a spare, rebuild ---
ev=$(sb_u /dev/ram0 200 u8)
ktap_check "mdadm --remove ram1" mdadm $MD --remove /dev/ram1
ktap_check "ram1 no longer listed" not_listed /dev/ram1
ktap_check "ram0's superblock: removed ram1's number has role 0xffff" removed_role_free "$ev"
md_speed_limit 1000 5000
ktap_check "mdadm --add ram2 (blank spare)" mdadm $MD --add /dev/ram2
sleep 1
ktap_check "recovery onto ram2 in progress" recovering
md_speed_limit
ktap_check "recovery completes" wait_resync md0 120
ktap_check "rebuilt: [2/2] [UU], md/degraded 0" degraded_as "[2/2] [UU]" 0
ktap_check "ram2 is active sync in slot 1" in_sync_as /dev/ram2 1

# --- the rebuilt member alone holds the data ---
ktap_check "fail+remove ram0" sh -c "mdadm $MD --fail /dev/ram0 && mdadm $MD --remove /dev/ram0"
ktap_check "degraded onto ram2: [2/1] [_U]" degraded_as "[2/1] [_U]" 1
ktap_check "fio verify_only from rebuilt ram2 alone" fio_verify_only $MD $SIZE

# --- re-add the failed member (no bitmap) ---
mdadm --examine /dev/ram0 | grep -E 'Events|Device Role|Array State' | sed 's/^/# ram0 stale sb: /'
ktap_check "mdadm --re-add ram0 without bitmap refused" refused mdadm $MD --re-add /dev/ram0
ktap_check "still degraded: [2/1] [_U]" degraded_as "[2/1] [_U]" 1
md_speed_limit 1000 5000
ktap_check "mdadm --add of the former member accepted" mdadm $MD --add /dev/ram0
sleep 1
ktap_check "full recovery onto ram0 in progress" recovering
md_speed_limit
ktap_check "recovery completes" wait_resync md0 120
ktap_check "rebuilt: [2/2] [UU], md/degraded 0" degraded_as "[2/2] [UU]" 0
ktap_check "ram0 is active sync in slot 0" in_sync_as /dev/ram0 0
ktap_check "fio verify_only" fio_verify_only $MD $SIZE
ktap_check "check: mirrors identical (mismatch_cnt 0)" md_check_clean md0
brd_teardown
ktap_finish
