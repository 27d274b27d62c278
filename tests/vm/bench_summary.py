#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Summarise `make bench` results into side-by-side tables + summary.json.

Input: DIR/<job>/params.txt (mode=fio|fio-during-resync|resync, ...),
runs.txt lines "target n group file", broken.txt (targets that could not
build an array) and per run:

* fio jobs: the fio JSON, plus TARGET-N.md.txt for md targets: lines
  "before|after KEY VALUE" (uptime, sync_action, sync_completed,
  sb_events of the first member and stat.NAME for every md/stats file;
  the fork has those, in-tree not);
* resync jobs: TARGET-N.resync.txt: "start uptime T", "size component_kib
  K", "sample T SECTORS" every 0.1 s, "end uptime T";
* dd jobs: TARGET-N.dd.txt: "bytes B", "start T", "end T" (uptime around
  the whole dd) and dd's own report as "dd ..." lines, plus TARGET-N.md.txt.

Jobs on seekdisk members (# MEMBERS: seek) have seekdisk.txt (the module's
parameters) and sys.seek_* counters in the md records: requests, seeks,
positioning and transfer time summed over the members.

fio tables, per target: min/median/max IOPS over runs; the median over
runs of the mean, p99 and p99.9 completion latency; the max of max
completion and max submission latency; each run's max latency and the
median of those.  Resync tables: KiB/s (component
size / time from create to idle) min/median/max.  dd tables: MiB/s (size
/ wall time of the dd) min/median/max.  The A/A line compares
the two in-tree groups (first vs last in-tree run of each ABBA round) to
show the noise floor; the last line gives fork vs in-tree.
"""
import argparse
import json
import os
import re
import statistics
import sys

LABELS = {"raw": "raw member", "intree": "in-tree md", "fork": "this stack (fork)"}

# md/stats files that are maxima or gauges; all others are counters
# reported as the difference over one run.
STAT_VALUE = ("clean_check_max_ns", "write_wait_max_ns", "writes_pending",
              "wp_closed", "throttle_max_inflight", "throttle_wait_ns",
              "throttle_fg_active", "bitmap_wait_max_ns")
# (column, md/stats file, how): what the printed md/stats table shows.
STAT_COLUMNS = (
    ("sb events", "sb_events", "delta"),
    ("clean->dirty", "clean_to_dirty", "delta"),
    ("clean chk max", "clean_check_max_ns", "max"),
    ("wr wait max", "write_wait_max_ns", "max"),
    ("wp closes", "wp_closes", "delta"),
    ("close fails", "wp_close_fails", "delta"),
    ("throttled", "throttled_ns", "delta"),
    ("bm wait", "bitmap_wait_total_ns", "delta"),
    ("bm wait max", "bitmap_wait_max_ns", "max"),
)


def fio_stats(path):
    with open(path) as f:
        data = json.load(f)
    iops = 0.0
    bw_kib = 0.0
    best = None
    for job in data["jobs"]:
        for d in ("read", "write", "trim"):
            s = job.get(d)
            if not s or not s.get("io_bytes"):
                continue
            iops += s["iops"]
            bw_kib += s["bw"]
            if best is None or s["io_bytes"] > best["io_bytes"]:
                best = s
    if best is None:
        raise ValueError(f"{path}: no I/O")
    clat = best["clat_ns"]
    pct = clat.get("percentile", {})
    r = {
        "iops": iops,
        "mib_s": bw_kib / 1024,
        "clat_mean_us": clat["mean"] / 1000,
        "clat_p99_us": pct.get("99.000000", 0) / 1000,
        "clat_p999_us": pct.get("99.900000", 0) / 1000,
        "clat_max_us": clat["max"] / 1000,
        "slat_max_us": best["slat_ns"]["max"] / 1000,
    }
    # total latency (slat + clat) percentiles, in jobs with lat_percentiles=1
    lpct = best.get("lat_ns", {}).get("percentile")
    if lpct:
        r["lat_p99_us"] = lpct.get("99.000000", 0) / 1000
        r["lat_p999_us"] = lpct.get("99.900000", 0) / 1000
        r["lat_max_us"] = best["lat_ns"]["max"] / 1000
    return r


def sectors(v):
    """sync_completed "DONE / TOTAL" -> DONE; "none" (or anything else) -> None."""
    m = re.match(r"^(\d+) / \d+$", v or "")
    return int(m.group(1)) if m else None


def md_record(path):
    """TARGET-N.md.txt -> {"before": {...}, "after": {...}}."""
    rec = {"before": {}, "after": {}}
    if not os.path.exists(path):
        return None
    for line in open(path):
        tag, _, rest = line.rstrip("\n").partition(" ")
        key, _, val = rest.partition(" ")
        rec.setdefault(tag, {})[key] = val
    out = {"stats": {}, "sys": {}}
    b, a = rec["before"], rec["after"]
    for k, v in a.items():
        if k.startswith("sys.") and v.isdigit() and b.get(k, "").isdigit():
            out["sys"][k[4:]] = int(v) - int(b[k])
    for k, v in a.items():
        if not k.startswith("stat."):
            continue
        name = k[5:]
        try:
            av = int(v)
            bv = int(b.get(k, "0"))
        except ValueError:
            continue
        out["stats"][name] = av if name in STAT_VALUE else av - bv
    # raid456 stripe cache gauges (md/stripe_cache_*) as the run ended
    out["cache"] = {k[6:]: int(v) for k, v in a.items()
                    if k.startswith("cache.") and v.isdigit()}
    if a.get("sb_events", "").isdigit() and b.get("sb_events", "").isdigit():
        out["stats"]["sb_events"] = int(a["sb_events"]) - int(b["sb_events"])
    if "uptime" in a and "uptime" in b:
        dt = float(a["uptime"]) - float(b["uptime"])
        out["secs"] = dt
        s0, s1 = sectors(b.get("sync_completed")), sectors(a.get("sync_completed"))
        out["sync_before"] = b.get("sync_action")
        out["sync_after"] = a.get("sync_action")
        out["sync_running_at_end"] = s1 is not None
        if s0 is not None and s1 is not None and dt > 0:
            out["sync_kib_s"] = (s1 - s0) / 2 / dt
    return out


def resync_stats(path):
    start = end = size = None
    samples = []
    for line in open(path):
        f = line.split()
        if f[:2] == ["start", "uptime"]:
            start = float(f[2])
        elif f[:2] == ["end", "uptime"]:
            end = float(f[2])
        elif f[:2] == ["size", "component_kib"]:
            size = int(f[2])
        elif f[0] == "sample":
            samples.append((float(f[1]), int(f[2])))
    if start is None or end is None or not size or end <= start:
        raise ValueError(f"{path}: incomplete resync record")
    # steady rate: between the first and the last change of sync_completed
    steady = None
    ch = [samples[i] for i in range(1, len(samples)) if samples[i][1] != samples[i - 1][1]]
    if len(ch) >= 2 and ch[-1][0] > ch[0][0]:
        steady = (ch[-1][1] - ch[0][1]) / 2 / (ch[-1][0] - ch[0][0])
    return {"kib_s": size / (end - start), "secs": end - start, "size_kib": size,
            "steady_kib_s": steady}


def dd_stats(path):
    kv = {}
    for line in open(path):
        k, _, v = line.rstrip("\n").partition(" ")
        if k in ("bytes", "start", "end", "kind"):
            kv[k] = v
    if not {"bytes", "start", "end"} <= kv.keys():
        raise ValueError(f"{path}: incomplete dd record")
    secs = float(kv["end"]) - float(kv["start"])
    if secs <= 0:
        raise ValueError(f"{path}: dd took no time")
    b = int(kv["bytes"])
    return {"mib_s": b / 1048576 / secs, "secs": secs, "bytes": b}


def med(runs, k):
    vals = [r[k] for r in runs if r.get(k) is not None]
    return statistics.median(vals) if vals else None


def aggregate_fio(runs):
    if not runs:
        return None
    iops = [r["iops"] for r in runs]
    s = {
        "runs": len(runs),
        "iops_min": min(iops), "iops_median": statistics.median(iops), "iops_max": max(iops),
        "mib_s_median": med(runs, "mib_s"),
        "clat_mean_us": med(runs, "clat_mean_us"), "clat_p99_us": med(runs, "clat_p99_us"),
        "clat_p999_us": med(runs, "clat_p999_us"),
        "clat_max_us": max(r["clat_max_us"] for r in runs),
        "slat_max_us": max(r["slat_max_us"] for r in runs),
    }
    if all("lat_p99_us" in r for r in runs):
        s["lat_p99_us"] = med(runs, "lat_p99_us")
        s["lat_p999_us"] = med(runs, "lat_p999_us")
        s["lat_max_us"] = max(r["lat_max_us"] for r in runs)
    # each run's maximum, and their median: one outlier in one run moves
    # the max of all runs but not this
    for k in ("clat_max_us", "slat_max_us", "lat_max_us"):
        if all(k in r for r in runs):
            s[k + "_runs"] = [r[k] for r in runs]
            s[k + "_median"] = med(runs, k)
    add_md(s, runs)
    return s


def add_md(s, runs):
    """The md records of the runs (md/stats, stripe cache) into s."""
    mds = [r["md"] for r in runs if r.get("md")]
    if mds:
        s["sync_kib_s_median"] = med(mds, "sync_kib_s")
        s["sync_running_at_end"] = sum(1 for m in mds if m.get("sync_running_at_end"))
        st = {}
        for name in sorted({n for m in mds for n in m["stats"]}):
            vals = [m["stats"][name] for m in mds if name in m["stats"]]
            st[name] = {"median": statistics.median(vals), "max": max(vals), "runs": vals}
        s["md_stats"] = st
        cache = {}
        for name in sorted({n for m in mds for n in m.get("cache", {})}):
            cache[name] = max(m["cache"][name] for m in mds if name in m.get("cache", {}))
        if cache:
            s["md_cache"] = cache


def aggregate_dd(runs):
    if not runs:
        return None
    m = [r["mib_s"] for r in runs]
    s = {"runs": len(runs), "mib_s_min": min(m), "mib_s_median": statistics.median(m),
         "mib_s_max": max(m), "secs_median": med(runs, "secs"), "bytes": runs[0]["bytes"]}
    add_md(s, runs)
    return s


def aggregate_resync(runs):
    if not runs:
        return None
    k = [r["kib_s"] for r in runs]
    return {
        "runs": len(runs), "kib_s_min": min(k), "kib_s_median": statistics.median(k),
        "kib_s_max": max(k), "secs_median": med(runs, "secs"),
        "steady_kib_s_median": med(runs, "steady_kib_s"), "size_kib": runs[0]["size_kib"],
    }


def fmt_us(v):
    return f"{v:.1f}us" if v < 1000 else f"{v:.0f}us"


def fmt_ns(v):
    if v < 10000:
        return f"{v:.0f}ns"
    if v < 10000000:
        return f"{v / 1000:.0f}us"
    return f"{v / 1000000:.0f}ms"


def pct(a, b):
    return f"{(a - b) / b * 100:+.1f}%" if b else "n/a"


def ratio(a, b):
    return f"{a / b:.2f}x" if b else "n/a"


def fio_table(out, js, groups, broken, targets):
    hdr = (f"{'target':<18} {'runs':>4} {'IOPS min':>9} {'median':>9} {'max':>9}"
           f" {'MiB/s':>7} {'clat mean':>10} {'p99':>9} {'p99.9':>9} {'max':>9} {'slat max':>9}")
    out.append(hdr)
    out.append("-" * len(hdr))
    for t in targets:
        s = aggregate_fio(groups.get(t, []))
        js["targets"][t] = s
        if s is None:
            why = broken.get(t, "no successful runs")
            out.append(f"{LABELS[t]:<18}    - NOT FUNCTIONAL: {why}")
            continue
        out.append(f"{LABELS[t]:<18} {s['runs']:>4} {s['iops_min']:>9.0f} {s['iops_median']:>9.0f}"
                   f" {s['iops_max']:>9.0f} {s['mib_s_median']:>7.1f} {fmt_us(s['clat_mean_us']):>10}"
                   f" {fmt_us(s['clat_p99_us']):>9} {fmt_us(s['clat_p999_us']):>9}"
                   f" {fmt_us(s['clat_max_us']):>9} {fmt_us(s['slat_max_us']):>9}")
    ga, gb = aggregate_fio(groups.get("intree-a", [])), aggregate_fio(groups.get("intree-b", []))
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
        out.append(f"fork vs in-tree: median IOPS {pct(fi['iops_median'], it['iops_median'])} "
                   f"({ratio(fi['iops_median'], it['iops_median'])}), "
                   f"clat mean {pct(fi['clat_mean_us'], it['clat_mean_us'])}, p99 "
                   f"{pct(fi['clat_p99_us'], it['clat_p99_us'])}, p99.9 "
                   f"{pct(fi['clat_p999_us'], it['clat_p999_us'])}, max "
                   f"{pct(fi['clat_max_us'], it['clat_max_us'])}, slat max "
                   f"{pct(fi['slat_max_us'], it['slat_max_us'])}")
    lat = [(t, js["targets"][t]) for t in targets
           if js["targets"].get(t) and "lat_p99_us" in js["targets"][t]]
    if lat:
        out.append("total latency (slat + clat; median p99, p99.9 over runs, max of any run): "
                   + "; ".join(f"{LABELS[t]} {fmt_us(s['lat_p99_us'])}, "
                               f"{fmt_us(s['lat_p999_us'])}, {fmt_us(s['lat_max_us'])}"
                               for t, s in lat))
        if ga and gb and "lat_p99_us" in ga and "lat_p99_us" in gb:
            out.append(f"  A/A in-tree a vs b: p99 {pct(gb['lat_p99_us'], ga['lat_p99_us'])}, "
                       f"p99.9 {pct(gb['lat_p999_us'], ga['lat_p999_us'])}, "
                       f"max {pct(gb['lat_max_us'], ga['lat_max_us'])}")
        if fi and it and "lat_p99_us" in fi and "lat_p99_us" in it:
            out.append(f"  fork vs in-tree: p99 {pct(fi['lat_p99_us'], it['lat_p99_us'])}, "
                       f"p99.9 {pct(fi['lat_p999_us'], it['lat_p999_us'])}, "
                       f"max {pct(fi['lat_max_us'], it['lat_max_us'])}")
    per_run_max(out, js, targets, ga, gb, fi, it)
    sys_line(out, groups, targets)
    md = [(t, js["targets"][t]) for t in ("intree", "fork")
          if js["targets"].get(t) and "sync_running_at_end" in js["targets"][t]]
    if js["params"].get("mode") == "fio-during-resync":
        for t, s in md:
            kib = s["sync_kib_s_median"]
            out.append(f"resync during the runs, {LABELS[t]}: median "
                       f"{'n/a' if kib is None else f'{kib:.0f}'} KiB/s (sync_completed"
                       f" delta / run time), still running when fio ended in "
                       f"{s['sync_running_at_end']}/{s['runs']} runs")
    st = [(t, s) for t, s in md if s.get("md_stats")]
    if st:
        out.append("per run: superblock events (both) and md/stats (fork only); counters: median "
                   "of the run's delta; maxima (reset as each run starts): largest of any run:")
        h = f"  {'target':<18}" + "".join(f" {c[0]:>13}" for c in STAT_COLUMNS)
        out.append(h)
        for t, s in st:
            row = f"  {LABELS[t]:<18}"
            for _c, name, how in STAT_COLUMNS:
                v = s["md_stats"].get(name)
                if v is None:
                    row += f" {'-':>13}"
                elif how == "max":
                    row += f" {fmt_ns(v['max']):>13}"
                elif name.endswith("_ns"):
                    row += f" {fmt_ns(v['median']):>13}"
                else:
                    row += f" {v['median']:>13.0f}"
            out.append(row)
    seek_line(out, groups, targets, int(js["params"].get("ndisks", "0")))
    r5_lines(out, md, int(js["params"].get("ndisks", "0")))
    bound_line(out, js)
    seek_bound_line(out, js)


def seek_line(out, groups, targets, ndisks):
    """seekdisk members: what the heads did during the md runs."""
    rows = []
    for t in targets:
        recs = [r["md"] for r in groups.get(t, []) if r.get("md")
                and "seek_requests" in r["md"].get("sys", {}) and r["md"].get("secs")]
        if not recs:
            continue

        def m(k):
            return statistics.median(r["sys"].get(k, 0) for r in recs)
        req, seeks = m("seek_requests"), m("seek_seeks")
        pos, xfer = m("seek_position_ns") / 1e9, m("seek_transfer_ns") / 1e9
        late = m("seek_late_ns") / 1e9
        secs = statistics.median(r["secs"] for r in recs)
        busy = (pos + xfer) / (ndisks * secs) * 100 if ndisks and secs else 0
        rows.append(f"  {LABELS[t]:<18} requests {req:.0f}, seeks {seeks:.0f} "
                    f"({100 * seeks / req if req else 0:.0f} %), mean request "
                    f"{m('seek_sectors') / 2 / req if req else 0:.0f} KiB, mean seek "
                    f"{m('seek_seek_sectors') / 2048 / seeks if seeks else 0:.1f} MiB; head time "
                    f"positioning {pos:.1f} s + transfer {xfer:.1f} s in {secs:.1f} s x "
                    f"{ndisks} members (busy {busy:.0f} %); late {late:.2f} s")
    if rows:
        out.append("seekdisk heads per run, all members (median over runs; a seek is a request "
                   "that did not start where the member's previous one ended; late: "
                   "completions after the model's time):")
        out.extend(rows)


def members_label(js, params):
    """How a job's members are named: null_blk, seekdisk with its model, brd."""
    kind = params.get("members", "brd")
    if kind.startswith("nullb"):
        mbps = kind.partition(':')[2] or '100'
        return ("null_blk (no bandwidth limit)" if mbps == '0'
                else f"null_blk ({mbps} MB/s each)")
    if kind.startswith("seek"):
        sp = js.get("seekdisk")
        if not sp:
            return "seekdisk"
        return (f"seekdisk ({sp.get('mbps', '?')} MB/s, seek {sp.get('settle_us', '?')}.."
                f"{sp.get('full_seek_us', '?')} us + rotation {sp.get('rot_us', '?')} us, "
                f"depth {sp.get('queue_depth', '?')}, max {sp.get('max_kb', '?')} KiB)")
    return kind


