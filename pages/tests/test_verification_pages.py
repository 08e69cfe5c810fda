"""Reviewer pages and the result page's badge, for every persona."""

from __future__ import annotations

import pytest
from django.test import Client

from verify import services
from verify.constants import JobState, Outcome
from verify.evaluators import EVALUATORS
from verify.models import VerificationJob, VerificationLogChunk
from verify.tests.evidence import verify_honestly
from verify.tests.world import verifiable_result

pytestmark = pytest.mark.django_db

PERSONAS = ["owner", "teammate", "outsider", "reviewer", "chair", "anonymous"]


def client_for(personas, who: str) -> Client:
    client = Client()
    if personas[who] is not None:
        client.force_login(personas[who])
    return client


def finished_job(personas, result) -> VerificationJob:
    """A verification reproduced from an honest worker's evidence (verify/tests/evidence.py); its
    log also holds markup, which every page must escape."""
    job = services.request_verification(actor=personas["reviewer"], result=result, runs=1)
    verify_honestly(job)
    VerificationLogChunk.objects.filter(job=job).update(text=":::MLLOG <script>alert(1)</script>\n")
    return VerificationJob.objects.get(pk=job.pk)


@pytest.mark.parametrize("who", PERSONAS)
def test_only_reviewers_and_chairs_may_request(personas, tmp_path, who):
    result = verifiable_result(personas, tmp_path)
    client = client_for(personas, who)
    url = f"/verify/results/{result.pk}/request/"
    page = client.get(url)
    posted = client.post(url, {"runs": "2"})
    if who in ("reviewer", "chair"):
        assert page.status_code == 200 and b"Request verification" in page.content
        assert posted.status_code == 302
        job = VerificationJob.objects.get(result=result)
        assert posted["Location"] == f"/verify/jobs/{job.pk}/"
        assert (job.runs_requested, job.requested_by, job.state) == (2, personas[who], JobState.QUEUED)
    elif who == "anonymous":
        assert page.status_code == 302 and page["Location"].startswith("/accounts/login/")
        assert posted.status_code == 302 and not VerificationJob.objects.exists()
    else:
        assert page.status_code == 403 and posted.status_code == 403
        assert not VerificationJob.objects.exists()


def test_bad_requests_say_why(personas, tmp_path):
    from results.tests.factories import make_result, make_round, make_submission, make_system

    client = client_for(personas, "reviewer")
    result = verifiable_result(personas, tmp_path)
    for runs, words in (("0", b"between 1 and 10"), ("99", b"between 1 and 10"), ("two", b"whole number")):
        response = client.post(f"/verify/results/{result.pk}/request/", {"runs": runs})
        assert response.status_code == 400 and words in response.content
    imported = make_result(make_system(make_submission(make_round("1.0"), personas["beta"])), "resnet")
    response = client.post(f"/verify/results/{imported.pk}/request/", {"runs": "1"})
    assert response.status_code == 400 and b"was imported, not uploaded" in response.content
    assert client.get("/verify/results/999999/request/").status_code == 404
    assert not VerificationJob.objects.exists()


@pytest.mark.parametrize("who", PERSONAS)
def test_a_job_is_seen_by_whoever_may_see_its_result(personas, tmp_path, who, settings):
    # Both jobs verify versions of one citable result: no wait between them here.
    settings.VERIFY_REPEAT_SECONDS = 0
    public = finished_job(personas, verifiable_result(personas, tmp_path / "public"))
    hidden = finished_job(personas, verifiable_result(personas, tmp_path / "hidden", published=False))
    client = client_for(personas, who)
    page = client.get(f"/verify/jobs/{public.pk}/")
    assert page.status_code == 200
    assert b"Reproduced" in page.content and f"re-run score {public.rerun_minutes:.4f} min".encode() in page.content
    assert b"&lt;script&gt;alert(1)&lt;/script&gt;" in page.content and b"<script>alert(1)" not in page.content
    assert b"No GPU telemetry: NVML is not available" in page.content
    # Who requested a verification is part of the review record; the public reads the outcome
    # (issue 36: the facts said "Requested ... by reviewer" to everyone).
    names = who in ("owner", "teammate", "reviewer", "chair")  # its organization and the review team
    assert (b"verification.requested by reviewer" in page.content) == names
    requested = page.content.decode().split("<dt>Requested</dt><dd>", 1)[1].split("</dd>", 1)[0]
    assert requested.endswith(" UTC") and "reviewer" not in requested
    assert b"verification.finished" in page.content
    assert client.get(f"/verify/jobs/{public.pk}/status.json").json()["outcome"] == "reproduced"
    csv = client.get(f"/verify/jobs/{public.pk}/charts/rerun-times.csv")
    assert csv.status_code == 200 and f"re-run,re-run 1,{public.reruns[0]['minutes']}".encode()[:24] in csv.content
    sees_hidden = who in ("owner", "teammate", "reviewer", "chair")
    for url in (f"/verify/jobs/{hidden.pk}/", f"/verify/jobs/{hidden.pk}/status.json",
                f"/verify/jobs/{hidden.pk}/charts/rerun-times.json"):
        assert client.get(url).status_code == (200 if sees_hidden else 404)


