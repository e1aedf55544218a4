#!/usr/bin/env python3
"""Brute-force MIG layout count, independent of sim/mig/mig.c (run once by hand;
its output is written into tests/test_mig.c):

    python3 tests/mig_bruteforce.py kernels/profiles/*.json

Enumerates every set of placed GPU instances (profile, start) drawn from the
placement universe of a profile file, keeps those that obey the rules (no two
instances share a memory slice, compute slices <= 7, per-profile max_instances,
at most one '+me' profile), and collects the distinct multisets of profile
names. A multiset is maximal when adding one more instance of any profile to it
yields no legal multiset. Prints: GPU, number of non-empty legal multisets,
number of maximal ones, number of distinct legal placements (sets of
(profile, start) pairs) summed over all of them.
"""
import json, sys
from collections import Counter

def layouts(path):
    d = json.load(open(path))
    profs = d["mig_profiles"]["value"]
    universe = [(p["name"], s, p["size"], p["compute_slices"]) for p in profs for s in p["starts"]]
    maxi = {p["name"]: p["max_instances"] for p in profs}
    seen = set()
    placements = [0]

    def rec(i, used_mask, compute, chosen):
        if i == len(universe):
            c = Counter(n for n, *_ in chosen)
            if any(c[n] > maxi[n] for n in c):
                return
            if sum(c[n] for n in c if n.endswith("+me")) > 1:
                return
            seen.add(tuple(sorted(c.items())))
            placements[0] += bool(chosen)
            return
        rec(i + 1, used_mask, compute, chosen)
        name, s, size, cs = universe[i]
        m = ((1 << size) - 1) << s
        if not used_mask & m and compute + cs <= 7:
            rec(i + 1, used_mask | m, compute + cs, chosen + [universe[i]])
    rec(0, 0, 0, [])
    seen.discard(())
    names = [p["name"] for p in profs]

    def key(ms):
        return tuple(sorted(ms))
    legal = {key(ms) for ms in seen}
    maximal = 0
    for ms in legal:
        c = Counter(dict(ms))
        ext = False
        for n in names:
            c2 = c.copy(); c2[n] += 1
            if key(c2.items()) in legal:
                ext = True; break
        maximal += not ext
    return d["name"], len(legal), maximal, legal, placements[0]

if __name__ == "__main__":
    for f in sys.argv[1:]:
        name, n, m, legal, placed = layouts(f)
        print(name, n, m, placed)
