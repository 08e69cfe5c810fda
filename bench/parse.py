#!/usr/bin/env python
"""In-process cost per log event: our parser and rule engine against the official ones.

    .venv/bin/python bench/parse.py [--round ../shared/corpus/v1.0] [--ruleset 1.0.0]

Parses every result_*.txt of the round with mlperf_check.parsing.iter_records and with the official
mlp_parser.parse_file, then runs the compliance rules (our RuleSession against the official
mlp_compliance checker) on each file; prints MB/s and microseconds per event for each.
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # the project, ahead of bench/ (whose ingest.py would shadow the package)

from mlperf_check.parsing import iter_records  # noqa: E402
from mlperf_check.rules.configs import get_official_rules  # noqa: E402
from mlperf_check.rules.engine import RuleSession  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--round", default=str(REPO.parent / "shared/corpus/v1.0"))
    parser.add_argument("--ruleset", default="1.0.0")
    args = parser.parse_args()
    files = sorted(Path(args.round).rglob("result_*.txt"))
    megabytes = sum(f.stat().st_size for f in files) / 1e6

    start = time.perf_counter()
    records = {}
    for path in files:
        with path.open("rb") as stream:
            records[path] = list(iter_records(stream, file=path.name, findings=[]))
    ours_parse = time.perf_counter() - start
    events = sum(len(r) for r in records.values())

    rules = get_official_rules(args.ruleset)
    start = time.perf_counter()
    for path, file_records in records.items():
        session = RuleSession(rules, file=path.name, reopen=None)
        for record in file_records:
            session.feed(record)
        session.finish()
    ours_rules = time.perf_counter() - start

    from mlperf_logging.compliance_checker import mlp_compliance, mlp_parser

    logging.disable(logging.CRITICAL)
    start = time.perf_counter()
    for path in files:
        mlp_parser.parse_file(str(path), args.ruleset)
    official_parse = time.perf_counter() - start
    start = time.perf_counter()
    for path in files:
        checker = mlp_compliance.make_checker("training", args.ruleset, False, False)
        checker.check_file(str(path), f"training_{args.ruleset}/common.yaml")
    official_total = time.perf_counter() - start

    print(f"{len(files)} result files, {megabytes:.1f} MB, {events} events")
    for name, seconds in [
        ("ours: parse", ours_parse),
        ("ours: rules (records already parsed)", ours_rules),
        ("ours: parse + rules", ours_parse + ours_rules),
        ("official: parse_file", official_parse),
        ("official: check_file (parse + rules)", official_total),
    ]:
        print(f"{name:40} {seconds:7.2f} s {megabytes / seconds:8.1f} MB/s {seconds / events * 1e6:7.1f} µs/event")
    print(f"ratio official / ours, parse + rules: {official_total / (ours_parse + ours_rules):.1f}x")


if __name__ == "__main__":
    main()
