#!/usr/bin/env python3
"""Writes gpxpy-expectations.json: what rotate must read from each GPX file in gpxpy/, computed
from gpxpy 1.6.2's parse and the GPX rules of docs/formats.md ("GPX (input)").

Run from anywhere:

    python3 Tests/RotateFormatsTests/Conformance/make_gpxpy_expectations.py

The script creates a virtual environment in .build/gpxpy-venv (git-ignored), installs
gpxpy==1.6.2 from PyPI into it, and re-executes itself there. The output is deterministic (sorted
keys, files by name, points in file order), so a re-run leaves git clean.

For each file:

- kind: rotate reads one kind of point: track points (every track and segment in file order) if
  gpxpy finds any, else route points (every route), else waypoints. gpxpy gives the points with
  their `latitude`, `longitude` (Python floats of the attribute text) and `time`.
- line: the 1-based line of each point's start tag, from a second, independent parse with the
  standard library's expat (`xml.parsers.expat`, `CurrentLineNumber` in the start-element handler):
  the n-th `trkpt` (or `rtept`, `wpt`) element that expat reports is the n-th point gpxpy gives.
  The script stops with an error unless expat and gpxpy agree on the number of points of each
  kind, on every coordinate (float of expat's attribute text) and on which points have a time.
- time: seconds since 1970-01-01T00:00:00Z of gpxpy's `time` (a time without a zone is UTC, as in
  rotate; gpxpy keeps it naive), or null.
- then rotate's rules, in this order: a coordinate outside -90...90 or -180...180 is rejected
  (`out_of_range`); when some chosen points have a time, the ones without are rejected
  (`untimed`); when none has one, point i (0-based) is at i seconds; times are rebased to the
  first accepted fix (`t`); a fix whose time is earlier than the previous accepted fix's is
  rejected (`stale`), equal times are kept. A longitude of -180 reads as 180.

JSON: {"files": {NAME: {"kind": "trkpt" | "rtept" | "wpt" | null, "points": [...]}}, "gpxpy": ...}
with one object per chosen point, in file order: `lat`, `lon`, `line`, `time` and either `t` (the
rebased time of an accepted fix) or `rejected` (the reason above). A file with no point, or with
every point rejected, is one rotate reads as an error (`no valid points (N rejected)`).

Comparison tolerances (GPXConformanceTests.swift): coordinates within 1e-12 degrees (the JSON
holds Python's shortest round-trip repr, so they are normally equal), times within 1e-6 s.

Where gpxpy and rotate differ by design, the expectations follow rotate's documented rules and
this script says so rather than changing any data:

- gpxpy keeps at most 6 digits of a fraction of a second (it truncates to microseconds); rotate
  keeps them all. The difference is below the 1e-6 s tolerance.
- gpxpy matches element names exactly (`trkpt`); rotate's names are case-insensitive and drop any
  prefix. The bundled files use lowercase, unprefixed names (the expat count check would fail
  otherwise).
- gpxpy accepts any `time` text its own pattern matches and silently drops one it cannot parse;
  rotate accepts its ISO 8601 grammar only. A time that gpxpy parsed but rotate's grammar rejects
  is expected as `bad_time` (none of the bundled files has one), and a time text gpxpy dropped
  stops the script.
- gpxpy does not check coordinate ranges; rotate rejects out-of-range points (`out_of_range`).
"""
import calendar
import datetime
import json
import os
import re
import subprocess
import sys
import venv
import xml.parsers.expat
from pathlib import Path

GPXPY_VERSION = "1.6.2"
HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
VENV = ROOT / ".build" / "gpxpy-venv"
FILES = HERE / "gpxpy"
OUTPUT = HERE / "gpxpy-expectations.json"
KINDS = ("trkpt", "rtept", "wpt")

# rotate's ISO 8601 grammar (docs/formats.md, "Walk CSV"): date, T/t/space, time, optional
# fraction after . or ,, optional zone Z, z, +-HH:MM or +-HHMM. Field ranges are checked by gpxpy's
# datetime already (it raises on a day that does not exist).
ISO8601 = re.compile(r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}([.,]\d+)?([Zz]|[+-]\d{2}:?\d{2})?")


def in_venv() -> bool:
    return Path(sys.prefix).resolve() == VENV.resolve()


def bootstrap() -> None:
    python = VENV / "bin" / "python3"
    if not python.exists():
        venv.create(VENV, with_pip=True, clear=True)
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                    f"gpxpy=={GPXPY_VERSION}"], check=True)
    os.execv(str(python), [str(python), str(Path(__file__).resolve()), *sys.argv[1:]])


def fail(name: str, message: str) -> None:
    sys.exit(f"{name}: {message}")


def local(name: str) -> str:
    return name.rsplit(":", 1)[-1]


