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
from mlperf_check.output import github_annotation
from mlperf_check.report import ERROR, INFO, Finding
from mlperf_check.tests.archives import tar_file, tar_special, write_tar

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
    assert (result["system"], result["benchmark"], result["division"]) == (
        "gx_A100x4_mxnet_NGC_21.04",
        "ssd",
        "closed",
    )
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


def test_an_unsafe_archive_is_one_error_finding_in_the_json_document(tmp_path):
    archive = write_tar(
        tmp_path / "evil.tar.gz",
        [
            tar_file("Evil/systems/ok.json", b"{}"),
            tar_special("Evil/systems/passwd.json", tarfile.SYMTYPE, "/etc/passwd"),
        ],
        "tar.gz",
    )
    status, out, err = check(str(archive), "--format", "json")
    assert status == 2 and "symbolic link" in err
    document = json.loads(out)
    assert (document["systems"], document["results"]) == ([], [])
    (finding,) = document["findings"]
    assert finding | {"message": ""} == finding | {
        "severity": "error",
        "code": "ARCHIVE_SYMLINK",
        "file": "Evil/systems/passwd.json",
        "line": None,
        "message": "",
    }
    assert "is a symbolic link" in finding["message"]


def test_a_path_that_is_no_package_is_one_error_finding_in_the_json_document(tmp_path):
    status, out, _ = check(str(tmp_path / "missing"), "--json")
    assert status == 2
    assert [f["code"] for f in json.loads(out)["findings"]] == ["PACKAGE_NOT_FOUND"]


def test_a_round_folder_prints_one_json_line_per_submitter_like_each_submitter_alone():
    status, out, _ = check(str(SAMPLE / "training-v1.0"), "--format", "json", "--jobs", "2")
    lines = out.splitlines()
    submitters = sorted(p.name for p in (SAMPLE / "training-v1.0").iterdir() if p.is_dir())
    assert [json.loads(line)["submitter"] for line in lines] == submitters
    assert status == 1  # Intel's package has errors
    for line, submitter in zip(lines, submitters, strict=True):
        _, alone, _ = check(str(SAMPLE / "training-v1.0" / submitter), "--json", "--jobs", "1")
        assert json.loads(line) == json.loads(alone)


def test_a_round_folder_in_text_ends_with_a_count_and_draws_no_bar_when_piped():
    status, out, err = check(str(SAMPLE / "training-v0.7"))
    assert status == 1
    assert out.splitlines()[-1] == "4 submitters checked, 2 with errors"
    assert err == ""  # not a terminal: no progress bar


def test_jobs_must_be_a_positive_number():
    assert check(str(SAMPLE / "training-v1.0/Fujitsu"), "--jobs", "0")[0] == 2


def test_github_format_prints_one_annotation_per_finding_with_paths_from_the_working_directory():
    status, out, _ = check(str(SAMPLE / "training-v1.0/Intel"), "--format", "github")
    _, document, _ = check(str(SAMPLE / "training-v1.0/Intel"), "--json")
    report = json.loads(document)
    findings = (
        report["findings"]
        + [f for part in report["systems"] + report["results"] for f in part["findings"]]
        + [f for r in report["results"] for run in r["runs"] for f in run["findings"]]
    )
    annotations = out.splitlines()[:-1]
    assert status == 1
    assert len(annotations) == len(findings)
    assert sum(a.startswith("::error ") for a in annotations) == sum(
        f["severity"] == "error" for f in findings
    )
    mismatch = next(a for a in annotations if "title=LOG_DIVISION_MISMATCH" in a)
    assert mismatch.startswith(
        "::error file=" + str(SAMPLE / "training-v1.0/Intel/results/4-nodes-32s-8376H-pytorch/")
    )


def test_github_annotations_escape_data_and_properties_as_the_actions_toolkit_does():
    finding = Finding(ERROR, "CODE:1,2", "100% bad\r\nnext line", file="results/a,b:c/result_0.txt", line=7)
    assert github_annotation(finding, "pkg") == (
        "::error file=pkg/results/a%2Cb%3Ac/result_0.txt,line=7,title=CODE%3A1%2C2::100%25 bad%0D%0Anext line"
    )
    note = Finding(INFO, "NOTE", "no file")
    assert github_annotation(note, "pkg") == "::notice title=NOTE::no file"


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
    assert checked == len([p for p in corpus.glob("v*/*") if p.is_dir()])


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
    assert {f["code"] for r in document["results"] for run in r["runs"] for f in run["findings"]} >= {
        "RUN_NO_EVENTS"
    }


