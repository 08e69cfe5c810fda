"""Our scores against the official summarizer's, over the whole corpus (../shared/corpus).

`reference/` holds two outputs per round: the contemporary tool (what was published; v1.0 rounded
to 2 decimals) and mlperf-logging 4.1.68 (full precision). Every cell either tool scored must be
reproduced (relative 1e-9 against full precision, 2 decimals against the rounded output), or be
listed in EXPECTED_DIFFERENCES with the finding that explains it (docs/differences.md says why).
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from mlperf_check.pipeline import check_package

pytestmark = pytest.mark.corpus

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus"
ROUNDS = {"v0.7": "0.7.0", "v1.0": "1.0.0"}
V07_CONTEMPORARY_BENCHMARKS = ["bert", "dlrm", "gnmt", "maskrcnn", "minigo", "resnet", "ssd", "transformer"]

# (round, system id, benchmark) -> (our score or None, the finding code that explains it).
# Empty: every published score is reproduced.
EXPECTED_DIFFERENCES: dict[tuple[str, str, str], tuple[float | None, str]] = {}


@pytest.fixture(scope="module")
def our_scores(request) -> dict[tuple[str, str, str], object]:
    if not CORPUS.is_dir():
        pytest.skip(f"the MLPerf corpus is not at {CORPUS}; corpus-wide tests need ../shared/corpus")
    scores = {}
    for round_name, ruleset in ROUNDS.items():
        for submitter in sorted((CORPUS / round_name).iterdir()):
            if not submitter.is_dir():
                continue
            report = check_package(submitter, ruleset=ruleset)
            systems = {system.system_id: system.normalized for system in report.systems}
            for result in report.results:
                scores[(round_name, result.system_id, result.benchmark)] = result
                # The contemporary tools named systems by system_name and framework, not file name.
                system = systems.get(result.system_id, {})
                # v1.0's also printed the division (Graphcore shows one name and framework in both).
                name = (system.get("name"), system.get("framework"))
                scores[(round_name, name, result.benchmark)] = result
                scores[(round_name, (*name, result.division), result.benchmark)] = result
    return scores


def system_id_of(details_url: str) -> str:
    return details_url.rstrip(",").rsplit("/", 1)[1].removesuffix(".json")


def full_precision_cells(corpus: Path, round_name: str):
    path = corpus / "reference" / f"{round_name}_summary_mlperf_logging_4.1.68.csv"
    rows = list(csv.DictReader(path.open()))
    for row in rows:
        for column in ("bert", "dlrm", "gnmt", "maskrcnn", "minigo", "resnet", "ssd", "transformer", "rnnt", "unet3d"):
            if row.get(column):
                yield system_id_of(row["details_url"]), column, float(row[column])


def contemporary_cells(corpus: Path, round_name: str):
    if round_name == "v1.0":
        rows = csv.DictReader((corpus / "reference" / "v1.0_summary_contemporary.csv").open())
        for row in rows:
            for column in ("bert", "dlrm", "maskrcnn", "minigo", "resnet", "ssd", "rnnt", "unet3d"):
                if row.get(column):
                    division = {"close": "closed"}.get(row["division"], row["division"].lower())
                    yield (row["system"], row["framework"], division), column, float(row[column])
        return
    # v0.7: the July 2020 tool printed a header-less table between its log lines.
    text = (corpus / "reference" / "v0.7_summary_contemporary.txt").read_text()
    for fields in csv.reader(io.StringIO(text)):
        if len(fields) < 17 or not fields[-3].startswith("https://"):
            continue
        for column, value in zip(V07_CONTEMPORARY_BENCHMARKS, fields[7:15], strict=True):
            if value:
                yield (fields[1], fields[6]), column, float(value)


def disagreements(cells, round_name, our_scores, matches) -> list[str]:
    problems = []
    for system_id, benchmark, reference in cells:
        key = (round_name, system_id, benchmark)
        result = our_scores.get(key)
        ours = result.score_minutes if result is not None else None
        if ours is not None and matches(ours, reference):
            assert key not in EXPECTED_DIFFERENCES, f"{key} is reproduced now: remove it from the list"
            continue
        expected = EXPECTED_DIFFERENCES.get(key)
        if expected is not None:
            expected_score, code = expected
            codes = {f.code for f in result.findings} | {f.code for run in result.runs for f in run.findings}
            if ours == expected_score and code in codes:
                continue
        note = result.score_note if result is not None else "no result folder"
        problems.append(f"{key}: reference {reference}, ours {ours} ({note})")
    return problems


@pytest.mark.parametrize("round_name", sorted(ROUNDS))
def test_it_reproduces_every_full_precision_reference_score(corpus, our_scores, round_name):
    cells = list(full_precision_cells(corpus, round_name))
    assert len(cells) >= 50
    problems = disagreements(cells, round_name, our_scores, lambda ours, ref: abs(ours - ref) <= 1e-9 * ref)
    assert problems == []


@pytest.mark.parametrize("round_name", sorted(ROUNDS))
def test_it_reproduces_every_published_contemporary_score(corpus, our_scores, round_name):
    cells = list(contemporary_cells(corpus, round_name))
    assert len(cells) >= 30
    problems = disagreements(cells, round_name, our_scores, lambda ours, ref: abs(round(ours, 2) - ref) < 1e-6)
    assert problems == []
