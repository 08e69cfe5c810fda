"""Search over systems, submitters and accelerators."""

from __future__ import annotations

from collections import defaultdict

from django.db.models import Count, Q
from django.shortcuts import render

from mlperf_check.rules.facts import version_key
from pages.caching import cache_public_page
from pages.system_groups import accelerator_choices, accelerator_key
from results.constants import Suite
from results.models import Organization, Result, Submission, System

SEARCH_LIMIT = 200
# The most systems one search reads. One or two letters match nearly every system, and counting the
# visible results of all of them took 3 s with the whole record and the bench's synthetic rounds (33,000
# systems): past this many the newest are read, and the page says so.
SEARCH_SYSTEMS_READ = 1000


@cache_public_page
def search(request):
    """Systems with a visible result, one entry per system (its rounds listed, with what tells it
    apart from same-named systems), submitters, and accelerators grouped across spellings."""
    query = request.GET.get("q", "").strip()
    systems, submitters, accelerators, narrowed = [], [], [], False
    if query:
        visible = Result.objects.visible_to(request.user).current()
        # The text is looked for in the systems and organizations (thousands of rows), then the
        # visible results of those found are counted, by their ids: matched across the results'
        # joins (tens of thousands of rows in the public record) a search took 300 ms, and a
        # subquery leaves the planner guessing how many systems match (1,235 for 30).
        # Every condition on the systems' own columns (the named organizations' submissions by id,
        # not through a join), so that PostgreSQL combines the columns' trigram indexes
        # (results/migrations/0019): 69 ms reading every system -> under 1 ms.
        named = list(Organization.objects.filter(name__icontains=query).values_list("pk", flat=True))
        named_submissions = list(Submission.objects.filter(organization__in=named).values_list("pk", flat=True))
        found = list(System.objects.filter(
            Q(name__icontains=query) | Q(system_id__icontains=query) | Q(submitter__icontains=query)
            | Q(submission__in=named_submissions) | Q(accelerator_model_name__icontains=query)
            | Q(host_processor_model_name__icontains=query) | Q(framework__icontains=query)
        ).order_by("-pk").values_list("pk", "submitter", "accelerator_model_name", "submission__organization")
            [:SEARCH_SYSTEMS_READ + 1])
        narrowed = len(found) > SEARCH_SYSTEMS_READ
        found = found[:SEARCH_SYSTEMS_READ]
        query_lower = query.lower()
        matching = visible.filter(system__in=[pk for pk, _, _, _ in found])
        rows = (
            matching.values("submission__organization__slug", "submission__organization__name", "system__system_id",
                            "system__name", "system__accelerator_model_name", "system__accelerators_count",
                            "system__framework", "system__division", "submission__round__version",
                            "submission__round__suite")
            .annotate(results=Count("pk"))
            .order_by("submission__organization__name", "system__name", "system__system_id")
        )
        by_system: dict[tuple, dict] = {}
        for row in rows:
            key = (row["submission__organization__slug"], row["system__system_id"])
            entry = by_system.setdefault(key, {
                "organization": row["submission__organization__slug"],
                "organization_name": row["submission__organization__name"],
                "system_id": row["system__system_id"], "name": row["system__name"],
                "accelerator": row["system__accelerator_model_name"], "accelerators": row["system__accelerators_count"],
                "framework": row["system__framework"], "division": row["system__division"], "rounds": {},
            })
            slug = f"{row['submission__round__suite']}-v{row['submission__round__version']}"
            entry["rounds"][slug] = entry["rounds"].get(slug, 0) + row["results"]
        systems = list(by_system.values())[:SEARCH_LIMIT]
        for entry in systems:
            # (slug, "Training v1.0", results): a round named with its suite, as every page names it.
            entry["rounds"] = [
                (slug, f"{Suite(slug.rsplit('-v', 1)[0]).label} v{slug.rsplit('-v', 1)[1]}", n)
                for slug, n in sorted(entry["rounds"].items(), key=lambda item: version_key(item[0].rsplit("-v", 1)[1]))
            ]
        # Same-named systems are told apart by what differs between them.
        names = defaultdict(list)
        for entry in systems:
            names[entry["name"]].append(entry)
        for entry in systems:
            entry["ambiguous"] = len(names[entry["name"]]) > 1
        # A result's system is of its own submission, so the results of a named organization are
        # those of its systems: one list of systems, looked up by index, where the two conditions
        # OR-ed read every result (100 ms at 227,000).
        submitter_systems = [pk for pk, submitter, _, organization in found
                             if query_lower in submitter.lower() or organization in named]
        submitters = list(
            visible.filter(system__in=submitter_systems)
            .values("submission__organization__slug", "submission__organization__name")
            .annotate(systems=Count("system__system_id", distinct=True), rounds=Count("submission__round", distinct=True))
            .order_by("submission__organization__name")[:SEARCH_LIMIT]
        )
        counts: dict[str, dict] = {}
        for name, systems_count, rounds in (
            visible.filter(system__in=[pk for pk, _, accelerator, _ in found if query_lower in accelerator.lower()])
            .values_list("system__accelerator_model_name")
            .annotate(Count("system__system_id", distinct=True), Count("submission__round", distinct=True))
            .order_by()
        ):
            entry = counts.setdefault(accelerator_key(name), {"spellings": [], "systems": 0, "rounds": 0})
            entry["spellings"].append(name)
            entry["systems"] += systems_count
            entry["rounds"] = max(entry["rounds"], rounds)
        labels = dict(accelerator_choices(n for entry in counts.values() for n in entry["spellings"]))
        accelerators = sorted(({"key": key, "label": labels[key], **entry} for key, entry in counts.items()),
                              key=lambda entry: entry["label"].lower())
    return render(request, "results/search.html", {
        "query": query, "systems": systems, "submitters": submitters, "accelerators": accelerators,
        "narrowed": narrowed, "systems_read": SEARCH_SYSTEMS_READ,
    })
