#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 240
#
# RAID1 life cycle as mdadm and monitoring tools see it, the same on
# in-tree md and the fork:
#  - notifications: while the initial resync runs (capped at 1 MB/s),
#    poll(2) on md/sync_action and on /proc/mdstat (tools/sysfs_poll; such
#    a poll wakes only when the kernel announces a change) and
#    `mdadm --wait` all wait; once the cap is lifted the resync ends, both
#    polls are woken (sync_action reads "idle"), `mdadm --wait` returns 0;
#    sync_completed read "N / M" during the resync, M the member size in
#    sectors, and reads "none" afterwards;
#  - readonly: `mdadm --readonly` makes array_state "readonly", mdstat
#    "(read-only)", writes fail; `mdadm --readwrite` makes it writable;
#  - read-auto: array_state "read-auto", mdstat "(auto-read-only)", reads
#    leave it so; the first write turns it active, and a poll on
#    array_state is woken by that;
#  - `mdadm --incremental`: the first member alone leaves the array
#    inactive, the second starts it [2/2] [UU] with no resync, data intact;
#  - a member left out at assembly: a degraded run with no writes leaves
#    both superblocks as they were, so assembling both afterwards gives the
#    whole array again, without mdadm warning of a "wrong state in
#    superblock"; after a degraded run with writes the left-out member's
#    number has role 0xffff in the survivor's superblock (what in-tree
#    6.1 writes for a number no member holds), assembling both leaves the
#    stale member out, again without that warning, and --add rebuilds it;
#    the same for the last member (slot 2) of a three-mirror array.
. /harness/lib.sh

MD=/dev/md0
S=/sys/block/md0/md
SIZE=16M

resyncing() {
	mdstat_array md0
	mdstat_array md0 | grep -Eq 'resync *= *[0-9.]+%'
}

# sync_completed_total: "N / M" with M = component size in sectors
sync_completed_total() {
	_c=$(cat $S/sync_completed)
	_m=$(( $(cat $S/component_size) * 2 ))
	echo "sync_completed '$_c', component_size $((_m / 2)) KiB"
	echo "$_c" | grep -Eq "^[0-9]+ / $_m\$"
}

state_is() { cat $S/array_state; grep -Eq "^($1)\$" $S/array_state; }

write_fails() { ! dd if=/dev/zero of=$MD bs=4k count=1 oflag=direct 2>/dev/null; }

md_of() { # DEV: the md array /proc/mdstat lists DEV in
	awk -v d="${1#/dev/}[" 'index($0, d) { print $1; exit }' /proc/mdstat
}

# role_is DEV NR HEX: dev_roles[NR] in DEV's 1.2 superblock (4 KiB in)
role_is() {
	_r=$(dd if="$1" bs=4096 skip=1 count=1 iflag=direct 2>/dev/null |
		od -An -tx2 -j $((256 + 2 * $2)) -N 2 | tr -d ' ')
	echo "$1: dev_roles[$2] = 0x$_r"
	[ "$_r" = "$3" ]
}

clean_and_verified() { # MD: idle, nothing to resync, fio data intact
	cat "/sys/block/$1/md/sync_action" "/sys/block/$1/md/resync_start"
	grep -q '^idle$' "/sys/block/$1/md/sync_action" || return 1
	grep -q '^none$' "/sys/block/$1/md/resync_start" || return 1
	if ! fio_verify_only "/dev/$1" $SIZE > /tmp/fio.out 2>&1; then
		cat /tmp/fio.out
		return 1
	fi
}

add_rebuilds() { # DEV: --add DEV to md0, recovery completes [2/2] [UU]
	mdadm $MD --add "$1" || return 1
	sleep 1
	wait_resync md0 120 || return 1
	mdstat_array md0
	mdstat_array md0 | grep -qF '[2/2] [UU]'
}

ktap_plan 41
md_speed_limit
ktap_check "brd: three 64 MiB RAM disks" brd_setup 3 65536
mdadm --zero-superblock /dev/ram0 /dev/ram1 2>/dev/null
dd if=/dev/urandom of=/dev/ram1 bs=1M count=8 2>/dev/null
md_speed_limit 1000 1000
ktap_check "mdadm --create raid1 (resync capped)" \
	mdadm --create $MD --run --level=1 --raid-devices=2 --metadata=1.2 \
	/dev/ram0 /dev/ram1
