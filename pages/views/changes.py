"""The public change log of the whole site and of each round, and their Atom feeds (RFC 4287) from
pages/changelog.py."""

from __future__ import annotations

from django.conf import settings
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.utils.cache import patch_vary_headers

from pages.caching import cache_public_page
from pages.changelog import Change, public_changes
from results.lookups import round_or_404

FEED_LENGTH = 100
ATOM = "application/atom+xml; charset=utf-8"
# A browser shows application/atom+xml as plain text; as application/xml it applies the feed's
# stylesheet (static/css/atom.css) and shows the XHTML in it as a page with working links.
XML_FOR_BROWSERS = "application/xml; charset=utf-8"


@cache_public_page
def site_changes(request):
    return render(request, "results/changes.html", {"changes": public_changes(), "round": None})


@cache_public_page
def round_changes(request, slug: str):
    round_ = round_or_404(None, slug)  # the public log: published rounds only, whoever asks
    return render(request, "results/changes.html", {"changes": public_changes(round_), "round": round_})


@cache_public_page
def changes_feed(request):
    """Every round's publication and every later change, newest first."""
    return _feed(request, public_changes(limit=FEED_LENGTH), title=f"{settings.SITE_NAME}: publications and changes",
                 page=reverse("pages:changes"), feed=reverse("pages:changes-feed"))


@cache_public_page
def round_changes_feed(request, slug: str):
    """One round's publication and every change to it after."""
    round_ = round_or_404(None, slug)
    return _feed(request, public_changes(round_, limit=FEED_LENGTH),
                 title=f"{settings.SITE_NAME}: {round_.get_suite_display()} v{round_.version} changes",
                 page=reverse("pages:round-changes", args=[slug]),
                 feed=reverse("pages:round-changes-feed", args=[slug]))


def site_address(request) -> str:
    """Where the absolute links of a feed start: SITE_URL where the operator set it (the address
    people cite), else the scheme and host the request came to (request.build_absolute_uri, which
    honours SECURE_PROXY_SSL_HEADER), so `make run` links to itself on any host and port. The
    front cache keys such answers on the host (pages.caching.page_key)."""
    if settings.SITE_URL_SET:
        return settings.SITE_URL.rstrip("/")
    return request.build_absolute_uri("/").rstrip("/")


def _feed(request, changes: list[Change], *, title: str, page: str, feed: str):
    base = site_address(request)
    entries = []
    for change in changes:
        link = reverse("pages:permalink", args=[change.result_id]) if change.result_id else reverse(
            "pages:round", args=[change.round.slug])
        entries.append({
            "change": change,
            "title": " ".join(part for part in (f"{change.round.get_suite_display()} v{change.round.version}:",
                                                change.label, change.result_id or change.round.slug) if part),
            "link": base + link,
            # A stable URL for every feed that lists the change: its row in the site's change log.
            "id": f"{base}{reverse('pages:changes')}#change-{change.public_id}",
            "log": f"{base}{reverse('pages:round-changes', args=[change.round.slug])}#change-{change.public_id}",
        })
    context = {
        "title": title, "site_name": settings.SITE_NAME, "base": base, "page_url": base + page,
        "feed_url": base + feed, "entries": entries, "updated": changes[0].date if changes else timezone.now(),
    }
    browser = "text/html" in request.META.get("HTTP_ACCEPT", "")
    response = render(request, "results/changes.atom", context, content_type=XML_FOR_BROWSERS if browser else ATOM)
    patch_vary_headers(response, ["Accept"])
    return response
