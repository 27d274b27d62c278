#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 300
# SLOW: member devices grown under a running array, about 45 s per implementation (TCG); make check keeps under 30 min
#
# Online member growth (issue 35), the cloud-disk resize path: the
# members' devices grow under a running array, then `mdadm --grow
# --size max` (which writes 0, "as large as the device allows", to every
# md/dev-*/size, then the component size) makes the array use the new
# room.  Members are dm-linear devices of 32 MiB over 64 MiB RAM disks;
# growing one is a table reload to 64 MiB.  Cases: RAID1 with metadata
# 1.2, 1.0 (superblock at the end: it must move to the new end) and 0.90
# (likewise), and RAID5 on four members (1.2).  Both implementations, the
# same assertions, each case:
#  - on the running array, dev-*/size refuses less than component_size
#    (EBUSY) and garbage (EINVAL), changing nothing;
#  - after the reload, `mdadm --grow --size max` succeeds and the array
#    grows to at least 60 MiB per member; md0 is component_size times the
#    data members and no member offers less than component_size;
#  - the grown part is resynced (the last RAM disk holds other bytes
#    there beforehand: a check finds no mismatch only after a resync);
#  - data written before the growth verifies, data written to the grown
#    part verifies;
#  - writing dev-*/size beyond the device changes nothing: this stack
#    refuses it (ENOSPC), in-tree md clamps it to the room, which after
#    --size max is the size already there; only "unchanged" is asserted;
#  - after mdadm --stop and --assemble the array has the grown size (the
#    members' superblocks record room for it; for 1.0 and 0.90 they are
#    found at the new end) and both data sets verify.
. /harness/lib.sh

export DM_DISABLE_UDEV=1	# no udev in the guest: dmsetup makes the nodes
MD=/dev/md0
SYS=/sys/block/md0/md
SMALL=65536	# sectors: the members before the growth (32 MiB)
BIG=131072	# sectors: after it (64 MiB, all of the RAM disk)
EINVAL=22
EBUSY=16

dm_names() { # N: g0 .. gN-1
	_l=''
	_i=0
	while [ $_i -lt "$1" ]; do _l="$_l g$_i"; _i=$((_i + 1)); done
	echo "$_l"
}

dm_remove_all() {
	for _n in g0 g1 g2 g3; do dmsetup remove "$_n" 2>/dev/null; done
	return 0
}

# members_setup N: N RAM disks of 64 MiB, dm-linear gI over the first
# 32 MiB of ramI; the last RAM disk gets random bytes at 40 MiB, which
# only a resync of the grown part can make agree with the others
members_setup() {
	md_stop_all
	dm_remove_all
	brd_setup "$1" 65536 && modprobe dm-mod || return 1
	for _n in $(dm_names "$1"); do
		dmsetup create "$_n" --table "0 $SMALL linear /dev/ram${_n#g} 0" ||
			return 1
	done
	dd if=/dev/urandom of="/dev/ram$(($1 - 1))" bs=1M seek=40 count=8 \
		oflag=direct 2>/dev/null
}

# members_grow N: reload every table with all 64 MiB of its RAM disk
members_grow() {
	for _n in $(dm_names "$1"); do
		dmsetup reload "$_n" --table "0 $BIG linear /dev/ram${_n#g} 0" ||
			return 1
		dmsetup resume "$_n" || return 1
		_s=$(blockdev --getsz "/dev/mapper/$_n")
		echo "$_n: $_s sectors"
		[ "$_s" = $BIG ] || return 1
	done
}

# shellcheck disable=SC2046
create() { # LEVEL N METADATA
	_extra=
	[ "$1" = 5 ] && _extra=--chunk=64
	# zeroed members: mirrors and parity agree, no initial sync needed
	mdadm --create $MD --run --assume-clean --level="$1" \
		--raid-devices="$2" --metadata="$3" $_extra \
		$(for _n in $(dm_names "$2"); do echo "/dev/mapper/$_n"; done)
}

# md_fio write|verify OFFSET SIZE SEED: 16k random writes with crc32c
# over [OFFSET, OFFSET + SIZE) of md0 and their read-back, or only the
# read-back of what such a run wrote
md_fio() {
	_v=--verify_only
	[ "$1" = write ] && _v=--do_verify=1
	(cd /tmp && fio --name=grow --filename=$MD --rw=randwrite --bs=16k \
		--ioengine=libaio --iodepth=16 --direct=1 --offset="$2" \
		--size="$3" --verify=crc32c --verify_fatal=1 --randrepeat=1 \
		--randseed="$4" --verify_state_save=0 --eta=never "$_v") \
		> /tmp/fio.out 2>&1
	fio_log_ok $?
}

