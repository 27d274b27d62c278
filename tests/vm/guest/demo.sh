#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of `make demo`: load one implementation, build a RAID1 on two
# RAM disks, run a short fio job, show /proc/mdstat and the fio result.
. /harness/config
. /harness/lib.sh

step() { echo; echo "== $*"; }

step "loading the $IMPL md implementation"
if ! load_impl "$IMPL"; then
	echo "DEMO: loading the $IMPL modules failed; kernel log:"
	dmesg | tail -n 20
	exit 1
fi
impl_check "$IMPL" || exit 1
echo "md_mod version: $(cat /sys/module/md_mod/version 2>/dev/null || echo '(none: in-tree)')"
lsmod | grep -E '^(md_mod|raid1|raid456) '

step "two 256 MiB RAM disks"
brd_setup 2 262144 && ls -l /dev/ram0 /dev/ram1

step "mdadm --create /dev/md0 --level=1 --raid-devices=2 /dev/ram0 /dev/ram1"
if ! mdadm --create /dev/md0 --run --level=1 --raid-devices=2 --metadata=1.2 \
	/dev/ram0 /dev/ram1; then
	echo
	echo "DEMO: mdadm could not create the array on the $IMPL implementation."
	[ "$IMPL" = fork ] && echo "DEMO: expected while the fork's md core is a skeleton; try IMPL=intree make demo"
	echo "/proc/mdstat:"; cat /proc/mdstat
	echo "kernel log:"; dmesg | tail -n 15
	exit 1
fi
wait_resync md0 120

step "/proc/mdstat"
cat /proc/mdstat

step "fio: 10 s of 4k random writes + reads (libaio, iodepth 16, direct)"
(cd /tmp && fio --name=demo --filename=/dev/md0 --rw=randrw --bs=4k --size=128M \
	--ioengine=libaio --iodepth=16 --direct=1 --time_based --runtime=10 \
	--group_reporting) || { echo "DEMO: fio failed"; exit 1; }

step "mdadm --detail /dev/md0"
mdadm --detail /dev/md0
mdadm --stop /dev/md0
echo
echo "DEMO: done ($IMPL)"
