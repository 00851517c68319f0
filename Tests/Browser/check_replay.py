#!/usr/bin/env python3
"""The HTML replays in a real browser: headless Chromium driven through its DevTools protocol.

Plan mode (the default) writes a plan's replay (`rotate plan --html`) and its NDJSON trace, loads
the page with the network switched off, and checks that no script error occurs, that the page
asks for nothing but itself, and that at each reselection's time (and halfway to the next) the
fences the page shows as monitored are exactly the trace's monitored set then (the trace's start
and stop lists added up). Saves a screenshot halfway through the walk, then works the controls a
person uses: a layer's box, the wheel's zoom (and the scale bar with it; the labels in view must
not overlap, before and after, and must keep their size on screen), a fence's tooltip, play at 1x.

Phone mode (`--platform ios|android`) writes `rotate simulate --html` of rotate on that phone over
the walk, with two labelled stops at shops the walk passes, and `--json` of the same run. Besides
the checks above, at every registration call (and halfway to the next) the fences shown as
monitored must be those the page's registration log leaves monitored (added and monitored, not
removed since, not lost to a reboot): the log comes from the phone's answers to each call, the
fences' spans from the replay's own bookkeeping. The misses marked must be as many as the run's
JSON counts (visits of at least 30 s and stops not detected), the status must name the location
service in force, and each approach region (a circle registered in a place's stead) must be drawn
exactly while its place is monitored (`--expect-approach`: and at least one must be drawn).

Exit 0 when every check passes, 1 when one fails, 2 on a usage error. Only Python's standard
library: the DevTools socket is spoken with a small WebSocket client below (RFC 6455, text
frames, client frames masked).

    check_replay.py --rotate BIN --places P --walk W.csv --out DIR [--platform ios|android [--expect-approach]]
"""

import argparse
import base64
import csv
import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.request


