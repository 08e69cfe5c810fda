"""What the browser tests pay Chromium for: a new window (context and page), a navigation in a window
already open, and a screenshot (full page as PNG or JPEG, or the window only). CPU seconds of this
process's descendants (Playwright's driver, and Chromium's browser, zygote and every renderer, from
/proc), per operation.

    .venv/bin/python bench/browser_costs.py [--repeat 20]

The page is a table of 300 rows served from this process (about 9,000 px tall at 1366 px): no
Django, so the figures are Chromium's alone. The peer is a navigation in an open window: each other
operation prints its cost as a multiple of it. Debian's Chromium, as the tests drive it
(tests/conftest.py).
"""

from __future__ import annotations

import argparse
import http.server
import os
import sys
import threading
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the project, ahead of bench/
from verify.sandbox.processes import tree_cpu_seconds  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]  # tests/conftest.py's
ROWS = "".join(f"<tr><td>{i}</td><td>system {i}</td><td>{i * 3.14:.2f}</td></tr>" for i in range(300))
PAGE = (f"<!doctype html><html><head><title>bench</title><style>td {{ border: 1px solid #ccc; padding: 4px }}"
        f"</style></head><body><h1>A table</h1><table>{ROWS}</table></body></html>").encode()


class Page(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)

    def log_message(self, *args):
        pass


def descendants_cpu() -> float:
    """CPU seconds of this process's descendants (with the children they have reaped): its whole
    tree's less its own."""
    return tree_cpu_seconds(os.getpid()) - time.process_time()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=20, help="operations of each kind (default 20)")
    args = parser.parse_args()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_port}/"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)

        def measure(operation) -> tuple[float, float]:
            cpu, wall = descendants_cpu(), time.monotonic()
            for _ in range(args.repeat):
                operation()
            return (descendants_cpu() - cpu) / args.repeat, (time.monotonic() - wall) / args.repeat

        def new_window():
            context = browser.new_context(viewport={"width": 1366, "height": 900})
            context.new_page().goto(url)
            context.close()

        context = browser.new_context(viewport={"width": 1366, "height": 900})
        page = context.new_page()
        page.goto(url)
        height = page.evaluate("document.documentElement.scrollHeight")
        figures = {
            "navigation in an open window (the peer)": measure(lambda: page.goto(url)),
            "new window: context, page, navigation": measure(new_window),
            f"full-page PNG screenshot (1366 x {height} px)": measure(lambda: page.screenshot(full_page=True)),
            "full-page JPEG screenshot, quality 80": measure(lambda: page.screenshot(full_page=True, type="jpeg",
                                                                                    quality=80)),
            "window-only PNG screenshot (1366 x 900 px)": measure(lambda: page.screenshot()),
        }
        browser.close()
    peer = figures["navigation in an open window (the peer)"][0]
    print(f"Chromium {CHROMIUM}, {args.repeat} of each; CPU and wall seconds per operation")
    for name, (cpu, wall) in figures.items():
        print(f"{name:48s} {cpu:6.3f} CPU-s {wall:6.3f} s   {cpu / peer:5.1f} x the peer")


if __name__ == "__main__":
    main()
