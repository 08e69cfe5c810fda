"""Citable ids in a real browser (issue 24): training and inference of one version imported side by
side; every link from the inference round opens an inference result, `/r/<id>` lands on the result,
its id says whether it is official or local, and the pages fit 390 and 1366 px. Screenshots land
in test-output/screenshots/ids-<page>-<width>.png (with TEST_SCREENSHOTS=1)."""

import io

import pytest
from django.core.management import call_command

from results.models import Result

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("width", [390, 1366])
def test_ids_resolve_to_one_result_in_each_suite(live_server, browser, sample_data, width):
    from tests.screenshots import SCREENSHOTS, save_screenshot

    for suite in ("training", "inference"):
        call_command("import_results", str(sample_data / f"{suite}-v0.7"), "--round", f"{suite}-v0.7", "--publish",
                     "--jobs", "1", stdout=io.StringIO())
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    try:
        page.goto(f"{live_server.url}/rounds/inference-v0.7/")
        links = page.eval_on_selector_all("a[href^='/results/']", "els => els.map(e => e.getAttribute('href'))")
        assert links and all(link.startswith("/results/inference:0.7-") for link in links)
        save_screenshot(page, SCREENSHOTS / f"ids-inference-round-{width}.png", full_page=True)
        page.goto(f"{live_server.url}/rounds/training-v0.7/")
        assert page.locator("td.entry").first.inner_text().startswith("0.7-")
        save_screenshot(page, SCREENSHOTS / f"ids-training-round-{width}.png", full_page=True)
        for suite in ("inference", "training"):
            result = Result.objects.filter(submission__round__suite=suite).order_by("pk").first()
            page.goto(f"{live_server.url}/r/{result.result_id}")
            assert page.url.endswith(f"/results/{result.result_id}/")
            assert result.result_id in page.inner_text("h1") and "local id" in page.inner_text("header.result-head")
            assert page.evaluate("document.documentElement.scrollWidth") <= width
            save_screenshot(page, SCREENSHOTS / f"ids-{suite}-result-{width}.png", full_page=True)
        page.goto(f"{live_server.url}/organizations/fujitsu/")
        assert page.locator("#organization-results tbody tr").count() == Result.objects.filter(
            submission__organization__slug="fujitsu").count()
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        save_screenshot(page, SCREENSHOTS / f"ids-organization-{width}.png", full_page=True)
    finally:
        context.close()


@pytest.mark.parametrize("width", [390, 1366])
def test_the_change_log_and_snapshots_fit_the_screen(live_server, browser, personas, width, settings, tmp_path):
    from pages.snapshots import take_snapshot
    from results.services.rounds import publish_round
    from results.tests.factories import make_result, make_round, make_submission, make_system
    from review.services import decide_withdrawal, withdraw_result
    from tests.screenshots import SCREENSHOTS, save_screenshot

    round_ = make_round("4.1", state="review")
    result = make_result(make_system(make_submission(round_, personas["alpha"]), "box"), "resnet")
    publish_round(round_, actor=personas["chair"], reason="press release")
    settings.MEDIA_ROOT = tmp_path
    take_snapshot(round_)
    # A published result is withdrawn when a chair approves its organization's request.
    request = withdraw_result(personas["owner"], result, "the node count was misreported in the system description")
    decide_withdrawal(personas["chair"], request, approve=True, reason="approved")
    take_snapshot(round_)
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    try:
        page.goto(f"{live_server.url}/rounds/{round_.slug}/changes/")
        assert "Withdrawal" in page.inner_text("table.changes")
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        save_screenshot(page, SCREENSHOTS / f"ids-changes-{width}.png", full_page=True)
        page.goto(f"{live_server.url}/rounds/{round_.slug}/snapshots/")
        assert page.locator("section.snapshot").count() == 2
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        save_screenshot(page, SCREENSHOTS / f"ids-snapshots-{width}.png", full_page=True)
    finally:
        context.close()


def test_copy_link_copies_the_filtered_view(live_server, browser, sample_data):
    call_command("import_results", str(sample_data / "training-v0.7"), "--round", "training-v0.7", "--publish",
                 "--jobs", "1", stdout=io.StringIO())
    context = browser.new_context(viewport={"width": 1366, "height": 900}, permissions=["clipboard-read", "clipboard-write"])
    page = context.new_page()
    try:
        url = f"{live_server.url}/rounds/training-v0.7/?division=closed&sort=resnet"
        page.goto(url)
        page.click("button[data-copy-link]")
        page.wait_for_selector("button[data-copy-link]:has-text('Link copied')")
        assert page.evaluate("navigator.clipboard.readText()") == url
    finally:
        context.close()
