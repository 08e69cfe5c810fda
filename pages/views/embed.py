"""Embeddable charts: `<page>/charts/<chart>/embed/` is the chart alone, for an <iframe> on
another site, with a link back to its page and the citation and licence line.

An embed answers as it would to an anonymous visitor whoever asks (a logged-in reviewer's
cookies must not put unpublished data into somebody else's page), sets no cookie, is cached
like any public page, and is the one kind of page other sites may frame."""

from __future__ import annotations

import functools

from csp.decorators import csp_replace
from django.contrib.auth.models import AnonymousUser
from django.utils.cache import patch_cache_control
from django.views.decorators.clickjacking import xframe_options_exempt

from pages.licence import LICENCE

# Browsers and proxies may keep an embedded chart this long: it is framed on pages we do not
# control, and our own cache already keeps it at most PAGE_CACHE_SECONDS behind the data.
EMBED_MAX_AGE_SECONDS = 300


def embeddable(chart_view):
    """A chart view (`..., chart, fmt`) answering its `embed/` address."""

    @xframe_options_exempt
    @csp_replace({"frame-ancestors": ["*"]})
    @functools.wraps(chart_view)
    def view(request, **kwargs):
        request.user = AnonymousUser()
        response = chart_view(request, fmt="embed", **kwargs)
        suffix = f"charts/{kwargs['chart']}/embed/"
        page = request.path.removesuffix(suffix)
        query = request.GET.urlencode()
        response.context_data.update({
            "licence": LICENCE,
            "page_url": request.build_absolute_uri(page + (f"?{query}" if query else "")),
            "csv_url": f"{page}{suffix.removesuffix('/embed/')}.csv" + (f"?{query}" if query else ""),
        })
        patch_cache_control(response, public=True, max_age=EMBED_MAX_AGE_SECONDS)
        response.public_page = True
        return response

    return view
