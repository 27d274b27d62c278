# SPDX-License-Identifier: GPL-2.0
#
# Shared by t81 (1.2 superblocks) and t89 (0.90): raid1 over two
# dm-linear members over RAM disks, 4 MiB bitmap chunks; readd() fails a
# member on one implementation and re-adds it on another, and checks the
# recovery wrote only the dirty chunk.  Sourced after /harness/lib.sh.

MD=/dev/md0
impl=${IMPL:?}
partner=intree
export DM_DISABLE_UDEV=1
CHUNK_SECTORS=8192

# bitmap_at_090 DEV: the bitmap magic right after DEV's 0.90 superblock
# (MD_NEW_SIZE_SECTORS: the last 64 KiB-aligned 64 KiB, + 4 KiB)
bitmap_at_090() {
	_sb=$(( ($(blockdev --getsz "$1") / 128 - 1) * 128 ))
	_m=$(get32 "$1" $(( (_sb + 8) * 512 )))
	[ "$_m" = $((0x6d746962)) ] ||
		{ echo "$1: no bitmap magic at sector $((_sb + 8)) (got $_m)"; return 1; }
}

# readd FAIL_IMPL READD_IMPL [METADATA]
readd() {
	switch_impl "$1" || return 1
	mdadm --zero-superblock /dev/mapper/m0 /dev/mapper/m1 2>/dev/null
	mdadm --create $MD --run --level=1 --raid-devices=2 \
		--metadata="${3:-1.2}" --bitmap=internal --bitmap-chunk=4M \
		--size=98304 /dev/mapper/m0 /dev/mapper/m1 || return 1
	wait_resync md0 300 || return 1
	if [ "${3:-1.2}" = 0.90 ]; then
		bitmap_at_090 /dev/mapper/m0 && bitmap_at_090 /dev/mapper/m1 ||
			return 1
	fi
	fio_write_verify $MD 32M > /tmp/fio.out 2>&1 ||
		{ cat /tmp/fio.out; return 1; }
	wait_bitmap_dirty 0 /dev/mapper/m0 || return 1
	mdadm $MD --fail /dev/mapper/m1 && mdadm $MD --remove /dev/mapper/m1 ||
		return 1
	blob_write $MD || return 1
	echo "dirty chunks while degraded: $(bitmap_dirty /dev/mapper/m0)"
	if [ "$2" != "$1" ]; then
		mdadm --stop $MD || return 1
		switch_impl "$2" || return 1
		mdadm --assemble --run $MD /dev/mapper/m0 || return 1
	fi
	# the dirty chunk (2048 sectors of it at least), at most 3 chunks
	readd_only_dirty $MD /dev/mapper/m1 m1 $CHUNK_SECTORS || return 1
	fio_verify_only $MD 32M > /tmp/fio.out 2>&1 ||
		{ cat /tmp/fio.out; return 1; }
	mdadm --stop $MD
}

# readd_setup / readd_teardown: the RAM disks and dm members around the cases
readd_setup() {
	ktap_diag "implementation under test: $impl, partner: $partner"
	ktap_check "brd: two 128 MiB RAM disks" brd_setup 2 131072
	ktap_check "dm-linear members m0, m1" sh -c \
		'modprobe dm-mod && SZ=$(blockdev --getsz /dev/ram0) &&
		 dmsetup create m0 --table "0 $SZ linear /dev/ram0 0" &&
		 dmsetup create m1 --table "0 $SZ linear /dev/ram1 0"'
}

readd_teardown() {
	md_stop_all
	dmsetup remove m1 2>/dev/null
	dmsetup remove m0 2>/dev/null
	ktap_check "back to $impl" switch_impl "$impl"
	brd_teardown
}
