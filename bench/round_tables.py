#!/usr/bin/env python
"""Whole-round tables, timed in-process against the configured database: what a round's snapshot
and its largest downloads are built from (a training or HPC round's runs table, an inference
round's summary_results, a round's official-style summary), with an MD5 of each as CSV so two
versions of the code can be shown to give the same table.

    DATABASE_URL=postgres://.../mlperf_scale .venv/bin/python bench/round_tables.py \
        [--code DIR] training-v0.7 inference-v4.1 ...

--code DIR runs the code of another checkout (e.g. `git worktree add --detach DIR <commit>`, the
code before a change) with this script. Prints, per round and table, its rows, seconds and MD5.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import time
from pathlib import Path

parser = argparse.ArgumentParser()
parser.add_argument("--code", type=Path, default=Path(__file__).resolve().parent.parent)
parser.add_argument("rounds", nargs="+", help="round slugs: training-v0.7, inference-v4.1, ...")
args = parser.parse_args()
sys.path.insert(0, str(args.code.resolve()))
os.chdir(args.code)
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("DJANGO_ENV", "development")

import django  # noqa: E402

django.setup()

from pages import suites  # noqa: E402
from pages.csv_rows import rows_to_csv  # noqa: E402
from results.models import Round  # noqa: E402


def tables_of(round_: Round) -> dict:
    """The round's suite's own snapshot tables, each (columns, rows), built when called."""
    suite = suites.of_round(round_)
    if round_.suite == "inference":
        return {"summary_results": lambda: suite.summary_results(None, round_)}
    from pages.suites.time_to_train.snapshot import runs_table

    return {"summary": lambda: suite.summary_rows(round_, user=None), "runs": lambda: runs_table(round_)}


for slug in args.rounds:
    suite_name, version = slug.split("-v")
    round_ = Round.objects.get(suite=suite_name, version=version)
    for name, build in tables_of(round_).items():
        started = time.perf_counter()
        columns, rows = build()
        seconds = time.perf_counter() - started
        digest = hashlib.md5(rows_to_csv(columns, rows).encode()).hexdigest()
        print(f"{slug} {name}: {len(rows):,} rows in {seconds:.2f} s, CSV md5 {digest}")
