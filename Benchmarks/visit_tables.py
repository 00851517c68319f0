#!/usr/bin/env python3
"""Runs `rotate simulate --compare` on every set, walking and driving, on iOS and Android, and
prints the visit tables of Benchmarks/RESULTS.md ("Visits on emulated phones") in Markdown.

Usage: python3 Benchmarks/visit_tables.py [path/to/rotate] > tables.md
(release build first: swift build -c release --product rotate)."""
import json
import subprocess
import sys

ROTATE = sys.argv[1] if len(sys.argv) > 1 else ".build/release/rotate"
SETS = ["uniform", "clustered", "dense", "mixed"]
KINDS = [("walk", "5-15", "walking"), ("drive", "10-40", "driving")]
PLATFORMS = [("ios", "iOS"), ("android", "Android")]


def run(platform, set_name, kind, length):
    command = [ROTATE, "simulate", "--set", set_name, "--kind", kind, "--walks", "50", "--length-km", length,
               "--seed", "21", "--platform", platform, "--compare", "--bound", "--visit-budget", "passages", "--json", "--quiet"]
    out = subprocess.run(command, capture_output=True, text=True)
    if out.returncode not in (0, 1):
        sys.exit(f"{' '.join(command)}: exit {out.returncode}: {out.stderr}")
    return [json.loads(line) for line in out.stdout.splitlines()[1:]]


def pct(value):
    return f"{100 * value:.1f}"


def count(n):
    return f"{n:,}"


def cell(row, key, visits_key):
    return pct(row[key]) if row[visits_key] > 0 else "–"


results = {}
for platform, _ in PLATFORMS:
    for kind, length, _ in KINDS:
        for set_name in SETS:
            results[(platform, kind, set_name)] = run(platform, set_name, kind, length)
            print(f"{platform} {kind} {set_name}", file=sys.stderr)

for platform, platform_name in PLATFORMS:
    for kind, _, kind_name in KINDS:
        km = results[(platform, kind, SETS[0])][0]["km"]
        print(f"**{platform_name}, {kind_name}** ({count(round(km))} km per strategy):\n")
        print("| set | strategy | visits (≥ 30 s / ≥ 120 s) | recall % | ≥ 30 s | ≥ 120 s | false entries | misses (avoidable) "
              "| latency median / p90 s | wakeups/km | registration calls/km | GNSS on % |")
        print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for set_name in SETS:
            for row in results[(platform, kind, set_name)]:
                latency = "/".join(
                    f" {row[k]:.0f} " if k in row else " – " for k in ("latency_median_s", "latency_p90_s")).strip()
                # The bound's costs are not a design's: it follows the device with fixes.
                bound = row["strategy"] == "every-place"
                costs = ("– | – | –" if bound else f"{row['wakeups_per_km']:.2f} | {row['registration_calls_per_km']:.1f} | "
                         f"{pct(row['gnss_on_fraction'])}")
                print(f"| {set_name} | {row['strategy']} | {count(row['visits'])} ({count(row['visits_30s'])} / "
                      f"{count(row['visits_120s'])}) | {pct(row['recall'])} | {cell(row, 'recall_30s', 'visits_30s')} | "
                      f"{cell(row, 'recall_120s', 'visits_120s')} | {count(row['false_entries'])} | "
                      f"{count(row['misses'])} ({count(row['avoidable_misses'])}) | {latency} | {costs} |")
        print()

print("**The platform's share of the gap** (recall %, all visits / visits ≥ 30 s / visits ≥ 120 s; "
      "`every-place` is the platform itself with every place registered):\n")
print("| platform | kind | set | rotate | every-place | best reference design |")
print("|---|---|---|---:|---:|---:|")
for platform, platform_name in PLATFORMS:
    for kind, _, _ in KINDS:
        for set_name in SETS:
            rows = {row["strategy"]: row for row in results[(platform, kind, set_name)]}

            def triple(row):
                return " / ".join([pct(row["recall"]), cell(row, "recall_30s", "visits_30s"),
                                   cell(row, "recall_120s", "visits_120s")])
            references = [r for s, r in rows.items() if s not in ("rotate", "every-place")]
            best = max(references, key=lambda r: r["recall"])
            print(f"| {platform_name} | {kind} | {set_name} | {triple(rows['rotate'])} | {triple(rows['every-place'])} "
                  f"| {triple(best)} |")
print()

print("| platform | kind | uniform | clustered | dense | mixed |")
print("|---|---|---:|---:|---:|---:|")
for platform, platform_name in PLATFORMS:
    for kind, _, _ in KINDS:
        cells = []
        for set_name in SETS:
            rotate = next(r for r in results[(platform, kind, set_name)] if r["strategy"] == "rotate")
            cells.append(f"{pct(rotate['gnss_on_fraction'])} / {pct(rotate['not_exact_fraction'])}")
        print(f"| {platform_name} | {kind} | " + " | ".join(cells) + " |")
