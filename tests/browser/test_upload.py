"""A submitter uploads a real sample tarball in Chromium, watches the ingestion finish, and reads
the findings and scores; another organization's submitter cannot see it. A real Celery worker
(subprocess on the test database and its own Redis) does the ingestion. `browser` (Debian's
Chromium) and DJANGO_ALLOW_ASYNC_UNSAFE come from tests/browser/conftest.py.

Screenshots (with TEST_SCREENSHOTS=1): test-output/screenshots/upload-*.png
"""

# ruff: noqa: F811 - fixtures imported from upload_fixtures are redefined as arguments
from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from ingest.models import Upload
from ingest.tests.tarballs import sample_tarball
from ingest.tests.upload_fixtures import open_round, unthrottled, worker  # noqa: F401
from tests.screenshots import SCREENSHOTS, save_screenshot

pytestmark = [
    pytest.mark.browser,
    pytest.mark.worker,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("unthrottled"),
]

DONE_WITH_ERRORS = re.compile(r"^done, \d+ errors?$")


def log_in(browser, live_server, username: str):
    page = browser.new_context(viewport={"width": 1280, "height": 1000}).new_page()
    page.goto(f"{live_server.url}/accounts/login/?next=/submit/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", "password")
    page.click("button[type=submit]")
    page.wait_for_url(f"{live_server.url}/submit/")
    return page


def test_it_uploads_watches_and_shows_findings_and_scores(
    personas, open_round, live_server, worker, browser, tmp_path
):
    # Intel's v1.0 package: real scores, and findings with file:line (its logs say closed where
    # its system description says open). Five of its logs name `reference_implementation` as their
    # organization: the version is held for a chair, and told so (issue 34), its results without ids.
    tarball = sample_tarball(tmp_path, submitter="Intel")
    personas["alpha"].aliases = ["Intel"]  # its system descriptions speak for its uploader (issue 14)
    personas["alpha"].save()
    page = log_in(browser, live_server, "owner")
    page.set_input_files("#file", str(tarball))
    assert "Intel.tar.gz" in page.inner_text("#chosen")
    save_screenshot(page, SCREENSHOTS / "upload-1-chosen.png", full_page=True)
    page.click("#upload-button")
    # Its errors say so in the state: "done, N errors", never a plain green "done". (A locator,
    # not wait_for_function: the Content-Security-Policy forbids evaluating strings.)
    expect(page.locator("#job-state")).to_have_text(DONE_WITH_ERRORS, timeout=60_000)
    assert "state-done-errors" in page.get_attribute("#job-state", "class")
    assert "Uploaded as version 1" in page.inner_text("#upload-status")
    # The new upload joined the list without a reload, and its state followed the job.
    listed = page.locator("#uploads tbody tr").first
    assert "Intel.tar.gz" in listed.inner_text()
    assert DONE_WITH_ERRORS.match(listed.locator(".badge").inner_text())
    assert page.eval_on_selector("#job-bar", "e => e.style.width") == "100%"
    scores = page.locator("#scores tbody tr")
    assert scores.count() >= 1
    expect(page.locator("#job-held")).to_be_visible()
    assert "speak for another organization than Alpha Systems" in page.inner_text("#job-held")
    # The same labels and links as the public pages: system links, RCP in words; no result id while held.
    assert page.locator("#scores tbody a[href^='/results/']").count() == 0
    assert page.locator("#scores tbody", has_text="no id while held").count() == 1
    assert page.locator("#scores tbody a[href^='/systems/']").count() == scores.count()
    assert "_" not in " ".join(page.locator("#scores tbody td:nth-child(6)").all_inner_texts())
    for severity in ("error", "warning", "info"):
        assert page.locator(f"#findings-{severity}").count() == 1
        page.eval_on_selector(f"#findings-{severity}", "e => { e.open = true; }")
    findings = page.inner_text("#findings")
    assert re.search(r"results/\S+/result_\d+\.txt:\d+", findings), findings  # file:line
    save_screenshot(page, SCREENSHOTS / "upload-2-done.png", full_page=True)

    upload = Upload.objects.get()
    # The permanent page of the upload shows the same outcome after a reload.
    page.goto(f"{live_server.url}/submit/uploads/{upload.pk}/")
    expect(page.locator("#job-state")).to_have_text(DONE_WITH_ERRORS, timeout=20_000)
    save_screenshot(page, SCREENSHOTS / "upload-3-detail.png", full_page=True)

    other = log_in(browser, live_server, "outsider")
    assert f"/submit/uploads/{upload.pk}/" not in other.content()
    response = other.goto(f"{live_server.url}/submit/uploads/{upload.pk}/")
    assert response.status == 404
    api = other.goto(f"{live_server.url}/api/v1/uploads/{upload.pk}/")
    assert api.status == 404
    other.goto(f"{live_server.url}/submit/")
    save_screenshot(other, SCREENSHOTS / "upload-4-outsider.png", full_page=True)
