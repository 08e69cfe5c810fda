"""Every page kind of every suite at 1366 and 390 px, with the bundled sample of each suite
imported: no page wider than the screen, every chart drawn, log axes labelled in plain numbers,
hyperparameters in every run's column, the normalised views, an earlier version of a result, a
chart's embed page and a verification job. Screenshots (with TEST_SCREENSHOTS=1):
test-output/screenshots/kinds-<page>-<width>.png.
"""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from results.models import Result
from results.services.lifecycle import publish_version
from results.services.rounds import publish_round
from results.tests.factories import make_result, make_round, make_submission, make_system
from tests.browser.conftest import draw_every_chart
from tests.screenshots import SCREENSHOTS, save_screenshot
from verify import services
from verify.constants import Outcome
from verify.tests.evidence import verify_honestly
from verify.tests.world import verifiable_result

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.slow(minutes=2)]

SAMPLE_ROUNDS = ["training-v0.7", "training-v1.0", "training-v3.0", "training-v4.0", "inference-v0.7",
                 "inference-v4.1", "hpc-v1.0"]
WIDTHS = [1366, 390]


@pytest.fixture
def site(sample_data, personas, tmp_path):
    for name in SAMPLE_ROUNDS:
        call_command("import_results", str(sample_data / name), "--round", name, "--publish", stdout=io.StringIO())
    # A result corrected after publication: version 1 superseded by version 2.
    round_ = make_round("9.0", state="review")
    first = make_submission(round_, personas["alpha"], version=1)
    make_result(make_system(first, "box"), "resnet", minutes=30.0, result_id="9.0-0001")
    publish_round(round_, actor=personas["chair"], reason="press release")
    second = make_submission(round_, personas["alpha"], version=2, is_current=False)
    make_result(make_system(second, "box"), "resnet", minutes=27.0, result_id="9.0-0001")
    publish_version(second, actor=personas["chair"], reason="wrong system description fixed")
    # A finished verification job, reproduced from an honest worker's evidence, with no GPU telemetry.
    job = services.request_verification(actor=personas["reviewer"], result=verifiable_result(personas, tmp_path), runs=1)
    assert verify_honestly(job).outcome == Outcome.REPRODUCED

    def first_result(suite: str, **rule) -> str:
        return (Result.objects.filter(submission__round__suite=suite, submission__is_current=True, **rule)
                .order_by("result_id").values_list("result_id", flat=True)[0])

    training = first_result("training", submission__round__version="1.0", benchmark__name="resnet")
    hpc = first_result("hpc", scaling="strong")
    return {
        "home": "/",
        "progress-training": "/progress/training/",
        "progress-inference": "/progress/inference/",
        "progress-hpc": "/progress/hpc/",
        "training-round": "/rounds/training-v1.0/",
        "training-benchmark": "/rounds/training-v1.0/resnet/",
        "training-benchmark-per-accelerator": "/rounds/training-v1.0/resnet/?per=accelerator",
        "training-benchmark-energy": "/rounds/training-v4.0/resnet/?per=watt",
        "training-result": f"/results/{training}/",
        "training-result-old-version": "/results/9.0-0001/v1/",
        "training-system": "/systems/{org}/{system}/".format(**_system_of(training)),
        "inference-round": "/rounds/inference-v4.1/",
        "inference-round-per-watt": "/rounds/inference-v4.1/?per=watt",
        "inference-round-v07-per-accelerator": "/rounds/inference-v0.7/?per=accelerator",
        "inference-result": f"/results/{first_result('inference', submission__round__version='4.1')}/",
        "inference-system": "/systems/{org}/{system}/".format(**_system_of(first_result("inference"))),
        "hpc-round": "/rounds/hpc-v1.0/",
        "hpc-round-per-node": "/rounds/hpc-v1.0/?per=node",
        "hpc-benchmark": "/rounds/hpc-v1.0/deepcam/",
        "hpc-result": f"/results/{hpc}/",
        "hpc-system": "/systems/{org}/{system}/".format(**_system_of(hpc)),
        "organization": "/organizations/{org}/".format(**_system_of(training)),
        "changes": "/changes/",
        "round-changes": "/rounds/training-v9.0/changes/",
        "snapshots": "/rounds/training-v1.0/snapshots/",
        "compare": f"/compare/?result={training}&result={hpc}",
        "search": "/search/?q=A100",
        "embed": "/rounds/training-v1.0/resnet/charts/scaling/embed/",
        "verification": f"/verify/jobs/{job.pk}/",
        "not-found": "/rounds/training-v99.0/",
    }


def _system_of(result_id: str) -> dict:
    result = Result.objects.filter(result_id=result_id).select_related("system", "submission__organization").first()
    return {"org": result.submission.organization.slug, "system": result.system.system_id}


def _log_axis_labels(page) -> list[list[str]]:
    """The tick labels of every drawn log axis on the page."""
    return page.evaluate("""() => Array.from(document.querySelectorAll('.plot[data-drawn]')).flatMap(plot =>
        Object.keys(plot._fullLayout).filter(k => /^[xy]axis\\d*$/.test(k) && plot._fullLayout[k].type === 'log')
          .map(k => Array.from(plot.querySelectorAll('.' + k[0] + (k.slice(5) || '') + 'tick text'))
            .map(t => t.textContent)))""")


def _plain_number(label: str) -> float:
    """A tick label as a number: plain ("2", "1,000", "0.05") or with Plotly's SI suffix ("10k")."""
    scale = {"k": 1e3, "M": 1e6, "G": 1e9}.get(label[-1], 1)
    return float(label.rstrip("kMG").replace(",", "")) * scale


@pytest.mark.parametrize("width", WIDTHS)
def test_every_page_kind_of_every_suite(live_server, browser, site, width):
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    overflowing, empty_charts, odd_ticks = {}, {}, {}
    try:
        for name, url in site.items():
            response = page.goto(live_server.url + url)
            assert response.status == (404 if name == "not-found" else 200), (name, url, response.status)
            page.wait_for_load_state("networkidle")
            draw_every_chart(page)
            scroll_width, inner_width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
            if scroll_width > inner_width:
                overflowing[name] = scroll_width
            empty = page.locator(".empty-chart").all_inner_texts()
            if empty:
                empty_charts[name] = empty
            for labels in _log_axis_labels(page):
                numbers = [_plain_number(label) for label in labels if label]
                if numbers != sorted(set(numbers)):
                    odd_ticks[name] = labels
            save_screenshot(page, SCREENSHOTS / f"kinds-{name}-{width}.png", full_page=True)
        assert overflowing == {}, f"pages wider than {width} px"
        assert odd_ticks == {}, f"log axes whose labels do not read as increasing plain numbers: {odd_ticks}"
        # Charts with nothing to plot: only where the page has nothing of that kind.
        assert "progress-inference" not in empty_charts, empty_charts

        page.goto(live_server.url + site["training-result"])
        runs = page.locator("#hyperparameters thead th").count() - 1
        cells = page.eval_on_selector_all("#hyperparameters tbody tr", "rows => rows.map(r => r.cells.length - 1)")
        assert runs > 1 and set(cells) == {runs}, "a hyperparameter value under every run's column"

        page.goto(live_server.url + site["training-result-old-version"])
        assert "This is version 1" in page.inner_text("#old-version")
        page.click("#old-version a")
        page.wait_for_url("**/results/9.0-0001/", wait_until="load")
        assert "v2 (current)" in page.inner_text("#versions")
    finally:
        context.close()
