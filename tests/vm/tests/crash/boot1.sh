#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 120
#
# Unclean shutdown, boot 1 of 3 (run by tests/vm/run-crash): create the
# variant's arrays on the virtio disks (raid1, raid10: md0; raid5/raid6:
# md0 and md1, see common.sh), write and verify region A on each, print the
# checkpoint, then crash (sysrq b) while fio writes region B on each and
# every array is marked active (dirty); raid5-replace: while vda's
# replacement is half built; raid5-reshape: half way through a grow to 5
# members, region A written while it moved; raid5-reshape-backup: while
# a grow in place (mdadm's backup file on vdf) is inside region A,
# written before it started.  Never reports a result of its
# own when it works (the host checks the checkpoint and crash markers);
# a failed check ends it with a result before the crash instead.
. /harness/tests/crash/common.sh

# md_writes_of MD: writes MD has completed
md_writes_of() { awk '{ print $5 }' "/sys/block/${1#/dev/}/stat"; }

# writing MD COUNT: MD completes more than COUNT writes within 20 s (the
# background fio got going); its output if not
writing() {
	_i=0
	while [ "$(md_writes_of "$1")" -le "$2" ]; do
		_i=$((_i + 1))
		if [ $_i -gt 200 ]; then
			echo "no writes reached $1 in 20 s"
			cat "/tmp/fiob.${1#/dev/}.out"
			return 1
		fi
		sleep 0.1
	done
	echo "$1: $(md_writes_of "$1") writes (from $2)"
}

nr=$(echo "$ARRAYS" | wc -w)
ktap_plan $((1 + 4 * nr + BITMAP + REPLACE + RESHAPE))
ktap_check "raid$LEVEL: virtio disks $(echo "$MEMBERS $DD_MEMBERS $REPL_DEV" | sed 's,/dev/,,g')" virtio_disks
for md in $ARRAYS; do
	ktap_check "${md#/dev/}: mdadm --create raid$LEVEL --assume-clean ($(members_of "$md" | wc -w) members)" \
		md_create "$md"
done
# raid5-reshape: the grow moves slowly while region A is written, so A
# lies on both sides of the reshape position
start_reshape() {
	mdadm "$MD" --add "$REPL_DEV" || return 1
	echo 300 > /sys/block/md0/md/sync_speed_max
	mdadm --grow "$MD" --raid-devices=5 || return 1
	sleep 1
	grep -A3 '^md0' /proc/mdstat
	grep -q reshape /proc/mdstat
}
[ "$RESHAPE" = 1 ] &&
	ktap_check "md0: mdadm --grow -n 5 onto $REPL_DEV: reshaping" start_reshape
for md in $ARRAYS; do
	# shellcheck disable=SC2086
	ktap_check "${md#/dev/}: region A: fio write + verify" fio_region "$md" WRITE $A_ARGS
done
[ "$RESHAPE" = 1 ] && grep -H . /sys/block/md0/md/reshape_position \
	/sys/block/md0/md/sync_completed | sed 's/^/# /'
# raid5-reshape-backup: region A written, md0 grows onto vde in place
# through the backup file on vdf, slowly; the crash comes once the
# reshape is 4 MiB into region A (12 MiB of the array: sync_completed
# counts per member, 4 data members after the grow)
start_backup_grow() {
	mdadm "$MD" --add "$REPL_DEV" || return 1
	echo 300 > /sys/block/md0/md/sync_speed_max
	MDADM_NO_SYSTEMCTL=1 mdadm --grow "$MD" --raid-devices=5 \
		--backup-file="$BK_FILE" || return 1
	_i=0
	until _p=$(cut -d' ' -f1 /sys/block/md0/md/sync_completed) &&
		[ "$_p" -eq "$_p" ] 2>/dev/null && [ "$_p" -ge 6144 ]; do
		_i=$((_i + 1))
		[ $_i -gt 600 ] && { echo "sync_completed: $(cat /sys/block/md0/md/sync_completed)"; return 1; }
		sleep 0.1
	done
	grep -A3 '^md0' /proc/mdstat
	grep -H . /sys/block/md0/md/reshape_position \
		/sys/block/md0/md/sync_completed /sys/block/md0/md/raid_disks
	grep -q reshape /proc/mdstat
}
if [ "$RESHAPE" = 2 ]; then
	ktap_check "$BK_DEV: ext4 for the backup file" ext4_mount "$BK_DEV" "$BK_DIR"
	ktap_check "md0: mdadm --grow -n 5 --backup-file onto $REPL_DEV: in place, into region A" \
		start_backup_grow
fi
# with a bitmap: mdadm --create set every bit; once the daemon cleared
# them, only what region B dirties below is dirty at the crash
if [ "$BITMAP" = 1 ]; then
	# shellcheck disable=SC2086
	ktap_check "md0: the bitmap is clean before region B" \
		wait_bitmap_dirty 0 $MEMBERS
fi
# raid5-replace: vda's replacement is being built (slowly) at the crash
start_replace() {
	mdadm "$MD" --add "$REPL_DEV" || return 1
	echo 300 > /sys/block/md0/md/sync_speed_max
	mdadm "$MD" --replace /dev/vda || return 1
	sleep 2
	replacement_is "$REPL_DEV" 0 &&
		grep -H . /sys/block/md0/md/sync_completed
}
[ "$REPLACE" = 1 ] &&
	ktap_check "md0: --replace vda: $REPL_DEV is being built as its replacement" \
		start_replace
# a failure so far ends the test with a result instead of a crash
[ "$KTAP_FAILED" -eq 0 ] || ktap_finish
# the markers also go straight to the console: the runner's pipe may lag
echo "@@CRASH-CHECKPOINT-A" | tee /dev/console
echo 1 > /proc/sys/kernel/sysrq
w0=
for md in $ARRAYS; do
	w0="$w0 $(md_writes_of "$md")"
	# shellcheck disable=SC2086
	(cd /tmp && exec fio --name=regionb --filename="$md" $FIO_VERIFY_ARGS $B_ARGS \
		--do_verify=0 --rate=,4m --time_based --runtime=60 --eta=never) \
		> "/tmp/fiob.$(basename "$md").out" 2>&1 &
done
# shellcheck disable=SC2086
set -- $w0
for md in $ARRAYS; do
	ktap_check "${md#/dev/}: region B: fio is writing" writing "$md" "$1"
	shift
done
for md in $ARRAYS; do
	ktap_check "${md#/dev/}: array is active (dirty) while writing" \
		sh -c "cat /sys/block/${md#/dev/}/md/array_state; [ \"\$(cat /sys/block/${md#/dev/}/md/array_state)\" = active ]"
done
# the runner cannot check this test's kernel log (it never returns): put
# it on the console, where run-crash looks for splats
dmesg | sed 's/^/# dmesg: /'
[ "$KTAP_FAILED" -eq 0 ] || ktap_finish
echo "@@CRASH-NOW" | tee /dev/console
# give the serial console time to drain before the reset
sleep 2
echo b > /proc/sysrq-trigger
sleep 10
ktap_not_ok "sysrq b did not reset the guest"
ktap_finish
