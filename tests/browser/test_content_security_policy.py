"""The Content-Security-Policy (no 'unsafe-eval', scripts only from our static files) holds in a
real browser: every chart page draws its Plotly figures, the API docs load, and Chromium reports
no violation."""

import pytest

from tests.browser.conftest import drawn_traces
from tests.browser.test_dashboard import data  # noqa: F401 - the fixture is used by name

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_charts_draw_under_the_csp_without_a_single_violation(live_server, page, data):  # noqa: F811
    violations = []
    page.on("console", lambda message: violations.append(message.text)
            if "Content Security Policy" in message.text or "Content-Security-Policy" in message.text else None)
    response = page.goto(f"{live_server.url}/results/1.0-0001/")
    assert "unsafe-eval" not in response.headers["content-security-policy"]
    assert drawn_traces(page, "#chart-convergence .plot") >= 1
    page.goto(f"{live_server.url}/rounds/training-v1.0/resnet/")
    assert drawn_traces(page, "#chart-scaling .plot") == 3
    page.goto(f"{live_server.url}/progress/training/")
    assert drawn_traces(page, "#chart-best-time .plot") == 2
    page.goto(f"{live_server.url}/api/docs/")
    page.wait_for_selector(".swagger-ui .info", timeout=15000)
    assert violations == []
