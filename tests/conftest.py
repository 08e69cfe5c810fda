"""The browser every browser test shares (tests/browser and tests/journeys).

One Playwright session for the whole run: its sync API runs an event loop in this thread, so a
second `sync_playwright()` started while the first is open fails ("Sync API inside the asyncio
loop"), whichever folder's tests run first.
"""

import os
import shutil
from pathlib import Path

import pytest

# Django's async-safety guard would refuse the ORM calls tests make around Playwright's event loop.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


@pytest.fixture(scope="session")
def browser():
    playwright_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian's chromium is not installed")
    with playwright_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
        )
        yield browser
        browser.close()
