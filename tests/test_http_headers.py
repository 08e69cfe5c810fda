"""Response headers that keep one user's answer out of another's hands (issue 14): private caching
for anything built for a user or a token, API answers varying on Authorization, a sitemap whose
URLs come from SITE_URL, and the Content-Security-Policy; text answers compressed (issue 38)."""

from __future__ import annotations

import gzip

import pytest
from rest_framework.authtoken.models import Token

pytestmark = pytest.mark.django_db


def test_pages_for_a_logged_in_user_are_private(client, personas):
    client.force_login(personas["owner"])
    for url in ("/", "/submit/", "/search/?q=x"):
        response = client.get(url)
        assert "private" in response["Cache-Control"], url


def test_api_answers_for_a_token_are_private_and_vary_on_authorization(client, personas):
    token = Token.objects.create(user=personas["owner"])
    response = client.get("/api/v1/uploads/", HTTP_AUTHORIZATION=f"Token {token.key}")
    assert response.status_code == 200
    assert "private" in response["Cache-Control"]
    assert "Authorization" in response["Vary"]
    anonymous = client.get("/api/v1/results/")
    assert "Authorization" in anonymous["Vary"]


def test_anonymous_public_pages_are_not_marked_private(client):
    assert "private" not in client.get("/").get("Cache-Control", "")


def test_the_sitemap_takes_its_urls_from_site_url_not_the_host_header(client, settings):
    # The attack: ask with Host: evil.example and poison the cached sitemap for everybody.
    settings.ALLOWED_HOSTS = ["*"]
    settings.SITE_URL = "https://results.example.org"
    index = client.get("/sitemap.xml", HTTP_HOST="evil.example").content.decode()
    part = client.get("/sitemaps/pages-1.xml", HTTP_HOST="evil.example").content.decode()
    assert "evil.example" not in index + part
    assert "<loc>https://results.example.org/sitemaps/pages-1.xml</loc>" in index
    assert "<loc>https://results.example.org/</loc>" in part


def test_pages_carry_a_content_security_policy_without_unsafe_eval(client):
    policy = client.get("/")["Content-Security-Policy"]
    assert "script-src 'self'" in policy and "unsafe-eval" not in policy
    assert "frame-ancestors 'none'" in policy and "object-src 'none'" in policy
    script_part = policy.split("script-src", 1)[1].split(";", 1)[0]
    assert "unsafe-inline" not in script_part


def test_the_api_docs_page_has_no_inline_script(client):
    html = client.get("/api/docs/").content.decode()
    assert "<script>" not in html.replace(" ", "")


def test_a_signed_in_users_page_comes_compressed_to_a_client_that_accepts_gzip(client, personas):
    # Never from the page cache (it depends on the user): compressed on its way out, each time.
    client.force_login(personas["reviewer"])
    plain = client.get("/submit/")
    packed = client.get("/submit/", HTTP_ACCEPT_ENCODING="gzip, deflate, br")
    assert "Content-Encoding" not in plain and packed["Content-Encoding"] == "gzip"
    html = gzip.decompress(packed.content).decode()
    assert "</html>" in html and len(packed.content) < len(plain.content) / 2
    assert "Accept-Encoding" in packed["Vary"] and "private" in packed["Cache-Control"]
    # Its ETag names the uncompressed page, so it is made weak (RFC 9110).
    assert packed["ETag"].startswith('W/"')
