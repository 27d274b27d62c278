#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Summarise tests/vm/bench-throttle results (issue 5, resync throttle).

Input (--dir): CONFIG/IMPL/runN/ as written by
tests/vm/guest/bench-throttle.sh, CONFIG naming level, members and their
speed ("nullb" and "brd" are RAID1 of 2): idle-JOB.json (for recover
also degraded-JOB.json, its baseline) and, per sync kind SYNC (repair,
resync, recover), SYNC-JOB.json (fio), SYNC-JOB.samples,
t2-SYNC.dmesg, t2-SYNC.samples, t3-SYNC.samples, t3-SYNC-fio.json and
*.stats.  Samples are md_sample lines "t_ms pos_kib total_kib reads
writes action".  T3 measured with another load or floors than QD16 x 4
and sync_speed_min 5000 (params.txt's t3_load and t3_min) is in
t3-SYNC-LOAD-minFLOOR.*, one T3 per floor.

Prints the T1/T2/T3 tables (medians over runs), writes summary.json and,
per configuration, sync kind and T3, t3-CONFIG-SYNC[-LOAD-minFLOOR].dat
(gnuplot data: its title line, then one block per implementation, its
first run's T3 timeline) into --out.  In summary.json, a sync kind's
"t3" is the default T3 (QD16 x 4, floor 5000); any other is in "t3v",
keyed by "LOAD-minFLOOR", with its "load" and "min" beside the
implementations.
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
JOBS = ("qd1-randread", "qd1x64-randread", "qd16x4-randread", "qd1-randwrite")
# (IOPS ratio target, p99 ratio limit or None)
T1_TARGET = {"qd1-randread": (0.90, 2.0), "qd1x64-randread": (0.90, None),
             "qd16x4-randread": (0.90, None), "qd1-randwrite": (0.80, None)}
# issue 33: the QD1 readers' worst run keeps at least this much of idle
T1_WORST = {"qd1-randread": 0.85, "qd1x64-randread": 0.85}
T2_TARGET = 0.95
# issue 37 item 4: an idle reshape runs at >= 0.9x in-tree's speed
T2_KIND_TARGET = {"reshape": 0.90}
T3_FLOOR = 5000
T3_LOAD = "qd16x4-randread"
LOAD_TEXT = {"qd16x4-randread": "QD16 x 4 randread", "qd1x64-randread": "QD1 x 64 randread",
             "qd1-randread": "QD1 randread", "qd1-randwrite": "QD1 randwrite"}
T3_RECOVERY_MS = 1000
T3_RECOVERED = 0.90
# issue 33's work-conserving moonshot: the sync gets this much of what the
# foreground leaves while the foreground keeps WC_FG of its idle IOPS
WC_MOONSHOT = 0.80
WC_FG = 0.95
READ_JOBS = ("qd1-randread", "qd1x64-randread", "qd16x4-randread")
SYNC_TEXT = {"repair": "`repair`", "resync": "the initial resync",
             "recover": "the recovery of one member onto a spare",
             "reshape": "the reshape to one member more (mdadm --grow --raid-devices, "
                        "no backup file)"}


def config(cfg, params):
    """Level, member count, member type and speed of a configuration."""
    m = re.match(r"(?:r(\d+)-(\d+)x-)?(nullb|brd)(\d*)$", cfg)
    if not m:
        return None
    level = int(m.group(1) or 1)
    ndevs = int(m.group(2) or 2)
    mbps = int(m.group(4) or 100) if m.group(3) == "nullb" else None
    syncs = params.get("syncs", "repair").split()
    c = {"level": level, "ndevs": ndevs, "member": m.group(3), "mbps": mbps,
         "syncs": syncs}
    if params.get("chunk", "default") != "default":
        c["chunk_kib"] = int(params["chunk"])
    return c


def config_text(c):
    if c["member"] == "nullb":
        mem = f"null_blk (memory backed, {c['mbps']} MB/s, 50 us timer completions)"
    else:
        mem = "brd (RAM disk, CPU bound)"
    shape = f"RAID{c['level']} of {c['ndevs']}"
    if c.get("chunk_kib"):
        shape += f" ({c['chunk_kib']}K chunk)"
    if c["syncs"] == ["reshape"]:
        shape += f" grown to {c['ndevs'] + 1}"
    return f"{shape}, members: {mem}"






def rate(rows, t0, t1):
    """Sync KiB/s between the samples nearest t0 and t1 (positions known)."""
    sel = [r for r in rows if t0 - 1e-9 <= r["t"] <= t1 + 1e-9 and r["pos"] >= 0]
    if len(sel) < 2 or sel[-1]["t"] <= sel[0]["t"]:
        return None
    return (sel[-1]["pos"] - sel[0]["pos"]) / (sel[-1]["t"] - sel[0]["t"])


def fit_rate(rows, t0, t1):
    """Sync KiB/s over [t0, t1]: the least-squares slope of the position.
    The position moves in batches as stripes complete (up to 750 KiB in
    one 100 ms sample beside 64 readers), so the rate between two samples
    moves with where each end falls in its batch (983 to 1101 KiB/s for
    one floor kept at 1031, over 4 s); the slope through every sample
    does not."""
    sel = [r for r in rows if t0 - 1e-9 <= r["t"] <= t1 + 1e-9 and r["pos"] >= 0]
    if len(sel) < 2:
        return None
    n = len(sel)
    mt = sum(r["t"] for r in sel) / n
    mp = sum(r["pos"] for r in sel) / n
    var = sum((r["t"] - mt) ** 2 for r in sel)
    if var <= 0:
        return None
    return sum((r["t"] - mt) * (r["pos"] - mp) for r in sel) / var


def t2_seconds(run, kind):
    """Sync time from the kernel's own start/done messages."""
    path = os.path.join(run, f"t2-{kind}.dmesg")
    start = done = None
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                m = re.match(r"\[\s*([0-9.]+)\]\s+md: (\S+) of RAID array md0", line)
                if m:
                    start = float(m.group(1))
                m = re.match(r"\[\s*([0-9.]+)\]\s+md: md0: (\S+) done", line)
                if m and start is not None:
                    done = float(m.group(1))
    if start is not None and done is not None and done > start:
        return done - start
    rows = samples(os.path.join(run, f"t2-{kind}.samples"))
    busy = [r["t"] for r in rows if r["act"] != "idle"]
    return busy[-1] - busy[0] if len(busy) > 1 else None


def t3_variants(params):
    """[(file tag, floor, load)]: T3's runs; the default load and floor
    (all runs before both could be chosen) keep the plain file names."""
    load = params.get("t3_load", T3_LOAD)
    mins = [int(v) for v in params.get("t3_min", str(T3_FLOOR)).split()]
    if load == T3_LOAD and mins == [T3_FLOOR]:
        return [("", T3_FLOOR, load)]
    return [(f"-{load}-min{v}", v, load) for v in mins]


def t3(run, kind, idle_kibs, tag=""):
    rows = samples(os.path.join(run, f"t3-{kind}{tag}.samples"))
    act = [k for k in range(1, len(rows)) if rows[k]["rd"] > rows[k - 1]["rd"]]
    if not act:
        return None
    ls, le = rows[act[0] - 1]["t"], rows[act[-1]]["t"]
    res = {"load_s": le - ls,
           "before_kibs": fit_rate(rows, 0.2, ls),
           "floor_kibs": fit_rate(rows, ls + 0.5, le),
           "floor_kibs_ends": rate(rows, ls + 0.5, le),
           "after_kibs": fit_rate(rows, le + 1.0, rows[-1]["t"]),
           "recovery_ms": None}
    if idle_kibs:
        for r in rows:
            if r["t"] < le:
                continue
            v = rate(rows, r["t"], r["t"] + 0.2)
            if v is not None and v >= T3_RECOVERED * idle_kibs:
                res["recovery_ms"] = round((r["t"] - le) * 1000)
                break
    return res


def timeline(run, kind, tag=""):
    rows = samples(os.path.join(run, f"t3-{kind}{tag}.samples"))
    out = []
    for a, b in zip(rows, rows[1:]):
        dt = b["t"] - a["t"]
        if dt <= 0:
            continue
        iops = (b["rd"] + b["wr"] - a["rd"] - a["wr"]) / dt
        if a["pos"] < 0 or b["pos"] < 0:
            sync = 0.0
        elif b["pos"] < a["pos"]:
            sync = float("nan")  # the pass (re)started: no speed to plot
        else:
            sync = (b["pos"] - a["pos"]) / dt / 1024
        out.append((b["t"], iops, sync))
    return out








def t1_table(S, runs, kind):
    what = SYNC_TEXT[kind]
    # a rebuild is measured against the degraded array
    base = "degraded" if kind == "recover" else "idle"
    if kind == "recover":
        print(f"T1: 4 KiB fio on the degraded array (no spare; \"idle\" below) vs during {what}")
    else:
        print(f"T1: 4 KiB fio on the idle array vs during {what}")
    print(f"    sync KiB/s: {kind} progress while the job's IOs were completing")
    print(f"{'job':17} {'impl':7} {'runs':>4} {'idle IOPS':>10} {kind + ' IOPS':>11} {'ratio':>6} "
          f"{'target':>6} {'met':>4} {'idle p99':>9} {'sync p99':>9} {'p99 x':>6} {'met':>4} "
          f"{'sync KiB/s':>10} {'worst':>6} {'met':>4}")
    for job in JOBS:
        for i in IMPLS:
            idle, rep, sync, per_run = [], [], [], []
            sandwich = False
            for r in runs.get(i, []):
                pi = os.path.join(r, f"{base}-{job}.json")
                ps = os.path.join(r, f"{kind}-{job}.json")
                if os.path.exists(pi) and os.path.exists(ps):
                    x, y = fio_stats(pi), fio_stats(ps)
                    z = fio_stats(os.path.join(r, f"after-{kind}-{job}.json"))
                    if x and y:
                        if z:
                            sandwich = True
                            # the baseline on both sides: drift cancels
                            x = {"iops": (x["iops"] + z["iops"]) / 2,
                                 "p99_us": (x["p99_us"] + z["p99_us"]) / 2}
                        idle.append(x)
                        rep.append(y)
                        # the run's own share: its sync IOPS over its idle IOPS
                        per_run.append(y["iops"] / x["iops"] if x["iops"] else None)
                rows = samples(os.path.join(r, f"{kind}-{job}.samples"))
                act = [k for k in range(1, len(rows))
                       if rows[k]["rd"] + rows[k]["wr"] > rows[k - 1]["rd"] + rows[k - 1]["wr"]]
                if act:
                    # while fio ran (its IOs show in the array's counters)
                    sync.append(rate(rows, rows[act[0] - 1]["t"], rows[act[-1]]["t"]))
            if not idle:
                continue
            ii, ri = med(x["iops"] for x in idle), med(x["iops"] for x in rep)
            ip, rp = med(x["p99_us"] for x in idle), med(x["p99_us"] for x in rep)
            # the median of the runs' own shares (runs recorded before
            # after-*.json existed: median(during) / median(idle))
            ratio = med(per_run) if sandwich else (ri / ii if ii else None)
            pr = rp / ip if ip else None
            tgt, plim = T1_TARGET[job]
            ok = ratio is not None and ratio >= tgt
            pok = None if plim is None or pr is None else pr <= plim
            shares = [x for x in per_run if x is not None]
            worst = min(shares) if shares else None
            wtgt = T1_WORST.get(job)
            wok = None if wtgt is None or worst is None else worst >= wtgt
            S.setdefault("t1", {}).setdefault(job, {})[i] = {
                "runs": len(idle), "idle_iops": ii, "repair_iops": ri, "ratio": ratio,
                "idle_p99_us": ip, "repair_p99_us": rp, "p99_ratio": pr,
                "sync_kibs": med(sync), "iops_met": ok, "p99_met": pok,
                "run_ratios": per_run, "worst_ratio": worst, "worst_target": wtgt,
                "worst_met": wok}
            print(f"{job:17} {LABEL[i]:7} {len(idle):4} {ii:10.0f} {ri:11.0f} {ratio:6.2f} "
                  f"{'>=' + format(tgt, '.2f'):>6} {yes(ok):>4} {ip / 1000:7.2f}ms "
                  f"{rp / 1000:7.2f}ms {fmt(pr, '{:.2f}'):>6} {yes(pok):>4} {fmt(med(sync)):>10} "
                  f"{fmt(worst, '{:.2f}'):>6} {yes(wok):>4}")


def noise_table(C, runs, syncs):
    """The bench's own resolution: each job run twice with no sync, the
    run after a sync (stopped) over the idle run before it.  A sync that
    cost nothing would show these shares, so a target on a single run's
    share cannot be finer than their spread.  Every sync kind's runs are
    pooled (a rebuild's baseline is the degraded array, so it is left
    out)."""
    kinds = [k for k in syncs if k != "recover"]
    if not kinds:
        return
    print("Resolution: the same job twice with no sync (the run after a sync stopped over the idle")
    print(f"    run before it), every run of {', '.join(kinds)} pooled; what a sync costing nothing shows")
    print(f"{'job':17} {'impl':7} {'pairs':>5} {'median':>6} {'worst':>6} {'best':>6}")
    out = C.setdefault("noise", {})
    for job in JOBS:
        for i in IMPLS:
            shares = []
            for r in runs.get(i, []):
                x = fio_stats(os.path.join(r, f"idle-{job}.json"))
                for k in kinds:
                    z = fio_stats(os.path.join(r, f"after-{k}-{job}.json"))
                    if x and z and x["iops"]:
                        shares.append(z["iops"] / x["iops"])
            if not shares:
                continue
            out.setdefault(job, {})[i] = {"pairs": len(shares), "median": med(shares),
                                          "worst": min(shares), "best": max(shares)}
            print(f"{job:17} {LABEL[i]:7} {len(shares):5} {med(shares):6.2f} "
                  f"{min(shares):6.2f} {max(shares):6.2f}")


def t2_table(S, runs, kind):
    tgt = T2_KIND_TARGET.get(kind, T2_TARGET)
    print(f"T2: {kind} of the whole array with no foreground IO (kernel start/done messages)")
    print(f"{'impl':7} {'runs':>4} {'seconds':>8} {'MiB/s':>7} {'vs in-tree':>10} {'target':>6} {'met':>4}")
    t2 = {}
    for i in IMPLS:
        secs = []
        for r in runs.get(i, []):
            s = t2_seconds(r, kind)
            rows = samples(os.path.join(r, f"t2-{kind}.samples"))
            tot = max((x["total"] for x in rows), default=-1)
            first = next((x["pos"] for x in rows if x["pos"] >= 0), -1)
            if s and tot > 0 and 0 <= first < tot // 10:
                secs.append((s, tot))
        if not secs:
            continue
        s = med(x[0] for x in secs)
        tot = secs[0][1]
        t2[i] = {"runs": len(secs), "seconds": s, "kibs": tot / s,
                 "per_run_kibs": [x[1] / x[0] for x in secs]}
    for i in IMPLS:
        if i not in t2:
            continue
        v = t2[i]
        rel = v["kibs"] / t2["intree"]["kibs"] if "intree" in t2 else None
        ok = None if i == "intree" or rel is None else rel >= tgt
        v["vs_intree"], v["met"] = rel, ok
        if i == "fork":
            v["target"] = tgt
        print(f"{LABEL[i]:7} {v['runs']:4} {v['seconds']:8.2f} {v['kibs'] / 1024:7.1f} "
              f"{fmt(rel, '{:.2f}'):>10} {'>=' + format(tgt, '.2f') if i == 'fork' else '':>6} "
              f"{yes(ok):>4}   MiB/s per run: "
              + ",".join(f"{x / 1024:.1f}" for x in v["per_run_kibs"]))
    S["t2"] = t2
    return t2


def reshape_report(S, runs):
    """What each stack reported of its T2 reshapes: the totals of
    /proc/mdstat (KiB) and md/sync_completed (sectors), both per member,
    the last md/reshape_position (array sectors), and the shape each
    reshape ended in (t2-reshape.after)."""
    print("Reshape as reported (T2): mdstat total KiB, sync_completed total sectors (both per")
    print("    member), the highest reshape_position (array sectors) seen, and the end state")
    out = {}
    for i in IMPLS:
        for k, r in enumerate(runs.get(i, [])):
            pos = os.path.join(r, "t2-reshape.pos")
            after = os.path.join(r, "t2-reshape.after")
            if not os.path.exists(after):
                continue
            mtot = stot = rmax = None
            if os.path.exists(pos):
                for line in open(pos):
                    w = line.split()
                    if len(w) < 4:
                        continue
                    if "/" in w[1]:
                        mtot = int(w[1].split("/")[1])
                    if "/" in w[2]:
                        stot = int(w[2].split("/")[1])
                    if w[3].isdigit():
                        rmax = max(rmax or 0, int(w[3]))
            st = {}
            offs = []
            for line in open(after):
                w = line.split(None, 1)
                if len(w) < 2:
                    continue
                if w[0].startswith("dev-"):
                    m = re.search(r"\boffset=(\d+)", w[1])
                    offs.append(m.group(1) if m else "?")
                elif w[0].startswith("/dev/"):
                    m = re.search(r"data_offset=(\d+)", w[1])
                    st.setdefault("offset_before", m.group(1) if m else "?")
                else:
                    st[w[0]] = w[1].strip()
            ok = st.get("raid_disks") and st.get("reshape_position") == "none"
            out.setdefault(i, []).append({"mdstat_total_kib": mtot, "sync_completed_total": stot,
                                          "reshape_position_max": rmax, "end": st,
                                          "offsets_after": offs})
            print(f"{LABEL[i]:7} run {k + 1}: mdstat total {fmt(mtot)} KiB, sync_completed total "
                  f"{fmt(stot)} sectors, reshape_position up to {fmt(rmax)}; ended: raid_disks "
                  f"{st.get('raid_disks', '?')}, reshape_position {st.get('reshape_position', '?')}, "
                  f"component_size {st.get('component_size', '?')} KiB, size "
                  f"{st.get('size_sectors', '?')} sectors, data offset "
                  f"{st.get('offset_before', '?')} -> {'/'.join(sorted(set(offs))) or '?'}"
                  + (f", after it: check mismatch_cnt {st['mismatch_cnt']}, the added space "
                     f"reads {'zeroes' if st.get('added_reads_zero') == 'yes' else 'NOT zeroes'}"
                     if "mismatch_cnt" in st else "")
                  + ("" if ok else "  <- NOT DONE"))
    S["reshape"] = out


def stats_file(path):
    """A stats_dump file as {name: value}."""
    out = {}
    if os.path.exists(path):
        for line in open(path):
            w = line.split()
            if len(w) == 2:
                out[w[0]] = w[1]
    return out


def wc_table(S, runs, kind, c, t2):
    """Work-conserving: the sync's speed beside each read job as a share
    of what the foreground leaves.  The members' bound is null_blk's
    limit, ndevs x mbps; a 4 KiB read holds one member for 4 KiB of it, so
    the foreground uses iops x 4 KiB of that bound, and the sync, which at
    its T2 speed takes the whole array, can have T2 x (1 - that use)."""
    if c["member"] != "nullb" or "t1" not in S:
        return
    bound_kibs = c["ndevs"] * c["mbps"] * 1e6 / 1024
    print(f"Work-conserving: {kind} speed beside each read job over what the foreground leaves,")
    print(f"    T2 speed x (1 - foreground use of {c['ndevs']} x {c['mbps']} MB/s); "
          f"moonshot >= {WC_MOONSHOT:.0%} with the foreground keeping >= {WC_FG:.0%}")
    print(f"{'job':17} {'impl':7} {'fg kept':>7} {'fg use':>7} {'left KiB/s':>10} "
          f"{'sync KiB/s':>10} {'share':>6} {'moonshot':>8}  fork md/stats (run 1)")
    wc = {}
    for job in READ_JOBS:
        for i in IMPLS:
            v = S["t1"].get(job, {}).get(i)
            if not v or i not in t2 or v["sync_kibs"] is None:
                continue
            use = v["repair_iops"] * 4 / bound_kibs
            left = t2[i]["kibs"] * max(0.0, 1 - use)
            share = v["sync_kibs"] / left if left else None
            moon = (share is not None and v["ratio"] is not None
                    and share >= WC_MOONSHOT and v["ratio"] >= WC_FG)
            st = stats_file(os.path.join(runs[i][0], f"{kind}-{job}.stats")) if runs.get(i) else {}
            note = " ".join(f"{k[len('throttle_'):]}={st[k]}" for k in
                            ("throttle_share_pm", "throttle_lat_ratio_pm",
                             "throttle_probes", "throttle_share_cuts") if k in st)
            wc.setdefault(job, {})[i] = {"fg_use": use, "left_kibs": left,
                                         "share": share, "moonshot_met": moon}
            print(f"{job:17} {LABEL[i]:7} {fmt(v['ratio'], '{:.2f}'):>7} {use:7.2f} "
                  f"{left:10.0f} {v['sync_kibs']:10.0f} {fmt(share, '{:.3f}'):>6} "
                  f"{yes(moon):>8}  {note}")
    S["wc"] = wc


def t3_table(S, runs, kind, t2, tag="", floor=T3_FLOOR, load=T3_LOAD):
    print(f"T3: {kind} with sync_speed_min {floor}, {LOAD_TEXT.get(load, load)} for a while, "
          "then idle")
    print("    floor = sync KiB/s under load (from 0.5 s after it starts, the slope through every")
    print("    100 ms sample of the position); recovery = ms after the")
    print(f"    last foreground IO until a 200 ms window reaches {T3_RECOVERED:.0%} of the T2 idle speed")
    print(f"{'impl':7} {'runs':>4} {'before':>8} {'floor':>8} {'met':>4} {'after':>8} "
          f"{'recovery':>9} {'met':>4}")
    t3s = {}
    for i in IMPLS:
        res = []
        for k, r in enumerate(runs.get(i, [])):
            idle = t2[i]["per_run_kibs"][k] if i in t2 and k < len(t2[i]["per_run_kibs"]) else None
            x = t3(r, kind, idle, tag)
            if x:
                res.append(x)
        if not res:
            continue
        fl = med(x["floor_kibs"] for x in res)
        rec = [x["recovery_ms"] for x in res]
        recm = None if any(v is None for v in rec) else med(rec)
        v = {"runs": len(res), "before_kibs": med(x["before_kibs"] for x in res),
             "floor_kibs": fl, "after_kibs": med(x["after_kibs"] for x in res),
             "recovery_ms": recm, "recovery_ms_runs": rec,
             "floor_met": fl is not None and fl >= floor,
             "recovery_met": recm is not None and recm <= T3_RECOVERY_MS}
        if not t2:
            # no idle speed to recover to (T2 was not run): not measured
            v["recovery_met"] = None
        if tag:
            v["floor_kibs_runs"] = [x["floor_kibs"] for x in res]
            v["floor_kibs_ends_runs"] = [x["floor_kibs_ends"] for x in res]
        t3s[i] = v
        print(f"{LABEL[i]:7} {v['runs']:4} {fmt(v['before_kibs']):>8} {fmt(fl):>8} "
              f"{yes(v['floor_met']):>4} {fmt(v['after_kibs']):>8} "
              f"{fmt(recm, '{:.0f}ms'):>9} {yes(v['recovery_met']):>4}   runs: "
              + ",".join("-" if x is None else str(x) for x in rec))
    if tag:
        for i in IMPLS:
            if i in t3s:
                print(f"{LABEL[i]} floor per run: " + ",".join(
                    fmt(x) for x in t3s[i]["floor_kibs_runs"]) +
                    " (between the first and last sample: " + ",".join(
                    fmt(x) for x in t3s[i]["floor_kibs_ends_runs"]) + ")")
    if not tag:
        S["t3"] = t3s
    else:
        S.setdefault("t3v", {})[tag[1:]] = dict(t3s, load=load, min=floor)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--out", required=True)
    for k in ("commit", "kernel", "date", "host", "accel"):
        ap.add_argument("--" + k, default="?")
    a = ap.parse_args()
    ppath = os.path.join(a.dir, "params.txt")
    params = open(ppath).read() if os.path.exists(ppath) else ""
    pdict = {}
    for line in params.splitlines():
        # one "key=value with spaces" per line for lists, "k=v k=v" otherwise
        key = line.split("=", 1)[0]
        if key in ("syncs", "jobs", "members", "t3_min"):
            pdict[key] = line.split("=", 1)[1]
        else:
            pdict.update(w.split("=", 1) for w in line.split() if "=" in w)
    summary = {"date": a.date, "kernel": a.kernel, "commit": a.commit, "host": a.host,
               "accel": a.accel, "params": params, "members": {}}
    print(f"resync throttle bench  date: {a.date}  kernel: {a.kernel}  commit: {a.commit}")
    print(f"          host: {a.host}  accel: {a.accel}")
    print("          " + " ".join(params.split()))
    print("Medians over runs.  A run's share is during the sync / idle, idle being the mean of the")
    print("runs before and after the sync (where the after run exists); ratio: the median of the")
    print("runs' shares (runs without an after run: median(during) / median(idle)); worst: the lowest.")
    for cfg in sorted(os.listdir(a.dir)):
        c = config(cfg, pdict) if os.path.isdir(os.path.join(a.dir, cfg)) else None
        if not c:
            continue
        C = summary["members"][cfg] = dict(c, syncs={})
        runs = {i: sorted(os.path.join(a.dir, cfg, i, r)
                          for r in os.listdir(os.path.join(a.dir, cfg, i)))
                for i in IMPLS if os.path.isdir(os.path.join(a.dir, cfg, i))}
        if pdict.get("jobs", "-").split():
            print()
            noise_table(C, runs, c["syncs"])
        for kind in c["syncs"]:
            S = C["syncs"][kind] = {}
            print()
            print(f"=== {config_text(c)}; during {SYNC_TEXT[kind]}")
            print()
            # a floor-only run (BT_JOBS=none, BT_T2=0) has no T1 or T2
            if pdict.get("jobs", "-").split():
                t1_table(S, runs, kind)
                print()
            t2 = {}
            if pdict.get("t2", "1") != "0":
                t2 = t2_table(S, runs, kind)
                print()
                if kind == "reshape":
                    reshape_report(S, runs)
                    print()
                wc_table(S, runs, kind, c, t2)
                print()
            for n, (tag, floor, load) in enumerate(t3_variants(pdict)):
                if n:
                    print()
                t3_table(S, runs, kind, t2, tag, floor, load)
                what = LOAD_TEXT.get(load, load).replace(" x ", "x")
                shape = (f"of RAID{c['level']} {c['ndevs']} -> {c['ndevs'] + 1}"
                         if kind == "reshape" else f"on RAID{c['level']} of {c['ndevs']}")
                title = (f"{kind} {shape} {c['member']}"
                         + (f" at {c['mbps']} MB/s" if c["mbps"] else "")
                         + f", sync_speed_min {floor} KiB/s, {what} in the middle")
                with open(os.path.join(a.out, f"t3-{cfg}-{kind}{tag}.dat"), "w") as f:
                    f.write(f"# title: {title.replace('_', chr(92) + '_')}\n")
                    f.write("# t_s iops sync_MiB_s; block 0 in-tree, block 1 fork (first run each)\n")
                    for i in IMPLS:
                        if runs.get(i):
                            for t, iops, sync in timeline(runs[i][0], kind, tag):
                                f.write(f"{t:.3f} {iops:.0f} {sync:.2f}\n")
                        f.write("\n\n")
                for i in IMPLS:
                    for r in runs.get(i, [])[:1]:
                        p = os.path.join(r, f"t3-{kind}{tag}.stats")
                        if os.path.exists(p):
                            print(f"{LABEL[i]} md/stats after T3 (run 1): " +
                                  " ".join(open(p).read().split()))
    with open(os.path.join(a.out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)


if __name__ == "__main__":
    main()
