"""Read rules. One method decides what a user may see; every HTML view and API endpoint uses it.

Public means: the round is published and the submission version is published. Members of the
submitting organization see their own unpublished submissions; reviewers and chairs (staff or
the `reviewers` / `chairs` groups) see everything. Peer review: from the submission deadline to
publication, members of every organization that submitted to a round see every submission of
that round (results, logs, systems, findings; the review record has its own rules in review/).

models.py imports these querysets (each model's manager); a method here that queries another
model imports it inside the method, when the models are loaded: Django's usual lazy pattern, the
one import circle of the project (tests/test_suite_seam.py allows it and no other).
"""

from __future__ import annotations

import re

from django.db import models
from django.db.models import Max, Min, Q

from audit.roles import CHAIR_ROLE, is_privileged, roles_of

from .constants import ResultStatus, RoundState, Suite

# The round states between the submission deadline and publication.
PEER_REVIEW_STATES = (RoundState.REVIEW, RoundState.FINAL)
ROUND_SLUG = re.compile(rf"^({'|'.join(Suite.values)})-v?(\d+\.\d+)$")  # every suite's name


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


def peer_review_rounds(user, now=None):
    """The rounds whose every submission `user` may read as a peer: in review or final, past the
    submission deadline (a round moved to review without one is past it), and with an ingested
    submission of one of the user's organizations. Empty for anonymous users."""
    from django.utils import timezone

    from .models import Round, Submission

    if user is None or not user.is_authenticated:
        return Round.objects.none()
    now = now or timezone.now()
    submitted = Submission.objects.filter(organization__members=user, written_at__isnull=False).values("round")
    return Round.objects.filter(
        Q(submission_deadline__isnull=True) | Q(submission_deadline__lte=now),
        state__in=PEER_REVIEW_STATES, pk__in=submitted,
    )


def rounds_seen_beyond_public(user, rounds) -> set[int]:
    """The pks of those of `rounds` where signed-in, non-privileged `user` sees a current result the
    public does not: a round they read as a peer, or one where their organizations have a current
    result that is not public (unpublished, withdrawn, held). In every other round they see exactly
    what the public sees, so what is built of its public results is theirs too. Empty for
    anonymous users."""
    from .models import Result

    if user is None or not user.is_authenticated:
        return set()
    pks = [round_.pk for round_ in rounds]
    peer = set(peer_review_rounds(user).filter(pk__in=pks).values_list("pk", flat=True))
    own_hidden = (
        Result.objects.current().filter(submission__round__in=pks, submission__organization__members=user)
        .exclude(submission_visibility(None, "submission__", "citable__status"))
        .order_by().values_list("submission__round", flat=True).distinct()
    )
    return peer | set(own_hidden)


def submission_visibility(user, prefix: str = "", result_status: str = "") -> Q | None:
    """A Q over Submission fields (reached through `prefix`), or None when the user sees everything.
    `result_status` names the citable result's status field (CitableId.status) to check too:
    withdrawn and removed results are never public in any version (their organization still sees
    them), and a held version's results, with no id yet, never are."""
    if is_privileged(user):
        return None
    public = Q(**{f"{prefix}is_published": True, f"{prefix}round__state": RoundState.PUBLISHED})
    if result_status:
        public &= Q(**{result_status: ResultStatus.ACTIVE})
    if user is not None and user.is_authenticated:
        return (
            public
            | Q(**{f"{prefix}organization__members": user})
            | Q(**{f"{prefix}round__in": peer_review_rounds(user).values("pk")})
        )
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
        """Chairs see every round; a draft is theirs alone (reviewers and submitters see none)."""
        roles = roles_of(user)
        if CHAIR_ROLE in roles:
            return self
        if roles:
            return self.exclude(state=RoundState.DRAFT)
        rule = Q(state=RoundState.PUBLISHED)
        if user is not None and user.is_authenticated:
            rule |= Q(submissions__organization__members=user) & ~Q(state=RoundState.DRAFT)
        return self.filter(rule).distinct()