def seek_bound_line(out, js):
    """seekdisk members: the array's bound if no request paid a seek."""
    p, sp = js["params"], js.get("seekdisk")
    parity = {"raid5": 1, "raid4": 1, "raid6": 2}.get(p.get("level"))
    if not sp or parity is None or not sp.get("mbps", "").isdigit():
        return
    data = int(p["ndisks"]) - parity
    bound = int(sp["mbps"]) * 1e6 / 1048576 * data
    parts = [f"{LABELS[t]} {js['targets'][t]['mib_s_median']:.1f} MiB/s "
             f"({100 * js['targets'][t]['mib_s_median'] / bound:.0f}%)"
             for t in ("intree", "fork") if js["targets"].get(t)]
    out.append(f"seek-free bound: {data} data members x {sp['mbps']} MB/s = {bound:.1f} MiB/s; "
               + ", ".join(parts))


def dd_table(out, js, groups, broken):
    hdr = (f"{'target':<18} {'runs':>4} {'MiB/s min':>10} {'median':>10} {'max':>10}"
           f" {'time median':>12}")
    out.append(hdr)
    out.append("-" * len(hdr))
    for t in ("intree", "fork"):
        s = aggregate_dd(groups.get(t, []))
        js["targets"][t] = s
        if s is None:
            why = broken.get(t, "no successful runs")
            out.append(f"{LABELS[t]:<18}    - NOT FUNCTIONAL: {why}")
            continue
        out.append(f"{LABELS[t]:<18} {s['runs']:>4} {s['mib_s_min']:>10.1f}"
                   f" {s['mib_s_median']:>10.1f} {s['mib_s_max']:>10.1f}"
                   f" {s['secs_median']:>11.2f}s")
    ga, gb = aggregate_dd(groups.get("intree-a", [])), aggregate_dd(groups.get("intree-b", []))
    js["aa"] = {"intree-a": ga, "intree-b": gb}
    if ga and gb:
        out.append(f"A/A in-tree a vs b: {ga['runs']}+{gb['runs']} runs, median MiB/s "
                   f"{pct(gb['mib_s_median'], ga['mib_s_median'])}  (noise floor)")
    else:
        out.append("A/A in-tree a vs b: not enough in-tree runs")
    fi, it = js["targets"].get("fork"), js["targets"].get("intree")
    if fi and it:
        out.append(f"fork vs in-tree: median MiB/s {pct(fi['mib_s_median'], it['mib_s_median'])}"
                   f" ({ratio(fi['mib_s_median'], it['mib_s_median'])})")
    ndisks = int(js["params"].get("ndisks", "0"))
    sys_line(out, groups, ("intree", "fork"))
    seek_line(out, groups, ("intree", "fork"), ndisks)
    md = [(t, js["targets"][t]) for t in ("intree", "fork") if js["targets"].get(t)]
    r5_lines(out, md, ndisks)
    seek_bound_line(out, js)


