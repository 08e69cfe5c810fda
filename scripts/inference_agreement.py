"""Agreement of our two inference verdicts with a published round, and with the official checker.

    PYTHONPATH=. .venv/bin/python scripts/inference_agreement.py ROUND_FOLDER VERSION [OFFICIAL_CSV]

ROUND_FOLDER holds <division>/<submitter>/{results,systems,measurements,compliance}; every result a
round published passed its checker, so the official verdict should be VALID throughout. With
OFFICIAL_CSV (the --csv of that round's tools/submission/submission-checker.py run on the same
folder: one row per accepted result, its `Location` and `Result`), each result's official verdict
and figure are compared with the checker's own.
"""

from __future__ import annotations

import csv
import sys
from collections import Counter

from mlperf_check.inference import check_inference_package


def main(root: str, version: str, official_csv: str | None = None) -> None:
    report = check_inference_package(root, round_version=version)
    results = report.results
    total = len(results)
    official = sum(1 for r in results if r.official)
    ours = sum(1 for r in results if r.valid)
    print(f"{version}: {total} results; official VALID {official} ({100 * official / total:.1f} %), "
          f"ours VALID {ours} ({100 * ours / total:.1f} %)")
    print("  ours INVALID only by a stricter rule:", dict(Counter(c for r in results for c in r.stricter)))
    for r in results:
        if not r.official:
            codes = sorted({f.code for f in r.all_findings() if f.severity == "error"} - set(r.stricter))
            print(f"  official INVALID: {r.folder} {codes}")
    if official_csv:
        compare(results, official_csv)


def compare(results, official_csv: str) -> None:
    with open(official_csv, newline="") as handle:
        # A power result has a second row (Units Watts or Joules) after its performance row.
        accepted = {}
        for row in csv.DictReader(handle):
            accepted.setdefault(row["Location"], row)
    same_verdict = sum(1 for r in results if r.official == (r.folder in accepted))
    figures = [(r, float(accepted[r.folder]["Result"])) for r in results if r.folder in accepted]
    same_figure = [r for r, figure in figures if r.metric_value is not None
                   and abs(r.metric_value - figure) <= 1e-6 * max(abs(figure), 1e-9)]
    print(f"  against the official checker's CSV: verdict {same_verdict}/{len(results)}, "
          f"figure {len(same_figure)}/{len(figures)} (relative 1e-6)")
    for r in results:
        if r.official != (r.folder in accepted):
            print(f"  verdict differs: {r.folder} official checker {'VALID' if r.folder in accepted else 'INVALID'}")
    for r, figure in figures:
        if r not in same_figure:
            print(f"  figure differs: {r.folder} ours {r.metric_value} official {figure}")


if __name__ == "__main__":
    main(*sys.argv[1:])
