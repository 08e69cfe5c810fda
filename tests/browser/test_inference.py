"""The inference pages in a real browser: the round's leaderboards and charts draw, a result page
shows its latency against the bound. Screenshots land in test-output/screenshots/."""

import io

import pytest
from django.core.management import call_command

from tests.browser.conftest import drawn_traces

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
