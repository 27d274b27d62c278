#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 120
#
# Unclean shutdown, boot 1 of 3 (run by tests/vm/run-crash): create a
# raid1 on the two virtio disks, write and verify region A, print the
# checkpoint, then crash (sysrq b) while fio writes region B and the array
# is marked active (dirty).  Never reports a result of its own when it
# works: the host checks the checkpoint and crash markers.
. /harness/tests/crash/common.sh

ktap_plan 6
ktap_check "virtio disks vda vdb" virtio_disks
# shellcheck disable=SC2086
ktap_check "mdadm --create raid1 --assume-clean" \
	mdadm --create $MD --run --level=1 --raid-devices=2 --metadata=1.2 \
	--assume-clean --bitmap=none $MEMBERS
# shellcheck disable=SC2086
ktap_check "region A: fio write + verify" fio_region WRITE $A_ARGS
# the markers also go straight to the console: the runner's pipe may lag
echo "@@CRASH-CHECKPOINT-A" | tee /dev/console
echo 1 > /proc/sys/kernel/sysrq
# shellcheck disable=SC2086
(cd /tmp && exec fio --name=regionb --filename=$MD $FIO_VERIFY_ARGS $B_ARGS \
	--do_verify=0 --rate=,4m --time_based --runtime=60 --eta=never) > /tmp/fiob.out 2>&1 &
w0=$(awk '{ print $5 }' /sys/block/md0/stat)
sleep 2
ktap_check "region B: fio is writing" \
	sh -c "[ \$(awk '{ print \$5 }' /sys/block/md0/stat) -gt $w0 ]"
ktap_check "array is active (dirty) while writing" \
	sh -c 'cat /sys/block/md0/md/array_state; [ "$(cat /sys/block/md0/md/array_state)" = active ]'
# the runner cannot check this test's kernel log (it never returns): put
# it on the console, where run-crash looks for splats
dmesg | sed 's/^/# dmesg: /'
echo "@@CRASH-NOW" | tee /dev/console
# give the serial console time to drain before the reset
sleep 2
echo b > /proc/sysrq-trigger
sleep 10
ktap_not_ok "sysrq b did not reset the guest"
ktap_finish
