"""The MLPerf Tiny pages in a real browser at laptop and phone width: a round's leaderboards in
inf./sec., a benchmark's energy and accuracy charts, a result's windows and a system page fit the
screen and draw. Screenshots land in test-output/screenshots/ (with TEST_SCREENSHOTS=1)."""

import io

import pytest
from django.core.management import call_command

from tests.browser.conftest import drawn_traces, shot_that_fits

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("width", [1366, 390])
def test_tiny_pages_at_laptop_and_phone_width(live_server, browser, sample_data, width):
    call_command("import_results", str(sample_data / "tiny-v1.3"), "--round", "tiny-v1.3", "--publish",
                 stdout=io.StringIO())
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()

    def check(name: str) -> None:
        shot_that_fits(page, f"tiny-{name}", width)

    try:
        page.goto(f"{live_server.url}/rounds/tiny-v1.3/")
        board = page.locator("#board-kws")
        assert "228.982" in board.inner_text() and "inf./sec." in board.locator("thead").inner_text()
        check("round")

        page.click("h2 a[href$='/kws/']")
        page.wait_for_selector("#chart-energy-throughput")
        assert drawn_traces(page, "#chart-energy-throughput .plot") == 2
        assert drawn_traces(page, "#chart-accuracy .plot") == 1
        check("benchmark")

        page.click("#board-kws a[href^='/results/']")
        page.wait_for_selector("#rule-checks")
        assert "Top-1" in page.inner_text("#rule-checks")
        assert drawn_traces(page, "#chart-windows .plot") == 2
        check("result")

        page.click("text=system details")
        page.wait_for_selector("#system-tiny-results")
        assert "228.982" in page.inner_text("#system-tiny-results")
        check("system")
    finally:
        context.close()
