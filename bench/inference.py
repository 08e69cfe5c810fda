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
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

FLOOR = """
import sys
from pathlib import Path
lines = 0
for path in sorted(Path(sys.argv[1]).rglob("*")):
    if path.is_file():
        lines += len(path.read_bytes().splitlines())
print(lines)
"""


def child(command: list[str]) -> tuple[float, float, str]:
    """Wall seconds, peak RSS in MB (GNU time's %M of that process alone) and stdout of one child."""
    with tempfile.NamedTemporaryFile("r") as rss:
        start = time.perf_counter()
        done = subprocess.run(
            ["/usr/bin/time", "-f", "%M", "-o", rss.name, *command], cwd=REPO, capture_output=True, text=True
        )
        wall = time.perf_counter() - start
        peak_kb = int(rss.read().split()[-1])
    if done.returncode not in (0, 1):
        sys.exit(f"{command} failed: {done.stderr[-2000:]}")
    return wall, peak_kb / 1024, done.stdout


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
    floors, checks = [], []
    for _ in range(args.repeat):
        floors.append(child(floor_command))
        checks.append(child(check_command))
    floor_wall = min(wall for wall, _, _ in floors)
    check_wall = min(wall for wall, _, _ in checks)
    floor_rss = max(rss for _, rss, _ in floors)
    check_rss = max(rss for _, rss, _ in checks)
    results = len(json.loads(checks[-1][2])["results"])
    print(f"round {root}: {len(files)} files, {megabytes:.1f} MB, {results} results")
    print(
        f"floor (read + split lines): {floor_wall:.2f} s, {megabytes / floor_wall:.1f} MB/s, peak RSS {floor_rss:.0f} MB"
    )
    print(
        f"mlperf-check --json:        {check_wall:.2f} s, {megabytes / check_wall:.1f} MB/s, "
        f"{results / check_wall:.0f} results/s, peak RSS {check_rss:.0f} MB"
    )
    print(f"ratio to the floor: {check_wall / floor_wall:.2f}x (target <= 3x); RSS target < 200 MB")


if __name__ == "__main__":
    main()