ktap_check "resync in progress" resyncing
ktap_check "sync_completed 'N / M', M the member size" sync_completed_total

# ---- notifications and mdadm --wait ----
ktap_check "poll md/sync_action started" poll_bg action $S/sync_action
# shellcheck disable=SC2154 # set by poll_bg (lib.sh)
action_pid=$poll_pid
ktap_check "poll /proc/mdstat started" poll_bg mdstat /proc/mdstat
# shellcheck disable=SC2154 # set by poll_bg (lib.sh)
mdstat_pid=$poll_pid
mdadm --wait $MD > /tmp/wait.out 2>&1 &
wait_pid=$!
sleep 1
ktap_check "mdadm --wait blocks while the resync runs" sh -c "kill -0 $wait_pid && grep -q resync $S/sync_action"
md_speed_limit
wait $wait_pid
wait_rc=$?
cat /tmp/wait.out
ktap_check "mdadm --wait returns 0 when the resync ends" sh -c "
	echo 'exit $wait_rc'; cat $S/sync_action; [ $wait_rc = 0 ] && grep -q '^idle$' $S/sync_action"
ktap_check "poll on sync_action woken: idle" poll_woken action "$action_pid" idle
ktap_check "poll on /proc/mdstat woken" poll_woken mdstat "$mdstat_pid"
ktap_check "sync_completed 'none' when idle" sh -c "cat $S/sync_completed; grep -q '^none$' $S/sync_completed"
ktap_check "fio write + verify" fio_write_verify $MD $SIZE

# ---- readonly / readwrite ----
ktap_check "mdadm --readonly: readonly" sh -c "mdadm --readonly $MD && cat $S/array_state && grep -q '^readonly$' $S/array_state"
ktap_check "mdstat says (read-only)" sh -c "grep '^md0 :' /proc/mdstat | grep -q '(read-only)'"
ktap_check "readonly: a write fails" write_fails
ktap_check "readonly: data verifies" fio_verify_only $MD $SIZE
ktap_check "mdadm --readwrite: writable again" sh -c "
	mdadm --readwrite $MD && cat $S/array_state &&
	grep -Eq '^(clean|active)$' $S/array_state &&
	dd if=/dev/zero of=$MD bs=4k count=1 seek=8192 oflag=direct"

# ---- read-auto ----
ktap_check "array_state read-auto" sh -c "echo read-auto > $S/array_state && grep -q '^read-auto$' $S/array_state"
ktap_check "mdstat says (auto-read-only)" sh -c "grep '^md0 :' /proc/mdstat | grep -q '(auto-read-only)'"
ktap_check "read-auto: reads leave it read-auto" sh -c "
	dd if=$MD of=/dev/null bs=1M count=8 iflag=direct && grep -q '^read-auto$' $S/array_state"
ktap_check "poll md/array_state started" poll_bg state $S/array_state
# shellcheck disable=SC2154 # set by poll_bg (lib.sh)
state_pid=$poll_pid
ktap_check "read-auto: first write succeeds" \
	dd if=/dev/zero of=$MD bs=4k count=1 seek=8192 oflag=direct
ktap_check "poll on array_state woken by the switch" poll_woken state "$state_pid"
ktap_check "read-auto: now active or clean" state_is "active|clean"
ktap_check "data verifies" fio_verify_only $MD $SIZE

