"""Issue 22's proof in Chromium: one round walked by five personas (a chair, a reviewer of no
submitting organization, two submitters of different organizations, and the public), with real
uploads ingested by a Celery worker. At each step the test asserts what each persona sees and may
do, and that the error counts follow the decisions:

chair creates the round from the pages -> both organizations upload (Alpha's package repeats a
seed: one checker error) -> review: Beta reads Alpha's result as a peer and objects to it, citing
a log line -> Alpha answers, the filer is offered no resolve form, the reviewer requires a fix ->
Alpha borrows Beta's hyperparameters but resubmits its own weight decay: the check finds it, the
reviewer (not the borrower) reads the mismatch and rejects -> the rejection blocks the version
until the chair overrides it -> the reviewer waives the seed check: the error leaves every count
-> the chair waives a package finding (a stray file) on the version's checker report: it leaves
the report's and the upload's counts -> publication: the public reads the result, never the
review record.

Screenshots (with TEST_SCREENSHOTS=1): test-output/screenshots/personas-*.png (the pages this walk
changes at 1366 and 390 px wide too: personas-*-1366.png, personas-*-390.png).
"""

# ruff: noqa: F811 - fixtures imported from upload_fixtures are redefined as arguments
from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from ingest.models import Upload
from ingest.tests.tarballs import fujitsu_package as package
from ingest.tests.upload_fixtures import unthrottled, worker  # noqa: F401
from results.models import Benchmark, Organization, Result, Round, Run, Submission
from tests.browser.conftest import fill_form
from tests.screenshots import SCREENSHOTS, save_screenshot

pytestmark = [
    pytest.mark.browser,
    pytest.mark.worker,
    pytest.mark.slow(minutes=1),
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("unthrottled"),
]


class Personas:
    """One signed-in browser context per persona, kept for the whole walk."""

    def __init__(self, browser, url: str):
        self.browser, self.url, self.step, self.pages = browser, url, 0, {}

    def __getitem__(self, who: str):
        if who not in self.pages:
            page = self.browser.new_context(viewport={"width": 1280, "height": 1000}).new_page()
            if who != "anonymous":
                page.goto(f"{self.url}/accounts/login/")
                page.fill("input[name=username]", who)
                page.fill("input[name=password]", "password")
                page.click("button[type=submit]")
                page.wait_for_load_state()
            self.pages[who] = page
        return self.pages[who]

    def status(self, who: str, path: str) -> int:
        return self[who].goto(f"{self.url}{path}").status

    def text(self, who: str, path: str) -> str:
        page = self[who]
        assert page.goto(f"{self.url}{path}").status == 200, path
        return page.inner_text("main")

    def submit(self, who: str, form: str, fields: dict[str, str], button: str = "button") -> None:
        page = self[who]
        fill_form(page, form, fields)
        page.click(f"{form} {button}")
        page.wait_for_load_state()

    def shot(self, who: str, name: str) -> None:
        self.step += 1
        save_screenshot(self[who], SCREENSHOTS / f"personas-{self.step:02d}-{who}-{name}.png", full_page=True)

    def shot_widths(self, who: str, name: str) -> None:
        """The page at a laptop's and a phone's width, then back to the walk's own."""
        page = self[who]
        self.step += 1
        for width in (1366, 390):
            page.set_viewport_size({"width": width, "height": 900})
            save_screenshot(page, SCREENSHOTS / f"personas-{self.step:02d}-{who}-{name}-{width}.png",
                            full_page=True)
        page.set_viewport_size({"width": 1280, "height": 1000})

    def upload(self, who: str, tarball: Path) -> None:
        page = self[who]
        page.goto(f"{self.url}/submit/")
        page.set_input_files("#file", str(tarball))
        page.click("#upload-button")
        expect(page.locator("#job-state")).to_have_text(re.compile(r"^done"), timeout=90_000)
        self.shot(who, "uploads")

    def close(self) -> None:
        for page in self.pages.values():
            page.context.close()


