"""An HPC package is checked under its round's ruleset, not under its earliest log's: HPE+LBNL's
v3.0 package ships weak-scaling logs of 2021 (data/hpc-v3.0-HPE_LBNL/README.md). Without
--ruleset, the round its path names decides, else the round of most of its logs; a finding names
the older logs."""

from __future__ import annotations

import tarfile
from pathlib import Path

import pytest

from mlperf_check.pipeline import check_package

ARCHIVE = Path(__file__).parent / "data" / "hpc-v3.0-HPE_LBNL" / "HPE_LBNL.tar.gz"


@pytest.fixture
def package(tmp_path) -> Path:
    with tarfile.open(ARCHIVE) as archive:
        archive.extractall(tmp_path / "unpacked", filter="data")
    return tmp_path / "unpacked" / "HPE+LBNL"


def by_benchmark(report) -> dict:
    return {(r.scaling, r.benchmark): r for r in report.results}


def test_the_round_of_most_logs_decides_and_the_older_logs_are_named(package):
    report = check_package(package)
    assert report.ruleset == "hpc-3.0.0"
    results = by_benchmark(report)
    openfold = results[("strong", "openfold")]
    assert openfold.score_minutes is not None and "not a benchmark" not in openfold.score_note
    oc20 = results[("strong", "oc20")]
    assert oc20.shipped_factor.factor == pytest.approx(1.0063775510204083)  # kept, and applied
    assert "multiplied by the RCP scaling factor 1.0064" in oc20.score_note
    (older,) = [f for f in report.findings if f.code == "RULESET_OLDER_LOGS"]
    assert older.severity == "warning" and older.actual == "hpc-1.0.0" and older.expected == "hpc-3.0.0"
    assert "results/perlmutter_10x128x4_ngc21.09_mxnet/weak/cosmoflow: 10" in older.message
    assert "the round of 15 of its 25 logs" in older.message


def test_the_round_the_path_names_decides(package, tmp_path):
    """Only the 2021 logs: their own round by date, unless the path names the round."""
    for folder in ("perlmutter_224x4", "perlmutter_128x4"):
        for path in sorted((package / "results" / folder).rglob("*"), reverse=True):
            path.unlink() if path.is_file() else path.rmdir()
        (package / "results" / folder).rmdir()
    assert check_package(package).ruleset == "hpc-1.0.0"
    named = tmp_path / "hpc_results_v3.0"
    named.mkdir()
    report = check_package(package.rename(named / "HPE+LBNL"))
    assert report.ruleset == "hpc-3.0.0"
    (older,) = [f for f in report.findings if f.code == "RULESET_OLDER_LOGS"]
    assert "the round its path names" in older.message


def test_a_given_ruleset_still_wins(package):
    report = check_package(package, ruleset="hpc-2.0.0")
    assert report.ruleset == "hpc-2.0.0"
    assert not [f for f in report.findings if f.code == "RULESET_OLDER_LOGS"]
