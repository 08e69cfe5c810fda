#!/usr/bin/env python
"""`mlperf-check` on a whole inference round against the floor of reading it.

    .venv/bin/python bench/inference.py [--round ../shared/corpus/inference/v0.7] [--repeat 3]

Two child processes per repetition, each timed alone with its own peak RSS: the floor (read
every file under the round once, as bytes, and split it into lines) and `python -m mlperf_check
<round> --json` (discovery, parsing every run's summary and detail log, all inference checkers,
the JSON report). The best wall time of the repetitions counts; the page cache is warmed first.
Target: within 3x of the floor, peak RSS under 200 MB.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
# The children run as an installed tool does, from compiled bytecode: where the environment says
# not to write it (PYTHONDONTWRITEBYTECODE), every run would compile each module again, 0.1 s of a
# 0.5 s check. The bytecode goes to a folder of its own, never into the repository.
BYTECODE = tempfile.TemporaryDirectory(prefix="bench-inference-pycache-")
CHILD_ENV = {**{k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"},
             "PYTHONPYCACHEPREFIX": BYTECODE.name}

FLOOR = """
import sys
from pathlib import Path
lines = 0
for path in sorted(Path(sys.argv[1]).rglob("*")):
    if path.is_file():
        lines += len(path.read_bytes().splitlines())
print(lines)
"""


def child(command: list[str]) -> tuple[float, float, float, str]:
    """Wall seconds, peak RSS in MB, CPU seconds (user + system) and stdout of one child (GNU
    time's %M, %U and %S of that process alone; the CPU time moves less with the machine's load)."""
    with tempfile.NamedTemporaryFile("r") as rss:
        start = time.perf_counter()
        done = subprocess.run(
            ["/usr/bin/time", "-f", "%M %U %S", "-o", rss.name, *command], cwd=REPO, capture_output=True, text=True,
            env=CHILD_ENV,
        )
        wall = time.perf_counter() - start
        peak_kb, user, system = rss.read().split()[-3:]
    if done.returncode not in (0, 1):
        sys.exit(f"{command} failed: {done.stderr[-2000:]}")
    return wall, int(peak_kb) / 1024, float(user) + float(system), done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--round", default=str(REPO.parent / "shared/corpus/inference/v0.7"))
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    root = Path(args.round)
    files = [p for p in root.rglob("*") if p.is_file()]
    megabytes = sum(p.stat().st_size for p in files) / 1e6
    floor_command = [sys.executable, "-c", FLOOR, str(root)]
    check_command = [sys.executable, "-m", "mlperf_check", str(root), "--json"]
    child(floor_command)  # warm the page cache
    child(check_command)  # and compile the checker's bytecode
    floors, checks = [], []
    for _ in range(args.repeat):
        floors.append(child(floor_command))
        checks.append(child(check_command))
    floor_wall = min(wall for wall, _, _, _ in floors)
    check_wall = min(wall for wall, _, _, _ in checks)
    floor_rss = max(rss for _, rss, _, _ in floors)
    check_rss = max(rss for _, rss, _, _ in checks)
    floor_cpu = min(cpu for _, _, cpu, _ in floors)
    check_cpu = min(cpu for _, _, cpu, _ in checks)
    results = len(json.loads(checks[-1][3])["results"])
    print(f"round {root}: {len(files)} files, {megabytes:.1f} MB, {results} results")
    print(
        f"floor (read + split lines): {floor_wall:.2f} s, {megabytes / floor_wall:.1f} MB/s, peak RSS {floor_rss:.0f} MB"
    )
    print(
        f"mlperf-check --json:        {check_wall:.2f} s, {megabytes / check_wall:.1f} MB/s, "
        f"{results / check_wall:.0f} results/s, peak RSS {check_rss:.0f} MB"
    )
    print(f"ratio to the floor: {check_wall / floor_wall:.2f}x (target <= 3x); RSS target < 200 MB")
    print(f"CPU (user + system), best: floor {floor_cpu:.2f} s, check {check_cpu:.2f} s, "
          f"ratio {check_cpu / floor_cpu:.2f}x")


if __name__ == "__main__":
    main()
