"""The filters of a training or HPC round's pages, read from the URL (so every filtered view is a
link) and applied in the database: division, availability category, deployment, submitter,
accelerator, accelerator count, verified results, and search text. The round page, its benchmark
pages, their charts and their downloads read the same filters from the same parameters."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Q
from django.http import QueryDict

from pages.caching import rows_seen_by
from pages.system_groups import (
    CATEGORIES,
    CATEGORY_LABELS,
    DIVISION_ORDER,
    accelerator_choices,
    accelerator_key,
    category_q,
    with_accelerator,
)
from results.constants import Deployment
from results.models import Round, System

# What the search text (`q`) looks in: a result matches when one of them contains it (any case).
SEARCHED = ("result_id", "system__name", "system__system_id", "system__submitter", "submission__organization__name",
            "system__accelerator_model_name")


def _whole_number(value) -> int | None:
    try:
        number = int(value)
    except (TypeError, ValueError):
        return None
    return number if number >= 0 else None


@dataclass
class ResultFilters:
    """A page's filters as read from (and written back to) the query string; a value the page does
    not offer is read as no filter."""

    division: str = ""
    category: str = ""
    deployment: str = ""
    submitter: str = ""  # organization slug
    accelerator: str = ""
    acc_min: int | None = None
    acc_max: int | None = None
    verified: bool = False  # only results a verification reproduced (verify/)
    q: str = ""

    # The query parameters these filters read: the links that change a page or a view keep them.
    PARAMETERS = ("division", "category", "deployment", "submitter", "accelerator", "acc_min", "acc_max", "verified",
                  "q")

    @classmethod
    def values_of(cls, query) -> dict:
        division = query.get("division", "")
        category = query.get("category", "")
        deployment = query.get("deployment", "")
        return dict(
            division=division if division in DIVISION_ORDER else "",
            category=category if category in CATEGORY_LABELS else "",
            deployment=deployment if deployment in (Deployment.ON_PREMISE, Deployment.CLOUD) else "",
            submitter=query.get("submitter", "").strip(),
            accelerator=query.get("accelerator", "").strip(),
            acc_min=_whole_number(query.get("acc_min")),
            acc_max=_whole_number(query.get("acc_max")),
            verified=query.get("verified") == "1",
            q=query.get("q", "").strip()[:100],
        )

    @classmethod
    def from_query(cls, query) -> ResultFilters:
        return cls(**cls.values_of(query))

    def apply(self, results):
        """`results` (a Result queryset) narrowed to what the filters keep."""
        if self.division:
            results = results.filter(division=self.division)
        if self.category:
            results = results.filter(category_q(self.category))
        if self.deployment:
            results = results.filter(system__deployment=self.deployment)
        if self.submitter:
            results = results.filter(submission__organization__slug=self.submitter)
        if self.accelerator:
            results = with_accelerator(results, self.accelerator)
        if self.acc_min is not None:
            results = results.filter(system__accelerators_count__gte=self.acc_min)
        if self.acc_max is not None:
            results = results.filter(system__accelerators_count__lte=self.acc_max)
        if self.q:
            searched = Q()
            for field in SEARCHED:
                searched |= Q(**{f"{field}__icontains": self.q})
            results = results.filter(searched)
        if self.verified:
            results = results.filter(verification_jobs__outcome="reproduced").distinct()
        return results

    @property
    def accelerator_key(self) -> str:
        return accelerator_key(self.accelerator)

    @property
    def active(self) -> bool:
        return any([self.division, self.category, self.deployment, self.submitter, self.accelerator,
                    self.acc_min is not None, self.acc_max is not None, self.verified, self.q])


def filter_query(query) -> str:
    """The URL's filter parameters alone, encoded: what a download or chart beside a filtered table
    carries so that it holds the same results."""
    kept = QueryDict(mutable=True)
    for name in ResultFilters.PARAMETERS:
        if query.getlist(name):
            kept.setlist(name, query.getlist(name))
    return kept.urlencode()


def filter_options(round_: Round, user) -> dict:
    """Choices for the filter form: what the visible systems of the round hold, kept under the
    round's version for the views users share (a large round's systems are thousands: 20 ms for
    each new filter, sort or page of its tables)."""
    return {
        "divisions": [("closed", "Closed"), ("open", "Open")],
        "categories": CATEGORIES,
        "deployments": [(Deployment.ON_PREMISE.value, "On-premise"), (Deployment.CLOUD.value, "Cloud")],
        **rows_seen_by(user, round_, "filter-options", lambda viewer: _system_choices(round_, viewer)),
    }


def _system_choices(round_: Round, viewer) -> dict:
    """The submitters and accelerators of the round's systems `viewer` sees (one query)."""
    systems = (
        System.objects.visible_to(viewer)
        .current()
        .filter(submission__round=round_)
        .values_list("submission__organization__slug", "submission__organization__name", "accelerator_model_name")
    )
    submitters: dict[str, str] = {}
    accelerators: list[str] = []
    for slug, name, accelerator in systems:
        submitters[slug] = name
        accelerators.append(accelerator)
    return {
        "submitters": sorted(submitters.items(), key=lambda item: (item[1].lower(), item[0])),
        "accelerators": accelerator_choices(accelerators),
    }
