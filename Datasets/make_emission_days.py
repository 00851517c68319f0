#!/usr/bin/env python3
"""Writes Datasets/emission-days/*.csv, real phone days, from e-mission's test recordings
(standard library only).

Source: github e-mission/e-mission-server, commit d64f2ec42eeea467ae60f09938573dd2461417cc,
folder emission/tests/data/real_examples/ (BSD-3-Clause, licenses/e-mission-LICENSE.txt): whole
days recorded by the project's developers on their own Android phones and iPhones in 2015-2016
and 2023 with e-mission's tracker, which stops recording while the phone stands still and starts
again on a geofence exit. Each file is a JSON array of e-mission entries; the raw fixes are the
entries whose metadata key is `background/location` (`data.ts`, `data.latitude`,
`data.longitude`, `data.accuracy`).

Each day becomes a walk CSV (docs/formats.md), `t,lat,lon,accuracy_m`: t in Unix seconds with 3
decimals, the coordinates with 7, in time order. Transformations, all of them:
- every longitude is shifted by LONGITUDE_SHIFT degrees east (a rotation about the Earth's axis:
  every distance, bearing and time stays as recorded), so that no home or workplace of the
  people who recorded them appears at its address;
- a fix repeating the time and position of the one before it is written once;
- a fix with a time before 2000-01-01 (one in gabe_2016-06-15 has t = 0) is left out and named
  on standard error.
Left out as files: shankari_2015-jul-22 (a copy of shankari_2015-07-22) and the two
shankari_2016-independence_day_jump_* files (edited copies of shankari_2016-independence_day);
the files of 4 MB or more are not in the pinned snapshot.

Usage: python3 Datasets/make_emission_days.py DIR, where DIR holds the files of
real_examples/ at that commit (each is checked by its SHA-256 first). Deterministic: the same
input writes the same bytes.
"""
import csv
import hashlib
import json
import os
import sys

