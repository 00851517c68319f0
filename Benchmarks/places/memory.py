#!/usr/bin/env python3
"""Peak memory of reading places: the same N point places as GeoJSON and as CSV.

usage: python3 Benchmarks/places/memory.py [--count N] [--rotate BIN ...] [--repetitions R]

Writes N seeded point places (radius 100 m, a name each) as a GeoJSON FeatureCollection and as
a CSV file into a temporary folder, then runs `BIN validate --places FILE` on each, R times, and
prints the median peak resident set size (the child's own, from wait4) and wall time, per binary
and file. Given several binaries (say the current build and an earlier one), they take turns.
"""
import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time


def write_places(folder, count):
    rng = random.Random(7)
    features, rows = [], ["id,lat,lon,radius_m,name"]
    for i in range(count):
        lat, lon = rng.uniform(-60, 60), rng.uniform(-180, 180)
        features.append({"type": "Feature", "id": f"p{i}", "properties": {"radius_m": 100, "name": f"Place {i}"},
                         "geometry": {"type": "Point", "coordinates": [round(lon, 6), round(lat, 6)]}})
        rows.append(f"p{i},{lat:.6f},{lon:.6f},100,Place {i}")
    geojson, csv = os.path.join(folder, "places.geojson"), os.path.join(folder, "places.csv")
    with open(geojson, "w") as out:
        json.dump({"type": "FeatureCollection", "features": features}, out)
    with open(csv, "w") as out:
        out.write("\n".join(rows) + "\n")
    return [geojson, csv]


def run(binary, path):
    start = time.monotonic()
    process = subprocess.Popen([binary, "validate", "--places", path], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{binary} validate --places {path} failed ({status})")
    return usage.ru_maxrss / 1024, time.monotonic() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=300_000)
    parser.add_argument("--rotate", nargs="+", default=[".build/release/rotate"])
    parser.add_argument("--repetitions", type=int, default=3)
    parser.add_argument("--write-into", help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.write_into:
        write_places(arguments.write_into, arguments.count)
        return
    with tempfile.TemporaryDirectory() as folder:
        # Written by a process of its own: a child's peak counts the pages it shared with this
        # process when it was forked, so this one stays small.
        subprocess.run([sys.executable, __file__, "--count", str(arguments.count), "--write-into", folder], check=True)
        files = [os.path.join(folder, "places.geojson"), os.path.join(folder, "places.csv")]
        results = {}
        for _ in range(arguments.repetitions):
            for binary in arguments.rotate:
                for path in files:
                    results.setdefault((binary, path), []).append(run(binary, path))
        print(f"| binary | file | size (MB) | peak RSS (MB) | wall (s) |\n|---|---|---|---|---|")
        for (binary, path), runs in results.items():
            size = os.path.getsize(path) / 1e6
            memory = statistics.median(r[0] for r in runs)
            wall = statistics.median(r[1] for r in runs)
            print(f"| {binary} | {os.path.basename(path)} | {size:.1f} | {memory:.0f} | {wall:.2f} |")


if __name__ == "__main__":
    main()
