"""v6.x compliance tests without a LoadGen run of their own: TEST07 (gpt-oss-120b accuracy in
performance mode), TEST08 (dlrm-v3 NE in performance mode), TEST09 (gpt-oss-120b and, from v6.1,
e2e-rag-qna output lengths); and which rounds and models take Endpoints-client results. The verdict
files are the official verification scripts' own output (data/inference/compliance_v6/README.md);
the models each round asks them of are its tables."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from mlperf_check.inference.official_rules_data import OFFICIAL_RULES_DATA
from mlperf_check.tests.test_inference_generated_rounds import check, write_result

DATA = Path(__file__).parent / "data" / "inference" / "compliance_v6"
VERDICT_FILE = {"TEST07": "verify_accuracy.txt", "TEST08": "verify_accuracy.txt", "TEST09": "verify_output_len.txt"}
COMPLIANCE_CODES = {"compliance_missing", "compliance_no_verdict", "compliance_failed", "compliance_run_file"}


def test_the_models_each_round_asks_them_of():
    tests = {v: {m: t for m, t in OFFICIAL_RULES_DATA[v]["compliance_tests"].items() if set(t) & set(VERDICT_FILE)}
             for v in ("v5.1", "v6.0", "v6.1")}
    assert tests == {
        "v5.1": {},
        "v6.0": {"gpt-oss-120b": ["TEST07", "TEST09"], "dlrm-v3": ["TEST08"]},
        "v6.1": {"gpt-oss-120b": ["TEST07", "TEST09"], "dlrm-v3": ["TEST08"], "e2e-rag-qna": ["TEST09"]},
    }


def result_with(tmp_path: Path, version: str, model: str, verdicts: dict[str, str | None]) -> Path:
    """A result of `model` whose compliance folder holds `verdicts` (test -> pass/fail, None: the
    test folder without its verify file)."""
    result = write_result(tmp_path, version, "Offline", "Offline", ttft_ms=0, tpot_ms=0)
    moved = result.parent.rename(result.parent.parent / model) / "Offline"
    shutil.rmtree(moved / "TEST06")
    for test, outcome in verdicts.items():
        (moved / test).mkdir()
        if outcome is not None:
            shutil.copy(DATA / f"{test}_{outcome}" / VERDICT_FILE[test], moved / test)
    return moved


def compliance_errors(tmp_path: Path, version: str) -> list[tuple[str, str]]:
    (result,) = check(tmp_path, version).results
    return sorted((f.code, f.file.rsplit("/", 2)[-2]) for f in result.all_findings()
                  if f.severity == "error" and f.code in COMPLIANCE_CODES)


@pytest.mark.parametrize("version", ["v6.0", "v6.1"])
def test_gpt_oss_passes_test07_and_test09(tmp_path, version):
    result_with(tmp_path, version, "gpt-oss-120b", {"TEST07": "pass", "TEST09": "pass"})
    assert compliance_errors(tmp_path, version) == []


@pytest.mark.parametrize("failing", ["TEST07", "TEST09"])
def test_gpt_oss_failing_one_of_them(tmp_path, failing):
    result_with(tmp_path, "v6.1", "gpt-oss-120b", {"TEST07": "pass", "TEST09": "pass"} | {failing: "fail"})
    assert compliance_errors(tmp_path, "v6.1") == [("compliance_failed", failing)]


def test_a_test_folder_without_its_verify_file_and_a_missing_test(tmp_path):
    result_with(tmp_path, "v6.0", "gpt-oss-120b", {"TEST07": None})
    (result,) = check(tmp_path, "v6.0").results
    found = sorted((f.code, f.message) for f in result.all_findings() if f.code in COMPLIANCE_CODES)
    assert found == [("compliance_missing", "compliance test TEST09 is missing"),
                     ("compliance_no_verdict", "TEST07 has no verify_accuracy.txt")]


@pytest.mark.parametrize("outcome, errors", [("pass", []), ("fail", [("compliance_failed", "TEST08")])])
def test_dlrm_v3_test08(tmp_path, outcome, errors):
    result_with(tmp_path, "v6.0", "dlrm-v3", {"TEST08": outcome})
    assert compliance_errors(tmp_path, "v6.0") == errors


def test_test08_passes_only_on_a_line_of_its_own(tmp_path):
    """The checker compares TEST08's stripped lines with "TEST PASS" (TEST07 and TEST09: anywhere)."""
    result = result_with(tmp_path, "v6.1", "dlrm-v3", {"TEST08": "fail"})
    verdict = result / "TEST08" / "verify_accuracy.txt"
    verdict.write_text(verdict.read_text().replace("\nTEST FAIL", "\nnot a TEST PASS"))
    assert compliance_errors(tmp_path, "v6.1") == [("compliance_failed", "TEST08")]
    verdict.write_text(verdict.read_text().replace("not a TEST PASS", "  TEST PASS  "))
    assert compliance_errors(tmp_path, "v6.1") == []


def test_e2e_rag_qna_needs_test09_from_v61(tmp_path):
    result_with(tmp_path / "a", "v6.1", "e2e-rag-qna", {})
    (result,) = check(tmp_path / "a", "v6.1").results
    assert "compliance test TEST09 is missing" in {f.message for f in result.all_findings()}
    result_with(tmp_path / "b", "v6.1", "e2e-rag-qna", {"TEST09": "pass"})
    assert compliance_errors(tmp_path / "b", "v6.1") == []


@pytest.mark.parametrize("version, model, code, reason", [
    ("v6.1", "llama3.1-8b", "endpoints_file", "holds no figures"),
    ("v6.1", "dlrm-v3", "endpoints_result", "v6.1 takes Endpoints-client results only for wan-2.2-t2v-a14b"),
    ("v6.0", "llama3.1-8b", "endpoints_result", "v6.0 takes LoadGen logs only"),
])
def test_an_endpoints_result_is_read_where_the_round_allows_it(tmp_path, version, model, code, reason):
    """v6.1's checker reads results of the MLCommons Endpoints client (result_summary.json instead
    of LoadGen logs) for the models it lists (mlperf_check.inference.endpoints, tested on real
    folders in test_inference_endpoints.py); another model, or an earlier round, is refused."""
    result = write_result(tmp_path, version, "Offline", "Offline", ttft_ms=0, tpot_ms=0)
    if model != "llama3.1-8b":
        result = result.parent.rename(result.parent.parent / model) / "Offline"
    shutil.rmtree(result / "performance" / "run_1")
    (result / "performance" / "result_summary.json").write_text("{}\n")
    (checked,) = check(tmp_path, version).results
    summary = "Offline/performance/result_summary.json"
    (finding,) = [f for f in checked.all_findings() if f.code == code and f.file.endswith(summary)]
    assert finding.severity == "error" and reason in finding.message and not checked.valid
