#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 240
#
# I/O errors from a member, injected with device-mapper over RAM disks.
# Member 1 is a dm-delay device (0 ms) that sends reads to one dm table
# (m1r) and writes to another (m1w), both linear over ram1; swapping either
# table for one with an `error` range fails only reads or only writes.
#
#  read errors (array 1; member 0 write-mostly so reads go to member 1,
#  which has the default bad-block log):
#   - corrupt ram1 under a 32 KiB range R behind md's back, then make reads
#     of R on member 1 fail for good (the rewrite md attempts cannot cure
#     them): fio verify_only over the data passes (reads of R served from
#     member 0, never the corrupt copy), member 0 stays in sync and the
#     array keeps serving reads and writes;
#   - what happens to member 1 differs, deliberately (raid1.rst, "Errors"):
#     in-tree rewrites R on member 1 from member 0, the read-back fails,
#     it records R in member 1's bad-block log and keeps it in sync
#     ([2/2] [UU], R listed in bad_blocks, ram1's R identical to ram0's);
#     the fork has no bad-block log, so a failed read-back fails member 1
#     ([2/1], member 1 faulty, no I/O error reaches the reader).
#  write errors (array 2; bad-block log removed with --update=no-bbl, so a
#  failed write cannot be parked as a bad block):
#   - while fio writes (and verifies), writes to member 1 start failing:
#     member 1 becomes faulty, the array runs [2/1] [U_], degraded 1, fio
#     sees no error and every acknowledged block verifies.
. /harness/lib.sh

impl=${IMPL:?}

export DM_DISABLE_UDEV=1	# no udev in the guest: dmsetup makes the nodes
MD=/dev/md0
SIZE=32M

range_md5() { # DEV SECTOR COUNT (O_DIRECT: md writes bypass DEV's page cache)
	dd if="$1" bs=4k iflag=direct,skip_bytes,count_bytes skip=$(($2 * 512)) \
		count=$(($3 * 512)) 2>/dev/null | md5sum | cut -d' ' -f1
}

# still_works: R reads through md, new data at 16 MiB writes and verifies
still_works() {
	dd if=$MD of=/dev/null bs=4k iflag=direct skip=2048 count=8 || return 1
	fio_write_verify $MD 4M --offset=16M --randseed=99 > /tmp/fio2.out 2>&1 ||
		{ cat /tmp/fio2.out; return 1; }
	grep -E 'err=' /tmp/fio2.out
}

ktap_plan 22
md_speed_limit
ktap_check "brd: two 64 MiB RAM disks" brd_setup 2 65536
ktap_check "dm: m0 linear; m1 = delay(reads m1r, writes m1w)" dm_split_setup
K1=$(dm_kname m1)
echo "# member 1 is $K1"

# ---- read errors ----
ktap_check "create raid1 (m1, m0 write-mostly)" \
	mdadm --create $MD --run --level=1 --raid-devices=2 --metadata=1.2 \
	/dev/mapper/m1 --write-mostly /dev/mapper/m0
ktap_check "initial resync completes" wait_resync md0 60
ktap_check "fio randwrite + verify" fio_write_verify $MD $SIZE
OFF=$(mdadm --examine /dev/mapper/m1 | md_field "Data Offset" | cut -d' ' -f1)
R=$((OFF + 16384))	# 8 MiB into the data, inside the fio area
RLEN=64			# 32 KiB: 8 failing 4k reads, below max_read_errors (20)
echo "# data offset $OFF, R = [$R, $((R + RLEN))) on ram1"
dd if=/dev/urandom of=/dev/ram1 bs=512 seek=$R count=$RLEN conv=notrunc 2>/dev/null
sync
ktap_check "R on ram1 now differs from ram0" \
	sh -c "[ $(range_md5 /dev/ram0 $R $RLEN) != $(range_md5 /dev/ram1 $R $RLEN) ]"
ktap_check "reads of R on member 1 fail (m1r: error range)" \
	dm_swap m1r "$(lin_err /dev/ram1 $R $RLEN)"
ktap_check "fio verify_only: R served from member 0" fio_verify_only $MD $SIZE
K0=$(dm_kname m0)
ktap_check "member 0 still in_sync" md_member_state "$K0" in_sync
ktap_check "array still reads R and takes writes" still_works
if [ "$impl" = intree ]; then
	ktap_check "intree: still [2/2] [UU], degraded 0" md_array_as "[2/2] [UU]" 0
	ktap_check "intree: member 1 still in_sync" md_member_state "$K1" in_sync
	echo "# member 1 errors: $(cat "/sys/block/md0/md/dev-$K1/errors")," \
		"bad_blocks: $(tr '\n' ' ' < "/sys/block/md0/md/dev-$K1/bad_blocks")"
	ktap_check "intree: R recorded in member 1's bad-block log" \
		sh -c "cat /sys/block/md0/md/dev-$K1/bad_blocks; grep -q . /sys/block/md0/md/dev-$K1/bad_blocks"
	ktap_check "intree: R on ram1 rewritten with member 0's data" \
		sh -c "[ $(range_md5 /dev/ram0 $R $RLEN) = $(range_md5 /dev/ram1 $R $RLEN) ]"
else
	ktap_check "fork: degraded [2/1] [_U], degraded 1 (no bad-block log)" \
		md_array_as "[2/1] [_U]" 1
	ktap_check "fork: member 1 faulty" md_member_state "$K1" faulty
	ktap_check "fork: kernel log says why" sh -c "
		dmesg | grep -E 'rewrite of sector [0-9]+ on $K1 failed' &&
		dmesg | grep -q 'Disk failure on $K1'"
	ktap_skip "intree: R on ram1 rewritten with member 0's data" \
		"the fork fails the member at the first failed read-back"
fi
ktap_check "stop array 1" mdadm --stop $MD
dm_swap m1r "0 $SZ linear /dev/ram1 0"

# ---- write errors ----
mdadm --zero-superblock /dev/mapper/m0 /dev/mapper/m1
ktap_check "create raid1 (m0, m1), drop the bad-block log" sh -c "
	mdadm --create $MD --run --level=1 --raid-devices=2 --metadata=1.2 \
		/dev/mapper/m0 /dev/mapper/m1 &&
	mdadm --wait $MD; mdadm --stop $MD &&
	mdadm --assemble $MD --update=no-bbl /dev/mapper/m0 /dev/mapper/m1 &&
	! mdadm --examine /dev/mapper/m1 | grep -q 'Bad Block Log'"
ktap_check "resync completes" wait_resync md0 60
w0=$(md_writes)
# shellcheck disable=SC2086 # FIO_VERIFY_ARGS is a list of options
(cd /tmp && exec fio --name=werr --filename=$MD --size=$SIZE $FIO_VERIFY_ARGS \
	--do_verify=1 --rate=,8m --eta=never) > /tmp/fio.out 2>&1 &
fio_pid=$!
ktap_check "fio is writing" wait_writes_start "$w0"
ktap_check "writes to member 1 fail (m1w: error range over the data)" \
	dm_swap m1w "$(lin_err /dev/ram1 "$OFF" 65536)"
wait $fio_pid
ktap_check "fio: no error, every acknowledged block verifies" fio_log_ok $?
ktap_check "member 1 faulty" md_member_state "$K1" faulty
ktap_check "degraded: [2/1] [U_], degraded 1" md_array_as "[2/1] [U_]" 1
mdadm --stop $MD > /dev/null 2>&1
dm_split_teardown
brd_teardown
ktap_finish