LONGITUDE_SHIFT = 0.75
EARLIEST = 946_684_800.0  # 2000-01-01T00:00:00Z
SHA256 = {
    "gabe_2016-06-15": "4f4a1932c536c08bff7968cf1309e9a21ad32d4ae3e9200f540dbbb6cb472ab0",
    "iphone_2015-11-06": "0fe8c749889ca830bf9c74ab4604a2ad08cda80815ad39215a21468cd6d546a7",
    "iphone_2016-02-22": "2cac108e4e6891c8f77b62c403a0fe99d17e445e153f4f2ff659e3b4bfa3bc07",
    "iphone_3_2016-02-22": "ab1e1b45ea776c33c1578f57e00c23bc8c9eaaade28abfb394fefdf8d09d4a6c",
    "jack_untracked_time_2023-03-12": "7eb6926c826a93760c72ca86e4573a1bcffb35d5f1060241a3cea49b11152ebd",
    "shankari_2015-07-22": "e60cc37400d46a6789fb5e016d49670c4f8d10cc9b72dadd4699c38b0e666c2d",
    "shankari_2015-08-23": "8d859a763966511db56ccf19d5aca44d72e2d12d72e0701810905e57ceddaa6f",
    "shankari_2015-aug-21": "21846f1ffdfba62f82f6c7cd0c565bee68619e423747e4862d83c7d15eec257d",
    "shankari_2015-aug-27": "50d7da4e0e925c2493294ebcbe8bc85636159f2d48bcef7e3d0da92de5781717",
    "shankari_2016-01-12": "6dd498e363c493a31a8d604d4d08dde7b8f38491ff5ef0a4cd26563d306d09d3",
    "shankari_2016-01-13": "e4cf39df4e88fe025ef7758557f1978f295d34979281d88edc5e0adc689cf747",
    "shankari_2016-06-20": "7a351f8ffa76d2ea47fe76143e0ff63139d8b94e81e8afcecf9b7d8aa0b548a9",
    "shankari_2016-06-21": "7b3fd4c2ef075fe26c9fe234b6ca10e2944d6a3215d1777fdfd428f1b54407c7",
    "shankari_2016-07-22": "97484fbd986f53d0505c0454ed07dafb6a11129e8acaffbc6dc18bee033126ff",
    "shankari_2016-07-25": "a41af158885e01387c5f19be5bc8a5f220ccfb4080b0b9de5286f15a27c814ea",
    "shankari_2016-08-05": "37f58b7a9db9e065cf416b7964df53afe5400328886e7301cd2cd5288749846b",
    "shankari_2016-08-09": "d287ff3a00194e71078badc3a402e5d258858a69ce7b43b1aedd67a6fc30291e",
    "shankari_2016-08-10": "72d51a5d4dfa46127f8aa675056041bf6e83a8bb2d4e70b39824ffb3ab60c745",
    "shankari_2016-08-11": "13351b31684870744fdb0211d00614157e7462b54b915fee79b5a0c486cee578",
    "shankari_2016-09-03": "5faf2a0d59fd58fe0e595d94459394cd9d58b9fb4dfdbbd25680fa02a0fad6bd",
    "shankari_2016-independence_day": "1ada627157277f9ed871ed302a11eb127efc3693a761c2800765e058b68942c8",
    "shankari_2023-04-13": "8b663d3cafbb00bf0ffa488d974b717a606937d22894f1080445dd07be1afebf",
    "shankari_2023-04-14": "1f231b422a909033fbb4216f3754597ad68d9a369bc940e76df6d2c2e1b04618",
    "shankari_not_untracked_time_mar_21": "355e91b2598ac743f696ddf67b37f5d61576a87d904ee914d6385cf0742aefbf",
    "shankari_single_positional_indexer.dec-12": "a6024738bd075b119b2acd4408198dad5cc77b2d79bd17624321e67e603b57af",
    "shankari_untracked_time_jan_15_reboot_multi_day": "789457edbf6984e7e8b9fa8f7123ae1dd57289226bbc7e137a6600603e70c965",
    "shankari_untracked_time_jul_20_large_gap": "b23ff04014e39673b2b09849077385276ef8cf0152293a25724b72c9e02edcf5",
    "sunil_2016-07-20": "ea07eb9325c34d00006c90b0e80a72e35409d65ab1be72e6c6fe77cff25cca91",
    "sunil_2016-07-27": "e54738d6254f0acf36ccc099e97765c798ba7b142b05f23265a1312b97429ad2",
}


def shifted(longitude):
    """The longitude LONGITUDE_SHIFT degrees east, in -180...180."""
    value = longitude + LONGITUDE_SHIFT
    return value - 360 if value > 180 else value


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    source = sys.argv[1]
    target = os.path.join(os.path.dirname(os.path.abspath(__file__)), "emission-days")
    os.makedirs(target, exist_ok=True)
    for name, expected in sorted(SHA256.items()):
        with open(os.path.join(source, name), "rb") as f:
            data = f.read()
        digest = hashlib.sha256(data).hexdigest()
        if digest != expected:
            sys.exit(f"{name}: SHA-256 {digest}, expected {expected}")
        fixes = []
        for entry in json.loads(data):
            if entry.get("metadata", {}).get("key") != "background/location":
                continue
            d = entry["data"]
            fixes.append((float(d["ts"]), float(d["latitude"]), float(d["longitude"]), d.get("accuracy")))
        fixes.sort(key=lambda fix: fix[0])
        rows = []
        for t, lat, lon, accuracy in fixes:
            if t < EARLIEST:
                print(f"{name}: left out a fix at t = {t:g} (before 2000)", file=sys.stderr)
                continue
            row = [f"{t:.3f}", f"{lat:.7f}", f"{shifted(lon):.7f}", "" if accuracy is None else f"{float(accuracy):g}"]
            if rows and rows[-1][:3] == row[:3]:
                continue
            rows.append(row)
        with open(os.path.join(target, f"{name}.csv"), "w", newline="", encoding="utf-8") as f:
            writer = csv.writer(f, lineterminator="\n")
            writer.writerow(["t", "lat", "lon", "accuracy_m"])
            writer.writerows(rows)
        print(f"emission-days/{name}.csv: {len(rows)} fixes")


if __name__ == "__main__":
    main()
