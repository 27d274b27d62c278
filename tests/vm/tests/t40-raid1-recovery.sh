#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 300
#
# RAID1 degrade and rebuild: write, fail ram1, overwrite with new data,
# remove it, add ram2 as a spare, wait for recovery, then fail ram0 so
# that only the rebuilt member serves reads and verify the new data.
# Failing the last working member must be refused.
. /harness/lib.sh

MD=/dev/md0
SIZE=32M

wait_recovery() { sleep 2; wait_resync md0 120; }
mdstat_has() { grep -A2 '^md0 ' /proc/mdstat | grep -q -- "$1"; }

ktap_plan 14
ktap_check "brd: three 96 MiB RAM disks" brd_setup 3 98304
ktap_check "mdadm --create raid1" \
	mdadm --create $MD --run --level=1 --raid-devices=2 --metadata=1.2 \
	/dev/ram0 /dev/ram1
ktap_check "initial resync completes" wait_resync md0 120
ktap_check "fio write + verify (seed 1)" fio_write_verify $MD $SIZE
ktap_check "fail ram1" mdadm $MD --fail /dev/ram1
ktap_check "mdstat shows [2/1] [U_]" mdstat_has '\[2/1\] \[U_\]'
ktap_check "fio write + verify while degraded (seed 2)" \
	fio_write_verify $MD $SIZE --randseed=4321
ktap_check "remove ram1" mdadm $MD --remove /dev/ram1
ktap_check "add ram2" mdadm $MD --add /dev/ram2
ktap_check "recovery completes" wait_recovery
ktap_check "mdstat shows [2/2] [UU]" mdstat_has '\[2/2\] \[UU\]'
mdadm $MD --fail /dev/ram0 >/dev/null 2>&1
mdadm $MD --fail /dev/ram2 >/dev/null 2>&1	# last one: must be refused
ktap_check "last member ram2 not failed" sh -c \
	"grep '^md0 ' /proc/mdstat | grep -Eq 'ram2\[[0-9]+\]( |\$)'"
ktap_check "ram2 alone serves the seed-2 data" \
	fio_verify_only $MD $SIZE --randseed=4321
ktap_check "mdadm --stop" mdadm --stop $MD
cat /proc/mdstat | sed 's/^/# /'
brd_teardown
ktap_finish
