#!/usr/bin/env python
"""A round's snapshot tables (each suite's `snapshot_tables`: a training round's official-style
summary and runs, an inference round's summary_results, ...), built in-process against the
configured database and timed, with an MD5 of each as CSV so two versions of the code can be shown
to give the same tables.

    DATABASE_URL=postgres://.../mlperf_scale .venv/bin/python bench/round_tables.py \
        [--code DIR] training-v0.7 inference-v4.1 ...

--code DIR runs the code of another checkout (e.g. `git worktree add --detach DIR <commit>`, the
code before a change) with this script. Prints, per round, the seconds its tables took, and each table's rows and MD5.
"""

from __future__ import annotations

import argparse
import hashlib
import time
from pathlib import Path

from web import REPO, setup_django  # bench/web.py

parser = argparse.ArgumentParser()
parser.add_argument("--code", type=Path, default=REPO)
parser.add_argument("rounds", nargs="+", help="round slugs: training-v0.7, inference-v4.1, ...")
args = parser.parse_args()
setup_django(args.code)

from pages import suites  # noqa: E402
from pages.csv_rows import rows_to_csv  # noqa: E402
from results.models import Round  # noqa: E402

for slug in args.rounds:
    suite_name, version = slug.split("-v")
    round_ = Round.objects.get(suite=suite_name, version=version)
    started = time.perf_counter()
    tables = suites.of_round(round_).snapshot_tables(round_)  # the suite interface: pages/suites/__init__.py
    seconds = time.perf_counter() - started
    print(f"{slug}: its snapshot tables in {seconds:.2f} s")
    for name, (columns, rows) in tables.items():
        digest = hashlib.md5(rows_to_csv(columns, rows).encode()).hexdigest()
        print(f"  {name}: {len(rows):,} rows, CSV md5 {digest}")