def bound_line(out, js):
    """Jobs on null_blk: each target as a share of the members' bound."""
    p = js["params"]
    raw = js["targets"].get("raw")
    parity = {"raid5": 1, "raid4": 1, "raid6": 2}.get(p.get("level"))
    if not p.get("members", "brd").startswith("nullb") or not raw or parity is None:
        return
    data = int(p["ndisks"]) - parity
    bound = raw["mib_s_median"] * data
    parts = [f"{LABELS[t]} {js['targets'][t]['mib_s_median']:.1f} MiB/s "
             f"({100 * js['targets'][t]['mib_s_median'] / bound:.0f}%)"
             for t in ("intree", "fork") if js["targets"].get(t)]
    out.append(f"physical bound: raw member {raw['mib_s_median']:.1f} MiB/s x {data} data "
               f"members = {bound:.1f} MiB/s; " + ", ".join(parts))


# (column, md/stats file): the raid456 write and stripe cache counters
R5_COLUMNS = (
    ("reads by wr", "stripe_write_reads"),
    ("full wr", "stripe_writes_full"),
    ("rmw", "stripe_writes_rmw"),
    ("rcw", "stripe_writes_rcw"),
    ("row waits", "stripe_row_waits"),
    ("unfilled", "stripe_row_wait_unfilled"),
    ("cache waits", "stripe_cache_waits"),
    ("grown", "stripe_cache_grown"),
)


