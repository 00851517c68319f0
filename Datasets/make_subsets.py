#!/usr/bin/env python3
"""Writes the regional subsets of Datasets/ from the full files next to it (standard library only).

cities-si-hr.csv: every row of cities1000.csv in Slovenia (SI) or Croatia (HR), the country of the
three bundled GPS tracks. Run from anywhere: python3 Datasets/make_subsets.py
"""
import csv
import os

here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "cities1000.csv"), newline="", encoding="utf-8") as source:
    reader = csv.reader(source)
    header = next(reader)
    country = header.index("country")
    rows = [row for row in reader if row[country] in ("SI", "HR")]
with open(os.path.join(here, "cities-si-hr.csv"), "w", newline="", encoding="utf-8") as target:
    writer = csv.writer(target, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
print(f"cities-si-hr.csv: {len(rows)} rows")
