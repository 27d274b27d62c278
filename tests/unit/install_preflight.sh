#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/install.sh preflight over sample /proc/mdstat contents: what
# this stack cannot serve is refused and named; what it serves passes.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 failed=0

# case NAME WANT_RC WANT_GREP [FORCE]: MDSTAT from stdin
case_() {
	local name=$1 want=$2 pat=$3 force=${4:-0} rc
	n=$((n + 1))
	cat > "$tmp/mdstat"
	FORCE=$force MDSTAT=$tmp/mdstat KABI=test \
		"$top/scripts/install.sh" preflight > "$tmp/out" 2>&1
	rc=$?
	sed 's/^/# /' "$tmp/out"
	if [ "$rc" = "$want" ] && grep -qE "$pat" "$tmp/out"; then
		echo "ok $n $name"
	else
		echo "not ok $n $name # exit $rc (want $want), output must match '$pat'"
		failed=$((failed + 1))
	fi
}

echo "KTAP version 1"
echo "1..14"
case_ "no arrays pass" 0 'preflight: no array' <<'M'
Personalities :
unused devices: <none>
M
case_ "an active raid1 passes" 0 'preflight: no array' <<'M'
Personalities : [raid1]
md0 : active raid1 sdb1[1] sda1[0]
      1046528 blocks super 1.2 [2/2] [UU]

unused devices: <none>
M
case_ "raid10, raid5, raid0 and linear pass" 0 'preflight: no array' <<'M'
Personalities : [raid1] [raid6] [raid5] [raid4] [raid0] [raid10] [linear]
md0 : active (auto-read-only) raid5 sde[3] sdd[1] sdc[0]
      2093056 blocks super 1.2 level 5, 512k chunk, algorithm 2 [3/3] [UUU]

md1 : active raid10 sdb1[1] sda1[0]
      2093056 blocks super 1.2 512K chunks 2 near-copies [2/2] [UU]

md2 : active raid0 sdf1[1] sdg1[0]
      2093056 blocks super 1.2 512k chunks

md3 : active linear sdh1[1] sdi1[0]
      2093056 blocks super 1.2 0k rounding

unused devices: <none>
M
# md127: this stack's own line (tests/vm/run-install, boot 2)
case_ "raid10 in near, far and offset layouts passes" 0 'preflight: no array' <<'M'
Personalities : [raid10]
md127 : active raid10 vde1[0] vde4[3] vde3[2] vde2[1]
      45056 blocks super 1.2 512K chunks 2 near-copies [4/4] [UUUU]

md2 : active raid10 sdd[3] sdc[2] sdb[1] sda[0]
      2093056 blocks super 1.2 512K chunks 2 far-copies [4/4] [UUUU]

md3 : active (auto-read-only) raid10 sdg[2] sdf[1] sde[0]
      1569792 blocks super 1.2 64K chunks 2 offset-copies [3/3] [UUU]

unused devices: <none>
M
case_ "multipath is refused and named beside a raid10 that passes" 1 'md4: level multipath is not served' <<'M'
Personalities : [raid10] [multipath]
md1 : active raid10 sdb1[1] sda1[0]
      2093056 blocks super 1.2 512K chunks 2 near-copies [2/2] [UU]

md4 : active multipath sdd[1] sdc[0]
      2093056 blocks [2/2] [UU]

unused devices: <none>
M
case_ "raid0 and linear pass" 0 'preflight: no array' <<'M'
Personalities : [raid0] [linear]
md2 : active raid0 sdf1[1] sdg1[0]
      2093056 blocks super 1.2 512k chunks

md3 : active linear sdh1[1] sdi1[0]
      2093056 blocks super 1.2 0k rounding

unused devices: <none>
M
case_ "a raid1 with a bitmap passes" 0 'preflight: no array' <<'M'
Personalities : [raid1]
md0 : active raid1 sdb[1] sda[0]
      104791040 blocks super 1.2 [2/2] [UU]
      bitmap: 1/1 pages [4KB], 65536KB chunk

unused devices: <none>
M
case_ "raid1 and raid5 with bitmaps pass" 0 'preflight: no array' <<'M'
Personalities : [raid1] [raid6] [raid5] [raid4]
md0 : active raid1 sdb[1] sda[0]
      104791040 blocks super 1.2 [2/2] [UU]
      bitmap: 1/1 pages [4KB], 65536KB chunk

md1 : active raid5 sde[3] sdd[1] sdc[0]
      2093056 blocks super 1.2 level 5, 512k chunk, algorithm 2 [3/3] [UUU]
      bitmap: 0/8 pages [0KB], 65536KB chunk

unused devices: <none>
M
case_ "an inactive array shows no level and passes" 0 'preflight: no array' <<'M'
Personalities :
md127 : inactive sdb[1](S) sda[0](S)
      2093056 blocks super 1.2

unused devices: <none>
M
case_ "a file-backed bitmap is served: passes" 0 'preflight: no array' <<'M'
Personalities : [raid1]
md0 : active raid1 sdb[1] sda[0]
      104791040 blocks super 1.2 [2/2] [UU]
      bitmap: 1/1 pages [4KB], 65536KB chunk, file: /var/md0.bitmap

unused devices: <none>
M
case_ "a raid5 write journal is refused and named" 1 'md1: a write journal is not served' <<'M'
Personalities : [raid6] [raid5] [raid4]
md1 : active raid5 sdd[4](J) sdc[2] sdb[1] sda[0]
      2093056 blocks super 1.2 level 5, 512k chunk, algorithm 2 [3/3] [UUU]

unused devices: <none>
M
case_ "IMSM external metadata is refused and named" 1 'md126: external metadata' <<'M'
Personalities : [raid1]
md126 : active raid1 sda[1] sdb[0]
      976759808 blocks super external:/md127/0 [2/2] [UU]

md127 : inactive sdb[1](S) sda[0](S)
      5288 blocks super external:imsm

unused devices: <none>
M
case_ "a reshape in progress is refused and named" 1 'md0: a reshape in progress' <<'M'
Personalities : [raid6] [raid5] [raid4]
md0 : active raid5 sdd[3] sdc[2] sdb[1] sda[0]
      2093056 blocks super 1.2 level 5, 512k chunk, algorithm 2 [4/4] [UUUU]
      [==>..................]  reshape = 12.5% (131072/1046528) finish=1.0min speed=13107K/sec

unused devices: <none>
M
case_ "FORCE=1 installs over a refusal" 0 'FORCE=1: installing anyway' 1 <<'M'
Personalities : [multipath]
md2 : active multipath sdd[1] sdc[0]
      2093056 blocks [2/2] [UU]

unused devices: <none>
M
echo "# install_preflight: $((n - failed))/$n passed"
[ "$failed" = 0 ]
