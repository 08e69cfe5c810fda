"""Our scores against the official summarizer's, over the whole corpus (../shared/corpus).

`reference/` holds two outputs per round (its README says which tools): the contemporary tool
(what was published; v1.0 rounded to 2 decimals) and mlperf-logging releases (full precision).
Every round with a reference file is checked. Every cell a tool scored must be reproduced
(relative 1e-9 against full precision, 2 decimals against the rounded output), or be listed in
EXPECTED_DIFFERENCES with the finding that explains it (docs/differences.md says why). With the
factors the packages ship (what `import_results --published-factors` records as decisions), every
cell is reproduced.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from mlperf_check.pipeline import check_package
from mlperf_check.report import BenchmarkResult
from mlperf_check.rules.catalog import get_ruleset

pytestmark = pytest.mark.corpus

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus"
REFERENCES = sorted((CORPUS / "reference").glob("v*_summary_*")) if CORPUS.is_dir() else []
# Every round with a reference output, "v3.0" -> ruleset "3.0.0".
ROUNDS = {path.name.split("_", 1)[0]: path.name.split("_", 1)[0][1:] + ".0" for path in REFERENCES}
V07_CONTEMPORARY_BENCHMARKS = ["bert", "dlrm", "gnmt", "maskrcnn", "minigo", "resnet", "ssd", "transformer"]
# (round, system id, benchmark) -> (our score or None, the finding code that explains it).
# The two v3.0 dlrm_dcnv2 folders ship a scaling.json larger than the factor their logs give
# (docs/differences.md); imported with --published-factors they reproduce the published score.
EXPECTED_DIFFERENCES: dict[tuple[str, str, str], tuple[float | None, str]] = {
    ("v3.0", "G593-SD0_hugectr", "dlrm_dcnv2"): (4.236853113229754, "SHIPPED_FACTOR_LARGER"),
    ("v3.0", "nf5468m6_hugectr", "dlrm_dcnv2"): (41.247515376984126, "SHIPPED_FACTOR_LARGER"),
    # Google's 3072-chip gpt3 ships the factor the checker of May 2024 interpolated; the BS 3072 RCP
    # record gives 1.0 (the corpus MANIFEST's v4.0 notes). The summarizer reads the shipped one.
    ("v4.0", "cloud-tpu-v5p-3072-maxtext", "gpt3"): (39.335550000000005, "SHIPPED_FACTOR_LARGER"),
}


@pytest.fixture(scope="module")
def our_scores(request) -> dict[tuple[str, str, str], BenchmarkResult]:
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


def round_of(reference: Path) -> str:
    return reference.name.split("_", 1)[0]


# The summarizer writes the system's description, then one column per benchmark of the round, then
# the URLs; the description ends with the last of these columns its version writes.
DESCRIPTION_ENDS = ("framework", "notes", "private_id")


def benchmark_columns(header: list[str]) -> list[str]:
    """The benchmark columns of a summary CSV, whatever benchmarks the round has."""
    start = max(header.index(column) for column in DESCRIPTION_ENDS if column in header) + 1
    return header[start : header.index("details_url")]


def benchmark_cells(path: Path, row: dict) -> list[tuple[str, float]]:
    """(benchmark, minutes) of one summary row. A benchmark column our catalog does not know for
    the round fails here, by name: a score of it would otherwise go unchecked."""
    columns, ruleset = benchmark_columns(list(row)), ROUNDS[round_of(path)]
    unknown = [column for column in columns if get_ruleset(ruleset).benchmark(column) is None]
    assert unknown == [], f"{path.name}: benchmarks training {ruleset} does not have: {unknown}"
    return [(column, float(row[column])) for column in columns if row[column]]


def full_precision_cells(path: Path):
    """(system id, benchmark, minutes) of a CSV written by an mlperf-logging release."""
    for row in csv.DictReader(path.open()):
        for benchmark, minutes in benchmark_cells(path, row):
            yield system_id_of(row["details_url"]), benchmark, minutes


def contemporary_cells(path: Path):
    """Cells of the tools of the time, keyed by the system name they printed."""
    if path.suffix == ".csv":  # v1.0, June 2021: rounded to 2 decimals, division printed
        for row in csv.DictReader(path.open()):
            division = {"close": "closed"}.get(row["division"], row["division"].lower())
            for benchmark, minutes in benchmark_cells(path, row):
                yield (row["system"], row["framework"], division), benchmark, minutes
        return
    # v0.7: the July 2020 tool printed a header-less table between its log lines.
    text = path.read_text()
    for fields in csv.reader(io.StringIO(text)):
        if len(fields) < 17 or not fields[-3].startswith("https://"):
            continue
        assert all(get_ruleset("0.7.0").benchmark(column) for column in V07_CONTEMPORARY_BENCHMARKS)
        for column, value in zip(V07_CONTEMPORARY_BENCHMARKS, fields[7:15], strict=True):
            if value:
                yield (fields[1], fields[6]), column, float(value)


def logs_score(result: BenchmarkResult) -> float | None:
    return result.score_minutes


def published_score(result: BenchmarkResult) -> float | None:
    """The score with the factor the package shipped (what import_results --published-factors records)."""
    if result.mean_minutes is None or result.published_factor is None:
        return None
    return result.mean_minutes * result.published_factor


def disagreements(cells, round_name, our_scores, matches, score=logs_score, expected_differences=None) -> list[str]:
    expected_differences = EXPECTED_DIFFERENCES if expected_differences is None else expected_differences
    problems = []
    for system_id, benchmark, reference in cells:
        key = (round_name, system_id, benchmark)
        result = our_scores.get(key)
        ours = score(result) if result is not None else None
        if ours is not None and matches(ours, reference):
            assert key not in expected_differences, f"{key} is reproduced now: remove it from the list"
            continue
        expected = expected_differences.get(key)
        if expected is not None:
            expected_score, code = expected
            codes = {f.code for f in result.findings} | {f.code for run in result.runs for f in run.findings}
            if ours == expected_score and code in codes:
                continue
        note = result.score_note if result is not None else "no result folder"
        problems.append(f"{key}: reference {reference}, ours {ours} ({note})")
    return problems


def same_full_precision(ours: float, reference: float) -> bool:
    return abs(ours - reference) <= 1e-9 * reference


def same_to_2_decimals(ours: float, reference: float) -> bool:
    return abs(round(ours, 2) - reference) < 1e-6


def reference_cells(path: Path):
    """The cells of one reference file and how to compare with them."""
    if "_mlperf_logging_" in path.name:
        return list(full_precision_cells(path)), same_full_precision
    return list(contemporary_cells(path)), same_to_2_decimals


@pytest.mark.parametrize("reference", REFERENCES, ids=lambda path: path.name)
def test_it_reproduces_every_reference_score_or_explains_it(our_scores, reference):
    round_name = round_of(reference)
    cells, matches = reference_cells(reference)
    assert cells, f"no score read from {reference.name}"
    assert disagreements(cells, round_name, our_scores, matches) == []


@pytest.mark.parametrize("reference", REFERENCES, ids=lambda path: path.name)
def test_with_the_shipped_factors_it_reproduces_every_reference_score(our_scores, reference):
    round_name = round_of(reference)
    cells, matches = reference_cells(reference)
    assert disagreements(cells, round_name, our_scores, matches, published_score, expected_differences={}) == []


def test_every_expected_difference_is_a_shipped_factor_the_logs_do_not_give(our_scores):
    for key, (score, code) in EXPECTED_DIFFERENCES.items():
        result = our_scores[key]
        assert result.score_minutes == score and result.published_factor > result.rcp.scaling_factor
        [finding] = [f for f in result.findings if f.code == code]
        assert finding.actual == repr(result.published_factor)


def test_every_shipped_scaling_json_in_the_corpus_has_its_finding(corpus):
    shipped = sorted(corpus.glob("*/*/results/*/*/scaling.json"))
    assert len(shipped) >= 10  # v3.0: ten files in four submitters
    reports = {}
    for path in shipped:
        round_name, submitter, rel = path.relative_to(corpus).parts[0], path.parents[4], path.relative_to(path.parents[4])
        if submitter not in reports:
            reports[submitter] = check_package(submitter, ruleset=round_name[1:] + ".0")
        findings = [f for f in reports[submitter].all_findings() if f.file == rel.as_posix()]
        assert [f.checker for f in findings] == ["shipped_factors"], path
        [finding] = findings
        factor = json.loads(path.read_text())["scaling_factor"]
        assert finding.code in {"SHIPPED_FACTOR_EQUAL", "SHIPPED_FACTOR_LARGER", "SHIPPED_FACTOR_SMALLER"}, path
        assert finding.actual == repr(factor)


def test_every_score_we_give_is_in_a_reference_output(our_scores):
    """The other direction: a result we score that no official output of its round scores (a
    benchmark or system the summarizer would not read) fails here."""
    matched = set()
    for reference in REFERENCES:
        cells, _ = reference_cells(reference)
        for system, benchmark, _minutes in cells:
            result = our_scores.get((round_of(reference), system, benchmark))
            if result is not None:
                matched.add(id(result))
    scored = {id(result): key for key, result in our_scores.items() if result.score_minutes is not None}
    assert sorted(str(key) for result_id, key in scored.items() if result_id not in matched) == []
