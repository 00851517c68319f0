#!/usr/bin/env python3
"""Load test of `rotate serve --state` (docs/sidecar.md, Durable state).

DEVICES devices near 100,000 clustered places each make REPORTS location reports (`rotate
generate --reports-out`), with a fraction of bad lines mixed in. The sidecar serves them with
`--durability DURABILITY`, is killed with SIGKILL after KILL_AFTER seconds, and is restarted from
the line its database says it committed, to the end of the input. The script checks, and exits 1
when any check fails:

- every line is answered in order: each process's answers are numbered 1, 2, 3, ... and answer
  the input lines it was given, an error answer exactly for each bad line;
- no answer is lost: under `always`, every line answered before the kill is committed;
- the restarted sidecar answers every remaining line and exits 0.

It prints the resident memory of the sidecar every few seconds, and the rate of each run.

Usage: python3 Benchmarks/sidecar/load.py [--devices N] [--reports K] [--bad-lines F]
                                          [--kill-after S] [--durability always|batch] [--keep]
Needs a release build of rotate (swift build -c release; ROTATE overrides the path). Writes into
Benchmarks/.peers/load-N (git-ignored): the reports file is about 90 bytes per report.
"""

import argparse
import os
import re
import signal
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ROTATE = os.environ.get("ROTATE", os.path.join(ROOT, ".build", "release", "rotate"))
LINE = re.compile(rb'^\{"line":(\d+),')


def rss_kb(pid):
    try:
        with open(f"/proc/{pid}/status") as status:
            for row in status:
                if row.startswith("VmRSS:"):
                    return int(row.split()[1])
    except OSError:
        pass
    return None


