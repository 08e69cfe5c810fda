"""The worker's internal API: one token opens one job, only until it finishes; bad bodies are refused."""

from __future__ import annotations

import io
import json
import tarfile
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from verify import services
from verify.constants import JobState, Outcome
from verify.models import VerificationJob
from verify.tests.world import stored_log, verifiable_result

pytestmark = pytest.mark.django_db


@pytest.fixture
def issued(personas, tmp_path, monkeypatch, django_capture_on_commit_callbacks):
    """Two queued jobs with the tokens that were sent to the queue (captured instead of sending)."""
    tokens = {}
    monkeypatch.setattr(services, "enqueue", lambda job_id, token: tokens.__setitem__(job_id, token) or True)
    first = verifiable_result(personas, tmp_path / "a")
    second = verifiable_result(personas, tmp_path / "b", system_id="cpu_box_b")  # another result: two jobs at once
    with django_capture_on_commit_callbacks(execute=True):
        job = services.request_verification(actor=personas["reviewer"], result=first, runs=2)
        other = services.request_verification(actor=personas["chair"], result=second)
    return {"job": job, "token": tokens[job.pk], "other": other, "other_token": tokens[other.pk]}


def call(method: str, job_id: int, name: str, token: str | None, body=None, raw: bytes | None = None):
    headers = {"HTTP_AUTHORIZATION": f"Bearer {token}"} if token else {}
    client = Client(enforce_csrf_checks=True)
    url = f"/internal/verify/{job_id}/{name}"
    if method == "GET":
        return client.get(url, **headers)
    data = raw if raw is not None else json.dumps(body or {})
    return client.post(url, data=data, content_type="application/json", **headers)


def test_the_spec_starts_the_job_and_says_what_to_run(issued):
    job = issued["job"]
    response = call("GET", job.pk, "spec", issued["token"])
    assert response.status_code == 200
    spec = response.json()
    assert spec["benchmark"] == "tiny_mlp" and spec["runs"] == 2 and spec["olympic_drop"] == 1
    assert spec["run_script"] == "run_and_time.sh" and spec["ruleset"] == "6.1.0"
    assert spec["claimed_minutes"] == pytest.approx(job.claimed_minutes)
    assert set(spec["limits"]) == {"wall_seconds", "memory_bytes", "max_processes", "cpu_seconds", "file_size_bytes",
                                   "tmpfs_bytes", "output_bytes", "cpus"}
    job.refresh_from_db()
    assert job.state == JobState.RUNNING and job.started_at is not None


def test_the_code_is_the_implementation_folder_only(issued):
    response = call("GET", issued["job"].pk, "code", issued["token"])
    assert response.status_code == 200
    with tarfile.open(fileobj=io.BytesIO(b"".join(response.streaming_content))) as archive:
        names = sorted(archive.getnames())
    assert names == ["implementation", "implementation/run_and_time.sh", "implementation/train.py"]


@pytest.mark.parametrize("name", ["spec", "code"])
def test_a_token_opens_its_own_job_only(issued, name):
    assert call("GET", issued["job"].pk, name, issued["other_token"]).status_code == 403
    assert call("GET", issued["other"].pk, name, issued["token"]).status_code == 403
    assert call("GET", issued["job"].pk, name, None).status_code == 403
    assert call("GET", issued["job"].pk, name, "not-a-token").status_code == 403
    assert call("GET", 999999, name, issued["token"]).status_code == 403


def test_progress_log_and_outcome_then_the_token_is_dead(issued):
    job, token = issued["job"], issued["token"]
    call("GET", job.pk, "spec", token)
    assert call("POST", job.pk, "progress", token, {"stage": "re-run 1 of 2", "runs_done": 0,
                                                     "gpu": {"available": False, "note": "no GPU"}}).status_code == 200
    assert call("POST", job.pk, "log", token, {"text": "line one\n", "telemetry": []}).status_code == 200
    assert call("POST", job.pk, "log", token, {"text": "line <two>\n", "telemetry": [{"t": 1, "gpu": 0, "power_w": 90}]}).status_code == 200
    rerun = {"number": 1, "seed": 5, "minutes": 0.02, "reached_target": True, "run_stop_status": "success",
             "final_quality": 0.96, "error_findings": 0, "eval_curve": [[1, 0.9, 0.01]], "wall_seconds": 1.5}
    assert call("POST", job.pk, "progress", token, {"stage": "parsed", "runs_done": 1, "rerun": rerun}).status_code == 200
    job.refresh_from_db()
    assert (job.stage, job.runs_done, stored_log(job), job.gpu) == ("parsed", 1, "line one\nline <two>\n", {"available": False, "note": "no GPU"})
    assert job.telemetry == [{"t": 1, "gpu": 0, "power_w": 90}] and job.reruns == [services.clean_rerun(rerun)]
    assert job.reruns[0]["minutes"] == 0.02 and job.reruns[0]["violations"] == []  # stored with every field

    done = call("POST", job.pk, "outcome", token, {"outcome": "reproduced", "message": "ok", "rerun_minutes": 0.02,
                                                   "reruns": [rerun, rerun]})
    assert done.status_code == 200
    job.refresh_from_db()
    assert job.state == JobState.FINISHED and job.outcome == Outcome.REPRODUCED and job.rerun_minutes == 0.02
    # The token expired with the job: nothing more can be written or read with it.
    for method, name, body in (("GET", "spec", None), ("POST", "log", {"text": "late"}),
                               ("POST", "outcome", {"outcome": "failed"})):
        assert call(method, job.pk, name, token, body).status_code == 403
    job.refresh_from_db()
    assert job.outcome == Outcome.REPRODUCED and "late" not in stored_log(job)


