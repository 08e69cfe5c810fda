"""Journeys: a submitter, a reviewer, a chair and a researcher at work in Debian's Chromium, against
a server started as its users start it (tests/journeys/servers.py), at 1366 and 390 px."""

from __future__ import annotations

from tests import screenshots

SCREENSHOTS = screenshots.SCREENSHOTS / "journeys"
WIDTHS = {"desktop": (1366, 900), "phone": (390, 844)}


class Person:
    """One person's browser (its own cookies: a private window each) on one server."""

    def __init__(self, browser, base_url: str, width: str = "desktop"):
        width_px, height_px = WIDTHS[width]
        self.context = browser.new_context(viewport={"width": width_px, "height": height_px}, accept_downloads=True,
                                           base_url=base_url)
        self.page = self.context.new_page()
        self.base_url = base_url

    def sign_in(self, username: str, password: str) -> Person:
        self.page.goto("/accounts/login/")
        self.page.fill("input[name=username]", username)
        self.page.fill("input[name=password]", password)
        self.page.click("button[type=submit]")
        self.page.wait_for_load_state()
        assert "/accounts/login/" not in self.page.url, f"{username} could not sign in"
        return self

    def close(self) -> None:
        self.context.close()