class DevTools:
    """One page's DevTools socket: commands by id, events kept as they come."""

    def __init__(self, url):
        assert url.startswith("ws://")
        host_port, path = url[5:].split("/", 1)
        host, port = host_port.split(":")
        self.sock = socket.create_connection((host, int(port)), timeout=60)
        key = base64.b64encode(os.urandom(16)).decode()
        request = (
            f"GET /{path} HTTP/1.1\r\nHost: {host_port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
        self.sock.sendall(request.encode())
        response = b""
        while b"\r\n\r\n" not in response:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise RuntimeError("DevTools closed the socket during the handshake")
            response += chunk
        head, self.buffer = response.split(b"\r\n\r\n", 1)
        if b" 101 " not in head.split(b"\r\n")[0]:
            raise RuntimeError(f"DevTools refused the WebSocket: {head[:80]!r}")
        self.next_id = 0
        self.events = []

    def _read(self, n):
        while len(self.buffer) < n:
            chunk = self.sock.recv(1 << 20)
            if not chunk:
                raise RuntimeError("DevTools closed the socket")
            self.buffer += chunk
        data, self.buffer = self.buffer[:n], self.buffer[n:]
        return data

    def _message(self):
        parts = []
        while True:
            first, second = self._read(2)
            opcode, length = first & 0x0F, second & 0x7F
            if length == 126:
                (length,) = struct.unpack(">H", self._read(2))
            elif length == 127:
                (length,) = struct.unpack(">Q", self._read(8))
            mask = self._read(4) if second & 0x80 else None
            payload = self._read(length)
            if mask:
                payload = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
            if opcode == 8:
                raise RuntimeError("DevTools closed the socket")
            if opcode in (0, 1, 2):
                parts.append(payload)
                if first & 0x80:
                    return json.loads(b"".join(parts))

    def send(self, method, **params):
        self.next_id += 1
        payload = json.dumps({"id": self.next_id, "method": method, "params": params}).encode()
        header = bytes([0x81])
        if len(payload) < 126:
            header += bytes([0x80 | len(payload)])
        elif len(payload) < 1 << 16:
            header += bytes([0x80 | 126]) + struct.pack(">H", len(payload))
        else:
            header += bytes([0x80 | 127]) + struct.pack(">Q", len(payload))
        mask = os.urandom(4)
        self.sock.sendall(header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload)))
        while True:
            message = self._message()
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            self.events.append(message)

    def wait_for(self, method, seconds=30):
        deadline = time.time() + seconds
        while time.time() < deadline:
            for event in self.events:
                if event.get("method") == method:
                    return event
            self.events.append(self._message())
        raise RuntimeError(f"no {method} within {seconds} s")

    def evaluate(self, expression):
        result = self.send("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"script failed: {result['exceptionDetails'].get('text')}")
        return result["result"].get("value")


def monitored_by_reselection(trace_path):
    """The trace's reselections as (fix, monitored set after it), in order."""
    monitored, out = set(), []
    with open(trace_path) as f:
        for line in f:
            record = json.loads(line)
            if record.get("type") != "reselect":
                continue
            monitored -= set(record["stop"])
            monitored |= set(record["start"])
            out.append((record["fix"], frozenset(monitored)))
    return out


def fix_times(walk_path):
    """Each fix's time, seconds from the first (the walk file's t column)."""
    with open(walk_path, newline="") as f:
        times = [float(row["t"]) for row in csv.DictReader(f)]
    return [t - times[0] for t in times]


def plan_checks(args, html):
    """Plan mode: writes the replay and its trace; the slider positions and monitored sets."""
    trace = os.path.join(args.out, "plan.ndjson")
    subprocess.run(
        [args.rotate, "plan", "--places", args.places, "--walk", args.walk, "--html", html, "--format", "ndjson", "--out", trace],
        check=True,
        stderr=subprocess.DEVNULL,
    )
    reselections = monitored_by_reselection(trace)
    times = fix_times(args.walk)
    checks = []
    for i, (fix, monitored) in enumerate(reselections):
        checks.append((times[fix], monitored))
        following = reselections[i + 1][0] if i + 1 < len(reselections) else len(times) - 1
        checks.append(((times[fix] + times[following]) / 2, monitored))
    return checks, f"{len(reselections)} reselections"


def phone_run(args, html):
    """Phone mode: two labelled stops of 5 minutes at the first shops the plan enters, then the
    simulate replay and the same run's JSON figures."""
    trace = os.path.join(args.out, "plan.ndjson")
    subprocess.run(
        [args.rotate, "plan", "--places", args.places, "--walk", args.walk, "--format", "ndjson", "--out", trace],
        check=True,
        stderr=subprocess.DEVNULL,
    )
    entries = []
    with open(trace) as f:
        for line in f:
            record = json.loads(line)
            if record.get("type") == "place_event" and record["event"] == "entry" and record["place"] not in [e[0] for e in entries]:
                entries.append((record["place"], record["t"]))
    stops = os.path.join(args.out, "stops.csv")
    with open(stops, "w") as f:
        f.write("id,arrival,departure\n")
        for place, t in entries[:2]:
            f.write(f"{place},{t},{t + 300}\n")
    command = [args.rotate, "simulate", "--places", args.places, "--walk", args.walk, "--stops", stops, "--platform", args.platform, "--quiet"]
    subprocess.run(command + ["--html", html], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    figures = json.loads(subprocess.run(command + ["--json"], check=True, capture_output=True, text=True).stdout)
    return figures


def registration_checks(data):
    """The monitored set after each registration call (and halfway to the next), from the
    page's registration log: [t, id, action, outcome] rows in call order."""
    monitored, by_time = set(), {}
    for t, region, action, outcome in data["registrations"]:
        if action == "reboot":
            monitored.clear()
        elif action == "add" and outcome == "monitored":
            monitored.add(region)
        else:
            monitored.discard(region)
        by_time[t] = frozenset(monitored)
    times = sorted(by_time)
    checks = []
    for i, t in enumerate(times):
        checks.append((t, by_time[t]))
        following = times[i + 1] if i + 1 < len(times) else data["duration"]
        checks.append(((t + following) / 2, by_time[t]))
    return checks


def expected_misses(figures):
    """Visits of at least 30 s and stops the run's JSON says were not detected."""
    visits = figures["visits_30s"] - round(figures["recall_30s"] * figures["visits_30s"])
    stops = figures["stops_2min"] - round((figures["stop_recall_2min"] or 0) * figures["stops_2min"])
    return visits + stops


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rotate", required=True)
    parser.add_argument("--places", required=True)
    parser.add_argument("--walk", required=True, help="a walk CSV with a t column")
    parser.add_argument("--out", required=True, help="folder for replay.html, plan.ndjson and replay.png")
    parser.add_argument("--platform", choices=["ios", "android"], help="check simulate's replay of rotate on this phone")
    parser.add_argument("--expect-approach", action="store_true", help="fail unless some place is registered by an approach region")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    html = os.path.abspath(os.path.join(args.out, "replay.html"))
    figures = None
    if args.platform:
        figures = phone_run(args, html)
    else:
        checks, what = plan_checks(args, html)
    size = os.path.getsize(html)

    profile = tempfile.mkdtemp(prefix="rotate-replay-")
    chromium = subprocess.Popen(
        [
            "chromium", "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-port=0",
            f"--user-data-dir={profile}", "--window-size=1100,1000", "about:blank",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    failures = []
    wrong = 0
    try:
        port_file = os.path.join(profile, "DevToolsActivePort")
        deadline = time.time() + 30
        while not (os.path.exists(port_file) and open(port_file).read().strip()):
            if time.time() > deadline:
                raise RuntimeError("chromium did not open its DevTools port")
            time.sleep(0.1)
        port = open(port_file).read().split()[0]
        pages = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list"))
        page = next(p for p in pages if p.get("type") == "page")
        tools = DevTools(page["webSocketDebuggerUrl"])
        tools.send("Network.enable")
        tools.send("Network.emulateNetworkConditions", offline=True, latency=0, downloadThroughput=-1, uploadThroughput=-1)
        tools.send("Runtime.enable")
        tools.send("Page.enable")
        tools.send("Emulation.setDeviceMetricsOverride", width=1100, height=1000, deviceScaleFactor=1, mobile=False)
        tools.send("Page.navigate", url="file://" + html)
        tools.wait_for("Page.loadEventFired")
        error = tools.evaluate("document.body.dataset.error || ''")
        if error:
            failures.append(f"script error: {error}")
        thrown = [e for e in tools.events if e.get("method") == "Runtime.exceptionThrown"]
        if thrown:
            failures.append(f"{len(thrown)} exceptions thrown, the first: {thrown[0]['params']['exceptionDetails'].get('text')}")
        requested = sorted(
            {e["params"]["request"]["url"] for e in tools.events if e.get("method") == "Network.requestWillBeSent"}
            - {"file://" + html}
        )
        if requested:
            failures.append(f"the page asked for {len(requested)} other resources, the first {requested[0]}")
        data = json.loads(tools.evaluate("document.getElementById('replay-data').textContent"))
        if figures is not None:
            drawn = set(tools.evaluate("Array.prototype.map.call(document.querySelectorAll('.fence'),function(e){return e.dataset.id;})"))
            checks = [(t, expected & drawn) for t, expected in registration_checks(data)]
            what = f"{len(data['registrations'])} registration calls"
            misses = sum(1 for mark in data["marks"] if mark[3] == "miss")
            if misses != expected_misses(figures):
                failures.append(f"the page marks {misses} misses, the run's JSON counts {expected_misses(figures)}")
        approaches = tools.evaluate("document.querySelectorAll('.approach').length")
        if args.expect_approach and not approaches:
            failures.append("no approach region is drawn")
        wrong_approach = 0
        for t, expected in checks:
            shown, approach, registered = tools.evaluate(
                "(function(t){var s=document.getElementById('time');s.value=t;s.dispatchEvent(new Event('input'));"
                "function ids(list){return Array.prototype.map.call(list,function(e){return e.dataset.id;});}"
                "var on=document.querySelectorAll('.fence.monitored');"
                "return [ids(on),ids(Array.prototype.filter.call(document.querySelectorAll('.approach'),function(e){return e.style.display!=='none';})),"
                "ids(Array.prototype.filter.call(on,function(e){return e.hasAttribute('data-registered');}))];})"
                f"({t})"
            )
            # An approach region is drawn exactly while its place is monitored.
            if sorted(approach) != sorted(registered):
                wrong_approach += 1
                if wrong_approach <= 3:
                    failures.append(f"at {t:.1f} s the page draws {len(approach)} approach regions for {len(registered)} monitored places registered so")
            if set(shown) != expected:
                wrong += 1
                if wrong <= 3:
                    failures.append(
                        f"at {t:.1f} s the page shows {len(shown)} monitored, the expected set has {len(expected)}: "
                        f"extra {sorted(set(shown) - expected)[:5]}, missing {sorted(expected - set(shown))[:5]}"
                    )
        status = tools.evaluate(
            f"(function(){{var s=document.getElementById('time');s.value={data['duration'] / 2};s.dispatchEvent(new Event('input'));"
            "return document.getElementById('status').textContent;})()"
        )
        if figures is not None and not any(
            f"location: {words}" in status
            for words in ("none (region events only)", "continuous GNSS", "significant changes (no GNSS)", "periodic network fixes")
        ):
            failures.append(f"the status names no location service: {status}")
        # Labels in view do not overlap, at the full view and zoomed in (where they are laid out
        # again at the new scale and keep their size on screen).
        labels_js = (
            "(function(){var shown=Array.prototype.filter.call(document.querySelectorAll('#layer-labels text'),function(e){return e.style.display!=='none';});"
            "var boxes=shown.map(function(e){return e.getBoundingClientRect();}),n=0;"
            "for(var i=0;i<boxes.length;i++)for(var j=i+1;j<boxes.length;j++){var a=boxes[i],b=boxes[j];"
            "if(a.left<b.right-1&&b.left<a.right-1&&a.top<b.bottom-1&&b.top<a.bottom-1)n++;}"
            "var h=boxes.length?boxes.reduce(function(s,b){return s+b.height;},0)/boxes.length:0;return [boxes.length,n,h];})()"
        )

        def labels_in_view(where):
            """[labels shown, overlapping pairs, mean height in px]; overlaps are failures."""
            shown = tools.evaluate(labels_js)
            if shown[1]:
                failures.append(f"{where}, {shown[1]} pairs of the {shown[0]} labels in view overlap")
            return shown

        full_labels = labels_in_view("at the full view")
        shot = tools.send("Page.captureScreenshot", format="png")
        with open(os.path.join(args.out, "replay.png"), "wb") as f:
            f.write(base64.b64decode(shot["data"]))
        # The controls a person uses: a layer hidden and shown again, the wheel zooming in (the
        # view narrows, the scale bar's length changes), a fence hovered (its tooltip names it),
        # play moving the slider on.
        controls = tools.evaluate(
            "(function(){var out={};var box=document.querySelector('[data-layer=\"layer-fences\"]'),layer=document.getElementById('layer-fences');"
            "box.click();out.hidden=layer.style.display==='none';box.click();out.shown=layer.style.display==='';"
            "var svg=document.getElementById('map'),before=svg.getAttribute('viewBox').split(' ').map(Number)[2],label=document.getElementById('scale-label').textContent,bar=document.getElementById('bar').style.width;"
            "var r=svg.getBoundingClientRect();svg.dispatchEvent(new WheelEvent('wheel',{deltaY:-300,clientX:r.left+r.width/2,clientY:r.top+r.height/2,bubbles:true,cancelable:true}));"
            "var after=svg.getAttribute('viewBox').split(' ').map(Number)[2];out.zoomed=after<before;out.scaleChanged=document.getElementById('scale-label').textContent!==label||document.getElementById('bar').style.width!==bar;"
            "var fence=document.querySelector('.fence.monitored');fence.dispatchEvent(new MouseEvent('mousemove',{clientX:r.left+50,clientY:r.top+50,bubbles:true}));"
            "var tip=document.getElementById('tip');out.tip=tip.style.display==='block'&&tip.textContent.indexOf(fence.dataset.id)===0&&tip.textContent.indexOf('monitored')>0"
            "&&(!fence.hasAttribute('data-registered')||tip.textContent.indexOf('registered as a '+fence.getAttribute('data-registered'))>0);"
            "return out;})()"
        )
        zoomed_labels = labels_in_view("zoomed in")
        if full_labels[0] and zoomed_labels[0] and abs(zoomed_labels[2] - full_labels[2]) > 0.1 * full_labels[2]:
            failures.append(f"labels change size on screen as the map zooms ({full_labels[2]:.1f} px → {zoomed_labels[2]:.1f} px)")
        for name, ok in controls.items():
            if not ok:
                failures.append(f"control check failed: {name}")
        # Play at 1x: 1.5 s of wall clock moves the slider about 1.5 s on.
        start = tools.evaluate(
            "(function(){var s=document.getElementById('time');s.value=0;s.dispatchEvent(new Event('input'));"
            "document.getElementById('speed').value='1';document.getElementById('play').click();return +s.value;})()"
        )
        time.sleep(1.5)
        played = tools.evaluate("(function(){var s=+document.getElementById('time').value;document.getElementById('play').click();return s;})()")
        if not played >= start + 0.5:
            failures.append(f"play at 1x did not move the slider on ({start} → {played} after 1.5 s)")
        error = tools.evaluate("document.body.dataset.error || ''")
        if error:
            failures.append(f"script error after using the controls: {error}")
    finally:
        chromium.terminate()
        try:
            chromium.wait(timeout=10)
        except subprocess.TimeoutExpired:
            chromium.kill()
        shutil.rmtree(profile, ignore_errors=True)

    print(f"replay: {html} ({size:,} bytes), {what}, {approaches} approach regions, {len(checks)} slider positions checked offline")
    print(f"halfway: {status}")
    print("controls checked: a layer hidden and shown, the wheel's zoom, the scale bar and the labels, a fence's tooltip, play at 1x")
    for failure in failures:
        print(f"FAIL {failure}", file=sys.stderr)
    print(f"{len(checks) - wrong} passed, {wrong} failed" if not failures else f"{len(failures)} failures", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
