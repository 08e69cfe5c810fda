"""A crawl of the whole public site, as an anonymous visitor, with the bundled sample of every
suite imported and published: every internal link answers 2xx or 3xx (never 4xx or 5xx), and
no citable id resolves to two results."""

from __future__ import annotations

import io
import re
from collections import deque
from html import unescape
from urllib.parse import urldefrag, urljoin, urlsplit

import pytest
from django.core.management import call_command

from bench.crawl_public import REPO, sample_commands
from results.constants import Suite
from results.models import Result

pytestmark = [pytest.mark.django_db, pytest.mark.slow(minutes=3)]

# Every round of the bundled sample, imported as `make sample` imports it: a suite added to the
# Makefile's sample target is crawled too.
SAMPLE_IMPORTS = sample_commands()
# Links a crawler must not follow: they act (log out) or are another application's (the admin).
NOT_FOLLOWED = ("/admin/", "/accounts/logout/")


# The links of a page: href of <a>, href or src of <link>, <script> and <img>. Two regular
# expressions over the site's own (well-formed) HTML, a tenth of html.parser's time: the crawl parses
# some 3,000 pages.
LINKING_TAG = re.compile(r"""<(a|link|script|img)\b((?:[^>"']|"[^"]*"|'[^']*')*)>""", re.IGNORECASE)
LINK_ATTRIBUTE = re.compile(r"""\s(href|src)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))""", re.IGNORECASE)


def links_of(html: str) -> list[str]:
    found = []
    for tag, attributes in LINKING_TAG.findall(html):
        tag = tag.lower()
        for name, *values in LINK_ATTRIBUTE.findall(attributes):
            value = unescape("".join(values))
            if value and (name.lower() == "href" or tag != "a"):
                found.append(value)
    return found


def internal_links(base: str, html: str) -> list[str]:
    links = []
    for href in dict.fromkeys(links_of(html)):  # each once: a page repeats its menu's links
        href = href.partition("#")[0]
        if href.startswith("/") and not href.startswith("//") and "/." not in href:
            # The site's own links are paths: urljoin() on each of them was an eighth of the crawl.
            path, _, query = href.partition("?")
            links.append(path + (f"?{query}" if query else ""))
            continue
        address = urldefrag(urljoin(base, href)).url
        parts = urlsplit(address)
        if parts.scheme in ("", "http") and parts.netloc in ("", "testserver"):
            links.append(parts.path + (f"?{parts.query}" if parts.query else ""))
    return links


@pytest.fixture
def whole_sample():
    for command, *arguments in SAMPLE_IMPORTS:
        call_command(command, *(str(REPO / a) if a.startswith("sample_data/") else a for a in arguments),
                     stdout=io.StringIO())


def test_every_internal_link_of_the_public_site_answers(client, whole_sample):
    """Every link of every page is fetched. The links of a page reached with a query (a sort, a
    filter, a view, a log page) are fetched too but not followed further: their combinations
    would never end, and each is a view of a page whose own links were all followed."""
    start = ["/", "/sitemap.xml", "/robots.txt", "/changes/", "/changes.atom", "/search/?q=a", "/compare/"]
    seen: set[str] = set(start)
    queue = deque(start)
    broken: dict[str, tuple[int, str]] = {}
    referrer: dict[str, str] = {}
    while queue:
        address = queue.popleft()
        if address.startswith(NOT_FOLLOWED):
            continue
        response = client.get(address)
        if response.status_code >= 400:
            broken[address] = (response.status_code, referrer.get(address, ""))
            continue
        if 300 <= response.status_code < 400:
            location = urlsplit(response["Location"])
            found = [location.path + (f"?{location.query}" if location.query else "")]
        elif response.get("Content-Type", "").startswith("text/html"):
            found = internal_links(address, response.content.decode())
            if urlsplit(address).query and address not in start:
                found = [link for link in found if link.startswith("/static/")]
        elif address == "/sitemap.xml" or address.startswith("/sitemaps/"):  # the index, then its parts
            found = [urlsplit(loc).path for loc in re.findall(r"<loc>([^<]+)</loc>", response.content.decode())]
        else:
            found = []
        for link in found:
            if link not in seen:
                seen.add(link)
                referrer[link] = address
                queue.append(link)
    assert broken == {}, f"{len(broken)} of {len(seen)} addresses answer 4xx/5xx: {broken}"
    # The crawl reached every suite's pages: round, benchmark, result, system, organization, log,
    # change log, snapshots, a version-less permalink, chart downloads and embeds.
    for needed in ("/rounds/training-v1.0/", "/rounds/inference-v4.1/", "/rounds/hpc-v1.0/", "/progress/inference/"):
        assert needed in seen, needed
    for pattern in (r"^/results/[^/]+/$", r"^/systems/", r"^/organizations/", r"^/logs/", r"/charts/[a-z-]+/embed/",
                    r"/charts/[a-z-]+\.csv", r"^/r/", r"/snapshots/"):
        assert any(re.search(pattern, address) for address in seen), pattern
    assert len(seen) > 300


def test_no_citable_id_resolves_to_two_results(client, whole_sample):
    public = Result.objects.visible_to(None).current()
    ids = list(public.values_list("result_id", flat=True))
    assert len(ids) == len(set(ids)), "a citable id is on two current public results"
    suites_of = {}
    for result in public.select_related("submission__round"):
        suites_of[result.result_id] = result.submission.round.slug
    for result_id in suites_of:
        response = client.get(f"/r/{result_id}")
        assert response.status_code == 302 and response["Location"] == f"/results/{result_id}/"
        rows = client.get(f"/api/v1/results/?result_id={result_id}").json()["results"]
        assert len(rows) == 1, (result_id, rows)
    # Each suite's ids are among them: ids are unique across suites and rounds.
    assert {slug.split("-v")[0] for slug in suites_of.values()} == set(Suite.values)
