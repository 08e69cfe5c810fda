"""Browser bench: every page kind's first visit, on a cold browser cache, in Debian's Chromium.

    scripts/services.sh start
    .venv/bin/python bench/web.py           # seeds the `mlperf_bench` database once (or --seed here)
    .venv/bin/python bench/browser.py --visits 5                # and --width 390 for a phone

Starts gunicorn (DEBUG off, after collectstatic) on the seeded `mlperf_bench` database, asks each
URL once over plain HTTP (so the server's page cache is warm, as for any page someone visited in
the last minute), then opens it in a fresh browser context (empty cache, no cookies, a window
--width px wide and 900 px high), --visits times, and reports per page the median of:

- first visit: navigation start until the page is loaded and every chart in the first screen
  (the viewport before any scroll) is drawn, on the browser's clock (a mutation observer notes when
  each chart gets data-drawn); charts further down are drawn by static/js/charts.js only when they
  come near the screen, so they are not waited for here;
- TTFB and DOM ready: from the browser's Navigation Timing, within the first visit;
- charts: charts in the first screen / charts on the page;
- Plotly: whether plotly.js was loaded by the end of the first visit;
- all drawn: navigation start until every chart is drawn, the bench scrolling each one into view
  in turn after the first visit (so no chart is left out of the measure);
- JS KB and all KB: JavaScript and all bytes on the wire (compressed transfer sizes) of the first visit.

Targets (issue 13): every first visit under 1 s, JavaScript on the wire under 1 MB.
"""

from __future__ import annotations

import argparse
import http.client
import os
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from web import REPO, create_database, manage, service_env, start_gunicorn  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
TARGET_SECONDS = 1.0
TARGET_JS_BYTES = 1_000_000

WIRE = """() => {
  const entries = performance.getEntriesByType("resource");
  const nav = performance.getEntriesByType("navigation")[0];
  const js = entries.filter(e => new URL(e.name).pathname.endsWith(".js")).reduce((s, e) => s + e.transferSize, 0);
  const all = entries.reduce((s, e) => s + e.transferSize, 0) + (nav ? nav.transferSize : 0);
  return [js, all, nav ? nav.responseStart : 0, nav ? nav.domContentLoadedEventEnd : 0];
}"""


# Before any script of the page: notes on each chart the browser time (ms since navigation start)
# at which charts.js marked it drawn.
NOTE_DRAWN_AT = """new MutationObserver(records => {
  const now = performance.now();
  for (const record of records) {
    if (record.target.dataset.drawn && !record.target.dataset.benchDrawnAt) {
      record.target.dataset.benchDrawnAt = now;
    }
  }
}).observe(document, { subtree: true, attributes: true, attributeFilter: ["data-drawn"] });"""
# Marks every chart in the first screen (the viewport, unscrolled) and returns how many of them are
# not drawn yet. Charts above may change height when drawn, so the bench asks again until none is left.
MARK_FIRST_SCREEN = """() => {
  let undrawn = 0;
  for (const div of document.querySelectorAll(".plot[data-figure]")) {
    const box = div.getBoundingClientRect();
    if (box.top < window.innerHeight && box.bottom > 0 && box.width > 0) {
      div.dataset.benchFirstScreen = "";
      undrawn += div.dataset.drawn ? 0 : 1;
    }
  }
  return undrawn;
}"""
# [ms from navigation start until loaded and the charts `selector` matches drawn, how many it matches]
DRAWN_BY = """(selector) => {
  const loaded = performance.getEntriesByType("navigation")[0].loadEventEnd;
  const charts = [...document.querySelectorAll(selector)];
  return [Math.max(loaded, ...charts.map(div => Number(div.dataset.benchDrawnAt))), charts.length];
}"""
PLOTLY_LOADED = "() => typeof window.Plotly !== 'undefined'"


def pick_urls(env) -> list[tuple[str, str]]:
    code = (
        "import django; django.setup()\n"
        "from results.models import Result\n"
        "r = Result.objects.filter(submission__round__version='1.0').select_related('system', 'submission__organization')"
        ".order_by('result_id')[5]\n"
        "print(r.submission.round.slug, r.result_id, r.benchmark.name, r.submission.organization.slug, r.system.system_id)\n"
    )
    slug, result_id, benchmark, org, system_id = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True, check=True
    ).stdout.split()
    return [
        ("home", "/"),
        ("round", f"/rounds/{slug}/"),
        ("benchmark", f"/rounds/{slug}/{benchmark}/"),
        ("result", f"/results/{result_id}/"),
        ("progress", "/progress/training/"),
        ("system", f"/systems/{org}/{system_id}/"),
        ("search", "/search/?q=a100"),
        ("compare", f"/compare/?result={result_id}"),
    ]


