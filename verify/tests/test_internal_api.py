"""The worker's internal API: one token opens one job, only until it finishes; the server decides
from the evidence it holds, never from what a worker says; bad bodies are refused, with the reason."""

from __future__ import annotations

import io
import json
import tarfile
import tempfile
import time
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from verify import services, tokens
from verify.constants import JobState, Outcome
from verify.models import VerificationJob
from verify.tests.evidence import evidence, like_the_claim, live_log
from verify.tests.world import stored_log, verifiable_result

pytestmark = pytest.mark.django_db


@pytest.fixture
def issued(personas, tmp_path, monkeypatch, django_capture_on_commit_callbacks):
    """Two queued jobs and their tokens, derived as a GPU worker does from the nonce the queue carried."""
    nonces = {}
    monkeypatch.setattr(services, "enqueue", lambda job_id, nonce: nonces.__setitem__(job_id, nonce) or True)
    first = verifiable_result(personas, tmp_path / "a")
    second = verifiable_result(personas, tmp_path / "b", system_id="cpu_box_b")  # another result: two jobs at once
    with django_capture_on_commit_callbacks(execute=True):
        job = services.request_verification(actor=personas["reviewer"], result=first, runs=2)
        other = services.request_verification(actor=personas["chair"], result=second)
    key = services.worker_key()
    return {"job": job, "token": tokens.job_token(key, job.pk, nonces[job.pk]), "nonce": nonces[job.pk],
            "other": other, "other_token": tokens.job_token(key, other.pk, nonces[other.pk])}


def call(method: str, job_id: int, name: str, token: str | None, body=None, raw: bytes | None = None):
    headers = {"HTTP_AUTHORIZATION": f"Bearer {token}"} if token else {}
    client = Client(enforce_csrf_checks=True)
    url = f"/internal/verify/{job_id}/{name}"
    if method == "GET":
        return client.get(url, **headers)
    data = raw if raw is not None else json.dumps(body or {})
    return client.post(url, data=data, content_type="application/json", **headers)


def report_run(job_id: int, token: str, number: int, epoch: float, started_t: float, text: str | None = None,
               **changes) -> dict:
    """What an honest worker posts for one re-run (the log with its arrivals, then the evidence);
    `text` replaces the log, `changes` go into the evidence. Returns the `run` call's answer."""
    seed = 40 + number
    live, arrivals, ended_t = live_log(seed, epoch, started_t)
    assert call("POST", job_id, "log", token, {"run": number, "text": text or live, "arrivals": arrivals}).status_code == 200
    response = call("POST", job_id, "run", token, evidence(number, seed, epoch, started_t, ended_t, **changes))
    assert response.status_code == 200, response.json()
    return response.json()


def started(issued) -> tuple[VerificationJob, str]:
    job, token = issued["job"], issued["token"]
    assert call("GET", job.pk, "spec", token).status_code == 200
    assert call("POST", job.pk, "progress", token, {"hardware": like_the_claim(),
                                                     "gpu": {"available": False, "note": "no GPU"}}).status_code == 200
    return job, token


def test_the_spec_starts_the_job_and_says_what_to_run_not_what_to_find(issued):
    job = issued["job"]
    response = call("GET", job.pk, "spec", issued["token"])
    assert response.status_code == 200
    spec = response.json()
    assert spec == {"job": job.pk, "benchmark": "tiny_mlp", "runs": 2, "run_script": "run_and_time.sh",
                    "evaluator": "tiny_mlp", "limits": spec["limits"]}  # no claim: the worker judges nothing
    assert set(spec["limits"]) == {"wall_seconds", "memory_bytes", "max_processes", "cpu_seconds", "file_size_bytes",
                                   "tmpfs_bytes", "output_bytes", "cpus"}
    job.refresh_from_db()
    assert job.state == JobState.RUNNING and job.started_at is not None
    # A job runs once: a second start (a redelivered message) is refused.
    assert call("GET", job.pk, "spec", issued["token"]).status_code == 403


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
    assert call("GET", issued["job"].pk, name, issued["nonce"]).status_code == 403  # what the queue carries
    assert call("GET", 999999, name, issued["token"]).status_code == 403


def test_production_refuses_verifications_without_a_worker_key(personas, tmp_path, settings):
    result = verifiable_result(personas, tmp_path)
    settings.PRODUCTION, settings.VERIFY_WORKER_KEY = True, ""
    with pytest.raises(services.VerificationRefused, match="VERIFY_WORKER_KEY is not set") as refused:
        services.request_verification(actor=personas["reviewer"], result=result, runs=1)
    assert refused.value.status == 503 and not VerificationJob.objects.exists()
    settings.VERIFY_WORKER_KEY = "short"
    with pytest.raises(services.VerificationRefused, match="at least 32 characters"):
        services.request_verification(actor=personas["reviewer"], result=result, runs=1)


