# SPDX-License-Identifier: GPL-2.0
#
# Kernel log filter run before splat-re: copies the log, but replaces each
# warning listed below, a whole "cut here" ... "end trace" block, by one
# line "splat-known: WHY: <its WARNING line>", which splat-re does not
# match; callers show those lines, so a run still says what it let pass.
# Everything else, including any other splat in or around such a block,
# passes through unchanged; a block the log cuts short is kept as it is.
#
# The list is for bugs outside md that a test cannot avoid; each entry
# says why it is not ours and is matched as narrowly as its report allows.
#
# 1. null_blk's bandwidth timer (Debian 6.1, a null_blk member with
#    mbps set).  null_handle_throttled() re-arms the timer with
#    "if (!hrtimer_active(t)) hrtimer_restart(t)", a check-then-act race:
#    two CPUs submitting to one device can both see it inactive, the first
#    re-arms it, it fires, and the second enqueues it again while
#    nullb_bwtimer_fn() runs; the callback's hrtimer_forward_now() then
#    warns that the timer is enqueued.  The timer stays armed and no IO is
#    lost.  raid5 submits to a member from every CPU (per-CPU workers), so
#    t88 meets it; nothing of md runs in the timer.  Matched: a WARNING at
#    kernel/time/hrtimer.c in hrtimer_forward whose trace has
#    nullb_bwtimer_fn.
#
# 2. In-tree md's own raid456 (the baseline the tests compare against,
#    never this stack): its handle_stripe() warns "disk%d not up to
#    date" when a RAID6 repair meets read errors on a member (t95's
#    "raid6 repair" cell, 2026-12-04).  The data reads back right; the
#    warning is in-tree's.  Matched: a WARNING at drivers/md/raid5.c in
#    handle_stripe whose trace has raid5d, a function only in-tree
#    raid456 has (this stack's raid5.c has neither name).
function known(   i, warn, raid5d) {
	warn = ""
	raid5d = 0
	for (i = 1; i <= n; i++) {
		if (blk[i] ~ /WARNING: .* at kernel\/time\/hrtimer\.c:[0-9]+ hrtimer_forward\+/)
			warn = blk[i]
		if (blk[i] ~ /WARNING: .* at drivers\/md\/raid5\.c:[0-9]+ handle_stripe\+0x[0-9a-f]+\/0x[0-9a-f]+ \[raid456\]/)
			raid5d = -1
		if (raid5d < 0 && blk[i] ~ /WARNING: /)
			warn = blk[i]
	}
	if (warn == "")
		return ""
	for (i = 1; i <= n; i++) {
		if (raid5d == 0 && blk[i] ~ / nullb_bwtimer_fn\+0x[0-9a-f]+\/0x[0-9a-f]+ \[null_blk\]/)
			return "null_blk 6.1 bandwidth timer race, not md: " warn
		if (raid5d < 0 && blk[i] ~ / raid5d\+0x[0-9a-f]+\/0x[0-9a-f]+ \[raid456\]/)
			return "in-tree raid456 RAID6 repair after read errors, not this stack: " warn
	}
	return ""
}

function flush(   i) {
	for (i = 1; i <= n; i++)
		print blk[i]
	n = 0
}

/-+\[ cut here \]-+/ {
	flush()
	inblk = 1
}

inblk {
	blk[++n] = $0
	if ($0 ~ /---\[ end trace [0-9a-f]+ \]---/) {
		inblk = 0
		why = known()
		if (why == "") {
			flush()
		} else {
			sub(/WARNING: /, "warning ", why)
			print "splat-known: " why
			n = 0
		}
	}
	next
}

{ print }

END { flush() }
