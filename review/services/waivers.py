"""Review decisions on findings and factors: a reviewer's RCP or seed bypass, a chair's known
false positive (of a result, or of the package's own findings), and the acceptance or rejection of
a shipped scaling factor. These write the decisions; which findings a decision waives is
mlperf_check/waivers.py's rule (FindingQuerySet.covering_waivers on the server, the same rule
offline), so a waiver leaves every count and badge at once, and ingest recounts its jobs' errors
(review.signals.findings_waived)."""

from __future__ import annotations

from django.db import IntegrityError, transaction

from audit import events
from audit.roles import is_chair
from results.constants import WaiverKind
from results.models import Finding, Result, Submission, Waiver
from results.services.factors import DecisionRefused, accept_shipped_factor, reject_shipped_factor
from results.services.versions import touch_submissions

from ..signals import findings_waived
from .access import ReviewRefused, _refuse_conflict, _require_chair, _require_reason, _require_reviewer
from .notifications import _notify_members

# A shipped scaling factor is decided with decide_shipped_factor, which records the factor itself.
WAIVABLE_KINDS = (WaiverKind.RCP_BYPASS, WaiverKind.SEED_BYPASS, WaiverKind.KNOWN_FALSE_POSITIVE)


def waiver_kinds_for(user) -> list[str]:
    """The waiver kinds `user` may grant: a known false positive is a chair's decision."""
    return [kind for kind in WAIVABLE_KINDS if kind != WaiverKind.KNOWN_FALSE_POSITIVE or is_chair(user)]


def grant_waiver(actor, result: Result, kind: str, reason: str, code: str = "") -> Waiver:
    """A reviewer waives a check for a result's (system, benchmark): an RCP or seed bypass; a chair
    declares the findings of one code a known false positive. The waived findings leave every
    count and badge at once (FindingQuerySet.not_waived); a bypass also reaches the checks of the
    organization's next version."""
    _require_reviewer(actor, "waive findings")
    organization = result.submission.organization
    _refuse_conflict(actor, organization, "waive its findings")
    reason = _require_reason(reason)
    if kind not in WAIVABLE_KINDS:
        raise ReviewRefused(f"unknown waiver kind {kind!r}", status=400)
    code = (code or "").strip() if kind == WaiverKind.KNOWN_FALSE_POSITIVE else ""
    if kind == WaiverKind.KNOWN_FALSE_POSITIVE:
        _require_chair(actor, "declare a known false positive")
        if not Finding.objects.filter(result__result_id=result.result_id, result__submission__round=result.submission.round_id,
                                      code=code).exists():
            raise ReviewRefused(f"{result.result_id} has no finding with code {code!r}", status=400)
    return _record_waiver(actor, result.submission, kind=kind, code=code, reason=reason, result=result)


def waive_package_findings(actor, submission: Submission, code: str, reason: str) -> Waiver:
    """A chair declares the findings of one code that no result carries (the package's layout,
    system descriptions, archive) a known false positive for the organization in this round. They
    leave every count and badge like a result's waived findings (FindingQuerySet.not_waived:
    system and benchmark "")."""
    _require_chair(actor, "waive findings of a package")
    _refuse_conflict(actor, submission.organization, "waive its findings")
    reason = _require_reason(reason)
    code = (code or "").strip()
    if not submission.findings.filter(result__isnull=True, code=code).exists():
        raise ReviewRefused(f"version {submission.version} has no package finding with code {code!r}", status=400)
    return _record_waiver(actor, submission, kind=WaiverKind.KNOWN_FALSE_POSITIVE, code=code, reason=reason)


def _record_waiver(actor, submission: Submission, *, kind: str, code: str, reason: str, result=None) -> Waiver:
    """Store the decision for every version of the organization in the round, audit it, tell the
    organization; `result` None: the package's own findings (system and benchmark "")."""
    organization = submission.organization
    what = result.result_id if result is not None else f"{organization} {submission.round.slug} (package)"
    with transaction.atomic():
        try:
            with transaction.atomic():
                waiver = Waiver.objects.create(
                    round=submission.round, organization=organization,
                    system_id=result.system.system_id if result is not None else "",
                    benchmark=result.benchmark.name if result is not None else "",
                    kind=kind, code=code, reason=reason, granted_by=actor,
                )
        except IntegrityError as exc:
            raise ReviewRefused(f"{what} already has a {kind} waiver{f' for {code}' if code else ''}",
                                status=409) from exc
        versions = Submission.objects.filter(round=submission.round_id, organization=organization)
        touch_submissions(versions)
        findings_waived.send(sender=Waiver, submissions=versions)
        events.finding_waived(waiver, actor=actor, submission=submission, result=result)
        _notify_members(organization, events.FINDING_WAIVED,
                        f"{what}: {waiver.get_kind_display()}{f' ({code})' if code else ''}: {reason}.")
    return waiver


def decide_shipped_factor(actor, result: Result, accept: bool, reason: str) -> Waiver:
    """A reviewer accepts the scaling factor a result's package ships (the score then rests on it)
    or rejects it (the logs decide); results.services checks role and conflict of interest."""
    with transaction.atomic():
        try:
            decide = accept_shipped_factor if accept else reject_shipped_factor
            decision = decide(result, by=actor, reason=reason)
        except DecisionRefused as exc:
            raise ReviewRefused(str(exc)) from exc
        verb = "accepted" if accept else "rejected"
        _notify_members(result.submission.organization, events.FACTOR_ACCEPTED if accept else events.FACTOR_REJECTED,
                        f"{result.result_id}: the shipped scaling factor {decision.factor} was {verb} "
                        f"({decision.reason}).")
    return decision
