"""A whole round in Chromium: two organizations upload (a real Celery worker ingests), a reviewer
from a third objects to one result, the chair requires a fix, the submitter declares that it
borrows the other organization's hyperparameters and uploads the fix, the borrowing check passes,
a reviewer approves, the chair publishes, and the public result page shows the result but not the
confidential review record (objections, borrowing).

Screenshots (with TEST_SCREENSHOTS=1): test-output/screenshots/review-*.png
"""

# ruff: noqa: F811 - fixtures imported from upload_fixtures are redefined as arguments
from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from ingest.tests.tarballs import fujitsu_package as package
from ingest.tests.upload_fixtures import open_round, unthrottled, worker  # noqa: F401
from results.models import Organization, Result
from tests.screenshots import SCREENSHOTS, save_screenshot

pytestmark = [
    pytest.mark.browser,
    pytest.mark.worker,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("unthrottled"),
]


class Walk:
    def __init__(self, browser, live_server):
        self.browser = browser
        self.url = live_server.url
        self.step = 0

    def as_user(self, username: str | None):
        page = self.browser.new_context(viewport={"width": 1280, "height": 1000}).new_page()
        if username:
            page.goto(f"{self.url}/accounts/login/")
            page.fill("input[name=username]", username)
            page.fill("input[name=password]", "password")
            page.click("button[type=submit]")
            page.wait_for_load_state()
        return page

    def shot(self, page, name: str) -> None:
        self.step += 1
        save_screenshot(page, SCREENSHOTS / f"review-{self.step:02d}-{name}.png", full_page=True)

    def upload(self, username: str, tarball: Path, name: str) -> None:
        page = self.as_user(username)
        page.goto(f"{self.url}/submit/")
        page.set_input_files("#file", str(tarball))
        page.click("#upload-button")
        expect(page.locator("#job-state")).to_have_text(re.compile(r"^done"), timeout=90_000)  # no eval: the CSP forbids it
        self.shot(page, name)
        page.context.close()

    def move_round(self, page, slug: str, reason: str, name: str) -> None:
        page.goto(f"{self.url}/review/rounds/{slug}/")
        page.fill("#move-form input[name=reason]", reason)
        page.click("#move-form button")
        page.wait_for_load_state()
        self.shot(page, name)


def test_a_whole_round(personas, open_round, live_server, worker, browser, tmp_path):
    gamma = Organization.objects.create(name="Gamma Labs", slug="gamma")
    gamma.members.add(personas["reviewer"])
    # Both upload the Fujitsu sample: Beta records that spelling too (open_round does for Alpha).
    personas["beta"].aliases = ["Fujitsu"]
    personas["beta"].save()
    walk = Walk(browser, live_server)
    slug = open_round.slug

    # 1. Two organizations upload: Alpha with its own weight decay, Beta the reference one.
    walk.upload("owner", package(tmp_path, "alpha-v1", weight_decay="0.0005"), "alpha-uploads")
    walk.upload("outsider", package(tmp_path, "beta-v1"), "beta-uploads")
    alpha_result = Result.objects.get(submission__organization=personas["alpha"], benchmark__name="ssd")
    beta_result = Result.objects.get(submission__organization=personas["beta"], benchmark__name="ssd")

    chair = walk.as_user("chair")
    walk.move_round(chair, slug, "submission deadline passed", "chair-starts-review")

    # 2. A reviewer from a third organization objects to Alpha's result.
    reviewer = walk.as_user("reviewer")
    reviewer.goto(f"{walk.url}/review/?round={slug}")
    walk.shot(reviewer, "reviewer-queue")
    reviewer.click(f"text={alpha_result.result_id}")
    reviewer.click("#object summary")
    reviewer.fill("#objection-form input[name=rule]", "closed division: opt_weight_decay")
    reviewer.fill("#objection-form textarea[name=evidence]", "opt_weight_decay 0.0005 is not the reference value")
    reviewer.click("#objection-form button")
    reviewer.wait_for_load_state()
    assert "closed division: opt_weight_decay" in reviewer.inner_text("main")
    walk.shot(reviewer, "reviewer-objects")

    # 3. Alpha hears of it in its inbox and answers; the chair requires a fix.
    owner = walk.as_user("owner")
    assert owner.inner_text("#inbox-link").strip().startswith("Inbox")
    owner.goto(f"{walk.url}/review/inbox/")
    assert "An objection was filed against" in owner.inner_text("#inbox")
    walk.shot(owner, "owner-inbox")
    owner.goto(f"{walk.url}/review/results/{alpha_result.result_id}/")
    owner.fill(".answer-form textarea", "We will borrow Beta's hyperparameters and resubmit.")
    owner.click(".answer-form button")
    owner.wait_for_load_state()
    chair.goto(f"{walk.url}/review/results/{alpha_result.result_id}/")
    chair.select_option(".resolve-form select", "fix_required")
    chair.fill(".resolve-form input[name=reason]", "resubmit with compliant hyperparameters")
    chair.click(".resolve-form button")
    chair.wait_for_load_state()
    walk.shot(chair, "chair-requires-fix")

    # 4. Alpha declares that it borrows Beta's hyperparameters, then uploads the fix.
    owner.goto(f"{walk.url}/review/results/{alpha_result.result_id}/")
    owner.select_option("#borrowing-form select[name=lender]", beta_result.result_id)
    owner.click("#borrowing-form button")
    owner.wait_for_load_state()
    walk.shot(owner, "owner-declares-borrowing")
    walk.upload("owner", package(tmp_path, "alpha-v2"), "owner-uploads-fix")

    # 5. The borrowing check passed; a reviewer of another organization approves.
    reviewer.goto(f"{walk.url}/review/results/{alpha_result.result_id}/")
    assert reviewer.locator("#borrowing-check-passed").count() == 1, reviewer.inner_text("main")
    reviewer.click("#versions a.diff-link")  # the diff of version 2 against version 1
    assert "opt_weight_decay" in reviewer.inner_text("#diff-hyperparameters")
    walk.shot(reviewer, "reviewer-diff")
    reviewer.go_back()
    reviewer.fill("#borrowing-decision input[name=reason]", "only batch-size-dependent values differ")
    reviewer.click("#borrowing-decision button[value=approve]")
    reviewer.wait_for_load_state()
    assert "Approved" in reviewer.inner_text(".borrowing")
    walk.shot(reviewer, "reviewer-approves-borrowing")

    # 6. The chair freezes and publishes the round.
    walk.move_round(chair, slug, "review complete", "chair-finalizes")
    walk.move_round(chair, slug, "publication", "chair-publishes")
    assert "Published" in chair.inner_text("#round-state")

    # 7. The public sees the published result, never the review record behind it.
    public = walk.as_user(None)
    public.goto(f"{walk.url}/results/{alpha_result.result_id}/")
    text = public.inner_text("main")
    assert public.locator("#borrowed-from").count() == 0
    for kind in ("objection.", "borrowing.", "opt_weight_decay 0.0005 is not the reference value"):
        assert kind not in text, text
    walk.shot(public, "public-result")