def r5_lines(out, md, ndisks):
    """raid456 jobs: the stripe cache each target used, and what writes read."""
    rows = [(t, s) for t, s in md if s.get("md_cache")]
    if not rows:
        return
    out.append("stripe cache at the end of each run (largest over runs; in-tree's memory "
               f"estimated as stripe_cache_size x {ndisks} pages) and md/stats stripe "
               "counters (fork only; median of the run's delta):")
    out.append(f"  {'target':<18} {'size':>6} {'current':>8} {'memory':>9}"
               + "".join(f" {c[0]:>12}" for c in R5_COLUMNS))
    for t, s in rows:
        c = s["md_cache"]
        cur = c.get("stripe_cache_current")
        mem = c.get("stripe_cache_memory_kb")
        if mem is None and "stripe_cache_size" in c:
            mem = c["stripe_cache_size"] * ndisks * 4
        row = (f"  {LABELS[t]:<18} {c.get('stripe_cache_size', '-'):>6}"
               f" {cur if cur is not None else '-':>8}"
               f" {(f'{mem / 1024:.1f}MiB') if mem is not None else '-':>9}")
        for _c, name in R5_COLUMNS:
            v = s.get("md_stats", {}).get(name)
            row += f" {v['median']:>12.0f}" if v else f" {'-':>12}"
        out.append(row)


