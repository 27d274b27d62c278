#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of tests/vm/run-install: the module tree is the distro's
# plus whatever `make install` / `make uninstall` left in updates/, and
# nothing is insmod'ed.  Which md do mdadm's automatic loading and a
# plain `modprobe raid1` give?  INSTALL_EXPECT (fork or intree) says
# which they must give.
#
# INSTALL_STEPS (words, in this order) says what this boot does:
#   load      a RAID1 on RAM disks: mdadm and modprobe load WANT
#   create    an array of every level on the virtio disks' partitions
#             (LEVELS below), each loading its personality by itself,
#             fio data with a checksum in every block over all of it
#   assemble  `mdadm --assemble --scan` after a reboot: every array of
#             create comes back, served by WANT's modules, the data
#             verifies and a check pass finds no mismatch; /proc/mdstat
#             goes to the console (@@MDSTAT-BEGIN/END) for the host's
#             install preflight
. /harness/config
. /harness/lib.sh

want=${INSTALL_EXPECT:?}
steps=${INSTALL_STEPS:-load}

# LEVEL:MEMBERS, member partitions taken in order from PARTS (5 virtio
# disks of 4 primary partitions each, made by run-install)
LEVELS="linear:2 raid0:2 raid1:2 raid4:3 raid5:3 raid6:4 raid10:4"
PARTS="vda1 vda2 vda3 vda4 vdb1 vdb2 vdb3 vdb4 vdc1 vdc2 vdc3 vdc4
	vdd1 vdd2 vdd3 vdd4 vde1 vde2 vde3 vde4"
NLEVELS=$(echo "$LEVELS" | wc -w)
MD_MODULES="raid456 raid10 raid1 raid0 linear md_mod"

# taint_o: md_mod carries the out-of-tree taint (O) exactly when fork
taint_o() {
	_t=$(cat /sys/module/md_mod/taint 2>/dev/null)
	echo "md_mod taint: '$_t'"
	case "$want:$_t" in
	fork:*O*|intree:) return 0 ;;
	intree:*O*) return 1 ;;
	esac
	[ "$want" = intree ]
}

# unload: stop arrays and remove every md module (by name, no paths)
unload() {
	md_stop_all
	for _m in $MD_MODULES; do
		[ -d "/sys/module/$_m" ] && { rmmod "$_m" || return 1; }
	done
	! grep -q '^md_mod ' /proc/modules
}

no_md_loaded() {
	! grep -E "^(md_mod|linear|raid0|raid1|raid10|raid456) " /proc/modules
}

# resolves_to DIR: modules.dep names md-mod and raid1 below DIR.  Only
# updates/ outranks kernel/ in depmod's default search order; between
# other directories the winner is whichever depmod happens to read
# last, so an install elsewhere may work on one host and not the next.
# The distro's modules may be compressed (6.12: raid1.ko.xz).
resolves_to() {
	_dep=/lib/modules/$(uname -r)/modules.dep
	_ko='\.ko\(\.[a-z]*\)\{0,1\}:'
	grep "/\(md-mod\|raid1\)$_ko" "$_dep"
	grep -q "^$1/\(.*/\)\{0,1\}raid1$_ko" "$_dep" &&
		grep -q "^$1/\(.*/\)\{0,1\}md-mod$_ko" "$_dep"
}
[ "$want" = fork ] && where=updates || where=kernel/drivers/md

# level_module LEVEL: the module that serves LEVEL
level_module() {
	case "$1" in
	raid4|raid5|raid6) echo raid456 ;;
	*) echo "$1" ;;
	esac
}

# module_is MODULE: MODULE is loaded and is WANT's (this stack's version
# strings end in -fork; in-tree md modules have none)
module_is() {
	_v=$(cat "/sys/module/$1/version" 2>/dev/null)
	echo "$1 version '$_v'"
	[ -d "/sys/module/$1" ] || { echo "$1 is not loaded"; return 1; }
	case "$want:$_v" in
	fork:*fork*|intree:) return 0 ;;
	esac
	return 1
}

# virtio_disks: the five disks and their partitions (no udev here)
virtio_disks() {
	modprobe virtio_pci && modprobe virtio_blk || return 1
	_n=0
	while [ ! -b /dev/vde4 ] && [ $_n -lt 100 ]; do
		sleep 0.1
		_n=$((_n + 1))
	done
	grep ' vd' /proc/partitions
	for _p in $PARTS; do
		[ -b "/dev/$_p" ] || { echo "/dev/$_p missing"; return 1; }
	done
}

# md_by_name NAME: the running array whose superblock name is NAME
# (mdadm stores HOMEHOST:NAME), as /dev/mdN
md_by_name() {
	for _b in /sys/block/md*; do
		[ -d "$_b/md" ] || continue
		if mdadm --detail --export "/dev/${_b##*/}" 2>/dev/null |
		   grep -q "^MD_NAME=\(.*:\)\{0,1\}$1\$"; then
			echo "/dev/${_b##*/}"
			return 0
		fi
	done
	return 1
}

# served DEV LEVEL: DEV runs at LEVEL, and LEVEL's module and md_mod
# are WANT's.  (The functions here keep their own variable names apart
# from lib.sh's _md, _dev, ...: busybox sh has no locals.)
served() {
	_l=$(cat "/sys/block/${1#/dev/}/md/level")
	echo "${1#/dev/}: level $_l"
	[ "$_l" = "$2" ] && module_is md_mod && module_is "$(level_module "$2")"
}

# fio_size DEV: DEV's size rounded down to fio's 64 KiB blocks
fio_size() {
	echo $(($(blockdev --getsize64 "$1") / 65536 * 65536))
}

