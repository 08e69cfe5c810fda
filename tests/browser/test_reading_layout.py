"""The pages as people read them, measured in Chromium at a laptop's (1366 px) and a phone's
(390 px) width (issue 34): Plotly's toolbar never covers a chart's title, a phone shows the score
a table ranks by without scrolling sideways, and a laptop shows names whole (wrapped, never cut
with an ellipsis). Screenshots land in test-output/screenshots/reading-<page>-<width>.png
(with TEST_SCREENSHOTS=1)."""

import io

import pytest
from django.core.management import call_command

from results.tests.factories import make_org, make_result, make_round, make_submission, make_system
from tests.browser.conftest import draw_every_chart
from tests.screenshots import SCREENSHOTS, save_screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDTHS = [1366, 390]
BENCHMARKS = ("bert", "dlrm", "maskrcnn", "resnet", "rnnt", "ssd", "unet3d", "minigo")


@pytest.fixture
def rounds(sample_data):
    """A training round whose systems have long names and results on every benchmark but one, and
    the sample HPC and inference v4.1 rounds (LLMs, power)."""
    round_ = make_round("1.0", benchmarks=BENCHMARKS)
    submission = make_submission(round_, make_org("Beta Research Laboratories International"))
    for index, count in enumerate([8, 64, 1024]):
        system = make_system(
            submission, f"superpod_n{count}", name=f"NVIDIA DGX SuperPOD A100-SXM4-80GB with InfiniBand HDR x{count}",
            accelerators_count=count, number_of_nodes=max(1, count // 8),
            host_processor_model_name="AMD EPYC 7742 64-Core Processor @ 2.25GHz",
            accelerator_model_name="NVIDIA A100-SXM4-80GB (400W)",
            framework="MXNet NVIDIA Release 21.05 with a long version suffix")
        for offset, name in enumerate(b for b in BENCHMARKS if b != "minigo"):
            make_result(system, name, minutes=100.0 / count * (offset + 1), result_id=f"1.0-{index}{offset:03d}")
    for folder in ("hpc-v1.0", "inference-v4.1"):
        call_command("import_results", str(sample_data / folder), "--round", folder, "--publish", "--jobs", "1",
                     stdout=io.StringIO())


CHART_PAGES = {
    "home": "/",
    "benchmark": "/rounds/training-v1.0/resnet/",
    "result": "/results/1.0-0003/",
    "hpc-benchmark": "/rounds/hpc-v1.0/deepcam/",
    "inference-round": "/rounds/inference-v4.1/",
}

# A box overlaps another when they share more than a pixel both ways.
OVERLAPS = """([a, b]) => a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1"""


@pytest.mark.parametrize("width", WIDTHS)
def test_the_chart_toolbar_never_covers_a_title(live_server, browser, rounds, width):
    context = browser.new_context(viewport={"width": width, "height": 900}, has_touch=width < 500)
    page = context.new_page()
    try:
        covered, measured = {}, 0
        for name, url in CHART_PAGES.items():
            page.goto(live_server.url + url)
            draw_every_chart(page)
            boxes = page.eval_on_selector_all(".plot[data-drawn]", """plots => plots.map(plot => {
                const box = element => { const r = element.getBoundingClientRect();
                                          return {left: r.left, right: r.right, top: r.top, bottom: r.bottom}; };
                const bar = plot.querySelector(".modebar"), title = plot.querySelector(".gtitle");
                return [plot.dataset.figure, bar && box(bar), title && box(title)];
            })""")
            for figure, bar, title in boxes:
                assert bar and title, (name, figure)
                measured += 1
                if page.evaluate(OVERLAPS, [bar, title]):
                    covered[f"{name}:{figure}"] = (bar, title)
            save_screenshot(page, SCREENSHOTS / f"reading-{name}-{width}.png", full_page=True)
        assert measured >= 10
        assert covered == {}, f"the toolbar covers these titles at {width} px"
    finally:
        context.close()


# On a phone: the first score cell of each table that ranks by one figure, or of the round tables.
SCORE_CELLS = {
    "round": ("/rounds/training-v1.0/", "#results-table tbody tr:not(.group) td.score"),
    "benchmark": ("/rounds/training-v1.0/resnet/", "#ranked tbody tr:not(.group) td.score"),
    "hpc-round": ("/rounds/hpc-v1.0/", "table.leaderboard tbody td.score"),
    "inference-leaderboard": ("/rounds/inference-v4.1/", "table.leaderboard tbody td.score"),
    "inference-round-table": ("/rounds/inference-v4.1/", "table.round-table tbody td.score"),
    "system": ("/systems/beta-research-laboratories-international/superpod_n8/", "#system-results tbody td.score"),
    "organization": ("/organizations/beta-research-laboratories-international/", "#organization-results tbody td.score"),
}


def test_on_a_phone_each_table_shows_its_score_without_scrolling_sideways(live_server, browser, rounds):
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True)
    page = context.new_page()
    try:
        off_screen = {}
        for name, (url, selector) in SCORE_CELLS.items():
            page.goto(live_server.url + url)
            boxes = page.eval_on_selector_all(selector, """cells => cells.slice(0, 1).map(cell => {
                const r = cell.getBoundingClientRect(); return [r.left, r.right, window.innerWidth]; })""")
            if not boxes:
                off_screen[name] = "no score cell"
            elif boxes[0][0] < 0 or boxes[0][1] > boxes[0][2]:
                off_screen[name] = boxes[0]
            save_screenshot(page, SCREENSHOTS / f"reading-score-{name}-390.png")
        assert off_screen == {}, "score cells beyond a phone's screen"
    finally:
        context.close()


NAME_CELLS = {
    "round": ("/rounds/training-v1.0/", "#results-table td.name, #results-table td.system"),
    "inference-round": ("/rounds/inference-v4.1/", "table.round-table td.system, table.leaderboard td.system"),
    "hpc-round": ("/rounds/hpc-v1.0/", "table.leaderboard td"),
}


def test_on_a_laptop_names_are_whole_and_the_round_table_fits(live_server, browser, rounds):
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    page = context.new_page()
    try:
        cut = {}
        for name, (url, selector) in NAME_CELLS.items():
            page.goto(live_server.url + url)
            cells = page.eval_on_selector_all(selector, """cells => cells.map(cell => [
                cell.textContent.trim(), getComputedStyle(cell).textOverflow, cell.scrollWidth, cell.clientWidth])""")
            assert cells, name
            cut.update({f"{name}: {text}": (overflow, scroll, client) for text, overflow, scroll, client in cells
                        if overflow == "ellipsis" or scroll > client + 1})
        assert cut == {}, "names cut at 1366 px"
        page.goto(live_server.url + "/rounds/training-v1.0/")
        table, room = page.eval_on_selector("#results-table", "t => [t.scrollWidth, t.parentElement.clientWidth]")
        assert table <= room, "the round table is clipped at 1366 px"
        save_screenshot(page, SCREENSHOTS / "reading-round-names-1366.png", full_page=True)
    finally:
        context.close()
