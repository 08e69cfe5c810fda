"""Single flight in the page cache (issue 38): when many anonymous visitors miss the same page at
once (the first ones after a change, or after the page expired), one process builds it and the
others are answered with its copy; a waiter builds the page itself when the builder stores nothing.
Real Redis (the test settings' cache) and real threads, each with its own database connection."""

from __future__ import annotations

import threading
import time

import pytest
from django.db import connection
from django.http import HttpResponse
from django.test import RequestFactory

from pages import caching

pytestmark = pytest.mark.django_db(transaction=True)

VISITORS = 8


def visitors_at_once(view, path: str = "/rounds/") -> list[HttpResponse]:
    """VISITORS anonymous GETs of `path` through the front cache, started together."""
    middleware = caching.FrontCacheMiddleware(view)
    start = threading.Barrier(VISITORS)
    answers: list[HttpResponse] = []

    def visit() -> None:
        request = RequestFactory().get(path)
        try:
            start.wait()
            answers.append(middleware(request))
        finally:
            connection.close()  # this thread's own connection (the version query)

    threads = [threading.Thread(target=visit) for _ in range(VISITORS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return answers


class SlowPage:
    """A view that takes `seconds` to build and counts its builds."""

    def __init__(self, seconds: float, public: bool = True, status: int = 200):
        self.seconds, self.public, self.status = seconds, public, status
        self.builds = 0
        self.lock = threading.Lock()

    def __call__(self, request):
        with self.lock:
            self.builds += 1
        time.sleep(self.seconds)
        response = HttpResponse(b"<p>the page</p>", status=self.status)
        response.public_page = self.public
        return response


def test_visitors_missing_the_same_page_at_once_wait_for_one_build():
    view = SlowPage(0.5)
    answers = visitors_at_once(view)
    assert view.builds == 1
    assert [answer.status_code for answer in answers] == [200] * VISITORS
    assert {answer.content for answer in answers} == {b"<p>the page</p>"}


def test_an_answer_that_is_not_stored_is_built_by_each_waiter():
    # A 404 (or any answer not marked public) is never stored: the waiters build their own, once
    # the builder is done, rather than waiting BUILD_WAIT_SECONDS for a page that never comes.
    view = SlowPage(0.2, status=404)
    started = time.monotonic()
    answers = visitors_at_once(view)
    assert view.builds == VISITORS
    assert [answer.status_code for answer in answers] == [404] * VISITORS
    assert time.monotonic() - started < caching.BUILD_WAIT_SECONDS


def test_a_builder_slower_than_the_wait_does_not_hold_the_waiters(monkeypatch):
    monkeypatch.setattr(caching, "BUILD_WAIT_SECONDS", 0.3)
    view = SlowPage(1.0)
    answers = visitors_at_once(view)
    assert view.builds == VISITORS  # each waiter gave up after 0.3 s and built the page
    assert {answer.content for answer in answers} == {b"<p>the page</p>"}


def test_the_mark_of_a_build_is_gone_after_it():
    view = SlowPage(0.0)
    visitors_at_once(view)
    request = RequestFactory().get("/rounds/")
    assert caching._start_building(caching.page_key(request))  # nobody is building it now
