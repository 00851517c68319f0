#!/usr/bin/env python3
"""Helpers for Benchmarks/compare.sh.

report.py verify DATA_DIR K    -> one JSON line: how many of the first 1,000 answers of each peer
                                  differ from brute force (as sets of indices)
report.py table RESULTS.jsonl  -> the comparison table (ns per query, build, bytes per place, and
                                  each peer's time divided by rotate's, per distribution and N; a
                                  peer run in several processes: the median over them, and their range)
"""
import json
import os
import statistics
import sys


def read_rows(path):
    with open(path) as f:
        return [set(int(x) for x in line.strip().split(",") if x) for line in f if line.strip()]


def verify(data, k):
    brute = read_rows(os.path.join(data, "check-brute.csv"))
    out = {"verify": "first 1000 queries, sets of neighbor indices"}
    for name in ["rotate", "nanoflann-10", "nanoflann-32", "scipy", "pykdtree"]:
        path = os.path.join(data, "check-" + name + ".csv")
        rows = read_rows(path) if os.path.exists(path) else []
        out[name + "_mismatches"] = sum(1 for a, b in zip(rows, brute) if a != b) + abs(len(rows) - len(brute))
    print(json.dumps(out))


def merge_processes(group):
    """One row per peer: a peer run in several processes gets the median of their ns per query
    and build times, and the range of the per-process ns per query (`ns_processes`)."""
    by_peer = {}
    order = []
    for row in group:
        name = row.get("peer", "verify" if "verify" in row else "?")
        if name not in by_peer:
            order.append(name)
        by_peer.setdefault(name, []).append(row)
    merged = []
    for name in order:
        runs = by_peer[name]
        row = dict(runs[0])
        if len(runs) > 1 and all("ns_per_query" in r for r in runs):
            times = [r["ns_per_query"] for r in runs]
            row["ns_per_query"] = round(statistics.median(times), 1)
            row["ns_processes"] = (min(times), max(times), len(times))
            if all("build_ms" in r for r in runs):
                row["build_ms"] = round(statistics.median(r["build_ms"] for r in runs), 3)
        merged.append(row)
    return merged


def table(path):
    rows = [json.loads(line) for line in open(path) if line.strip()]
    groups = {}
    for row in rows:
        groups.setdefault((row["dist"], row["n"]), []).append(row)
    groups = {key: merge_processes(group) for key, group in groups.items()}
    for (dist, n), group in groups.items():
        rotate = next((r for r in group if r.get("peer") == "rotate"), None)
        base = rotate["ns_per_query"] if rotate else None
        rotate_read = next((r["ms"] for r in group if r.get("peer") == "rotate PlacesCSV.read"), None)
        print(f"\n{dist}, N = {n:,}")
        print(f"{'peer':38} {'build ms':>10} {'ns/query':>12} {'bytes/place':>12} {'x rotate':>9}  per process")
        for r in group:
            if "verify" in r:
                print("  check vs brute force (first 1,000 queries, mismatches): "
                      + ", ".join(f"{k[:-11]} {v}" for k, v in r.items() if k.endswith("_mismatches")))
                continue
            if "read_ms" in r or r.get("peer") == "rotate PlacesCSV.read":
                ms = r.get("read_ms", r.get("ms"))
                ratio = f" ({ms / rotate_read:.2f}x rotate)" if rotate_read and "read_ms" in r else ""
                print(f"  reading the places CSV, {r['peer']}: {r['rows']:,} rows in {ms:.1f} ms (median){ratio}")
                continue
            ns = r.get("ns_per_query")
            ratio = f"{ns / base:.2f}" if ns and base else ""
            build = r.get("build_ms", "")
            bpp = r.get("bytes_per_place", "")
            spread = ""
            if "ns_processes" in r:
                low, high, count = r["ns_processes"]
                spread = f"  {low:g}-{high:g} ({count} processes, median)"
            print(f"{r['peer']:38} {build!s:>10} {ns!s:>12} {bpp!s:>12} {ratio:>9}{spread}")


if __name__ == "__main__":
    if sys.argv[1] == "verify":
        verify(sys.argv[2], int(sys.argv[3]))
    else:
        table(sys.argv[2])
