"""The README's own mode: `make run` in a fresh clone, then the whole job in a browser, with no other
command typed. An upload is checked, a round is published at its publish_at, its snapshot taken, a
verification request reaches the verification worker, and Ctrl-C stops it all."""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import expect

pytestmark = [pytest.mark.browser, pytest.mark.worker, pytest.mark.slow]

DEMO_PASSWORD = "demo"  # review/management/commands/seed_demo.py, printed by make run


def test_a_newcomer_uploads_the_demo_package_and_gets_its_verdict_within_a_minute(embedded, person):
    assert "Demo accounts (development only): chair, reviewer, submitter" in embedded.output()
    submitter = person(embedded.url).sign_in("submitter", DEMO_PASSWORD)
    page = submitter.page
    page.goto("/submit/")
    expect(page.locator("#no-worker")).to_have_count(0)  # make run started a worker
    expect(page.locator("#round")).to_contain_text("HPC v2.0")
    page.set_input_files("#file", str(embedded.tree / "var" / "demo" / "Dell.tar.gz"))
    started = time.monotonic()
    page.click("#upload-button")
    expect(page.locator("#job-state")).to_have_text(re.compile(r"^done"), timeout=60_000)
    assert time.monotonic() - started < 60
    scores = page.locator("#scores tbody tr")
    expect(scores).to_have_count(1)
    expect(scores.first).to_contain_text("deepcam")
    expect(scores.first).to_contain_text("13.00")  # 12.9954 min, the official time to solution
    submitter.shoot("make-run-upload-done")


def test_the_round_is_published_at_its_publish_at_and_its_snapshot_taken(embedded, person):
    """Nothing but beat publishes a final round at its publish_at, and takes its snapshot after."""
    chair = person(embedded.url).sign_in("chair", DEMO_PASSWORD)
    page = chair.page
    page.goto("/review/rounds/hpc-v2.0/")
    for state in ("In review", "Final (frozen)"):
        page.fill("#move-form input[name=reason]", f"the demo round moves on to {state.lower()}")
        page.click("#move-form button")
        expect(page.locator("#round-state")).to_have_text(state)
    page.fill("#dates-form input[name=publish_at]", "2020-01-01T00:00")
    page.fill("#dates-form input[name=reason]", "publish at once")
    page.click("#dates-form button")
    page.wait_for_load_state()
    for _ in range(30):  # beat looks every 2 s here (REVIEW_PUBLISH_CHECK_SECONDS)
        page.goto("/review/rounds/hpc-v2.0/")
        if page.locator("#round-state").inner_text() == "Published":
            break
        time.sleep(1)
    expect(page.locator("#round-state")).to_have_text("Published")

    public = person(embedded.url)  # a private window: nobody signed in
    public.page.goto("/rounds/hpc-v2.0/")
    expect(public.page.locator("main")).to_contain_text("hpc:2.0-0001:deepcam:strong")
    for _ in range(30):
        public.page.goto("/rounds/hpc-v2.0/snapshots/")
        if public.page.locator("a[href$='SHA256SUMS']").count():
            break
        time.sleep(1)
    expect(public.page.locator("a[href$='SHA256SUMS']").first).to_be_visible()
    public.shoot("make-run-snapshot")


def test_a_verification_request_reaches_the_verification_worker(embedded, person):
    """The verification worker make run starts takes the job from the folder broker and runs it in
    its sandbox: Dell's package holds no code, so the job ends saying so (never queued forever)."""
    reviewer = person(embedded.url).sign_in("reviewer", DEMO_PASSWORD)
    page = reviewer.page
    page.goto("/rounds/hpc-v2.0/")
    page.locator("a[href^='/results/hpc:']").first.click()
    page.wait_for_load_state()
    page.locator("a[href*='/verify/results/']").first.click()
    page.fill("input[name=runs]", "1")
    page.click("form button[type=submit]")
    page.wait_for_url(re.compile(r"/verify/jobs/\d+/$"))
    job_url = page.url
    for _ in range(90):
        page.goto(job_url)
        if page.locator("#outcome").count():
            break
        time.sleep(1)
    expect(page.locator("#outcome")).to_have_text("Failed")
    expect(page.locator("main")).to_contain_text("a GPU worker took the job")
    reviewer.shoot("make-run-verification")


def test_ctrl_c_stops_everything_make_run_started(embedded):
    assert any("celery" in line and "verify.gpu_worker" in line for line in embedded.processes())
    embedded.stop()  # raises if a process of make run is left
