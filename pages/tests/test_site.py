"""The small things around the pages: API root, schema security, favicon, robots.txt, the Submit
link, logging in back to the page one came from, and /submit/ explaining each round's state.
Each with every persona where who is asking matters."""

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from results.constants import RoundState
from results.tests.factories import make_round
from review.models import ResubmissionWindow

pytestmark = pytest.mark.django_db

PERSONAS = ["owner", "teammate", "outsider", "reviewer", "chair", "anonymous"]


def client_for(personas, name) -> Client:
    client = Client()
    if personas[name] is not None:
        client.force_login(personas[name])
    return client


@pytest.mark.parametrize("persona", PERSONAS)
def test_the_api_root_lists_the_endpoints_to_everybody(personas, persona):
    response = client_for(personas, persona).get("/api/v1/", HTTP_ACCEPT="application/json")
    assert response.status_code == 200
    body = response.json()
    assert body["results"].endswith("/api/v1/results/") and body["rounds"].endswith("/api/v1/rounds/")
    assert body["docs"].endswith("/api/docs/") and body["schema"].endswith("/api/schema/")


def test_the_schema_puts_padlocks_only_where_authentication_is_needed(client):
    schema = client.get("/api/schema/?format=json").json()
    paths = schema["paths"]
    assert paths["/api/v1/results/"]["get"]["security"] == []
    assert "No authentication needed" in paths["/api/v1/results/"]["get"]["description"]
    assert {"tokenAuth": []} in paths["/api/v1/submissions/"]["post"]["security"]
    assert {} not in paths["/api/v1/uploads/"]["get"]["security"]


def test_favicon_and_robots_answer(client):
    favicon = client.get("/favicon.ico")
    assert favicon.status_code == 301 and favicon["Location"].endswith("favicon.ico")
    robots = client.get("/robots.txt")
    assert robots.status_code == 200 and robots["Content-Type"].startswith("text/plain")
    text = robots.content.decode()
    assert "Disallow: /submit/" in text and "Sitemap: http://testserver/sitemap.xml" in text


@pytest.mark.parametrize("persona, sees_submit", [("owner", True), ("teammate", True), ("outsider", True),
                                                  ("reviewer", False), ("chair", False), ("anonymous", False)])
def test_members_of_a_submitting_organization_get_a_submit_link(personas, persona, sees_submit):
    html = client_for(personas, persona).get("/").content.decode()
    assert ('href="/submit/">Submit<' in html) is sees_submit


def test_logging_in_from_the_header_returns_to_the_page(client, personas):
    make_round("1.0")
    html = client.get("/rounds/training-v1.0/?division=closed").content.decode()
    assert 'href="/accounts/login/?next=/rounds/training-v1.0/%3Fdivision%3Dclosed"' in html
    response = client.post("/accounts/login/?next=/rounds/training-v1.0/%3Fdivision%3Dclosed",
                           {"username": "owner", "password": "password",
                            "next": "/rounds/training-v1.0/?division=closed"})
    assert response.status_code == 302 and response["Location"] == "/rounds/training-v1.0/?division=closed"


def test_submit_explains_the_state_of_every_round(personas):
    now = timezone.now()
    make_round("3.0", state=RoundState.OPEN, benchmarks=()).__class__.objects.filter(version="3.0").update(
        submission_deadline=now + timedelta(days=3))
    review = make_round("2.0", state=RoundState.REVIEW, benchmarks=())
    make_round("1.0", benchmarks=())
    ResubmissionWindow.objects.create(round=review, organization=personas["alpha"], closes_at=now + timedelta(days=1))
    owner = client_for(personas, "owner").get("/submit/").content.decode()
    assert "Open for submissions until" in owner
    assert "Open for your resubmission until" in owner and "(in review)" in owner
    assert "Resubmission window for Alpha Systems until" in owner
    assert "Published" in owner
    outsider = client_for(personas, "outsider").get("/submit/").content.decode()
    assert "Resubmission window" not in outsider  # Beta was granted none
