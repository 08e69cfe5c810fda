"""`pip install` of the repository into a fresh virtualenv: the checker alone (no Django, DRF, Celery
or psycopg2, none of the web project's packages), and the installed `mlperf-check` prints the same
findings and scores as the server stores for the same folders after `import_results`."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from django.core.management import call_command

from results.models import Finding, Result, Round, Submission

REPO = Path(__file__).resolve().parents[1]
WEB_DISTRIBUTIONS = {"django", "djangorestframework", "celery", "psycopg2", "psycopg2-binary", "kombu"}

pytestmark = pytest.mark.slow(minutes=2)


@pytest.fixture(scope="module")
def fresh_venv(tmp_path_factory) -> Path:
    """A venv holding only `pip install <copy of the repository>` (a copy, so that the build's
    build/ and *.egg-info folders do not land in the working tree). `--no-compile`: pip's bytecode
    of numpy, pandas and scipy was 17 of the install's 25 CPU-seconds, for a handful of runs."""
    tmp = tmp_path_factory.mktemp("fresh-venv")
    source = tmp / "repository"
    shutil.copytree(
        REPO,
        source,
        ignore=shutil.ignore_patterns(
            ".venv",
            ".git",
            "build",
            "*.egg-info",
            "media",
            "staticfiles",
            "var",
            "test-output",
            "__pycache__",
            "*.sqlite3",
        ),
    )
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    installed = subprocess.run(
        [str(venv / "bin/pip"), "install", "-q", "--no-compile", str(source)], capture_output=True, text=True, timeout=900
    )
    assert installed.returncode == 0, installed.stderr
    return venv


def test_it_installs_the_checker_without_the_web_project(fresh_venv):
    listed = subprocess.run(
        [str(fresh_venv / "bin/pip"), "list", "--format", "json"], capture_output=True, text=True, check=True
    )
    distributions = {row["name"].lower() for row in json.loads(listed.stdout)}
    assert "mlperf-check" in distributions
    assert not distributions & WEB_DISTRIBUTIONS
    shown = subprocess.run(
        [str(fresh_venv / "bin/pip"), "show", "-f", "mlperf-check"],
        capture_output=True,
        text=True,
        check=True,
    )
    files = [line.strip() for line in shown.stdout.split("Files:", 1)[1].splitlines() if line.strip()]
    top_levels = {Path(name).parts[0] for name in files if not name.startswith("..")}
    assert top_levels == {"mlperf_check", "mlperf_check-0.1.0.dist-info"}
    assert not any(name.startswith("mlperf_check/tests/") for name in files)


def installed_check(venv: Path, round_folder: Path, cwd: Path) -> list[dict]:
    """The installed command on a whole round, run away from the repository (nothing of it on
    the import path): one JSON document per submitter."""
    completed = subprocess.run(
        [str(venv / "bin/mlperf-check"), str(round_folder), "--format", "json"],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin"},
        timeout=600,
    )
    assert completed.returncode in (0, 1), completed.stderr
    return [json.loads(line) for line in completed.stdout.splitlines()]


def all_findings(document: dict) -> list[dict]:
    findings = list(document["findings"])
    for system in document["systems"]:
        findings += system["findings"]
    for result in document["results"]:
        findings += result["findings"]
        for run in result["runs"]:
            findings += run["findings"]
    return findings


def assert_same_as_the_server(documents: list[dict], round_folder: Path, slug: str) -> None:
    call_command("import_results", str(round_folder), "--round", slug, "--jobs", "1", stdout=io.StringIO())
    round_ = Round.objects.with_slug(slug).get()
    benchmarks = set(round_.benchmarks.values_list("name", flat=True))
    assert len(documents) == Submission.objects.filter(round=round_).count()
    for document in documents:
        submission = Submission.objects.get(
            round=round_, source=str((round_folder / document["submitter"]).resolve())
        )
        assert submission.ruleset_version == document["ruleset"]
        stored_findings = Counter(
            Finding.objects.filter(submission=submission).values_list("severity", "code", "file", "line")
        )
        printed_findings = Counter(
            (f["severity"], f["code"], f["file"], f["line"]) for f in all_findings(document)
        )
        assert printed_findings == stored_findings, document["submitter"]
        stored_scores = {
            (system, benchmark): score
            for system, benchmark, score in Result.objects.filter(submission=submission).values_list(
                "system__system_id", "benchmark__name", "score_minutes"
            )
        }
        described = {system["system"] for system in document["systems"]}
        # The server stores a result where the system is described and the benchmark is the round's.
        printed_scores = {
            (result["system"], result["benchmark"]): result["score_minutes"]
            for result in document["results"]
            if result["system"] in described and result["benchmark"] in benchmarks
        }
        assert printed_scores == stored_scores, document["submitter"]


@pytest.mark.django_db
def test_the_installed_command_agrees_with_the_server_on_the_sample(fresh_venv, sample_data, tmp_path):
    round_folder = sample_data / "training-v1.0"
    documents = installed_check(fresh_venv, round_folder, tmp_path)
    assert [d["submitter"] for d in documents] == sorted(p.name for p in round_folder.iterdir() if p.is_dir())
    assert_same_as_the_server(documents, round_folder, "training-v1.0")


@pytest.mark.corpus
@pytest.mark.django_db
def test_the_installed_command_agrees_with_the_server_on_the_corpus_round(fresh_venv, corpus, tmp_path):
    round_folder = corpus / "v1.0"
    documents = installed_check(fresh_venv, round_folder, tmp_path)
    assert len(documents) >= 10
    assert_same_as_the_server(documents, round_folder, "training-v1.0")
