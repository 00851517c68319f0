#!/usr/bin/env python3
"""Helpers for Benchmarks/compare.sh.

report.py verify DATA_DIR K    -> one JSON line: how many of the first 1,000 answers of each peer
                                  differ from brute force (as sets of indices)
report.py table RESULTS.jsonl  -> the comparison table (ns per query, build, bytes per place, and
                                  each peer's time divided by rotate's, per distribution and N)
"""
import json
import os
import sys


def read_rows(path):
    with open(path) as f:
        return [set(int(x) for x in line.strip().split(",") if x) for line in f if line.strip()]


def verify(data, k):
    brute = read_rows(os.path.join(data, "check-brute.csv"))
    out = {"verify": "first 1000 queries, sets of neighbour indices"}
    for name in ["rotate", "nanoflann-10", "nanoflann-32", "scipy", "pykdtree"]:
        path = os.path.join(data, "check-" + name + ".csv")
        rows = read_rows(path) if os.path.exists(path) else []
        out[name + "_mismatches"] = sum(1 for a, b in zip(rows, brute) if a != b) + abs(len(rows) - len(brute))
    print(json.dumps(out))


def table(path):
    rows = [json.loads(line) for line in open(path) if line.strip()]
    groups = {}
    for row in rows:
        groups.setdefault((row["dist"], row["n"]), []).append(row)
    for (dist, n), group in groups.items():
        rotate = next((r for r in group if r.get("peer") == "rotate"), None)
        base = rotate["ns_per_query"] if rotate else None
        rotate_read = next((r["ms"] for r in group if r.get("peer") == "rotate PlacesCSV.read"), None)
        print(f"\n{dist}, N = {n:,}")
        print(f"{'peer':38} {'build ms':>10} {'ns/query':>12} {'bytes/place':>12} {'x rotate':>9}")
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
            print(f"{r['peer']:38} {build!s:>10} {ns!s:>12} {bpp!s:>12} {ratio:>9}")


if __name__ == "__main__":
    if sys.argv[1] == "verify":
        verify(sys.argv[2], int(sys.argv[3]))
    else:
        table(sys.argv[2])