@pytest.mark.parametrize("who", PERSONAS)
def test_the_result_page_shows_the_badge_and_the_reruns_beside_the_claimed_runs(personas, tmp_path, who):
    result = verifiable_result(personas, tmp_path)
    client = client_for(personas, who)
    before = client.get(f"/results/{result.result_id}/").content.decode()
    assert "Not independently verified" in before
    assert ("request a verification" in before) == (who in ("reviewer", "chair"))
    job = finished_job(personas, result)
    page = client.get(f"/results/{result.result_id}/").content.decode()
    assert "Verification: Reproduced" in page and f'href="/verify/jobs/{job.pk}/"' in page
    assert 'id="chart-rerun-times"' in page and 'id="chart-rerun-convergence"' in page


def test_a_job_in_progress_shows_its_stage(personas, tmp_path):
    result = verifiable_result(personas, tmp_path)
    job = services.request_verification(actor=personas["chair"], result=result, runs=3)
    VerificationJob.objects.filter(pk=job.pk).update(state=JobState.RUNNING, stage="re-run 2 of 3 (seed 5)", runs_done=1)
    page = client_for(personas, "chair").get(f"/verify/jobs/{job.pk}/").content.decode()
    assert "re-run 2 of 3 (seed 5)" in page and '<progress id="progress" max="3" value="1">' in page
    assert "verification running" in client_for(personas, "anonymous").get(f"/results/{result.result_id}/").content.decode()



def test_the_badge_shows_the_latest_finished_job_and_the_newest_in_progress(personas, tmp_path):
    """One query reads the result's jobs (VerificationJob.objects.latest_and_in_progress): the
    latest finished is the last to finish, whatever its id; the one in progress the newest."""
    from datetime import timedelta

    result = verifiable_result(personas, tmp_path)
    last_to_finish = finished_job(personas, result)
    # Rows as older workers left them (the service queues one job at a time, a day apart).
    job = dict(result=result, runs_requested=1, tolerance=0.05)
    VerificationJob.objects.create(**job, state=JobState.FINISHED, outcome=Outcome.NOT_REPRODUCED,
                                   finished_at=last_to_finish.finished_at - timedelta(hours=1))
    older, newer = (VerificationJob.objects.create(**job, state=JobState.RUNNING) for _ in range(2))
    latest, in_progress = VerificationJob.objects.latest_and_in_progress(result)
    assert (latest.pk, in_progress.pk) == (last_to_finish.pk, newer.pk) and older.pk < newer.pk
    page = client_for(personas, "anonymous").get(f"/results/{result.result_id}/").content.decode()
    assert f'href="/verify/jobs/{last_to_finish.pk}/" title=' in page
    assert f'href="/verify/jobs/{newer.pk}/">verification running' in page

def test_the_round_page_filters_verified_results(personas, tmp_path):
    from results.tests.factories import make_result, make_submission, make_system

    verified = verifiable_result(personas, tmp_path)
    round_ = verified.submission.round
    make_result(make_system(make_submission(round_, personas["beta"]), "beta_box", name="Beta Box"), "tiny_mlp")
    finished_job(personas, verified)
    client = client_for(personas, "anonymous")
    everything = client.get(f"/rounds/{round_.slug}/").content.decode()
    assert "CPU box (2 cores)" in everything and "Beta Box" in everything
    only_verified = client.get(f"/rounds/{round_.slug}/?verified=1").content.decode()
    assert "CPU box (2 cores)" in only_verified and "Beta Box" not in only_verified
    assert 'name="verified" value="1" checked' in only_verified


def test_the_admin_lists_and_shows_jobs_read_only_without_the_token(personas, tmp_path):
    from django.contrib.auth.models import User

    job = finished_job(personas, verifiable_result(personas, tmp_path))
    client = Client()
    client.force_login(User.objects.create_superuser("admin", "admin@example.org", "password"))
    assert client.get("/admin/verify/verificationjob/").status_code == 200
    page = client.get(f"/admin/verify/verificationjob/{job.pk}/change/")
    assert page.status_code == 200 and b"token_sha256" not in page.content
    assert client.get("/admin/verify/verificationjob/add/").status_code == 403


