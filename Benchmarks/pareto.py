#!/usr/bin/env python3
"""The Pareto front of store visits: for every reference design, on every platform, place set and
travel mode (a cell), the rotate presets at least as good on all of stop recall at 5 minutes,
false visits per 100 pass-bys, misattributed visits per 100 stops and energy (within 5 % for
noise), and how much energy the cheapest of them saves; the cells and designs no preset
dominates, with what the nearest preset misses on; rotate's energy over the stop floor
(docs/design/stops.md); and its stops at places not monitored at the arrival.

Usage:
  python3 Benchmarks/pareto.py [path/to/rotate] [--walks N] [--seed S] [--presets a,b,c]
      [--platforms ios,android] [--sets uniform,clustered,dense] [--travels walking,driving]
Each cell runs `rotate simulate --kind errands --compare` (rotate under its default preset beside
every reference design) and rotate alone under each other preset, on the same trips (same seed).
Prints Markdown. Build first: swift build -c release --product rotate."""
import sys

from errand_runs import simulate

DEFAULT_PRESET = "balanced"
ENERGY_SLACK = 1.05

args = sys.argv[1:]
ROTATE = args.pop(0) if args and not args[0].startswith("--") else ".build/release/rotate"
options = dict(zip(args[::2], args[1::2]))
WALKS = options.get("--walks", "30")
SEED = options.get("--seed", "41")
PRESETS = options.get("--presets", "low-power,balanced,responsive,passages").split(",")
PLATFORMS = options.get("--platforms", "ios,android").split(",")
SETS = options.get("--sets", "uniform,clustered,dense").split(",")
TRAVELS = options.get("--travels", "walking,driving").split(",")


def run(platform, set_name, travel, extra):
    return simulate(ROTATE, platform, set_name, travel, WALKS, SEED, extra)


def figures(row):
    """The four judged figures of one strategy's JSON line, and its energy over the floor."""
    # Alone, `stops` is the planner's count and the stop oracle's is `stops_2min`.
    stops = row.get("stops_2min", row.get("stops", 0))
    return {
        "recall": row.get("stop_recall_5min") or 0.0,
        "false": row.get("false_visits_per_100_pass_bys") or 0.0,
        "misattributed": 100 * row["misattributed_visits"] / stops if stops else 0.0,
        "energy": row["energy_mwh_per_hour"],
        "over_floor": row.get("energy_over_floor"),
        "floor": row.get("energy_floor_mwh_per_hour"),
        "unmonitored": row.get("stops_5min_unmonitored_at_arrival", 0),
        "long_stops": row.get("stops_5min", 0),
        "unmonitored_recall": row.get("stop_recall_5min_unmonitored_at_arrival"),
    }


def shortfalls(preset, design):
    """What `preset` misses on against `design`: the judged figures where it is worse."""
    misses = []
    if preset["recall"] < design["recall"]:
        misses.append(f"recall {100 * preset['recall']:.1f} < {100 * design['recall']:.1f} %")
    if preset["false"] > design["false"]:
        misses.append(f"false {preset['false']:.2f} > {design['false']:.2f}")
    if preset["misattributed"] > design["misattributed"]:
        misses.append(f"misattributed {preset['misattributed']:.1f} > {design['misattributed']:.1f}")
    if preset["energy"] > ENERGY_SLACK * design["energy"]:
        misses.append(f"energy {preset['energy']:.0f} > {design['energy']:.0f} mWh/h")
    return misses


def cell(platform, set_name, travel):
    compared = run(platform, set_name, travel, ["--compare"])[1:]
    presets = {}
    designs = {}
    for row in compared:
        if row["strategy"] == "rotate":
            presets[DEFAULT_PRESET] = figures(row)
        elif row["strategy"] != "every-place":
            designs[row["strategy"]] = figures(row)
    for preset in PRESETS:
        if preset not in presets:
            presets[preset] = figures(run(platform, set_name, travel, ["--strategy", "rotate", "--visit-budget", preset])[0])
    return presets, designs


def main():
    summary = []
    judged = 0
    print("| platform | travel | places | design | recall 5 min / false per 100 / misattributed per 100 / mWh/h | "
          "dominated by (cheapest: energy ratio) | rotate's presets over the stop floor |")
    print("|---|---|---|---|---|---|---|")
    undominated = []
    for platform in PLATFORMS:
        for travel in TRAVELS:
            for set_name in SETS:
                presets, designs = cell(platform, set_name, travel)
                floors = ", ".join(
                    f"{name} {p['over_floor']:.1f}x" for name, p in presets.items() if p["over_floor"] is not None)
                floor = next((p["floor"] for p in presets.values() if p["floor"] is not None), None)
                if floor is not None:
                    floors += f" (floor {floor:.1f} mWh/h)"
                dominated_here, undominated_here = [], []
                judged += len(designs)
                for name, design in designs.items():
                    dominating = [(p["energy"] / design["energy"] if design["energy"] else float("inf"), preset)
                                  for preset, p in presets.items() if not shortfalls(p, design)]
                    if dominating:
                        ratio, preset = min(dominating)
                        verdict = f"{', '.join(sorted(p for _, p in dominating))} ({preset}: {ratio:.2f}x)"
                        dominated_here.append(f"{name} ({preset} {ratio:.2f}x)")
                    else:
                        nearest = min(presets.items(), key=lambda item: (len(shortfalls(item[1], design)), item[1]["energy"]))
                        verdict = f"none ({nearest[0]}: {'; '.join(shortfalls(nearest[1], design))})"
                        undominated.append(f"{platform} {travel} {set_name}: {name}")
                        undominated_here.append(f"{name} ({'; '.join(shortfalls(nearest[1], design))})")
                    print(f"| {platform} | {travel} | {set_name} | {name} | {100 * design['recall']:.1f} % / "
                          f"{design['false']:.2f} / {design['misattributed']:.1f} / {design['energy']:.0f} | {verdict} | {floors} |")
                unmonitored = ", ".join(
                    f"{name} {p['unmonitored']} of {p['long_stops']}"
                    + (f" ({100 * p['unmonitored_recall']:.0f} % found)" if p["unmonitored_recall"] is not None else "")
                    for name, p in presets.items())
                summary.append(f"| {platform} | {travel} | {set_name} | {', '.join(dominated_here) or '-'} | "
                               f"{', '.join(undominated_here) or '-'} | {floors} | {unmonitored} |")
    print()
    print("| platform | travel | places | dominated (cheapest preset: energy ratio) | not dominated (nearest preset's shortfall) | "
          "rotate's presets over the stop floor | stops of 5 min at places not monitored at the arrival |")
    print("|---|---|---|---|---|---|---|")
    print("\n".join(summary))
    print()
    print(f"Not dominated: {len(undominated)} of {judged} designs over the cells")


if __name__ == "__main__":
    main()
