"""Charts are drawn when they come near the screen, and Plotly is loaded only then (static/js/charts.js).

On a phone the benchmark page's four charts stack: after load only those within a screen of the
viewport are drawn, Plotly was fetched once, and scrolling to the last chart draws it. Until a chart
is drawn its box keeps its height and names the chart; a point still opens its result. A page whose
charts are all further down does not even fetch Plotly until the reader scrolls there. Screenshots
(test-output/screenshots/lazy-charts-*.png, with TEST_SCREENSHOTS=1) show the placeholders at 390 and 1366 px.
"""

import io

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from tests.browser.test_dashboard import data  # noqa: F401 - the fixture is used by name
from tests.browser.test_layout import world  # noqa: F401 - the fixture is used by name
from tests.screenshots import SCREENSHOTS, save_screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

BENCHMARK_PAGE = "/rounds/training-v1.0/resnet/"
PLOTLY = "**/plotly-basic*.js"


@pytest.fixture
def phone(browser):
    # A small phone: the benchmark page's four stacked charts then reach beyond a screen below the first.
    context = browser.new_context(viewport={"width": 390, "height": 640})
    yield context.new_page()
    context.close()


@pytest.fixture
def laptop(browser):
    context = browser.new_context(viewport={"width": 1366, "height": 900})
    yield context.new_page()
    context.close()


def plotly_requests(page) -> list[str]:
    requests = []
    page.on("request", lambda request: requests.append(request.url) if "plotly-basic" in request.url else None)
    return requests


def chart_tops(page) -> list[float]:
    return page.locator(".plot[data-figure]").evaluate_all("divs => divs.map(d => d.getBoundingClientRect().top)")


def test_on_a_phone_only_the_charts_near_the_first_screen_are_drawn(live_server, phone, data):  # noqa: F811
    requested = plotly_requests(phone)
    phone.goto(live_server.url + BENCHMARK_PAGE)
    charts = phone.locator(".plot[data-figure]")
    assert charts.count() == 4
    screen = phone.evaluate("window.innerHeight")
    near = [top < 2 * screen for top in chart_tops(phone)]  # the viewport and one screen below it
    assert near[0] and not near[-1], chart_tops(phone)
    for index, is_near in enumerate(near):
        if is_near:
            expect(charts.nth(index)).to_have_attribute("data-drawn", "true")
    phone.wait_for_load_state("networkidle")
    assert [charts.nth(index).get_attribute("data-drawn") for index in range(4)] == [
        "true" if is_near else None for is_near in near
    ]
    assert len(requested) == 1 and phone.locator("script[src*='plotly-basic']").count() == 1
    save_screenshot(phone, SCREENSHOTS / "lazy-charts-390.png", full_page=True)

    charts.last.scroll_into_view_if_needed()
    expect(charts.last).to_have_attribute("data-drawn", "true")
    assert len(requested) == 1 and phone.locator("script[src*='plotly-basic']").count() == 1
    save_screenshot(phone, SCREENSHOTS / "lazy-charts-390-scrolled.png", full_page=True)


def test_a_point_of_a_lazily_drawn_chart_opens_its_result(live_server, phone, data):  # noqa: F811
    phone.goto(live_server.url + BENCHMARK_PAGE)
    chart = phone.locator("#chart-scaling .plot")
    chart.scroll_into_view_if_needed()
    expect(chart).to_have_attribute("data-drawn", "true")
    point = chart.locator(".scatterlayer .point").first.bounding_box()
    phone.mouse.click(point["x"] + point["width"] / 2, point["y"] + point["height"] / 2)
    phone.wait_for_url("**/results/1.0-*/")
    expect(phone.locator(".score-big")).to_be_visible()


# The home page of the layout tests' round: its headline chart has a set height, over the default box's.
@pytest.mark.parametrize(("name", "path", "fixture"), [("benchmark", BENCHMARK_PAGE, "data"), ("home", "/", "world")])
def test_until_plotly_arrives_each_chart_keeps_its_box_and_names_itself(live_server, laptop, request, name, path,
                                                                         fixture):
    request.getfixturevalue(fixture)
    held = []
    laptop.route(PLOTLY, lambda route: held.append(route))  # the request waits until the test lets it go
    laptop.goto(live_server.url + path, wait_until="domcontentloaded")
    charts = laptop.locator(".plot[data-figure]")
    laptop.wait_for_timeout(300)
    assert len(held) == 1
    assert charts.count() >= 2 and laptop.locator(".plot[data-drawn]").count() == 0
    placeholder = charts.first.evaluate("div => getComputedStyle(div, '::before').content")
    assert charts.first.get_attribute("aria-label") in placeholder and "Chart loading" in placeholder
    boxes = [charts.nth(index).bounding_box() for index in range(charts.count())]
    save_screenshot(laptop, SCREENSHOTS / f"lazy-charts-{name}-1366-loading.png")

    held[0].continue_()
    for index in range(charts.count()):
        expect(charts.nth(index)).to_have_attribute("data-drawn", "true")
    # Nothing jumps: each chart is drawn in the box its placeholder held.
    assert [charts.nth(index).bounding_box() for index in range(charts.count())] == boxes
    if name == "home":  # the headline chart's set height is over the default box's: a jump would show above
        assert charts.first.evaluate("div => div.layout.height") > 360
    save_screenshot(laptop, SCREENSHOTS / f"lazy-charts-{name}-1366.png")


def test_a_chart_plotly_cannot_be_loaded_for_says_so(live_server, laptop, data):  # noqa: F811
    laptop.route(PLOTLY, lambda route: route.abort())
    laptop.goto(live_server.url + BENCHMARK_PAGE)
    first = laptop.locator(".plot[data-figure]").first
    expect(first).to_have_attribute("data-failed", "true")
    assert "could not be drawn" in first.evaluate("div => getComputedStyle(div, '::before').content")
    assert first.get_attribute("data-drawn") is None


def test_a_page_whose_charts_are_all_further_down_loads_without_plotly(live_server, browser, phone, sample_data):
    call_command("import_results", str(sample_data / "inference-v0.7"), "--round", "inference-v0.7", "--publish",
                 stdout=io.StringIO())
    url = live_server.url + "/rounds/inference-v0.7/"  # the leaderboards, then the charts
    phone.goto(url)
    first_chart_top = min(chart_tops(phone))
    # A window short enough that the first chart is more than a screen below the first screen.
    context = browser.new_context(viewport={"width": 390, "height": int(first_chart_top / 3)})
    page = context.new_page()
    requested = plotly_requests(page)
    page.goto(url)
    page.wait_for_load_state("networkidle")
    assert requested == [] and page.evaluate("typeof window.Plotly") == "undefined"
    assert page.locator(".plot[data-drawn]").count() == 0

    first = page.locator(".plot[data-figure]").first
    first.scroll_into_view_if_needed()
    expect(first).to_have_attribute("data-drawn", "true")
    assert len(requested) == 1
    context.close()
