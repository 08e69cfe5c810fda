"""The checker's suite registry (mlperf_check/suites/): every suite satisfies CheckerSuite, the
command and `submit` take a path's suite from it, and each suite's rulesets and checks are its own."""

from __future__ import annotations

import inspect
import io
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from mlperf_check import cli
from mlperf_check.errors import PackageUnreadable, UnknownRules
from mlperf_check.inference.report import InferenceReport
from mlperf_check.report import PackageReport
from mlperf_check.suites import SUITES, CheckerSuite, suite_for

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "sample_data"


def protocol_members() -> dict[str, object]:
    """CheckerSuite's attributes (annotations) and methods (their signatures)."""
    members: dict[str, object] = dict.fromkeys(CheckerSuite.__annotations__)
    members.update(
        (name, inspect.signature(value))
        for name, value in vars(CheckerSuite).items()
        if inspect.isfunction(value) and not name.startswith("_")
    )
    return members


@pytest.mark.parametrize("key", list(SUITES))
def test_every_registered_suite_satisfies_the_protocol_under_its_own_name(key):
    suite = SUITES[key]
    assert suite.name == key
    for name, signature in protocol_members().items():
        assert hasattr(suite, name), f"{key} lacks {name}"
        if signature is not None:
            parameters = list(inspect.signature(getattr(suite, name)).parameters.values())
            expected = list(signature.parameters.values())[1:]  # without self
            assert [(p.name, p.kind) for p in parameters] == [(p.name, p.kind) for p in expected], (key, name)


def test_the_registry_names_each_suite_of_the_project_once_the_default_last():
    assert list(SUITES) == ["tiny", "automotive", "inference", "hpc", "training"]
    assert SUITES["training"].recognizes(Path("/no/such/path"))  # the default takes every path


@pytest.mark.parametrize(
    ("path", "suite"),
    [
        ("automotive-v0.5", "automotive"),
        ("automotive-v0.5/closed/NVIDIA", "automotive"),
        ("inference-v4.1/closed/NeuralMagic", "inference"),
        ("inference-v0.7", "inference"),
        ("hpc-v1.0/ANL", "hpc"),
        ("hpc-v1.0", "hpc"),  # a round folder of HPC submitters
        ("training-v1.0/Fujitsu", "training"),
        ("training-v1.0", "training"),
        ("no-such-folder", "training"),  # the training command says it is no package
    ],
)
def test_a_path_is_checked_by_the_first_suite_that_recognizes_it(path, suite):
    assert suite_for(SAMPLE / path).name == suite


def test_an_archive_is_told_by_its_first_result_file(tmp_path):
    for name, folder in (("hpc", "uploads/hpc-v2.0/Dell"), ("training", "training-v1.0/Fujitsu"),
                         ("automotive", "automotive-v0.5/closed/NVIDIA")):
        archive = tmp_path / f"{name}.tar.gz"
        with tarfile.open(archive, "w:gz") as tar:
            tar.add(SAMPLE / folder, arcname=Path(folder).name)
        assert suite_for(archive).name == name


@pytest.mark.parametrize(
    ("suite", "typed", "name"),
    [
        ("training", "1.0", "1.0.0"),
        ("hpc", "1.0", "hpc-1.0.0"),  # a bare version names the HPC ruleset of that round
        ("hpc", "hpc-2.0.0", "hpc-2.0.0"),
        ("inference", "4.1", "v4.1"),
        ("automotive", "0.5", "automotive-0.5"),
        ("automotive", "automotive-v0.5", "automotive-0.5"),
    ],
)
def test_a_typed_ruleset_names_one_of_the_suites_rulesets(suite, typed, name):
    assert SUITES[suite].ruleset_name(typed) == name
    assert name in SUITES[suite].rulesets()


@pytest.mark.parametrize(("suite", "typed"), [("training", "hpc-1.0.0"), ("training", "9.9"), ("inference", "9.9"),
                                                   ("automotive", "0.6")])
def test_a_ruleset_the_suite_has_no_rules_for_is_refused(suite, typed):
    with pytest.raises(UnknownRules):
        SUITES[suite].ruleset_name(typed)


