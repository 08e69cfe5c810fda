"""The MLPerf Automotive pages in a real browser at laptop and phone width: the round's latency
and accuracy charts draw, its leaderboards, a model, a result and a system page fit the screen.
Screenshots land in test-output/screenshots/ (with TEST_SCREENSHOTS=1)."""

import io

import pytest
from django.core.management import call_command

from tests.browser.conftest import drawn_traces, shot_that_fits

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("width", [1366, 390])
def test_automotive_pages_at_laptop_and_phone_width(live_server, browser, sample_data, width):
    call_command("import_results", str(sample_data / "automotive-v0.5"), "--round", "automotive-v0.5", "--publish",
                 "--ids", str(sample_data / "automotive-v0.5-ids.json"), stdout=io.StringIO())
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()

    def check(name: str) -> None:
        shot_that_fits(page, f"automotive-{name}", width)

    try:
        page.goto(f"{live_server.url}/rounds/automotive-v0.5/")
        board = page.locator("table.leaderboard[data-model=bevformer][data-scenario=ConstantStream]")
        assert "5.3197" in board.inner_text() and "Latency (ms)" in board.locator("thead").inner_text()
        assert drawn_traces(page, "#chart-latency .plot") == 2
        assert drawn_traces(page, "#chart-accuracy-latency .plot") == 1
        check("round")

        page.click("h3 a[href$='/bevformer/']")
        page.wait_for_selector("#chart-latency")
        check("benchmark")

        page.click("table.leaderboard[data-scenario=SingleStream] a[href^='/results/']")
        page.wait_for_selector("#rule-checks")
        assert "mAP_3D" in page.inner_text("#rule-checks")
        assert drawn_traces(page, "#chart-latency .plot") == 2
        check("result")

        page.click("text=system details")
        page.wait_for_selector("#system-automotive-results")
        assert "5.2099" in page.inner_text("#system-automotive-results")
        check("system")
    finally:
        context.close()
