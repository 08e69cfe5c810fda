"""The public change log of the whole site and of each round, and its Atom feed (pages/changelog.py)."""

from __future__ import annotations

from django.conf import settings
from django.http import HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.feedgenerator import Atom1Feed

from pages.caching import cache_public_page
from pages.changelog import public_changes
from results.lookups import round_or_404

FEED_LENGTH = 100


@cache_public_page
def site_changes(request):
    return render(request, "results/changes.html", {"changes": public_changes(), "round": None})


@cache_public_page
def round_changes(request, slug: str):
    round_ = round_or_404(None, slug)  # the public log: published rounds only, whoever asks
    return render(request, "results/changes.html", {"changes": public_changes(round_), "round": round_})


@cache_public_page
def changes_feed(request):
    """Atom: publications and every later change, newest first. Links start with SITE_URL (the
    answer is cached and served to everyone)."""
    base = settings.SITE_URL.rstrip("/")
    feed = Atom1Feed(
        title="MLPerf Results: publications and changes",
        link=base + reverse("pages:changes"),
        description="Every publication of a round and every change to published results, with the reason.",
        feed_url=base + reverse("pages:changes-feed"),
    )
    for change in public_changes(limit=FEED_LENGTH):
        link = base + (reverse("pages:permalink", args=[change.result_id]) if change.result_id
                       else reverse("pages:round", args=[change.round.slug]))
        what = " ".join(part for part in (change.label, change.result_id or change.round.slug) if part)
        feed.add_item(
            title=f"{change.round.get_suite_display()} v{change.round.version}: {what}",
            link=link,
            unique_id=f"{base}/changes/#change-{change.pk}",
            description=f"{change.subject}. Before: {change.before or '—'}. After: {change.after or '—'}. "
                        f"Reason: {change.reason or '—'}",
            pubdate=change.date,
            updateddate=change.date,
        )
    response = HttpResponse(content_type="application/atom+xml; charset=utf-8")
    feed.write(response, "utf-8")
    return response
