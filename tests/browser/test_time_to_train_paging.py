"""Training and HPC rounds far beyond a real round's size in a real browser (issue 38): the round
table and a benchmark's ranking a hundred rows a page with plain page links, the filters a GET form
that works without JavaScript, a benchmark's charts fetched when drawn, an HPC round showing the
first rows of each leaderboard. Screenshots at 1366 and 390 px
(test-output/screenshots/time-to-train-paging-*.png, with TEST_SCREENSHOTS=1)."""

import pytest
from playwright.sync_api import expect

from pages.tests.synthetic_time_to_train import make_hpc_round, make_training_round
from tests.browser.conftest import drawn_traces, shot_that_fits, submit_filters
from tests.screenshots import SCREENSHOTS, save_screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TRAINING = "/rounds/training-v0.7/"
HPC = "/rounds/hpc-v1.0/"


@pytest.fixture
def large_rounds():
    make_training_round("0.7", results=2400)
    make_hpc_round("1.0", results=900)


@pytest.mark.parametrize("width", [1366, 390])
def test_a_large_training_round_pages_its_table_and_its_benchmark_ranking(live_server, browser, large_rounds, width):
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    try:
        page.goto(live_server.url + TRAINING)
        expect(page.locator("nav.pager .pager-count").first).to_contain_text("rows 1–100 of")
        assert page.locator("#results-table tbody tr:not(.group)").count() == 100
        shot_that_fits(page, "time-to-train-paging-round", width)
        page.locator("nav.pager a[rel=next]").first.click()
        expect(page.locator("nav.pager .pager-count").first).to_contain_text("rows 101–200 of")
        assert "page=2" in page.url
        save_screenshot(page, SCREENSHOTS / f"time-to-train-paging-round-2-{width}.png")

        page.goto(live_server.url + TRAINING + "resnet/")
        assert drawn_traces(page, "#chart-time-to-train .plot") >= 1  # its figure fetched, then drawn
        shot_that_fits(page, "time-to-train-paging-benchmark", width)
        save_screenshot(page, SCREENSHOTS / f"time-to-train-paging-benchmark-top-{width}.png")
        page.locator("#all-results").scroll_into_view_if_needed()
        save_screenshot(page, SCREENSHOTS / f"time-to-train-paging-ranking-{width}.png")
        page.locator("nav.pager a[rel=next][href$='#all-results']").first.click()
        expect(page.locator("#ranked tbody td").first).to_be_visible()
        assert "page=2" in page.url and page.locator("#ranked tbody tr:not(.group)").count() == 100

        page.goto(live_server.url + HPC)
        expect(page.locator(".board-more").first).to_contain_text("The first 10 of")
        shot_that_fits(page, "time-to-train-paging-hpc-round", width)
        page.locator(".board-more").first.scroll_into_view_if_needed()
        save_screenshot(page, SCREENSHOTS / f"time-to-train-paging-hpc-round-board-{width}.png")
        page.locator(".board-more a").first.click()
        expect(page.locator("table.leaderboard[data-scaling=strong] tbody tr")).to_have_count(100)
        shot_that_fits(page, "time-to-train-paging-hpc-benchmark", width)
    finally:
        context.close()


def test_the_filters_and_pages_work_without_javascript(live_server, browser, large_rounds):
    context = browser.new_context(java_script_enabled=False, viewport={"width": 1366, "height": 900})
    page = context.new_page()
    try:
        page.goto(live_server.url + TRAINING)
        submit_filters(page, "#round-filters", division="closed", q="x8")
        systems = page.locator("#results-table td.system a").all_inner_texts()
        assert systems and all("x8" in name for name in systems)
        assert page.locator("#results-table tr.group").all_inner_texts()[0].startswith("Closed division")
        page.locator("nav.pager a[rel=next]").first.click()
        page.wait_for_url("**page=2**", wait_until="load")
        assert "division=closed" in page.url and "q=x8" in page.url
        save_screenshot(page, SCREENSHOTS / "time-to-train-paging-filtered-1366.png")

        page.goto(live_server.url + TRAINING + "resnet/")
        submit_filters(page, "#benchmark-filters", division="open")
        divisions = page.locator("#ranked tr.group").all_inner_texts()
        assert divisions and all(text.startswith("Open division") for text in divisions)
    finally:
        context.close()
