"""A reviewer requests a verification in Chromium, watches it progress, and once the round is
published the public result page shows the badge. A real GPU worker (Celery on `gpu`, no database
settings, bubblewrap sandbox) re-runs the tiny_mlp fixture benchmark.

Screenshots (with TEST_SCREENSHOTS=1): test-output/screenshots/verify-*.png
"""

from __future__ import annotations

import re
import shutil

import pytest
from playwright.sync_api import expect

from results.models import Round, Submission
from tests.screenshots import SCREENSHOTS, save_screenshot
from verify.models import VerificationJob
from verify.tests.processes import running_gpu_worker
from verify.tests.world import verifiable_result

pytestmark = [
    pytest.mark.browser,
    pytest.mark.worker,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed"),
]


@pytest.fixture
def gpu_worker(tmp_path, live_server, settings):
    # A 1-second CPU run on a machine shared with other test runs (load average 5 to 9 seen) takes
    # up to 5 times as long: the tests prove the mechanics, verify/tests/test_reproduce.py the thresholds.
    settings.VERIFY_TOLERANCES = {"tiny_mlp": 10.0}
    settings.VERIFY_MIN_CPU_BUSY = 0.1  # the same load leaves an honest run a third of a CPU; a fake uses none
    with running_gpu_worker(tmp_path, live_server.url) as worker:
        yield worker


def test_a_reviewer_requests_a_verification_and_the_public_sees_the_badge(
    personas, live_server, gpu_worker, browser, tmp_path
):
    result = verifiable_result(personas, tmp_path, published=False)
    reviewer = browser.new_context(viewport={"width": 1280, "height": 1000}).new_page()
    reviewer.goto(f"{live_server.url}/accounts/login/?next=/results/{result.result_id}/")
    reviewer.fill("input[name=username]", "reviewer")
    reviewer.fill("input[name=password]", "password")
    reviewer.click("button[type=submit]")
    expect(reviewer.locator("#verification")).to_contain_text("Not independently verified")
    reviewer.click("text=request a verification")
    reviewer.fill("input[name=runs]", "3")
    reviewer.click("button:has-text('Request verification')")
    reviewer.wait_for_url(re.compile(r"/verify/jobs/\d+/$"))
    job_url = reviewer.url
    # Progress: the page follows the job (status polled every second) through its re-runs.
    expect(reviewer.locator("#job-status")).to_contain_text(re.compile(r"re-run \d of 3|Reproduced"), timeout=60_000)
    save_screenshot(reviewer, screenshot_path("verify-1-progress"), full_page=True)
    expect(reviewer.locator("#outcome")).to_be_visible(timeout=120_000)
    job = VerificationJob.objects.get(result=result)
    assert job.outcome == "reproduced", (job.message, job.reruns, gpu_worker.text()[-2000:])
    expect(reviewer.locator("#outcome")).to_have_text("Reproduced")
    expect(reviewer.locator("#reruns tbody tr")).to_have_count(3)
    # What the server established from the worker's evidence, check by check.
    expect(reviewer.locator("#checks li")).to_have_count(7)
    expect(reviewer.locator("#checks .badge.ok")).to_have_count(7)
    expect(reviewer.locator("#checks")).to_contain_text("evaluated by the worker")
    expect(reviewer.locator("#log")).to_contain_text(":::MLLOG")
    expect(reviewer.locator("#no-telemetry")).to_contain_text("NVML is not available")
    reviewer.locator("#chart-rerun-convergence .plot").scroll_into_view_if_needed()  # charts.js draws it then
    expect(reviewer.locator("#chart-rerun-convergence .plot[data-drawn=true]")).to_have_count(1)
    save_screenshot(reviewer, screenshot_path("verify-2-reproduced"), full_page=True)

    # Before publication the public cannot see the result, nor its verification.
    public = browser.new_context(viewport={"width": 1280, "height": 1000}).new_page()
    assert public.goto(f"{live_server.url}/results/{result.result_id}/").status == 404
    assert public.goto(job_url).status == 404
    Round.objects.filter(pk=result.submission.round_id).update(state="published")
    Submission.objects.filter(pk=result.submission_id).update(is_published=True, is_current=True)
    assert public.goto(f"{live_server.url}/results/{result.result_id}/").status == 200
    expect(public.locator("#verification .badge")).to_have_text("Verification: Reproduced")
    expect(public.locator("#verification")).not_to_contain_text("request a verification")
    public.locator("#chart-rerun-times .plot").scroll_into_view_if_needed()
    expect(public.locator("#chart-rerun-times .plot[data-drawn=true]")).to_have_count(1)
    save_screenshot(public, screenshot_path("verify-3-public-badge"), full_page=True)
    # The public job page names no requester; at a desktop and a phone width.
    for width, height in ((1366, 900), (390, 844)):
        public.set_viewport_size({"width": width, "height": height})
        public.goto(job_url)
        expect(public.locator("#outcome")).to_have_text("Reproduced")
        assert "reviewer" not in public.locator("dl.facts").first.inner_text()
        save_screenshot(public, screenshot_path(f"verify-4-public-job-{width}"), full_page=True)
        save_screenshot(public, screenshot_path(f"verify-4-public-job-{width}-top"))


def screenshot_path(name: str):
    return SCREENSHOTS / f"{name}.png"


def test_a_job_not_reproduced_says_which_checks_failed_at_both_widths(personas, live_server, browser, tmp_path):
    """No worker here: the evidence of a run that slept instead of training (no CPU work, no model)."""
    from verify import services
    from verify.tests.evidence import verify_honestly

    result = verifiable_result(personas, tmp_path)
    job = services.request_verification(actor=personas["reviewer"], result=result, runs=2)
    job = verify_honestly(job, cpu_busy=0.01, evaluation={"error": "the run wrote no model (/output/model.npz)"})
    assert job.outcome == "not_reproduced"
    for width, height in ((1366, 900), (390, 844)):
        page = browser.new_context(viewport={"width": width, "height": height}).new_page()
        page.goto(f"{live_server.url}/verify/jobs/{job.pk}/")
        expect(page.locator("#outcome")).to_have_text("Not reproduced")
        expect(page.locator("#checks .badge.bad")).to_have_count(2)
        expect(page.locator("#reruns tr.violations")).to_have_count(2)
        save_screenshot(page, screenshot_path(f"verify-5-not-reproduced-{width}"), full_page=True)
        save_screenshot(page, screenshot_path(f"verify-5-not-reproduced-{width}-top"))
