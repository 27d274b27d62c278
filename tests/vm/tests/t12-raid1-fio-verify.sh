#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 240
#
# fio crc32c-verified random writes (iodepth 16, two jobs on disjoint
# ranges each) at 4k and 64k block size on a 2-disk raid1 of RAM
# disks (136 MiB: the four 32 MiB ranges fit in the array):
#  phase 1 - during the initial resync (capped at 2 MB/s so it cannot
#            finish first): mdstat shows the resync running when fio starts
#            and still running when the writes are done; fio reads back and
#            verifies;                                    range [0, 64M)
#  phase 2 - after the resync: phase 1's data still verifies, then new
#            4k/64k writes + verify;                       range [64M, 128M)
#  sync_completed reads "N / M" during the resync (M: member sectors);
#  `check` finds 0 mismatches (writes during resync reached both mirrors);
#  phase 3 - after --stop and --assemble everything verifies (verify_only).
. /harness/lib.sh

MD=/dev/md0

# fio_job MODE BS OFFSET SEED: 2 jobs x 16 MiB from OFFSET, MODE write|verify
fio_job() {
	_mode=$1 _bs=$2 _off=$3 _seed=$4
	if [ "$_mode" = write ]; then set -- --do_verify=1; else set -- --verify_only; fi
	(cd /tmp && fio --name="rw$_bs" --filename=$MD --rw=randwrite --bs="$_bs" \
		--ioengine=libaio --iodepth=16 --direct=1 --numjobs=2 --size=16M \
		--offset="$_off" --offset_increment=16M --verify=crc32c \
		--verify_fatal=1 --randrepeat=1 --randseed="$_seed" \
		--verify_state_save=0 --group_reporting --eta=never "$@") > /tmp/fio.out 2>&1
	fio_log_ok $?
}

resyncing() {
	mdstat_array md0
	mdstat_array md0 | grep -Eq 'resync *= *[0-9.]+%'
}

# sync_completed_total: "N / M" while resyncing, M the member size in sectors
sync_completed_total() {
	_c=$(cat /sys/block/md0/md/sync_completed)
	_m=$(( $(cat /sys/block/md0/md/component_size) * 2 ))
	echo "sync_completed '$_c', component_size $((_m / 2)) KiB"
	echo "$_c" | grep -Eq "^[0-9]+ / $_m\$"
}

ktap_plan 19
md_speed_limit 1000 2000
ktap_check "brd: two 136 MiB RAM disks" brd_setup 2 139264
ktap_check "mdadm --create raid1" \
	mdadm --create $MD --run --level=1 --raid-devices=2 --metadata=1.2 \
	/dev/ram0 /dev/ram1
ktap_check "phase 1: resync in progress as fio starts" resyncing
ktap_check "phase 1: sync_completed 'N / M', M the member size" sync_completed_total
ktap_check "phase 1: 4k randwrite + verify during resync" fio_job write 4k 0 11
ktap_check "phase 1: 64k randwrite + verify during resync" fio_job write 64k 32M 12
ktap_check "phase 1: resync still in progress after the writes" resyncing
md_speed_limit
ktap_check "resync completes" wait_resync md0 120
ktap_check "phase 2: phase-1 4k data verifies after resync" fio_job verify 4k 0 11
ktap_check "phase 2: phase-1 64k data verifies after resync" fio_job verify 64k 32M 12
ktap_check "phase 2: 4k randwrite + verify" fio_job write 4k 64M 21
ktap_check "phase 2: 64k randwrite + verify" fio_job write 64k 96M 22
ktap_check "check: mirrors identical (mismatch_cnt 0)" md_check_clean md0
ktap_check "mdadm --stop" mdadm --stop $MD
ktap_check "mdadm --assemble" mdadm --assemble $MD /dev/ram0 /dev/ram1
ktap_check "phase 3: 4k data from phase 1 verifies" fio_job verify 4k 0 11
ktap_check "phase 3: 64k data from phase 1 verifies" fio_job verify 64k 32M 12
ktap_check "phase 3: 4k data from phase 2 verifies" fio_job verify 4k 64M 21
ktap_check "phase 3: 64k data from phase 2 verifies" fio_job verify 64k 96M 22
mdstat_array md0 | sed 's/^/# /'
brd_teardown
ktap_finish