def test_it_reports_progress_per_file_and_per_package_checker():
    from mlperf_check.checkers import checkers_of_scope
    from mlperf_check.pipeline import check_folder

    calls = []
    check_folder(SAMPLE / "training-v1.0/Fujitsu", progress=lambda *call: calls.append(call))
    parsing = [c for c in calls if c[0] == "parsing"]
    checking = [c for c in calls if c[0] == "checking"]
    assert parsing == [("parsing", n, 5) for n in range(1, 6)]
    assert checking[-1] == ("checking", len(checkers_of_scope("package")), len(checkers_of_scope("package")))


def test_a_round_folder_on_a_terminal_shows_a_progress_bar():
    import fcntl
    import os
    import pty
    import struct
    import termios

    controller, terminal = pty.openpty()
    # A new pseudo-terminal is 0 columns wide, where the bar has no room at all.
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    process = subprocess.Popen(
        [sys.executable, "-m", "mlperf_check", str(SAMPLE / "training-v0.7"), "--format", "json"],
        cwd=REPO,
        stdout=terminal,
        stderr=terminal,
        env={"PATH": "/usr/bin:/bin"},
    )
    os.close(terminal)
    shown = b""
    while True:  # read while it runs: a full terminal buffer would block the command
        try:
            chunk = os.read(controller, 65536)
        except OSError:  # EIO: the command exited and everything was read
            break
        if not chunk:
            break
        shown += chunk
    os.close(controller)
    assert process.wait(60) == 1
    assert b"4/4" in shown and b"submitter" in shown


def test_manage_py_check_package_is_the_same_command():
    folder = str(SAMPLE / "training-v1.0/Intel")
    completed = subprocess.run(
        [sys.executable, "manage.py", "check_package", folder, "--format", "json", "--jobs", "1"],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "DJANGO_ENV": "development"},  # Django starts: it needs its settings
    )
    _, direct, _ = check(folder, "--format", "json")
    assert completed.returncode == 1, completed.stderr
    assert json.loads(completed.stdout) == json.loads(direct)


def test_github_format_on_a_round_names_files_under_each_submitter_folder():
    round_folder = SAMPLE / "training-v1.0"
    status, out, _ = check(str(round_folder), "--format", "github", "--jobs", "1")
    annotations = [line for line in out.splitlines() if line.startswith("::")]
    summaries = [line for line in out.splitlines() if not line.startswith("::")]
    assert status == 1
    assert [line.split(":")[0] for line in summaries] == sorted(
        p.name for p in round_folder.iterdir() if p.is_dir()
    )
    assert any(
        f"file={round_folder}/Intel/results/4-nodes-32s-8376H-pytorch/" in line for line in annotations
    )
    files = [line.split("file=", 1)[1].split(",", 1)[0] for line in annotations if "file=" in line]
    assert files and all(name.startswith(f"{round_folder}/") for name in files)


def test_a_training_check_does_not_import_the_inference_pipeline_or_its_checkers():
    # Every path is first asked whether it is inference (discovery only); the rest of the
    # inference code costs ~30 ms of start-up that a training check does not need.
    script = (
        "import sys; from mlperf_check import cli; "
        f"cli.main([{str(SAMPLE / 'training-v0.7/Inspur')!r}, '--json', '--jobs', '1'], stdout=open('/dev/null', 'w')); "
        "print(sorted(m for m in sys.modules if m.startswith('mlperf_check.inference.')))"
    )
    completed = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True)
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.split() and "pipeline" not in completed.stdout and "checkers" not in completed.stdout


def write_waivers(path: Path, waivers: list[dict]) -> Path:
    """A waivers file as the server exports it (review/findings.py waivers_document)."""
    path.write_text(json.dumps({"format": "mlperf-check-waivers/1", "round": "training-v1.0",
                                "organization": "intel", "version": 2, "waivers": waivers}))
    return path