def sys_line(out, groups, targets):
    """What the guest's CPUs did during the md runs (medians over runs)."""
    parts = []
    for t in targets:
        recs = [r["md"] for r in groups.get(t, []) if r.get("md") and r["md"].get("sys")
                and r["md"].get("secs")]
        if not recs:
            continue
        cpus = sorted({k for m in recs for k in m["sys"] if k.startswith("busy_")})
        # USER_HZ ticks -> % of one CPU
        busy = ", ".join(f"{c[5:]} {statistics.median(m['sys'].get(c, 0) / m['secs'] for m in recs):.0f}%"
                         for c in cpus)
        irqs = ", ".join(f"{k} {statistics.median(m['sys'].get(k, 0) / m['secs'] for m in recs):.0f}/s"
                         for k in ("RES", "CAL", "TLB", "LOC")
                         if any(k in m["sys"] for m in recs))
        parts.append(f"  {LABELS[t]:<18} busy {busy}; {irqs}")
    if parts:
        out.append("guest CPUs during the runs (median over runs; busy = user+system+irq+softirq):")
        out.extend(parts)
    io = []
    for t in targets:
        recs = [r["md"]["sys"] for r in groups.get(t, []) if r.get("md")
                and "member_reads" in r["md"].get("sys", {})]
        # brd keeps no IO statistics: all zero there, left out
        if recs and any(m["member_reads"] or m["member_writes"] for m in recs):
            med = {k: statistics.median(m[k] for m in recs) for k in
                   ("member_reads", "member_read_sectors", "member_writes",
                    "member_write_sectors")}
            io.append(f"  {LABELS[t]:<18} reads {med['member_reads']:.0f} "
                      f"({med['member_read_sectors'] / 2048:.1f} MiB), writes "
                      f"{med['member_writes']:.0f} ({med['member_write_sectors'] / 2048:.1f} MiB)")
    if io:
        out.append("member IO per run, all members (median over runs; the block layer's "
                   "count, merged requests):")
        out.extend(io)


