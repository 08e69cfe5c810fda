"""The HPC pages and energy to train in a real browser at a laptop's (1366 px) and a phone's
(390 px) width: leaderboards, the scaling, throughput and energy charts drawn, no horizontal page
scroll. Screenshots land in test-output/screenshots/ (with TEST_SCREENSHOTS=1)."""

import io

import pytest
from django.core.management import call_command

from tests.browser.conftest import drawn_traces
from tests.screenshots import SCREENSHOTS, save_screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDTHS = [1366, 390]


def page_width(page) -> int:
    return page.evaluate("document.documentElement.scrollWidth")


def test_hpc_and_energy_pages_at_laptop_and_phone_width(live_server, browser, sample_data):
    for folder, slug in (("hpc-v1.0", "hpc-v1.0"), ("training-v4.0", "training-v4.0")):
        call_command("import_results", str(sample_data / folder), "--round", slug, "--publish", "--jobs", "1",
                     stdout=io.StringIO())
    for width in WIDTHS:
        context = browser.new_context(viewport={"width": width, "height": 900})
        page = context.new_page()
        page.goto(f"{live_server.url}/")
        page.click("text=HPC v1.0")
        page.wait_for_selector("table.leaderboard")
        assert page.locator("table.leaderboard").count() == 4  # cosmoflow, deepcam (both), oc20 strong
        assert "0.756" in page.inner_text("table[data-benchmark=deepcam][data-scaling=weak]")
        assert page_width(page) <= width
        save_screenshot(page, SCREENSHOTS / f"hpc-round-{width}.png", full_page=True)

        page.click("#deepcam h2 a")
        page.wait_for_selector("#chart-throughput")
        assert drawn_traces(page, "#chart-throughput .plot") == 1
        assert drawn_traces(page, "#chart-scaling .plot") == 1
        assert page_width(page) <= width
        save_screenshot(page, SCREENSHOTS / f"hpc-benchmark-{width}.png", full_page=True)

        page.click("table[data-scaling=weak] a[href^='/results/']")
        page.wait_for_selector("#weak-figures")
        assert "6 models of 512 accelerators" in page.inner_text("#weak-figures")
        assert page_width(page) <= width
        save_screenshot(page, SCREENSHOTS / f"hpc-weak-result-{width}.png", full_page=True)

        page.goto(f"{live_server.url}/rounds/training-v4.0/resnet/")
        assert drawn_traces(page, "#chart-energy .plot") == 2  # the division and its frontier
        assert "Energy (MJ)" in page.inner_text("#ranked")
        assert page_width(page) <= width
        save_screenshot(page, SCREENSHOTS / f"energy-benchmark-{width}.png", full_page=True)
        context.close()
