#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 300
#
# RAID5 on four 64 MiB RAM disks, default layout, 64 KiB chunk: create
# (mdadm builds RAID5 degraded and recovers the last member), the
# /proc/mdstat line and mdadm --detail, initial sync, check finds no
# mismatch, fio crc32c 4k/64k random and 1M sequential writes verify,
# and verify again after --stop/--assemble.  The stripe cache files
# read their defaults.
. /harness/lib.sh

MD=/dev/md0

# fio_job NAME RW BS OFFSET MODE: 2 jobs x 16 MiB from OFFSET
fio_job() {
	_rw=$2 _bs=$3 _off=$4
	if [ "$5" = write ]; then set -- "$1" --do_verify=1; else set -- "$1" --verify_only; fi
	_n=$1
	shift
	(cd /tmp && fio --name="$_n" --filename=$MD --rw="$_rw" --bs="$_bs" \
		--ioengine=libaio --iodepth=16 --direct=1 --numjobs=2 --size=16M \
		--offset="$_off" --offset_increment=16M --verify=crc32c \
		--verify_fatal=1 --randrepeat=1 --randseed=7 \
		--verify_state_save=0 --group_reporting --eta=never "$@") > /tmp/fio.out 2>&1
	fio_log_ok $?
}

mdstat_line() {
	mdstat_array md0
	mdstat_array md0 | grep -q "active raid5 " &&
	mdstat_array md0 | grep -qF "level 5, 64k chunk, algorithm 2 [4/4] [UUUU]"
}

detail_right() {
	mdadm --detail $MD > /tmp/detail
	cat /tmp/detail
	[ "$(md_field 'Raid Level' < /tmp/detail)" = raid5 ] &&
	[ "$(md_field 'Raid Devices' < /tmp/detail)" = 4 ] &&
	[ "$(md_field 'Layout' < /tmp/detail)" = left-symmetric ] &&
	[ "$(md_field 'Chunk Size' < /tmp/detail)" = 64K ] &&
	[ "$(md_field 'Active Devices' < /tmp/detail)" = 4 ] &&
	[ "$(md_field 'Array Size' < /tmp/detail | cut -d' ' -f1)" = $((3 * 64 * 1024 - 3 * 1024)) ]
}

cache_files() {
	_s=$(cat /sys/block/md0/md/stripe_cache_size)
	_a=$(cat /sys/block/md0/md/stripe_cache_active)
	echo "stripe_cache_size $_s stripe_cache_active $_a"
	[ "$_s" = 256 ] && [ "$_a" -ge 0 ]
}

verify_all() {
	fio_job r4k randwrite 4k 0 verify &&
	fio_job r64k randwrite 64k 32M verify &&
	fio_job s1m write 1M 64M verify
}

ktap_plan 15
ktap_check "brd: four 64 MiB RAM disks" brd_setup 4 65536
ktap_check "mdadm --create raid5" \
	mdadm --create $MD --run --level=5 --raid-devices=4 --chunk=64 \
	--metadata=1.2 /dev/ram0 /dev/ram1 /dev/ram2 /dev/ram3
ktap_check "initial sync completes" wait_resync md0 240
ktap_check "/proc/mdstat line" mdstat_line
ktap_check "mdadm --detail: level, layout, chunk, size" detail_right
ktap_check "stripe_cache_size 256, stripe_cache_active readable" cache_files
ktap_check "check: mismatch_cnt 0" md_check_clean md0 240
ktap_check "4k randwrite + verify" fio_job r4k randwrite 4k 0 write
ktap_check "64k randwrite + verify" fio_job r64k randwrite 64k 32M write
ktap_check "1M sequential write + verify" fio_job s1m write 1M 64M write
ktap_check "check after writes: mismatch_cnt 0" md_check_clean md0 240
ktap_check "mdadm --stop" mdadm --stop $MD
ktap_check "mdadm --assemble" mdadm --assemble $MD /dev/ram0 /dev/ram1 /dev/ram2 /dev/ram3
ktap_check "everything verifies after assemble" verify_all
ktap_check "check after assemble: mismatch_cnt 0" md_check_clean md0 240
mdstat_array md0 | sed 's/^/# /'
brd_teardown
ktap_finish