@pytest.mark.parametrize("raw", [b"not json", b"[1, 2]", b'{"text": NaN}', b'{"text": 5}', b'{"telemetry": "x"}'])
def test_malformed_log_bodies_are_refused(issued, raw):
    response = call("POST", issued["job"].pk, "log", issued["token"], raw=raw)
    assert response.status_code == 400


def test_an_unknown_outcome_is_refused_and_the_sweep_has_its_own(issued):
    response = call("POST", issued["job"].pk, "outcome", issued["token"], {"outcome": "worker_lost"})
    assert response.status_code == 400 and "outcome must be one of" in response.json()["error"]
    assert call("POST", issued["job"].pk, "outcome", issued["token"], {"outcome": "great"}).status_code == 400


def test_the_log_is_capped(issued, settings):
    settings.VERIFY_MAX_LOG_CHARS = 50
    job, token = issued["job"], issued["token"]
    for _ in range(3):
        call("POST", job.pk, "log", token, {"text": "x" * 30})
    job.refresh_from_db()
    assert stored_log(job).startswith("x" * 50) and "[log cut at 50 characters]" in stored_log(job) and job.log_truncated
    assert stored_log(job).count("x") == 50


def test_the_sweep_finishes_jobs_whose_worker_vanished(issued, settings):
    job, token = issued["job"], issued["token"]
    call("GET", job.pk, "spec", token)
    assert services.sweep_stale() == []
    VerificationJob.objects.filter(pk=job.pk).update(heartbeat_at=timezone.now() - timedelta(hours=1))
    assert services.sweep_stale() == [job.pk]
    job.refresh_from_db()
    assert job.outcome == Outcome.WORKER_LOST and "stopped reporting" in job.message
    assert call("POST", job.pk, "log", token, {"text": "I am back"}).status_code == 403
    # Queued jobs nobody took expire too.
    settings.VERIFY_QUEUED_EXPIRE_SECONDS = 0
    assert services.sweep_stale() == [issued["other"].pk]


def test_a_package_without_the_run_script_fails_the_job(personas, tmp_path, monkeypatch, django_capture_on_commit_callbacks):
    tokens = {}
    monkeypatch.setattr(services, "enqueue", lambda job_id, token: tokens.__setitem__(job_id, token) or True)
    monkeypatch.setattr("django.conf.settings.VERIFY_RUN_SCRIPT", "run_and_time_gpu.sh")
    result = verifiable_result(personas, tmp_path)
    with django_capture_on_commit_callbacks(execute=True):
        job = services.request_verification(actor=personas["reviewer"], result=result, runs=1)
    response = call("GET", job.pk, "code", tokens[job.pk])
    assert response.status_code == 410
    job.refresh_from_db()
    assert job.outcome == Outcome.FAILED
    assert "benchmarks/tiny_mlp/implementations/<impl>/run_and_time_gpu.sh" in job.message


@pytest.mark.parametrize("rerun", [
    "not an object",
    {"seed": 1},
    {"number": "1", "seed": 1},
    {"number": 1, "seed": 1, "eval_curve": "lots"},
    {"number": 1, "seed": 1, "eval_curve": [[1, {"nested": "dict"}, 0.1]]},
    {"number": 1, "seed": 1, "violations": [{"a": 1}]},
    {"number": 1, "seed": 1, "reached_target": "yes"},
    {"number": 1, "seed": 1, "minutes": "soon"},
])
def test_a_malformed_rerun_is_refused_and_the_job_page_still_renders(issued, personas, rerun):
    job, token = issued["job"], issued["token"]
    call("GET", job.pk, "spec", token)
    response = call("POST", job.pk, "progress", token, {"stage": "x", "rerun": rerun})
    assert response.status_code == 400 and "rerun" in response.json()["error"]
    response = call("POST", job.pk, "outcome", token, {"outcome": "reproduced", "reruns": [rerun]})
    assert response.status_code == 400 and "rerun" in response.json()["error"]
    job.refresh_from_db()
    assert job.reruns == [] and not job.is_finished
    client = Client()
    client.force_login(personas["reviewer"])
    assert client.get(f"/verify/jobs/{job.pk}/").status_code == 200