# ---- mdadm --incremental ----
ktap_check "mdadm --stop" mdadm --stop $MD
ktap_check "--incremental ram0: array inactive" sh -c "
	mdadm --incremental /dev/ram0; cat /proc/mdstat
	md=\$(awk -v d='ram0[' 'index(\$0, d) { print \$1; exit }' /proc/mdstat)
	[ -n \"\$md\" ] && grep -q \"^\$md : inactive\" /proc/mdstat"
IMD=$(md_of /dev/ram0)
echo "# incremental array: $IMD"
ktap_check "--incremental ram1: started [2/2] [UU]" sh -c "
	mdadm --incremental /dev/ram1; cat /proc/mdstat
	grep -A1 '^$IMD : active raid1' /proc/mdstat | grep -qF '[2/2] [UU]'"
ktap_check "incremental: no resync, data verifies" clean_and_verified "$IMD"
ktap_check "stop the incremental array" mdadm --stop "/dev/$IMD"

# ---- a member left out at assembly ----
ktap_check "assemble --run with ram0 only, stop with no writes" sh -c "
	mdadm --assemble --run $MD /dev/ram0 && mdadm --stop $MD &&
	mdadm --examine /dev/ram0 /dev/ram1 | grep -E '^/dev|Events|Array State'"
ktap_check "assemble both again: whole [2/2] [UU], no 'wrong state' warning" sh -c "
	mdadm --assemble $MD /dev/ram0 /dev/ram1 > /tmp/asm.out 2>&1; cat /tmp/asm.out /proc/mdstat
	! grep -q 'wrong state' /tmp/asm.out &&
	grep -A1 '^md0 : active raid1' /proc/mdstat | grep -qF '[2/2] [UU]' &&
	mdadm --stop $MD"
ktap_check "assemble --run with ram0 only, write, stop" sh -c "
	mdadm --assemble --run $MD /dev/ram0 &&
	dd if=/dev/urandom of=$MD bs=4k count=16 seek=8192 oflag=direct 2>/dev/null &&
	mdadm --stop $MD"
ktap_check "ram0 records the left-out ram1's number (1) as 0xffff" role_is /dev/ram0 1 ffff
ktap_check "assemble both: ram1 left out, no 'wrong state' warning" sh -c "
	mdadm --assemble $MD /dev/ram0 /dev/ram1 > /tmp/asm.out 2>&1; cat /tmp/asm.out /proc/mdstat
	! grep -q 'wrong state' /tmp/asm.out &&
	grep -A1 '^md0 : active raid1' /proc/mdstat | grep -qF '[2/1] [U_]'"
ktap_check "--add ram1 rebuilds it" add_rebuilds /dev/ram1
ktap_check "data verifies" fio_verify_only $MD $SIZE
ktap_check "mdadm --stop" mdadm --stop $MD

# ---- the same with three mirrors, the last one (slot 2) left out ----
mdadm --zero-superblock /dev/ram0 /dev/ram1 /dev/ram2 2>/dev/null
ktap_check "3 mirrors: create --assume-clean, stop" sh -c "
	mdadm --create $MD --run --assume-clean --level=1 --raid-devices=3 \
		--metadata=1.2 /dev/ram0 /dev/ram1 /dev/ram2 && mdadm --stop $MD"
ktap_check "3 mirrors: run without ram2, no writes, then all three whole" sh -c "
	mdadm --assemble --run $MD /dev/ram0 /dev/ram1 && mdadm --stop $MD &&
	mdadm --assemble $MD /dev/ram0 /dev/ram1 /dev/ram2 > /tmp/asm.out 2>&1
	cat /tmp/asm.out /proc/mdstat
	! grep -q 'wrong state' /tmp/asm.out &&
	grep -A1 '^md0 : active raid1' /proc/mdstat | grep -qF '[3/3] [UUU]' &&
	mdadm --stop $MD"
ktap_check "3 mirrors: run without ram2, write, then all three: ram2 left out" sh -c "
	mdadm --assemble --run $MD /dev/ram0 /dev/ram1 &&
	dd if=/dev/urandom of=$MD bs=4k count=16 oflag=direct 2>/dev/null &&
	mdadm --stop $MD &&
	mdadm --assemble $MD /dev/ram0 /dev/ram1 /dev/ram2 > /tmp/asm.out 2>&1
	cat /tmp/asm.out /proc/mdstat
	! grep -q 'wrong state' /tmp/asm.out &&
	grep -A1 '^md0 : active raid1' /proc/mdstat | grep -qF '[3/2] [UU_]'"
brd_teardown
ktap_finish
