# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh disable=SC2034
#
# Shared by the unclean-shutdown boots (tests/vm/run-crash): the members
# are two virtio disks backed by image files on the host, so what reached
# them survives the guest's reset.  Region A is written and verified
# before the checkpoint; region B is being written when boot 1 crashes.
. /harness/lib.sh

MD=/dev/md0
MEMBERS="/dev/vda /dev/vdb"
A_ARGS="--offset=0 --size=16M --randseed=4242"
B_ARGS="--offset=16M --size=32M --randseed=777"

virtio_disks() {
	modprobe virtio_pci && modprobe virtio_blk || return 1
	_i=0
	while [ ! -b /dev/vdb ] && [ $_i -lt 100 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	ls -l /dev/vda /dev/vdb
}

# fio_region WRITE|VERIFY ARGS...: region A's pattern, written or verified
fio_region() {
	_m=$1; shift
	if [ "$_m" = WRITE ]; then set -- "$@" --do_verify=1; else set -- "$@" --verify_only; fi
	# shellcheck disable=SC2086
	(cd /tmp && fio --name=region --filename=$MD $FIO_VERIFY_ARGS --eta=never "$@") \
		> /tmp/fio.out 2>&1
	fio_log_ok $?
}

# sb_state DEV WANT: the member's superblock says "State : WANT"
sb_state() {
	_s=$(mdadm --examine "$1" | md_field State)
	echo "$1: State : $_s"
	[ "$_s" = "$2" ]
}

# no_resync: nothing running, nothing pending
no_resync() {
	mdstat_array md0
	echo "sync_action $(cat /sys/block/md0/md/sync_action), resync_start $(cat /sys/block/md0/md/resync_start)"
	! mdstat_array md0 | grep -Eq 'resync|recovery|PENDING|DELAYED' &&
	[ "$(cat /sys/block/md0/md/sync_action)" = idle ] &&
	[ "$(cat /sys/block/md0/md/resync_start)" = none ]
}
