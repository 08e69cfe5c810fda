"""Every page kind fits a phone (390 px) and a laptop (1366 px) without horizontal page scroll.

Wide tables scroll inside their own box (their first column stays put) and charts shrink to
the screen; the page itself never gets wider than the window. Screenshots of every page at
both widths land in test-output/screenshots/layout-<page>-<width>.png (with TEST_SCREENSHOTS=1).
"""

import pytest
from django.contrib.auth.models import User

from results.constants import Deployment
from results.tests.factories import (
    make_benchmark,
    make_org,
    make_result,
    make_round,
    make_submission,
    make_system,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDTHS = [390, 1366]
BENCHMARKS = ("bert", "dlrm", "gnmt", "maskrcnn", "minigo", "resnet", "rnnt", "ssd", "transformer", "unet3d")


@pytest.fixture
def world():
    """A v1.0-like round: every benchmark column, long system names, a benchmark with no result."""
    round_ = make_round("1.0", benchmarks=BENCHMARKS)
    alpha = make_org("Alpha")
    alpha.members.add(User.objects.create_user("owner", password="password"))
    submission = make_submission(round_, alpha)
    beta = make_submission(round_, make_org("Beta Research Laboratories"))
    log = "\n".join(f":::MLLOG line {n}" for n in range(1, 60))
    for index, count in enumerate([8, 64, 1024]):
        system = make_system(submission, f"dgxa100_n{count}", name=f"NVIDIA DGX SuperPOD A100-SXM4-80GB x{count}",
                             accelerators_count=count, number_of_nodes=max(1, count // 8),
                             framework="MXNet NVIDIA Release 21.05 with a long version suffix")
        for offset, name in enumerate(b for b in BENCHMARKS if b != "minigo"):
            make_result(system, name, minutes=100.0 / count * (offset + 1), result_id=f"1.0-{index}{offset:03d}",
                        log_text=log if (index, name) == (0, "resnet") else None)
    cloud = make_system(beta, "tpu", name="Cloud TPU v4 pod with a very long descriptive name", accelerators_count=256,
                        deployment=Deployment.CLOUD, accelerator_model_name="TPU v4")
    make_result(cloud, "resnet", minutes=1.4, result_id="1.0-9000")
    make_benchmark(make_round("0.7", benchmarks=()), "resnet")
    return round_


PAGES = {
    "home": "/",
    "round": "/rounds/training-v1.0/",
    "benchmark": "/rounds/training-v1.0/resnet/",
    "benchmark-empty": "/rounds/training-v1.0/minigo/",
    "result": "/results/1.0-0005/",
    "system": "/systems/alpha/dgxa100_n8/",
    "compare": "/compare/?result=1.0-0005&result=1.0-1005&result=1.0-9000",
    "search": "/search/?q=A100",
    "progress": "/progress/training/",
    "login": "/accounts/login/",
}


def fits(page) -> tuple[int, int]:
    return page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")


@pytest.mark.parametrize("width", WIDTHS)
def test_every_page_fits_the_screen(live_server, browser, world, width):
    from tests.browser.conftest import draw_every_chart
    from tests.screenshots import SCREENSHOTS, save_screenshot

    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    try:
        overflowing = {}
        for name, url in PAGES.items():
            page.goto(live_server.url + url)
            page.wait_for_load_state("networkidle")
            draw_every_chart(page)  # a chart drawn at the screen's width must fit it too
            scroll_width, inner_width = fits(page)
            if scroll_width > inner_width:
                overflowing[name] = scroll_width
            save_screenshot(page, SCREENSHOTS / f"layout-{name}-{width}.png", full_page=True)
        # The upload page, as the member it is for.
        page.goto(live_server.url + "/accounts/login/?next=/submit/")
        page.fill("input[name=username]", "owner")
        page.fill("input[name=password]", "password")
        page.click("main button[type=submit], main input[type=submit]")
        page.wait_for_url("**/submit/")
        scroll_width, inner_width = fits(page)
        if scroll_width > inner_width:
            overflowing["submit"] = scroll_width
        save_screenshot(page, SCREENSHOTS / f"layout-submit-{width}.png", full_page=True)
        assert overflowing == {}, f"pages wider than {width} px"
    finally:
        context.close()


def test_on_a_phone_a_long_legend_below_a_chart_leaves_the_plot_its_height(live_server, browser, world):
    """The legend moves below the plot on a phone; the chart's box grows with its entries (ten
    benchmarks here) instead of squashing the plot area into a strip."""
    from tests.browser.conftest import draw_every_chart

    context = browser.new_context(viewport={"width": 390, "height": 900})
    page = context.new_page()
    try:
        for url in ("/", "/progress/training/"):
            page.goto(live_server.url + url)
            draw_every_chart(page)
            heights = page.eval_on_selector_all(
                ".plot[data-drawn]", "plots => plots.map(p => [p.dataset.figure, p._fullLayout._size.h])"
            )
            assert heights and all(height >= 150 for _, height in heights), (url, heights)
    finally:
        context.close()


def test_the_round_table_shows_every_benchmark_on_a_laptop(live_server, browser, world):
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    page = context.new_page()
    try:
        page.goto(live_server.url + "/rounds/training-v1.0/")
        box = page.eval_on_selector("#results-table", "t => [t.scrollWidth, t.parentElement.clientWidth]")
        assert box[0] <= box[1], "the round table is clipped at 1366 px"
    finally:
        context.close()


def test_on_a_phone_the_round_table_keeps_the_system_column_in_view(live_server, browser, world):
    from tests.screenshots import SCREENSHOTS, save_screenshot

    context = browser.new_context(viewport={"width": 390, "height": 800})
    page = context.new_page()
    try:
        page.goto(live_server.url + "/rounds/training-v1.0/")
        page.eval_on_selector("#results-table", "t => { t.parentElement.scrollLeft = 600; }")
        left = page.eval_on_selector("#results-table tbody tr:not(.group) td.system", "td => td.getBoundingClientRect().left")
        assert 0 <= left < 40  # the identifying column stays at the left edge while the scores scroll
        save_screenshot(page, SCREENSHOTS / "layout-round-390-scrolled.png")
    finally:
        context.close()


@pytest.mark.parametrize("width", WIDTHS)
def test_inference_pages_fit_the_screen(live_server, browser, sample_data, width):
    import io

    from django.core.management import call_command

    from results.models import Result
    from tests.browser.conftest import draw_every_chart
    from tests.screenshots import SCREENSHOTS, save_screenshot

    call_command("import_results", str(sample_data / "inference-v0.7"), "--round", "inference-v0.7", "--publish",
                 stdout=io.StringIO())
    result = Result.objects.filter(submission__round__suite="inference").order_by("result_id").first()
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    try:
        overflowing = {}
        for name, url in {"inference-round": "/rounds/inference-v0.7/",
                          "inference-result": f"/results/{result.result_id}/"}.items():
            page.goto(live_server.url + url)
            page.wait_for_load_state("networkidle")
            draw_every_chart(page)
            scroll_width, inner_width = fits(page)
            if scroll_width > inner_width:
                overflowing[name] = scroll_width
            save_screenshot(page, SCREENSHOTS / f"layout-{name}-{width}.png", full_page=True)
        assert overflowing == {}, f"pages wider than {width} px"
    finally:
        context.close()