def test_an_honest_worker_is_judged_by_the_server_then_its_token_is_dead(issued):
    job, token = started(issued)
    epoch = time.time() - 60
    first = report_run(job.pk, token, 1, epoch, 1.0)
    assert first == {"ok": True, "violations": []}
    report_run(job.pk, token, 2, epoch, 5.0)
    assert call("POST", job.pk, "log", token, {"telemetry": [{"t": 3.5, "gpu": 0, "power_w": 90}]}).status_code == 200
    done = call("POST", job.pk, "outcome", token, {"message": "2 re-run(s) done"})
    assert done.status_code == 200 and done.json()["outcome"] == Outcome.REPRODUCED
    job.refresh_from_db()
    assert job.state == JobState.FINISHED and job.outcome == Outcome.REPRODUCED and job.runs_done == 2
    assert [rerun["number"] for rerun in job.reruns] == [1, 2] and job.reruns[0]["seed"] == 41
    assert job.rerun_minutes == pytest.approx(job.claimed_minutes, rel=0.01)
    assert job.telemetry == [{"t": 3.5, "gpu": 0, "power_w": 90}] and stored_log(job).count(":::MLLOG") == 2 * 75
    assert all(check["passed"] for check in job.checks)
    # The token expired with the job: nothing more can be written or read with it.
    for method, name, body in (("GET", "spec", None), ("POST", "log", {"text": "late"}),
                               ("POST", "outcome", {"outcome": "failed"})):
        assert call(method, job.pk, name, token, body).status_code == 403
    job.refresh_from_db()
    assert job.outcome == Outcome.REPRODUCED and "late" not in stored_log(job)


def test_a_job_that_never_started_cannot_be_reproduced(issued):
    """Issue 36 item 1: {"outcome": "reproduced"} on a job no worker started made it reproduced."""
    job, token = issued["job"], issued["token"]
    response = call("POST", job.pk, "outcome", token, {"outcome": "reproduced"})
    assert response.status_code == 200 and response.json()["outcome"] == Outcome.FAILED
    job.refresh_from_db()
    assert (job.outcome, job.started_at, job.reruns) == (Outcome.FAILED, None, [])
    assert job.message == "the job never started"


def test_a_worker_saying_reproduced_with_no_runs_is_not_believed(issued):
    job, token = started(issued)
    refused = call("POST", job.pk, "outcome", token, {"outcome": "reproduced", "rerun_minutes": 0.0165, "reruns": []})
    assert refused.status_code == 400 and "unknown field(s): rerun_minutes, reruns" in refused.json()["error"]
    response = call("POST", job.pk, "outcome", token, {"outcome": "reproduced"})
    assert response.json()["outcome"] == Outcome.FAILED
    job.refresh_from_db()
    assert job.outcome == Outcome.FAILED and job.message == "no re-run was reported" and job.rerun_minutes is None


def test_a_worker_saying_reproduced_after_one_of_two_runs_is_not_believed(issued):
    job, token = started(issued)
    report_run(job.pk, token, 1, time.time() - 60, 1.0)
    response = call("POST", job.pk, "outcome", token, {"outcome": "reproduced", "message": "all good"})
    assert response.json()["outcome"] == Outcome.FAILED
    assert response.json()["message"] == "the worker ended the job after 1 of 2 re-runs: all good"


def test_evidence_that_contradicts_the_claim_is_not_reproduced_whatever_the_worker_says(issued):
    job, token = started(issued)
    epoch = time.time() - 60
    idle = report_run(job.pk, token, 1, epoch, 1.0, cpu_busy=0.01)
    assert idle["violations"] and "the time was not spent computing" in idle["violations"][0]
    report_run(job.pk, token, 2, epoch, 5.0, evaluation={"error": "the run wrote no model (/output/model.npz)"})
    response = call("POST", job.pk, "outcome", token, {"outcome": "reproduced"})
    assert response.json()["outcome"] == Outcome.NOT_REPRODUCED
    job.refresh_from_db()
    assert job.message.startswith("2 of 2 re-runs not reproduced (re-run 1: the run's processes used")
    assert "the run wrote no model" in job.reruns[1]["violations"][0]
    assert {check["check"] for check in job.checks if check["passed"] is False} == {"work", "quality"}


@pytest.mark.parametrize("raw, words", [
    (b"not json", "expected a JSON object"),
    (b"[1, 2]", "expected a JSON object"),
    (b'{"text": NaN}', "expected a JSON object"),
    (b'{"text": 5}', "text must be a text"),
    (b'{"telemetry": "x"}', "telemetry must be a list"),
    # Issue 36 item 5: this sample made the job page answer 500 from then on.
    (b'{"telemetry": [{"t": 0, "gpu": "0", "utilization_pct": 50}]}', "telemetry[0].gpu must be a whole number"),
    (b'{"telemetry": [{"t": 0, "gpu": 0, "utilization_pct": 250}]}', "telemetry[0].utilization_pct must be a number from 0 to 100"),
    (b'{"telemetry": [{"t": 0, "gpu": true}]}', "telemetry[0].gpu must be a whole number"),
    (b'{"telemetry": [{"t": -1, "gpu": 0}]}', "telemetry[0].t must be a number"),
    (b'{"telemetry": [{"gpu": 0}]}', "telemetry[0] lacks t"),
    (b'{"telemetry": [{"t": 1, "gpu": 0, "<script>": 1}]}', "telemetry[0] has unknown field(s): <script>"),
    (b'{"telemetry": [1]}', "telemetry[0] must be a JSON object"),
    (b'{"arrivals": [[1, 0.5]]}', "arrivals belong to a re-run"),
    (b'{"run": 3, "text": "x"}', "run must be a whole number from 1 to 2"),
    (b'{"run": 1, "arrivals": [[1]]}', "arrivals[0] must be a pair"),
])
def test_malformed_log_bodies_are_refused_with_the_reason_and_nothing_is_stored(issued, raw, words):
    job, token = started(issued)
    response = call("POST", job.pk, "log", token, raw=raw)
    assert response.status_code == 400 and words in response.json()["error"], response.json()
    job.refresh_from_db()
    assert job.telemetry == [] and job.log_chars == 0


