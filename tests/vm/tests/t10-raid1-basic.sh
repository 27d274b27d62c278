#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 240
#
# RAID1 on two RAM disks: create (with initial resync), write 64 MiB of
# checksummed random 4k blocks and verify, stop, assemble from the member
# superblocks, verify again; the queue reports iostats and rotational as
# in-tree md does.
. /harness/lib.sh

MD=/dev/md0
SIZE=64M

# queue_like_members: /sys/block/md0/queue says what in-tree md's says:
# iostats 1, and rotational as the members (RAM disks: 0)
queue_like_members() {
	_q=/sys/block/md0/queue
	echo "iostats $(cat $_q/iostats) rotational $(cat $_q/rotational), ram0 $(cat /sys/block/ram0/queue/rotational)"
	[ "$(cat $_q/iostats)" = 1 ] &&
	[ "$(cat $_q/rotational)" = "$(cat /sys/block/ram0/queue/rotational)" ]
}

ktap_plan 8
ktap_check "brd: two 256 MiB RAM disks" brd_setup 2 262144
ktap_check "mdadm --create raid1" \
	mdadm --create $MD --run --level=1 --raid-devices=2 --metadata=1.2 \
	/dev/ram0 /dev/ram1
ktap_check "initial resync completes" wait_resync md0 120
ktap_check "fio crc32c randwrite + verify" fio_write_verify $MD $SIZE
ktap_check "mdadm --stop" mdadm --stop $MD
ktap_check "mdadm --assemble" mdadm --assemble $MD /dev/ram0 /dev/ram1
ktap_check "queue: iostats 1, rotational as the members" queue_like_members
ktap_check "fio verify_only after assemble" fio_verify_only $MD $SIZE
cat /proc/mdstat | sed 's/^/# /'
brd_teardown
ktap_finish
