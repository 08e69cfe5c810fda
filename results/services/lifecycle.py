"""The lifecycle of a round, of a citable result and of a submission version (docs/lifecycle.md):
the transition tables, and the only functions that move a citable result or a version from one
state to another. Each checks its move against its table (TransitionRefused otherwise) and writes
its audit event (audit/events.py) in the transaction of the change. Who may ask for a move is the
callers' to check: review.services for people's decisions, the imports and ingestion for versions.

* A round moves along ROUND_TRANSITIONS (review.services.move_round; rounds.publish_round makes
  the current versions public).
* A citable result (CitableId.status) moves along RESULT_TRANSITIONS. Its status is the result's
  in every version, so no version written, released, made current or published later changes it:
  a withdrawn or removed result is public again only through reinstate_result.
* A version's state is derived from its row (results.states.version_state) and moves along
  VERSION_TRANSITIONS. A version gets its result ids when it is admitted, never while held.
"""

from __future__ import annotations

from django.db import transaction

from audit import events
from mlperf_check.checkers.uploader import LOG_ORG_NOT_UPLOADER, SYSTEM_SUBMITTER_NOT_UPLOADER

from ..constants import ResultStatus, RoundState
from ..models import CitableId, Organization, Result, Round, Submission
from ..states import VersionState, version_state
from .citable import assign_result_ids
from .versions import touch_submissions

ROUND_TRANSITIONS = {
    RoundState.DRAFT: {RoundState.OPEN},
    RoundState.OPEN: {RoundState.REVIEW},
    RoundState.REVIEW: {RoundState.FINAL},
    RoundState.FINAL: {RoundState.PUBLISHED},
    RoundState.PUBLISHED: set(),
}
RESULT_TRANSITIONS = {
    ResultStatus.ACTIVE: {ResultStatus.WITHDRAWN, ResultStatus.REMOVED},
    # A review decision outranks its organization's withdrawal; a chair reinstates either.
    ResultStatus.WITHDRAWN: {ResultStatus.REMOVED, ResultStatus.ACTIVE},
    ResultStatus.REMOVED: {ResultStatus.ACTIVE},
}
VERSION_TRANSITIONS = {
    VersionState.RECEIVED: {VersionState.WRITTEN},  # its rows written (an import, an ingestion job)
    VersionState.WRITTEN: {VersionState.HELD, VersionState.CURRENT, VersionState.PUBLISHED},
    VersionState.HELD: {VersionState.WRITTEN},  # released by a chair
    VersionState.CURRENT: {VersionState.WRITTEN, VersionState.PUBLISHED},  # another made current; publication
    VersionState.PUBLISHED: {VersionState.SUPERSEDED},  # another version published
    VersionState.SUPERSEDED: {VersionState.PUBLISHED},  # a chair publishes it again
}
# The uploader checker's codes (mlperf_check.checkers.uploader): files that name another
# organization than the one uploading them.
SPEAKS_FOR_ANOTHER = (SYSTEM_SUBMITTER_NOT_UPLOADER, LOG_ORG_NOT_UPLOADER)


class TransitionRefused(Exception):
    """The move is not one of the lifecycle's: the message says from where to where, and why."""


def check_transition(table: dict, current: str, wanted: str, what: str) -> None:
    if wanted not in table.get(current, set()):
        raise TransitionRefused(f"{what} cannot go from {current} to {wanted}")


def _check_version(submission: Submission, wanted: str) -> None:
    check_transition(VERSION_TRANSITIONS, version_state(submission), wanted, f"version {submission.version}")


# --- Versions ------------------------------------------------------------------------------------


def admit_written_version(submission: Submission, *, official: dict[int, str] | None = None) -> bool:
    """Just after a version's rows are written (the imports' write functions call it, in their
    transaction): hold it when its files speak for another organization than its uploader (the
    uploader checker's errors, unless a decision waived them), else register its result ids
    (`official`: MLCommons' entries by result pk). A held version is never made current nor
    published until a chair releases it, and registers no id meanwhile: its results carry only
    the ids they already had in earlier versions. True when held."""
    foreign = submission.findings.filter(code__in=SPEAKS_FOR_ANOTHER).not_waived().count()
    if not foreign:
        assign_result_ids(submission, official=official)
        return False
    _check_version(submission, VersionState.HELD)
    # The fact only: each page that shows it says what comes next to its reader.
    submission.held_reason = f"{foreign} file(s) speak for another organization than {submission.organization}"
    Submission.objects.filter(pk=submission.pk).update(held_reason=submission.held_reason)
    assign_result_ids(submission, register=False)
    events.version_held(submission)
    return True


