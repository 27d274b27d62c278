#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Pool one fio job's md runs from several `make bench` results.

    tests/vm/bench_pool.py JOB results/bench-A results/bench-B ...

Wall-clock latency tails under TCG move by tens of percent between runs
of the same code, so one bench's medians of 3-6 runs cannot tell a
difference of 10-20% from noise.  This reads every fork and in-tree run
of JOB in the given results (each one `raw/JOB/runs.txt` plus its fio
JSON), and prints per metric: the median of each implementation's runs,
their ratio, P(fork > in-tree) (the share of (fork, in-tree) run pairs
in which the fork's value is larger; 0.50 means no tendency either
way; ties count half) and the two-sided p-value of the Mann-Whitney U
test for it (normal approximation, tie-corrected).  Small p (< 0.05)
says the difference is unlikely to be noise; larger p says these runs
cannot tell the two apart.
"""
import json
import math
import os
import statistics
import sys

from bench_summary import fio_stats

# (printed name, fio_stats() key)
METRICS = (
    ("total p99", "lat_p99_us"),
    ("total p99.9", "lat_p999_us"),
    ("total max", "lat_max_us"),
    ("clat p99", "clat_p99_us"),
    ("clat p99.9", "clat_p999_us"),
    ("clat max", "clat_max_us"),
    ("slat max", "slat_max_us"),
)


def load(dirs, job):
    runs = {"intree": [], "fork": []}
    for top in dirs:
        d = os.path.join(top, "raw", job)
        if not os.path.exists(os.path.join(d, "runs.txt")):
            d = os.path.join(top, job)
        for line in open(os.path.join(d, "runs.txt")):
            target, _n, _g, fn = line.split()
            if target in runs:
                runs[target].append(fio_stats(os.path.join(d, fn)))
    return runs


def accel_of(top):
    """The accelerator a bench ran under, from its summary.json.

    Results made before the summary named it ran under TCG: their host
    line says "QEMU TCG", with the QEMU options after it."""
    try:
        with open(os.path.join(top, "summary.json")) as f:
            s = json.load(f)
    except (OSError, ValueError):
        return "unknown"
    if "accel" in s:
        return s["accel"]
    host = s.get("host", "")
    return "tcg" + host.split("QEMU TCG (no KVM)", 1)[1] if "QEMU TCG" in host else "unknown"


def kernel_of(top):
    """The kernel a bench ran on (the guest's uname -r), from its summary.json."""
    try:
        with open(os.path.join(top, "summary.json")) as f:
            return json.load(f).get("kernel", "unknown")
    except (OSError, ValueError):
        return "unknown"


def mann_whitney(x, y):
    """(P(x > y) with ties as half, two-sided p) for samples x, y."""
    n1, n2 = len(x), len(y)
    a12 = sum((a > b) + 0.5 * (a == b) for a in x for b in y) / (n1 * n2)
    allv = sorted(x + y)
    n = n1 + n2
    ties = sum(c ** 3 - c for c in (allv.count(v) for v in set(allv)))
    var = n1 * n2 / 12 * ((n + 1) - ties / (n * (n - 1)))
    if var <= 0:
        return a12, 1.0
    z = (abs(a12 * n1 * n2 - n1 * n2 / 2) - 0.5) / math.sqrt(var)
    return a12, math.erfc(max(z, 0) / math.sqrt(2))


def main():
    if len(sys.argv) < 3:
        print(__doc__.strip().splitlines()[2].strip())
        return 2
    job, dirs = sys.argv[1], sys.argv[2:]
    accels = sorted({accel_of(d) for d in dirs})
    if len(accels) > 1:
        # kvm and tcg (or icount) numbers are not comparable
        print(f"{job}: the results ran under different accelerators: {', '.join(accels)}")
        return 1
    kernels = sorted({kernel_of(d) for d in dirs})
    if len(kernels) > 1:
        # 6.1 and 6.12 (KVER) are different in-tree baselines
        print(f"{job}: the results ran on different kernels: {', '.join(kernels)}")
        return 1
    runs = load(dirs, job)
    nf, ni = len(runs["fork"]), len(runs["intree"])
    print(f"{job}: {nf} fork and {ni} in-tree runs from {len(dirs)} bench result(s), "
          f"accel {accels[0]}, kernel {kernels[0]}")
    if nf < 2 or ni < 2:
        print("not enough runs")
        return 1
    print(f"{'metric':<12} {'fork med':>10} {'in-tree med':>12} {'ratio':>6} "
          f"{'P(fork>in-tree)':>16} {'p':>6}")
    for name, key in METRICS:
        f = [s[key] for s in runs["fork"] if key in s]
        i = [s[key] for s in runs["intree"] if key in s]
        if len(f) < 2 or len(i) < 2:
            continue
        a12, p = mann_whitney(f, i)
        fm, im = statistics.median(f), statistics.median(i)
        print(f"{name:<12} {fm:>8.0f}us {im:>10.0f}us {fm / im:>6.2f} {a12:>16.2f} {p:>6.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
