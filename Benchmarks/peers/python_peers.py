#!/usr/bin/env python3
"""Python peers for Benchmarks/compare.sh: scipy cKDTree and pykdtree (batched, one thread), a
numpy brute force, and pandas read_csv. Reads the ux,uy,uz columns written by
`rotate generate --vectors`. Prints one JSON line per peer; writes the first 1,000 queries'
neighbor indices of each peer to CHECK_PREFIX-<peer>.csv and brute force's to CHECK_PREFIX-brute.csv.

usage: python_peers.py PLACES.csv POSITIONS.csv K REPETITIONS CHECK_PREFIX
"""
import json
import sys
import time

import numpy as np
import pandas as pd


def median(values):
    values = sorted(values)
    return values[len(values) // 2]


def main():
    places_path, positions_path, k, reps, prefix = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
    read_times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        frame = pd.read_csv(places_path, engine="c")
        read_times.append((time.perf_counter() - t0) * 1e3)
    print(json.dumps({"peer": "pandas read_csv (C engine)", "rows": len(frame), "read_ms": round(median(read_times), 1)}), flush=True)
    points = frame[["ux", "uy", "uz"]].to_numpy(dtype=np.float64)
    queries = pd.read_csv(positions_path, engine="c")[["ux", "uy", "uz"]].to_numpy(dtype=np.float64)
    n, q = len(points), len(queries)

    # Brute force on the first 1,000 queries (the reference), timed per query.
    check = queries[:1000]
    t0 = time.perf_counter()
    brute = []
    for row in check:
        d = ((points - row) ** 2).sum(axis=1)
        brute.append(np.argsort(d, kind="stable")[:k])
    brute_ns = (time.perf_counter() - t0) * 1e9 / len(check)
    np.savetxt(prefix + "-brute.csv", np.array(brute), fmt="%d", delimiter=",")
    print(json.dumps({"peer": "numpy brute force (sort all)", "n": n, "queries": len(check), "ns_per_query": round(brute_ns, 1)}), flush=True)

    from scipy.spatial import cKDTree
    import pykdtree.kdtree as pyk

    peers = [
        ("scipy cKDTree", lambda: cKDTree(points, leafsize=16), lambda t: t.query(queries, k=k, workers=1)),
        ("pykdtree", lambda: pyk.KDTree(points, leafsize=16), lambda t: t.query(queries, k=k)),
    ]
    for name, build, query in peers:
        builds, times = [], []
        tree = None
        for _ in range(reps):
            t0 = time.perf_counter()
            tree = build()
            builds.append((time.perf_counter() - t0) * 1e3)
        query(tree)  # warm-up
        for _ in range(reps):
            t0 = time.perf_counter()
            _, idx = query(tree)
            times.append((time.perf_counter() - t0) * 1e9 / q)
        np.savetxt(prefix + "-" + name.split()[0] + ".csv", np.asarray(idx[:1000]), fmt="%d", delimiter=",")
        print(json.dumps({"peer": name + " (batched)", "n": n, "queries": q, "build_ms": round(median(builds), 3),
                          "ns_per_query": round(median(times), 1), "ns_min": round(min(times), 1), "ns_max": round(max(times), 1)}), flush=True)


if __name__ == "__main__":
    main()