class _SubmissionScoped(models.QuerySet):
    submission_prefix = "submission__"
    result_status = ""  # the CitableId.status field, for querysets of results and their runs

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

    result_status = "citable__status"

    def with_related(self):
        return self.select_related("system", "benchmark", "citable", "submission__organization", "submission__round")

    def for_round(self, round_):
        return self.filter(submission__round=round_)

    def citable(self, result_id: str):
        """Every version of one citable id in this queryset, the current (then newest) one first."""
        return self.filter(result_id=result_id).order_by("-submission__is_current", "-submission__version")

    def in_round_within_its_ids(self, suite: str, version: str):
        """The results of a round, for a list ordered by id (_within_id_range)."""
        return self.in_rounds_within_their_ids(_round_named(suite, version))

    def in_rounds_within_their_ids(self, rounds):
        """The results of `rounds` (a Round queryset), for a list ordered by id (_within_id_range)."""
        return _within_id_range(self, rounds)


class RunQuerySet(_SubmissionScoped):
    submission_prefix = "result__submission__"
    result_status = "result__citable__status"

    def in_round_within_its_ids(self, suite: str, version: str):
        """The runs of a round, for a list ordered by id (_within_id_range)."""
        return self.in_rounds_within_their_ids(_round_named(suite, version))

    def in_rounds_within_their_ids(self, rounds):
        """The runs of `rounds` (a Round queryset), for a list ordered by id (_within_id_range)."""
        return _within_id_range(self, rounds)


# The id range of a round's results and of its runs, by (model, round pk), kept in this process
# with the round's submissions as they were read just before it: [(pk, written_at, updated_at)].
# A version's rows are written once, in the transaction that sets its written_at (the importers'
# write_report), and an admin's edit of a result touches its submission (updated_at), so rows
# come into a round only with a change of those, and the range is read again then. A new row may
# take a lower id than one read before it (an import still running when another committed),
# which is why a range is never kept by itself.
_id_ranges: dict[tuple[str, int], tuple[list, tuple[int, int] | None]] = {}


def _round_named(suite: str, version: str):
    from .models import Round

    return Round.objects.filter(suite=suite, version=version)


def _within_id_range(rows, rounds):
    """`rows` of `rounds` between the lowest and the highest id of their rows there. A page of a
    list ordered by id and filtered to some rounds (one, a suite's, a benchmark's) is read by
    walking the id index: PostgreSQL expects a round's rows spread evenly over it, but they lie
    together. Walked from the start, the first page of training v4.1's runs read the 1.8 million
    runs before them (3.6 s on 2,000,000 runs). Walked to the end, the last page of a round read
    every row after it (0.75-1.2 s), and HPC v1.0's first page, planned as a parallel walk, waited
    on a worker whose share of the index held none of its runs (1.9-13.5 s). The range changes no
    answer: every row of the rounds lies in it."""
    from .models import Submission

    submissions: dict[int, list] = {}
    for round_pk, *version in (Submission.objects.filter(round__in=rounds).order_by("round", "pk")
                               .values_list("round", "pk", "written_at", "updated_at")):
        submissions.setdefault(round_pk, []).append(tuple(version))
    ranges = [_id_range(rows, round_pk, versions) for round_pk, versions in submissions.items()]
    ranges = [id_range for id_range in ranges if id_range is not None]
    if not ranges:
        return rows.none()  # no row yet: nothing to list
    return rows.filter(**{f"{rows.submission_prefix}round__in": list(submissions)},
                       id__gte=min(low for low, _ in ranges), id__lte=max(high for _, high in ranges))


def _id_range(rows, round_pk: int, versions: list) -> tuple[int, int] | None:
    """(lowest, highest) id of the rows of `rows`' model in the round, None while it has none:
    kept in _id_ranges while the round's submissions are `versions`. One aggregate over the
    round's rows (training v2.0's 118,000 runs: 25 ms)."""
    key = (rows.model._meta.label, round_pk)
    kept = _id_ranges.get(key)
    if kept is not None and kept[0] == versions:
        return kept[1]
    bounds = rows.model.objects.filter(**{f"{rows.submission_prefix}round": round_pk}).aggregate(
        lowest=Min("id"), highest=Max("id"))
    id_range = None if bounds["lowest"] is None else (bounds["lowest"], bounds["highest"])
    _id_ranges[key] = (versions, id_range)
    return id_range