# create_level MD LEVEL MEMBERS...: a new array MD named LEVEL, its
# resync waited for, fio data over all of it verified, then stopped
create_level() {
	c_md=$1 c_lvl=$2
	shift 2
	mdadm --create "$c_md" --run --level="$c_lvl" --raid-devices=$# \
		--metadata=1.2 --name="$c_lvl" "$@" || return 1
	served "$c_md" "$c_lvl" || return 1
	# linear and raid0 have no sync_action to wait on (no redundancy)
	case "$c_lvl" in
	linear|raid0) ;;
	*) wait_resync "$c_md" 300 || return 1 ;;
	esac
	fio_write_verify "$c_md" "$(fio_size "$c_md")" --bs=64k > /tmp/fio.out 2>&1
	fio_log_ok $? || return 1
	mdadm --detail "$c_md" | grep -E 'Raid Level|Array Size|State :|Layout|Name'
	mdadm --stop "$c_md"
}

# verify_level LEVEL: the assembled array LEVEL is served by WANT, the
# data create_level wrote verifies, and a check pass (for the levels
# with redundancy) finds every copy / parity in agreement
verify_level() {
	v_md=$(md_by_name "$1") || { echo "no array named $1 is running"; cat /proc/mdstat; return 1; }
	served "$v_md" "$1" || return 1
	(fio_verify_only "$v_md" "$(fio_size "$v_md")" --bs=64k) > /tmp/fio.out 2>&1
	fio_log_ok $? || return 1
	case "$1" in
	linear|raid0) ;;
	*) md_check_clean "$v_md" 300 ;;
	esac
}

# has_module NAME: the module tree has NAME (in-tree linear left the
# kernel in 6.8: a linear array does not run on 6.12's in-tree md)
has_module() {
	grep -q "/$1\.ko\(\.[a-z]*\)\{0,1\}:" "/lib/modules/$(uname -r)/modules.dep"
}

# assembled_all N: mdadm --assemble --scan started N arrays, all active
assembled_all() {
	mdadm --assemble --scan
	cat /proc/mdstat
	_n=$(grep -c '^md[0-9]* : active ' /proc/mdstat)
	echo "$_n active arrays, want $1"
	[ "$_n" = "$1" ]
}

plan=1
for s in $steps; do
	case "$s" in
	load) plan=$((plan + 9)) ;;
	create) plan=$((plan + 3 + $NLEVELS)) ;;
	assemble) plan=$((plan + 4 + $NLEVELS)) ;;
	*) echo "install.sh: unknown step '$s'"; exit 1 ;;
	esac
done
ktap_plan "$plan"
ktap_check "no md module loaded at boot" no_md_loaded
for s in $steps; do
	case "$s" in
	load)
		ktap_check "depmod resolves md-mod and raid1 to $where/" resolves_to "$where"
		brd_setup 2 65536 || ktap_diag "brd_setup failed"
		ktap_check "mdadm --create loads md by itself" \
			mdadm --create /dev/md0 --run --level=1 --raid-devices=2 --metadata=1.2 /dev/ram0 /dev/ram1
		ktap_check "md_mod and raid1 are $want" impl_check "$want"
		ktap_check "out-of-tree taint matches $want" taint_o
		ktap_check "array resyncs" wait_resync md0 120
		ktap_check "fio verify on the array" fio_write_verify /dev/md0 32M --bs=64k
		ktap_check "stop and unload" unload
		ktap_check "modprobe raid1 loads $want" sh -c "modprobe raid1 && . /harness/lib.sh && impl_check $want"
		ktap_check "unload again" unload
		# the RAM disks hold a RAID1 superblock: out of the way of --scan
		brd_teardown
		;;
	create)
		ktap_check "virtio disks with 20 partitions" virtio_disks
		ktap_check "no md module loaded before the arrays are created" no_md_loaded
		n=10
		# shellcheck disable=SC2086 # one partition a word
		set -- $PARTS
		for lm in $LEVELS; do
			l=${lm%:*} m=${lm#*:} mem=
			while [ "$m" -gt 0 ]; do
				mem="$mem /dev/$1"
				shift
				m=$((m - 1))
			done
			# shellcheck disable=SC2086 # members are words
			ktap_check "$l: mdadm --create loads $want's $(level_module "$l"), data written and verified" \
				create_level "/dev/md$n" "$l" $mem
			n=$((n + 1))
		done
		ktap_check "every md module loaded is $want's" impl_check "$want"
		;;
	assemble)
		ktap_check "virtio disks with 20 partitions" virtio_disks
		n=0 gone=
		for lm in $LEVELS; do
			l=${lm%:*}
			if has_module "$(level_module "$l")"; then
				n=$((n + 1))
			else
				gone="$gone $l"
			fi
		done
		ktap_check "mdadm --assemble --scan starts the $n arrays it has modules for" \
			assembled_all "$n"
		for lm in $LEVELS; do
			l=${lm%:*}
			case " $gone " in
			*" $l "*)
				ktap_skip "$l: served by $want's $l" "$want has no $l module in $(uname -r)"
				continue ;;
			esac
			ktap_check "$l: served by $want's $(level_module "$l"), data verified after the reboot" \
				verify_level "$l"
		done
		ktap_check "every md module loaded is $want's" impl_check "$want"
		echo "@@MDSTAT-BEGIN"
		cat /proc/mdstat
		echo "@@MDSTAT-END"
		ktap_check "stop and unload" unload
		;;
	esac
done
ktap_finish
