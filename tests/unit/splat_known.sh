#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/vm/splat-known.awk under the host's awk and the guest's (busybox):
# only the listed warning disappears from what splat-re sees; any other
# splat, in or beside such a block, still fails a run.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
re=$(cat "$top/tests/vm/splat-re")
awks=(awk)
busybox awk 'BEGIN { exit 0 }' 2>/dev/null && awks+=("busybox awk")
n=0 failed=0

cut='[ 3039.802352] ------------[ cut here ]------------'
end='[ 3039.804935] ---[ end trace 0000000000000000 ]---'
warn='[ 3039.802657] WARNING: CPU: 1 PID: 5861 at kernel/time/hrtimer.c:1061 hrtimer_forward+0xf3/0x160'
bw='[ 3039.804935]  nullb_bwtimer_fn+0x17d/0x230 [null_blk]'
other='[ 3039.804935]  raid5_work+0x17d/0x230 [raid456]'

# case NAME WANT_SPLAT_LINES: log on stdin
case_() {
	local name=$1 want=$2 a got log
	log=$(cat)
	for a in "${awks[@]}"; do
		n=$((n + 1))
		got=$(printf '%s\n' "$log" | $a -f "$top/tests/vm/splat-known.awk" \
			2>/dev/null | grep -aEc "$re")
		if [ "$got" = "$want" ]; then
			echo "ok $n $name ($a)"
		else
			echo "not ok $n $name ($a) # $got splat lines, want $want"
			failed=$((failed + 1))
		fi
	done
}

echo "KTAP version 1"
echo "1..$((9 * ${#awks[@]}))"
case_ "null_blk timer warning is dropped" 0 <<L
x
$cut
$warn
Call Trace:
 <IRQ>
$bw
$end
y
L
case_ "hrtimer_forward warning without null_blk stays" 2 <<L
$cut
$warn
$other
$end
L
case_ "other warning with null_blk in its trace stays" 2 <<L
$cut
[ 1.0] WARNING: CPU: 0 PID: 1 at drivers/md/foo.c:1 bar+0x1/0x2
$bw
$end
L
case_ "splat after a dropped block stays" 1 <<L
$cut
$warn
$bw
$end
[ 2.0] BUG: KASAN: use-after-free in raid5_work
L
case_ "block the log cuts short stays" 2 <<L
$cut
$warn
$bw
L
case_ "block interrupted by another cut here stays" 4 <<L
$cut
$warn
$cut
[ 1.0] WARNING: CPU: 0 PID: 1 at drivers/md/foo.c:1 bar+0x1/0x2
$bw
$end
L
r6warn='[  322.783933] WARNING: CPU: 1 PID: 4307 at drivers/md/raid5.c:4537 handle_stripe+0x1be2/0x1c00 [raid456]'
case_ "in-tree raid456 handle_stripe warning from raid5d is dropped" 0 <<L
$cut
[  322.783582] md0: disk0 not up to date
$r6warn
Call Trace:
[  322.786652]  handle_active_stripes.constprop.0+0x367/0x560 [raid456]
[  322.786737]  raid5d+0x492/0x6c0 [raid456]
$end
L
case_ "handle_stripe warning without raid5d stays" 2 <<L
$cut
$r6warn
$other
$end
L
case_ "raid5d in another warning's trace stays" 2 <<L
$cut
[ 1.0] WARNING: CPU: 0 PID: 1 at drivers/md/foo.c:1 bar+0x1/0x2
[  322.786737]  raid5d+0x492/0x6c0 [raid456]
$end
L
echo "# splat-known: $((n - failed))/$n passed"
[ "$failed" = 0 ]
