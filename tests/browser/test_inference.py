"""The inference pages in a real browser: the round's leaderboards and charts draw, a result page
shows its latency against the bound. Screenshots land in test-output/screenshots/
(with TEST_SCREENSHOTS=1)."""

import io

import pytest
from django.core.management import call_command

from results.models import Result
from tests.browser.conftest import drawn_traces, submit_filters

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_inference_round_and_result_pages(live_server, page, screenshot, sample_data):
    call_command("import_results", str(sample_data / "inference-v0.7"), "--round", "inference-v0.7", "--publish",
                 stdout=io.StringIO())
    page.goto(f"{live_server.url}/")
    page.click("text=Inference v0.7")
    page.wait_for_selector("table.leaderboard")
    boards = page.locator("table.leaderboard")
    assert boards.count() == 3  # resnet SingleStream, Server, Offline
    assert drawn_traces(page, "#chart-coverage .plot") == 3
    assert drawn_traces(page, "#chart-relative-performance .plot") == 3
    assert drawn_traces(page, "#chart-server-offline-ratio .plot") == 1
    screenshot("inference-round")

    page.click("table[data-scenario=Server] a[href^='/results/']")
    page.wait_for_selector("#rule-checks")
    assert "≤ 15 ms" in page.inner_text("#rule-checks")
    assert drawn_traces(page, "#chart-latency .plot") == 1
    screenshot("inference-result")


@pytest.mark.parametrize("width", [1366, 390])
def test_inference_v41_pages_at_laptop_and_phone_width(live_server, browser, sample_data, width):
    """The v4.1 sample: the results tables per system type (the power filter), LLM leaderboards in tokens/s with TTFT/TPOT, power and performance per
    watt, the system-type filter, a result and a system page; none wider than the screen."""
    from tests.browser.conftest import shot_that_fits
    from tests.screenshots import SCREENSHOTS, save_screenshot

    call_command("import_results", str(sample_data / "inference-v4.1"), "--round", "inference-v4.1", "--publish",
                 stdout=io.StringIO())
    # One result only our stricter rules reject: badged in the results table, never shown as valid.
    Result.objects.filter(system__submitter="NeuralMagic", scenario="Offline").update(
        valid=False, stricter_rules=["detail_log_error"])
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()

    def check(name: str) -> None:
        shot_that_fits(page, f"inference-v41-{name}", width)

    try:
        page.goto(f"{live_server.url}/rounds/inference-v4.1/")
        server = page.locator("table.leaderboard[data-model='llama2-70b-99'][data-scenario=Server]")
        assert "Tokens/s" in server.locator("thead").inner_text() and "TTFT p99 (ms)" in server.inner_text()
        assert "487.9" in server.inner_text()
        assert page.locator("table.leaderboard.power").count() == 3  # resnet Offline, SingleStream, MultiStream
        assert drawn_traces(page, "#chart-performance-per-watt .plot") == 3
        # The results tables come first: a row per system, a column per model and scenario.
        datacenter = page.locator("table.round-table[data-table=datacenter]")
        assert datacenter.locator("tbody tr").count() == 1 and "NeuralMagic" in datacenter.inner_text()
        assert datacenter.locator(".badge.verdicts").inner_text() == "ours: invalid"
        assert page.locator("table.round-table[data-table=edge] thead th[data-model=resnet]").count() == 3
        if width == 390:  # the table scrolls inside its box, not the page
            assert page.evaluate("(e => e.scrollWidth > e.clientWidth)(document.querySelector("
                                 "'table.round-table[data-table=edge]').parentElement)")
        check("round")
        save_screenshot(page.locator("#round-tables"), SCREENSHOTS / f"inference-v41-round-tables-{width}.png")

        submit_filters(page, "#inference-filters", power="yes")
        assert page.locator("table.round-table").count() == 1 and page.locator("table.round-table[data-table=edge]").count() == 1
        check("round-tables-power")

        submit_filters(page, "#inference-filters", system_type="edge")
        assert page.locator("table.leaderboard[data-model='llama2-70b-99']").count() == 0
        check("round-edge")

        page.goto(f"{live_server.url}/rounds/inference-v4.1/")
        page.click("table.leaderboard[data-model='llama2-70b-99'][data-scenario=Server] a[href^='/results/']")
        page.wait_for_selector("#rule-checks")
        assert "≤ 2000 ms" in page.inner_text("#rule-checks") and "≤ 200 ms" in page.inner_text("#rule-checks")
        check("llm-result")

        page.goto(f"{live_server.url}/rounds/inference-v4.1/")
        page.click("table.leaderboard.power[data-scenario=Offline] a[href^='/systems/']")
        page.wait_for_selector("#system-inference-results")
        assert "mJ/query" in page.inner_text("#system-inference-results") and "Minutes" not in page.inner_text("#system-inference-results")
        check("system")
    finally:
        context.close()
