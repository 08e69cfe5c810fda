"""The browser tests' screenshots, for people to look at (no assertion reads them): opt-in, since each
full-page capture costs Chromium about half a second of CPU and a whole run took ~330 that nobody
looks at in CI. `TEST_SCREENSHOTS=1 make test` writes them to test-output/screenshots/."""

import os
from pathlib import Path

SCREENSHOTS = Path(__file__).resolve().parents[1] / "test-output" / "screenshots"
WANTED = os.environ.get("TEST_SCREENSHOTS") == "1"


def save_screenshot(target, path: Path, *, full_page: bool = False) -> None:
    """`target` (a Playwright Page or Locator) as the PNG `path`, with TEST_SCREENSHOTS=1; else nothing."""
    if not WANTED:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    if full_page:
        target.screenshot(path=str(path), full_page=True)
    else:
        target.screenshot(path=str(path))  # a Locator's screenshot takes no full_page
