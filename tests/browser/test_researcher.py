"""A researcher's journey in a real browser (issue 34): a permalink opened in a private window,
MLCommons' own entry id, the snapshot page and its archive checked with the real `sha256sum -c`, the
Atom feed read in the browser, an earlier version of a corrected result, and the tombstone of a
withdrawn one; every page fits 1366 and 390 px. Screenshots land in
test-output/screenshots/researcher-<page>-<width>.png (with TEST_SCREENSHOTS=1)."""

import io
import shutil
import subprocess
import tarfile

import pytest
from django.core.management import call_command

from results.models import Result
from results.services.lifecycle import publish_version
from results.services.rounds import publish_round
from results.tests.factories import make_result, make_round, make_submission, make_system
from review.services import decide_withdrawal, withdraw_result

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("width", [1366, 390])
def test_a_researcher_cites_downloads_and_follows_changes(live_server, browser, sample_data, personas, settings,
                                                           tmp_path, width):
    from pages.snapshots import take_snapshot
    from tests.screenshots import SCREENSHOTS, save_screenshot

    settings.MEDIA_ROOT = tmp_path / "media"
    call_command("import_results", str(sample_data / "inference-v4.1"), "--round", "inference-v4.1", "--publish",
                 "--ids", str(sample_data / "inference-v4.1-ids.json"), "--jobs", "1", stdout=io.StringIO())
    inference = Result.objects.get(citable__entry="4.1-0052", scenario="Server")
    take_snapshot(inference.submission.round)
    # A training result published, corrected by a second version, then withdrawn by its organization.
    round_ = make_round("4.1", state="review")
    make_result(make_system(make_submission(round_, personas["alpha"]), "box"), "resnet", metric_value=21.5,
                metric_unit="minutes")
    publish_round(round_, actor=personas["chair"], reason="press release")
    second = make_submission(round_, personas["alpha"], version=2, is_current=False, published=False)
    fixed = make_result(make_system(second, "box"), "resnet", minutes=20.25, metric_value=20.25, metric_unit="minutes")
    publish_version(second, actor=personas["chair"], reason="node count corrected")
    request = withdraw_result(personas["owner"], Result.objects.get(pk=fixed.pk), "the system was never available")
    decide_withdrawal(personas["chair"], request, approve=True, reason="approved")

    context = browser.new_context(viewport={"width": width, "height": 900}, accept_downloads=True)  # a private window
    page = context.new_page()

    def look(name: str, full_page: bool = True) -> None:
        save_screenshot(page, SCREENSHOTS / f"researcher-{name}-{width}.png", full_page=full_page)
        scroll_width = page.evaluate("document.documentElement.scrollWidth")
        assert scroll_width <= width, f"{name} is {scroll_width} px wide at {width} px"

    try:
        # The permalink a paper cites, pasted with a slash after it.
        page.goto(f"{live_server.url}/r/{inference.result_id}/")
        assert page.url == f"{live_server.url}/results/{inference.result_id}/"
        assert "official id" in page.inner_text("header.result-head")
        look("permalink")

        # MLCommons' own id of UntetherAI's system, as its results pages write it.
        page.goto(f"{live_server.url}/r/v4.1-0068")
        assert page.locator("section.entry-system tbody tr").count() == 3
        look("entry")
        page.locator("section.entry-system a[href^='/results/']").first.click()
        page.wait_for_url("**/results/inference:4.1-0068:**")

        # The snapshot: its archive downloaded, unpacked and checked as the page says.
        page.goto(f"{live_server.url}/rounds/inference-v4.1/snapshots/")
        assert "sha256sum -c SHA256SUMS" in page.inner_text("#verify")
        look("snapshots")
        with page.expect_download() as download:
            page.click("a.download")
        archive = tmp_path / download.value.suggested_filename
        download.value.save_as(archive)
        assert archive.name == "inference-v4.1-snapshot-1.tar.gz"
        with tarfile.open(archive) as unpacked:
            unpacked.extractall(tmp_path, filter="data")
        if shutil.which("sha256sum"):
            checked = subprocess.run(["sha256sum", "-c", "SHA256SUMS"], cwd=tmp_path / "inference-v4.1-snapshot-1",
                                     capture_output=True, text=True)
            assert checked.returncode == 0, checked.stdout + checked.stderr

        # The change log's Atom feed, read in the browser: a page with working links.
        page.goto(f"{live_server.url}/rounds/training-v4.1/changes/")
        page.click("#round-feed")
        page.wait_for_load_state()
        assert page.url.endswith("/rounds/training-v4.1/changes.atom")
        assert "This is an Atom feed" in page.locator("div.about").inner_text()  # the feed's xhtml, shown
        assert "Withdrawal" in page.evaluate("document.documentElement.textContent")
        look("feed", full_page=False)  # Chromium measures no full page of an XML document
        page.locator(f"a[href$='/r/{fixed.result_id}']").first.click()

        # Following the withdrawal from the feed: the tombstone, 410 Gone.
        page.wait_for_selector("#tombstone")
        assert "withdrawn by its organization" in page.inner_text("main")
        assert "the system was never available" in page.inner_text("#tombstone-reason")
        look("tombstone")
        gone = page.goto(f"{live_server.url}/r/{fixed.result_id}")
        assert gone.status == 410

        # Its earlier version, still there as history.
        page.click("#tombstone-facts a[href$='/v1/']")
        page.wait_for_selector("#old-version")
        assert "version 1" in page.inner_text("#old-version")
        look("old-version")
    finally:
        context.close()
