#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""BENCHMARKS.md's first screen, generated from the recorded results.

Benchmarks write their results to results/<run>/ (not in git).  A run
worth keeping is *recorded*: its summary.json, summary.txt and plots are
copied to Documentation/benchmarks/results/<run>/, which is in git.  The
summary at the top of BENCHMARKS.md and the chart
Documentation/images/bench-summary.png are made from those recorded runs
only, so anyone can regenerate them and `--check` can tell when the file
no longer matches the data.

  bench_report.py record RESULTDIR [--force]
        copy a finished run into the record (tests/vm/bench,
        tests/vm/bench-throttle and tests/vm/bench-delayed call this;
        smoke runs are refused
        unless --force)
  bench_report.py generate [--check]
        rewrite the summary block of BENCHMARKS.md and the chart
        (make bench-report); --check only compares and exits 1 on a
        difference (make check's static stage)

Rows.  For `make bench` jobs, every "# TARGET: METRIC OP VALUE [note]"
line of bench/JOB.fio gives one row from the newest recorded run that
measured JOB on both implementations: METRIC is iops, mib_s, kib_s (resync
speed), clat_p99, clat_p999, clat_max or slat_max (the last two: median
over runs of each run's maximum); the ratio is this stack's value over
in-tree's and must satisfy OP VALUE.  A job without a TARGET line gets one
informational row (IOPS or resync speed).  For the resync throttle bench
(bench/throttle/summary.py owns its targets) T1 rows give the share of
idle IOPS each implementation keeps during repair, T2 the idle repair
speed, T3 whether the sync_speed_min floor and the recovery held (a T3
run with another load or floors, BT_T3_LOAD / BT_T3_MIN, gives one floor
row per floor, beside the newest full run's rows).  For
the bench of two RAID1 arrays on partitions of the same disks
(tests/vm/bench-delayed, bench/delayed/summary.py owns its target) the
share of idle QD1 read IOPS kept on one array while the other runs
repair, that repair's speed, and the time both take to resync after an
unclean shutdown (lower is better; no target).

Kernels.  Runs on each kernel series (6.1, 6.12: KVER) give rows of their
own, newest run per series, each against that kernel's in-tree md.  Every
row names its kernel (the guest's uname -r); 6.12's commands add
KVER=6.12.  The summary counts targets met and rows where this stack is
ahead, kernel by kernel.

The chart plots, per row, how much better this stack does than in-tree
(fork/in-tree for higher-is-better measures, in-tree/fork for latencies),
green where the row's target is met, red where not, grey without target.
"""
import argparse
import glob
import importlib.util
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

SRC = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RECORD = os.path.join(SRC, "Documentation", "benchmarks", "results")
CHART = os.path.join(SRC, "Documentation", "images", "bench-summary.png")
DOC = os.path.join(SRC, "BENCHMARKS.md")
BEGIN = "<!-- bench-report:begin -->"
END = "<!-- bench-report:end -->"

# metric: (summary.json field, higher is better, unit)
METRICS = {
    "iops": ("iops_median", True, "iops"),
    "mib_s": ("mib_s_median", True, "mibs"),
    "kib_s": ("kib_s_median", True, "kibs"),
    "clat_p99": ("clat_p99_us", False, "us"),
    "clat_p999": ("clat_p999_us", False, "us"),
    "clat_max": ("clat_max_us_median", False, "us"),
    "slat_max": ("slat_max_us_median", False, "us"),
}
METRIC_TEXT = {
    "iops": "IOPS", "mib_s": "MiB/s", "kib_s": "resync speed",
    "clat_p99": "p99 latency", "clat_p999": "p99.9 latency",
    "clat_max": "max latency", "slat_max": "max submit latency",
}
OPS = {">=": lambda a, b: a >= b, "<=": lambda a, b: a <= b}


def fmt_value(v, unit):
    if v is None:
        return "-"
    if unit == "iops":
        return f"{v:,.0f} IOPS"
    if unit == "mibs":
        return f"{v:,.1f} MiB/s"
    if unit == "kibs":
        return f"{v / 1024:,.1f} MiB/s"
    if unit == "us":
        return f"{v / 1000:,.2f} ms" if v >= 1000 else f"{v:,.0f} us"
    if unit == "share":
        # rounded down to 0.1: 89.95 % must not print as a met 90 %
        return f"{math.floor(v * 1000) / 10:.1f} %"
    if unit == "x":
        return f"{v:.2f}x"
    if unit == "s":
        return f"{v:.2f} s"
    return str(v)


def load_throttle_targets():
    path = os.path.join(SRC, "bench", "throttle", "summary.py")
    spec = importlib.util.spec_from_file_location("throttle_summary", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.T1_TARGET, mod.T2_TARGET


def job_targets(job):
    """TARGET lines of bench/JOB.fio: [(metric, op, value, note)]."""
    out = []
    path = os.path.join(SRC, "bench", job + ".fio")
    if not os.path.exists(path):
        return out
    with open(path) as f:
        for line in f:
            m = re.match(r"#\s*TARGET:\s*(\w+)\s*(>=|<=)\s*([0-9.]+)\s*(.*)$", line)
            if not m:
                continue
            if m.group(1) not in METRICS:
                raise SystemExit(f"bench_report: {path}: unknown TARGET metric {m.group(1)}")
            out.append((m.group(1), m.group(2), float(m.group(3)), m.group(4).strip()))
    return out


def recorded_runs():
    """[(name, summary)] of recorded runs, oldest first."""
    runs = []
    for p in sorted(glob.glob(os.path.join(RECORD, "*", "summary.json"))):
        with open(p) as f:
            s = json.load(f)
        runs.append((os.path.basename(os.path.dirname(p)), s))
    runs.sort(key=lambda r: (r[1].get("date", ""), r[0]))
    return runs


DEFAULT_KERNEL = "6.1"


def kernel_series(s):
    """The kernel series a run ran on ("6.12"), from the guest's uname -r in
    its summary; the default for a summary that names none."""
    m = re.match(r"(\d+\.\d+)[.-]", s.get("kernel", "") or "")
    return m.group(1) if m else DEFAULT_KERNEL


def on_kernel(series):
    """What a row's command gets for a run on SERIES."""
    if series == DEFAULT_KERNEL:
        return ""
    return f"KVER={series} "


def short_commit(c):
    return c or "?"


def row(group, workload, measure, intree, fork, unit, ratio, better, target, met, run, s, cmd):
    return {"group": group, "workload": workload, "measure": measure,
            "intree": fmt_value(intree, unit), "fork": fmt_value(fork, unit),
            "ratio": ratio, "better": better, "target": target, "met": met,
            "run": run, "date": s.get("date", "?").split(" ")[0],
            "commit": short_commit(s.get("commit")), "accel": s.get("accel", "tcg"),
            "series": kernel_series(s), "kernel": s.get("kernel") or "?",
            "cmd": cmd}


def bench_rows(runs):
    """Rows for `make bench` jobs: newest recorded run per job."""
    latest = {}
    for name, s in runs:
        if "jobs" not in s:
            continue
        # instruction-count runs (guest time = instructions executed)
        # are a measure of their own: they never replace timed rows
        accel = s.get("accel", "tcg")
        icount = "-icount" in accel
        series = kernel_series(s)
        for job, j in s["jobs"].items():
            t = j.get("targets", {})
            if "intree" in t and "fork" in t or j.get("broken"):
                latest[(job, icount, series)] = (name, s, j)
    rows = []
    for job, icount, series in sorted(latest, key=lambda k: (
            k[1], k[2] != DEFAULT_KERNEL, k[2], job_order(k[0]))):
        name, s, j = latest[(job, icount, series)]
        level = j.get("params", {}).get("level", "?")
        group = {"raid1": "RAID1", "raid5": "RAID5", "raid6": "RAID6",
                 "raid10": "RAID10", "raid0": "RAID0",
                 "linear": "linear"}.get(level, level)
        if j.get("params", {}).get("bitmap", "none") != "none":
            group += " + bitmap"
        cmd = f"tests/vm/bench {job}"
        # the run's own settings where they differ from the defaults
        p = j.get("params", {})
        env = [f"{var}={p[key]}" for key, var, default in
               (("raw_runs", "BENCH_RAW_RUNS", "2"), ("runtime", "BENCH_RUNTIME", "job"),
                ("dd_size", "BENCH_DD_MIB", "job"),
                ("warmup", "BENCH_WARMUP", "5"), ("runs", "BENCH_RUNS", "4"))
               if key in p and p[key] != default]
        if env:
            cmd = " ".join(env) + " " + cmd
        if icount:
            group += " (instruction count)"
            opts = s.get("accel", "").split(", ")[-1]
            cmd = f'VM_CPUS=1 VM_QEMU_ARGS="{opts}" {cmd}'
        cmd = on_kernel(series) + cmd
        t = j.get("targets", {})
        if not t.get("intree") or not t.get("fork"):
            why = "; ".join(f"{k}: {v}" for k, v in j.get("broken", {}).items())
            rows.append(row(group, job, "NOT FUNCTIONAL", None, None, "", None, True,
                            why[:60] or "-", False, name, s, cmd))
            continue
        tg = job_targets(job)
        if not tg:
            mode = j.get("params", {}).get("mode", "fio")
            tg = [({"resync": "kib_s", "dd": "mib_s"}.get(mode, "iops"), None, None, "")]
        for metric, op, value, note in tg:
            field, higher, unit = METRICS[metric]
            a, b = t["intree"].get(field), t["fork"].get(field)
            ratio = b / a if a and b is not None else None
            if op is None:
                target, met = "-", None
            else:
                target = f"{op} {value:.2f}x" + (f" ({note})" if note else "")
                met = ratio is not None and OPS[op](ratio, value)
            rows.append(row(group, job, METRIC_TEXT[metric], a, b, unit, ratio, higher,
                            target, met, name, s, cmd))
    return rows


def job_order(job):
    if job.startswith("bitmap-"):
        return (1 if job[7:9] == "r1" else 4, job)
    lvl = {"r1": 0, "w1": 0, "w2": 0, "w3": 0, "r5": 2, "r6": 3}.get(job[:2], 5)
    return (lvl, job)


def throttle_rows(runs):
    """Rows for the resync throttle bench: for each configuration and
    sync kind, each part (a T1 job, its work-conserving share, T2, T3,
    a T3 variant) from the newest recorded run that measured it, so a run
    of a few jobs replaces those jobs' rows and leaves the others."""
    t1_target, t2_target = load_throttle_targets()
    latest, latest_v = {}, {}
    for name, s in runs:
        # as for bench rows: instruction-count runs are rows of their own
        icount = "-icount" in s.get("accel", "tcg")
        series = kernel_series(s)
        for cfg, m in s.get("members", {}).items():
            for kind, k in m.get("syncs", {}).items():
                key = (cfg, icount, kind, series)
                parts = latest.setdefault(key, {"m": m, "t1": {}, "wc": {}})
                for part in ("t1", "wc"):
                    for job, d in k.get(part, {}).items():
                        parts[part][job] = (name, s, d)
                for part in ("t2", "t3"):
                    if k.get(part):
                        parts[part] = (name, s, k[part])
                for var, v in k.get("t3v", {}).items():
                    latest_v.setdefault(key, {})[var] = (name, s, m, v)
    rows = []
    for key in sorted(set(latest) | set(latest_v)):
        cfg, icount, kind, series = key
        parts = latest.get(key, {"t1": {}, "wc": {}})
        m = parts.get("m") or next(iter(latest_v[key].values()))[2]
        level, ndevs, member = m.get("level", 1), m.get("ndevs", 2), m.get("member", cfg)
        speed = f" {m['mbps']} MB/s" if m.get("mbps") and m["mbps"] != 100 else ""
        grp = f"RAID{level} throttle ({member}{speed})"
        env = [f"BT_MEMBERS={member}"]
        if icount:
            grp += " (instruction count)"
            env.insert(0, "BT_ICOUNT=1")
        kver = on_kernel(series)
        if kver:
            env.insert(0, kver.strip())
        # Issue 17 sets RAID4/5/6's targets on 20 MB/s null_blk members,
        # where the sync saturates the members; other speeds are reported
        # only ("report 100 MB/s too").
        report_only = level in (4, 5, 6) and member == "nullb" and m.get("mbps") != 20
        if level != 1:
            env.append(f"BT_LEVEL={level}")
        if ndevs != (2 if level == 1 else 4):
            env.append(f"BT_NDEVS={ndevs}")
        if speed:
            env.append(f"BT_NULLB_MBPS={m['mbps']}")
        if kind not in (["repair"] if level in (1, 10) else ["resync", "repair"]):
            env.append(f"BT_SYNCS={kind}")
        cmd = " ".join(env) + " tests/vm/bench-throttle"
        first = len(rows)
        for job, (name, s, d) in sorted(parts["t1"].items()):
            a, b = d.get("intree", {}), d.get("fork", {})
            ra, rb = a.get("ratio"), b.get("ratio")
            if rb is None:
                continue
            kept, plim = t1_target.get(job, (None, None))
            ratio = rb / ra if ra else None
            target = f"fork keeps >= {kept * 100:.0f} %" if kept else "-"
            during = f"IOPS kept during {kind}"
            if kind == "recover":
                during += " (of the degraded array's)"
            rows.append(row(grp, f"T1 {job}", during, ra, rb,
                            "share", ratio, True, target, b.get("iops_met"), name, s, cmd))
            wa, wb, wt = a.get("worst_ratio"), b.get("worst_ratio"), b.get("worst_target")
            if wb is not None and wt:
                rows.append(row(grp, f"T1 {job}", during + ", worst run", wa, wb,
                                "share", wb / wa if wa else None, True,
                                f"fork keeps >= {wt * 100:.0f} %", b.get("worst_met"),
                                name, s, cmd))
            if plim and not report_only:
                pa, pb = a.get("p99_ratio"), b.get("p99_ratio")
                rows.append(row(grp, f"T1 {job}", f"p99 during {kind} / idle",
                                pa, pb, "x", pb and pa and pb / pa, False,
                                f"fork <= {plim:.1f}x idle", b.get("p99_met"),
                                name, s, cmd))
        # issue 33's work-conserving report: a moonshot, not a target
        for job, (name, s, d) in sorted(parts["wc"].items()):
            a, b = d.get("intree", {}), d.get("fork", {})
            sa, sb = a.get("share"), b.get("share")
            if sb is None:
                continue
            rows.append(row(grp, f"T1 {job}",
                            f"{kind} speed / what the foreground leaves",
                            sa, sb, "share", sb / sa if sa else None, True,
                            "- (moonshot >= 80 %, fg >= 95 %)", None, name, s, cmd))
        name, s, t2 = parts.get("t2", (None, None, {}))
        if "fork" in t2 and "intree" in t2:
            a, b = t2["intree"].get("kibs"), t2["fork"].get("kibs")
            tgt = t2["fork"].get("target", t2_target)
            rows.append(row(grp, f"T2 idle {kind}", f"{kind} speed", a, b, "kibs",
                            b / a if a else None, True, f">= {tgt:.2f}x",
                            t2["fork"].get("met"), name, s, cmd))
        name, s, t3 = parts.get("t3", (None, None, {}))
        if "fork" in t3 and "intree" in t3:
            a, b = t3["intree"], t3["fork"]
            rows.append(row(grp, f"T3 QD16x4 load, {kind}", "sync speed under load",
                            a.get("floor_kibs"), b.get("floor_kibs"), "kibs",
                            None, True, ">= sync_speed_min", b.get("floor_met"),
                            name, s, cmd))
            rows.append(row(grp, f"T3 QD16x4 load, {kind}", "back to idle speed after",
                            (a.get("recovery_ms") or 0) / 1000.0,
                            (b.get("recovery_ms") or 0) / 1000.0, "s", None, False,
                            "<= 1 s", b.get("recovery_met"), name, s, cmd))
        if report_only:
            for r in rows[first:]:
                r["target"], r["met"] = "-", None
        # issue 33: the floor holds beside other loads (e.g. 64 readers on
        # one vCPU), on any member speed
        for var, (vname, vs, vm, v) in sorted(latest_v.get(key, {}).items(),
                                              key=lambda x: (x[1][3].get("load"),
                                                             x[1][3].get("min", 0))):
            if "fork" not in v or "intree" not in v:
                continue
            load, floor = v.get("load", "?"), v.get("min", 0)
            vcmd = (" ".join(env) + f" BT_T3_LOAD={load} BT_T3_MIN={floor}"
                    + " BT_JOBS=none BT_T2=0 tests/vm/bench-throttle")
            work = f"T3 {load} load, {kind}"
            a, b = v["intree"], v["fork"]
            rows.append(row(grp, work, f"sync speed under load, sync_speed_min {floor}",
                            a.get("floor_kibs"), b.get("floor_kibs"), "kibs", None, True,
                            f">= {floor} KiB/s", b.get("floor_met"), vname, vs, vcmd))
    return rows


def delayed_rows(runs):
    """Rows for the bench of two arrays sharing disks (issue 35,
    tests/vm/bench-delayed; bench/delayed/summary.py owns the target):
    newest recorded run per kernel series and accelerator mode."""
    latest = {}
    for name, s in runs:
        if "delayed" in s:
            latest[("-icount" in s.get("accel", "tcg"), kernel_series(s))] = (name, s)
    rows = []
    for icount, series in sorted(latest):
        name, s = latest[(icount, series)]
        d = s["delayed"]
        c = d.get("config", {})
        speed = f" {c['mbps']} MB/s" if c.get("mbps", 100) != 100 else ""
        grp = f"RAID1 x2 on shared disks (nullb{speed})"
        env = [on_kernel(series).strip()] if on_kernel(series) else []
        if icount:
            grp += " (instruction count)"
            opts = s.get("accel", "").split(", ")[-1]
            env.append(f'VM_CPUS=1 VM_QEMU_ARGS="{opts}"')
        if speed:
            env.append(f"BD_NULLB_MBPS={c['mbps']}")
        if c.get("part_mb", 1024) != 1024:
            env.append(f"BD_PART_MB={c['part_mb']}")
        cmd = " ".join(env + ["tests/vm/bench-delayed"])
        n = d.get("neighbour", {})
        a, b = n.get("intree", {}), n.get("fork", {})
        if b.get("ratio") is not None:
            work = "N qd1-randread on md0"
            ra, rb = a.get("ratio"), b["ratio"]
            rows.append(row(grp, work, "IOPS kept while md1 runs repair", ra, rb, "share",
                            rb / ra if ra else None, True,
                            f"fork keeps >= {d.get('target', 0.9) * 100:.0f} %",
                            b.get("met"), name, s, cmd))
            wa, wb = a.get("worst_ratio"), b.get("worst_ratio")
            rows.append(row(grp, work, "IOPS kept while md1 runs repair, worst run", wa, wb,
                            "share", wb / wa if wa and wb is not None else None, True,
                            "-", None, name, s, cmd))
            rows.append(row(grp, work, "md1 repair speed meanwhile", a.get("md1_kibs"),
                            b.get("md1_kibs"), "kibs", None, True, "-", None, name, s, cmd))
            rows[-3]["on_value"] = True
        r = d.get("resync", {})
        a, b = r.get("intree", {}), r.get("fork", {})
        if b.get("total_s") is not None:
            work = "R both resync after unclean shutdown"
            ta, tb = a.get("total_s"), b["total_s"]
            rows.append(row(grp, work, "time until both idle", ta, tb, "s",
                            tb / ta if ta else None, False, "-", None, name, s, cmd))
            wa, wb = a.get("worst_total_s"), b.get("worst_total_s")
            rows.append(row(grp, work, "time until both idle, worst run", wa, wb, "s",
                            wb / wa if wa and wb is not None else None, False, "-", None,
                            name, s, cmd))
    return rows


def missed_text(r):
    """One missed row: a throttle row names its array and this stack's
    value (its target is on that value), a bench row the ratio."""
    if "throttle" in r["group"] or r.get("on_value"):
        return (f"{r['group']} {r['workload']} {r['measure']} ({r['fork']}, "
                f"target {r['target']})")
    return f"{r['workload']} {r['measure']} ({fmt_x(r['ratio'])}, target {r['target']})"


def fmt_x(v):
    if v is None:
        return "-"
    return "< 0.01x" if v < 0.005 else f"{v:.2f}x"


def series_key(series):
    return tuple(int(x) for x in series.split("."))


def kernel_summary(rows, series):
    """One paragraph of the summary: the rows of one kernel series."""
    rows = [r for r in rows if r["series"] == series]
    met = sum(1 for r in rows if r["met"] is True)
    with_target = sum(1 for r in rows if r["met"] is not None)
    compared = [r for r in rows if advantage(r) is not None]
    ahead = [r for r in compared if advantage(r) > 1.0]
    kernels = ", ".join(sorted({r["kernel"] for r in rows}))
    out = [f"**On {series}** ({kernels}): **{met} of {with_target} targets met**; "
           f"this stack is ahead of {series}'s in-tree md in {len(ahead)} of "
           f"{len(compared)} rows with a ratio."]
    missed = [r for r in rows if r["met"] is False]
    if missed:
        out[0] += " Missed: " + "; ".join(missed_text(r) for r in missed) + "."
    return out + [""]


def render(rows, runs):
    accels = sorted({r["accel"] for r in rows})
    out = [BEGIN,
           "<!-- generated by `make bench-report` (tests/vm/bench_report.py) from",
           "     Documentation/benchmarks/results/; edit those, not this block -->",
           "## Summary",
           "",
           f"The newest recorded run of each workload, kernel by kernel, each "
           f"against that kernel's own in-tree md ({len(rows)} rows, "
           f"accelerator: {', '.join(accels) or '-'}). "
           "`fork/in-tree` is this stack's value over in-tree md's, both "
           "measured in the same VM boot; for latencies lower is better. "
           "Every row names its kernel, the run it comes from "
           "(`Documentation/benchmarks/results/<run>/summary.txt` has the "
           "full tables) and the command that repeats it.",
           ""]
    for series in sorted({r["series"] for r in rows}, key=series_key):
        out += kernel_summary(rows, series)
    out += ["![fork against in-tree md per row: bars above 1 are better than in-tree]"
            "(Documentation/images/bench-summary.png)", "",
            "| kernel | array | workload | measure | in-tree | this stack | fork/in-tree "
            "| target | met | date, commit, accel | reproduce |",
            "| --- | --- | --- | --- | ---: | ---: | ---: | --- | --- | --- | --- |"]
    for r in rows:
        m = {True: "yes", False: "**no**", None: "-"}[r["met"]]
        out.append(f"| {r['kernel']} | {r['group']} | `{r['workload']}` | {r['measure']} "
                   f"| {r['intree']} "
                   f"| {r['fork']} | {fmt_x(r['ratio'])} | {r['target']} | {m} "
                   f"| {r['date']}, {r['commit']}, {r['accel']} | `{r['cmd']}` |")
    used = sorted({(r["run"], r["date"], r["commit"], r["accel"]) for r in rows})
    if used:
        out += ["", "Recorded runs these rows come from (full printed tables in each "
                "`summary.txt`):", ""]
        out += [f"* [`{name}`](Documentation/benchmarks/results/{name}/summary.txt): "
                f"{date}, commit {commit}, accelerator {accel}" for name, date, commit, accel in used]
    out += ["", END]
    return "\n".join(out) + "\n"


def advantage(r):
    if r["ratio"] is None or r["ratio"] <= 0:
        return None
    return r["ratio"] if r["better"] else 1.0 / r["ratio"]


def chart(rows, path):
    pts = [(f"{r['series']} {r['group'].split(' ')[0]} {r['workload']} {r['measure']}",
            advantage(r), r["met"])
           for r in rows if advantage(r) is not None]
    if not pts:
        if os.path.exists(path):
            os.unlink(path)  # a stale chart would show old data
        return False
    with tempfile.TemporaryDirectory() as tmp:
        dat = os.path.join(tmp, "rows.dat")
        with open(dat, "w") as f:
            for i, (label, adv, met) in enumerate(pts):
                colour = {True: 0x2e8b57, False: 0xcc3333, None: 0x999999}[met]
                f.write(f"{i} {adv:.4f} {colour} \"{label}\"\n")
        ymax = max(2.0, max(p[1] for p in pts) * 1.1)
        n = len(pts)
        script = f"""
set terminal pngcairo size 1100,{200 + 22 * n} font 'sans,9'
set output '{path}'
set title 'this stack against in-tree md, same VM boot (newest recorded run per workload)'
set xlabel "better than in-tree by (x): fork/in-tree, or in-tree/fork for latencies\\ngreen: target met, red: target missed, grey: no target"
set yrange [{n}:-1]
set xrange [0:{ymax:.2f}]
set ytics nomirror font 'sans,8'
set grid xtics
set style fill solid 0.8 noborder
unset key
set arrow from 1,-1 to 1,{n} nohead dt 2 lc rgb '#000000'
plot '{dat}' using (0):1:(0):2:($1-0.35):($1+0.35):3:ytic(4) with boxxyerror lc rgb variable
"""
        res = subprocess.run(["gnuplot"], input=script, text=True, capture_output=True)
        if res.returncode != 0:
            sys.stderr.write(res.stderr)
            raise SystemExit("bench_report: gnuplot failed")
    return True


def generate(check):
    runs = recorded_runs()
    rows = bench_rows(runs) + throttle_rows(runs) + delayed_rows(runs)
    rows.sort(key=lambda r: series_key(r["series"]))  # stable: kernel by kernel
    block = render(rows, runs)
    with open(DOC) as f:
        doc = f.read()
    if BEGIN not in doc or END not in doc:
        raise SystemExit(f"bench_report: {DOC} has no {BEGIN} ... {END} block")
    head, rest = doc.split(BEGIN, 1)
    _, tail = rest.split(END + "\n", 1)
    new = head + block + tail
    if check:
        if new != doc:
            print("bench_report: BENCHMARKS.md's summary does not match the recorded "
                  "results; run `make bench-report` and commit", file=sys.stderr)
            return 1
        if rows and not os.path.exists(CHART):
            print(f"bench_report: {CHART} missing; run `make bench-report`", file=sys.stderr)
            return 1
        print(f"bench_report: summary matches {len(runs)} recorded runs ({len(rows)} rows)")
        return 0
    if new != doc:
        with open(DOC, "w") as f:
            f.write(new)
    if shutil.which("gnuplot"):
        chart(rows, CHART)
    else:
        print("bench_report: gnuplot not installed; chart not redrawn", file=sys.stderr)
    print(f"bench_report: BENCHMARKS.md summary from {len(runs)} recorded runs, "
          f"{len(rows)} rows; chart {os.path.relpath(CHART, SRC)}")
    return 0


def is_smoke(s):
    """A run too short to stand as a result (BENCH_RUNTIME / tiny BT_* runs)."""
    for j in s.get("jobs", {}).values():
        p = j.get("params", {})
        if p.get("runtime", "job") != "job" or p.get("dd_size", "job") != "job" \
                or int(p.get("runs", "0")) < 2:
            return True
    p = s.get("params", "")
    if isinstance(p, str) and p:
        kv = dict(re.findall(r"(\w+)=(\S+)", p))
        if int(kv.get("runs", "0")) < 2 or float(kv.get("runtime", "0")) < 5:
            return True
    return False


def record(resdir, force):
    sj = os.path.join(resdir, "summary.json")
    if not os.path.exists(sj):
        print(f"bench_report: {sj} missing: nothing to record", file=sys.stderr)
        return 1
    with open(sj) as f:
        s = json.load(f)
    if is_smoke(s) and not force:
        print("bench_report: a smoke run (short runtime or fewer than 2 runs) is not "
              "recorded; use --force to record it anyway")
        return 0
    dest = os.path.join(RECORD, os.path.basename(os.path.normpath(resdir)))
    os.makedirs(dest, exist_ok=True)
    for p in ["summary.json", "summary.txt"] + [os.path.basename(x) for x in
                                                 glob.glob(os.path.join(resdir, "*.png"))]:
        src = os.path.join(resdir, p)
        if os.path.exists(src):
            shutil.copy(src, os.path.join(dest, p))
    print(f"bench_report: recorded as {os.path.relpath(dest, SRC)}/ (commit it with "
          "the regenerated BENCHMARKS.md)")
    return generate(False)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("record")
    r.add_argument("resdir")
    r.add_argument("--force", action="store_true")
    g = sub.add_parser("generate")
    g.add_argument("--check", action="store_true")
    a = ap.parse_args()
    if a.cmd == "record":
        return record(a.resdir, a.force)
    return generate(a.check)


if __name__ == "__main__":
    sys.exit(main())
