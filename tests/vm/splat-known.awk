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
function known(   i, warn) {
	warn = ""
	for (i = 1; i <= n; i++)
		if (blk[i] ~ /WARNING: .* at kernel\/time\/hrtimer\.c:[0-9]+ hrtimer_forward\+/)
			warn = blk[i]
	if (warn == "")
		return ""
	for (i = 1; i <= n; i++)
		if (blk[i] ~ / nullb_bwtimer_fn\+0x[0-9a-f]+\/0x[0-9a-f]+ \[null_blk\]/)
			return "null_blk 6.1 bandwidth timer race, not md: " warn
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
