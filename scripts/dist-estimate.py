#!/usr/bin/env python3
"""dist-estimate.py — expected wall time and speed-up of the full validation grid over R MPI
ranks (docs/distributed.md), from a measured one-rank wall time and a per-item overhead.

    scripts/dist-estimate.py [W1_SECONDS [OVERHEAD_SECONDS [STARTUP_SECONDS]]]
    scripts/dist-estimate.py --costs FILE [OVERHEAD_SECONDS [STARTUP_SECONDS]]

The model: the 470 runs of `sharesim validate` (sim/tools/validate.c, build_full: the same
request budgets, restated here) each cost time in proportion to the requests they simulate,
calibrated so that they add up to W1; or, with --costs, each run costs what it was measured
to cost alone (FILE: lines "index seconds", as `scripts/mpi-scaling --per-run FILE` writes
them), and W1 is their sum. Rank 0 hands them out longest first, one at a time, to
whichever of the R workers (rank 0's own worker and the R-1 other ranks) is free first, and
every hand-over costs OVERHEAD (a result's message, rank 0 noticing it — its polling sleeps
at most 1 ms — and the next index going back). STARTUP is mpirun starting the ranks. This
is greedy list scheduling, which is what the pool does. It is a model of this grid, not a
run: if validate.c's grid changes, change the budgets below.
"""
import heapq
import math
import sys


def budget(total, reps=10):
    """validate.c request_budget(): measured requests per replication plus the warm-up."""
    measured = math.ceil(total / reps)
    return measured + max(measured // 50, 10000)


def runs():
    r = []
    for _c in (1, 2, 4, 7, 8, 16):  # M/M/c
        for total in (1e7, 1e7, 1e7, 3e7, 1e8):  # rho = 0.3, 0.5, 0.8, 0.9, 0.95
            r += [budget(total)] * 10
    for total in (1e7, 1e7, 3e7):  # M/G/1-PS at rho = 0.5, 0.8, 0.9
        r += [budget(total)] * 20 + [budget(2 * total)] * 10  # exp, det; lognormal
    for total in (1e7, 1e7, 3e7, 1e7):  # zero-switch time-slicing
        r += [budget(total)] * 10
    # saturated time-slicing: 200 s + 2 % warm-up at gamma / mean work requests per second
    for q, s, work in ((1e-3, 50e-6, 1e-3), (1e-3, 250e-6, 0.3e-3), (2e-3, 100e-6, 1e-3),
                       (1.024e-3, 50e-6, 1e-3)):
        r += [int(204 * q / (q + s) / work)] * 10
    return r


def makespan(durations, ranks, overhead):
    free = [0.0] * ranks
    for d in sorted(durations, reverse=True):
        t = heapq.heappop(free)
        heapq.heappush(free, t + d + overhead)
    return max(free)


def measured(path):
    with open(path) as f:
        return [float(line.split()[1]) for line in f if line.strip()]


def main():
    args = sys.argv[1:]
    costs = None
    if args[:1] == ["--costs"]:
        if len(args) < 2:
            sys.exit(__doc__)
        costs = measured(args[1])
        args = args[2:]
        w1 = sum(costs)
    else:
        w1 = float(args.pop(0)) if args else 207.0
    overhead = float(args[0]) if len(args) > 0 else 1e-3
    startup = float(args[1]) if len(args) > 1 else 0.5
    if costs is None:
        req = runs()
        per_request = w1 / sum(req)
        dur = [n * per_request for n in req]
        what = f"{len(req)} runs, {sum(req):.3g} requests, costs in proportion"
    else:
        dur = costs
        what = f"{len(dur)} runs, costs measured one by one"
    print(f"{what}; W1 = {w1:g} s, so the longest run takes "
          f"{max(dur):.2f} s and the mean {sum(dur) / len(dur):.3f} s; overhead {overhead * 1e3:g} ms "
          f"per run, start-up {startup:g} s")
    print(f"{'ranks':>5} {'wall s':>8} {'speed-up':>8} {'efficiency':>10}")
    for ranks in (1, 2, 4, 8, 16, 32, 64, 128):
        # One rank is a plain run: no messages, no mpirun.
        t = makespan(dur, ranks, overhead if ranks > 1 else 0) + (startup if ranks > 1 else 0)
        print(f"{ranks:5d} {t:8.2f} {w1 / t:8.1f} {w1 / t / ranks:10.2f}")


if __name__ == "__main__":
    main()
