#!/usr/bin/env python3
"""Runs `rotate simulate --kind errands` on every place set, walking and driving, on iOS and
Android, and prints the stop tables of Benchmarks/RESULTS.md in Markdown.

Usage:
  python3 Benchmarks/stop_tables.py [path/to/rotate]
      "Stops on errand trips": rotate beside the reference designs and the bound (--compare --bound).
  python3 Benchmarks/stop_tables.py [path/to/rotate] --budgets low-power,balanced,40,10
      "A budget in milliwatts": rotate alone under each --visit-budget; each cell is stop recall
      at 5 minutes / mWh per hour for uniform · clustered · dense places.
  python3 Benchmarks/stop_tables.py [path/to/rotate] --resolvable
      "At resolvable places": the same runs as the stop tables, each cell stop recall at 5 and at
      2 minutes / misattributed per 100 stops, over the stops at resolvable places only.
  python3 Benchmarks/stop_tables.py [path/to/rotate] --alone
      "rotate alone": rotate's recall at 2 minutes, candidate recall at 5 minutes, visit latency
      median, share of time with GNSS on, and of the time at driving speed with GNSS on, for
      uniform · clustered · dense places.
Options: --walks N (50), --seed S (41). Build first: swift build -c release --product rotate."""
import sys

from errand_runs import simulate

args = sys.argv[1:]
ROTATE = args.pop(0) if args and not args[0].startswith("--") else ".build/release/rotate"
RESOLVABLE = "--resolvable" in args
if RESOLVABLE:
    args.remove("--resolvable")
ALONE = "--alone" in args
if ALONE:
    args.remove("--alone")
options = dict(zip(args[::2], args[1::2]))
WALKS = options.get("--walks", "50")
SEED = options.get("--seed", "41")
BUDGETS = options["--budgets"].split(",") if "--budgets" in options else None
SETS = ["uniform", "clustered", "dense"]
TRAVELS = ["walking", "driving"]
PLATFORMS = [("ios", "iOS"), ("android", "Android")]


def run(platform, set_name, travel, extra):
    rows = simulate(ROTATE, platform, set_name, travel, WALKS, SEED, extra)
    # With --compare the first line sums up the run and one line per design follows; alone,
    # the one line is rotate's.
    return rows[1:] if "--compare" in extra else rows


def number(value):
    return f"{value:.0f}" if value >= 10 or value == 0 else f"{value:.2g}"


def stop_cell(row):
    misattributed = 100 * row["misattributed_visits"] / row["stops"] if row["stops"] else 0
    return (f"{100 * row['stop_recall_5min']:.1f} % / {misattributed:.0f} / {row['false_visits_per_100_pass_bys']:g} / "
            f"{row['energy_mwh_per_hour']:.0f}")


def design_tables(legend, cell, count_label, count):
    """One table per phone and travel, a row per design and a column per place set, each cell
    `cell(row)`; under it `count_label` and `count(row)` of rotate's row for each set."""
    for platform, platform_name in PLATFORMS:
        for travel in TRAVELS:
            results = {s: run(platform, s, travel, ["--compare", "--bound"]) for s in SETS}
            print(f"**{platform_name}, {travel}** ({legend})\n")
            print("| design | " + " | ".join(SETS) + " |")
            print("|---|" + "---:|" * len(SETS))
            for i, row in enumerate(results[SETS[0]]):
                name = {"every-place": "every place (bound)", "nearest18-significant-change": "nearest18-sc"}.get(
                    row["strategy"], row["strategy"].replace("-floor50", ""))
                print(f"| {name} | " + " | ".join(cell(results[s][i]) for s in SETS) + " |")
            print(f"\n{count_label}: " + ", ".join(f"{s} {count(results[s][0])}" for s in SETS) + "\n")


def resolvable_cell(row):
    stops = row["resolvable_stops"]
    if not stops:
        return "-"
    recall5 = row["stop_recall_5min_resolvable"]
    recall2 = row["stop_recall_2min_resolvable"]
    misattributed = 100 * row["misattributed_visits_resolvable"] / stops
    return f"{'-' if recall5 is None else f'{100 * recall5:.0f} %'} / {100 * recall2:.0f} % / {misattributed:.0f}"


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


def alone_table():
    columns = [("recall at 2 min", lambda r: f"{100 * r['stop_recall_2min']:.0f}"),
               ("candidates at 5 min", lambda r: f"{100 * r['stop_candidate_recall_5min']:.0f}"),
               ("latency median, s", lambda r: f"{r['visit_latency_median_s']:.0f}"),
               ("GNSS on", lambda r: f"{100 * r['gnss_on_fraction']:.0f}"),
               ("GNSS on at driving speed", lambda r: "-" if r["gnss_on_fraction_driving"] is None
                else f"{100 * r['gnss_on_fraction_driving']:.0f}")]
    print("| phone, travel | " + " | ".join(name for name, _ in columns) + " |")
    print("|---|" + "---|" * len(columns))
    for platform, platform_name in PLATFORMS:
        for travel in TRAVELS:
            rows = [run(platform, s, travel, [])[0] for s in SETS]
            cells = []
            for name, value in columns:
                values = [value(r) for r in rows]
                unit = "" if name.startswith("latency") or all(v == "-" for v in values) else " %"
                cells.append(" · ".join(values) + unit)
            print(f"| {platform_name}, {travel} | " + " | ".join(cells) + " |")


if ALONE:
    alone_table()
elif RESOLVABLE:
    design_tables(
        "at resolvable places: stop recall at 5 min / at 2 min / misattributed per 100 stops", resolvable_cell,
        "stops at resolvable places",
        lambda row: f"{row['resolvable_stops']} ({row['resolvable_stops_5min']} >= 5 min) of {row['stops']}")
elif BUDGETS:
    budget_table()
else:
    design_tables(
        "stop recall at 5 min / misattributed per 100 stops / false visits per 100 pass-bys / mWh per hour", stop_cell,
        "stops", lambda row: f"{row['stops']} ({row['stops_5min']} >= 5 min), {row['pass_bys']} pass-bys")
