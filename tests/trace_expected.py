#!/usr/bin/env python3
"""Independent reference figures for tests/test_trace.c and tests/test_tracestats.c (pure
Python, no sharesim code).

Timestamps are split into a whole-second part, parsed with datetime (naive, so no time zone
is involved), and a 7-digit fraction kept as an integer number of 100-ns ticks; differences
are exact integers before the one division by 1e7. Inter-arrival CV uses the population
standard deviation (ddof=0); percentiles use linear interpolation between order statistics
(numpy's default method). Usage: python3 tests/trace_expected.py traces/*.csv
"""
import csv
import datetime
import math
import sys


def ticks(ts):
    whole, _, frac = ts.partition(".")
    dt = datetime.datetime.strptime(whole, "%Y-%m-%d %H:%M:%S")
    return dt, int((frac + "0000000")[:7])


def pct(sorted_vals, p):
    h = (len(sorted_vals) - 1) * p
    lo = math.floor(h)
    hi = min(lo + 1, len(sorted_vals) - 1)
    return sorted_vals[lo] + (h - lo) * (sorted_vals[hi] - sorted_vals[lo])


def azure(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    t0, f0 = ticks(rows[0]["TIMESTAMP"])
    times = []
    for r in rows:
        t, fr = ticks(r["TIMESTAMP"])
        d = (t - t0)
        d_ticks = (d.days * 86400 + d.seconds) * 10_000_000 + (fr - f0)
        times.append(d_ticks / 1e7)
    gaps = [b - a for a, b in zip(times, times[1:])]
    m = sum(gaps) / len(gaps)
    sd = math.sqrt(sum((g - m) ** 2 for g in gaps) / len(gaps))
    ins = sorted(int(r["ContextTokens"]) for r in rows)
    outs = sorted(int(r["GeneratedTokens"]) for r in rows)
    print(f"{path}: n={len(rows)} first={times[0]!r} second={times[1]!r} last={times[-1]!r}")
    print(f"  rate_per_s={(len(times) - 1) / times[-1]!r} ia_mean={m!r} ia_cv={sd / m!r}")
    print(f"  in_mean={sum(ins) / len(ins)!r} out_mean={sum(outs) / len(outs)!r}")
    for p in (0.5, 0.9, 0.99):
        print(f"  p{p * 100:g}: in={pct(ins, p)!r} out={pct(outs, p)!r}")
    print(f"  in_max={ins[-1]} out_max={outs[-1]}")


for p in sys.argv[1:]:
    azure(p)
