"""An organization's page: every public result it submitted, across rounds and suites, its
systems, and the public changes to its results."""

from __future__ import annotations

from django.http import Http404, HttpResponseBadRequest
from django.shortcuts import render

from pages.caching import cache_public_page
from pages.changelog import public_changes
from pages.paging import BadPage, page_of
from results.models import Organization, Result, version_order
from results.states import publication_states


@cache_public_page
def organization_detail(request, slug: str):
    organization = Organization.objects.filter(slug=slug).first()
    results = list(
        Result.objects.visible_to(request.user).current().filter(submission__organization=organization)
        .with_related()
        .order_by("submission__round__suite", version_order("submission__round__version").desc(),
                  "benchmark__name", "scenario", "system__name")
    ) if organization else []
    changes = [c for c in public_changes() if organization and c.organization_id == organization.pk]
    if not results and not changes:  # a withdrawn result still leaves its change in public
        raise Http404("no such organization, or nothing of it is public")
    try:
        page = page_of(results, request.GET, anchor="organization-results")  # a large submitter: thousands
    except BadPage as error:
        return HttpResponseBadRequest(str(error), content_type="text/plain; charset=utf-8")
    for result, state in zip(page.rows, publication_states(page.rows), strict=True):
        result.state = state
    systems = {}
    for result in results:
        systems.setdefault((result.system.system_id, result.system.name), set()).add(result.submission.round)
    return render(request, "results/organization.html", {
        "organization": organization,
        "results": page.rows,
        "page": page,
        "systems": [{"system_id": sid, "name": name, "rounds": sorted(rounds, key=lambda r: r.slug)}
                    for (sid, name), rounds in sorted(systems.items(), key=lambda kv: kv[0][1].lower())],
        "changes": changes,
    })