def per_run_max(out, js, targets, ga, gb, fi, it):
    """Each run's max latency, and the median of those over runs."""
    present = [js["targets"][t] for t in targets if js["targets"].get(t)]
    key = "lat_max_us" if all("lat_max_us_median" in s for s in present) else "clat_max_us"
    name = "total" if key == "lat_max_us" else "clat"
    rows = [(t, js["targets"][t]) for t in targets
            if js["targets"].get(t) and key + "_median" in js["targets"][t]]
    if not rows:
        return
    out.append(f"per-run max latency ({name}; median over runs [each run, in run order]):")
    for t, s in rows:
        out.append(f"  {LABELS[t]:<18} {fmt_us(s[key + '_median']):>9}  ["
                   + ", ".join(fmt_us(v) for v in s[key + "_runs"]) + "]")
    m = key + "_median"
    if ga and gb and m in ga and m in gb:
        out.append(f"  A/A in-tree a vs b: {pct(gb[m], ga[m])}")
    if fi and it and m in fi and m in it:
        line = f"  fork vs in-tree: {name} max {pct(fi[m], it[m])}"
        for k, label in (("clat_max_us", "clat"), ("slat_max_us", "slat")):
            if k != key:
                line += f", {label} max {pct(fi[k + '_median'], it[k + '_median'])}"
        out.append(line)


