#!/usr/bin/env python3
"""Independent check of rotate's polygon edge distances with shapely and pyproj.

For N seeded random query points around the footprints of a GeoJSON places file (half inside or
within 20 m of a footprint's bounding box, half up to 500 m from a footprint), runs

    ROTATE select --places FILE --at LAT,LON --format json --limit 100 --headroom 0

and, for every monitored place that is a Polygon or MultiPolygon in the file, computes the signed
distance from the query point to the polygon's boundary (negative inside) with shapely in an
azimuthal equidistant projection centered on the query point, on rotate's sphere
(R = 6,371,008.8 m), and compares it with the output's `edge_m`. Exit 1 on any mismatch (each one
printed with the point, the id and both values), else 0; a one-line summary either way.

Usage (the venv from Benchmarks/footprints/install.sh, entered automatically when missing):

    swift build -c release
    python3 Benchmarks/footprints/check_shapely.py --places Datasets/helsinki-footprints.geojson
    python3 Benchmarks/footprints/check_shapely.py --places FILE --points 300 --seed 1 \\
        --rotate .build/release/rotate

Tolerance: |edge_m - shapely| <= TOL_ABS_M + TOL_REL * |distance|, and the signs agree unless
the point is within SIGN_SLACK_M of the boundary; see the comment at TOL_ABS_M for the bound.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import random
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
VENV = ROOT / "Benchmarks" / ".peers" / "footprints-venv"
INSTALL = ROOT / "Benchmarks" / "footprints" / "install.sh"

EARTH_RADIUS_M = 6371008.8  # rotate's Earth.meanRadiusMeters: compare on the same sphere
NEAR_BOX_M = 20.0
FAR_M = 500.0
DENSIFY_M = 1000.0

# Tolerance. In the azimuthal equidistant (AEQD) projection centered on the query point the
# distance from the center to any point is its exact great-circle distance, so the only
# approximations on shapely's side are (1) a great-circle edge drawn as a straight chord between
# its projected ends: its image bows away from the chord by about L^2 * rho / (8 R^2) for an edge
# piece of length L at distance rho (L = 100 m, rho = 500 m: 2e-8 m; edges are first cut along
# the great circle into pieces of at most DENSIFY_M, so L <= 1 km: 1.9 mm at rho = 629 km, where
# 1.3 mm was measured) and (2) floating point in pyproj and shapely (~1e-9 m at 1 km). rotate
# prints edge_m rounded to 1 mm (+-0.0005 m) and computes in double precision on unit vectors.
# Measured (seeds 1-3, 300 points each): Helsinki footprints max |difference| 0.0005 m over
# 89,100 comparisons, i.e. the print rounding; Natural Earth cases 0.0013 m at 629 km (seed 1).
# Allowed: 4x the print rounding, plus 1e-7 of the distance for the chord bow (3.1e-9 x rho
# at L = 1 km), far below the 1 cm that matters for a fence.
TOL_ABS_M = 0.002
TOL_REL = 1e-7
# Places further than this are not compared: the AEQD projection tears near the antipode (a
# polygon ~20,000 km away is drawn inside out), and the chord bow grows with the distance.
MAX_COMPARED_M = 1_000_000.0
# Within this of the boundary either side may say inside or outside (print rounding, edges
# through the point); further away the signs must agree.
SIGN_SLACK_M = 0.01


def enter_venv():
    try:
        import pyproj  # noqa: F401
        import shapely  # noqa: F401
    except ImportError:
        if os.environ.get("ROTATE_FOOTPRINTS_IN_VENV") == "1":
            sys.exit("shapely/pyproj missing in the venv; run bash Benchmarks/footprints/install.sh")
        python = VENV / "bin" / "python"
        if not python.exists():
            subprocess.check_call(["bash", str(INSTALL)])
        env = dict(os.environ, ROTATE_FOOTPRINTS_IN_VENV="1")
        os.execve(str(python), [str(python), str(Path(__file__).resolve()), *sys.argv[1:]], env)


def unit(lon, lat):
    la, lo = math.radians(lat), math.radians(lon)
    return (math.cos(la) * math.cos(lo), math.cos(la) * math.sin(lo), math.sin(la))


def densify(ring):
    """Insert points along each great-circle edge so that no piece is longer than DENSIFY_M."""
    out = [ring[0]]
    for (lon0, lat0), (lon1, lat1) in zip(ring, ring[1:]):
        a, b = unit(lon0, lat0), unit(lon1, lat1)
        dot = max(-1.0, min(1.0, sum(x * y for x, y in zip(a, b))))
        omega = math.acos(dot)
        n = int(omega * EARTH_RADIUS_M // DENSIFY_M)
        for k in range(1, n + 1):
            f = k / (n + 1)
            s0, s1 = math.sin((1 - f) * omega) / math.sin(omega), math.sin(f * omega) / math.sin(omega)
            v = [s0 * x + s1 * y for x, y in zip(a, b)]
            out.append((math.degrees(math.atan2(v[1], v[0])), math.degrees(math.atan2(v[2], math.hypot(v[0], v[1])))))
        out.append((lon1, lat1))
    return out


def load_polygons(path: Path):
    """id -> list of [shell, *holes] rings of (lon, lat), for Polygon and MultiPolygon features."""
    data = json.loads(path.read_text(encoding="utf-8"))
    features = data["features"] if data.get("type") == "FeatureCollection" else [data]
    polygons = {}
    for f in features:
        g = f.get("geometry") or {}
        fid = f.get("id", (f.get("properties") or {}).get("id"))
        if g.get("type") == "Polygon":
            pieces = [g["coordinates"]]
        elif g.get("type") == "MultiPolygon":
            pieces = g["coordinates"]
        else:
            continue
        polygons[str(fid)] = [[densify([(p[0], p[1]) for p in ring]) for ring in piece] for piece in pieces]
    return polygons


def offset(lon, lat, east_m, north_m):
    """The point east_m, north_m from (lon, lat) in the local tangent plane (small offsets)."""
    dlat = math.degrees(north_m / EARTH_RADIUS_M)
    dlon = math.degrees(east_m / (EARTH_RADIUS_M * math.cos(math.radians(lat))))
    return lon + dlon, lat + dlat


def query_points(polygons, n, rng):
    ids = sorted(polygons)
    points = []
    for i in range(n):
        fid = ids[rng.randrange(len(ids))]
        shell = polygons[fid][0][0]
        lons = [p[0] for p in shell]
        lats = [p[1] for p in shell]
        if i % 2 == 0:  # inside or near: uniform in the bounding box grown by NEAR_BOX_M
            lon0, lat0 = offset(min(lons), min(lats), -NEAR_BOX_M, -NEAR_BOX_M)
            lon1, lat1 = offset(max(lons), max(lats), NEAR_BOX_M, NEAR_BOX_M)
            points.append((rng.uniform(lon0, lon1), rng.uniform(lat0, lat1), fid))
        else:  # up to FAR_M from the footprint's first vertex, uniform in distance and bearing
            r, bearing = rng.uniform(0, FAR_M), rng.uniform(0, 2 * math.pi)
            lon, lat = offset(shell[0][0], shell[0][1], r * math.sin(bearing), r * math.cos(bearing))
            points.append((lon, lat, fid))
    return points


def signed_distance(pieces, lon, lat):
    from pyproj import Proj
    from shapely import union_all
    from shapely.geometry import Point, Polygon

    aeqd = Proj(proj="aeqd", lat_0=lat, lon_0=lon, R=EARTH_RADIUS_M)
    projected = []
    for piece in pieces:
        rings = []
        for ring in piece:
            xs, ys = aeqd([p[0] for p in ring], [p[1] for p in ring])
            rings.append(list(zip(xs, ys)))
        projected.append(Polygon(rings[0], rings[1:]))
    # The pieces of a MultiPolygon cut at the antimeridian are one place to rotate: their seam is
    # no boundary. Their union dissolves it; the 1 um grid closes the float gap between the
    # pieces' copies of the seam.
    shape = projected[0] if len(projected) == 1 else union_all(projected, grid_size=1e-6)
    origin = Point(0.0, 0.0)
    d = shape.boundary.distance(origin)
    return -d if shape.contains(origin) else d


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--places", type=Path, default=ROOT / "Datasets" / "helsinki-footprints.geojson")
    ap.add_argument("--rotate", type=Path, default=ROOT / ".build" / "release" / "rotate")
    ap.add_argument("--points", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    if not args.rotate.exists():
        sys.exit(f"{args.rotate}: no such binary (swift build -c release, or pass --rotate)")
    enter_venv()

    started = time.monotonic()
    polygons = load_polygons(args.places)
    if not polygons:
        sys.exit(f"{args.places}: no Polygon or MultiPolygon features")
    rng = random.Random(args.seed)
    comparisons, beyond, inside, worst, worst_at, mismatches = 0, 0, 0, 0.0, None, []
    for lon, lat, _ in query_points(polygons, args.points, rng):
        lon = (lon + 180.0) % 360.0 - 180.0  # near the antimeridian an offset can pass 180
        at = f"{lat:.7f},{lon:.7f}"
        run = subprocess.run([str(args.rotate), "select", "--places", str(args.places), "--at", at,
                              "--format", "json", "--limit", "100", "--headroom", "0"],
                             capture_output=True, text=True)
        if run.returncode != 0:
            print(f"rotate select --at {at} failed ({run.returncode}): {run.stderr.strip()}", file=sys.stderr)
            return 1
        out = json.loads(run.stdout)
        qlat, qlon = out["lat"], out["lon"]
        for m in out["monitored"]:
            pieces = polygons.get(m["id"])
            if pieces is None:
                continue  # a circle
            if abs(m["edge_m"]) > MAX_COMPARED_M:
                beyond += 1
                continue
            ours = signed_distance(pieces, qlon, qlat)
            theirs = m["edge_m"]
            diff = abs(theirs - ours)
            comparisons += 1
            inside += ours < 0
            if diff > worst:
                worst, worst_at = diff, (at, m["id"], theirs, ours)
            bad = diff > TOL_ABS_M + TOL_REL * abs(ours)
            if min(abs(ours), abs(theirs)) > SIGN_SLACK_M and (ours < 0) != (theirs < 0):
                bad = True
            if min(abs(ours), abs(theirs)) > SIGN_SLACK_M and m.get("inside") is not None and m["inside"] != (ours < 0):
                bad = True
            if bad:
                mismatches.append((at, m["id"], theirs, ours, diff))
    for at, fid, theirs, ours, diff in mismatches:
        print(f"MISMATCH at {at} {fid}: rotate edge_m {theirs:.4f}, shapely {ours:.4f} (|diff| {diff:.4f} m)")
    where = f" (at {worst_at[0]} {worst_at[1]}: rotate {worst_at[2]:.4f}, shapely {worst_at[3]:.4f})" if worst_at else ""
    print(f"check_shapely: {args.points} points, {comparisons} comparisons ({inside} inside; {beyond} places "
          f"beyond {MAX_COMPARED_M / 1000:.0f} km not compared), {len(mismatches)} mismatches, "
          f"max |difference| {worst:.6f} m{where}, tolerance {TOL_ABS_M} m + {TOL_REL:g} x |d|, "
          f"{time.monotonic() - started:.1f} s")
    return 1 if mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
