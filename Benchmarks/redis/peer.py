#!/usr/bin/env python3
"""A Redis-backed location service: the benchmark peer of `rotate serve --stdio`.

What a server developer would write instead of the sidecar: the places live in a Redis GEO set,
every device's state lives in a Redis hash, and this process only turns report lines into answer
lines. It reads location reports (NDJSON, one per line, as `rotate generate --reports-out` writes
them) on stdin and writes one answer per non-blank line on stdout, in input order:

  {"device":"d1","lat":45.81,"lon":15.97,"t":1700000000,"accuracy_m":8}
    -> {"device":"d1","action":"update","start":["shop7",...]}   the set of 18 nearest changed
    -> {"device":"d1","action":"none"}                          same 18 places as stored
  not JSON, or a field missing or of the wrong type
    -> {"line":N,"error":"..."}

Per report, ONE round trip: EVALSHA of the Lua script below, which (server-side) finds the 18
nearest places with GEOSEARCH FROMLONLAT ... BYRADIUS r km ASC COUNT 18, widening r through
1, 4, 16, 64, 256, 1024 km until 18 are found, reads the device's stored selection (HGET) and
writes the device's new state (HSET): last position and time and the refresh circle (centre =
the fix, radius = distance to the 18th place) on every report and, when the set of 18 changed,
the selection (sorted ids, compared), the selected ids nearest first (JSON list) and the monitored
places with coordinates, radii and inside/outside (JSON; about 2 KB a device in all). Nothing about
a device is kept in Python; each place's JSON is made once, at load, and kept in Redis.
Reports are pipelined, --batch (256) EVALSHAs per pipeline, and a partial batch is sent whenever
the input has no more complete lines ready, so a slow writer still gets every answer promptly.
--no-pipeline sends one report per round trip.

Places are loaded by `peer.py --load places.csv` (GEOADD into KEY, each place's JSON
into the hash KEY:json, pipelined), once, before serving.
"""

import argparse
import csv
import json
import os
import sys

import redis

K = 18

LUA = r"""
-- KEYS[1] GEO set of the places, KEYS[2] hash: place id -> "RADIUS_M JSON" (the place as the
-- device state lists it, without the closing brace), KEYS[3] the device's hash
-- ARGV: lon, lat, t, k, then the search radii in km (1, 4, 16, 64, 256, 1024)
local lon, lat, t = ARGV[1], ARGV[2], ARGV[3]
local k = tonumber(ARGV[4])
local found
for i = 5, #ARGV do
  found = redis.call('GEOSEARCH', KEYS[1], 'FROMLONLAT', lon, lat, 'BYRADIUS', ARGV[i], 'km',
                     'ASC', 'COUNT', k, 'WITHDIST')
  if #found >= k then break end
end
local n = #found
local ids, sorted = {}, {}
for i = 1, n do ids[i] = found[i][1]; sorted[i] = found[i][1] end
table.sort(sorted)
local selection = table.concat(sorted, '\n')
local refresh_m = '0'
if n > 0 then refresh_m = string.format('%.2f', tonumber(found[n][2]) * 1000) end
if redis.call('HGET', KEYS[3], 'selection') == selection then
  redis.call('HSET', KEYS[3], 'lat', lat, 'lon', lon, 't', t,
             'refresh_lat', lat, 'refresh_lon', lon, 'refresh_m', refresh_m)
  return false
end
local selected = '[]'
local parts = {}
if n > 0 then
  selected = cjson.encode(ids)
  local places = redis.call('HMGET', KEYS[2], unpack(ids))
  for i = 1, n do
    local place = places[i] or ('100 {"id":' .. cjson.encode(ids[i]))
    local space = string.find(place, ' ', 1, true)
    local inside = 'false'
    if tonumber(found[i][2]) * 1000 <= tonumber(string.sub(place, 1, space - 1)) then inside = 'true' end
    parts[i] = string.sub(place, space + 1) .. ',"inside":' .. inside .. '}'
  end
end
local monitored = '{"t":' .. t .. ',"refresh":{"lat":' .. lat .. ',"lon":' .. lon .. ',"radius_m":' ..
  refresh_m .. '},"monitored":[' .. table.concat(parts, ',') .. ']}'
redis.call('HSET', KEYS[3], 'lat', lat, 'lon', lon, 't', t,
           'refresh_lat', lat, 'refresh_lon', lon, 'refresh_m', refresh_m,
           'selection', selection, 'selected', selected, 'monitored', monitored)
return selected
"""


def error_line(number, message):
    return json.dumps({"line": number, "error": message}, separators=(",", ":")).encode() + b"\n"


