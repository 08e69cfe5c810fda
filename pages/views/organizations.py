"""An organization's page: every public result it submitted, across rounds and suites, its
systems, and the public changes to its results."""

from __future__ import annotations

from django.http import Http404
from django.shortcuts import render

from pages.caching import cache_public_page
from pages.changelog import public_changes
from results.models import Organization, Result, Round, version_order
from results.paging import page_of
from results.states import publication_states


@cache_public_page
def organization_detail(request, slug: str):
    organization = Organization.objects.filter(slug=slug).first()
    visible = Result.objects.visible_to(request.user).current().filter(submission__organization=organization) \
        if organization else Result.objects.none()
    changes = public_changes(organization=organization) if organization else []
    # A large submitter has thousands of results: the database reads only the page's.
    page = page_of(
        visible.with_related().order_by(
            "submission__round__suite", version_order("submission__round__version").desc(), "benchmark__name",
            "scenario", "system__name", "result_id"),
        request.GET, anchor="organization-results")
    if not page.total and not changes:  # a withdrawn result still leaves its change in public
        raise Http404("no such organization, or nothing of it is public")
    for result, state in zip(page.rows, publication_states(page.rows), strict=True):
        result.state = state
    systems = {}
    found = visible.values_list("system__system_id", "system__name", "submission__round").order_by().distinct()
    for system_id, name, round_id in found:
        systems.setdefault((system_id, name), set()).add(round_id)
    rounds = Round.objects.in_bulk({round_id for ids in systems.values() for round_id in ids})
    return render(request, "results/organization.html", {
        "organization": organization,
        "results": page.rows,
        "page": page,
        "systems": [{"system_id": sid, "name": name, "rounds": sorted((rounds[i] for i in ids), key=lambda r: r.slug)}
                    for (sid, name), ids in sorted(systems.items(), key=lambda kv: (kv[0][1].lower(), kv[0][0]))],
        "changes": changes,
    })
