#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 900
#
# Degraded RAID5 and RAID6 on RAM disks.  RAID5 (4 members): data
# written, then one member failed with mdadm --fail while fio writes and
# verifies (no error may reach fio); everything verifies degraded (reads
# of the failed member are reconstructed), new writes verify degraded;
# the member is removed, a spare added, recovery completes, everything
# verifies and check finds mismatch_cnt 0.  RAID6 (5 members): the same
# with two members failed one after the other under fio, reads then need
# the two-failure reconstruction, and two spares rebuilt.
. /harness/lib.sh
. /harness/tests/raid5/common.sh

MD=/dev/md0

# job NAME MODE RW BS OFF: one job, 8 MiB from OFF MiB
job() {
	_n=$1 _rw=$3 _bs=$4 _off=$5
	if [ "$2" = write ]; then set -- --do_verify=1; else set -- --verify_only; fi
	(cd /tmp && fio --name="$_n" --filename=$MD --rw="$_rw" --bs="$_bs" \
		--ioengine=libaio --iodepth=16 --direct=1 --size=8M \
		--offset="${_off}M" --verify=crc32c --verify_fatal=1 \
		--randrepeat=1 --randseed=$((_off + 3)) \
		--verify_state_save=0 --eta=never "$@") > "/tmp/fio.$_n" 2>&1
	_rc=$?
	cp "/tmp/fio.$_n" /tmp/fio.out
	fio_log_ok $_rc
}

# verify_all OFF...: 4k random data at each offset (MiB) verifies
verify_all() {
	for _o in "$@"; do
		job "v$_o" verify randwrite 4k "$_o" || return 1
	done
}

# fail_under_load OFF MEMBER...: fio writes+verifies at OFF MiB while each
# MEMBER is failed in turn; fio must see no error
fail_under_load() {
	_off=$1
	shift
	_w=$(md_writes)
	job load write randwrite 4k "$_off" &
	_pid=$!
	wait_writes_start "$_w" || return 1
	for _m in "$@"; do
		mdadm $MD --fail "$_m" || return 1
		sleep 1
	done
	wait $_pid
}

degraded_is() { # MDSTAT DEGRADED
	md_array_as "$1" "$2"
}

rebuild() { # SPARE...
	for _m in "$@"; do
		mdadm $MD --add "$_m" || return 1
	done
	sleep 1
	wait_resync md0 600
}

remove_failed() {
	mdadm $MD --remove failed
}

rebuild_after_remove() { # SPARE...
	remove_failed && rebuild "$@"
}

ktap_plan 23
ktap_check "brd: seven 48 MiB RAM disks" brd_setup 7 49152

# RAID5
ktap_check "raid5: create 4 members, 64K chunk" r5_create 5 default 4 64
ktap_check "raid5: data written and verified" job a write randwrite 4k 0
ktap_check "raid5: --fail ram1 under fio load, fio sees no error" \
	fail_under_load 8 /dev/ram1
ktap_check "raid5: mdstat [4/3] [U_UU], degraded 1" degraded_is "[4/3] [U_UU]" 1
ktap_check "raid5: all data verifies degraded" verify_all 0 8
ktap_check "raid5: degraded writes verify" job c write randwrite 4k 16
ktap_check "raid5: remove failed member" remove_failed
ktap_check "raid5: add spare, recovery completes" rebuild /dev/ram4
ktap_check "raid5: mdstat [4/4] [UUUU], degraded 0" degraded_is "[4/4] [UUUU]" 0
ktap_check "raid5: all data verifies after recovery" verify_all 0 8 16
ktap_check "raid5: check: mismatch_cnt 0" md_check_clean md0 600
ktap_check "raid5: stop" mdadm --stop $MD

# RAID6
mdadm --zero-superblock /dev/ram0 /dev/ram1 /dev/ram2 /dev/ram3 /dev/ram4 2>/dev/null
ktap_check "raid6: create 5 members, 64K chunk" r5_create 6 default 5 64
ktap_check "raid6: data written and verified" job a write randwrite 4k 0
ktap_check "raid6: --fail ram0 then ram3 under fio load, fio sees no error" \
	fail_under_load 8 /dev/ram0 /dev/ram3
ktap_check "raid6: mdstat [5/3] [_UU_U], degraded 2" degraded_is "[5/3] [_UU_U]" 2
ktap_check "raid6: all data verifies with two members missing" verify_all 0 8
ktap_check "raid6: writes with two members missing verify" job c write randwrite 4k 16
ktap_check "raid6: remove failed, add two spares, recovery completes" \
	rebuild_after_remove /dev/ram5 /dev/ram6
ktap_check "raid6: mdstat [5/5] [UUUUU], degraded 0" degraded_is "[5/5] [UUUUU]" 0
ktap_check "raid6: all data verifies after recovery" verify_all 0 8 16
ktap_check "raid6: check: mismatch_cnt 0" md_check_clean md0 600
mdstat_array md0 | sed 's/^/# /'
brd_teardown
ktap_finish
