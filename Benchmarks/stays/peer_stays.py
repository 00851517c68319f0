#!/usr/bin/env python3
"""rotate's visits beside an independent stay detector on the same fixes.

trackintel's sliding staypoints (Li et al. 2008: a stay is fixes within `--distance` meters of
its first fix for at least `--minutes`, split at recording gaps over `--gap-minutes`; 100 m, 5
minutes and 15 minutes are trackintel's defaults) run on each trip's fixes as the phone recorded
them. rotate's visits come from the same trips replayed on an emulated phone (`rotate simulate
--kind errands ... --trips-out DIR`, docs/formats.md "Errand trips for outside tools"); the
labelled stops are the trips' true ones.

Matching, as the stop oracle's window (docs/design/stops.md): a visit reported from 30 s before a
stay's start to 2 minutes after its end finds it, and so does a visit still open at its start
(reported before, not departed by then). Each side is judged place-blind: a stay is a stay
wherever rotate names it (or names none). Reported per set of trips:

- the peer's stays, rotate's visits, and the stays both find / the peer alone / rotate alone;
- agreement: the share of the peer's stays that rotate's visits find (recall of the peer) and
  the share of rotate's visits inside some peer stay (precision against the peer);
- the offsets of rotate's visit time from the peer's stay start (median, 90th percentile), for
  the visits reported in the stay's window (not those still open from before it);
- both against the true stops of at least 5 minutes (recall of each).

Usage:
  bash Benchmarks/stays/install.sh
  Benchmarks/.peers/stays-venv/bin/python Benchmarks/stays/peer_stays.py DIR [--distance 100]
      [--minutes 5] [--gap-minutes 15] [--min-recall-of-peer R] [--json]
DIR holds places.csv and trip-N.csv, trip-N-stops.csv, trip-N-visits.csv (several DIRs may be
given). Prints Markdown (or one JSON object per DIR with --json); with --min-recall-of-peer R,
exits 1 when rotate finds less than R of the peer's stays in some DIR."""
import csv
import json
import os
import sys
import warnings

import geopandas as gpd
import pandas as pd
import trackintel as ti
from shapely.geometry import Point

EARLY_SECONDS = 30.0
LATE_SECONDS = 120.0
LONG_STOP_SECONDS = 300.0

warnings.filterwarnings("ignore")


