"""The round or result a user may see, by the name in a URL, else Http404: what every app's views
look up first (the public pages, the review pages). Also what a pasted id names (a result id in
another spelling, an MLCommons entry id) and what anyone may still read of a result that was public
and is gone (a tombstone)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from uuid import UUID

from django.http import Http404

from audit import events

from .audit_log import events_visible_to
from .constants import ResultStatus, RoundState
from .models import Result, Round
from .querysets import RoundNotFound
from .services.citable import canonical_result_id, entry_reference

# A gone result's status as the change that set it: the audit event results.services.lifecycle
# wrote, and what the tombstone says happened.
GONE = {
    ResultStatus.WITHDRAWN: (events.RESULT_WITHDRAWN, "withdrawn by its organization"),
    ResultStatus.REMOVED: (events.RESULT_REMOVED, "removed by a review decision"),
}


def round_or_404(user, slug: str) -> Round:
    """The round `user` may see, else 404."""
    try:
        return Round.objects.visible_to(user).named(slug)
    except RoundNotFound as exc:
        raise Http404(str(exc)) from exc


def result_or_404(user, result_id: str) -> Result:
    """The result `user` may see, by its citable id, else 404."""
    result = Result.objects.visible_to(user).citable(result_id).with_related().first()
    if result is None:
        raise Http404("no such result")
    return result


def _named_id(results, text: str) -> str | None:
    """The one citable id among `results` that `text` names: exactly, else in the registry's
    spelling (canonical_result_id) regardless of case, where that names a single id."""
    if results.filter(result_id=text).exists():
        return text
    found = list(
        results.filter(result_id__iexact=canonical_result_id(text)).order_by()
        .values_list("result_id", flat=True).distinct()[:2]
    )
    return found[0] if len(found) == 1 else None


def find_result_id(user, text: str) -> str | None:
    """The citable id of a result `user` may see that `text` names as people paste it
    (`Inference:v4.1-0001:resnet50:Offline`), or None."""
    return _named_id(Result.objects.visible_to(user), text)


def entry_results(user, text: str) -> list[Result] | None:
    """The current results `user` may see of the MLCommons entry `text` names (`4.1-0012`,
    `v4.1-0012`, `inference:4.1-0012`; every suite's entry of that number where it names no suite),
    or None when `text` is no entry id."""
    reference = entry_reference(text)
    if reference is None:
        return None
    found = Result.objects.visible_to(user).current().filter(citable__entry=reference.entry)
    if reference.suite:
        found = found.filter(submission__round__suite=reference.suite)
    return list(found.with_related().order_by(
        "submission__round__suite", "submission__organization__name", "system__name", "benchmark__name", "scenario"
    ))


@dataclass(frozen=True)
class Tombstone:
    """What anyone may still read of a result that was public and is gone."""

    result: Result  # its last published version: the figures, system, benchmark and version it had
    status: str  # ResultStatus.WITHDRAWN or REMOVED
    what: str  # "withdrawn by its organization", "removed by a review decision"
    gone_at: datetime
    reason: str  # the reason published with the change
    change: UUID  # the change's anchor in the change log (pages/changelog.py: the audit event's public_id)
    earlier: list[int]  # the earlier published versions, still readable as history


def _gone_versions():
    """Withdrawn and removed results of published versions of published rounds."""
    return Result.objects.filter(
        citable__status__in=list(GONE), submission__is_published=True, submission__round__state=RoundState.PUBLISHED,
    )


def tombstone(text: str) -> Tombstone | None:
    """The tombstone of the result `text` names: a published result later withdrawn by its
    organization or removed by a review decision. None for every other id, among them a result that
    was never public (withdrawn or removed before the round's publication, or of an embargoed round):
    its existence is not told."""
    result_id = _named_id(_gone_versions(), text)
    if result_id is None:
        return None
    versions = list(_gone_versions().filter(result_id=result_id).with_related().order_by("-submission__version"))
    last = versions[0]
    round_, status = last.submission.round, last.citable.status
    kind, what = GONE[status]
    event = (events_visible_to(None).filter(round=round_, result_id=result_id, kind=kind)
             .order_by("-created_at", "-pk").first())
    if event is None or (round_.publish_at is not None and event.created_at < round_.publish_at):
        return None  # gone before anyone could read it
    return Tombstone(
        result=last, status=status, what=what, gone_at=event.created_at, reason=event.reason, change=event.public_id,
        earlier=[v.submission.version for v in versions[1:] if not v.submission.is_current],
    )


def gone_version(result_id: str, version: int) -> Result | None:
    """Version `version` of a result that has a tombstone, where it was published and is not the
    current version: the history the tombstone links to (the current version is the tombstone)."""
    gone = tombstone(result_id)
    if gone is None or version not in gone.earlier:
        return None
    return _gone_versions().filter(result_id=gone.result.result_id, submission__version=version).with_related().first()


def entry_tombstones(text: str) -> list[Tombstone]:
    """The tombstones of the entry `text` names (entry_results' gone results)."""
    reference = entry_reference(text)
    if reference is None:
        return []
    gone = _gone_versions().filter(citable__entry=reference.entry)
    if reference.suite:
        gone = gone.filter(submission__round__suite=reference.suite)
    ids = gone.order_by("result_id").values_list("result_id", flat=True).distinct()
    return [found for found in (tombstone(result_id) for result_id in ids) if found is not None]