def resync_table(out, js, groups, broken):
    hdr = (f"{'target':<18} {'runs':>4} {'KiB/s min':>10} {'median':>10} {'max':>10}"
           f" {'time median':>12} {'steady KiB/s':>13}")
    out.append(hdr)
    out.append("-" * len(hdr))
    for t in ("intree", "fork"):
        s = aggregate_resync(groups.get(t, []))
        js["targets"][t] = s
        if s is None:
            why = broken.get(t, "no successful runs")
            out.append(f"{LABELS[t]:<18}    - NOT FUNCTIONAL: {why}")
            continue
        steady = s["steady_kib_s_median"]
        out.append(f"{LABELS[t]:<18} {s['runs']:>4} {s['kib_s_min']:>10.0f}"
                   f" {s['kib_s_median']:>10.0f} {s['kib_s_max']:>10.0f}"
                   f" {s['secs_median']:>11.2f}s"
                   f" {'n/a' if steady is None else f'{steady:.0f}':>13}")
    ga = aggregate_resync(groups.get("intree-a", []))
    gb = aggregate_resync(groups.get("intree-b", []))
    js["aa"] = {"intree-a": ga, "intree-b": gb}
    if ga and gb:
        out.append(f"A/A in-tree a vs b: {ga['runs']}+{gb['runs']} runs, median KiB/s "
                   f"{pct(gb['kib_s_median'], ga['kib_s_median'])}  (noise floor)")
    else:
        out.append("A/A in-tree a vs b: not enough in-tree runs")
    fi, it = js["targets"].get("fork"), js["targets"].get("intree")
    if fi and it:
        out.append(f"fork vs in-tree: median KiB/s {pct(fi['kib_s_median'], it['kib_s_median'])}"
                   f" ({ratio(fi['kib_s_median'], it['kib_s_median'])})")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--json", required=True)
    for k in ("commit", "kernel", "date", "host", "accel"):
        ap.add_argument("--" + k, default="unknown")
    ap.add_argument("jobs", nargs="+")
    a = ap.parse_args()

    summary = {"date": a.date, "kernel": a.kernel, "commit": a.commit, "host": a.host,
               "accel": a.accel, "jobs": {}}
    out = []
    out.append(f"md bench  date: {a.date}  kernel: {a.kernel}  commit: {a.commit}")
    out.append(f"          host: {a.host}  accel: {a.accel}")
    for job in a.jobs:
        d = os.path.join(a.dir, job)
        if not os.path.exists(os.path.join(d, "params.txt")):
            out.append("")
            out.append(f"{job}: no results (the guest did not get to it)")
            continue
        params = dict(kv.split("=", 1) for kv in open(os.path.join(d, "params.txt")).read().split())
        mode = params.get("mode", "fio")
        broken = {}
        bp = os.path.join(d, "broken.txt")
        if os.path.exists(bp):
            for line in open(bp):
                t, _, why = line.partition(": ")
                broken.setdefault(t, why.strip())
        groups = {}
        for line in open(os.path.join(d, "runs.txt")):
            target, n, group, fn = line.split()
            if mode == "resync":
                st = resync_stats(os.path.join(d, fn))
            elif mode == "dd":
                st = dd_stats(os.path.join(d, fn))
                st["md"] = md_record(os.path.join(d, f"{target}-{n}.md.txt"))
            else:
                st = fio_stats(os.path.join(d, fn))
                st["md"] = md_record(os.path.join(d, f"{target}-{n}.md.txt"))
            groups.setdefault(target, []).append(st)
            if group != target:
                groups.setdefault(group, []).append(st)
        js = {"params": params, "broken": broken, "targets": {}}
        sp = os.path.join(d, "seekdisk.txt")
        if os.path.exists(sp):
            js["seekdisk"] = dict(line.split(None, 1) for line in
                                  (x.strip() for x in open(sp)) if " " in line)
        out.append("")
        kind = members_label(js, params)
        size = f"{params['ndisks']} x {params.get('member_mib', '256')} MiB {kind}"
        if mode == "dd":
            dkind, _, mib = params.get("dd", "?:?").partition(":")
            how = "oflag=direct" if dkind == "direct" else "through the page cache, conv=fsync"
            out.append(f"{job}: {params['level']} on {size}, --assume-clean; dd bs=1M "
                       f"{mib} MiB {how}, MiB/s from the wall time of the whole dd; "
                       f"{params['runs']} runs per md target, ABBA in-tree/fork, "
                       f"a dd warm-up of up to 64 MiB per load (discarded)")
            dd_table(out, js, groups, broken)
        elif mode == "resync":
            out.append(f"{job}: {params['level']} on {size}, initial resync with nothing else "
                       f"running, {params['runs']} runs per target, ABBA in-tree/fork, "
                       f"speed_limit_max {params.get('speed_max', 'default')}")
            resync_table(out, js, groups, broken)
        else:
            what = "during the initial resync, new array per run" if mode == "fio-during-resync" \
                else "--assume-clean"
            extra = f", speed_limit_max {params['speed_max']}" \
                if params.get("speed_max", "default") != "default" else ""
            if params.get("fork_sysfs", "none") != "none":
                extra += f", fork md/{params['fork_sysfs']}"
            if params.get("intree_sysfs", "none") != "none":
                extra += f", in-tree md/{params['intree_sysfs']}"
            if params.get("bitmap", "none") != "none":
                kind, _, chunk = params["bitmap"].partition(":")
                extra += f", {kind} bitmap" + (f" (chunk {chunk})" if chunk else "")
            if params.get("degrade", "0") != "0":
                extra += f", degraded by {params['degrade']}"
            raw = f"raw {params['raw_runs']} runs, " \
                if mode == "fio" and params.get("raw_runs", "1") != "0" else ""
            out.append(f"{job}: {params['level']} on {size}, {what}{extra}; "
                       f"{raw}{params['runs']} runs per md target, ABBA in-tree/fork, "
                       f"{params['warmup']}s warm-up per load (discarded)")
            targets = ("raw", "intree", "fork") if raw else ("intree", "fork")
            fio_table(out, js, groups, broken, targets)
        summary["jobs"][job] = js
    with open(a.json, "w") as f:
        json.dump(summary, f, indent=2)
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
