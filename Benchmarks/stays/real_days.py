#!/usr/bin/env python3
"""rotate's visits on real recorded days, judged against an independent stay detector.

A recorded day has no labelled stops. For each walk CSV given (docs/formats.md "Walk CSV"):

1. trackintel's sliding staypoints (Li et al. 2008; 100 m, 5 minutes, split at recording gaps over
   15 minutes, trackintel's defaults) run on the fixes as recorded. Each stay is a labelled stop.
2. A place stands at each stay: at the stay's centre (trackintel's geometry, the mean of its
   fixes), one place for stays whose centres are within `--same-place` meters (a return home is
   a second stop at the same place). Places passed stand on the path between stays, every
   `--pass-every` meters of it, at least `--clear` meters from every stay place and every other
   place passed, so that a visit there is a visit at a place the person passed without stopping.
   Every place has the fence radius `--radius`.
3. `rotate simulate --walk DAY --places P --stops S --platform X --strategy rotate --json` replays
   the day on each phone (ideal, ios, android) and the stop oracle (docs/design/stops.md) scores
   rotate's visits: the share of the peer's stays found (a visit still open at a stay's start
   counts for it where no fix between shows the person away, so a stay the peer splits at a gap
   is one visit), visits at places passed per 100 pass-bys (the oracle's false visits: a visit
   that is no stay's), duplicate visits per stay, and energy per hour.

Usage:
  bash Benchmarks/stays/install.sh
  Benchmarks/.peers/stays-venv/bin/python Benchmarks/stays/real_days.py ROTATE DAY.csv...
      [--platforms ideal,ios,android] [--radius 100] [--gap 120] [--gap-stay 100] [--same-place 60] [--pass-every 400]
      [--clear 250] [--out DIR] [--json] [--min-recall ideal=0.95,ios=0.9,android=0.9]
      [--max-false 1] [--max-duplicates-per-stay 0] [--max-mwh-per-hour 20]

Prints a Markdown table per phone (each day and all days), or one JSON object per day and phone
with --json. Each --min/--max bound is checked over all days together (the energy averaged over
the days' hours) and exits 1 when missed. --out keeps each day's places and stops files."""
import csv
import json
import math
import os
import subprocess
import sys
import tempfile
from datetime import datetime, timezone

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peer_stays import peer_stays_with_centres  # noqa: E402

EARTH_RADIUS = 6_371_008.8


def meters(a, b):
    """Haversine distance between (lat, lon) points, meters."""
    la1, lo1, la2, lo2 = map(math.radians, (a[0], a[1], b[0], b[1]))
    h = math.sin((la2 - la1) / 2) ** 2 + math.cos(la1) * math.cos(la2) * math.sin((lo2 - lo1) / 2) ** 2
    return 2 * EARTH_RADIUS * math.asin(min(1.0, math.sqrt(h)))


def read_gpx(path):
    """A GPX file's timed track and route points [(seconds, lat, lon)] (always ISO 8601 times)."""
    import xml.etree.ElementTree as ElementTree

    fixes = []
    for element in ElementTree.parse(path).iter():
        if element.tag.split("}")[-1] not in ("trkpt", "rtept"):
            continue
        when = next((c.text for c in element if c.tag.split("}")[-1] == "time" and c.text), None)
        try:
            fixes.append((datetime.fromisoformat(when.strip().replace("Z", "+00:00")).timestamp(),
                          float(element.get("lat")), float(element.get("lon"))))
        except (AttributeError, TypeError, ValueError):
            continue
    fixes.sort(key=lambda f: f[0])
    return fixes, True


