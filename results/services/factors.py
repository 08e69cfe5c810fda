"""Scaling-factor decisions: a result's score uses the factor computed from the logs unless an
accepted `Waiver` of kind published_factor names another (`apply_factor_decisions`). Such
decisions come from importing a published round with its shipped factors
(`record_published_factors`) or from a reviewer accepting or rejecting a shipped factor
(`accept_shipped_factor`, `reject_shipped_factor`), never from the upload itself. Every decision
recorded or changed is an audit event."""


from django.db import transaction
from django.utils import timezone

from audit import events
from audit.roles import is_chair, is_privileged
from mlperf_check.checkers.shipped_factors import FACTOR_TOLERANCE
from mlperf_check.report import PackageReport

from ..constants import FactorSource, WaiverKind
from ..models import Organization, Result, Round, Submission, Waiver
from .versions import touch_submissions

# The reasons recorded by import_results --published-factors.
SHIPPED_FACTOR_REASON = "shipped in the published package"
NO_SHIPPED_FACTOR_REASON = (
    "the published package ships no scaling.json, so the official summarizer published the score with 1.0"
)


class DecisionRefused(Exception):
    """A decision the user may not take (role, conflict of interest), or with nothing to decide."""


# -- scaling-factor decisions ---------------------------------------------------------------------


def record_published_factors(report: PackageReport, *, round_: Round, organization: Organization, chair) -> int:
    """Record, as accepted decisions by `chair`, the factor the official summarizer published for
    every result folder where it differs from the factor the logs give: the shipped scaling.json,
    or 1.0 where the folder has none. An unreadable scaling.json decides nothing. Returns the
    number of decisions recorded or changed."""
    if not is_chair(chair):
        raise DecisionRefused(f"{chair}: only a chair records the factors of a published round")
    changed = 0
    for result in report.results:
        published = result.published_factor
        if published is None or abs(published - result.rcp.scaling_factor) <= FACTOR_TOLERANCE:
            continue
        reason = NO_SHIPPED_FACTOR_REASON if result.shipped_factor is None else SHIPPED_FACTOR_REASON
        changed += _record_factor_decision(
            round_, organization, result.system_id, result.benchmark,
            factor=published, accepted=True, by=chair, reason=reason,
        ) is not None
    return changed


def accept_shipped_factor(result: Result, *, by, reason: str) -> Waiver:
    """A reviewer accepts the factor the result's package ships: the score uses it from now on, in
    every version of this system and benchmark, until the decision is rejected."""
    return _decide_on_shipped_factor(result, by=by, reason=reason, accepted=True)


def reject_shipped_factor(result: Result, *, by, reason: str) -> Waiver:
    """A reviewer rejects the shipped factor: the score uses the factor the logs give, and the
    rejection is kept as a record."""
    return _decide_on_shipped_factor(result, by=by, reason=reason, accepted=False)


def _decide_on_shipped_factor(result: Result, *, by, reason: str, accepted: bool) -> Waiver:
    organization = result.submission.organization
    if not is_privileged(by):
        raise DecisionRefused("only reviewers and chairs decide on scaling factors")
    if organization.members.filter(pk=by.pk).exists():
        raise DecisionRefused(
            f"conflict of interest: {by} is a member of {organization}, so {result.result_id} is not theirs to decide"
        )
    shipped = result.shipped_scaling_factor
    if shipped is None:
        raise DecisionRefused(f"{result.folder} ships no readable scaling.json: there is no shipped factor to decide on")
    if not result.shipped_factor_differs:
        raise DecisionRefused(f"the shipped factor {shipped!r} agrees with the logs: there is nothing to decide")
    reason = (reason or "").strip()
    if not reason:
        raise DecisionRefused("a decision needs a reason")
    round_ = result.submission.round
    with transaction.atomic():
        _record_factor_decision(
            round_, organization, result.system.system_id, result.benchmark.name,
            factor=shipped, accepted=accepted, by=by, reason=reason, result=result,
        )
        apply_factor_decisions(round_, organization)
    return Waiver.objects.get(
        round=round_, organization=organization, system_id=result.system.system_id,
        benchmark=result.benchmark.name, kind=WaiverKind.PUBLISHED_FACTOR,
    )


def _record_factor_decision(
    round_, organization, system_id, benchmark, *, factor, accepted, by, reason, result=None
) -> Waiver | None:
    """Create or replace the one published_factor decision of a system and benchmark, and record
    it as an audit event (about `result` when one result was decided on). Returns the decision,
    or None when nothing changed (an identical decision is left as it was, unrecorded)."""
    decision = {"factor": factor, "accepted": accepted, "granted_by": by, "reason": reason}
    waiver = Waiver.objects.filter(
        round=round_, organization=organization, system_id=system_id, benchmark=benchmark,
        kind=WaiverKind.PUBLISHED_FACTOR,
    ).first()
    if waiver is None:
        waiver = Waiver.objects.create(
            round=round_, organization=organization, system_id=system_id, benchmark=benchmark,
            kind=WaiverKind.PUBLISHED_FACTOR, **decision,
        )
    elif all(getattr(waiver, name) == value for name, value in decision.items()):
        return None
    else:
        for name, value in decision.items():
            setattr(waiver, name, value)
        waiver.created_at = timezone.now()  # when the decision in force was taken
        waiver.save()
    (events.factor_accepted if accepted else events.factor_rejected)(waiver, result=result)
    return waiver


def apply_factor_decisions(round_: Round, organization: Organization) -> int:
    """Bring the scores of an organization's results in a round in line with the accepted
    published_factor decisions: olympic mean x decided factor where one exists, the score the
    logs give everywhere else. Returns the number of results changed (none: nothing is written)."""
    decisions = Waiver.objects.filter(
        round=round_, organization=organization, kind=WaiverKind.PUBLISHED_FACTOR, accepted=True, factor__isnull=False
    )
    decided = {(system_id, benchmark): factor for system_id, benchmark, factor in decisions.values_list(
        "system_id", "benchmark", "factor"
    )}
    changed = []
    results = Result.objects.filter(submission__round=round_, submission__organization=organization).select_related(
        "system", "benchmark"
    )
    for result in results:
        factor = decided.get((result.system.system_id, result.benchmark.name))
        if factor is None:
            wanted = (result.computed_score_minutes, result.computed_scaling_factor, FactorSource.COMPUTED)
        else:
            score = None if result.mean_minutes is None else result.mean_minutes * factor
            wanted = (score, factor, FactorSource.DECISION)
        if (result.score_minutes, result.scaling_factor, result.factor_source) != wanted:
            result.score_minutes, result.scaling_factor, result.factor_source = wanted
            changed.append(result)
    if changed:
        Result.objects.bulk_update(changed, ["score_minutes", "scaling_factor", "factor_source"])
        touch_submissions(Submission.objects.filter(pk__in={r.submission_id for r in changed}))
    return len(changed)


