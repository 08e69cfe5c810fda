"""Results of record: an earlier version of a result at its own address, and embeddable charts."""

from __future__ import annotations

import pytest

from results.services.rounds import publish_round
from results.services.versions import publish_version
from results.tests.factories import make_org, make_result, make_round, make_submission, make_system

pytestmark = pytest.mark.django_db


@pytest.fixture
def versions(personas):
    """Result 4.1-0001 published in version 1, corrected by a published version 2; a version 3
    is written but not published."""
    round_ = make_round("4.1", state="review")
    alpha = personas["alpha"]
    first = make_submission(round_, alpha, version=1)
    make_result(make_system(first, "box"), "resnet", minutes=30.0, result_id="4.1-0001")
    publish_round(round_, actor=personas["chair"], reason="press release")
    second = make_submission(round_, alpha, version=2, is_current=False)
    make_result(make_system(second, "box"), "resnet", minutes=27.0, result_id="4.1-0001")
    publish_version(second, actor=personas["chair"], reason="wrong system description fixed")
    third = make_submission(round_, alpha, version=3, is_current=False, published=False)
    make_result(make_system(third, "box"), "resnet", minutes=20.0, result_id="4.1-0001")
    return round_


def test_an_earlier_version_has_its_own_address_marked_superseded(client, versions):
    html = client.get("/results/4.1-0001/v1/").content.decode()
    assert 'id="old-version"' in html and "This is version 1 of result 4.1-0001" in html
    assert "Superseded" in html and 'href="/results/4.1-0001/">version 2</a>' in html
    assert "30.00" in html and "27.00" not in html
    assert 'href="/r/4.1-0001/v1"' in html  # its permalink names the version
    assert 'href="/results/4.1-0001/v1/charts/convergence.csv"' in html
    assert client.get("/results/4.1-0001/v1/charts/convergence.csv").status_code == 200


def test_the_current_version_lists_every_public_version(client, versions):
    html = client.get("/results/4.1-0001/").content.decode()
    assert 'id="old-version"' not in html
    assert '<a href="/results/4.1-0001/v1/">v1</a>' in html and "<strong>v2 (current)</strong>" in html
    assert "v3" not in html  # never published


def test_version_addresses_redirect_and_hide_what_is_not_public(client, versions):
    assert client.get("/r/4.1-0001/v1")["Location"] == "/results/4.1-0001/v1/"
    assert client.get("/results/4.1-0001/v2/")["Location"] == "/results/4.1-0001/"  # the current one
    assert client.get("/results/4.1-0001/v3/").status_code == 404
    assert client.get("/r/4.1-0001/v3").status_code == 404
    assert client.get("/results/4.1-0001/v9/").status_code == 404


def test_a_chart_embed_is_a_framable_cached_page_with_its_source(client, versions):
    response = client.get("/rounds/training-v4.1/resnet/charts/time-to-train/embed/?division=closed")
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="figure-time-to-train"' in html and "Cite as:" in html and "Apache License 2.0" in html
    assert 'href="http://testserver/rounds/training-v4.1/resnet/?division=closed"' in html
    assert 'href="/rounds/training-v4.1/resnet/charts/time-to-train.csv?division=closed"' in html
    assert "frame-ancestors *" in response["Content-Security-Policy"]
    assert "X-Frame-Options" not in response
    assert "public" in response["Cache-Control"] and not response.cookies
    # Every other page still refuses to be framed.
    page = client.get("/rounds/training-v4.1/resnet/")
    assert page["X-Frame-Options"] == "DENY" and "frame-ancestors 'none'" in page["Content-Security-Policy"]
    assert 'href="/rounds/training-v4.1/resnet/charts/time-to-train/embed/"' in page.content.decode()
    assert client.get("/results/4.1-0001/charts/convergence/embed/").status_code == 200
    assert client.get("/progress/training/charts/best-time/embed/").status_code == 200
    assert client.get("/rounds/training-v4.1/resnet/charts/nothing/embed/").status_code == 404


def test_an_embed_shows_what_an_anonymous_visitor_sees_whoever_asks(client, personas):
    round_ = make_round("5.0", state="review")
    submission = make_submission(round_, make_org("Delta"), published=False)
    make_result(make_system(submission, "box"), "resnet", result_id="5.0-0001")
    client.force_login(personas["chair"])
    assert client.get("/rounds/training-v5.0/resnet/").status_code == 200
    assert client.get("/rounds/training-v5.0/resnet/charts/time-to-train/embed/").status_code == 404
