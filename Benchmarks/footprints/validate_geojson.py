#!/usr/bin/env python3
"""Independent validity check of the GeoJSON that `rotate plan --format geojson` writes.

For each FILE, runs geojson-validator (pinned in Benchmarks/footprints/install-validator.sh):

  validate_structure(check_crs=True)  RFC 7946 structure: member types, coordinate nesting
                                      depth, positions of 2-3 numbers, bbox, no `crs` member
  validate_geometries(...)            every geometry criterion the library has, each given a level
                                      in LEVELS below (the library's own "invalid" and
                                      "problematic" split is not rotate's: see the comments there)

and prints one summary line per file (features, geometry types, errors, warnings, features with
holes, antimeridian flags of the library dismissed, seconds), then each problem with its feature index, the feature's kind and id, the part of
a Multi* geometry, and where in the geometry it is. Exit 1 when any file has an error-level
problem (or cannot be read as JSON), else 0; warnings are printed and do not fail. Exit 2 on
usage errors, or when the installed library offers a criterion LEVELS does not classify.

Usage (the venv is created by install-validator.sh, entered automatically):

    python3 Benchmarks/footprints/validate_geojson.py FILE [FILE...]
    rotate plan --places P --walk W --format geojson --out plan.geojson && \\
        python3 Benchmarks/footprints/validate_geojson.py plan.geojson
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
VENV = ROOT / "Benchmarks" / ".peers" / "geojson-venv"
INSTALL = ROOT / "Benchmarks" / "footprints" / "install-validator.sh"
IN_VENV = "ROTATE_GEOJSON_IN_VENV"

ERROR, WARNING, NOTE = "error", "warning", "note"

# Level of each of the library's criteria for rotate's output. rotate writes polygons with
# counterclockwise shells and clockwise holes, closed; cuts every polygon and the walk at ±180°
# into MultiPolygon/MultiLineString pieces; writes [lon, lat] with up to 7 decimals.
LEVELS = {
    # The library's "invalid" criteria: RFC 7946 §3.1.6 (a linear ring is closed, has >= 4
    # positions, shells counterclockwise, holes clockwise). A closed ring with < 4 positions has
    # < 3 unique ones, so less_three_unique_nodes also covers "fewer than 4 positions".
    "unclosed": ERROR,
    "less_three_unique_nodes": ERROR,
    "exterior_not_ccw": ERROR,
    "interior_not_cw": ERROR,
    # The library's "problematic" criteria.
    # Holes are valid GeoJSON, and rotate writes footprints' courtyards as holes on purpose:
    # counted in the summary line, not a problem.
    "holes": NOTE,
    # RFC 7946 does not forbid these two, but a fence is a point-in-polygon region: a ring that
    # crosses itself or a hole that crosses (or lies outside) its shell has no well-defined
    # inside, and OGC-following readers (GEOS/shapely, PostGIS, JTS) reject the polygon.
    "inner_and_exterior_ring_intersect": ERROR,
    "self_intersection": ERROR,
    # In a polygon ring a repeated position other than the closing one is a zero-length edge or
    # a ring touching itself: the writer should never emit one. In the walk (a LineString) it is
    # a phone standing still or a walk retracing its path, both real: a warning there.
    "duplicate_nodes": ERROR,
    # Not run: the library counts more than 6 decimals as excessive, and rotate writes 7 on
    # purpose (1.1 cm rather than 11 cm, below a fence's margin). The library's check runs with
    # precision 7 instead (PRECISION below): more than 7 breaks rotate's documented format.
    "excessive_coordinate_precision": None,
    # No limit in RFC 7946; some web APIs take at most 999 positions per geometry. The walk has
    # one position per fix (thousands) by design, and a coastline footprint can have thousands:
    # a warning, for readers with such a limit.
    "excessive_vertices": WARNING,
    # rotate writes [lon, lat] only: a third number means the writer emitted something else.
    "3d_coordinates": ERROR,
    # RFC 7946 §4: WGS 84 degrees; rotate normalizes longitudes into [-180, 180].
    "outside_lat_lon_boundaries": ERROR,
    # RFC 7946 §3.1.9: a geometry crossing the antimeridian SHOULD be cut; rotate promises to cut
    # polygons and the walk. The library's test is wrong at the seam: it maps longitude 180 to
    # -180 before comparing, so it flags every step from a positive longitude to 180 (the seam of
    # a piece cut on the 180 side; RFC 7946 §3.1.9's own example has [180.0, 48.5]) and misses a
    # step from 180 to -179.9. So its flags are confirmed with uncut_steps() on the longitudes as written, which
    # also runs on every feature: confirmed or found there, an error; flagged only by the
    # library, counted as dismissed in the summary line.
    "crosses_antimeridian": ERROR,
}
LINE_LEVELS = {"duplicate_nodes": WARNING}  # overrides for LineString/MultiLineString
PRECISION = 7
PRECISION_CRITERION = "more_than_7_decimals"


def enter_venv():
    """Re-run this script in the venv; create or update the venv unless it has every pinned version."""
    import importlib.metadata

    pins = re.findall(r"^\s+([A-Za-z0-9_.-]+)==(\S+)$", INSTALL.read_text(encoding="utf-8"), re.MULTILINE)
    in_venv = Path(sys.prefix).resolve() == VENV.resolve()
    if in_venv:
        stale = []
        for name, version in pins:
            try:
                if importlib.metadata.version(name) != version:
                    stale.append(name)
            except importlib.metadata.PackageNotFoundError:
                stale.append(name)
        if not stale:
            return
        if os.environ.get(IN_VENV) == "2":
            sys.exit(f"{', '.join(stale)} not as pinned in {VENV} after installing; run bash {INSTALL}")
    python = VENV / "bin" / "python"
    if not python.exists() or in_venv:
        subprocess.check_call(["bash", str(INSTALL)], stdout=sys.stderr)
    env = dict(os.environ, **{IN_VENV: "2" if in_venv else "1"})
    os.execve(str(python), [str(python), str(Path(__file__).resolve()), *sys.argv[1:]], env)


def reject_constant(name):
    raise ValueError(f"{name} is not a JSON number")


def load(path: Path):
    """The parsed document, or (None, reason). NaN and Infinity are refused: they are not JSON."""
    try:
        return json.loads(path.read_bytes().decode("utf-8"), parse_constant=reject_constant), None
    except OSError as error:
        return None, f"cannot read: {error.strerror}"
    except UnicodeDecodeError as error:
        return None, f"not UTF-8 at byte {error.start}"
    except json.JSONDecodeError as error:
        return None, f"not JSON: line {error.lineno} column {error.colno}: {error.msg}"
    except ValueError as error:
        return None, f"not JSON: {error}"


def rings(geometry):
    """The position arrays of a single geometry: a Polygon's rings, a LineString, a Point."""
    kind, coords = geometry.get("type"), geometry.get("coordinates")
    if kind == "Point":
        return [[coords]]
    if kind == "LineString":
        return [coords]
    return coords or []


