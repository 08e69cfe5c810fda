"""Bad input to the MLPerf Automotive check: a clear, specific finding on the result at fault,
never an exception (the server's ingestion runs the same check on uploads)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from mlperf_check.automotive.pipeline import AutomotivePackageError, check_automotive_package

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data" / "automotive-v0.5" / "closed" / "NVIDIA"
SINGLE = "results/Thor-X_TRT/bevformer/SingleStream"
BROKEN = {
    "detail_log_bytes": (f"{SINGLE}/performance/run_1/mlperf_log_detail.txt", b"\x00\xff not a log\n",
                         "performance_unreadable"),
    "sample_count_text": (f"{SINGLE}/performance/run_1/mlperf_log_detail.txt", None, "performance_unreadable"),
    "system_not_an_object": ("systems/Thor-X_TRT.json", b"[1, 2]", "system_description_unreadable"),
    "system_not_json": ("systems/Thor-X_TRT.json", b"{", "system_description_unreadable"),
    "implementation_not_json": ("measurements/Thor-X_TRT/bevformer/SingleStream/Thor-X_TRT_SingleStream.json", b"{",
                                "implementation_unreadable"),
    "accuracy_binary": (f"{SINGLE}/accuracy/accuracy.txt", b"\x00\xff\xfe", "accuracy_not_found"),
}


@pytest.mark.parametrize("case", list(BROKEN))
def test_broken_files_are_findings(case, tmp_path):
    folder = Path(shutil.copytree(SAMPLE, tmp_path / "NVIDIA"))
    path, content, code = BROKEN[case]
    if content is None:  # a number LoadGen never writes as text
        detail = folder / path
        detail.write_text(detail.read_text().replace('"effective_performance_sample_count", "value": 256',
                                                     '"effective_performance_sample_count", "value": "many"'))
    else:
        (folder / path).write_bytes(content)
    report = check_automotive_package(folder)
    codes = {f.code for r in report.results for f in r.all_findings() if f.severity == "error"}
    assert code in codes, codes
    assert any(not r.official for r in report.results)


def test_a_folder_without_results_is_unreadable(tmp_path):
    with pytest.raises(AutomotivePackageError, match="no <division>/<submitter>/results/ folder"):
        check_automotive_package(tmp_path)
    with pytest.raises(AutomotivePackageError, match="not a folder or an archive"):
        check_automotive_package(tmp_path / "missing")
