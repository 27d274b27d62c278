#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Summarise `make bench` fio JSON into a side-by-side table + summary.json.

Input: DIR/<job>/runs.txt lines "target n group file.json", the fio JSON
files, params.txt and broken.txt (targets that could not build an array).
Per target: min/median/max IOPS over runs; the median over runs of the
mean, p99 and p99.9 completion latency; the max of max completion and
max submission latency.  The A/A line compares the two in-tree groups
(first vs last in-tree run of each ABBA round) to show the noise floor.
"""
import argparse
import json
import os
import statistics
import sys

LABELS = {"raw": "raw brd member", "intree": "in-tree md", "fork": "this stack (fork)"}


def run_stats(path):
    with open(path) as f:
        data = json.load(f)
    iops = 0.0
    best = None
    for job in data["jobs"]:
        for d in ("read", "write", "trim"):
            s = job.get(d)
            if not s or not s.get("io_bytes"):
                continue
            iops += s["iops"]
            if best is None or s["io_bytes"] > best["io_bytes"]:
                best = s
    if best is None:
        raise ValueError(f"{path}: no I/O")
    clat = best["clat_ns"]
    pct = clat.get("percentile", {})
    return {
        "iops": iops,
        "clat_mean_us": clat["mean"] / 1000,
        "clat_p99_us": pct.get("99.000000", 0) / 1000,
        "clat_p999_us": pct.get("99.900000", 0) / 1000,
        "clat_max_us": clat["max"] / 1000,
        "slat_max_us": best["slat_ns"]["max"] / 1000,
    }


def aggregate(runs):
    if not runs:
        return None
    med = lambda k: statistics.median(r[k] for r in runs)
    iops = [r["iops"] for r in runs]
    return {
        "runs": len(runs),
        "iops_min": min(iops), "iops_median": statistics.median(iops), "iops_max": max(iops),
        "clat_mean_us": med("clat_mean_us"), "clat_p99_us": med("clat_p99_us"),
        "clat_p999_us": med("clat_p999_us"),
        "clat_max_us": max(r["clat_max_us"] for r in runs),
        "slat_max_us": max(r["slat_max_us"] for r in runs),
    }


def fmt_us(v):
    return f"{v:.1f}us" if v < 1000 else f"{v:.0f}us"


def pct(a, b):
    return f"{(a - b) / b * 100:+.1f}%" if b else "n/a"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--json", required=True)
    for k in ("commit", "kernel", "date", "host"):
        ap.add_argument("--" + k, default="unknown")
    ap.add_argument("jobs", nargs="+")
    a = ap.parse_args()

    summary = {"date": a.date, "kernel": a.kernel, "commit": a.commit, "host": a.host, "jobs": {}}
    out = []
    out.append(f"md bench  date: {a.date}  kernel: {a.kernel}  commit: {a.commit}")
    out.append(f"          host: {a.host}")
    for job in a.jobs:
        d = os.path.join(a.dir, job)
        params = dict(kv.split("=", 1) for kv in open(os.path.join(d, "params.txt")).read().split())
        broken = {}
        bp = os.path.join(d, "broken.txt")
        if os.path.exists(bp):
            for line in open(bp):
                t, _, why = line.partition(": ")
                broken.setdefault(t, why.strip())
        groups = {}
        for line in open(os.path.join(d, "runs.txt")):
            target, _n, group, fn = line.split()
            st = run_stats(os.path.join(d, fn))
            groups.setdefault(target, []).append(st)
            if group != target:
                groups.setdefault(group, []).append(st)
        js = {"params": params, "broken": broken, "targets": {}}
        out.append("")
        out.append(f"{job}: {params['level']} on {params['ndisks']} brd, "
                   f"{params['runs']} runs per target, ABBA in-tree/fork, "
                   f"{params['warmup']}s warm-up per load (discarded)")
        hdr = (f"{'target':<18} {'runs':>4} {'IOPS min':>9} {'median':>9} {'max':>9}"
               f" {'clat mean':>10} {'p99':>9} {'p99.9':>9} {'max':>9} {'slat max':>9}")
        out.append(hdr)
        out.append("-" * len(hdr))
        for t in ("raw", "intree", "fork"):
            s = aggregate(groups.get(t, []))
            js["targets"][t] = s
            if s is None:
                why = broken.get(t, "no successful runs")
                out.append(f"{LABELS[t]:<18}    - NOT FUNCTIONAL: {why}")
                continue
            out.append(f"{LABELS[t]:<18} {s['runs']:>4} {s['iops_min']:>9.0f} {s['iops_median']:>9.0f}"
                       f" {s['iops_max']:>9.0f} {fmt_us(s['clat_mean_us']):>10}"
                       f" {fmt_us(s['clat_p99_us']):>9} {fmt_us(s['clat_p999_us']):>9}"
                       f" {fmt_us(s['clat_max_us']):>9} {fmt_us(s['slat_max_us']):>9}")
        ga, gb = aggregate(groups.get("intree-a", [])), aggregate(groups.get("intree-b", []))
        js["aa"] = {"intree-a": ga, "intree-b": gb}
        if ga and gb:
            out.append(f"A/A in-tree a vs b: {ga['runs']}+{gb['runs']} runs, median IOPS "
                       f"{pct(gb['iops_median'], ga['iops_median'])}, clat mean "
                       f"{pct(gb['clat_mean_us'], ga['clat_mean_us'])}, p99 "
                       f"{pct(gb['clat_p99_us'], ga['clat_p99_us'])}, p99.9 "
                       f"{pct(gb['clat_p999_us'], ga['clat_p999_us'])}  (noise floor)")
        else:
            out.append("A/A in-tree a vs b: not enough in-tree runs")
        fi, it = js["targets"].get("fork"), js["targets"].get("intree")
        if fi and it:
            out.append(f"fork vs in-tree: median IOPS {pct(fi['iops_median'], it['iops_median'])}, "
                       f"clat mean {pct(fi['clat_mean_us'], it['clat_mean_us'])}, p99 "
                       f"{pct(fi['clat_p99_us'], it['clat_p99_us'])}, p99.9 "
                       f"{pct(fi['clat_p999_us'], it['clat_p999_us'])}")
        summary["jobs"][job] = js
    with open(a.json, "w") as f:
        json.dump(summary, f, indent=2)
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
