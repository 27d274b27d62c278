#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of tests/vm/run-mdadm-suite: load one implementation, then
# run mdadm's own test script once per test of /mdadm-suite/run.list
# (its ./mdadm, its tests/, loop devices on files in /var/tmp).
#
# The suite's own checks are not relied on: its wrapper sources a test
# inside `if (set -ex; . test)`, where set -e is inactive, so only its
# die()/exit decide; and its dmesg look-up is cleared by its own
# `dmesg -c`.  So around every test this script checks the implementation
# is still the one asked for, cuts the test's kernel messages out of a
# /dev/kmsg reader (which `dmesg -c` does not disturb) and fails the test
# on any line matching splat-re.
#
# One line per result on the console for the host:
#   # MDSUITE impl=I test=T status=pass|fail|xfail|xpass|skip time=S reason=...
# and the logs tarred onto /dev/vda: IMPL/T.out (the suite's output),
# IMPL/T.log (its set -x log), IMPL/failT.log (its dump on failure),
# IMPL/T.kernel.log (kernel messages during T).
. /harness/config
. /harness/lib.sh

SUITE=/mdadm-suite
OUT=/out/$IMPL
TMO=${MDSUITE_TIMEOUT:-600}
export PATH=/opt/gnu/bin:$PATH

now() { cut -d' ' -f1 /proc/uptime; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

result() { # test status time reason
	echo "# MDSUITE impl=$IMPL test=$1 status=$2 time=$3 reason=$4"
}

# leftovers of a test that was killed: arrays, then loop devices
tidy() {
	mdadm --stop --scan > /dev/null 2>&1
	losetup -D > /dev/null 2>&1
	rm -f /var/tmp/mdtest* /var/tmp/bitmap*
}

mkdir -p "$OUT" /var/tmp
# The suite keeps its loop files and bitmap files in /var/tmp.  md opens
# a bitmap file only on a filesystem that maps file blocks (bmap), which
# the initramfs's tmpfs does not: so /var/tmp is ext4 on a RAM disk.
if modprobe brd rd_nr=1 rd_size=1572864 max_part=0 &&
   mkfs.ext3 -q -t ext4 /dev/ram0 > "$OUT/mkfs.log" 2>&1 &&
   mount -t ext4 /dev/ram0 /var/tmp; then
	echo "# mdadm-suite: /var/tmp is ext4 on /dev/ram0"
else
	echo "# mdadm-suite: no ext4 /var/tmp (bitmap-file tests will fail); see mkfs.log"
fi
modprobe virtio_pci && modprobe virtio_blk
modprobe loop max_loop=16
# the suite mknods /dev/loopN itself; devtmpfs has made them already
cat /dev/kmsg > /tmp/kmsg.all &
kmsg_pid=$!

t0=$(now)
dmesg -c > /dev/null
aborted=
if load_impl "$IMPL" > "$OUT/load.log" 2>&1 && impl_check "$IMPL" >> "$OUT/load.log" 2>&1; then
	result load_impl pass "$(elapsed "$t0")" ""
else
	aborted="load_impl $IMPL failed"
	result load_impl fail "$(elapsed "$t0")" "$aborted"
	sed 's/^/# /' "$OUT/load.log"
fi

while IFS='	' read -r name note; do
	tmo=$TMO
	case "$note" in
	timeout=*)
		tmo=${note#timeout=}
		tmo=${tmo%%[!0-9]*}
		note=$(echo "${note#timeout="$tmo"}" | sed 's/^[[:space:]]*//') ;;
	esac
	case "$note" in
	skip:*)
		result "$name" skip 0 "$(echo "${note#skip:}" | sed 's/^ *//')"
		continue ;;
	esac
	xfail=
	[ "$IMPL" = fork ] && case "$note" in
		xfail-fork:*) xfail=$(echo "${note#xfail-fork:}" | sed 's/^ *//') ;;
	esac
	if [ -n "$aborted" ]; then
		result "$name" fail 0 "not run: $aborted"
		continue
	fi
	if ! why=$(impl_check "$IMPL"); then
		result "$name" fail 0 "$why"
		continue
	fi
	echo "# ---- $name"
	n0=$(wc -l < /tmp/kmsg.all)
	t0=$(now)
	(cd "$SUITE" && exec timeout -s KILL "$tmo" bash ./test --tests="$name" \
		--keep-going --save-logs --logdir="$OUT") > "$OUT/$name.out" 2>&1
	rc=$?
	secs=$(elapsed "$t0")
	# a killed test left its set -x log where the suite keeps it
	[ -e "$OUT/$name.log" ] || cp /var/tmp/log "$OUT/$name.log" 2>/dev/null
	rm -f /var/tmp/log /var/tmp/stderr
	# a hung test: put the blocked tasks' stacks in its kernel log
	if awk -v s="$secs" -v t="$tmo" 'BEGIN { exit !(s >= t) }'; then
		echo w > /proc/sysrq-trigger
		sleep 1
	fi
	tidy
	sleep 0.5
	n1=$(wc -l < /tmp/kmsg.all)
	sed -n "$((n0 + 1)),${n1}p" /tmp/kmsg.all > "$OUT/$name.kernel.log"
	splat=$(splat_lines "$OUT/$name.kernel.log" | head -n1)
	if awk -v s="$secs" -v t="$tmo" 'BEGIN { exit !(s >= t) }'; then
		st=fail why="timeout after ${tmo}s"
	elif [ "$rc" = 0 ] && grep -q "tests/$name\.\.\. succeeded" "$OUT/$name.out"; then
		st=pass why=
	else
		st=fail
		# die() prints "ERROR: ..." into the test's log; else its last line
		why=$(grep -h 'ERROR:' "$OUT/$name.log" "$OUT/$name.out" 2>/dev/null |
			grep -v '^+' | head -n1 | sed 's/^[[:space:]]*//')
		[ -n "$why" ] || why=$(grep -v '^+' "$OUT/$name.log" 2>/dev/null | tail -n1)
		why="${why:-exit status $rc}"
	fi
	if [ -n "$splat" ]; then
		st=fail why="kernel log: ${splat#*;}"
	elif [ "$st" = fail ] && [ -n "$xfail" ]; then
		st=xfail why="$xfail; $why"
	elif [ "$st" = pass ] && [ -n "$xfail" ]; then
		st=xpass why="$xfail"
	fi
	result "$name" "$st" "$secs" "$why"
done < "$SUITE/run.list"

t0=$(now)
if unload_impl > "$OUT/unload.log" 2>&1; then
	result unload_impl pass "$(elapsed "$t0")" ""
else
	result unload_impl fail "$(elapsed "$t0")" "$(tail -n1 "$OUT/unload.log")"
fi
kill "$kmsg_pid" 2>/dev/null
cp /tmp/kmsg.all "$OUT/kernel-all.log"
uname -r > "$OUT/kernel.txt"
tar -cf /dev/vda -C /out . && sync && echo "# mdadm-suite: logs written to virtio disk"
