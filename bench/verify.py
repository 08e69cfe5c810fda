#!/usr/bin/env python
"""Sandbox overhead: the tiny_mlp fixture benchmark bare against the same run in the sandbox.

    .venv/bin/python bench/verify.py [--runs 15] [--sandbox bubblewrap]

Each round runs the benchmark's run script once bare (`sh run_and_time.sh` with this Python on the
PATH) and once in the sandbox the verification worker uses (same seed, same code, same limits as a
default job), alternating so that machine noise hits both alike. Prints, per side, the
whole-process wall time and time to train (parsed from the log with the checker package), minimum
and median, and the overhead ratios (sandbox / bare - 1). Target: under 5 % (on the minimum).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from verify.reproduce import parse_rerun  # noqa: E402
from verify.sandbox import SANDBOX_ENV, Limits, RunSpec, make_sandbox  # noqa: E402

CODE = REPO / "verify" / "fixtures" / "tiny_benchmark" / "benchmarks" / "tiny_mlp" / "implementations" / "numpy"
SPEC = dict(ruleset="6.1.0", system_id="cpu_box", benchmark="tiny_mlp", organization="alpha",
            division="closed", quality_target=0.95, direction="higher")


def bare(seed: int, log: Path) -> float:
    env = {"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "SEED": str(seed), "LANG": "C.UTF-8"}
    started = time.perf_counter()
    with log.open("wb") as out:
        subprocess.run(["/bin/sh", str(CODE / "run_and_time.sh")], env=env, stdout=out, stderr=subprocess.STDOUT,
                       check=True)
    return time.perf_counter() - started


def sandboxed(sandbox, work: Path, seed: int, log: Path) -> float:
    data = work / "data"
    data.mkdir(exist_ok=True)
    output = bytearray()
    started = time.perf_counter()
    outcome = sandbox.run(
        RunSpec(code_dir=CODE, data_dir=data, command=["/bin/sh", "/code/run_and_time.sh"], env={**SANDBOX_ENV, "SEED": str(seed)},
                limits=Limits(wall_seconds=120)),
        output.extend,
    )
    wall = time.perf_counter() - started
    assert outcome.succeeded, (outcome, output[-2000:].decode())
    log.write_bytes(bytes(output))
    return wall


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--sandbox", default="bubblewrap")
    args = parser.parse_args()
    sandbox = make_sandbox(args.sandbox)
    work = Path(tempfile.mkdtemp(prefix="bench-verify-"))
    os.chmod(work, 0o755)
    sides = {"bare": {"wall": [], "ttt": []}, "sandbox": {"wall": [], "ttt": []}}
    try:
        bare(0, work / "warm-up.txt")  # page cache and bytecode warm for both sides
        for index in range(args.runs):
            seed = 1000 + index
            order = ("bare", "sandbox") if index % 2 == 0 else ("sandbox", "bare")
            for side in order:
                log = work / f"{side}-{seed}.txt"
                wall = bare(seed, log) if side == "bare" else sandboxed(sandbox, work, seed, log)
                run = parse_rerun(log, SPEC, index, seed)
                assert run.reached_target, f"{side} run {seed} did not reach the target"
                sides[side]["wall"].append(wall)
                sides[side]["ttt"].append(run.minutes * 60)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    # The minimum is the run least disturbed by other work on the machine (the overhead is a
    # fixed cost, noise only adds); the median is printed beside it.
    stats = {side: {what: (min(values), statistics.median(values)) for what, values in measures.items()}
             for side, measures in sides.items()}
    print(f"tiny_mlp, {args.runs} runs per side, alternating, {args.sandbox} sandbox, {os.cpu_count()} CPUs, "
          f"load average {os.getloadavg()[0]:.1f}")
    print(f"{'':10} {'wall min / median (s)':>24} {'time to train min / median (s)':>32}")
    for side in ("bare", "sandbox"):
        wall, ttt = stats[side]["wall"], stats[side]["ttt"]
        print(f"{side:10} {wall[0]:12.3f} / {wall[1]:7.3f} {ttt[0]:20.3f} / {ttt[1]:7.3f}")
    ratios = {what: [stats["sandbox"][what][i] / stats["bare"][what][i] - 1 for i in (0, 1)] for what in ("wall", "ttt")}
    print(f"overhead (sandbox / bare - 1), min / median: whole process {ratios['wall'][0]:+.1%} / {ratios['wall'][1]:+.1%}, "
          f"time to train {ratios['ttt'][0]:+.1%} / {ratios['ttt'][1]:+.1%} (target < 5 %)")
    wall_ratio = ratios["wall"][0]
    return 0 if wall_ratio < 0.05 else 1


if __name__ == "__main__":
    sys.exit(main())
