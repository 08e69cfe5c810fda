#!/usr/bin/env python
"""In-process cost per log event: our parser and rule engine against the official ones.

    .venv/bin/python bench/parse.py [--round ../shared/corpus/v1.0] [--ruleset 1.0.0] [--repeat 5]
                                    [--no-official]

Reads every result_*.txt of the round into memory first (no disk in the figures), then, per file:

* floor: split into lines and orjson-decode the JSON of every ':::MLLOG ' line, nothing else;
* ours, parse: mlperf_check.parsing.iter_record_blocks over the bytes, the lists of records
  (one per block read) discarded;
* ours, parse + rules: the same blocks fed to a RuleSession of the official rules (as
  mlperf_check.runlog does); rules = (parse + rules) - parse. Both run each log with the cyclic
  garbage collector paused, as analyze_run does (runlog.collector_paused);
* official: mlp_parser.parse_file, then mlp_compliance's check_file (parse + rules), once.

With `--lists`, ours are measured as the first version of this script did: every file parsed into
a list first, then the rules run over the lists (parse and rules timed apart).

Ours are timed `--repeat` times and the best is kept. Times are CPU seconds of this process
(time.process_time), so that other work on a shared machine does not count; the floor is measured
in the same run, and the ratio to it is the figure to compare across machines.
"""

from __future__ import annotations

import argparse
import io
import logging
import sys
import time
from pathlib import Path

import orjson

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # the project, ahead of bench/ (whose ingest.py would shadow the package)

from mlperf_check.parsing import ParseStats, iter_record_blocks, iter_records  # noqa: E402
from mlperf_check.rules.configs import get_official_rules  # noqa: E402
from mlperf_check.rules.engine import RuleSession  # noqa: E402
from mlperf_check.runlog import collector_paused  # noqa: E402


def floor(logs: dict[Path, bytes]) -> None:
    for data in logs.values():
        for line in data.split(b"\n"):
            at = line.find(b":::MLLOG ")
            if at >= 0:
                orjson.loads(line[at + 9 :])


def parse_only(logs: dict[Path, bytes]) -> None:
    for path, data in logs.items():
        with collector_paused():
            for _ in iter_record_blocks(io.BytesIO(data), file=path.name, findings=[]):
                pass


def parse_and_rules(logs: dict[Path, bytes], ruleset: str) -> None:
    rules = get_official_rules(ruleset)
    for path, data in logs.items():
        with collector_paused():  # as analyze_run does per log
            stats = ParseStats()
            session = RuleSession(rules, file=path.name, reopen=None, stats=stats)
            for records in iter_record_blocks(io.BytesIO(data), file=path.name, findings=[], stats=stats):
                session.feed_records(records)
            session.finish()


def rules_over_lists(records: dict[Path, list], ruleset: str) -> None:
    rules = get_official_rules(ruleset)
    for path, file_records in records.items():
        session = RuleSession(rules, file=path.name, reopen=None)
        session.feed_records(file_records)
        session.finish()


def parse_into_lists(logs: dict[Path, bytes]) -> dict[Path, list]:
    return {path: list(iter_records(io.BytesIO(data), file=path.name, findings=[])) for path, data in logs.items()}


def best_of(repeat: int, function, *args) -> float:
    times = []
    for _ in range(repeat):
        start = time.process_time()
        function(*args)
        times.append(time.process_time() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--round", default=str(REPO.parent / "shared/corpus/v1.0"))
    parser.add_argument("--ruleset", default="1.0.0")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--no-official", action="store_true", help="skip the official tools (slow)")
    parser.add_argument("--lists", action="store_true", help="parse into lists, then the rules (timed apart)")
    args = parser.parse_args()
    files = sorted(Path(args.round).rglob("result_*.txt"))
    logs = {path: path.read_bytes() for path in files}
    megabytes = sum(len(data) for data in logs.values()) / 1e6
    events = sum(1 for data in logs.values() for _ in iter_records(io.BytesIO(data), file="", findings=[]))
    parse_and_rules(logs, args.ruleset)  # warm: configs compiled, caches filled

    if args.lists:
        records = parse_into_lists(logs)
        figures = [
            ("floor: split lines + orjson.loads", best_of(args.repeat, floor, logs)),
            ("ours: parse into lists", best_of(args.repeat, parse_into_lists, logs)),
            ("ours: rules over the lists", best_of(args.repeat, rules_over_lists, records, args.ruleset)),
        ]
        figures.append(("ours: parse + rules", figures[1][1] + figures[2][1]))
    else:
        figures = [
            ("floor: split lines + orjson.loads", best_of(args.repeat, floor, logs)),
            ("ours: parse", best_of(args.repeat, parse_only, logs)),
            ("ours: parse + rules", best_of(args.repeat, parse_and_rules, logs, args.ruleset)),
        ]
        figures.insert(2, ("ours: rules (difference)", figures[2][1] - figures[1][1]))
    floor_s = figures[0][1]
    ours_total = figures[-1][1]

    if not args.no_official:
        from mlperf_logging.compliance_checker import mlp_compliance, mlp_parser

        logging.disable(logging.CRITICAL)
        start = time.process_time()
        for path in files:
            mlp_parser.parse_file(str(path), args.ruleset)
        figures.append(("official: parse_file", time.process_time() - start))
        start = time.process_time()
        for path in files:
            checker = mlp_compliance.make_checker("training", args.ruleset, False, False)
            checker.check_file(str(path), f"training_{args.ruleset}/common.yaml")
        figures.append(("official: check_file (parse + rules)", time.process_time() - start))

    print(f"{len(files)} result files, {megabytes:.1f} MB, {events} events; CPU time, best of {args.repeat}")
    for name, seconds in figures:
        print(
            f"{name:40} {seconds:7.2f} s {megabytes / seconds:8.1f} MB/s {seconds / events * 1e6:7.2f} µs/event "
            f"{seconds / floor_s:5.2f}x floor"
        )
    if not args.no_official:
        print(f"ratio official / ours, parse + rules: {figures[-1][1] / ours_total:.1f}x")


if __name__ == "__main__":
    main()