def is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def parse(number, raw):
    """One report line -> (device, lon, lat, t) or an error answer (bytes)."""
    try:
        report = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as error:
        return error_line(number, f"not JSON: {error}")
    if not isinstance(report, dict):
        return error_line(number, "not a JSON object")
    device = report.get("device")
    if not isinstance(device, str) or not device or len(device.encode()) > 256:
        return error_line(number, "'device' must be a non-empty string of at most 256 bytes")
    lat, lon, t = report.get("lat"), report.get("lon"), report.get("t")
    if not is_number(lat) or not -90 <= lat <= 90:
        return error_line(number, "'lat' must be a number in -90...90")
    if not is_number(lon) or not -180 <= lon <= 180:
        return error_line(number, "'lon' must be a number in -180...180")
    if not is_number(t):
        return error_line(number, "'t' must be a number")
    return device, lon, lat, t


def answer(device, result):
    head = b'{"device":' + json.dumps(device).encode()
    if result is None:
        return head + b',"action":"none"}\n'
    return head + b',"action":"update","start":' + result + b"}\n"


def lines(stream):
    """Yields lists of complete input lines, one list per read, so that the caller can send what
    it has before blocking on the next read."""
    fd = stream.fileno()
    rest = b""
    while True:
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            if rest:
                yield [rest]
            return
        chunk = rest + chunk
        cut = chunk.rfind(b"\n")
        if cut < 0:
            rest = chunk
            continue
        rest = chunk[cut + 1:]
        yield chunk[:cut].split(b"\n")


def serve(client, key, batch, pipelined, radii):
    sha = client.script_load(LUA)
    out = sys.stdout.buffer
    places_key = key + ":json"
    number = 0
    pipe = client.pipeline(transaction=False)
    pending = []  # per line in the batch: (device, None) for a script call, or (None, answer bytes)

    def flush():
        results = pipe.execute(raise_on_error=False) if pipe.command_stack else []
        at = 0
        for device, ready in pending:
            if device is None:
                out.write(ready)
                continue
            result = results[at]
            at += 1
            if isinstance(result, Exception):
                out.write(error_line(ready, f"redis: {result}"))
            else:
                out.write(answer(device, result))
        pending.clear()
        out.flush()

    for group in lines(sys.stdin):
        for raw in group:
            number += 1
            if not raw.strip(b" \t\r"):
                continue  # blank: no answer, keeps its number (as rotate serve)
            parsed = parse(number, raw)
            if isinstance(parsed, bytes):
                pending.append((None, parsed))
                continue
            device, lon, lat, t = parsed
            keys_args = (key, places_key, "device:" + device, lon, lat, t, K, *radii)
            if pipelined:
                pipe.evalsha(sha, 3, *keys_args)
                pending.append((device, number))
                if len(pipe.command_stack) >= batch:
                    flush()
            else:
                try:
                    result = client.evalsha(sha, 3, *keys_args)
                    pending.append((None, answer(device, result)))
                except redis.ResponseError as error:
                    pending.append((None, error_line(number, f"redis: {error}")))
                if len(pending) >= batch:
                    flush()
        flush()  # the input has nothing more ready: answer what was read


def load(client, key, path, batch=10000):
    """GEOADD the places into KEY and their state JSON ("RADIUS_M {...") into the hash KEY:json."""
    places_key = key + ":json"
    client.delete(key, places_key)
    pipe = client.pipeline(transaction=False)
    count = 0
    with open(path, newline="") as handle:
        for row in csv.DictReader(handle):
            place = row["id"]
            lat, lon = float(row["lat"]), float(row["lon"])
            radius = float(row.get("radius_m") or 100)
            pipe.geoadd(key, (lon, lat, place))
            pipe.hset(places_key, place, f'{radius} {{"id":{json.dumps(place)},"lat":{lat:.7f},'
                      f'"lon":{lon:.7f},"radius_m":{radius:.2f},"transitions":"both"')
            count += 1
            if count % batch == 0:
                pipe.execute()
    pipe.execute()
    print(f"peer.py: {count} places loaded into {key} ({client.zcard(key)} in the GEO set)", file=sys.stderr)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=6379)
    parser.add_argument("--key", default="places", help="GEO set of the places (their JSON in KEY:json)")
    parser.add_argument("--load", metavar="PLACES_CSV", help="load the places (GEOADD) and exit")
    parser.add_argument("--batch", type=int, default=256, help="reports per pipeline (default 256)")
    parser.add_argument("--no-pipeline", action="store_true", help="one report per round trip")
    parser.add_argument("--radii", default="1,4,16,64,256,1024",
                        help="search radii in km, tried in turn until 18 places are found")
    options = parser.parse_args()
    client = redis.Redis(host=options.host, port=options.port)
    if options.load:
        load(client, options.key, options.load)
        return
    radii = [str(float(r)) for r in options.radii.split(",")]
    try:
        serve(client, options.key, max(1, options.batch), not options.no_pipeline, radii)
    except BrokenPipeError:
        sys.stderr.close()


if __name__ == "__main__":
    main()
