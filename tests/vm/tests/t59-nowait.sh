#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 300
#
# REQ_NOWAIT (issue 35): an array whose members all take REQ_NOWAIT takes
# it too, so O_DIRECT preadv2/pwritev2 with RWF_NOWAIT on /dev/md0 work
# (without it the block layer answers EOPNOTSUPP), as in-tree md.  Both
# implementations, RAID1 x2 and RAID5 x3 on RAM disks (brd takes
# REQ_NOWAIT on 6.1 and 6.12: checked first, else the test is skipped),
# the same assertions:
#  - RWF_NOWAIT writes of 4 KiB to 64 KiB at eight offsets succeed and
#    RWF_NOWAIT reads give back what they wrote.  RWF_NOWAIT allows
#    EAGAIN where md would have to wait (a clean array's first write
#    waits for the "dirty" superblock; this stack answers EAGAIN there,
#    in-tree 6.1 sleeps), so each IO is retried up to 300 times 10 ms
#    apart and must succeed then; EOPNOTSUPP or any other error fails
#    at once.  The range is written without RWF_NOWAIT first, so brd
#    has its pages and never needs to allocate under a nowait bio.
#  - a data check of the same range without RWF_NOWAIT (blocking read).
#  - /sys/block/md0/queue/nowait, where the kernel has it: reads 1.
#  - a suspended range (md/suspend_lo, suspend_hi, in sectors): an
#    RWF_NOWAIT write into it gets EAGAIN at once and leaves the data as
#    it was; one outside it succeeds; after suspend_lo and suspend_hi go
#    back to 0 the write succeeds and reads back.  Only where the array
#    takes a non-zero suspend_hi: this stack has no reshape and refuses
#    any (Documentation/sysfs-parity-notes.txt), so there these results
#    are skipped with that reason.
#  - a spare that does not take REQ_NOWAIT (dm-delay, checked: an
#    RWF_NOWAIT read of it gets EOPNOTSUPP) is added to the running
#    array.  Printed, not asserted: what an RWF_NOWAIT read of the array
#    answers then.  This stack stops taking REQ_NOWAIT as such a member
#    joins (EOPNOTSUPP); in-tree 6.1 does so only in the HOT_ADD_DISK
#    ioctl, not in ADD_NEW_DISK, which mdadm --add uses for 1.x
#    metadata, so there the read still succeeds.
. /harness/lib.sh

MD=/dev/md0
SYS=/sys/block/md0/md
NW=/harness/tools/nowait_io
EAGAIN=11
EOPNOTSUPP=95
TRIES=300
# the region the test uses: 8 MiB from 1 MiB on
BASE=1048576

# nw_ok MODE OFF LEN BYTE: RWF_NOWAIT IO, EAGAIN retried, must succeed
nw_ok() {
	$NW "$1" $MD "$2" "$3" "$4" $TRIES
}

create() { # LEVEL NDEVS
	md_stop_all
	brd_setup 4 65536 || return 1
	# does the member itself take RWF_NOWAIT?  (reads of brd allocate nothing)
	$NW read /dev/ram0 0 4096 0 1 || {
		echo "RAM disk refuses RWF_NOWAIT"
		return 2
	}
	_nwdevs=/dev/ram0
	_nwi=1
	while [ $_nwi -lt "$2" ]; do
		_nwdevs="$_nwdevs /dev/ram$_nwi"
		_nwi=$((_nwi + 1))
	done
	# shellcheck disable=SC2086
	mdadm --create $MD --run --assume-clean --level="$1" \
		--raid-devices="$2" --metadata=1.2 $_nwdevs || return 1
	# brd allocates its pages here, not under a nowait bio
	dd if=/dev/zero of=$MD bs=1M seek=1 count=8 oflag=direct 2> /dev/null
}

# offsets and lengths, apart: inside a chunk, across a chunk (RAID5's
# 512 KiB: 2 MiB) and a 1 MiB raid1 bucket, a page.  At most 64 KiB:
# the block layer of 6.1 answers EAGAIN to a nowait bio it has to split
# (the array's limits are brd's 127 KiB on raid1), whatever md does.
NW_IOS="0:4096 65536:61440 126976:8192 262144:65536 1048576:32768
	2093056:8192 4194304:65536 7340032:4096"

nowait_writes() {
	_nwb=1
	for _nwio in $NW_IOS; do
		nw_ok write $((BASE + ${_nwio%%:*})) "${_nwio##*:}" $_nwb ||
			return 1
		_nwb=$((_nwb + 1))
	done
}

nowait_reads() {
	_nwb=1
	for _nwio in $NW_IOS; do
		nw_ok read $((BASE + ${_nwio%%:*})) "${_nwio##*:}" $_nwb ||
			return 1
		_nwb=$((_nwb + 1))
	done
}

blocking_reads() {
	_nwb=1
	for _nwio in $NW_IOS; do
		$NW -b read $MD $((BASE + ${_nwio%%:*})) "${_nwio##*:}" $_nwb ||
			return 1
		_nwb=$((_nwb + 1))
	done
}

queue_attr() {
	_nwq=/sys/block/md0/queue/nowait
	if [ ! -e $_nwq ]; then
		echo "no $_nwq on this kernel: the IO above covers it"
		return 0
	fi
	echo "md0 queue/nowait: $(cat $_nwq), ram0: $(cat /sys/block/ram0/queue/nowait 2>/dev/null)"
	[ "$(cat $_nwq)" = 1 ]
}

