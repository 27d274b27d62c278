#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 180
#
# md core life cycle and sysfs semantics, identical on in-tree md and
# the fork: new_array (EEXIST), /proc/mdstat layout, array_state
# clean/active transitions driven by safe mode, safe_mode_delay format,
# sync_speed_* "(system)"/"(local)", readonly and read-auto, stop and
# the device going away, assemble without a resync after a clean stop.
. /harness/lib.sh

MD=/dev/md0
S=/sys/block/md0/md

ktap_plan 18
ktap_check "brd: two 64 MiB RAM disks" brd_setup 2 65536
ktap_check "mdadm --create raid1" \
	mdadm --create $MD --run --level=1 --raid-devices=2 --metadata=1.2 \
	/dev/ram0 /dev/ram1
ktap_check "initial resync completes" wait_resync md0 120

ktap_check "new_array md0 again: EEXIST" \
	sh -c '! echo md0 > /sys/module/md_mod/parameters/new_array 2>/tmp/na.err && grep -q "exists" /tmp/na.err'

mdstat_array md0 | sed 's/^/# /'
ktap_check "mdstat: array line and blocks line" sh -c '
	mdstat_array() { awk -v md="$1" "\$1 == md { p = 1 } p && /^ *\$/ { exit } p" /proc/mdstat; }
	mdstat_array md0 | grep -Eq "^md0 : active raid1 ram1\[1\] ram0\[0\]$" &&
	mdstat_array md0 | grep -Eq "^      [0-9]+ blocks super 1.2 \[2/2\] \[UU\]$" &&
	grep -q "^Personalities : .*\[raid1\] " /proc/mdstat && grep -q "^Personalities : .* $" /proc/mdstat &&
	tail -n1 /proc/mdstat | grep -q "^unused devices: <none>$"'

ktap_check "safe_mode_delay default 0.2xx" sh -c "grep -Eq '^0\.2[0-9][0-9]$' $S/safe_mode_delay"
ktap_check "sync_speed_min shows (system)" sh -c "grep -Eq '^[0-9]+ \(system\)$' $S/sync_speed_min"
ktap_check "sync_speed_max local then system" sh -c "
	echo 5000 > $S/sync_speed_max && grep -q '^5000 (local)$' $S/sync_speed_max &&
	echo system > $S/sync_speed_max && grep -Eq '^[0-9]+ \(system\)$' $S/sync_speed_max"

# A write makes the array active; safe mode marks it clean again.
dd if=/dev/zero of=$MD bs=4k count=1 oflag=direct 2>/dev/null
ktap_check "clean again within 2 s of the last write" sh -c "
	for i in 1 2 3 4 5 6 7 8 9 10; do
		grep -q '^clean$' $S/array_state && exit 0; sleep 0.2
	done; cat $S/array_state; exit 1"
ktap_check "safe_mode_delay 0: stays active after a write" sh -c "
	echo 0 > $S/safe_mode_delay &&
	dd if=/dev/zero of=$MD bs=4k count=1 oflag=direct 2>/dev/null &&
	sleep 1 && grep -q '^active$' $S/array_state"
ktap_check "array_state=clean with no writes in flight" sh -c "
	echo clean > $S/array_state && grep -q '^clean$' $S/array_state"
echo 0.200 > $S/safe_mode_delay

ktap_check "mdadm --readonly: readonly, writes refused" sh -c "
	mdadm --readonly $MD && grep -q '^readonly$' $S/array_state &&
	grep -q '^md0 : active (read-only) raid1' /proc/mdstat &&
	! dd if=/dev/zero of=$MD bs=4k count=1 oflag=direct 2>/dev/null"
ktap_check "read-auto: first write makes it active" sh -c "
	echo read-auto > $S/array_state && grep -q '^read-auto$' $S/array_state &&
	dd if=/dev/zero of=$MD bs=4k count=1 oflag=direct 2>/dev/null &&
	grep -Eq '^(active|clean|write-pending)$' $S/array_state"

ktap_check "mdadm --stop" mdadm --stop $MD
ktap_check "md0 device is gone after stop" sh -c '
	for i in 1 2 3 4 5 6 7 8 9 10; do [ -e /sys/block/md0 ] || exit 0; sleep 0.2; done; exit 1'
ktap_check "mdadm --assemble" mdadm --assemble $MD /dev/ram0 /dev/ram1
ktap_check "no resync after a clean stop" sh -c "
	sleep 1; grep -q '^idle$' $S/sync_action && grep -q '^none$' $S/resync_start"
ktap_check "stop again" mdadm --stop $MD
mdadm --zero-superblock /dev/ram0 /dev/ram1 2>/dev/null
brd_teardown
ktap_finish
