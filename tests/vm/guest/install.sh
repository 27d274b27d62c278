#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of tests/vm/run-install: the module tree is the distro's
# plus whatever `make install` / `make uninstall` left in updates/, and
# nothing is insmod'ed.  Which md do mdadm's automatic loading and a
# plain `modprobe raid1` give?  INSTALL_EXPECT (fork or intree) says
# which they must give.
. /harness/config
. /harness/lib.sh

want=${INSTALL_EXPECT:?}

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
	for _m in raid456 raid1 raid0 linear md_mod; do
		[ -d "/sys/module/$_m" ] && { rmmod "$_m" || return 1; }
	done
	! grep -q '^md_mod ' /proc/modules
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

ktap_plan 10
ktap_check "no md module loaded at boot" sh -c '! grep -qE "^(md_mod|linear|raid0|raid1|raid456) " /proc/modules'
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
ktap_finish
