"""One `rotate simulate --kind errands --json` run, for the scripts that tabulate them
(Benchmarks/stop_tables.py, Benchmarks/pareto.py)."""
import json
import subprocess
import sys


def simulate(rotate, platform, set_name, travel, walks, seed, extra):
    """Every JSON line of the run (with `--compare`, the run's summary and then one line per
    design; alone, rotate's one line). Exits with the command's error unless it exited 0 or 1
    (1: a check failed, which these tables report rather than stop at)."""
    command = [rotate, "simulate", "--kind", "errands", "--travel", travel, "--set", set_name, "--walks", walks,
               "--seed", seed, "--platform", platform, "--json", "--quiet"] + extra
    out = subprocess.run(command, capture_output=True, text=True)
    if out.returncode not in (0, 1):
        sys.exit(f"{' '.join(command)}: exit {out.returncode}: {out.stderr}")
    print(f"{platform} {travel} {set_name} {' '.join(extra)}", file=sys.stderr)
    return [json.loads(line) for line in out.stdout.splitlines()]