def test_five_personas_walk_a_round(personas, live_server, worker, browser, tmp_path):
    # Both organizations upload the Fujitsu sample: each records that spelling, so the packages
    # speak for their uploader (ingest holds a package that speaks for another organization).
    Organization.objects.filter(pk__in=[personas["alpha"].pk, personas["beta"].pk]).update(aliases=["Fujitsu"])
    walk = Personas(browser, live_server.url)
    alpha, beta = "owner", "outsider"
    try:
        # 1. The chair creates the round from the pages; its benchmarks come from the catalog.
        assert walk.status(beta, "/review/rounds/new/") == 403
        walk["chair"].goto(f"{walk.url}/review/rounds/new/")
        walk.submit("chair", "#new-round-form",
                    {"suite": "training", "version": "1.0", "ruleset_version": "1.0.0", "reason": "the v1.0 round"})
        round_ = Round.objects.get(suite="training", version="1.0")
        assert walk["chair"].url.endswith(f"/review/rounds/{round_.slug}/")
        assert round_.state == "draft" and Benchmark.objects.filter(round=round_, name="ssd").exists()
        walk.shot("chair", "creates-round")
        walk.submit("chair", "#move-form", {"reason": "open for submissions"})
        assert "Open" in walk["chair"].inner_text("#round-state")

        # 2. Both organizations upload. Alpha's package logs one seed twice: one checker error.
        walk.upload(alpha, package(tmp_path, "alpha-v1", weight_decay="0.0005", reuse_seed=True))
        walk.upload(beta, package(tmp_path, "beta-v1"))
        alpha_id = Result.objects.get(submission__organization=personas["alpha"], benchmark__name="ssd").result_id
        beta_id = Result.objects.get(submission__organization=personas["beta"], benchmark__name="ssd").result_id
        result_page = f"/results/{alpha_id}/"
        # While the round is open, only Alpha and the review team read Alpha's result.
        assert "1 checker error not waived" in walk.text(alpha, result_page)
        assert walk.status("reviewer", result_page) == 200
        assert walk.status(beta, result_page) == 404
        assert walk.status("anonymous", result_page) == 404

        # 3. Review starts: Beta, a submitter of the round, reads every submission and objects.
        walk["chair"].goto(f"{walk.url}/review/rounds/{round_.slug}/")
        walk.submit("chair", "#move-form", {"reason": "submission deadline passed"})
        peer_view = walk.text(beta, result_page)
        assert "1 checker error not waived" in peer_view and "SEED_REUSED" in peer_view
        assert walk.status("anonymous", result_page) == 404
        cited = Run.objects.filter(result__result_id=alpha_id).order_by("file").first().file
        walk[beta].goto(f"{walk.url}/review/results/{alpha_id}/")
        walk[beta].click("#object summary")
        walk.submit(beta, "#objection-form", {
            "rule": "closed division: opt_weight_decay", "evidence_file": cited, "evidence_line": "1",
            "evidence": "opt_weight_decay 0.0005 is not the reference value",
        })
        assert "closed division: opt_weight_decay" in walk[beta].inner_text(".objection")
        assert walk[beta].locator(".objection a[href*='#L1']").count() == 1  # the evidence links its log line
        walk.shot(beta, "peer-objects")
        assert walk[beta].locator("#waive-form").count() == 0  # a submitter decides nothing

        # 4. Alpha answers; the filer is never offered a resolve form; the reviewer requires a fix.
        walk[alpha].goto(f"{walk.url}/review/results/{alpha_id}/")
        assert "closed division: opt_weight_decay" in walk[alpha].inner_text(".objection")
        walk.submit(alpha, ".answer-form", {"answer": "We will borrow Beta's hyperparameters and resubmit."})
        walk[beta].reload()
        assert walk[beta].locator(".resolve-form").count() == 0
        walk["reviewer"].goto(f"{walk.url}/review/results/{alpha_id}/")
        walk.submit("reviewer", ".resolve-form", {"outcome": "fix_required", "reason": "resubmit compliant values"})
        assert "Fix required" in walk["reviewer"].inner_text(".objection")
        walk.shot("reviewer", "requires-fix")

        # 5. Alpha declares that it borrows Beta's hyperparameters (found from the peer pages) but
        #    resubmits its own weight decay: the check finds it; only the review team reads it.
        #    Alpha picks the lender from the results it reads, not by an id learned elsewhere.
        walk[alpha].goto(f"{walk.url}/review/results/{alpha_id}/")
        offered = walk[alpha].locator("#borrowing-form select[name=lender] option").all_inner_texts()
        (lender,) = [text for text in offered if beta_id in text]
        assert lender.startswith("Beta Compute · ") and not any(alpha_id in text for text in offered)
        walk.shot_widths(alpha, "picks-lender")
        walk.submit(alpha, "#borrowing-form", {"lender": beta_id})
        walk.upload(alpha, package(tmp_path, "alpha-v2", weight_decay="0.0005", reuse_seed=True, stray_file=True))
        walk["reviewer"].goto(f"{walk.url}/review/results/{alpha_id}/")
        assert "opt_weight_decay" in walk["reviewer"].inner_text(".borrowing .mismatches")
        walk[alpha].goto(f"{walk.url}/review/results/{alpha_id}/")
        assert walk[alpha].locator(".borrowing .mismatches").count() == 0  # Beta's unpublished values
        walk.submit("reviewer", "#borrowing-decision", {"reason": "weight decay is not Beta's"},
                    button="button[value=reject]")
        assert walk["reviewer"].locator("#borrowing-blocks").count() == 1
        assert walk["reviewer"].locator("#borrowing-override").count() == 0  # a chair's decision
        walk[alpha].reload()
        assert walk[alpha].locator("#borrowing-blocks").count() == 1  # the borrower is told why
        walk.shot("reviewer", "rejects-borrowing")

        # 6. The chair overrides the rejection with a reason.
        walk["chair"].goto(f"{walk.url}/review/results/{alpha_id}/")
        walk.submit("chair", "#borrowing-override", {"reason": "the decay is within the rules' range"})
        assert "overridden by a chair" in walk["chair"].inner_text(".borrowing")

        # 7. The reviewer waives the seed check: the error leaves every count and badge at once.
        walk["reviewer"].goto(f"{walk.url}/review/results/{alpha_id}/")
        walk.submit("reviewer", "#waive-form", {"kind": "seed_bypass", "reason": "seeds come from the launcher"})
        assert "waived by decision" in walk["reviewer"].inner_text("#findings")
        assert "by reviewer" in walk["reviewer"].inner_text("#waivers")
        walk[alpha].goto(f"{walk.url}/review/results/{alpha_id}/")
        assert "by reviewer" in walk[alpha].inner_text("#waivers")  # its own record
        assert "checker error" not in walk.text(beta, result_page)
        queue = walk.text("reviewer", f"/review/?round={round_.slug}")
        assert alpha_id in queue
        walk.shot("reviewer", "waives")

        # 7b. Alpha's stray notes.txt is a finding of the package, not of a result: the chair finds
        #     the version's checker report from the round page and waives it as a known false
        #     positive; it leaves the report's counts and the upload's, naming the decision.
        version = Submission.objects.get(organization=personas["alpha"], round=round_, is_current=True)
        report = f"/review/versions/{version.pk}/"
        walk["chair"].goto(f"{walk.url}/review/rounds/{round_.slug}/")
        walk.shot_widths("chair", "round-versions")
        walk["chair"].click(f"#round-versions a[href='{report}']")
        assert "LAYOUT_UNKNOWN_FILE" in walk["chair"].inner_text("#package-findings")
        assert walk["chair"].inner_text("#report-counts").startswith("0 errors, 1 warning")  # the seed error: waived
        for who in ("reviewer", beta, alpha):  # a chair's decision, never the organization's own
            assert "LAYOUT_UNKNOWN_FILE" in walk.text(who, report)
            assert walk[who].locator("#package-waive-form").count() == 0
        walk.submit("chair", "#package-waive-form", {"code": "LAYOUT_UNKNOWN_FILE", "reason": "notes are allowed"})
        assert "waived by decision" in walk["chair"].inner_text("#package-findings")
        assert walk["chair"].inner_text("#report-counts").startswith("0 errors, 0 warnings")
        walk.shot_widths("chair", "waives-package-finding")
        upload = Upload.objects.filter(submission=version).get()
        walk[alpha].goto(f"{walk.url}/submit/uploads/{upload.pk}/")
        expect(walk[alpha].locator("#findings-waived summary")).to_have_text("2 waived by a decision")
        assert walk[alpha].inner_text("#findings-warning summary") == "0 warnings (1 waived)"  # counted apart
        walk[alpha].click("#findings-waived summary")
        assert "notes are allowed" in walk[alpha].inner_text("#findings-waived")
        walk.shot_widths(alpha, "upload-waived")

        # 8. Publication: the public reads the result and the decisions that change it, never the
        #    review record (objections, borrowing, who reviewed).
        walk["chair"].goto(f"{walk.url}/review/rounds/{round_.slug}/")
        walk.submit("chair", "#move-form", {"reason": "review complete"})
        walk.submit("chair", "#move-form", {"reason": "publication"})
        assert "Published" in walk["chair"].inner_text("#round-state")
        public = walk.text("anonymous", result_page)
        assert "checker error" not in public
        walk.shot("anonymous", "public-result")
        # The review page of a published result is public too: the outcomes only.
        public_review = walk.text("anonymous", f"/review/results/{alpha_id}/")
        assert "No objections." in public_review and "finding.waived" in public_review
        for page in (public, public_review):
            for secret in ("objection.", "borrowing.", "closed division: opt_weight_decay",
                           "opt_weight_decay 0.0005 is not the reference value", "weight decay is not Beta's",
                           "by reviewer", "by chair", "by outsider"):
                assert secret not in page, secret
        walk.shot("anonymous", "public-review")
    finally:
        walk.close()