def expat_points(data: bytes) -> dict:
    """Every trkpt, rtept and wpt element, by kind, in document order: line, lat and lon text,
    and the text of a time element inside it (or None)."""
    points = {kind: [] for kind in KINDS}
    state = {"point": None, "time": None}
    parser = xml.parsers.expat.ParserCreate()

    def start(name, attributes):
        name = local(name)
        if name in KINDS:
            attrs = {local(k): v for k, v in attributes.items()}
            point = {"line": parser.CurrentLineNumber, "lat": attrs.get("lat"), "lon": attrs.get("lon"),
                     "time": None}
            points[name].append(point)
            state["point"] = (name, point)
        elif name == "time" and state["point"] is not None:
            state["time"] = []

    def end(name):
        name = local(name)
        if state["point"] is not None and name == state["point"][0]:
            state["point"] = None
        elif name == "time" and state["time"] is not None:
            state["point"][1]["time"] = "".join(state["time"]).strip()
            state["time"] = None

    def text(data):
        if state["time"] is not None:
            state["time"].append(data)

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = text
    parser.Parse(data, True)
    return points


def epoch_microseconds(time: datetime.datetime) -> int:
    offset = time.utcoffset() or datetime.timedelta(0)
    naive = time.replace(tzinfo=None) - offset
    return calendar.timegm(naive.timetuple()) * 1_000_000 + naive.microsecond


def expectations(path: Path) -> dict:
    import gpxpy

    name = path.name
    data = path.read_bytes()
    with open(path, encoding="utf-8") as f:  # as gpxpy's own tests open them
        gpx = gpxpy.parse(f)
    by_kind = {
        "trkpt": [p for track in gpx.tracks for segment in track.segments for p in segment.points],
        "rtept": [p for route in gpx.routes for p in route.points],
        "wpt": list(gpx.waypoints),
    }
    lines = expat_points(data)
    for kind in KINDS:
        if len(by_kind[kind]) != len(lines[kind]):
            fail(name, f"gpxpy reads {len(by_kind[kind])} {kind}, expat {len(lines[kind])}")
        for n, (p, e) in enumerate(zip(by_kind[kind], lines[kind])):
            if e["lat"] is None or e["lon"] is None:
                fail(name, f"{kind} {n} (line {e['line']}) has no lat or lon")
            if float(e["lat"].strip()) != p.latitude or float(e["lon"].strip()) != p.longitude:
                fail(name, f"{kind} {n} (line {e['line']}): expat {e['lat']},{e['lon']}, gpxpy "
                           f"{p.latitude!r},{p.longitude!r}")
            if bool(e["time"]) != (p.time is not None):
                fail(name, f"{kind} {n} (line {e['line']}): time text {e['time']!r}, gpxpy {p.time!r}")

    kind = next((k for k in KINDS if by_kind[k]), None)
    if kind is None:
        return {"kind": None, "points": []}
    points = []
    for p, e in zip(by_kind[kind], lines[kind]):
        time = None if p.time is None else epoch_microseconds(p.time)
        points.append({"lat": p.latitude, "lon": p.longitude, "line": e["line"], "time": time, "text": e["time"]})

    any_timed = any(p["time"] is not None for p in points)
    raw = []  # (index, microseconds)
    for i, p in enumerate(points):
        if not (-90 <= p["lat"] <= 90 and -180 <= p["lon"] <= 180):
            p["rejected"] = "out_of_range"
        elif any_timed and p["time"] is None:
            p["rejected"] = "untimed"
        elif any_timed and not ISO8601.fullmatch(p["text"]):
            print(f"{name}: line {p['line']}: gpxpy reads time {p['text']!r}, rotate's grammar does not",
                  file=sys.stderr)
            p["rejected"] = "bad_time"
        else:
            raw.append((i, p["time"] if any_timed else i * 1_000_000))
    last = None
    for i, micros in raw:
        t = micros - raw[0][1]
        if last is not None and t < last:
            points[i]["rejected"] = "stale"
            continue
        last = t
        points[i]["t"] = t / 1_000_000
    for p in points:
        if p["time"] is not None:
            p["time"] = p["time"] / 1_000_000
        del p["text"]
    return {"kind": kind, "points": points}


def write(files: dict) -> None:
    """One point per line, keys sorted, so that diffs show which points changed."""
    out = ['{\n  "files": {\n']
    names = sorted(files)
    for n, name in enumerate(names):
        entry = files[name]
        out.append(f'    {json.dumps(name)}: {{\n      "kind": {json.dumps(entry["kind"])},\n      "points": [')
        rows = [json.dumps(p, sort_keys=True) for p in entry["points"]]
        out.append("\n" + ",\n".join("        " + r for r in rows) + "\n      ]" if rows else "]")
        out.append("\n    }" + ("," if n + 1 < len(names) else "") + "\n")
    out.append(f'  }},\n  "gpxpy": {json.dumps(GPXPY_VERSION)}\n}}\n')
    text = "".join(out)
    json.loads(text)  # well-formed
    OUTPUT.write_text(text, encoding="utf-8")


def main() -> None:
    if not in_venv():
        bootstrap()
    from importlib.metadata import version

    if version("gpxpy") != GPXPY_VERSION:
        sys.exit(f"gpxpy {version('gpxpy')} in {VENV}, expected {GPXPY_VERSION}")
    paths = sorted(FILES.glob("*.gpx"))
    if not paths:
        sys.exit(f"no .gpx files in {FILES}")
    files = {path.name: expectations(path) for path in paths}
    write(files)
    total = sum(len(f["points"]) for f in files.values())
    rejected = sum(1 for f in files.values() for p in f["points"] if "rejected" in p)
    print(f"wrote {OUTPUT.relative_to(ROOT)}: {len(files)} files, {total} points, {rejected} rejected")


if __name__ == "__main__":
    main()
