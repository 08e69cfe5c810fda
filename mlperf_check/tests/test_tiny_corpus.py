"""The MLPerf Tiny v1.3 corpus (../shared/corpus/tiny): every official verdict and figure of the
round's checker reproduced by `mlperf-check <round> --format json`, its --csv summary by
`--format summary-csv`, and generate_final_report.py's closed sheet by `--format final-report-csv`
(reference/ of the corpus: the MANIFEST says how each was made). Skipped where the corpus is absent."""

from __future__ import annotations

import csv
import io
import json
import os
from pathlib import Path

import pytest

from mlperf_check import cli

CORPUS = Path(os.environ.get("MLPERF_CORPUS", Path(__file__).resolve().parents[3] / "shared" / "corpus")) / "tiny"
ROUND = CORPUS / "v1.3"
REFERENCE = CORPUS / "reference"

pytestmark = pytest.mark.skipif(not ROUND.is_dir(), reason=f"the Tiny corpus is absent ({ROUND})")


def run(*arguments: str) -> str:
    out, err = io.StringIO(), io.StringIO()
    status = cli.run(str(ROUND), ruleset=None, output_format=arguments[0],
                     stdout=out, stderr=err)
    assert status == 0, err.getvalue()
    return out.getvalue()


def reference_rows() -> list[dict[str, str]]:
    with (REFERENCE / "official_verdicts_v1.3.csv").open(newline="") as handle:
        return list(csv.DictReader(handle))


def test_every_official_verdict_and_figure_is_reproduced():
    results = {r["folder"]: r for r in json.loads(run("json"))["results"]}
    rows = reference_rows()
    assert len(rows) == len(results) == 18
    for row in rows:
        ours = results[f"{row['division']}/{row['submitter']}/results/{row['system']}/{row['model']}"]
        assert ours["verdict"]["official"] == row["verdict"]
        assert ours["mlperf_model"] == row["mlperf_model"] and ours["scenario"] == row["scenario"]
        assert ours["metric"]["value"] == float(row["result"]) and ours["metric"]["unit"] == row["result_unit"]
        assert ours["accuracy"]["printed"] == row["accuracy"]
        if row["power_result"]:
            assert ours["energy"] == {"value": float(row["power_result"]), "unit": row["power_unit"]}
        else:
            assert ours["energy"] is None
        if row["scenario"]:
            streaming = ours["streaming"]
            assert (streaming["false_positives"], streaming["false_negatives"], streaming["duty_cycle"]) == (
                int(row["false_positives"]), int(row["false_negatives"]), float(row["duty_cycle"]))
        assert ours["runner"] == row["runner"] and ours["availability"] == row["availability"]
        assert ours["official_results_line"] == row["checker_results_line"]
        # Ours agrees: no stricter rule of ours rejects a result of the round.
        assert ours["verdict"]["ours"] == "VALID", ours["findings"]


def test_the_checkers_csv_is_reproduced():
    ours = run("summary-csv").splitlines()
    official = (REFERENCE / "official_summary_v1.3.csv").read_text().splitlines()
    assert ours[0] == official[0] and sorted(ours[1:]) == sorted(official[1:])


def test_the_final_report_is_reproduced():
    assert run("final-report-csv") == (REFERENCE / "official_final_report_v1.3_closed.csv").read_text()
