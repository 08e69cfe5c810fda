"""An inference round at full size in a real browser (issue 38): a page of each results table with
its counts and plain page links, the leaders of every leaderboard, the filters as a GET form that
works without JavaScript, and charts whose figures are fetched when drawn. Screenshots at 1366
and 390 px (test-output/screenshots/round-paging-*.png, with TEST_SCREENSHOTS=1)."""

import pytest
from playwright.sync_api import expect

from results.synthetic_inference import make_inference_round
from tests.browser.conftest import drawn_traces, submit_filters
from tests.screenshots import SCREENSHOTS, save_screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ROUND = "/rounds/inference-v5.1/"


@pytest.fixture
def full_round():
    return make_inference_round("5.1", results=1500)


@pytest.mark.parametrize("width", [1366, 390])
def test_a_full_round_pages_its_tables_and_lists_its_leaders(live_server, browser, full_round, width):
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    try:
        page.goto(live_server.url + ROUND)
        expect(page.locator("#round-tables nav.pager .pager-count").first).to_contain_text("rows 1–100 of")
        assert page.locator("table.round-table tbody tr").count() == 100
        assert page.evaluate("document.documentElement.scrollWidth") <= width  # only tables scroll, inside their box
        save_screenshot(page, SCREENSHOTS / f"round-paging-{width}.png")

        page.locator("#round-tables nav.pager").first.scroll_into_view_if_needed()
        save_screenshot(page, SCREENSHOTS / f"round-paging-table-{width}.png")
        page.locator("table.leaders").scroll_into_view_if_needed()
        save_screenshot(page, SCREENSHOTS / f"round-paging-leaders-{width}.png")

        page.locator("#round-tables nav.pager a[rel=next]").first.click()
        expect(page.locator("#round-tables nav.pager .pager-count").first).to_contain_text("rows 101–")
        assert "datacenter_page=2" in page.url

        page.goto(live_server.url + ROUND)
        page.locator("table.leaders a").first.click()  # a whole leaderboard
        expect(page.locator("table.leaderboard")).to_have_count(1)
        page.locator("#leaderboards").scroll_into_view_if_needed()
        save_screenshot(page, SCREENSHOTS / f"round-paging-leaderboard-{width}.png")

        page.locator("#chart-relative-performance").scroll_into_view_if_needed()
        assert drawn_traces(page, "#chart-relative-performance .plot") >= 1  # its figure fetched, then drawn
    finally:
        context.close()


def test_the_filters_work_without_javascript(live_server, browser, full_round):
    context = browser.new_context(java_script_enabled=False, viewport={"width": 1366, "height": 900})
    page = context.new_page()
    try:
        page.goto(live_server.url + ROUND)
        submit_filters(page, "#inference-filters", division="open", q="x8")
        systems = page.locator("table.round-table td.system a").all_inner_texts()
        assert systems and all("x8" in name for name in systems)
        save_screenshot(page, SCREENSHOTS / "round-paging-filtered-1366.png")
    finally:
        context.close()
