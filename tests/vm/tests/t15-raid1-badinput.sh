#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# TIMEOUT: 120
#
# Invalid input must be refused and change nothing:
#  - sysfs: malformed or out-of-range values written to md attributes fail
#    with the errno in-tree md returns (EINVAL mostly; EACCES for read-only
#    attributes, EBUSY where the array's state forbids the change); the
#    attribute reads the same afterwards;
#  - ioctl: tools/md_ioctl_badargs sends md ioctls bad arguments (see there);
#  - the array's --detail and /proc/mdstat are unchanged by all of it;
#  - a persistent array description through SET_ARRAY_INFO (which no
#    mdadm sends: it writes superblocks itself): in-tree md takes it; the
#    fork refuses it by design (Documentation/architecture.rst) with
#    EINVAL and a kernel log line saying so;
#  - `mdadm --create --metadata=0.90` works on both;
#  - afterwards `mdadm --stop --scan` and rmmod of every md module loaded
#    (personalities, then md_mod) succeed (no leaked references); the
#    implementation is then reloaded
#    for the tests that follow.
. /harness/lib.sh

impl=${IMPL:?}

MD=/dev/md0
SYS=/sys/block/md0/md
EINVAL=22 EACCES=13 EBUSY=16 ENXIO=6

# "file|value|errno" (file relative to $SYS unless absolute)
SYSFS_CASES="sync_speed_min|abc|$EINVAL
sync_speed_min|-5|$EINVAL
sync_speed_min|0|$EINVAL
sync_speed_max|abc|$EINVAL
safe_mode_delay|x|$EINVAL
safe_mode_delay|-1|$EINVAL
array_state|bogus|$EINVAL
sync_action|bogus|$EINVAL
level|bogus|$EINVAL
raid_disks|0|$EINVAL
raid_disks|abc|$EINVAL
chunk_size|abc|$EINVAL
layout|abc|$EINVAL
component_size|abc|$EINVAL
resync_start|abc|$EINVAL
sync_force_parallel|5|$EINVAL
sync_max|abc|$EINVAL
metadata_version|bogus|$EBUSY
new_dev|abc|$EINVAL
new_dev|240:77|$ENXIO
dev-ram0/state|bogus|$EINVAL
dev-ram0/slot|abc|$EINVAL
dev-ram0/errors|abc|$EINVAL
degraded|0|$EACCES
mismatch_cnt|0|$EACCES
/proc/sys/dev/raid/speed_limit_min|abc|$EINVAL"

nsysfs=$(echo "$SYSFS_CASES" | wc -l)
nioctl=$(/harness/tools/md_ioctl_badargs --count)
ktap_plan $((nsysfs + nioctl + 12))

md_snapshot() { # what must not change: detail less timestamps, mdstat
	mdadm --detail $MD | grep -v 'Update Time'
	mdstat_array md0
}

md_speed_limit
ktap_check "brd: three 64 MiB RAM disks" brd_setup 3 65536
ktap_check "mdadm --create raid1 on ram0 ram1" \
	mdadm --create $MD --run --level=1 --raid-devices=2 --metadata=1.2 \
	/dev/ram0 /dev/ram1
ktap_check "initial resync completes" wait_resync md0 120
md_snapshot > /tmp/before

while IFS='|' read -r f v e; do
	case "$f" in /*) p=$f ;; *) p=$SYS/$f ;; esac
	ktap_check "sysfs: '$v' > ${p#/sys/block/} refused with errno $e" \
		sysfs_expect_errno "$e" "$p" "$v"
done <<EOF
$SYSFS_CASES
EOF

md_snapshot > /tmp/after
ktap_check "array unchanged by the sysfs writes" diff /tmp/before /tmp/after

# An md device node that is not set up, for the "unconfigured" cases.
[ -b /dev/md1 ] || mknod /dev/md1 b 9 1
/harness/tools/md_ioctl_badargs $MD /dev/ram0 /dev/ram2 /dev/md1 > /tmp/ioctl.out 2>&1
echo "# md_ioctl_badargs exit $?"
n=0
while IFS= read -r l; do
	case "$l" in
	"PASS "*) ktap_ok "ioctl: ${l#PASS }"; n=$((n + 1)) ;;
	"FAIL "*) ktap_not_ok "ioctl: ${l#FAIL }"; n=$((n + 1)) ;;
	*) echo "# $l" ;;
	esac
done < /tmp/ioctl.out
# a crash part-way would leave cases unreported: pad them as failures
while [ $n -lt "$nioctl" ]; do
	ktap_not_ok "ioctl: case $((n + 1)) not reported"
	n=$((n + 1))
done

if [ "$impl" = fork ]; then
	ktap_check "fork: persistent array description refused, kernel log says why" \
		sh -c "dmesg | grep 'md1: SET_ARRAY_INFO array descriptions are only supported without superblocks'"
else
	ktap_skip "fork: persistent array description refused, kernel log says why" \
		"in-tree md takes persistent descriptions"
fi

md_snapshot > /tmp/after
ktap_check "array unchanged by the ioctls" diff /tmp/before /tmp/after
ktap_check "array still readable" dd if=$MD of=/dev/null bs=1M count=16
ktap_check "unconfigured md1 left nothing behind" \
	sh -c '! grep -q "^md1 " /proc/mdstat'
rm -f /dev/md1
# 0.90 through mdadm on the spare (t32-super090-* test it in depth)
ktap_check "mdadm --create --metadata=0.90 works" sh -c "
	mdadm --create /dev/md2 --run --level=1 --raid-devices=1 --force \
		--metadata=0.90 /dev/ram2 && grep -q '^md2 : active raid1' /proc/mdstat"
mdadm --stop /dev/md2 > /dev/null 2>&1
mdadm --zero-superblock /dev/ram2 > /dev/null 2>&1
ktap_check "mdadm --stop --scan" mdadm --stop --scan
ktap_check "no array left" sh -c '! grep -q "^md" /proc/mdstat'
# rmmod_all: every personality loaded, then md_mod
rmmod_all() {
	for _m in raid456 raid10 raid1 raid0 linear; do
		if [ -d "/sys/module/$_m" ]; then
			rmmod "$_m" || return 1
		fi
	done
	rmmod md_mod
}
ktap_check "rmmod the personalities and md_mod" rmmod_all
load_impl "$IMPL" > /dev/null 2>&1 || echo "# reloading $IMPL failed"
brd_teardown
ktap_finish