# suspend_supported: does the array take a suspended range?  Probed with
# suspend_lo while suspend_hi is 0: an empty range, nothing held.
suspend_supported() {
	/harness/tools/sysfs_write $SYS/suspend_lo $(((BASE + 2097152) / 512)) \
		> /dev/null
	_nwrc=$?
	echo "suspend_lo write: exit $_nwrc"
	echo 0 > $SYS/suspend_lo
	[ $_nwrc -eq 0 ]
}

# A range [BASE + 2 MiB, BASE + 4 MiB) in sectors, held; the data there
# is byte 20 (written before).  suspend_lo first: the range stays empty
# until suspend_hi is set.
suspend_hold() {
	$NW -b write $MD $((BASE + 2097152)) 2097152 20 &&
	echo $(((BASE + 2097152) / 512)) > $SYS/suspend_lo &&
	echo $(((BASE + 4194304) / 512)) > $SYS/suspend_hi &&
	echo "suspend_lo $(cat $SYS/suspend_lo) suspend_hi $(cat $SYS/suspend_hi)"
}

suspend_eagain() {
	$NW write $MD $((BASE + 3145728)) 65536 21 1
	_nwrc=$?
	[ $_nwrc -eq $EAGAIN ] || { echo "exit $_nwrc, want EAGAIN"; return 1; }
	# reads are not held
	nw_ok read $((BASE + 3145728)) 65536 20
}

suspend_outside() {
	nw_ok write $((BASE + 6291456)) 65536 22 &&
	nw_ok read $((BASE + 6291456)) 65536 22
}

suspend_release() {
	echo 0 > $SYS/suspend_hi && echo 0 > $SYS/suspend_lo &&
	nw_ok write $((BASE + 3145728)) 65536 21 &&
	nw_ok read $((BASE + 3145728)) 65536 21
}

# hot_add_blocking: a spare without REQ_NOWAIT takes it from the array
DMNAME=t59slow
hot_add_blocking() {
	_nwsz=$(blockdev --getsz /dev/ram3) || return 1
	dmsetup create $DMNAME --table "0 $_nwsz delay /dev/ram3 0 0" ||
		return 1
	_nwdm=/dev/$(dm_kname $DMNAME) || return 1
	$NW read "$_nwdm" 0 4096 0 1
	_nwrc=$?
	if [ $_nwrc -ne $EOPNOTSUPP ]; then
		echo "dm-delay answers $_nwrc to RWF_NOWAIT: takes it, nothing to show"
		return 3
	fi
	mdadm $MD --add "$_nwdm" || return 1
	echo "RWF_NOWAIT read of the array with that spare (not asserted):"
	$NW read $MD $BASE 4096 1 1
	return 0
}

stop() {
	mdadm --stop $MD || return 1
	dmsetup remove $DMNAME 2> /dev/null
	return 0
}

ktap_plan 22
for level in 1 5; do
	if [ $level = 1 ]; then n=2; else n=3; fi
	create $level $n > /tmp/t59.out 2>&1
	rc=$?
	sed 's/^/# /' /tmp/t59.out
	if [ $rc -eq 2 ]; then
		md_stop_all
		brd_teardown
		ktap_skip_all "brd does not take RWF_NOWAIT on this kernel"
	fi
	if [ $rc -eq 0 ]; then
		ktap_ok "raid$level: created on RAM disks that take RWF_NOWAIT"
	else
		ktap_not_ok "raid$level: created on RAM disks that take RWF_NOWAIT"
	fi
	ktap_check "raid$level: RWF_NOWAIT writes succeed (EAGAIN retried)" \
		nowait_writes
	ktap_check "raid$level: RWF_NOWAIT reads give them back" nowait_reads
	ktap_check "raid$level: blocking reads agree" blocking_reads
	ktap_check "raid$level: queue nowait attribute" queue_attr
	if suspend_supported > /tmp/t59.out 2>&1; then
		sed 's/^/# /' /tmp/t59.out
		ktap_check "raid$level: hold a suspended range" suspend_hold
		ktap_check "raid$level: RWF_NOWAIT write into it: EAGAIN, data kept" \
			suspend_eagain
		ktap_check "raid$level: RWF_NOWAIT write outside it succeeds" \
			suspend_outside
		ktap_check "raid$level: released, the write succeeds" \
			suspend_release
	else
		sed 's/^/# /' /tmp/t59.out
		for t in "hold a suspended range" \
			 "RWF_NOWAIT write into it: EAGAIN, data kept" \
			 "RWF_NOWAIT write outside it succeeds" \
			 "released, the write succeeds"; do
			ktap_skip "raid$level: $t" \
				"$impl refuses a suspended range (no reshape here)"
		done
	fi
	hot_add_blocking > /tmp/t59.out 2>&1
	rc=$?
	sed 's/^/# /' /tmp/t59.out
	if [ $rc -eq 3 ]; then
		ktap_skip "raid$level: a spare without REQ_NOWAIT added" \
			"dm-delay takes RWF_NOWAIT on this kernel"
	elif [ $rc -eq 0 ]; then
		ktap_ok "raid$level: a spare without REQ_NOWAIT added"
	else
		ktap_not_ok "raid$level: a spare without REQ_NOWAIT added"
	fi
	ktap_check "raid$level: stop" stop
done
brd_teardown
ktap_finish
