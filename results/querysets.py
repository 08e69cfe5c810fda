"""Read rules. One method decides what a user may see; every HTML view and API endpoint uses it.

Public means: the round is published and the submission version is published. Members of the
submitting organization see their own unpublished submissions; reviewers and chairs (staff or
the `reviewers` / `chairs` groups) see everything.
"""

from __future__ import annotations

import re

from django.db import models
from django.db.models import Q

from audit.roles import is_privileged

from .constants import ResultStatus, RoundState

ROUND_SLUG = re.compile(r"^(training|inference)-v?(\d+\.\d+)$")


class RoundSlugError(ValueError):
    pass


class RoundNotFound(LookupError):
    """No round by that name: a malformed name, or no such round (in what the queryset holds)."""


def parse_round_slug(slug: str) -> tuple[str, str]:
    """'training-v1.0' -> ('training', '1.0')."""
    match = ROUND_SLUG.match(slug.strip())
    if not match:
        raise RoundSlugError(f"round must look like training-v1.0, got {slug!r}")
    return match.group(1), match.group(2)


def submission_visibility(user, prefix: str = "", result_status: str = "") -> Q | None:
    """A Q over Submission fields (reached through `prefix`), or None when the user sees everything.
    `result_status` names a Result.status field to check too: withdrawn and removed results are
    never public (their organization still sees them)."""
    if is_privileged(user):
        return None
    public = Q(**{f"{prefix}is_published": True, f"{prefix}round__state": RoundState.PUBLISHED})
    if result_status:
        public &= Q(**{result_status: ResultStatus.ACTIVE})
    if user is not None and user.is_authenticated:
        return public | Q(**{f"{prefix}organization__members": user})
    return public


class RoundQuerySet(models.QuerySet):
    def with_slug(self, slug: str):
        """The round named `training-v1.0`; raises RoundSlugError for a malformed name."""
        suite, version = parse_round_slug(slug)
        return self.filter(suite=suite, version=version)

    def named(self, slug: str):
        """The round named `training-v1.0`, or RoundNotFound saying why not: the one lookup of a
        round by the name a URL, a command line or an upload gives."""
        try:
            round_ = self.with_slug(slug).first()
        except RoundSlugError as exc:
            raise RoundNotFound(str(exc)) from exc
        if round_ is None:
            raise RoundNotFound(f"there is no round {slug}")
        return round_

    def visible_to(self, user):
        if is_privileged(user):
            return self
        rule = Q(state=RoundState.PUBLISHED)
        if user is not None and user.is_authenticated:
            rule |= Q(submissions__organization__members=user)
        return self.filter(rule).distinct()


class _SubmissionScoped(models.QuerySet):
    submission_prefix = "submission__"
    result_status = ""  # the Result.status field, for querysets of results and their runs

    def visible_to(self, user):
        rule = submission_visibility(user, self.submission_prefix, self.result_status)
        qs = self if rule is None else self.filter(rule)
        if user is not None and user.is_authenticated and rule is not None:
            qs = qs.distinct()
        return qs

    def current(self):
        return self.filter(**{f"{self.submission_prefix}is_current": True})


class SubmissionQuerySet(_SubmissionScoped):
    submission_prefix = ""


class SystemQuerySet(_SubmissionScoped):
    pass


class ResultQuerySet(_SubmissionScoped):
    """Besides visibility: joins and narrowing shared by the pages and the API (never widening)."""

    result_status = "status"

    def with_related(self):
        return self.select_related("system", "benchmark", "citable", "submission__organization", "submission__round")

    def for_round(self, round_):
        return self.filter(submission__round=round_)

    def citable(self, result_id: str):
        """Every version of one citable id in this queryset, the current (then newest) one first."""
        return self.filter(result_id=result_id).order_by("-submission__is_current", "-submission__version")


class RunQuerySet(_SubmissionScoped):
    submission_prefix = "result__submission__"
    result_status = "result__status"