def release_version(submission: Submission, *, actor, reason: str) -> bool:
    """A chair's decision that a held version may stand for its uploader: its results get their
    ids (registered now) and it becomes current like any newest version (after the round's
    publication it waits for a chair to publish it, publish_version). True when it is current."""
    with transaction.atomic():
        locked = Submission.objects.select_for_update().select_related("round", "organization").get(pk=submission.pk)
        _check_version(locked, VersionState.WRITTEN)
        held, locked.held_reason = locked.held_reason, ""
        locked.save(update_fields=["held_reason", "updated_at"])
        assign_result_ids(locked)
        events.version_released(locked, actor=actor, reason=reason, held=held)
        current = make_current(locked)
    submission.held_reason, submission.is_current = "", locked.is_current
    return current


def make_current(submission: Submission) -> bool:
    """Make the newest admitted version of an organization's submission the current one; an older
    version finishing late is not, nor a held one. True when `submission` is now current.

    Once the round is published the public tables show the published version: a later version
    (a fix) stays non-current until a chair publishes it (publish_version)."""
    with transaction.atomic():
        # The organization row lock orders this with new_version() and publish_version().
        Organization.objects.select_for_update().get(pk=submission.organization_id)
        if Round.objects.get(pk=submission.round_id).is_published:
            return False
        versions = Submission.objects.filter(round=submission.round_id, organization=submission.organization_id)
        fresh = versions.get(pk=submission.pk)
        if fresh.held_reason:
            return False  # a chair decides first (release_version)
        if fresh.is_current:
            return True  # nothing to switch
        if versions.filter(version__gt=fresh.version, written_at__isnull=False, held_reason="").exists():
            return False
        _check_version(fresh, VersionState.CURRENT)
        _switch_current(fresh)
        events.version_switched(fresh)
    submission.is_current = True
    return True


def publish_version(submission: Submission, *, actor=None, reason: str = "") -> None:
    """Publish one version and make it its organization's current one: how a chair publishes a
    fix accepted after the round's publication (and how an import publishes what it imports).
    Never a held version. The event names the version the public saw before (the change log's
    "before"), which is the published current one, whatever versions were uploaded between."""
    with transaction.atomic():
        Organization.objects.select_for_update().get(pk=submission.organization_id)
        versions = Submission.objects.filter(round=submission.round_id, organization=submission.organization_id)
        fresh = versions.get(pk=submission.pk)
        _check_version(fresh, VersionState.PUBLISHED)
        previous = versions.filter(is_current=True, is_published=True).values_list("version", flat=True).first()
        Submission.objects.filter(pk=fresh.pk).update(is_published=True)
        fresh.is_published = True
        _switch_current(fresh)
        events.version_published(fresh, actor=actor, reason=reason or "published", previous=previous)
    submission.is_current = submission.is_published = True


def _switch_current(submission: Submission) -> None:
    """Make `submission` its organization's current version; the versions are stamped, so that
    cached pages and API answers built before (the page cache keys on the newest stamp) are stale
    at once: which version is current, and published, changes what the public sees."""
    versions = Submission.objects.filter(round=submission.round_id, organization=submission.organization_id)
    versions.exclude(pk=submission.pk).update(is_current=False)
    versions.filter(pk=submission.pk).update(is_current=True)
    touch_submissions(versions)
    submission.is_current = True


# --- Citable results -----------------------------------------------------------------------------


def withdraw_result(result: Result, *, actor, reason: str) -> Result:
    """Its organization withdraws the result (at once before publication, on a chair's approval
    after): gone from every public page and answer, in every version, later ones included."""
    return _set_status(result, ResultStatus.WITHDRAWN, events.result_withdrawn, actor=actor, reason=reason)


def remove_result(result: Result, *, actor, reason: str) -> Result:
    """A review decision (an objection resolved "removed") removes the result, in every version."""
    return _set_status(result, ResultStatus.REMOVED, events.result_removed, actor=actor, reason=reason)


def reinstate_result(result: Result, *, actor, reason: str) -> Result:
    """A chair's decision that a withdrawn or removed result stands again: the only way back."""
    return _set_status(result, ResultStatus.ACTIVE, events.result_reinstated, actor=actor, reason=reason)


def _set_status(result: Result, wanted: str, record, *, actor, reason: str) -> Result:
    """Move the citable result to `wanted`, stamp every version of it (cached pages and API answers
    showing it are stale at once) and record the event on the version shown (the current one, else
    the newest). Returns that version."""
    if result.citable_id is None:
        raise TransitionRefused("this result has no id yet: its version is held for a chair")
    with transaction.atomic():
        citable = CitableId.objects.select_for_update().get(pk=result.citable_id)
        previous = citable.status
        check_transition(RESULT_TRANSITIONS, previous, wanted, f"result {citable.result_id}")
        citable.status = wanted
        citable.save(update_fields=["status"])
        every_version = Result.objects.filter(citable=citable)
        touch_submissions(Submission.objects.filter(pk__in=every_version.values("submission")))
        shown = every_version.citable(citable.result_id).select_related("submission__round").first()
        shown.citable = citable
        record(shown, actor=actor, reason=reason, previous=previous)
    result.citable = citable
    return shown