def read_day(path):
    """The day's fixes [(seconds, lat, lon)] in file order, and whether its times are ISO 8601."""
    if path.lower().endswith(".gpx"):
        return read_gpx(path)
    fixes = []
    iso = False
    with open(path, newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            try:
                text = row["t"].strip()
                try:
                    t = float(text)
                except ValueError:
                    t = datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
                    iso = True
                lat, lon = float(row["lat"]), float(row["lon"])
            except (KeyError, ValueError, TypeError):
                continue  # rotate reports such a row; the peer skips it
            if -90 <= lat <= 90 and -180 <= lon <= 180:
                fixes.append((t, lat, lon))
    fixes.sort(key=lambda f: f[0])
    return fixes, iso


def time_text(seconds, iso):
    if iso:
        return datetime.fromtimestamp(seconds, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    return f"{seconds:.3f}"


def build(fixes, options):
    """The stay places, the places passed and the stops (place id, start, end)."""
    stays = peer_stays_with_centres(fixes, 100.0, 5.0, 15.0)
    places = []  # (id, lat, lon)
    stops = []
    for start, end, lat, lon in stays:
        same = next((p for p in places if meters((lat, lon), (p[1], p[2])) <= options["same_place"]), None)
        if same is None:
            same = (f"stay{len(places) + 1:02d}", lat, lon)
            places.append(same)
        stops.append((same[0], start, end))
    stay_places = list(places)
    inside_stay = [any(s - 60 <= t <= e + 60 for _, s, e in stops) for t, _, _ in fixes]
    passed = []
    walked = 0.0
    for i in range(1, len(fixes)):
        step = meters(fixes[i - 1][1:], fixes[i][1:])
        if inside_stay[i] or step > 2000:
            continue  # a jump or a gap crosses nothing the person was seen to pass
        walked += step
        if walked < options["pass_every"]:
            continue
        point = fixes[i][1:]
        if all(meters(point, (p[1], p[2])) >= options["clear"] for p in stay_places + passed):
            passed.append((f"passed{len(passed) + 1:03d}", point[0], point[1]))
            walked = 0.0
    return stay_places, passed, stops


def run_day(rotate, day, options, directory):
    fixes, iso = read_day(day)
    stay_places, passed, stops = build(fixes, options)
    name = os.path.splitext(os.path.basename(day))[0]
    places_path = os.path.join(directory, f"{name}-places.csv")
    stops_path = os.path.join(directory, f"{name}-stops.csv")
    with open(places_path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["id", "lat", "lon", "radius_m"])
        for pid, lat, lon in stay_places + passed:
            w.writerow([pid, f"{lat:.7f}", f"{lon:.7f}", f"{options['radius']:g}"])
    with open(stops_path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["id", "arrival", "departure"])
        for pid, start, end in stops:
            w.writerow([pid, time_text(start, iso), time_text(end, iso)])
    # The hours the replay charges: the day less its recording gaps, but for those between ends
    # within --gap-stay meters, which the replay fills as a stay (`Walk.fillingStillGaps`).
    seconds = fixes[-1][0] - fixes[0][0] if len(fixes) > 1 else 0.0
    for a, b in zip(fixes, fixes[1:]):
        if b[0] - a[0] > options["gap"] and meters(a[1:], b[1:]) > options["gap_stay"]:
            seconds -= b[0] - a[0]
    hours = seconds / 3600
    rows = []
    for platform in options["platforms"]:
        command = [
            rotate, "simulate", "--walk", day, "--places", places_path, "--stops", stops_path,
            "--platform", platform, "--strategy", "rotate", "--gap", f"{options['gap']:g}",
            "--gap-stay", f"{options['gap_stay']:g}", "--json",
        ]
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode not in (0, 1) or not done.stdout.strip():
            sys.exit(f"real_days: {' '.join(command)} failed ({done.returncode}): {done.stderr.strip()}")
        result = json.loads(done.stdout)
        counted = result.get("stops_2min") or 0
        rows.append({
            "day": name, "platform": platform, "hours": round(hours, 2), "peer_stays": len(stops),
            "stay_places": len(stay_places), "places_passed": len(passed),
            "found": round((result.get("stop_recall_2min") or 0) * counted), "pass_bys": result.get("pass_bys", 0),
            "false_visits": result.get("false_visits", 0), "duplicates": result.get("duplicate_visits", 0),
            "misattributed": result.get("misattributed_visits", 0), "left_open": result.get("visits_left_open"),
            "mwh_per_hour": result.get("energy_mwh_per_hour"),
        })
    return rows


def totals(rows):
    stays = sum(r["peer_stays"] for r in rows)
    pass_bys = sum(r["pass_bys"] for r in rows)
    hours = sum(r["hours"] for r in rows)
    energy = [r for r in rows if r["mwh_per_hour"] is not None]
    return {
        "days": len(rows), "hours": round(hours, 1), "peer_stays": stays,
        "found": sum(r["found"] for r in rows),
        "recall_of_peer": round(sum(r["found"] for r in rows) / stays, 3) if stays else None,
        "pass_bys": pass_bys, "false_visits": sum(r["false_visits"] for r in rows),
        "false_per_100_pass_bys": round(100 * sum(r["false_visits"] for r in rows) / pass_bys, 2) if pass_bys else None,
        "duplicates": sum(r["duplicates"] for r in rows),
        "duplicates_per_stay": round(sum(r["duplicates"] for r in rows) / stays, 3) if stays else None,
        "misattributed": sum(r["misattributed"] for r in rows),
        "mwh_per_hour": round(sum(r["mwh_per_hour"] * r["hours"] for r in energy) / sum(r["hours"] for r in energy), 2)
        if energy and sum(r["hours"] for r in energy) > 0 else None,
    }


def bounds(text):
    return {k: float(v) for k, v in (part.split("=") for part in text.split(","))}


def main():
    args = sys.argv[1:]
    if len(args) < 2 or args[0] in ("-h", "--help"):
        sys.exit(__doc__)
    options = {
        "platforms": ["ideal", "ios", "android"], "radius": 100.0, "gap": 120.0, "gap_stay": 100.0, "same_place": 60.0,
        "pass_every": 400.0, "clear": 250.0,
    }
    checks = {}
    as_json = False
    out = None
    rotate = args.pop(0)
    days = []
    while args:
        arg = args.pop(0)
        if arg == "--json":
            as_json = True
        elif arg == "--platforms":
            options["platforms"] = args.pop(0).split(",")
        elif arg == "--out":
            out = args.pop(0)
        elif arg == "--min-recall":
            checks["min_recall"] = bounds(args.pop(0))
        elif arg in ("--max-false", "--max-duplicates-per-stay", "--max-mwh-per-hour"):
            checks[arg[2:].replace("-", "_")] = float(args.pop(0))
        elif arg.startswith("--"):
            options[arg[2:].replace("-", "_")] = float(args.pop(0))
        else:
            days.append(arg)
    directory = out or tempfile.mkdtemp(prefix="real-days-")
    os.makedirs(directory, exist_ok=True)
    rows = []
    for day in days:
        print(f"real_days: {os.path.basename(day)}", file=sys.stderr)
        rows += run_day(rotate, day, options, directory)
    failures = []
    summary = {}
    for platform in options["platforms"]:
        mine = [r for r in rows if r["platform"] == platform]
        t = totals(mine)
        summary[platform] = t
        minimum = checks.get("min_recall", {}).get(platform)
        if minimum is not None and (t["recall_of_peer"] or 0) < minimum:
            failures.append(f"{platform}: recall of the peer's stays {t['recall_of_peer']} < {minimum:g}")
        if "max_false" in checks and (t["false_per_100_pass_bys"] or 0) > checks["max_false"]:
            failures.append(f"{platform}: {t['false_per_100_pass_bys']} visits per 100 pass-bys > {checks['max_false']:g}")
        if "max_duplicates_per_stay" in checks and (t["duplicates_per_stay"] or 0) > checks["max_duplicates_per_stay"]:
            failures.append(f"{platform}: {t['duplicates_per_stay']} duplicate visits per stay > {checks['max_duplicates_per_stay']:g}")
        if platform != "ideal" and "max_mwh_per_hour" in checks and (t["mwh_per_hour"] or 0) > checks["max_mwh_per_hour"]:
            failures.append(f"{platform}: {t['mwh_per_hour']} mWh/h > {checks['max_mwh_per_hour']:g}")
    if as_json:
        for r in rows:
            print(json.dumps(r))
        for platform, t in summary.items():
            print(json.dumps({"day": "all", "platform": platform, **t}))
    else:
        print(f"Places: one per peer stay and places passed every {options['pass_every']:g} m, radius {options['radius']:g} m.")
        for platform in options["platforms"]:
            print()
            print(f"{platform}:")
            print()
            print("| day | hours | peer's stays | found | pass-bys | visits at places passed | duplicates | misattributed | mWh/h |")
            print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
            for r in [r for r in rows if r["platform"] == platform] + [{"day": "all", **summary[platform]}]:
                energy = "-" if r["mwh_per_hour"] is None else f"{r['mwh_per_hour']:.1f}"
                print(f"| {r['day']} | {r['hours']} | {r['peer_stays']} | {r['found']} | {r['pass_bys']} | "
                      f"{r['false_visits']} | {r['duplicates']} | {r['misattributed']} | {energy} |")
    for failure in failures:
        print(f"real_days: {failure}", file=sys.stderr)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