def read_rows(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def seconds(text):
    return float(text) if text != "" else None


def peer_stays(fixes, distance, minutes, gap_minutes):
    """trackintel's staypoints over `fixes` [(t, lat, lon)], as (start, end) seconds."""
    return [(s, e) for s, e, _, _ in peer_stays_with_centres(fixes, distance, minutes, gap_minutes)]


def peer_stays_with_centres(fixes, distance, minutes, gap_minutes):
    """trackintel's staypoints over `fixes` [(t, lat, lon)], as (start, end, lat, lon): seconds, and
    the stay's centre (trackintel's geometry, the mean of its fixes)."""
    if len(fixes) < 2:
        return []
    epoch = pd.Timestamp("2026-01-01T00:00:00Z")
    frame = pd.DataFrame(
        {
            "user_id": 0,
            "tracked_at": [epoch + pd.to_timedelta(t, unit="s") for t, _, _ in fixes],
            "geom": [Point(lon, lat) for _, lat, lon in fixes],
        }
    )
    pfs = ti.Positionfixes(gpd.GeoDataFrame(frame, geometry="geom", crs="EPSG:4326"))
    _, sp = pfs.generate_staypoints(
        method="sliding", dist_threshold=distance, time_threshold=minutes, gap_threshold=gap_minutes, include_last=True
    )
    if sp is None or len(sp) == 0:
        return []
    return sorted(
        ((s - epoch).total_seconds(), (e - epoch).total_seconds(), g.y, g.x)
        for s, e, g in zip(sp["started_at"], sp["finished_at"], sp.geometry)
    )


def finds(visit, span):
    """Whether rotate's visit (time, departure, place) finds a stay over `span` (start, end)."""
    time, departure, _ = visit
    start, end = span
    if start - EARLY_SECONDS <= time <= end + LATE_SECONDS:
        return True
    return time < start and (departure is None or departure >= start)


def median(values, q=0.5):
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def score(directory, distance, minutes, gap_minutes):
    names = sorted(n[: -len(".csv")] for n in os.listdir(directory) if n.startswith("trip-") and n.count("-") == 1)
    totals = {"trips": 0, "peer_stays": 0, "rotate_visits": 0, "both": 0, "peer_only": 0, "rotate_only": 0}
    offsets = []
    long_stops = peer_found = rotate_found = 0
    for name in names:
        fixes = [(float(r["t"]), float(r["lat"]), float(r["lon"])) for r in read_rows(os.path.join(directory, name + ".csv"))]
        visits = [
            (float(r["time"]), seconds(r["departure"]), r["place_id"] or None)
            for r in read_rows(os.path.join(directory, name + "-visits.csv"))
        ]
        stops = [(float(r["arrival"]), float(r["departure"])) for r in read_rows(os.path.join(directory, name + "-stops.csv"))]
        stays = peer_stays(fixes, distance, minutes, gap_minutes)
        totals["trips"] += 1
        totals["peer_stays"] += len(stays)
        totals["rotate_visits"] += len(visits)
        for stay in stays:
            found = [v for v in visits if finds(v, stay)]
            if found:
                totals["both"] += 1
                reported = [v[0] for v in found if v[0] >= stay[0] - EARLY_SECONDS]
                if reported:
                    offsets.append(min(reported) - stay[0])
            else:
                totals["peer_only"] += 1
        totals["rotate_only"] += sum(1 for v in visits if not any(finds(v, stay) for stay in stays))
        for stop in stops:
            if stop[1] - stop[0] < LONG_STOP_SECONDS:
                continue
            long_stops += 1
            peer_found += any(s[0] <= stop[1] + LATE_SECONDS and s[1] >= stop[0] - EARLY_SECONDS for s in stays)
            rotate_found += any(finds(v, stop) for v in visits)
    peer = totals["peer_stays"]
    totals["recall_of_peer"] = round(totals["both"] / peer, 3) if peer else None
    matched = totals["rotate_visits"] - totals["rotate_only"]
    totals["precision_against_peer"] = round(matched / totals["rotate_visits"], 3) if totals["rotate_visits"] else None
    totals["offset_median_s"] = median(offsets)
    totals["offset_p90_s"] = median(offsets, 0.9)
    totals["true_stops_5min"] = long_stops
    totals["peer_recall_of_true_5min"] = round(peer_found / long_stops, 3) if long_stops else None
    totals["rotate_recall_of_true_5min"] = round(rotate_found / long_stops, 3) if long_stops else None
    return totals


def main():
    args = sys.argv[1:]
    as_json = "--json" in args
    args = [a for a in args if a != "--json"]
    options = {}
    directories = []
    while args:
        arg = args.pop(0)
        if arg.startswith("--"):
            options[arg] = float(args.pop(0))
        else:
            directories.append(arg)
    if not directories:
        sys.exit(__doc__)
    distance = options.get("--distance", 100.0)
    minutes = options.get("--minutes", 5.0)
    gap_minutes = options.get("--gap-minutes", 15.0)
    rows = [(d, score(d, distance, minutes, gap_minutes)) for d in directories]
    minimum = options.get("--min-recall-of-peer")
    failing = [d for d, t in rows if minimum is not None and (t["recall_of_peer"] or 0) < minimum]
    for d in failing:
        print(f"peer_stays: {d}: rotate finds less than {minimum:g} of the peer's stays", file=sys.stderr)
    if as_json:
        for d, totals in rows:
            print(json.dumps({"dir": d, **totals}))
        sys.exit(1 if failing else 0)
    print(f"trackintel {ti.__version__} sliding staypoints, {distance:g} m, {minutes:g} min, gaps over {gap_minutes:g} min")
    print()
    print("| trips | peer's stays | rotate's visits | both | peer alone | rotate alone | recall of the peer | "
          "rotate's visits in a peer stay | offset median / p90 | true stops of 5 min: peer / rotate |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for d, t in rows:
        def pct(x):
            return "-" if x is None else f"{100 * x:.0f} %"
        def sec(x):
            return "-" if x is None else f"{x:.0f} s"
        print(f"| {os.path.basename(d.rstrip('/'))}: {t['trips']} | {t['peer_stays']} | {t['rotate_visits']} | {t['both']} | "
              f"{t['peer_only']} | {t['rotate_only']} | {pct(t['recall_of_peer'])} | {pct(t['precision_against_peer'])} | "
              f"{sec(t['offset_median_s'])} / {sec(t['offset_p90_s'])} | {t['true_stops_5min']}: "
              f"{pct(t['peer_recall_of_true_5min'])} / {pct(t['rotate_recall_of_true_5min'])} |")
    sys.exit(1 if failing else 0)


if __name__ == "__main__":
    main()
