#!/usr/bin/env python
"""Where the fixed time of `mlperf-check` goes: the costs paid once per process, per round or
per log, whatever the number of events.

    .venv/bin/python bench/startup.py [--ruleset 1.0.0] [--repeat 7] [--log <a small result file>]

Each step runs in a fresh interpreter (the caches it fills are per process) after the steps before
it, untimed; its CPU time (time.process_time) is taken in that process, the best of --repeat.
"interpreter" is the CPU time of a whole `python -c pass` (wait4). Steps:

* import mlperf_check.cli: everything a training check imports before it reads a file;
* get_ruleset: the ruleset's benchmarks and quality targets (it compiles the closed configs);
* configs every log starts with (common.yaml, closed_common, open_common) and the run checkers:
  what pipeline._load_before_fork loads before --jobs forks;
* RCP tables: every benchmark's table of the ruleset (read from rules/stored_data; a bisection per
  RCP record only for an RCP file whose bytes differ from the stored ones);
* forks: map_in_forks over two items with --jobs 2, i.e. one child forked, its result sent back
  through a pipe and collected (the parent's CPU only);
* one log: analyze_run on --log, repeated in one process (the configs already compiled), per log
  and per event, against the same log's parse alone.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_LOG = REPO / "sample_data/training-v1.0/Fujitsu/results/gx_A100x4_mxnet_NGC_21.04/ssd/result_1.txt"

SETUP = {
    "import": "",
    "ruleset": "import mlperf_check.cli\nfrom mlperf_check.rules.catalog import get_ruleset",
    "preload": "import mlperf_check.cli\nfrom mlperf_check.rules.catalog import get_ruleset\n"
    "from mlperf_check.pipeline import _load_before_fork\nspec = get_ruleset(RULESET)",
    "rcp": "import mlperf_check.cli\nfrom mlperf_check.rules.catalog import get_ruleset\n"
    "from mlperf_check.rules.rcp import load_rcp_table\nspec = get_ruleset(RULESET)",
    "pool": "import mlperf_check.cli\nfrom mlperf_check.forks import map_in_forks",
}
STEP = {
    "import": "import mlperf_check.cli",
    "ruleset": "get_ruleset(RULESET)",
    "preload": "_load_before_fork(spec)",
    "rcp": "for name, bench in spec.benchmarks.items():\n"
    "    load_rcp_table(spec.rcp_dir, name, bench.required_runs, 1) if spec.rcp_dir else None",
    "pool": "map_in_forks(abs, [1, 2], [1, 1], jobs=2)",
}
LABELS = {
    "import": "import mlperf_check.cli",
    "ruleset": "get_ruleset (closed configs, quality targets)",
    "preload": "configs every log starts with + run checkers",
    "rcp": "RCP tables of every benchmark",
    "pool": "--jobs 2: one fork, its result through a pipe",
}


def step_seconds(name: str, ruleset: str) -> float:
    code = textwrap.dedent(
        f"""
        import sys, time
        sys.path.insert(0, {str(REPO)!r})
        RULESET = {ruleset!r}
        """
    )
    code += SETUP[name] + "\nstart = time.process_time()\n" + STEP[name]
    code += "\nprint(time.process_time() - start)\n"
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, check=True, capture_output=True, text=True).stdout
    return float(out.split()[-1])


def interpreter_seconds() -> float:
    pid = os.spawnv(os.P_NOWAIT, sys.executable, [sys.executable, "-c", "pass"])
    _, _, usage = os.wait4(pid, 0)
    return usage.ru_utime + usage.ru_stime


def per_log(log: Path, ruleset: str, repeat: int) -> tuple[float, float, int]:
    """(CPU seconds of analyze_run per log, of the parse alone per log, events) on `log`."""
    code = textwrap.dedent(
        f"""
        import io, sys, time
        from pathlib import Path
        sys.path.insert(0, {str(REPO)!r})
        from mlperf_check.checkers.base import RunContext
        from mlperf_check.parsing import ParseStats, iter_record_blocks
        from mlperf_check.rules.catalog import get_ruleset
        from mlperf_check.runlog import analyze_run
        data = Path({str(log)!r}).read_bytes()
        spec = get_ruleset({ruleset!r})
        benchmark = Path({str(log)!r}).parent.name
        def check():
            context = RunContext(file="log", ruleset=spec, system_id="", benchmark=benchmark, system=None,
                                 submitter="", division="closed")
            return analyze_run(lambda: io.BytesIO(data), context)
        def parse():
            for _ in iter_record_blocks(io.BytesIO(data), file="log", findings=[]):
                pass
        run = check()
        best = []
        for function in (check, parse):
            times = []
            for _ in range({repeat}):
                start = time.process_time()
                for _ in range(50):
                    function()
                times.append((time.process_time() - start) / 50)
            best.append(min(times))
        print(best[0], best[1], run.event_count)
        """
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, check=True, capture_output=True, text=True).stdout
    check, parse, events = out.split()
    return float(check), float(parse), int(events)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ruleset", default="1.0.0")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--log", default=str(DEFAULT_LOG), help="a small result file of the ruleset's round")
    args = parser.parse_args()
    print(f"ruleset {args.ruleset}; CPU ms, best of {args.repeat} fresh processes (load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())})")
    print(f"{'interpreter start-up and exit (python -c pass)':50} {1000 * min(interpreter_seconds() for _ in range(args.repeat)):7.1f}")
    for name in STEP:
        try:
            seconds = min(step_seconds(name, args.ruleset) for _ in range(args.repeat))
        except subprocess.CalledProcessError:  # a checkout without that step (an older commit)
            print(f"{LABELS[name]:50}     n/a")
            continue
        print(f"{LABELS[name]:50} {1000 * seconds:7.1f}")
    check, parse, events = per_log(Path(args.log), args.ruleset, args.repeat)
    print(
        f"{'one log: analyze_run (' + str(events) + ' events)':50} {1000 * check:7.2f}  "
        f"(parse alone {1000 * parse:.2f}; {1e6 * check / events:.1f} µs per event)"
    )


if __name__ == "__main__":
    main()