def fmt(position):
    return "[" + ",".join(repr(v) for v in position) + "]"


def locate(criterion, geometry):
    """Where a criterion fails in a single geometry: the first place, for the report."""
    try:
        arrays = rings(geometry)
        polygon = geometry.get("type") == "Polygon"
        for r, ring in enumerate(arrays):
            at = f"ring {r}: " if polygon else ""
            if criterion == "unclosed" and ring and ring[0] != ring[-1]:
                return f"{at}first {fmt(ring[0])} != last {fmt(ring[-1])}"
            if criterion == "less_three_unique_nodes" and len({tuple(p) for p in ring}) < 3:
                return f"{at}{len(ring)} positions, {len({tuple(p) for p in ring})} unique"
            if criterion == "duplicate_nodes":
                seen = {}
                last = len(ring) - 1 if ring and ring[0] == ring[-1] else len(ring)
                for i, p in enumerate(ring[:last]):
                    j = seen.setdefault(tuple(p), i)
                    if j != i:
                        how = "consecutive" if j == i - 1 else f"{i - j} apart"
                        return f"{at}positions {j} and {i} both {fmt(p)} ({how}, {len(ring)} positions)"
            if criterion == "outside_lat_lon_boundaries":
                for i, p in enumerate(ring):
                    if not (-180 <= p[0] <= 180 and -90 <= p[1] <= 90):
                        return f"{at}position {i} {fmt(p)}"
            if criterion == "3d_coordinates":
                for i, p in enumerate(ring):
                    if len(p) > 2:
                        return f"{at}position {i} {fmt(p)}"
            if criterion == PRECISION_CRITERION:
                for i, p in enumerate(ring):
                    if any(round(v, PRECISION) != v for v in p):
                        return f"{at}position {i} {fmt(p)}"
            if criterion == "interior_not_cw" and r > 0 and signed_area(ring) > 0:
                return f"ring {r} (a hole) is counterclockwise, signed area {signed_area(ring):.3g} deg²"
        if criterion == "exterior_not_ccw" and arrays:
            return f"ring 0 signed area {signed_area(arrays[0]):.3g} deg² (counterclockwise is > 0)"
        if criterion == "excessive_vertices":
            return f"{sum(len(ring) for ring in arrays)} positions (> 999)"
        if criterion in ("self_intersection", "inner_and_exterior_ring_intersect"):
            from shapely.geometry import shape
            from shapely.validation import explain_validity

            return f"shapely: {explain_validity(shape(geometry))}"
    except (TypeError, IndexError, KeyError, ValueError, AttributeError):
        pass
    return ""


