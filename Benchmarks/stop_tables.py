#!/usr/bin/env python3
"""Runs `rotate simulate --kind errands` on every place set, walking and driving, on iOS and
Android, and prints the stop tables of Benchmarks/RESULTS.md in Markdown.

Usage:
  python3 Benchmarks/stop_tables.py [path/to/rotate]
      "Stops on errand trips": rotate beside the reference designs and the bound (--compare --bound).
  python3 Benchmarks/stop_tables.py [path/to/rotate] --budgets low-power,balanced,40,10
      "A budget in milliwatts": rotate alone under each --visit-budget; each cell is stop recall
      at 5 minutes / mWh per hour for uniform · clustered · dense places.
Options: --walks N (50), --seed S (41). Build first: swift build -c release --product rotate."""
import json
import subprocess
import sys

args = sys.argv[1:]
ROTATE = args.pop(0) if args and not args[0].startswith("--") else ".build/release/rotate"
options = dict(zip(args[::2], args[1::2]))
WALKS = options.get("--walks", "50")
SEED = options.get("--seed", "41")
BUDGETS = options["--budgets"].split(",") if "--budgets" in options else None
SETS = ["uniform", "clustered", "dense"]
TRAVELS = ["walking", "driving"]
PLATFORMS = [("ios", "iOS"), ("android", "Android")]


def run(platform, set_name, travel, extra):
    command = [ROTATE, "simulate", "--kind", "errands", "--travel", travel, "--set", set_name, "--walks", WALKS,
               "--seed", SEED, "--platform", platform, "--json", "--quiet"] + extra
    out = subprocess.run(command, capture_output=True, text=True)
    if out.returncode not in (0, 1):
        sys.exit(f"{' '.join(command)}: exit {out.returncode}: {out.stderr}")
    print(f"{platform} {travel} {set_name} {' '.join(extra)}", file=sys.stderr)
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    # With --compare the first line sums up the run and one line per design follows; alone,
    # the one line is rotate's.
    return rows[1:] if "--compare" in extra else rows


def number(value):
    return f"{value:.0f}" if value >= 10 or value == 0 else f"{value:.2g}"


def stop_cell(row):
    misattributed = 100 * row["misattributed_visits"] / row["stops"] if row["stops"] else 0
    return (f"{100 * row['stop_recall_5min']:.1f} % / {misattributed:.0f} / {row['false_visits_per_100_pass_bys']:g} / "
            f"{row['energy_mwh_per_hour']:.0f}")


def stop_tables():
    for platform, platform_name in PLATFORMS:
        for travel in TRAVELS:
            results = {s: run(platform, s, travel, ["--compare", "--bound"]) for s in SETS}
            print(f"**{platform_name}, {travel}** (stop recall at 5 min / misattributed per 100 stops / "
                  "false visits per 100 pass-bys / mWh per hour)\n")
            print("| design | " + " | ".join(SETS) + " |")
            print("|---|" + "---:|" * len(SETS))
            for i, row in enumerate(results[SETS[0]]):
                name = {"every-place": "every place (bound)", "nearest18-significant-change": "nearest18-sc"}.get(
                    row["strategy"], row["strategy"].replace("-floor50", ""))
                print(f"| {name} | " + " | ".join(stop_cell(results[s][i]) for s in SETS) + " |")
            counts = ", ".join(
                f"{s} {results[s][0]['stops']} ({results[s][0]['stops_5min']} >= 5 min), {results[s][0]['pass_bys']} pass-bys"
                for s in SETS)
            print(f"\nstops: {counts}\n")


def budget_table():
    print("| phone, travel | " + " | ".join(BUDGETS) + " |")
    print("|---|" + "---|" * len(BUDGETS))
    for platform, platform_name in PLATFORMS:
        for travel in TRAVELS:
            cells = []
            for budget in BUDGETS:
                rows = [run(platform, s, travel, ["--visit-budget", budget])[0] for s in SETS]
                cells.append(" · ".join(f"{100 * r['stop_recall_5min']:.0f} % / {r['energy_mwh_per_hour']:.0f}" for r in rows))
            print(f"| {platform_name}, {travel} | " + " | ".join(cells) + " |")


if BUDGETS:
    budget_table()
else:
    stop_tables()
