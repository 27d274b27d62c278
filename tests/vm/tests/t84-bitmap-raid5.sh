#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 900
# SLOW: bitmaps on RAID5 and RAID6 both ways with in-tree md, about 3 min per implementation (TCG)
#
# Internal write-intent bitmap on raid5 and raid6 (issue 14, acceptance
# 1, 2 and 4 for raid4/5/6).  Members are dm-linear over RAM disks so
# the block layer counts what each member is written.
#
# For raid5 (3 members) and raid6 (4 members), 4 MiB bitmap chunks:
#   - create with --bitmap=internal: the mdstat bitmap line, magic and
#     chunk size on every member; fio writes and verifies; a direct
#     1 MiB write has its bit on disk at once, cleared when idle;
#   - fail and remove the last member, write 1 MiB, --re-add: the
#     recovery writes at most a few bitmap chunks to it (sectors
#     counted), "check" finds mismatch_cnt 0, the data reads back;
#   - stop, switch to the partner implementation, assemble, check and
#     verify, write, stop, back: check and verify again.
. /harness/lib.sh

MD=/dev/md0
impl=${IMPL:?}
partner=intree
export DM_DISABLE_UDEV=1
CHUNK_SECTORS=8192

written() { awk '{ print $7 }' "/sys/block/$(dm_kname "$1")/stat"; }

# run_level LEVEL N
run_level() {
	_lvl=$1 _n=$2
	_devs=
	_i=0
	while [ $_i -lt "$_n" ]; do _devs="$_devs /dev/mapper/m$_i"; _i=$((_i + 1)); done
	_last=m$((_n - 1))
	mdadm --zero-superblock $_devs 2>/dev/null
	mdadm --create $MD --run --level="$_lvl" --raid-devices="$_n" \
		--metadata=1.2 --chunk=64 --bitmap=internal --bitmap-chunk=4M \
		--size=65536 $_devs || return 1
	wait_resync md0 300 || return 1
	cat /proc/mdstat
	mdstat_array md0 | grep -q 'bitmap: .*, 4096KB chunk' || return 1
	for _d in $_devs; do
		[ "$(bitmap_field "$_d" Magic)" = 6d746962 ] || return 1
		[ "$(bitmap_field "$_d" Chunksize)" = "4 MB" ] || return 1
	done
	fio_write_verify $MD 32M > /tmp/fio.out 2>&1 ||
		{ cat /tmp/fio.out; return 1; }
	wait_bitmap_dirty 0 /dev/mapper/m0 || return 1
	dd if=/dev/urandom of=$MD bs=1M seek=40 count=1 oflag=direct 2>/dev/null ||
		return 1
	_d0=$(bitmap_dirty /dev/mapper/m0)
	echo "right after a 1 MiB write: $_d0 dirty"
	[ "$_d0" -ge 1 ] && [ "$_d0" -le 2 ] || return 1
	wait_bitmap_dirty 0 /dev/mapper/m0 || return 1

	mdadm $MD --fail /dev/mapper/$_last && mdadm $MD --remove /dev/mapper/$_last ||
		return 1
	dd if=/dev/urandom of=/tmp/blob bs=1M count=1 2>/dev/null
	dd if=/tmp/blob of=$MD bs=1M seek=48 count=1 oflag=direct 2>/dev/null ||
		return 1
	_w0=$(written $_last)
	mdadm $MD --re-add /dev/mapper/$_last || return 1
	sleep 1
	wait_resync md0 300 || return 1
	_w=$(( $(written $_last) - _w0 ))
	echo "sectors written to $_last by the re-add: $_w (member size $((65536 * 2)))"
	[ "$(cat /sys/block/md0/md/degraded)" = 0 ] || return 1
	[ "$_w" -ge 1 ] && [ "$_w" -le $((3 * CHUNK_SECTORS)) ] || return 1
	md_check_clean md0 300 || return 1
	dd if=$MD of=/tmp/back bs=1M skip=48 count=1 iflag=direct 2>/dev/null &&
		cmp /tmp/blob /tmp/back || return 1
	mdadm --stop $MD || return 1

	switch_impl $partner || return 1
	mdadm --assemble $MD $_devs || return 1
	md_check_clean md0 300 || return 1
	fio_verify_only $MD 32M > /tmp/fio.out 2>&1 ||
		{ cat /tmp/fio.out; return 1; }
	fio_write_verify $MD 32M --randseed=77 > /tmp/fio.out 2>&1 ||
		{ cat /tmp/fio.out; return 1; }
	mdadm --stop $MD || return 1
	switch_impl "$impl" || return 1
	mdadm --assemble $MD $_devs || return 1
	md_check_clean md0 300 || return 1
	fio_verify_only $MD 32M --randseed=77 > /tmp/fio.out 2>&1 ||
		{ cat /tmp/fio.out; return 1; }
	mdadm --stop $MD
}

ktap_plan 4
ktap_diag "implementation under test: $impl, partner: $partner"
ktap_check "brd: four 96 MiB RAM disks, dm-linear m0..m3" sh -c \
	'. /harness/lib.sh; brd_setup 4 98304 && modprobe dm-mod &&
	 SZ=$(blockdev --getsz /dev/ram0) &&
	 for i in 0 1 2 3; do
		dmsetup create m$i --table "0 $SZ linear /dev/ram$i 0" || exit 1
	 done'
ktap_check "raid5: bitmap layout, lazy clear, re-add counts, compat" run_level 5 3
ktap_check "raid6: bitmap layout, lazy clear, re-add counts, compat" run_level 6 4
md_stop_all
for i in 0 1 2 3; do dmsetup remove m$i 2>/dev/null; done
ktap_check "back to $impl" switch_impl "$impl"
brd_teardown
ktap_finish
