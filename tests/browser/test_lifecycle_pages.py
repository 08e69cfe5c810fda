# ruff: noqa: F811 - fixtures imported from upload_fixtures are redefined as arguments
"""The lifecycle in Chromium (issue 34): a chair reinstates a withdrawn result from its review page
and the public sees it again, with the reinstatement in the change log; an uploader sees a version
held because it speaks for another organization, with what comes next, on /submit/ and the
upload's page.

Screenshots at 1366 and 390 px (with TEST_SCREENSHOTS=1): test-output/screenshots/lifecycle-*.png
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from ingest.tests.test_upload_integrity import impersonating_tarball, ingest
from ingest.tests.upload_fixtures import dead_broker, open_round, unthrottled  # noqa: F401
from results.models import Result
from results.tests.factories import make_round
from results.tests.synthetic import ingest_synthetic, synthetic_package
from review import services
from tests.screenshots import SCREENSHOTS, save_screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
WIDTHS = (1366, 390)


def signed_in(browser, live_server, username: str, width: int):
    page = browser.new_context(viewport={"width": width, "height": 900}).new_page()
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", "password")
    page.click("button[type=submit]")
    page.wait_for_load_state()
    return page


def test_a_chair_reinstates_a_withdrawn_result_and_the_public_sees_it_again(personas, live_server, browser):
    round_ = make_round("1.1", state="open", benchmarks=("bert", "resnet"))
    ingest_synthetic(round_, personas["alpha"], synthetic_package(personas["alpha"], {"dell-xe8545": ["bert", "resnet"]}))
    for state in ("review", "final", "published"):
        services.move_round(personas["chair"], round_, state, "on schedule")
    bert = Result.objects.get(benchmark__name="bert")
    request = services.withdraw_result(personas["owner"], bert, "the node count was misreported")
    services.decide_withdrawal(personas["chair"], request, True, "approved")
    services.grant_resubmission_window(personas["chair"], round_, personas["alpha"], timezone.now() + timedelta(days=7),
                                       "a late fix")
    fix = ingest_synthetic(round_, personas["alpha"],
                           synthetic_package(personas["alpha"], {"dell-xe8545": ["bert", "resnet"]}, minutes=25.0))
    services.publish_fix(personas["chair"], fix, "system description corrected")
    public = browser.new_context().new_page()
    assert public.goto(f"{live_server.url}/results/{bert.result_id}/").status != 200  # still withdrawn

    for width in WIDTHS:
        chair = signed_in(browser, live_server, "chair", width)
        chair.goto(f"{live_server.url}/review/results/{bert.result_id}/")
        chair.click("#reinstate summary")
        chair.locator("#reinstate").scroll_into_view_if_needed()
        save_screenshot(chair, SCREENSHOTS / f"lifecycle-reinstate-{width}.png", full_page=True)
    chair.fill("#reinstate-form input[name=reason]", "the recall was cancelled")
    chair.click("#reinstate-form button")
    expect(chair.locator("#events")).to_contain_text("result.reinstated")
    assert chair.locator("#reinstate").count() == 0

    # A new visitor: Chromium keeps the earlier 410 answer in its own cache (410 is cacheable by default).
    public = browser.new_context().new_page()
    assert public.goto(f"{live_server.url}/results/{bert.result_id}/").status == 200
    public.goto(f"{live_server.url}/rounds/{round_.slug}/changes/")
    expect(public.locator("body")).to_contain_text("Reinstatement")
    expect(public.locator("body")).to_contain_text("the recall was cancelled")
    for width in WIDTHS:
        public.set_viewport_size({"width": width, "height": 900})
        save_screenshot(public, SCREENSHOTS / f"lifecycle-changes-{width}.png", full_page=True)


@pytest.mark.usefixtures("unthrottled", "dead_broker")
def test_the_uploader_sees_its_held_version_and_what_comes_next(personas, open_round, live_server, browser, tmp_path):
    item = ingest(personas, impersonating_tarball(tmp_path, "NVIDIA"))
    for width in WIDTHS:
        page = signed_in(browser, live_server, "owner", width)
        page.goto(f"{live_server.url}/submit/")
        expect(page.locator("#uploads a.held")).to_have_text("held for a chair")
        save_screenshot(page, SCREENSHOTS / f"lifecycle-held-list-{width}.png", full_page=True)
        page.click("#uploads a.held")
        expect(page.locator("#job-held")).to_be_visible()
        expect(page.locator("#job-held")).to_contain_text("A chair of another organization decides")
        expect(page.locator("#scores")).to_contain_text("no id while held")
        save_screenshot(page, SCREENSHOTS / f"lifecycle-held-upload-{width}.png", full_page=True)
    assert f"/submit/uploads/{item.pk}/" in page.url
