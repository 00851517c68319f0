#!/usr/bin/env python3
"""Writes the real recorded days of Datasets/ as walk CSVs (standard library only).

walk-zurich-day.csv: trackintel's `examples/data/google_trajectory.csv` (github mie-lab/trackintel,
commit 261801af20b5639e677afbf9035e5f7fd9d6bfcd, MIT; kept unmodified next to it as
trackintel-google-trajectory.csv and checked by its SHA-256): one day of a phone's Google
location history in Zurich, 2012-12-18, fixes about a minute apart with gaps, as
`t,lat,lon,accuracy_m` (t as the source writes it, ISO 8601 UTC), in time order (the source lists
them newest first). Run from anywhere: python3 Datasets/make_recordings.py
"""
import csv
import hashlib
import os

here = os.path.dirname(os.path.abspath(__file__))
SOURCE = "trackintel-google-trajectory.csv"
SHA256 = "dfa164ca7dfbe95e099b849048c4afbce468751de26c5ab8149fde160b6c0373"

with open(os.path.join(here, SOURCE), "rb") as f:
    data = f.read()
digest = hashlib.sha256(data).hexdigest()
if digest != SHA256:
    raise SystemExit(f"{SOURCE}: SHA-256 {digest}, expected {SHA256}")
rows = list(csv.DictReader(data.decode("utf-8").splitlines(), delimiter=";"))
rows.sort(key=lambda row: row["tracked_at"])
with open(os.path.join(here, "walk-zurich-day.csv"), "w", newline="", encoding="utf-8") as target:
    writer = csv.writer(target, lineterminator="\n")
    writer.writerow(["t", "lat", "lon", "accuracy_m"])
    for row in rows:
        writer.writerow([row["tracked_at"], row["latitude"], row["longitude"], row["accuracy"]])
print(f"walk-zurich-day.csv: {len(rows)} rows")
