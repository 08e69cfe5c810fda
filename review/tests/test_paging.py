"""The review queue and the preview systems, page by page: every row once, in order, with its own
counts; the page and the filters in the URL; a bounded number of queries whatever the round's size."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from results.constants import Severity
from results.models import Result
from results.tests.factories import make_finding, make_result, make_submission, make_system
from review import views
from review.tests.test_preview import dated_round

pytestmark = pytest.mark.django_db


def client_as(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def queue_rows(page: str) -> list[str]:
    return re.findall(r'<td><a href="/review/results/[^"]+/">([^<]+)</a></td>', page)


def add_results(world, count: int, start: int = 0) -> list:
    added = []
    for n in range(start, start + count):
        owner = world["alpha_result" if n % 2 else "beta_result"]
        system = make_system(owner.submission, f"extra-{n:02d}")
        added.append(make_result(system, "resnet", result_id=f"1.0-9{n:03d}"))
    return added


def test_the_queue_shows_every_result_once_in_order_page_by_page(world, monkeypatch):
    monkeypatch.setattr(views, "QUEUE_PAGE_SIZE", 2)
    add_results(world, 3)
    last = add_results(world, 1, start=3)[0]
    make_finding(last, severity=Severity.ERROR, code="RCP_FAILED", checker="rcp")
    client = client_as(world["reviewer"])

    seen = []
    for number in (1, 2, 3):
        response = client.get("/review/", {"page": number})
        assert response.status_code == 200
        page = response.content.decode()
        seen.append(queue_rows(page))
        assert f"page {number} of 3" in page
    assert [len(rows) for rows in seen] == [2, 2, 2]
    listed = [rid for rows in seen for rid in rows]
    expected = sorted(
        ((r.submission.organization.name, r.system.name, r.result_id, r.pk) for r in
         [world["alpha_result"], world["beta_result"], *Result.objects.filter(result_id__startswith="1.0-9")]),
    )
    assert listed == [rid for _, _, rid, _ in expected]  # every result once, by organization and system

    # Each row's counts are its own: the error is on the row of `last`, wherever its page is.
    page = client.get("/review/", {"page": [n for n, rows in enumerate(seen, 1) if last.result_id in rows][0]})
    row = re.search(rf"{re.escape(last.result_id)}</a></td>.*?</tr>", page.content.decode(), re.S).group(0)
    assert '<td class="num errors">1' in row

    # A page past the last shows the last; a malformed one is refused.
    assert queue_rows(client.get("/review/", {"page": 9}).content.decode()) == seen[-1]
    refused = client.get("/review/", {"page": "two"})
    assert refused.status_code == 400 and b"'page' must be a whole number" in refused.content


def test_the_queue_pager_keeps_the_filters(world, monkeypatch):
    monkeypatch.setattr(views, "QUEUE_PAGE_SIZE", 1)
    add_results(world, 4)
    page = client_as(world["chair"]).get("/review/", {"submitter": "alpha", "severity": "warning"}).content.decode()
    # Only the fixture's alpha result has a (warning) finding: one row, one page.
    assert queue_rows(page) == [world["alpha_result"].result_id] and 'rel="next"' not in page
    page = client_as(world["chair"]).get("/review/", {"submitter": "alpha"}).content.decode()
    next_link = re.search(r'<a href="([^"]+)" rel="next">', page).group(1).replace("&amp;", "&")
    assert next_link == "?submitter=alpha&page=2#queue"


def test_the_queue_reads_a_bounded_number_of_queries(world, monkeypatch):
    monkeypatch.setattr(views, "QUEUE_PAGE_SIZE", 3)
    client = client_as(world["reviewer"])
    add_results(world, 3)
    client.get("/review/")
    with CaptureQueriesContext(connection) as small:
        client.get("/review/", {"page": 2})
    for result in add_results(world, 8, start=3):
        make_finding(result)
    client.get("/review/")  # the round's id range, read again once its submissions changed
    with CaptureQueriesContext(connection) as large:
        client.get("/review/", {"page": 2})
    assert len(large) == len(small)


def test_the_preview_systems_page_by_page_and_by_state(monkeypatch, personas):
    monkeypatch.setattr(views, "PREVIEW_PAGE_SIZE", 2)
    old, new = dated_round("0.7", 400), dated_round("1.0", 30)
    beta = make_submission(old, personas["beta"])
    for n in range(3):  # overdue: nothing available follows them
        make_system(beta, f"b-preview-{n}", availability="preview", accelerator_model_name="Beta TPU")
    make_system(make_submission(old, personas["alpha"]), "a-preview", availability="preview")
    make_system(make_submission(new, personas["alpha"]), "a-available", availability="available")

    client = Client()
    page = client.get("/review/preview-systems/").content.decode()
    assert "All (4)" in page and "Overdue (3)" in page and "Met (1)" in page and "page 1 of 2" in page
    assert page.count('<tr class="preview-') == 2
    page = client.get("/review/preview-systems/", {"state": "overdue", "page": 2}).content.decode()
    assert page.count('<tr class="preview-overdue"') == 1 and "page 2 of 2" in page
    page = client.get("/review/preview-systems/", {"state": "met"}).content.decode()
    assert page.count('<tr class="preview-met"') == 1 and "A-PREVIEW" in page and "pager" not in page
    for bad in ({"state": "late"}, {"page": "-1"}):
        assert client.get("/review/preview-systems/", bad).status_code == 400