def warm(port: int, path: str) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    connection.request("GET", path, headers={"Accept-Encoding": "gzip"})
    response = connection.getresponse()
    response.read()
    if response.status != 200:
        sys.exit(f"{path}: {response.status}")


def visit(browser, url: str, width: int) -> dict:
    """One first visit in a fresh browser context (empty cache, no cookies), then a scroll through every chart."""
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    page.add_init_script(NOTE_DRAWN_AT)
    page.goto(url, wait_until="load")
    # Until no chart of the first screen is left undrawn (not wait_for_function: the CSP forbids eval).
    while page.evaluate(MARK_FIRST_SCREEN):
        page.wait_for_selector(".plot[data-bench-first-screen]:not([data-drawn])", state="detached", timeout=30000)
    first_visit_ms, first_screen = page.evaluate(DRAWN_BY, ".plot[data-bench-first-screen]")
    js_bytes, all_bytes, first_byte, dom_ready = page.evaluate(WIRE)
    plotly_loaded = page.evaluate(PLOTLY_LOADED)
    charts = page.locator(".plot[data-figure]")
    for index in range(charts.count()):
        charts.nth(index).scroll_into_view_if_needed()
        charts.nth(index).and_(page.locator("[data-drawn]")).wait_for(timeout=30000)
    all_drawn_ms, chart_count = page.evaluate(DRAWN_BY, ".plot[data-figure]")
    context.close()
    return {"first_visit_ms": first_visit_ms, "first_byte": first_byte, "dom_ready": dom_ready,
            "first_screen": first_screen, "charts": chart_count, "plotly_loaded": plotly_loaded,
            "all_drawn_ms": all_drawn_ms, "js_bytes": js_bytes, "all_bytes": all_bytes}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", action="store_true", help="seed the bench database first (as bench/web.py does)")
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--width", type=int, default=1366, help="browser window width in px (height 900)")
    parser.add_argument("--visits", type=int, default=1, help="first visits per page; each column is their median")
    options = parser.parse_args()
    from playwright.sync_api import sync_playwright

    env = service_env()
    create_database(env)
    manage(env, "migrate", "--noinput", "-v0")
    if options.seed:
        manage(env, "seed_synthetic", "--clear", "--results", "20000", "--runs", "200000")
    manage(env, "collectstatic", "--noinput", "-v0")
    urls = pick_urls(env)
    server, port = start_gunicorn(env, options.workers)
    failures = []
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
            )
            print(f"gunicorn -w {options.workers}, Chromium {options.width}x900, cold browser cache, warm server "
                  f"cache, {os.cpu_count()} CPUs, median of {options.visits} first visit(s) per page")
            print(f"{'page':10} {'first visit ms':>14} {'TTFB':>6} {'DOM ready':>9} {'charts':>7} {'Plotly':>6}"
                  f" {'all drawn ms':>12} {'JS KB':>7} {'all KB':>7}  url")
            for label, path in urls:
                warm(port, path)
                visits = [visit(browser, f"http://127.0.0.1:{port}{path}", options.width) for _ in range(options.visits)]
                row = {key: statistics.median(v[key] for v in visits) for key in visits[0]}
                charts = f"{row['first_screen']:.0f}/{row['charts']:.0f}"
                print(f"{label:10} {row['first_visit_ms']:14.0f} {row['first_byte']:6.0f} {row['dom_ready']:9.0f}"
                      f" {charts:>7}"
                      f" {'yes' if row['plotly_loaded'] else 'no':>6} {row['all_drawn_ms']:12.0f}"
                      f" {row['js_bytes'] / 1000:7.0f} {row['all_bytes'] / 1000:7.0f}  {path}")
                if row["first_visit_ms"] > TARGET_SECONDS * 1000 or row["js_bytes"] > TARGET_JS_BYTES:
                    failures.append(label)
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=10)
    print("targets met" if not failures else f"over target: {', '.join(failures)}")


if __name__ == "__main__":
    main()