def test_run_file_names_are_escaped_in_the_chart_labels():
    from pages import verification_charts as charts

    hostile = "<a href='//evil'>result_0</a>.txt"
    chart = charts.times([{"label": hostile, "minutes": 1.0, "curve": [[1, 0.9, 0.5]]}], [], 1.0, None)
    assert chart.figure["data"][0]["x"] == ["&lt;a href='//evil'&gt;result_0&lt;/a&gt;.txt"]
    curve = charts.convergence([{"label": hostile, "minutes": 1.0, "curve": [[1, 0.9, 0.5]]}], [], 0.95)
    assert "<a" not in curve.figure["data"][0]["name"]


def test_the_job_page_says_what_was_established_and_how_each_figure_was(personas, tmp_path):
    from verify.reproduce import HOW_MEASURED

    result = verifiable_result(personas, tmp_path)
    job = services.request_verification(actor=personas["reviewer"], result=result, runs=1)
    job = verify_honestly(job, cpu_busy=0.01, evaluation={"error": "the run wrote no model (/output/model.npz)"})
    assert job.outcome == Outcome.NOT_REPRODUCED
    page = client_for(personas, "anonymous").get(f"/verify/jobs/{job.pk}/").content.decode()
    assert "How each figure was established" in page and HOW_MEASURED["minutes"].replace("'", "&#x27;") in page
    assert "What the verification established" in page
    assert '<span class="badge bad">no</span>\n    <strong>Work shown by telemetry</strong>: re-run 1: no work shown' in page
    assert '<span class="badge ok">yes</span>\n    <strong>Seed chosen by the worker</strong>' in page
    assert "Not reproduced: the run&#x27;s processes used" in page and "the run wrote no model" in page


def test_timing_only_never_says_reproduced(personas, tmp_path, monkeypatch):
    """A benchmark with no registered evaluator: the time was measured, the quality only read from the log."""
    monkeypatch.delitem(EVALUATORS, "tiny_mlp")
    result = verifiable_result(personas, tmp_path)
    job = verify_honestly(services.request_verification(actor=personas["reviewer"], result=result, runs=1))
    assert job.outcome == Outcome.TIMING_ONLY and job.message.startswith("timing only: every check held")
    client = client_for(personas, "anonymous")
    job_page = client.get(f"/verify/jobs/{job.pk}/").content.decode()
    result_page = client.get(f"/results/{result.result_id}/").content.decode()
    for page in (job_page, result_page):
        assert "Reproduced" not in page and "Timing only" in page
    assert "no evaluator measured the quality" in job_page and "quality read from the log (no evaluator)" in result_page
    assert 'class="badge warn"' in result_page.split('id="verification"')[1][:400]
    only_verified = client.get(f"/rounds/{result.submission.round.slug}/?verified=1").content.decode()
    assert "CPU box (2 cores)" not in only_verified
    reviewer = client_for(personas, "chair")
    request_page = reviewer.get(f"/verify/results/{result.pk}/request/").content.decode()
    assert "the best outcome is <em>timing only</em>" in request_page


@pytest.mark.parametrize("telemetry", [
    [{"t": 0, "gpu": "0", "utilization_pct": 50}, {"t": 1, "gpu": 1, "utilization_pct": 60}],  # issue 36: mixed types
    [{"t": "soon", "gpu": 0}, "not a sample", None, {"gpu": 0, "power_w": 1e300}, {"t": 1, "gpu": True}],
    "not a list",
])
def test_pages_never_fail_on_stored_telemetry_or_reruns_of_another_shape(personas, tmp_path, telemetry):
    """Stored before the schema existed, or by an older worker: the pages draw what fits, skip the rest."""
    result = verifiable_result(personas, tmp_path)
    job = finished_job(personas, result)
    VerificationJob.objects.filter(pk=job.pk).update(
        telemetry=telemetry, reruns=[*job.reruns, "junk", {"number": "2", "eval_curve": [[1]]}, {"number": 3, "eval_curve": "x"}],
        checks=[*job.checks, "junk"])
    client = client_for(personas, "anonymous")
    for url in (f"/verify/jobs/{job.pk}/", f"/results/{result.result_id}/", f"/verify/jobs/{job.pk}/charts/rerun-times.json",
                f"/verify/jobs/{job.pk}/charts/rerun-convergence.csv"):
        assert client.get(url).status_code == 200, url
    if isinstance(telemetry, list) and telemetry and isinstance(telemetry[1], dict) and telemetry[1].get("gpu") == 1:
        chart = client.get(f"/verify/jobs/{job.pk}/charts/gpu-utilization-pct.csv")
        assert chart.status_code == 200 and chart.content.decode().splitlines()[1:] == ["1,1,60"]