def uncut_steps(geometry):
    """Steps of a single geometry that jump more than 180° in longitude as written: crossings of
    ±180° that were not cut. A step between 180 and -180 at a pole (a polar cap closed along the
    pole) is none."""
    steps = []
    for r, ring in enumerate(rings(geometry)):
        for i, (a, b) in enumerate(zip(ring, ring[1:])):
            if abs(b[0] - a[0]) > 180 and not (abs(a[0]) == abs(b[0]) == 180 and a[1] == b[1] and abs(a[1]) == 90):
                steps.append((r, i, a, b))
    return steps


def signed_area(ring):
    """Shoelace area in the (lon, lat) plane, positive when counterclockwise."""
    return sum(a[0] * b[1] - b[0] * a[1] for a, b in zip(ring, ring[1:])) / 2


def singles(geometry):
    """(part index or None, single geometry) for a geometry; parts of a Multi* or collection."""
    kind = geometry.get("type") if isinstance(geometry, dict) else None
    if kind and kind.startswith("Multi"):
        return [(k, {"type": kind[5:], "coordinates": c}) for k, c in enumerate(geometry.get("coordinates") or [])]
    if kind == "GeometryCollection":
        return list(enumerate(geometry.get("geometries") or []))
    return [(None, geometry)]


def label(features, index):
    feature = features[index] if 0 <= index < len(features) else {}
    feature = feature if isinstance(feature, dict) else {}
    properties = feature.get("properties") if isinstance(feature.get("properties"), dict) else {}
    geometry = feature.get("geometry") if isinstance(feature.get("geometry"), dict) else {}
    words = [str(properties.get("kind", "?"))]
    if "id" in properties:
        words.append(str(properties["id"]))
    elif "fix" in properties:
        words.append(f"fix {properties['fix']}")
    words.append(str(geometry.get("type", "no geometry")))
    return " ".join(words)


def level_of(criterion, geometry_type):
    if geometry_type in ("LineString", "MultiLineString") and criterion in LINE_LEVELS:
        return LINE_LEVELS[criterion]
    return LEVELS[criterion]