class FindingQuerySet(models.QuerySet):
    """A finding is waived by a decision as mlperf_check/waivers.py rules (the one rule, offline
    too): an accepted Waiver of its organization in its round, on its result's system and
    benchmark (a package-level finding: system and benchmark ""), that covers it: a bypass covers
    its checker's findings (BYPASSED_CHECKER), a known false positive its code. covering_waivers
    is that rule in SQL; every method below reads it."""

    def covering_waivers(self):
        """The accepted decisions that waive the finding of the outer query (OuterRef), first by
        id: mlperf_check.waivers.waiver_covering in SQL, proven equal to it by
        review/tests/test_waiver_rule.py."""
        from django.db.models import Case, OuterRef, Value, When
        from django.db.models.functions import Coalesce

        from mlperf_check.waivers import BYPASSED_CHECKER, KNOWN_FALSE_POSITIVE

        from .models import Waiver

        covered_checker = Case(*[When(kind=kind, then=Value(checker)) for kind, checker in BYPASSED_CHECKER.items()],
                               default=Value(""))
        return Waiver.objects.annotate(covered_checker=covered_checker).filter(
            Q(kind__in=list(BYPASSED_CHECKER), covered_checker=OuterRef("checker"))
            | Q(kind=KNOWN_FALSE_POSITIVE, code=OuterRef("code")),
            round=OuterRef("submission__round"), organization=OuterRef("submission__organization"),
            # A finding no result carries is the package's: mlperf_check.waivers.PACKAGE_SCOPE.
            system_id=Coalesce(OuterRef("result__system__system_id"), Value("")),
            benchmark=Coalesce(OuterRef("result__benchmark__name"), Value("")), accepted=True,
        ).order_by("pk")

    def with_waiver(self):
        """Each finding's `waiver_id`: the decision that waived it, or None."""
        return self.annotate(waiver_id=models.Subquery(self.covering_waivers().values("pk")[:1]))

    def not_waived(self):
        return self.exclude(models.Exists(self.covering_waivers()))

    def unwaived_errors_of(self, outer_result: str = "pk"):
        """A subquery: the number of error findings nobody waived of the result `outer_result`
        names in the outer query (annotate a queryset of results with it)."""
        return self.unwaived_of("error", outer_result)

    def unwaived_error_counts(self, key: str = "result") -> dict:
        """{a result's `key` (its pk, or e.g. "result__result_id"): its error findings nobody
        waived} over these findings, results with none left out. One grouped query (e.g. over a
        round's findings), where annotating each of a large round's results with
        unwaived_errors_of runs the subquery once per result."""
        from django.db.models import Count

        counted = self.filter(severity="error", result__isnull=False).not_waived().order_by().values(key)
        return dict(counted.annotate(n=Count("pk")).values_list(key, "n"))

    def unwaived_of(self, severity: str, outer_result: str = "pk"):
        """unwaived_errors_of for findings of any severity."""
        return self._count_per_result(self.filter(severity=severity).not_waived(), outer_result)

    def waived_of(self, severity: str, outer_result: str = "pk"):
        """unwaived_of's counterpart: the findings of `severity` a decision waived, which the pages
        show apart ("0 (5 waived)")."""
        return self._count_per_result(self.filter(models.Exists(self.covering_waivers()), severity=severity), outer_result)

    @staticmethod
    def _count_per_result(findings, outer_result: str):
        from django.db.models import Count, OuterRef, Subquery
        from django.db.models.functions import Coalesce

        counted = findings.filter(result=OuterRef(outer_result)).order_by().values("result").annotate(n=Count("pk"))
        return Coalesce(Subquery(counted.values("n")), 0)
