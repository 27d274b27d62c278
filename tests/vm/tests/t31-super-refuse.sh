#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 240
#
# Corrupt-superblock refusal.  A two-member RAID1 (1.2) is made on RAM
# disks; then, one corruption at a time, ram1's superblock is damaged
# (bad checksum, bad magic, an unknown feature bit, another array's UUID,
# a wrong super_offset, a non-empty bad block log) with the checksum
# recomputed where the corruption is not the checksum itself.  Each
# case is tried on both ways in:
#   kernel  sysfs new_array + metadata_version + new_dev, which reaches
#           the kernel's own superblock checks (mdadm would refuse most of
#           these in user space first): writing ram1 to new_dev must fail
#           and the kernel log must name ram1 (on fork: with the reason);
#   mdadm   mdadm --assemble --run of both members must leave ram1 out.
# The intact superblock is then restored and the array must assemble
# whole again.
. /harness/lib.sh

impl=${IMPL:?}
SB=4096			# 1.2: superblock 4 KiB into each member
MD=md0

# ---- superblock byte surgery (busybox: od, awk, printf, dd) --------------

# fix_csum DEV: recompute the checksum of DEV's superblock at $SB.
fix_csum() {
	_maxdev=$(get32 "$1" $((SB + 220)))
	_len=$((256 + 2 * _maxdev))
	put32 "$1" $((SB + 216)) 0
	echo 3 > /proc/sys/vm/drop_caches
	_sum=$(dd if="$1" bs=4096 skip=1 count=1 2>/dev/null |
		od -An -v -tu2 -N "$_len" |
		awk '{ for (i = 1; i <= NF; i++) { w[n++] = $i } }
		     END { s = 0
			   for (i = 0; i + 1 < n; i += 2) s += w[i] + w[i + 1] * 65536
			   if (n % 2) s += w[n - 1]
			   lo = s % 4294967296; hi = int(s / 4294967296)
			   printf "%.0f\n", (lo + hi) % 4294967296 }')
	put32 "$1" $((SB + 216)) "$_sum"
}

save_sb() { dd if="$1" of="/tmp/sb.$2" bs=4096 skip=1 count=1 2>/dev/null; }
restore_sb() {
	dd if="/tmp/sb.$2" of="$1" bs=4096 seek=1 count=1 conv=notrunc,fsync 2>/dev/null
	echo 3 > /proc/sys/vm/drop_caches
}

# csum_helper_ok: recomputing an intact superblock's checksum changes nothing.
csum_helper_ok() {
	_old=$(get32 /dev/ram1 $((SB + 216)))
	fix_csum /dev/ram1
	_new=$(get32 /dev/ram1 $((SB + 216)))
	echo "stored $_old recomputed $_new"
	restore_sb /dev/ram1 ram1
	[ "$_old" = "$_new" ]
}

# ---- the two ways in -------------------------------------------------------

devnum() { cat "/sys/class/block/${1#/dev/}/dev"; }

# kernel_refuses DEV WHY: ram0 is accepted through sysfs new_dev, DEV is
# refused; the kernel log names DEV (and on fork, says WHY).
kernel_refuses() {
	_dev=$1
	_why=$2
	dmesg -c > /dev/null
	echo $MD > /sys/module/md_mod/parameters/new_array 2>/dev/null
	[ -d /sys/block/$MD/md ] || { echo "no /sys/block/$MD/md"; return 1; }
	echo 1.2 > /sys/block/$MD/md/metadata_version || return 1
	if ! devnum /dev/ram0 > /sys/block/$MD/md/new_dev; then
		echo "new_dev refused the intact ram0"
		dmesg
		_rc=1
	elif devnum "$_dev" > /sys/block/$MD/md/new_dev 2>/dev/null; then
		echo "new_dev accepted the damaged $_dev"
		_rc=1
	else
		_rc=0
	fi
	dmesg | sed 's/^/kernel: /'
	if [ $_rc = 0 ] && ! dmesg | grep -q "${_dev#/dev/}"; then
		echo "no kernel log line names ${_dev#/dev/}"
		_rc=1
	fi
	if [ $_rc = 0 ] && [ "$impl" = fork ] && ! dmesg | grep -q "$_why"; then
		echo "no kernel log line says '$_why'"
		_rc=1
	fi
	mdadm --stop /dev/$MD > /dev/null 2>&1
	return $_rc
}

# mdadm_leaves_out DEV WHY: mdadm --assemble --run must not make DEV a
# member.  mdadm checks magic, version, offset and UUID itself; the rest
# reach the kernel through ADD_NEW_DISK ("failed to add"), and then the
# kernel log must name DEV (on fork, with WHY).
mdadm_leaves_out() {
	dmesg -c > /dev/null
	_ev0=$(mdadm --examine /dev/ram0 | sed -n 's/ *Events : //p')
	mdadm --assemble --run /dev/$MD /dev/ram0 "$1" > /tmp/asm.out 2>&1
	cat /tmp/asm.out /proc/mdstat
	_rc=0
	if [ -e "/sys/block/$MD/md/dev-${1#/dev/}" ]; then
		echo "${1#/dev/} was assembled into $MD"
		_rc=1
	fi
	if grep -q "failed to add" /tmp/asm.out; then
		dmesg | sed 's/^/kernel: /'
		if ! dmesg | grep -q "${1#/dev/}"; then
			echo "no kernel log line names ${1#/dev/}"
			_rc=1
		elif [ "$impl" = fork ] && ! dmesg | grep -q "$2"; then
			echo "no kernel log line says '$2'"
			_rc=1
		fi
	fi
	mdadm --stop /dev/$MD > /dev/null 2>&1
	echo "ram0 events before $_ev0, after $(mdadm --examine /dev/ram0 | sed -n 's/ *Events : //p')"
	return $_rc
}

# whole_again: with the superblock restored both members assemble.
whole_again() {
	restore_sb /dev/ram1 ram1
	mdadm --assemble /dev/$MD /dev/ram0 /dev/ram1 || return 1
	_n=$(cat /sys/block/$MD/md/raid_disks)
	_d=$(cat /sys/block/$MD/md/degraded)
	mdadm --stop /dev/$MD
	[ "$_n" = 2 ] && [ "$_d" = 0 ] && return 0
	echo "raid_disks $_n degraded $_d"
	mdadm --examine /dev/ram0 /dev/ram1 | grep -E '^/dev|Events|State|Role'
	return 1
}

# ---- corruptions (offsets inside struct mdp_superblock_1) -----------------

c_csum() { put32 /dev/ram1 $((SB + 216)) $(( $(get32 /dev/ram1 $((SB + 216))) ^ 1 )); }
c_magic() { put32 /dev/ram1 $((SB + 0)) 305419896; fix_csum /dev/ram1; }
c_feature() { put32 /dev/ram1 $((SB + 8)) 1048576; fix_csum /dev/ram1; }
c_uuid() {
	put32 /dev/ram1 $((SB + 16)) $(( $(get32 /dev/ram1 $((SB + 16))) ^ 65535 ))
	fix_csum /dev/ram1
}
c_offset() { put32 /dev/ram1 $((SB + 144)) 16; fix_csum /dev/ram1; }
c_major() { put32 /dev/ram1 $((SB + 4)) 2; fix_csum /dev/ram1; }
c_pad() { put32 /dev/ram1 $((SB + 12)) 1; fix_csum /dev/ram1; }
c_size() { put32 /dev/ram1 $((SB + 140)) 1; fix_csum /dev/ram1; }

# name:expected fork reason (dots for spaces)
CASES="csum:bad.superblock.checksum magic:bad.superblock.magic
feature:unknown.superblock.feature.bits uuid:has.a.different.array.UUID
offset:super_offset major:unsupported.superblock.major.version
pad:reserved.superblock.fields.are.not.zero size:does.not.fit.the.device"

n=0
for c in $CASES; do n=$((n + 1)); done
ktap_plan $((3 + 3 * n))

ktap_check "brd: two 128 MiB RAM disks" brd_setup 2 131072
ktap_check "mdadm --create raid1 1.2 --assume-clean" \
	mdadm --create /dev/$MD --run --assume-clean --level=1 \
	--raid-devices=2 --metadata=1.2 /dev/ram0 /dev/ram1
mdadm --stop /dev/$MD > /dev/null 2>&1
save_sb /dev/ram1 ram1
ktap_check "checksum helper reproduces mdadm's checksum" csum_helper_ok

for c in $CASES; do
	name=${c%%:*}
	why=$(echo "${c#*:}" | tr . ' ')
	"c_$name"
	ktap_check "$name: kernel refuses ram1 (new_dev)" kernel_refuses /dev/ram1 "$why"
	ktap_check "$name: mdadm --assemble leaves ram1 out" mdadm_leaves_out /dev/ram1 "$why"
	ktap_check "$name: restored superblock assembles whole" whole_again
done

brd_teardown
ktap_finish
