"""MLPerf Automotive v0.5 on the corpus (../shared/corpus/automotive): every official verdict and
figure of reference/official_verdicts_v0.5.csv reproduced by `mlperf-check <round> --format json`,
and the round's summary_results.json byte for byte by `--format summary-json`. The bundled
sample (sample_data/automotive-v0.5) is the same files, so the same is asserted of it where the
corpus is absent."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from mlperf_check.cli import main
from mlperf_check.suites import suite_for

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO.parent / "shared" / "corpus" / "automotive"
SAMPLE = REPO / "sample_data" / "automotive-v0.5"


def _command(*argv: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main([*argv], stdout=out, stderr=err)
    return code, out.getvalue()


@pytest.fixture(scope="module")
def corpus():
    if not CORPUS.is_dir():
        pytest.skip(f"the automotive corpus is not at {CORPUS}")
    return CORPUS


def test_the_layout_is_told_apart(corpus):
    assert suite_for(corpus / "v0.5").name == "automotive"
    assert suite_for(corpus / "v0.5" / "closed" / "NVIDIA").name == "automotive"
    assert suite_for(SAMPLE).name == "automotive"


def test_every_official_verdict_and_figure(corpus):
    code, out = _command(str(corpus / "v0.5"), "--format", "json")
    assert code == 0
    ours = {r["folder"]: r for r in json.loads(out)["results"]}
    with open(corpus / "reference" / "official_verdicts_v0.5.csv", newline="") as handle:
        official = list(csv.DictReader(handle))
    assert len(official) == len(ours) == 2
    for row in official:
        folder = f"{row['division']}/{row['submitter']}/results/{row['system']}/{row['model']}/{row['scenario']}"
        result = ours[folder]
        assert result["verdict"]["official"] == row["verdict"]
        assert result["metric"]["value"] == float(row["result"])
        assert result["metric"]["unit"] == "ms" and row["result_unit"] == "Latency (ms)"
        assert result["accuracy_printed"] == row["accuracy"]
        assert result["verdict"]["ours"] == "VALID"


def test_summary_results_byte_for_byte(corpus):
    code, out = _command(str(corpus / "v0.5"), "--format", "summary-json")
    assert code == 0
    assert out == (corpus / "reference" / "summary_results_v0.5.json").read_text() + "\n"


def test_the_sample_is_the_corpus_round():
    code, out = _command(str(SAMPLE), "--format", "json", "--ruleset", "automotive-0.5")
    assert code == 0
    figures = {r["scenario"]: r["metric"]["value"] for r in json.loads(out)["results"]}
    assert figures == {"SingleStream": 5.209854, "ConstantStream": 5.319681}


def test_an_unknown_ruleset_is_a_usage_error(tmp_path):
    err = io.StringIO()
    assert main([str(SAMPLE), "--ruleset", "automotive-0.6"], stdout=io.StringIO(), stderr=err) == 2
    assert "no MLPerf Automotive rules for 'automotive-0.6'" in err.getvalue()


def test_the_rule_table_is_what_the_script_extracts_from_the_official_checker():
    """mlperf_check/automotive/official_rules_data.py is scripts/extract_automotive_rules.py's output
    on the pinned commit (where the official repository is present)."""
    import importlib.util
    import subprocess

    from mlperf_check.automotive.official_rules_data import OFFICIAL_RULES_DATA
    from mlperf_check.tests.official_checkers import repository

    git_dir = repository("mlcommons/mlperf_automotive")
    if not git_dir.is_dir():
        pytest.skip(f"the official checker's repository is not at {git_dir} (set MLPERF_OFFICIAL_REPOS)")
    spec = importlib.util.spec_from_file_location("extract_automotive_rules", REPO / "scripts" / "extract_automotive_rules.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    for version, (commit, path) in script.SOURCES.items():
        source = subprocess.run(["git", "--git-dir", str(git_dir), "show", f"{commit}:{path}"], check=True,
                                capture_output=True, text=True).stdout
        assert script.round_table(version, source, commit, path) == OFFICIAL_RULES_DATA[version]
    assert OFFICIAL_RULES_DATA["v0.5"]["accuracy_targets"]["bevformer"] == ["mAP_3D", 0.2683556 * 0.99]
