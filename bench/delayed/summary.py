#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Summarise tests/vm/bench-delayed results (issue 35, arrays sharing disks).

Input (--dir): IMPL/runN/ as written by tests/vm/guest/bench-delayed.sh:
  N  idle.json, neighbour.json and idle2.json (fio: QD1 4 KiB random
     reads on md0, md1 idle, then md1 running `repair`, then md1 idle
     again; runs recorded before idle2.json existed have only the
     first), n-md0.samples and
     n-md1.samples (md_sample lines "t_ms pos_kib total_kib reads writes
     action", both started together), n-actions.txt (sync_action of both
     when the reads ended), n-before.stats and n-after.stats (md1's
     md/stats, this stack only)
  R  r-times.txt (uptime in 1/100 s: before the first assemble, after the
     second, when both read idle; whether resync=DELAYED was seen),
     r.dmesg (the kernel's own start and done messages), r-mdstat.txt

Prints the tables (median and worst run per implementation) and writes
summary.json into --out; tests/vm/bench_report.py turns its "delayed"
part into BENCHMARKS.md rows.
"""
import argparse
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from benchlib import fio_stats, fmt, med, samples, yes  # noqa: E402

IMPLS = ("intree", "fork")
LABEL = {"intree": "in-tree", "fork": "fork"}
# issue 35: the QD1 reader on one array keeps this much of its idle IOPS
# while the other array syncs (this stack; in-tree is reported beside)
N_TARGET = 0.90






def neighbour_sync_kibs(run):
    """md1's sync KiB/s while md0's reads were completing: the window from
    md0's samples, md1's positions in it (the samplers started together)."""
    r0 = samples(os.path.join(run, "n-md0.samples"), False)
    r1 = samples(os.path.join(run, "n-md1.samples"), False)
    act = [k for k in range(1, len(r0)) if r0[k]["rd"] > r0[k - 1]["rd"]]
    if not act:
        return None
    t0, t1 = r0[act[0] - 1]["t"], r0[act[-1]]["t"]
    sel = [r for r in r1 if t0 - 1e-9 <= r["t"] <= t1 + 1e-9 and r["pos"] >= 0]
    if len(sel) < 2 or sel[-1]["t"] <= sel[0]["t"] or sel[-1]["pos"] < sel[0]["pos"]:
        return None
    return (sel[-1]["pos"] - sel[0]["pos"]) / (sel[-1]["t"] - sel[0]["t"])


def stats(path):
    out = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                p = line.split()
                if len(p) == 2 and p[1].isdigit():
                    out[p[0]] = int(p[1])
    return out


def neighbour(run):
    idle = fio_stats(os.path.join(run, "idle.json"))
    during = fio_stats(os.path.join(run, "neighbour.json"))
    after = fio_stats(os.path.join(run, "idle2.json"))
    if not idle or not during:
        return None
    # the idle runs on both sides: a drift within the boot cancels out
    idle_iops = (idle["iops"] + after["iops"]) / 2 if after else idle["iops"]
    acts = {}
    p = os.path.join(run, "n-actions.txt")
    if os.path.exists(p):
        w = open(p).read().split()
        acts = dict(zip(w[0::2], w[1::2]))
    before = stats(os.path.join(run, "n-before.stats"))
    after = stats(os.path.join(run, "n-after.stats"))
    fg = None
    if "fg_active_samples" in before and "fg_active_samples" in after:
        fg = after["fg_active_samples"] - before["fg_active_samples"]
    return {"idle_iops": idle_iops, "during_iops": during["iops"],
            "share": during["iops"] / idle_iops,
            "idle_p99_us": idle["p99_us"], "during_p99_us": during["p99_us"],
            "md1_kibs": neighbour_sync_kibs(run),
            # the repair must outlast the reads, md0 must stay idle
            "valid": acts.get("md1") == "repair" and acts.get("md0") == "idle",
            "md1_fg_active_samples": fg}


def kernel_passes(path):
    """{md: (start_s, done_s)} from the kernel's messages of both
    implementations: "md: resync of RAID array mdN" (printed once the
    pass has its turn) and "md: mdN: resync done"."""
    start, done = {}, {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                m = re.match(r"\[\s*([0-9.]+)\]\s+md: resync of RAID array (md\d+)", line)
                if m:
                    start[m.group(2)] = float(m.group(1))
                m = re.match(r"\[\s*([0-9.]+)\]\s+md: (md\d+): resync done", line)
                if m:
                    done[m.group(2)] = float(m.group(1))
    return {md: (start[md], done.get(md)) for md in start}


def resync(run):
    p = os.path.join(run, "r-times.txt")
    if not os.path.exists(p):
        return None
    with open(p) as f:
        kv = dict(re.findall(r"(\w+)=(\S+)", f.read()))
    if "idle_cs" not in kv:
        return None
    t0, t1, t2 = (int(kv[k]) for k in ("start_cs", "assembled_cs", "idle_cs"))
    kp = kernel_passes(os.path.join(run, "r.dmesg"))
    res = {"total_s": (t2 - t0) / 100.0, "assemble_s": (t1 - t0) / 100.0,
           "delayed_seen": kv.get("delayed_seen") == "1", "passes": {}}
    for md, (a, b) in sorted(kp.items()):
        res["passes"][md] = {"start_s": a, "done_s": b,
                             "seconds": b - a if b is not None else None}
    pp = res["passes"]
    if all(md in pp and pp[md]["done_s"] is not None for md in ("md0", "md1")):
        first, second = sorted(("md0", "md1"), key=lambda m: pp[m]["start_s"])
        # one after the other: the second started once the first was done
        res["serial"] = pp[second]["start_s"] >= pp[first]["done_s"] - 0.05
        res["kernel_total_s"] = max(pp[m]["done_s"] for m in pp) - \
            min(pp[m]["start_s"] for m in pp)
        res["both_done"] = True
    else:
        res["both_done"] = False
    return res








def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--out", required=True)
    for k in ("commit", "kernel", "date", "host", "accel"):
        ap.add_argument("--" + k, default="?")
    a = ap.parse_args()
    ppath = os.path.join(a.dir, "params.txt")
    params = open(ppath).read().strip() if os.path.exists(ppath) else ""
    pd = dict(w.split("=", 1) for w in params.split() if "=" in w)
    cfg = {"level": 1, "arrays": 2, "disks": 2, "member": "nullb",
           "mbps": int(pd.get("nullb_mbps", 100)), "part_mb": int(pd.get("part_mb", 1024))}
    D = {"config": cfg, "neighbour": {}, "resync": {}, "target": N_TARGET}
    summary = {"date": a.date, "kernel": a.kernel, "commit": a.commit, "host": a.host,
               "accel": a.accel, "params": params, "delayed": D}
    runs = {i: sorted(os.path.join(a.dir, i, r) for r in os.listdir(os.path.join(a.dir, i)))
            for i in IMPLS if os.path.isdir(os.path.join(a.dir, i))}

    print(f"arrays sharing disks bench (issue 35)  date: {a.date}  kernel: {a.kernel}  "
          f"commit: {a.commit}")
    print(f"          host: {a.host}  accel: {a.accel}")
    print(f"          {params}")
    print(f"Two null_blk disks (memory backed, {cfg['mbps']} MB/s each), each cut into two "
          f"{cfg['part_mb']} MiB partitions;")
    print("md0 = RAID1 of the first partitions, md1 = RAID1 of the second ones.")
    print("Medians over runs; worst: the run furthest from the target.")

    print()
    print("N: QD1 4 KiB random reads on md0 (in sync, idle) with md1 idle, then while md1 runs")
    print("   `repair`, then with md1 idle again; a run keeps during / mean(idle before, idle")
    print("   after); kept = the median of the runs' shares; IOPS columns: medians;")
    print("   md1 KiB/s: md1's repair progress while md0's reads were completing")
    print(f"{'impl':7} {'runs':>4} {'idle IOPS':>10} {'during':>8} {'kept':>6} {'target':>7} "
          f"{'met':>4} {'worst':>6} {'idle p99':>9} {'dur. p99':>9} {'md1 KiB/s':>10} "
          f"{'md1 fg samples':>14}")
    for i in IMPLS:
        ns = [x for x in (neighbour(r) for r in runs.get(i, [])) if x]
        bad = sum(1 for x in ns if not x["valid"])
        ns = [x for x in ns if x["valid"]]
        if not ns:
            continue
        ii, di = med(x["idle_iops"] for x in ns), med(x["during_iops"] for x in ns)
        kept = med(x["share"] for x in ns)
        worst = min(x["share"] for x in ns)
        ok = kept is not None and kept >= N_TARGET if i == "fork" else None
        fg = med(x["md1_fg_active_samples"] for x in ns)
        D["neighbour"][i] = {
            "runs": len(ns), "invalid_runs": bad, "idle_iops": ii, "during_iops": di,
            "ratio": kept, "worst_ratio": worst, "run_ratios": [x["share"] for x in ns],
            "idle_p99_us": med(x["idle_p99_us"] for x in ns),
            "during_p99_us": med(x["during_p99_us"] for x in ns),
            "md1_kibs": med(x["md1_kibs"] for x in ns), "met": ok,
            "md1_fg_active_samples": fg}
        v = D["neighbour"][i]
        print(f"{LABEL[i]:7} {len(ns):4} {ii:10.0f} {di:8.0f} {kept * 100:5.1f}% "
              f"{'>=' + format(N_TARGET * 100, '.0f') + '%' if i == 'fork' else '':>7} "
              f"{yes(ok):>4} {worst * 100:5.1f}% {fmt(v['idle_p99_us'], '{:.0f}us'):>9} "
              f"{fmt(v['during_p99_us'], '{:.0f}us'):>9} {fmt(v['md1_kibs']):>10} "
              f"{fmt(fg):>14}" + (f"  ({bad} run(s) left out: repair too short or md0 "
                                   "not idle)" if bad else ""))

    print()
    print("R: both arrays stopped and assembled with --update=resync (dirty, as after an")
    print("   unclean shutdown); wall time from the first assemble until sync_action reads")
    print("   idle on both; kernel: first pass start to last pass done (kernel log);")
    print("   serial: the second pass started after the first was done (resync=DELAYED)")
    print(f"{'impl':7} {'runs':>4} {'total s':>8} {'worst s':>8} {'vs in-tree':>10} "
          f"{'kernel s':>9} {'md0 s':>7} {'md1 s':>7} {'MiB/s':>7} {'serial':>7} {'DELAYED':>8}")
    for i in IMPLS:
        rs = [x for x in (resync(r) for r in runs.get(i, [])) if x]
        if not rs:
            continue
        tot = med(x["total_s"] for x in rs)
        per = {md: med(x["passes"].get(md, {}).get("seconds") for x in rs)
               for md in ("md0", "md1")}
        # the arrays' data size: what one pass moved
        mib = cfg["part_mb"]
        speeds = [mib / per[m] for m in per if per[m]]
        D["resync"][i] = {
            "runs": len(rs), "total_s": tot, "worst_total_s": max(x["total_s"] for x in rs),
            "run_total_s": [x["total_s"] for x in rs],
            "kernel_total_s": med(x.get("kernel_total_s") for x in rs),
            "pass_s": per, "pass_mib_s": med(speeds),
            "assemble_s": med(x["assemble_s"] for x in rs),
            "serial_runs": sum(1 for x in rs if x.get("serial")),
            "delayed_seen_runs": sum(1 for x in rs if x["delayed_seen"]),
            "both_done_runs": sum(1 for x in rs if x["both_done"])}
    for i in IMPLS:
        if i not in D["resync"]:
            continue
        v = D["resync"][i]
        base = D["resync"].get("intree", {}).get("total_s")
        rel = v["total_s"] / base if base else None
        v["vs_intree"] = rel
        print(f"{LABEL[i]:7} {v['runs']:4} {v['total_s']:8.2f} {v['worst_total_s']:8.2f} "
              f"{fmt(rel, '{:.2f}x'):>10} {fmt(v['kernel_total_s'], '{:.2f}'):>9} "
              f"{fmt(v['pass_s']['md0'], '{:.2f}'):>7} {fmt(v['pass_s']['md1'], '{:.2f}'):>7} "
              f"{fmt(v['pass_mib_s'], '{:.1f}'):>7} "
              f"{v['serial_runs']}/{v['runs']:<5} {v['delayed_seen_runs']}/{v['runs']:<6}")
    with open(os.path.join(a.out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)


if __name__ == "__main__":
    main()