# refusals KNAME: less than the array uses, and garbage
refusals() {
	sysfs_expect_errno $EBUSY "$SYS/dev-$1/size" 1024 &&
	sysfs_expect_errno $EINVAL "$SYS/dev-$1/size" 12x
}

# grown DATA N OLD_KIB: --size max grew the array past 60 MiB per member
grown() {
	md_grow_max 120 || return 1
	_c=$GROWN_KIB
	_b=$(blockdev --getsize64 $MD)
	echo "component_size $_c KiB (was $3), md0 $_b bytes"
	if [ "$_c" -le "$3" ] || [ "$_c" -lt 61440 ] ||
	   [ "$_b" != $((_c * 1024 * $1)) ]; then
		return 1
	fi
	for _n in $(dm_names "$2"); do
		_k=$(dm_kname "$_n") || return 1
		_d=$(cat "$SYS/dev-$_k/size")
		echo "$_n ($_k): size $_d KiB"
		[ "$_d" -ge "$_c" ] || return 1
	done
}

# beyond_device KNAME: a size larger than the device changes nothing
beyond_device() {
	_f=$SYS/dev-$1/size
	_before="$(cat "$_f") $(cat $SYS/component_size) $(blockdev --getsize64 $MD)"
	/harness/tools/sysfs_write "$_f" $((BIG / 2 + 1024))
	echo "write $((BIG / 2 + 1024)) KiB: exit $?"
	_after="$(cat "$_f") $(cat $SYS/component_size) $(blockdev --getsize64 $MD)"
	echo "size, component_size, md0: before $_before, after $_after"
	[ "$_before" = "$_after" ]
}

# both_verify OFFSET: the data written before the growth and the data
# written to the grown part at OFFSET
both_verify() { md_fio verify 0 8M 57 && md_fio verify "$1" 8M 58; }

# shellcheck disable=SC2046
reassembled() { # DATA N KIB
	mdadm --stop $MD || return 1
	mdadm --assemble $MD \
		$(for _n in $(dm_names "$2"); do echo "/dev/mapper/$_n"; done) ||
		return 1
	md_size_is "$3" "$1"
}

# grow_case LEVEL N METADATA
grow_case() {
	gc_l=$1 gc_n=$2 gc_m=$3
	gc_d=1
	[ "$gc_l" = 5 ] && gc_d=$((gc_n - 1))
	gc_w="raid$gc_l, $gc_n members, $gc_m"
	ktap_check "$gc_w: brd, dm members of 32 MiB" members_setup "$gc_n"
	ktap_check "$gc_w: created" create "$gc_l" "$gc_n" "$gc_m"
	gc_k=$(dm_kname g0)
	gc_old=$(cat $SYS/component_size)
	echo "# component_size $gc_old KiB, first member $gc_k"
	ktap_check "$gc_w: 8 MiB written and verified" md_fio write 0 8M 57
	ktap_check "$gc_w: dev-*/size below component_size (EBUSY), garbage (EINVAL)" \
		refusals "$gc_k"
	ktap_check "$gc_w: dm tables reloaded to 64 MiB" members_grow "$gc_n"
	ktap_check "$gc_w: mdadm --grow --size max: grown, resynced" \
		grown "$gc_d" "$gc_n" "$gc_old"
	gc_new=$(cat $SYS/component_size)
	# the grown part starts at the old size: the first whole MiB in it
	gc_off=$(( (gc_old * gc_d + 1023) / 1024 ))
	gc_off=$((gc_off * 1048576))
	ktap_check "$gc_w: check finds the grown part in sync" md_check_clean md0 120
	ktap_check "$gc_w: the old data verifies" md_fio verify 0 8M 57
	ktap_check "$gc_w: 8 MiB in the grown part written and verified" \
		md_fio write "$gc_off" 8M 58
	ktap_check "$gc_w: dev-*/size beyond the device changes nothing" \
		beyond_device "$gc_k"
	ktap_check "$gc_w: stop, assemble: still $gc_new KiB per member" \
		reassembled "$gc_d" "$gc_n" "$gc_new"
	ktap_check "$gc_w: after assembly both data sets verify" \
		both_verify "$gc_off"
	md_stop_all
	dm_remove_all
	brd_teardown
}

ktap_plan 48
md_speed_limit
grow_case 1 2 1.2
grow_case 1 2 1.0
grow_case 1 2 0.90
grow_case 5 4 1.2
ktap_finish
