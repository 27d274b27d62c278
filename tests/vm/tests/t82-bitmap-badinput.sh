#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 600
#
# Bad input around the internal bitmap (issue 14, acceptance 6).
#
# A raid1 (1.2, bitmap at 4 KiB after the superblock, i.e. byte 8192)
# whose bitmap superblock is corrupted on both members, one field at a
# time (magic, version 7, chunksize 1000 and 256), must not assemble,
# and the kernel log must say which field is wrong; with the bytes
# restored it assembles again.  (Chunksize 0 cannot be tried through
# mdadm 4.2: its --assemble dies of a division by zero reading it.)  Nonsense writes to md/bitmap/* fail with EINVAL and
# leave the file as it was (on an array without a bitmap, where in-tree
# md validates before anything else, and the range checks of time_base
# and backlog with a bitmap).
. /harness/lib.sh

MD=/dev/md0
BM=8192
mark=0

create() {
	mdadm --create $MD --run --level=1 --raid-devices=2 --metadata=1.2 \
		--bitmap=internal --bitmap-chunk=4M --size=98304 \
		/dev/ram0 /dev/ram1 || return 1
	wait_resync md0 300 || return 1
	mdadm --stop $MD || return 1
	[ "$(get32 /dev/ram0 $BM)" = $((0x6d746962)) ] ||
		{ echo "no bitmap magic at byte $BM"; return 1; }
	dd if=/dev/ram0 of=/tmp/bm.ram0 bs=4096 skip=2 count=1 2>/dev/null &&
		dd if=/dev/ram1 of=/tmp/bm.ram1 bs=4096 skip=2 count=1 2>/dev/null
}

restore() {
	for _r in ram0 ram1; do
		dd if=/tmp/bm.$_r of=/dev/$_r bs=4096 seek=2 count=1 \
			conv=notrunc,fsync 2>/dev/null || return 1
	done
}

# refused FIELD_OFFSET VALUE REASON_REGEX
refused() {
	for _r in ram0 ram1; do put32 /dev/$_r $((BM + $1)) "$2"; done
	mark=$((mark + 1))
	echo "t82 mark $mark" > /dev/kmsg
	if mdadm --assemble $MD /dev/ram0 /dev/ram1 &&
	   grep -q '^md0 : active' /proc/mdstat; then
		echo "assembled with a corrupted bitmap"
		cat /proc/mdstat
		mdadm --stop $MD
		restore
		return 1
	fi
	mdadm --stop $MD >/dev/null 2>&1
	_log=$(dmesg | sed -n "/t82 mark $mark\$/,\$p")
	echo "$_log" | grep -i bitmap
	restore || return 1
	echo "$_log" | grep -i bitmap | grep -Eiq "$3"
}

assembles() {
	mdadm --assemble $MD /dev/ram0 /dev/ram1 || return 1
	grep -A3 '^md0' /proc/mdstat | grep -q 'bitmap:' || return 1
	mdadm --stop $MD
}

S=/sys/block/md0/md/bitmap
sysfs_bad_nobitmap() {
	mdadm --create $MD --run --level=1 --raid-devices=2 --metadata=1.2 \
		--bitmap=none --size=98304 /dev/ram0 /dev/ram1 || return 1
	wait_resync md0 300 || return 1
	_rc=0
	for _w in "location garbage" "location +0" "location file:/tmp/x" \
		  "chunksize 1000" "chunksize abc" "chunksize 256" \
		  "time_base -1" "time_base abc" "backlog 99999" "backlog abc"; do
		sysfs_expect_errno 22 "$S/${_w%% *}" "${_w#* }" || _rc=1
	done
	[ "$(cat $S/location)" = none ] || { echo "location: $(cat $S/location)"; _rc=1; }
	mdadm --stop $MD
	return $_rc
}

sysfs_bad_bitmap() {
	mdadm --create $MD --run --level=1 --raid-devices=2 --metadata=1.2 \
		--bitmap=internal --size=98304 /dev/ram0 /dev/ram1 || return 1
	wait_resync md0 300 || return 1
	_rc=0
	for _w in "time_base -1" "time_base abc" "backlog 99999" \
		  "backlog -1" "can_clear maybe"; do
		sysfs_expect_errno 22 "$S/${_w%% *}" "${_w#* }" || _rc=1
	done
	echo "location $(cat $S/location), time_base $(cat $S/time_base), chunksize $(cat $S/chunksize)"
	case "$(cat $S/location)" in +*) ;; *) _rc=1 ;; esac
	mdadm --stop $MD
	return $_rc
}

ktap_plan 9
ktap_check "brd: two 128 MiB RAM disks" brd_setup 2 131072
ktap_check "create with a bitmap, save its block" create
ktap_check "bad bitmap magic refused with a reason" refused 0 305419896 magic
ktap_check "bitmap version 7 refused with a reason" refused 4 7 version
ktap_check "bitmap chunksize 1000 refused with a reason" refused 52 1000 chunksize
ktap_check "bitmap chunksize 256 refused with a reason" refused 52 256 chunksize
ktap_check "restored bitmap assembles" assembles
ktap_check "md/bitmap/* nonsense: EINVAL, unchanged (no bitmap)" sysfs_bad_nobitmap
ktap_check "md/bitmap/* out of range: EINVAL, unchanged (bitmap)" sysfs_bad_bitmap
brd_teardown
ktap_finish
