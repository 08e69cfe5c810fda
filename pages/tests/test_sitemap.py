"""The sitemap at the size of the public record: the sitemaps protocol allows 50,000 addresses in
one file, and the record's results and systems passed that, so /sitemap.xml is an index of parts
(pages, results, systems), each at most SITEMAP_URLS addresses, all starting with SITE_URL."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from django.test import override_settings

from pages.tests.sitemaps import locations, sitemap_pages
from pages.views import home
from results.models import Benchmark, Organization
from results.tests.factories import make_org, make_result, make_round, make_submission, make_system

pytestmark = pytest.mark.django_db


@pytest.fixture
def published():
    round_ = make_round("1.0", state="published")
    submission = make_submission(round_, make_org("Alpha"))
    for index in range(5):
        make_result(make_system(submission, f"box{index}"), "resnet", minutes=10.0 + index)
    return round_


@override_settings(SITE_URL="https://results.example.org/")
def test_the_index_lists_parts_of_at_most_so_many_addresses(client, published, monkeypatch):
    monkeypatch.setattr(home, "SITEMAP_URLS", 2)
    parts = [urlsplit(part).path for part in locations(client)]
    assert all(part.startswith("https://results.example.org/sitemaps/") for part in locations(client))
    assert [p for p in parts if "results" in p] == ["/sitemaps/results-1.xml", "/sitemaps/results-2.xml",
                                                    "/sitemaps/results-3.xml"]  # 5 results, 2 a part
    assert [p for p in parts if "systems" in p] == ["/sitemaps/systems-1.xml", "/sitemaps/systems-2.xml",
                                                    "/sitemaps/systems-3.xml"]
    pages = [urlsplit(page).path for page in sitemap_pages(client)]
    assert len(pages) == len(set(pages))
    assert sorted(p for p in pages if p.startswith("/systems/")) == [f"/systems/alpha/box{i}/" for i in range(5)]
    assert len([p for p in pages if p.startswith("/results/")]) == 5 and "/rounds/training-v1.0/resnet/" in pages
    assert all(len(locations(client, part)) <= 2 for part in parts)


def test_a_part_past_the_last_or_of_no_kind_is_not_found(client, published):
    assert client.get("/sitemaps/results-1.xml").status_code == 200
    for address in ("/sitemaps/results-2.xml", "/sitemaps/logs-1.xml", "/sitemaps/results-0.xml"):
        assert client.get(address).status_code == 404, address


def test_a_change_in_one_round_shows_at_once_and_reads_that_round_alone(client, published, monkeypatch):
    later = make_round("1.1", state="published")
    make_result(make_system(make_submission(later, make_org("Beta")), "rack"), "resnet", minutes=9.0)
    assert "/systems/beta/rack/" in {urlsplit(page).path for page in sitemap_pages(client)}
    built_for = []
    building = home._sitemap_figures
    monkeypatch.setattr(home, "_sitemap_figures", lambda user, rounds: built_for.append(
        [r.slug for r in rounds]) or building(user, rounds))

    make_result(make_system(make_submission(later, make_org("Gamma")), "pod"), "resnet", minutes=8.0)
    pages = {urlsplit(page).path for page in sitemap_pages(client)}
    assert {"/systems/beta/rack/", "/systems/gamma/pod/", "/systems/alpha/box0/"} <= pages
    assert built_for and all(slugs == ["training-v1.1"] for slugs in built_for)


def test_what_a_round_keeps_for_the_sitemap_names_nothing_the_admin_renames(published):
    """The kept figures outlive a rename in the admin, which makes no new version: names are read
    when the sitemap is built."""
    rounds = [published]
    figures = home._sitemap_figures(None, rounds)
    Organization.objects.filter(slug="alpha").update(slug="alpha-inc")
    Benchmark.objects.filter(round=published, name="resnet").update(name="resnet50")
    assert ("alpha-inc", "box0") in home._sitemap_systems(rounds, figures)
    assert "/rounds/training-v1.0/resnet50/" in home._sitemap_pages(rounds, figures)
