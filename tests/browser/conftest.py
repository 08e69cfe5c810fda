"""Live server + headless Debian Chromium: the one Playwright session is tests/conftest.py's `browser`."""

from pathlib import Path

import pytest

from tests.screenshots import SCREENSHOTS, save_screenshot


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
    page = context.new_page()
    yield page
    context.close()


@pytest.fixture
def screenshot(page):
    def take(name: str) -> Path:
        # Of a loaded page: Chromium refuses a full-page capture of one still loading ("Unable to
        # capture screenshot", once in CI right after a click that opened another page).
        page.wait_for_load_state("load")
        path = SCREENSHOTS / f"{name}.png"
        save_screenshot(page, path, full_page=True)
        return path

    return take




def drawn_traces(page, selector: str) -> int:
    """The number of traces drawn in the chart `selector` (a `.plot`). static/js/charts.js draws a chart
    only when it comes near the screen, so this scrolls it into view first, as a reader would."""
    chart = page.locator(selector)
    chart.scroll_into_view_if_needed()
    page.wait_for_selector(f"{selector}[data-drawn]", timeout=30000)
    return chart.evaluate("el => el.data ? el.data.length : 0")


def shot_that_fits(page, name: str, width: int) -> None:
    """Once the page is loaded and its charts drawn: a full-page screenshot
    (SCREENSHOTS/<name>-<width>.png, with TEST_SCREENSHOTS=1), and nothing wider than the window."""
    page.wait_for_load_state("networkidle")
    draw_every_chart(page)
    scroll_width, inner_width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    save_screenshot(page, SCREENSHOTS / f"{name}-{width}.png", full_page=True)
    assert scroll_width <= inner_width, f"{name} is {scroll_width} px wide at {width} px"


def draw_every_chart(page) -> None:
    """Scrolls each chart on the page into view until it is drawn, then back to the top."""
    charts = page.locator(".plot[data-figure]")
    for index in range(charts.count()):
        charts.nth(index).scroll_into_view_if_needed()
        charts.nth(index).and_(page.locator("[data-drawn]")).wait_for(timeout=30000)
    page.evaluate("window.scrollTo(0, 0)")


def fill_form(page, form: str, fields: dict[str, str]) -> None:
    """Set `fields` of the form `form`: a select or a text input each, by name."""
    for name, value in fields.items():
        control = page.locator(f"{form} [name={name}]")
        if control.evaluate("element => element.tagName") == "SELECT":
            control.select_option(value)
        else:
            control.fill(value)


def submit_filters(page, form: str, **fields: str) -> None:
    """Set `fields` of the GET filter form `form`, submit it, and wait for the filtered page itself
    to load: right after the click the URL has changed while the old page is still shown."""
    fill_form(page, form, fields)
    page.click(f"{form} button[type=submit]")
    page.wait_for_url(lambda url: all(f"{name}={value}" in url for name, value in fields.items()), wait_until="load")