def test_too_many_samples_in_one_call_are_refused(issued):
    job, token = started(issued)
    samples = [{"t": 1, "gpu": 0}] * 5001
    response = call("POST", job.pk, "log", token, {"telemetry": samples})
    assert response.status_code == 400 and "at most 5000 per call" in response.json()["error"]


@pytest.mark.parametrize("change, words", [
    ({"status": "reproduced"}, "status must be one of exited, timed_out"),
    ({"number": 0}, "number must be a whole number from 1 to 2"),
    ({"epoch_at_zero": 12}, "epoch_at_zero must be a number"),
    ({"cpu": [[1, "x"]]}, "cpu[0][1] must be a number"),
    ({"evaluation": {"accuracy": "high"}}, "evaluation.accuracy must be a number"),
    ({"minutes": 0.01}, "unknown field(s): minutes"),
    ({"number": 2}, "expected the evidence of re-run 1, not of re-run 2"),
])
def test_malformed_run_evidence_is_refused(issued, change, words):
    job, token = started(issued)
    body = {**evidence(1, 41, time.time() - 60, 1.0, 2.0), **change}
    response = call("POST", job.pk, "run", token, body)
    assert response.status_code == 400 and words in response.json()["error"], response.json()
    job.refresh_from_db()
    assert job.reruns == []


def test_a_rerun_is_reported_once_and_never_before_the_job_started(issued):
    job, token = issued["job"], issued["token"]
    early = call("POST", job.pk, "run", token, evidence(1, 41, time.time() - 60, 1.0, 2.0))
    assert early.status_code == 400 and "the job has not started" in early.json()["error"]
    job, token = started(issued)
    epoch = time.time() - 60
    report_run(job.pk, token, 1, epoch, 1.0)
    again = call("POST", job.pk, "run", token, evidence(1, 41, epoch, 1.0, 2.0))
    assert again.status_code == 400 and "expected the evidence of re-run 2" in again.json()["error"]


def test_a_worker_cannot_send_its_own_figures(issued):
    job, token = started(issued)
    rerun = {"number": 1, "seed": 5, "minutes": 0.02, "reached_target": True}
    response = call("POST", job.pk, "progress", token, {"stage": "parsed", "rerun": rerun})
    assert response.status_code == 400 and "unknown field(s): rerun" in response.json()["error"]


def test_the_log_is_capped_and_a_cut_rerun_cannot_be_judged(issued, settings):
    settings.VERIFY_MAX_LOG_CHARS = 50
    job, token = started(issued)
    for _ in range(3):
        call("POST", job.pk, "log", token, {"text": "x" * 30})
    job.refresh_from_db()
    assert stored_log(job).startswith("x" * 50) and "[log cut at 50 characters]" in stored_log(job) and job.log_truncated
    assert stored_log(job).count("x") == 50
    cut = report_run(job.pk, token, 1, time.time() - 60, 1.0)
    assert any("the stored log was cut at VERIFY_MAX_LOG_CHARS" in text for text in cut["violations"])


def test_the_sweep_finishes_jobs_whose_worker_vanished(issued, settings):
    job, token = started(issued)
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
    nonces = {}
    monkeypatch.setattr(services, "enqueue", lambda job_id, nonce: nonces.__setitem__(job_id, nonce) or True)
    monkeypatch.setattr("django.conf.settings.VERIFY_RUN_SCRIPT", "run_and_time_gpu.sh")
    result = verifiable_result(personas, tmp_path)
    with django_capture_on_commit_callbacks(execute=True):
        job = services.request_verification(actor=personas["reviewer"], result=result, runs=1)
    scratch = tmp_path / "scratch"  # the temporary folder, of this test alone
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    response = call("GET", job.pk, "code", tokens.job_token(services.worker_key(), job.pk, nonces[job.pk]))
    assert response.status_code == 410
    assert not list(scratch.iterdir())  # before, the refusal left its empty folder behind
    job.refresh_from_db()
    assert job.outcome == Outcome.FAILED
    assert "benchmarks/tiny_mlp/implementations/<impl>/run_and_time_gpu.sh" in job.message
