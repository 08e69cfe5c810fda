"""A round's life as chairs lead it: create it (benchmarks from its ruleset), change its ruleset,
move it along draft -> open -> review -> final -> published, set its dates, publish it when
publish_at comes (the beat task), publish a late fix, release a held version, assign reviewers."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from audit import events
from results.constants import RoundState, Suite
from results.models import Organization, Round, Submission
from results.querysets import RoundSlugError, parse_round_slug
from results.services import lifecycle
from results.services.lifecycle import ROUND_TRANSITIONS
from results.services.rounds import UnknownRuleset, fill_benchmarks, publish_round, ruleset_of

from ..models import ReviewerAssignment
from .access import (
    ReviewRefused,
    _lifecycle,
    _move,
    _refuse_conflict,
    _require_chair,
    _require_reason,
    is_reviewer,
)
from .borrowing import check_borrowings, withheld_versions
from .notifications import _notify_members, _notify_round


def create_round(actor, round_: Round, reason: str) -> Round:
    """A chair creates a round (an unsaved Round: suite, version, ruleset, dates) as a draft. Its
    ruleset is one of its suite's (results.services.rounds.suite_rulesets; none given: the one of
    its version) and its benchmarks come from it, so uploads to it have somewhere to go."""
    _require_chair(actor, "create a round")
    reason = _require_reason(reason)
    round_.version = (round_.version or "").strip()
    try:
        parse_round_slug(round_.slug)
    except RoundSlugError as exc:
        raise ReviewRefused(
            f"a round names its suite ({', '.join(Suite.values)}) and its version as two numbers, e.g. 5.0; "
            f"got {round_.suite or 'no suite'} {round_.version or 'no version'}", status=400) from exc
    if Round.objects.filter(suite=round_.suite, version=round_.version).exists():
        raise ReviewRefused(f"{round_.slug} already exists", status=409)
    round_.ruleset_version = _known_ruleset(round_.suite, round_.ruleset_version or round_.version)
    round_.state = RoundState.DRAFT
    with transaction.atomic():
        round_.save()
        count = fill_benchmarks(round_)
        events.round_created(round_, actor=actor, reason=reason, benchmarks=count)
    return round_


def change_ruleset(actor, round_: Round, ruleset_version: str, reason: str) -> Round:
    """A chair changes the ruleset of a round that takes no review yet (draft or open) to another
    of its suite's; its benchmarks follow the new ruleset (those the old one alone had stay, with
    whatever results they hold)."""
    _require_chair(actor, "change a round's ruleset")
    reason = _require_reason(reason)
    with transaction.atomic():
        locked = Round.objects.select_for_update().get(pk=round_.pk)
        if locked.state not in (RoundState.DRAFT, RoundState.OPEN):
            raise ReviewRefused(f"{locked} is {locked.state}: its ruleset is fixed once review starts", status=409)
        previous = locked.ruleset_version
        locked.ruleset_version = _known_ruleset(locked.suite, ruleset_version)
        if locked.ruleset_version == previous:
            return locked
        locked.save(update_fields=["ruleset_version"])
        count = fill_benchmarks(locked)
        events.round_ruleset_changed(locked, actor=actor, reason=reason, previous=previous, benchmarks=count)
    round_.refresh_from_db()
    return round_


def _known_ruleset(suite: str, text: str) -> str:
    """The ruleset of `suite` that `text` names, as its suite's rules name it (training 1.0 ->
    1.0.0, HPC 2.0 -> hpc-2.0.0, inference 5.0 -> v5.0); ReviewRefused when the suite has none
    (another suite's ruleset included)."""
    try:
        return ruleset_of(suite, text)
    except UnknownRuleset as exc:
        raise ReviewRefused(str(exc), status=400) from exc


def move_round(actor, round_: Round, to_state: str, reason: str) -> Round:
    """A chair moves the round one step along draft -> open -> review -> final -> published."""
    _require_chair(actor, "move a round")
    reason = _require_reason(reason)
    if to_state == RoundState.PUBLISHED:
        with transaction.atomic():
            locked = Round.objects.select_for_update().get(pk=round_.pk)
            _move(locked.state, to_state, ROUND_TRANSITIONS, f"round {locked}")
            publish_round(locked, actor=actor, reason=reason, withheld=withheld_versions(locked))
            _notify_round(locked, events.ROUND_PUBLISHED, f"{locked} is published.")
        round_.refresh_from_db()
        return round_
    with transaction.atomic():
        locked = Round.objects.select_for_update().get(pk=round_.pk)
        _move(locked.state, to_state, ROUND_TRANSITIONS, f"round {locked}")
        previous = locked.state
        locked.state = to_state
        locked.save(update_fields=["state"])
        events.round_state_changed(locked, actor=actor, reason=reason, previous=previous)
        _notify_round(locked, events.ROUND_STATE_CHANGED, f"{locked} is now {locked.get_state_display().lower()}.")
    round_.refresh_from_db()
    return round_


def set_round_dates(actor, round_: Round, reason: str, **dates) -> Round:
    """A chair sets submission_deadline, borrowing_deadline and/or publish_at."""
    _require_chair(actor, "set a round's dates")
    reason = _require_reason(reason)
    allowed = {"submission_deadline", "borrowing_deadline", "publish_at"}
    unknown = set(dates) - allowed
    if unknown:
        raise ReviewRefused(f"unknown round dates: {', '.join(sorted(unknown))}", status=400)
    with transaction.atomic():
        locked = Round.objects.select_for_update().get(pk=round_.pk)
        if locked.state == RoundState.PUBLISHED:
            raise ReviewRefused(f"{locked} is published; its dates are history", status=409)
        for name, value in dates.items():
            setattr(locked, name, value)
        locked.save(update_fields=list(dates))
        events.round_dates_changed(locked, actor=actor, reason=reason, dates=dates)
    round_.refresh_from_db()
    return round_


def publish_due_rounds(now=None) -> list[str]:
    """The beat task's work: publish every final round whose publish_at has come. Safe to run
    anywhere and often: publish_round publishes a round once, under its row lock."""
    now = now or timezone.now()
    published = []
    for round_ in Round.objects.filter(state=RoundState.FINAL, publish_at__lte=now):
        with transaction.atomic():
            if publish_round(round_, reason=f"publish_at {round_.publish_at:%Y-%m-%d %H:%M} UTC",
                             withheld=withheld_versions(round_)):
                _notify_round(round_, events.ROUND_PUBLISHED, f"{round_} is published.")
                published.append(round_.slug)
    return published


def publish_fix(actor, submission: Submission, reason: str) -> Submission:
    """A chair publishes a later version of one organization after the round's publication (a
    fix accepted late); it becomes that organization's current version. A withdrawn or removed
    result stays so in it (its citable id's status): only reinstate_result brings one back."""
    _require_chair(actor, "publish a version")
    _refuse_conflict(actor, submission.organization, "publish its versions")
    reason = _require_reason(reason)
    with transaction.atomic():
        locked = Submission.objects.select_for_update().select_related("round", "organization").get(pk=submission.pk)
        if not locked.round.is_published:
            raise ReviewRefused(f"{locked.round} is not published yet: publication publishes its current versions",
                                status=409)
        if locked.written_at is None:
            raise ReviewRefused(f"{locked} has not been ingested", status=409)
        if locked.is_published and locked.is_current:
            raise ReviewRefused(f"{locked} is already the published version", status=409)
        if locked.held_reason:
            raise ReviewRefused(f"{locked} is held ({locked.held_reason}): release it first", status=409)
        if locked.pk in withheld_versions(locked.round):
            raise ReviewRefused(withheld_versions(locked.round)[locked.pk], status=409)
        _lifecycle(lifecycle.publish_version, locked, actor=actor, reason=reason)
        _notify_members(locked.organization, events.VERSION_PUBLISHED,
                        f"Version {locked.version} of {locked.organization} in {locked.round} is published.")
    submission.refresh_from_db()
    return submission


def release_held_version(actor, submission: Submission, reason: str) -> Submission:
    """A chair of another organization decides that a held version (its files speak for another
    organization) may stand for its uploader: its results get their ids, it becomes current like
    any newest version (after the round's publication a chair then publishes it with publish_fix),
    and its declared borrowings are checked as at ingestion."""
    _require_chair(actor, "release a held version")
    _refuse_conflict(actor, submission.organization, "release its versions")
    reason = _require_reason(reason)
    with transaction.atomic():
        locked = Submission.objects.select_for_update().select_related("round", "organization").get(pk=submission.pk)
        if not locked.held_reason:
            raise ReviewRefused(f"{locked} is not held", status=409)
        _lifecycle(lifecycle.release_version, locked, actor=actor, reason=reason)
        check_borrowings(locked)
        _notify_members(locked.organization, events.VERSION_RELEASED,
                        f"Version {locked.version} of {locked.organization} in {locked.round} was released: {reason}")
    submission.refresh_from_db()
    return submission


def assign_reviewer(actor, round_: Round, reviewer, organization: Organization) -> ReviewerAssignment:
    _require_chair(actor, "assign reviewers")
    if organization is None:
        raise ReviewRefused("no such organization", status=400)
    if not is_reviewer(reviewer):
        raise ReviewRefused(f"{reviewer} is not a reviewer", status=400)
    _refuse_conflict(reviewer, organization, "review it")
    with transaction.atomic():
        assignment, created = ReviewerAssignment.objects.get_or_create(
            round=round_, reviewer=reviewer, organization=organization, defaults={"assigned_by": actor}
        )
        if created:
            events.reviewer_assigned(assignment, actor=actor)
    return assignment
