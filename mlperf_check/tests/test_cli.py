"""`mlperf-check` (and its alias `manage.py check_package`): the command-line interface other tools call."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from mlperf_check import cli

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "sample_data"
CORPUS = REPO.parent / "shared" / "corpus"


def check(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    try:
        status = cli.main(list(args), stdout=out, stderr=err)
    except SystemExit as exc:  # argparse's bad-usage exit
        status = exc.code
    return status, out.getvalue(), err.getvalue()


def test_it_prints_the_documented_json_document():
    status, out, _ = check(str(SAMPLE / "training-v1.0/Fujitsu"), "--json")
    document = json.loads(out)
    assert status == 0
    assert (document["ruleset"], document["submitter"]) == ("1.0.0", "Fujitsu")
    assert {s["system"] for s in document["systems"]} >= {"gx_A100x4_mxnet_NGC_21.04"}
    (result,) = document["results"]
    assert (result["system"], result["benchmark"], result["division"]) == ("gx_A100x4_mxnet_NGC_21.04", "ssd", "closed")
    assert result["score_minutes"] == pytest.approx(21.899766666666665, rel=1e-12)
    assert result["rcp"] == result["rcp"] | {"status": "pass_smaller_batch", "scaling_factor": 1.0}
    assert len(result["runs"]) == 5
    assert set(result["runs"][0]) >= {"file", "status", "time_to_train_minutes", "findings"}
    assert all(set(f) >= {"severity", "code", "message", "file", "line"} for f in document["findings"])


def test_it_exits_1_with_findings_when_the_package_has_errors():
    # v1.0 Intel: the system JSON says open while the logs say closed, among other errors.
    status, out, _ = check(str(SAMPLE / "training-v1.0/Intel"))
    assert status == 1
    assert "[LOG_DIVISION_MISMATCH] results/4-nodes-32s-8376H-pytorch/" in out
    assert "errors," in out.splitlines()[-1]


def test_it_exits_2_on_bad_usage(tmp_path):
    assert check()[0] == 2
    assert check(str(tmp_path / "missing"))[0] == 2
    status, _, err = check(str(SAMPLE / "training-v1.0/Fujitsu"), "--ruleset", "9.9")
    assert status == 2 and "unknown training ruleset 9.9.0" in err


def test_it_checks_a_tarball_like_the_folder(tmp_path):
    archive = tmp_path / "Fujitsu.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(SAMPLE / "training-v1.0/Fujitsu", arcname="Fujitsu")
    _, from_folder, _ = check(str(SAMPLE / "training-v1.0/Fujitsu"), "--json")
    status, from_archive, _ = check(str(archive), "--json")
    folder_doc, archive_doc = json.loads(from_folder), json.loads(from_archive)
    assert status == 0
    assert archive_doc["results"] == folder_doc["results"]


def test_it_refuses_an_unsafe_tarball_with_exit_2(tmp_path):
    archive = tmp_path / "evil.tar"
    with tarfile.open(archive, "w") as tar:
        info = tarfile.TarInfo("Fujitsu/../../escape.txt")
        tar.addfile(info, io.BytesIO(b""))
    status, _, err = check(str(archive))
    assert status == 2 and "escape.txt" in err
    assert not (tmp_path.parent / "escape.txt").exists()


def test_it_runs_as_a_module_without_django():
    completed = subprocess.run(
        [sys.executable, "-m", "mlperf_check", str(SAMPLE / "training-v0.7/Inspur"), "--json"],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin"},  # no DATABASE_URL, no broker: none is needed
    )
    assert completed.returncode in (0, 1), completed.stderr
    assert json.loads(completed.stdout)["ruleset"] == "0.7.0"


@pytest.mark.corpus
def test_it_never_crashes_on_any_corpus_submitter(corpus):
    checked = 0
    for round_dir in sorted(p for p in corpus.iterdir() if p.name.startswith("v")):
        for submitter in sorted(p for p in round_dir.iterdir() if p.is_dir()):
            status, out, err = check(str(submitter), "--json")
            assert status in (0, 1), f"{submitter}: {err}"
            document = json.loads(out)
            assert document["submitter"] == submitter.name
            checked += 1
    assert checked >= 27


def test_it_reports_when_the_logs_do_not_tell_the_ruleset(tmp_path):
    package = tmp_path / "Acme"
    (package / "systems").mkdir(parents=True)
    (package / "systems/box.json").write_text('{"submitter": "Acme", "division": "closed"}')
    (package / "results/box/resnet").mkdir(parents=True)
    (package / "results/box/resnet/result_0.txt").write_bytes(b"\x00\xffno MLPerf lines here\n")
    status, out, _ = check(str(package), "--json")
    document = json.loads(out)
    assert status == 1
    codes = {f["code"] for f in document["findings"]}
    assert "RULESET_UNDETERMINED" in codes
    assert {f["code"] for r in document["results"] for run in r["runs"] for f in run["findings"]} >= {"RUN_NO_EVENTS"}


def test_it_reports_progress_per_file_and_per_package_checker():
    from mlperf_check.checkers import checkers_of_scope
    from mlperf_check.pipeline import check_folder

    calls = []
    check_folder(SAMPLE / "training-v1.0/Fujitsu", progress=lambda *call: calls.append(call))
    parsing = [c for c in calls if c[0] == "parsing"]
    checking = [c for c in calls if c[0] == "checking"]
    assert parsing == [("parsing", n, 5) for n in range(1, 6)]
    assert checking[-1] == ("checking", len(checkers_of_scope("package")), len(checkers_of_scope("package")))