class Run:
    """One sidecar process fed input lines [first, end) of the reports file (1-based)."""

    def __init__(self, args, work, first):
        self.first = first
        self.answers = 0
        self.failures = []
        self.samples = []
        command = [ROTATE, "serve", "--stdio", "--places", f"{work}/places.csv",
                   "--state", f"{work}/load.db", "--durability", args.durability]
        self.feeder = subprocess.Popen(["tail", "-n", f"+{first}", f"{work}/reports.ndjson"], stdout=subprocess.PIPE)
        self.process = subprocess.Popen(command, stdin=self.feeder.stdout, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.feeder.stdout.close()
        self.started = time.monotonic()
        self.reader = threading.Thread(target=self.read, args=(f"{work}/reports.ndjson",))
        self.reader.start()
        self.log = b""
        self.logger = threading.Thread(target=self.read_log)
        self.logger.start()

    def read_log(self):
        self.log = self.process.stderr.read()

    def read(self, path):
        """Checks each answer against its input line as it arrives."""
        with open(path, "rb") as inputs:
            for _ in range(self.first - 1):
                inputs.readline()
            pending = b""
            while True:
                chunk = self.process.stdout.read(1 << 20)
                if not chunk:
                    break
                lines = (pending + chunk).split(b"\n")
                pending = lines.pop()
                for answer in lines:
                    self.answers += 1
                    match = LINE.match(answer)
                    given = inputs.readline()
                    if not match or int(match.group(1)) != self.answers:
                        self.failures.append(f"answer {self.answers} is out of order: {answer[:80]!r}")
                        return
                    bad = not given.startswith(b'{"device":"d')
                    if bad != (b'"error":' in answer[:40]):
                        self.failures.append(f"input line {self.first + self.answers - 1} {given[:60]!r} got {answer[:120]!r}")
                        return

    def sample(self):
        kb = rss_kb(self.process.pid)
        if kb is not None:
            self.samples.append((time.monotonic() - self.started, kb, self.answers))

    def wait(self, kill_after=None):
        while self.process.poll() is None:
            time.sleep(1)
            self.sample()
            if kill_after is not None and time.monotonic() - self.started >= kill_after:
                self.process.send_signal(signal.SIGKILL)
                self.process.wait()
                break
        self.seconds = time.monotonic() - self.started
        self.reader.join()
        self.logger.join()
        self.feeder.kill()
        self.feeder.wait()
        return self.process.returncode


def committed(work):
    probe = subprocess.run([ROTATE, "serve", "--stdio", "--places", f"{work}/places.csv", "--state", f"{work}/load.db"],
                           stdin=subprocess.DEVNULL, capture_output=True, text=True)
    lines = re.search(r"(\d+) input lines committed", probe.stderr)
    if probe.returncode != 0 or not lines:
        sys.exit(f"load.py: the restart did not start: {probe.stderr}")
    devices = re.search(r"(\d+) devices restored", probe.stderr)
    return int(devices.group(1)) if devices else 0, int(lines.group(1))


def report(name, run):
    print(f"\n{name}: {run.answers:,} answers in {run.seconds:.1f} s ({run.answers / max(run.seconds, 1e-9):,.0f} lines/s), "
          f"exit {run.process.returncode}")
    print("  seconds  RSS MB   answers")
    step = max(1, len(run.samples) // 12)
    for t, kb, answers in run.samples[::step] + run.samples[-1:]:
        print(f"  {t:7.0f}  {kb / 1024:6.0f}  {answers:9,}")
    if run.samples:
        print(f"  peak RSS {max(kb for _, kb, _ in run.samples) / 1024:.0f} MB")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--devices", type=int, default=1_000_000)
    parser.add_argument("--reports", type=int, default=10, help="reports per device")
    parser.add_argument("--bad-lines", type=float, default=0.01)
    parser.add_argument("--kill-after", type=float, default=60)
    parser.add_argument("--durability", choices=["always", "batch"], default="always")
    parser.add_argument("--keep", action="store_true", help="keep the generated files of an earlier run")
    args = parser.parse_args()
    if not os.access(ROTATE, os.X_OK):
        sys.exit(f"load.py: no rotate binary at {ROTATE} (swift build -c release first, or set ROTATE)")
    work = os.path.join(ROOT, "Benchmarks", ".peers", f"load-{args.devices}")
    os.makedirs(work, exist_ok=True)
    for suffix in ["", "-wal", "-shm"]:
        if os.path.exists(f"{work}/load.db{suffix}"):
            os.remove(f"{work}/load.db{suffix}")
    if not (args.keep and os.path.exists(f"{work}/reports.ndjson")):
        subprocess.run([ROTATE, "generate", "--count", "100000", "--side-km", "400", "--distribution", "clustered",
                        "--seed", "29", "--places-out", f"{work}/places.csv", "--reports-out", f"{work}/reports.ndjson",
                        "--devices", str(args.devices), "--reports-per-device", str(args.reports),
                        "--bad-lines", str(args.bad_lines)], check=True)
    total = sum(1 for _ in open(f"{work}/reports.ndjson", "rb"))
    print(f"{total:,} input lines; --durability {args.durability}; SIGKILL after {args.kill_after:.0f} s")

    first = Run(args, work, 1)
    first.wait(kill_after=args.kill_after)
    report("until the kill", first)
    failures = list(first.failures)
    devices, done = committed(work)
    print(f"\nrestart: {devices:,} devices restored, {done:,} input lines committed; {first.answers:,} answered before the kill")
    if args.durability == "always" and done < first.answers:
        failures.append(f"{first.answers - done:,} answered lines were not committed")
    else:
        print(f"  answered but not committed: 0; committed but not answered (the crash window): {max(0, done - first.answers):,}")

    second = Run(args, work, done + 1)
    code = second.wait()
    report("after the restart", second)
    failures += second.failures
    if code != 0:
        failures.append(f"the restarted sidecar exited {code}: {second.log.decode()[-300:]}")
    if second.answers != total - done:
        failures.append(f"the restarted sidecar answered {second.answers:,} of {total - done:,} lines")
    if failures:
        print("\nFAILED:\n  " + "\n  ".join(failures))
        sys.exit(1)
    print(f"\nall {total:,} lines answered in order; no answered line lost")


if __name__ == "__main__":
    main()
