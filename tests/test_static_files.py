"""Static files go out compressed, under hashed names, with far-future cache headers, in every mode:
`make run` (DEBUG on, runserver) as well as gunicorn (DEBUG off), from one collectstatic run."""

import gzip
import re

import pytest
from django.conf import settings as django_settings
from django.core.management import call_command
from django.template import Context, Template
from django.test import Client, override_settings

from config.storage import HashedStaticFilesStorage

PLOTLY = django_settings.BASE_DIR / "static" / "vendor" / "plotly-basic.min.js"
REAL_STORAGES = {**django_settings.STORAGES, "staticfiles": {"BACKEND": "config.storage.HashedStaticFilesStorage"}}


@pytest.fixture(scope="module")
def collected(tmp_path_factory):
    """STATIC_ROOT after `collectstatic` with the real storage (the test settings keep plain names)."""
    root = tmp_path_factory.mktemp("staticfiles")
    with override_settings(STATIC_ROOT=root, STORAGES=REAL_STORAGES):
        call_command("collectstatic", "--noinput", "-v0")
    return root


@pytest.fixture(params=[True, False], ids=["DEBUG on (make run)", "DEBUG off (gunicorn)"])
def real_static_settings(request, settings, collected):
    settings.DEBUG = request.param
    settings.STATIC_ROOT = collected
    settings.STORAGES = REAL_STORAGES
    # WhiteNoise's own defaults for the mode, as config.settings leaves them (the test settings
    # turn the finders on to serve uncollected files).
    del settings.WHITENOISE_USE_FINDERS
    return settings


def static_url(name: str) -> str:
    return Template("{% load static %}{% static name %}").render(Context({"name": name}))


def test_templates_link_hashed_names_and_those_go_out_gzipped_with_far_future_cache_headers(real_static_settings):
    url = static_url("vendor/plotly-basic.min.js")
    assert re.fullmatch(r"/static/vendor/plotly-basic\.min\.[0-9a-f]{12}\.js", url), url

    response = Client().get(url, HTTP_ACCEPT_ENCODING="gzip, deflate, br")

    assert response.status_code == 200
    assert response["Content-Encoding"] == "gzip"
    assert response["Content-Type"].startswith("text/javascript")
    cache_control = response["Cache-Control"]
    assert "immutable" in cache_control and "public" in cache_control
    assert int(re.search(r"max-age=(\d+)", cache_control).group(1)) >= 365 * 24 * 3600
    assert "Accept-Encoding" in response["Vary"]
    body = b"".join(response.streaming_content)
    assert len(body) < PLOTLY.stat().st_size / 3  # ~1.2 MB -> ~0.4 MB
    assert gzip.decompress(body) == PLOTLY.read_bytes()


def test_a_client_that_does_not_accept_gzip_gets_the_plain_file(real_static_settings):
    response = Client().get(static_url("vendor/plotly-basic.min.js"))

    assert response.status_code == 200
    assert "Content-Encoding" not in response
    assert b"".join(response.streaming_content) == PLOTLY.read_bytes()


def test_a_plain_name_is_not_marked_immutable(real_static_settings):
    response = Client().get("/static/vendor/plotly-basic.min.js", HTTP_ACCEPT_ENCODING="gzip")

    assert response.status_code == 200
    assert "immutable" not in response.get("Cache-Control", "")


def test_a_server_never_collected_links_plain_names_instead_of_failing(settings, tmp_path):
    settings.STATIC_ROOT = tmp_path  # empty: no manifest, no files
    storage = HashedStaticFilesStorage(location=tmp_path)

    assert storage.url("vendor/plotly-basic.min.js") == "/static/vendor/plotly-basic.min.js"
