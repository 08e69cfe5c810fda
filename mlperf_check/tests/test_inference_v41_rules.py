"""One real v4.1 power result (closed/UntetherAI h13_u3_slim resnet50 singlestream), then the same
logs and folders made wrong, one thing at a time: each is something the v4.1 official checker (or
the Power WG's power_checker.py it runs) refuses.

Published: 29.238986918 mJ per query and 34.200911 samples per joule.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from mlperf_check.inference import check_inference_package
from mlperf_check.tests.power_logs import scale_watts

pytestmark = pytest.mark.corpus

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "inference" / "v4.1"
SUBMITTER = CORPUS / "closed" / "UntetherAI"
RESULT = Path("results/h13_u3_slim/resnet50/singlestream")


@pytest.fixture
def untether(tmp_path):
    if not SUBMITTER.is_dir():
        pytest.skip(f"the v4.1 inference corpus is not at {CORPUS}")
    root = tmp_path / "v4.1" / "closed" / "UntetherAI"
    shutil.copytree(SUBMITTER, root)
    for path in root.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    return root


def singlestream(root: Path):
    report = check_inference_package(root.parent.parent, round_version="v4.1")
    (result,) = [r for r in report.results if r.folder.endswith(str(RESULT))]
    return result, {f.code for f in result.all_findings() if f.severity == "error"}


def test_the_published_power_figure(untether):
    result, errors = singlestream(untether)
    assert errors == set() and result.valid
    assert result.power_value == pytest.approx(29.238986918361313, rel=1e-12)
    assert (result.power_unit, f"{result.power_efficiency:f}") == ("millijoules", "34.200911")
    # Its ptd_logs.txt has only the known ranging-run errors: the Power WG check passes it clean.
    assert "ptd_errors" not in {f.code for f in result.all_findings()}


def edit_json(path: Path, change) -> None:
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


def test_a_session_of_other_uuids(untether):
    power = untether / RESULT / "performance" / "power"
    edit_json(
        power / "server.json", lambda d: d["uuid"].update(client="00000000-0000-0000-0000-000000000000")
    )
    result, errors = singlestream(untether)
    assert errors == {"power_session"} and not result.valid


def test_phases_whose_clocks_disagree(untether):
    power = untether / RESULT / "performance" / "power"
    edit_json(
        power / "server.json",
        lambda d: d["phases"]["testing"][1].__setitem__(0, d["phases"]["testing"][1][0] + 5),
    )
    assert singlestream(untether)[1] == {"power_phases"}


def test_no_analyzer_sample_inside_the_run(untether):
    spl = untether / RESULT / "performance" / "run_1" / "spl.txt"
    lines = [line.replace(",Watts,", ",Watts,-") for line in spl.read_text().splitlines()]
    spl.write_text("\n".join(lines) + "\n")
    assert "power_no_samples" in singlestream(untether)[1]


def test_testing_power_far_below_ranging(untether):
    scale_watts(untether / RESULT / "performance" / "ranging" / "spl.txt", 1.2)
    # The edited spl.txt no longer hashes to what the session recorded (the Power WG's checksum).
    assert singlestream(untether)[1] == {"power_below_ranging", "power_results_checksum"}


def test_a_missing_ptdaemon_log(untether):
    (untether / RESULT / "performance" / "power" / "ptd_logs.txt").unlink()
    assert singlestream(untether)[1] == {"power_file_missing"}


def test_the_analyzer_table_is_required(untether):
    for path in untether.joinpath("measurements").rglob("analyzer_table.*"):
        path.unlink()
    assert singlestream(untether)[1] == {"power_measurement_file"}


# The same result's compliance runs and file sets, as the v4.1 checker holds them.
COMPLIANCE = Path("compliance/h13_u3_slim/resnet50/singlestream")


def test_a_compliance_run_loadgen_refused(untether):
    detail = untether / COMPLIANCE / "TEST04" / "performance" / "run_1" / "mlperf_log_detail.txt"
    detail.write_text(
        detail.read_text().replace(
            '"result_validity", "value": "VALID"', '"result_validity", "value": "INVALID"'
        )
    )
    assert singlestream(untether)[1] == {"compliance_run_invalid"}


def test_test05_runs_with_its_own_seeds(untether):
    detail = untether / COMPLIANCE / "TEST05" / "performance" / "run_1" / "mlperf_log_detail.txt"
    # The round's ordinary qsl seed in a TEST05 run is wrong: TEST05 has seeds of its own.
    detail.write_text(detail.read_text().replace("16799458546791641818", "3066443479025735752"))
    result, errors = singlestream(untether)
    assert errors == {"wrong_seed"}
    assert any("TEST05" in f.file for f in result.all_findings() if f.code == "wrong_seed")


def test_files_a_run_folder_may_not_hold(untether):
    (untether / RESULT / "performance" / "run_1" / "notes.txt").write_text("x")
    (untether / COMPLIANCE / "TEST01" / "performance" / "run_1" / "console.log").write_text("x")
    assert singlestream(untether)[1] == {"run_files", "compliance_run_file"}


def test_a_malformed_session_file_is_a_finding(untether):
    power = untether / RESULT / "performance" / "power"
    edit_json(power / "client.json", lambda d: d.update(uuid="not an object", phases={"testing": [1, 2, 3]}))
    result, errors = singlestream(untether)
    assert errors == {"power_session"} and not result.valid