def check(path: Path):
    """(summary line, [(level, line)], any error) for one file."""
    import geojson_validator as gv
    from geojson_validator import checks_problematic
    from geojson_validator.geometry_validation import INVALID_CRITERIA, PROBLEMATIC_CRITERIA

    started = time.perf_counter()
    data, reason = load(path)
    if data is None:
        return f"{path}: 1 errors: {reason}", [], True
    problems = []  # (level, feature index or -1, text)

    for message, where in gv.validate_structure(data, check_crs=True).items():
        paths, indices = where.get("path", []), where.get("feature", [])
        shown = ", ".join(p or "/" for p in paths[:5]) + (f", … ({len(paths)} in all)" if len(paths) > 5 else "")
        problems.append((ERROR, indices[0] if indices else -1, f"structure: {message}: {shown}"))

    features = data.get("features") if isinstance(data, dict) and data.get("type") == "FeatureCollection" else None
    if features is None and isinstance(data, dict) and data.get("type") == "Feature":
        features = [data]
    if not isinstance(features, list):
        features = []
    run = [c for c in LEVELS if LEVELS[c] is not None]
    try:
        result = gv.validate_geometries(
            data, [c for c in run if c in INVALID_CRITERIA], [c for c in run if c in PROBLEMATIC_CRITERIA]
        )
    except (ValueError, TypeError, AttributeError, KeyError) as error:  # structure says what is wrong
        result = {"invalid": {}, "problematic": {}, "count_geometry_types": {}, "skipped_validation": []}
        problems.append((ERROR, -1, f"geometries not checked: {error}"))

    holes = 0
    flagged = {**result["invalid"], **result["problematic"]}

    def geometry_of(i):
        feature = features[i] if 0 <= i < len(features) else None
        return (feature.get("geometry") if isinstance(feature, dict) else None) or {}

    # The library's antimeridian flags, confirmed on the longitudes as written (see LEVELS).
    library_crossings = set()
    for entry in flagged.pop("crosses_antimeridian", []):
        ((index, parts),) = entry.items() if isinstance(entry, dict) else [(entry, [None])]
        library_crossings.update((index, part) for part in parts)
    crossings = {}  # (feature index, part) -> where
    for i in range(len(features)):
        precise = []
        for k, g in singles(geometry_of(i)):
            if not isinstance(g, dict) or g.get("type") not in ("Point", "LineString", "Polygon"):
                continue
            # The library's precision check, at 7 decimals (see LEVELS).
            if _safe(checks_problematic.check_excessive_coordinate_precision, g, PRECISION):
                precise.append(k)
            steps = _safe(uncut_steps, g)
            if steps:
                r, n, a, b = steps[0]
                at = f"ring {r}: " if g["type"] == "Polygon" else ""
                more = f" (and {len(steps) - 1} more)" if len(steps) > 1 else ""
                missed = "" if (i, k) in library_crossings else "; geojson-validator missed it (a step from lon 180)"
                crossings[(i, k)] = f"{at}step {n}->{n + 1} from {fmt(a)} to {fmt(b)}{more}{missed}"
        if precise:
            flagged.setdefault(PRECISION_CRITERION, []).append(i if precise == [None] else {i: precise})
    dismissed = len(library_crossings - set(crossings))

    for criterion, entries in flagged.items():
        for entry in entries:
            if isinstance(entry, dict):
                ((index, parts),) = entry.items()
            else:
                index, parts = entry, [None]
            geometry = geometry_of(index)
            level = ERROR if criterion == PRECISION_CRITERION else level_of(criterion, geometry.get("type"))
            if level == NOTE:
                holes += 1
                continue
            pieces = dict(singles(geometry))
            for part in parts:
                where = locate(criterion, pieces.get(part, geometry))
                problems.append((level, index, describe(features, index, part, criterion, where)))
    for (index, part), where in crossings.items():
        problems.append((ERROR, index, describe(features, index, part, "crosses_antimeridian", where)))
    for index in result["skipped_validation"]:
        # A geometry the library could not check (null, or broken structure) is never passed.
        text = f"feature {index} ({label(features, index)}): not checked (null or malformed geometry)"
        problems.append((ERROR, index, text))

    problems.sort(key=lambda p: (p[0] != ERROR, p[1]))
    errors = sum(1 for p in problems if p[0] == ERROR)
    warnings = len(problems) - errors
    counts = sorted(result["count_geometry_types"].items(), key=lambda kv: -kv[1])
    types = ", ".join(f"{k} {v}" for k, v in counts)
    seconds = time.perf_counter() - started
    summary = (f"{path}: {len(features)} features ({types or 'no geometries'}), {errors} errors, {warnings} warnings, "
               f"{holes} with holes, "
               f"{dismissed} antimeridian flags of the library dismissed, {seconds:.3f} s")
    return summary, [(level, f"  {level} {text}") for level, _, text in problems], errors > 0


def describe(features, index, part, criterion, where):
    text = f"feature {index} ({label(features, index)}{'' if part is None else f' part {part}'}): {criterion}"
    return text + (f": {where}" if where else "")


def _safe(func, *args):
    try:
        return func(*args)
    except (TypeError, IndexError, KeyError, ValueError):
        return False  # broken positions: validate_structure reports them


def main():
    files = [Path(a) for a in sys.argv[1:]]
    if not files or any(a in ("-h", "--help") for a in sys.argv[1:]):
        print(__doc__, file=sys.stderr)
        return 2
    enter_venv()
    import geojson_validator as gv
    from geojson_validator.geometry_validation import INVALID_CRITERIA, PROBLEMATIC_CRITERIA

    gv.configure_logging(enabled=False)
    unclassified = [c for c in (*INVALID_CRITERIA, *PROBLEMATIC_CRITERIA) if c not in LEVELS]
    if unclassified:
        print(f"validate_geojson: geojson-validator offers criteria without a level here: {unclassified}; "
              "add them to LEVELS", file=sys.stderr)
        return 2
    failed = False
    started = time.perf_counter()
    for path in files:
        summary, lines, bad = check(path)
        print(summary)
        for _, line in lines:
            print(line)
        failed |= bad
    if len(files) > 1:
        seconds = time.perf_counter() - started
        print(f"validate_geojson: {len(files)} files, {'FAILED' if failed else 'ok'}, {seconds:.2f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
