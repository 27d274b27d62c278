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

# ---- why: foreground reads while a repair runs, in-tree beside fork ----
# RAID1 on two null_blk disks of 100 MB/s each (resync and reads share
# the bandwidth, as on real disks); QD1 4 KiB random reads for SIDE_S
# seconds on the idle array, then again while a repair runs.
SIDE_S=5
SIDE_MB=1024

# fio_qd1: "IOPS runtime_ms" of one QD1 random-read run on /dev/md0
fio_qd1() {
	(cd /tmp && fio --name=qd1 --filename=/dev/md0 --rw=randread --bs=4k \
		--ioengine=libaio --iodepth=1 --direct=1 --norandommap \
		--time_based --runtime=$SIDE_S --output-format=terse) |
		awk -F';' 'NR == 1 { printf "%d %d\n", $8, $9 }'
}

# side IMPL: print "IMPL idle repair KiB/s" for one implementation
side() {
	unload_impl > /dev/null 2>&1
	brd_teardown
	nullb_setup 2 $SIDE_MB || return 1
	load_impl "$1" > /tmp/load.err 2>&1 || { cat /tmp/load.err; return 1; }
	# shellcheck disable=SC2086
	mdadm --create /dev/md0 --run --force --assume-clean --level=1 \
		--raid-devices=2 --metadata=1.2 $NULLB_DEVS > /dev/null 2>&1 || return 1
	_idle=$(fio_qd1) || return 1
	echo 0 > /sys/block/md0/md/sync_min
	echo repair > /sys/block/md0/md/sync_action
	_s0=$(cut -d' ' -f1 /sys/block/md0/md/sync_completed)
	_rep=$(fio_qd1) || return 1
	_s1=$(cut -d' ' -f1 /sys/block/md0/md/sync_completed)
	[ "$(md_sync_action md0)" = repair ] || echo "note: the repair ended before fio did" >&2
	echo idle > /sys/block/md0/md/sync_action
	wait_resync md0 120 > /dev/null
	mdadm --stop /dev/md0 > /dev/null 2>&1
	unload_impl > /dev/null 2>&1
	nullb_teardown
	# sync_completed reads "none" before the repair starts and after it ends
	case "$_s0$_s1" in *[!0-9]*) _s0=0 _s1=0 ;; esac
	# repair progress (sectors) over fio's own runtime (ms)
	echo "$1 ${_idle% *} $_rep $((_s1 - _s0))" | awk '{
		printf "%-8s %9d %14d %6.2f %13d\n", $1, $2, $3, ($2 ? $3 / $2 : 0),
			($4 ? $5 / 2 / ($4 / 1000) : 0) }'
}

step "why: QD1 4 KiB random reads, idle and during a repair (RAID1, 2 x null_blk at 100 MB/s, ${SIDE_S} s each)"
side intree > /tmp/side.intree || { cat /tmp/side.intree; echo "DEMO: side-by-side failed (intree)"; exit 1; }
side fork > /tmp/side.fork || { cat /tmp/side.fork; echo "DEMO: side-by-side failed (fork)"; exit 1; }
printf '%-8s %9s %14s %6s %13s\n' impl "idle IOPS" "repair IOPS" ratio "repair KiB/s"
cat /tmp/side.intree /tmp/side.fork
echo "in-tree md runs the repair flat out and the reads wait behind it; this stack"
echo "yields to the reads and repairs at full speed once the array is idle."
echo
echo "DEMO: done ($IMPL)"
