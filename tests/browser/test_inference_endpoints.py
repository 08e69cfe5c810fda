"""An Inference v6.1 result of the MLCommons Endpoints client in a real browser at laptop and phone
width: its client metrics (throughput, tokens/s per user, TTFT/TPOT/latency percentiles) fit the
screen. Screenshots land in test-output/screenshots/ (with TEST_SCREENSHOTS=1)."""

import io

import pytest
from django.core.management import call_command

from mlperf_check.tests.endpoints_mutations import submission
from results.models import Result
from tests.browser.conftest import draw_every_chart
from tests.screenshots import SCREENSHOTS, save_screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("width", [1366, 390])
def test_an_endpoints_result_page_at_laptop_and_phone_width(live_server, browser, tmp_path, width):
    call_command(
        "import_results",
        str(submission(tmp_path)),
        "--round",
        "inference-v6.1",
        "--publish",
        "--published-at",
        "2026-09-09",
        stdout=io.StringIO(),
    )
    result = Result.objects.get(benchmark__name="deepseek-r1", scenario="Interactive")
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    try:
        page.goto(f"{live_server.url}/results/{result.result_id}/")
        page.wait_for_selector("#endpoints-percentiles")
        draw_every_chart(page)
        assert "652750.1 tokens/s" in page.inner_text("#endpoints-metrics")
        assert "475.316" in page.inner_text("#endpoints-percentiles")
        scroll_width, inner_width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        save_screenshot(page, SCREENSHOTS / f"inference-endpoints-result-{width}.png", full_page=True)
        assert scroll_width <= inner_width, f"the result page is {scroll_width} px wide at {width} px"
    finally:
        context.close()
