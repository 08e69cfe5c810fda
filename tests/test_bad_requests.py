"""Malformed requests answer 400 with a reason, never 500: NUL characters in the address, an
authenticated upload with no body."""

from __future__ import annotations

import pytest
from django.test import Client
from rest_framework.authtoken.models import Token

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
