"""A result's page and its charts: each suite draws its own (pages/suites/). The current version
of a result lives at /results/<id>/, an earlier one at /results/<id>/v<N>/."""

from __future__ import annotations

from django.http import Http404
from django.shortcuts import redirect

from pages import suites
from pages.caching import cache_public_page
from results.lookups import result_or_404
from results.models import Result


def _shown(user, result_id: str, version: int | None) -> Result:
    """The result's version at the address: the current one, or version `version` (404 where the
    user may not see it)."""
    if version is None:
        return result_or_404(user, result_id)
    result = Result.objects.visible_to(user).citable(result_id).filter(submission__version=version).with_related().first()
    if result is None:
        raise Http404("no such version of this result")
    return result


def permalink(request, result_id: str, version: int | None = None):
    """`/r/<id>` (and `/r/<id>/v<N>`): the citable link, to the result's page wherever it lives
    (404 where the user may not see it, so a hidden result's existence is not told)."""
    result = _shown(request.user, result_id, version)
    if version is None:
        return redirect("pages:result", result_id=result.result_id)
    return redirect("pages:result-version", result_id=result.result_id, version=version)


@cache_public_page
def result_detail(request, result_id: str, version: int | None = None):
    result = _shown(request.user, result_id, version)
    if version is not None and result.submission.is_current:
        return redirect("pages:result", result_id=result.result_id)
    return suites.of_round(result.submission.round).result_page(request, result)


@cache_public_page
def result_chart(request, result_id: str, chart: str, fmt: str, version: int | None = None):
    result = _shown(request.user, result_id, None if version is None else int(version))
    return suites.of_round(result.submission.round).result_chart(request, result, chart, fmt)
