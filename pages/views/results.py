"""A result's page and its charts: each suite draws its own (pages/suites/). The current version
of a result lives at /results/<id>/, an earlier one at /results/<id>/v<N>/; /r/<id> is the link
people cite and paste. A result that was public and is gone answers 410 Gone with its tombstone."""

from __future__ import annotations

from django.http import Http404
from django.shortcuts import redirect, render

from pages import suites
from pages.caching import cache_public_page
from results.lookups import (
    Tombstone,
    entry_results,
    entry_tombstones,
    find_result_id,
    gone_version,
    tombstone,
)
from results.models import Result


def _visible(user, result_id: str, version: int | None):
    """The result's versions `user` may see at the address: the current one first, or version
    `version`."""
    found = Result.objects.visible_to(user).citable(result_id)
    if version is not None:
        found = found.filter(submission__version=version)
    return found.with_related()


def _shown(user, result_id: str, version: int | None) -> Result:
    """The result's version at the address: the current one, or version `version`; an earlier
    published version of a gone result is history anyone may read (404 where the user may not
    see it)."""
    return _visible(user, result_id, version).first() or _gone_or_404(result_id, version)


def _gone_or_404(result_id: str, version: int | None) -> Result:
    """Where no version `version` of the result is visible: that earlier published version of a gone
    result, else 404."""
    result = gone_version(result_id, version) if version is not None else None
    if result is None:
        raise Http404("no such result" if version is None else "no such version of this result")
    return result


def tombstone_page(request, gone: Tombstone):
    """410 Gone: the result's id, what happened and when, the published reason and its last
    published figures, for whoever follows a citation of it."""
    response = render(request, "results/tombstone.html", {
        "gone": gone, "result": gone.result, "round": gone.result.submission.round,
    }, status=410)
    # A 410 is cacheable by default, and a chair may reinstate the result: ask again each time.
    response["Cache-Control"] = "no-cache"
    return response


def permalink(request, result_id: str, version: int | None = None):
    """`/r/<id>` (and `/r/<id>/v<N>`): the citable link, to the result's page wherever it lives. It
    takes the ids people paste: a result id in another spelling (`v4.1-0001`, other case) and an
    MLCommons entry (`4.1-0001`: that entry's results). A result that was public and is gone
    answers its tombstone; one the user may not see 404 (its existence is not told)."""
    found = find_result_id(request.user, result_id)
    if found is not None and version is None:
        return redirect("pages:result", result_id=found)
    if found is not None:
        _shown(request.user, found, version)  # 404 where there is no such version
        return redirect("pages:result-version", result_id=found, version=version)
    gone = tombstone(result_id)
    if gone is not None:
        if version is not None and version in gone.earlier:
            return redirect("pages:result-version", result_id=gone.result.result_id, version=version)
        return tombstone_page(request, gone)
    if version is None:
        results = entry_results(request.user, result_id)
        if results is not None:
            return _entry(request, result_id, results)
    raise Http404("no such result")


def _entry(request, text: str, results: list[Result]):
    """An MLCommons entry: one system's results in a round. An official entry of one result opens
    it; otherwise a page lists them (a local entry always: its number is ours, not MLCommons', and
    the page says so)."""
    gone = entry_tombstones(text)
    if not results and not gone:
        raise Http404("no such entry")
    if len(results) == 1 and not gone and not results[0].citable.local:
        return redirect("pages:result", result_id=results[0].result_id)
    systems: dict[tuple, dict] = {}
    for result in results:
        key = (result.submission.round_id, result.submission.organization_id, result.system_id)
        systems.setdefault(key, {"round": result.submission.round, "organization": result.submission.organization,
                                 "system": result.system, "entry": result.citable.entry,
                                 "local": result.citable.local, "results": []})["results"].append(result)
    return render(request, "results/entry.html", {
        "entry": results[0].citable.entry if results else gone[0].result.citable.entry,
        "systems": list(systems.values()), "gone": gone,
        "local": any(s["local"] for s in systems.values()),
    })


@cache_public_page
def result_detail(request, result_id: str, version: int | None = None):
    # The visible version asked for, read first: a page of it (nearly every request) reads it once.
    result = _visible(request.user, result_id, version).first()
    if result is None:
        elsewhere = _elsewhere(request, result_id, version)
        if elsewhere is not None:
            return elsewhere
        result = _gone_or_404(result_id, version)  # an earlier version of a gone result
    if version is not None and result.submission.is_current:
        return redirect("pages:result", result_id=result.result_id)
    return suites.of_round(result.submission.round).result_page(request, result)


def _elsewhere(request, result_id: str, version: int | None):
    """Where no version of the result is visible: its tombstone, or a redirect to its last version
    or to the address in the registry's spelling; None otherwise."""
    if Result.objects.visible_to(request.user).citable(result_id).exists():
        return None
    gone = tombstone(result_id)
    if gone is not None and version is None:
        return tombstone_page(request, gone)
    if gone is not None and version not in gone.earlier:
        return redirect("pages:result", result_id=gone.result.result_id)  # its last version is the tombstone
    found = find_result_id(request.user, result_id) if gone is None else None
    if found is not None and version is None:  # the address in the registry's spelling
        return redirect("pages:result", result_id=found)
    if found is not None:
        return redirect("pages:result-version", result_id=found, version=version)
    return None


@cache_public_page
def result_chart(request, result_id: str, chart: str, fmt: str, version: int | None = None):
    result = _shown(request.user, result_id, None if version is None else int(version))
    return suites.of_round(result.submission.round).result_chart(request, result, chart, fmt)