def test_a_servers_waivers_file_marks_the_waived_findings_and_they_count_nowhere(tmp_path):
    intel = str(SAMPLE / "training-v1.0/Intel")
    waivers = write_waivers(tmp_path / "waivers.json", [
        # A known false positive of one result (the dlrm runs' log division and org).
        {"id": 7, "kind": "false_positive", "label": "Known false positive", "checker": "", "code": code,
         "system": "4-nodes-32s-8376H-pytorch", "benchmark": "dlrm", "reason": "logged by the launcher"}
        for code in ("LOG_DIVISION_MISMATCH", "LOG_ORG_MISMATCH")
    ] + [
        # A package finding (system and benchmark ""): the stray file at the root.
        {"id": 8, "kind": "false_positive", "label": "Known false positive", "checker": "",
         "code": "LAYOUT_UNKNOWN_FILE", "system": "", "benchmark": "", "reason": "a README is fine"},
        # A bypass of a checker on another result: covers only that result's findings of it.
        {"id": 9, "kind": "rcp_bypass", "label": "RCP check bypassed", "checker": "compliance", "code": "",
         "system": "1-node-8s-8380H-tensorflow", "benchmark": "resnet", "reason": "target reached late"},
    ])
    before_status, before, _ = check(intel, "--jobs", "1")
    status, out, err = check(intel, "--jobs", "1", "--waivers", str(waivers))
    assert (before_status, status, err) == (1, 0, "")
    assert "[LOG_ORG_MISMATCH]" in before.split("WARNINGS")[0]
    errors_part, waived_part = out.split("WAIVED BY A DECISION")[0], out.split("WAIVED BY A DECISION")[1]
    assert "ERRORS" not in errors_part
    assert "(waived by decision 7: Known false positive LOG_ORG_MISMATCH, logged by the launcher)" in waived_part
    assert "(waived by decision 9: RCP check bypassed, target reached late)" in waived_part
    # The package's own LAYOUT_UNKNOWN_FILE is waived; the same code in a result folder is not.
    assert "(waived by decision 8: Known false positive LAYOUT_UNKNOWN_FILE, a README is fine)" in waived_part
    assert "[LAYOUT_UNKNOWN_FILE] results/1-node-8s-8380H-tensorflow" in errors_part
    assert out.splitlines()[-1].startswith("0 errors, ") and out.splitlines()[-1].endswith(" waived by a decision")
    document = json.loads(check(intel, "--jobs", "1", "--json", "--waivers", str(waivers))[1])
    (package_finding,) = document["findings"]
    assert package_finding["waived_by"].startswith("decision 8:")
    github = check(intel, "--jobs", "1", "--format", "github", "--waivers", str(waivers))[1]
    assert "::error " not in github and "waived by decision 7" in github


def test_a_bad_waivers_file_is_bad_usage_with_the_reason(tmp_path):
    intel = str(SAMPLE / "training-v1.0/Intel")
    (tmp_path / "other.json").write_text('{"results": []}')
    (tmp_path / "broken.json").write_text("{")
    cases = {
        "missing.json": "cannot read it",
        "other.json": 'expected the server\'s waivers export ("format": "mlperf-check-waivers/1")',
        "broken.json": "not JSON",
    }
    for name, reason in cases.items():
        status, out, err = check(intel, "--waivers", str(tmp_path / name))
        assert (status, out) == (2, "") and f"{tmp_path / name}: {reason}" in err
    bad_entry = write_waivers(tmp_path / "entry.json", [{"kind": "rcp_bypass"}])
    assert "waivers[0] needs an id and a label" in check(intel, "--waivers", str(bad_entry))[2]
    round_status, _, round_err = check(str(SAMPLE / "training-v1.0"), "--waivers", str(write_waivers(tmp_path / "w.json", [])))
    assert round_status == 2 and "check one submitter folder with it" in round_err


def test_submit_prints_the_servers_verdict_with_its_waived_findings():
    from mlperf_check.submit import print_verdict

    finding = {"severity": "error", "code": "SEED_REUSED", "message": "seed 7 in two runs", "file": "r/result_1.txt",
               "line": 3, "waived_by": None}
    waived = {**finding, "waived_by": {"id": 4, "label": "Seed check bypassed", "code": "", "kind": "seed_bypass",
                                       "reason": "the launcher's seeds"}}
    status = {"id": 1, "version": 2, "round": "training-v1.0", "page_url": "/submit/uploads/1/", "results": [],
              "job": {"state": "done"}, "finding_counts": {"error": 1, "waived": 1}, "findings": [finding, waived]}
    out = io.StringIO()
    assert print_verdict(status, out) == 1
    lines = out.getvalue().splitlines()
    assert lines[1].startswith("  ERROR   [SEED_REUSED]")
    assert lines[2].startswith("  WAIVED  [SEED_REUSED]")
    assert lines[2].endswith("(waived by decision 4: Seed check bypassed, the launcher's seeds)")
    assert lines[-1] == "1 errors, 0 warnings, 0 notes, 1 waived by a decision"
