# SPDX-License-Identifier: GPL-2.0
"""What the bench summaries (bench/throttle/summary.py,
bench/delayed/summary.py) read and print alike: fio's JSON, md_sample's
lines, and the median and cell formats of their tables."""
import json
import os
import statistics


def fio_stats(path):
    """{"iops", "p99_us"} of a fio JSON file: IOPS summed over jobs and
    directions, p99 of the direction that moved the most bytes; None if
    the file is missing or nothing was done.  fio may print a warning
    before the JSON (a job it had to kill at exit): that line is skipped."""
    if not os.path.exists(path):
        return None
    with open(path) as f:
        text = f.read()
    data = json.loads(text[text.find("{"):] if "{" in text else text)
    iops, best = 0.0, None
    for job in data["jobs"]:
        for d in ("read", "write"):
            s = job.get(d)
            if not s or not s.get("io_bytes"):
                continue
            iops += s["iops"]
            if best is None or s["io_bytes"] > best["io_bytes"]:
                best = s
    if best is None:
        return None
    pct = best["clat_ns"].get("percentile", {})
    return {"iops": iops, "p99_us": pct.get("99.000000", 0) / 1000}


def samples(path, ended_at_total=True):
    """md_sample lines "t_ms pos_kib total_kib reads writes action" as
    dicts (t in s).  With ended_at_total, a sync that ended (position -1
    after one was seen) is put at its end, for speeds across its end."""
    rows = []
    if not os.path.exists(path):
        return rows
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) < 6:
                continue
            rows.append({"t": int(p[0]) / 1000.0, "pos": int(p[1]), "total": int(p[2]),
                         "rd": int(p[3]), "wr": int(p[4]), "act": p[5]})
    if not ended_at_total:
        return rows
    total = max((r["total"] for r in rows), default=-1)
    seen = False
    for r in rows:
        if r["pos"] >= 0:
            seen = True
        elif seen and total > 0:
            r["pos"] = total
    return rows


def med(v):
    v = [x for x in v if x is not None]
    return statistics.median(v) if v else None


def fmt(v, f="{:.0f}"):
    return "-" if v is None else f.format(v)


def yes(ok):
    return "-" if ok is None else ("yes" if ok else "NO")
