"""Malformed requests answer 400 with a reason, never 500: NUL characters in the address or in a
form field, an authenticated upload with no body."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from django.test import Client
from rest_framework.authtoken.models import Token

from results.constants import RoundState
from results.models import Result
from results.tests.factories import make_result, make_round, make_submission, make_system
from review.models import Objection

pytestmark = pytest.mark.django_db

NUL_URLS = [
    "/rounds/training-v1.0%00/",
    "/results/1.0-0001%00/",
    "/systems/alpha%00/box/",
    "/search/?q=a%00b",
    "/compare/?results=1.0-0001%00",
    "/rounds/training-v1.0/?division=closed%00",
    "/api/v1/results/?round=training-v1.0%00",
    "/api/v1/results/1.0-0001%00/",
    "/api/v1/systems/?organization=%00",
    "/api/v1/runs/?result=%00",
    "/submit/?round=%00",
    "/rounds/?x%00=1",
]


@pytest.mark.parametrize("url", NUL_URLS)
@pytest.mark.parametrize("who", ["anonymous", "owner"])
def test_a_nul_character_in_the_address_is_a_400_with_the_reason(personas, url, who):
    client = Client()
    if who != "anonymous":
        client.force_login(personas[who])
    response = client.get(url)
    assert response.status_code == 400, (url, response.status_code)
    assert b"NUL character (%00)" in response.content


def test_an_authenticated_upload_with_no_body_is_a_400_with_the_reason(personas):
    token, _ = Token.objects.get_or_create(user=personas["owner"])
    client = Client()
    for content_type in (None, "application/json", "multipart/form-data; boundary=x"):
        extra = {"content_type": content_type} if content_type else {}
        response = client.generic("POST", "/api/v1/submissions/", b"", HTTP_AUTHORIZATION=f"Token {token.key}", **extra)
        assert response.status_code == 400, (content_type, response.status_code, response.content[:300])
        assert response.json()  # says what is missing


@pytest.fixture
def result_in_review(personas) -> Result:
    round_ = make_round("1.0", state=RoundState.REVIEW, benchmarks=("resnet",))
    submission = make_submission(round_, personas["alpha"], published=False, is_current=True)
    return make_result(make_system(submission, "alpha-sys"), "resnet", minutes=30.0)


def post_form(who, url: str, fields: dict, encoding: str):
    """POST the form as a browser (urlencoded) or `curl -F` (multipart) sends it."""
    client = Client(raise_request_exception=False)
    if who is not None:
        client.force_login(who)
    if encoding == "urlencoded":
        return client.post(url, urlencode(fields), content_type="application/x-www-form-urlencoded")
    return client.post(url, fields)


@pytest.mark.parametrize("encoding", ["urlencoded", "multipart"])
def test_a_nul_character_in_a_form_field_is_a_400_naming_the_field(personas, result_in_review, encoding):
    # Issue 36, item 7: each of these answered 500 (PostgreSQL refuses NUL in text).
    review = f"/review/results/{result_in_review.result_id}"
    forms = [
        (personas["reviewer"], f"{review}/objections/", {"rule": "seed\x00rule", "evidence": "e"}, "rule"),
        (personas["reviewer"], f"{review}/objections/", {"rule": "r", "evidence": "log\x00line"}, "evidence"),
        (personas["owner"], f"{review}/withdraw/", {"reason": "hardware\x00recalled"}, "reason"),
        (None, "/search/", {"q": "a\x00b"}, "q"),
        (None, "/accounts/login/", {"username": "owner\x00", "password": "password"}, "username"),
        (personas["owner"], "/api/v1/review/objections/", {"result": result_in_review.result_id, "rule": "a\x00"},
         "rule"),
    ]
    for who, url, fields, field in forms:
        response = post_form(who, url, fields, encoding)
        assert response.status_code == 400, (url, field, response.status_code)
        assert f"the form field '{field}' contains a NUL character (%00)".encode() in response.content, url
    assert not Objection.objects.exists()
    assert Result.objects.get(pk=result_in_review.pk).status != "withdrawn"


def test_the_same_forms_without_the_nul_character_still_work(personas, result_in_review):
    review = f"/review/results/{result_in_review.result_id}"
    assert post_form(personas["reviewer"], f"{review}/objections/", {"rule": "r", "evidence": "e"},
                     "urlencoded").status_code == 302
    assert post_form(personas["owner"], f"{review}/withdraw/", {"reason": "recalled"}, "multipart").status_code == 302
    assert Objection.objects.count() == 1
    assert Result.objects.get(pk=result_in_review.pk).status == "withdrawn"
