"""Submitter strings in charts show as typed: Plotly's HTML-like markup in a system, submitter or
accelerator name never becomes a link or a style (results/charts.py escapes it)."""

import pytest

from results.tests.factories import make_org, make_result, make_round, make_submission, make_system
from tests.browser.conftest import draw_every_chart

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LINK = '<a href="https://evil.example/">click</a>'
STYLE = '<span style="font-size:90px;fill:red">big</span>'


def test_markup_in_submitter_strings_is_shown_not_rendered(live_server, page, screenshot):
    round_ = make_round("1.0")
    submission = make_submission(round_, make_org("Mallory"))
    for index, count in enumerate([8, 64]):
        system = make_system(submission, f"evil{count}", name=f"{LINK} box {count}", submitter=STYLE,
                             accelerator_model_name=f"{STYLE} {LINK}", accelerators_count=count)
        make_result(system, "resnet", minutes=40.0 / (index + 1), result_id=f"1.0-000{index + 1}")
    page.goto(f"{live_server.url}/rounds/training-v1.0/resnet/")
    draw_every_chart(page)  # each chart below is checked drawn, not merely waiting to be
    for chart in ("#chart-scaling", "#chart-time-to-train", "#chart-pareto"):
        assert page.locator(f"{chart} svg a").count() == 0, chart  # no link made from a name
        styled = page.eval_on_selector_all(f"{chart} svg text, {chart} svg tspan",
                                           "els => els.filter(e => (e.getAttribute('style') || '').includes('90px')).length")
        assert styled == 0, chart
    legend = page.eval_on_selector("#chart-scaling .legend", "g => g.textContent")
    assert '<span style="font-size:90px' in legend  # shown as typed (long legend names are cut)
    hover_names = page.eval_on_selector("#chart-scaling .plot", "div => div.data.map(t => t.name).join(' ')")
    assert "&lt;span style=" in hover_names  # escaped in the figure itself
    page.hover("#chart-scaling .scatterlayer .point >> nth=0", force=True)
    screenshot("chart-markup-escaped")