def test_rulesets_are_listed_oldest_first():
    assert SUITES["training"].rulesets()[0] == "0.5.0"
    assert SUITES["hpc"].rulesets()[0] == "hpc-1.0.0"
    assert SUITES["inference"].rulesets()[:2] == ("v0.5", "v0.7")


def test_each_suite_checks_a_package_with_its_own_pipeline():
    inference = SUITES["inference"].check_package(SAMPLE / "inference-v4.1/closed/NeuralMagic")
    training = SUITES["training"].check_package(SAMPLE / "training-v1.0/Fujitsu", ruleset="1.0.0")
    assert isinstance(inference, InferenceReport) and inference.round == "v4.1"
    assert isinstance(training, PackageReport) and (training.ruleset, training.has_errors) == ("1.0.0", False)
    assert SUITES["training"].report_text(training).startswith("Fujitsu: training 1.0.0 ruleset")
    assert SUITES["inference"].report_text(inference).startswith("inference round v4.1:")


@pytest.mark.parametrize("key", list(SUITES))
def test_a_path_no_suite_can_check_is_one_error_for_every_suite(key, tmp_path):
    with pytest.raises(PackageUnreadable):
        SUITES[key].check_package(tmp_path / "missing")


def test_a_round_folder_lists_its_submitter_folders_and_a_submitter_folder_none():
    assert [p.name for p in SUITES["training"].submitter_folders(SAMPLE / "training-v0.7")] == [
        "Fujitsu", "Inspur", "SIAT", "Tencent"
    ]
    assert SUITES["inference"].submitter_folders(SAMPLE / "inference-v4.1") == [
        SAMPLE / "inference-v4.1/closed/NeuralMagic", SAMPLE / "inference-v4.1/closed/UntetherAI"
    ]
    assert SUITES["training"].submitter_folders(SAMPLE / "training-v0.7/Inspur") == []
    assert SUITES["inference"].submitter_folders(SAMPLE / "inference-v4.1/closed/NeuralMagic") == []


def test_a_results_repository_keeping_its_submitters_in_one_round_folder_lists_them(tmp_path):
    # training_results_v0.5 as MLCommons publishes it: v0.5.0/<submitter>/, beside a README.
    repository = tmp_path / "training_results_v0.7"
    shutil.copytree(SAMPLE / "training-v0.7/Inspur", repository / "v0.7.0" / "Inspur")
    (repository / "README.md").write_text("MLPerf Training v0.7 results\n")
    assert SUITES["training"].submitter_folders(repository) == [repository / "v0.7.0" / "Inspur"]
    (repository / "v0.6.0").mkdir()  # two round folders: which one is meant is not guessed
    assert SUITES["training"].submitter_folders(repository) == []


def test_importing_the_command_imports_no_suites_pipeline():
    # The command asks every path's suite first; only that suite's pipeline is imported, when it checks.
    script = "import sys, mlperf_check.cli; print(sorted(m for m in sys.modules if m.endswith('pipeline')))"
    completed = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True)
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.strip() == "['mlperf_check.suites.package_pipeline']"


def submit(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = cli.main(["submit", *args, "--url", "http://127.0.0.1:9", "--token", "t"], stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


def test_submit_checks_an_inference_package_with_the_inference_rules_before_any_upload(tmp_path):
    # A v4.1 folder without its system description has errors: nothing is sent (the URL answers
    # nothing); the local check is the inference one (it once ran the training check on every path).
    package = tmp_path / "closed" / "NeuralMagic"
    shutil.copytree(SAMPLE / "inference-v4.1/closed/NeuralMagic", package)
    for description in (package / "systems").glob("*.json"):
        description.unlink()
    status, out, _ = submit(str(package), "--round", "inference-v4.1")
    assert status == 1
    assert out.startswith("inference round v4.1:")
    assert "Not uploaded: the local check found errors" in out


def test_submit_refuses_an_inference_round_folder():
    status, out, err = submit(str(SAMPLE / "inference-v4.1"), "--round", "inference-v4.1")
    assert (status, out) == (2, "")
    assert "is a round folder; submit one submitter folder at a time" in err
