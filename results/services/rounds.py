"""Rounds: created from the rules of their suite (results/suites/: its rulesets and the
benchmarks they give a round), and published. The lifecycle around publication (who moves a round,
when) is review's (review/services/)."""

from __future__ import annotations

import re
from datetime import date

from django.db import transaction
from django.utils import timezone

from audit import events
from mlperf_check.errors import UnknownRules
from mlperf_check.rules.facts import version_key

from .. import suites
from ..constants import RoundState, Suite
from ..models import Round, Submission
from ..querysets import parse_round_slug


class UnknownRuleset(ValueError):
    """A ruleset the round's suite has no rules for (or another suite's): never guessed."""


def _round_version(ruleset: str) -> str:
    """'5.0.0', 'hpc-2.0.0', 'v5.0' -> '5.0': the round a ruleset is the rules of (a suite's
    prefix dropped)."""
    return ".".join(str(part) for part in version_key(re.sub(r"^[a-z]+-", "", ruleset).lstrip("v"))[:2])


def suite_rulesets(suite: str) -> dict[str, str]:
    """The rulesets a round of `suite` may take, newest first: name -> the round version it is the
    rules of (training "6.1.0" -> "6.1", HPC "hpc-2.0.0" -> "2.0", inference "v5.0" -> "5.0")."""
    if suite not in suites.SUITES:
        return {}
    return {name: _round_version(name) for name in reversed(suites.SUITES[suite].rulesets())}


def ruleset_of(suite: str, text: str) -> str:
    """The name of the ruleset of `suite` that `text` names: one of suite_rulesets(suite), spelled
    as listed or as a round version ("2.0" in an HPC round -> "hpc-2.0.0", "5.0" in an inference
    round -> "v5.0"). UnknownRuleset when the suite has no such rules, saying so when `text` is
    another suite's ruleset."""
    text = (text or "").strip()
    if suite not in suites.SUITES:
        raise UnknownRuleset(f"unknown suite {suite!r}: expected one of {', '.join(Suite.values)}")
    own = suite_rulesets(suite)
    if text in own:
        return text
    takes = f"{Suite(suite).label} rounds take one of {', '.join(own)}"
    other = next((name for name, candidate in suites.SUITES.items() if name != suite and candidate.claims(text)), None)
    if other is not None:
        raise UnknownRuleset(f"{text} is a ruleset of {Suite(other).label} rounds; {takes}")
    if not re.search(r"\d+\.\d+", text):
        raise UnknownRuleset(f"{text!r} names no ruleset; {takes}")
    try:
        return suites.SUITES[suite].ruleset_name(text)
    except UnknownRules as exc:
        raise UnknownRuleset(str(exc)) from exc  # it lists the suite's known rulesets


def ensure_round(slug: str) -> Round:
    """Get or create the round and its benchmarks from its suite's rules (the ruleset of its
    version); UnknownRuleset when the suite has no rules for that version."""
    suite, version = parse_round_slug(slug)
    ruleset = ruleset_of(suite, version)
    with transaction.atomic():
        round_, _ = Round.objects.get_or_create(
            # An imported round takes results at once (a chair's round starts as a draft).
            suite=suite, version=version, defaults={"ruleset_version": ruleset, "state": RoundState.OPEN}
        )
        fill_benchmarks(round_)
    return round_


def fill_benchmarks(round_: Round) -> int:
    """Create or update the benchmarks of a round from its ruleset (its version's when it names
    none), by its suite's rules; UnknownRuleset when there are none. Returns how many."""
    ruleset = ruleset_of(round_.suite, round_.ruleset_version or round_.version)
    return suites.of(round_).fill_benchmarks(round_, ruleset)


def publication_date(round_: Round) -> date | None:
    """The day MLCommons published the round's results, where known (each suite's `published`):
    what a round imported after the fact shows as its publication (never the day it was imported)."""
    return suites.of(round_).published.get(round_.version)


def publish_round(
    round_: Round, *, published_at=None, actor=None, reason: str = "", withheld: dict[int, str] | None = None
) -> bool:
    """Publish the round: each organization's current version becomes public. Exactly once: the
    round row is locked and a round already published is left alone (False). Withdrawn and
    removed results stay unpublished (ResultQuerySet.visible_to). `published_at`: the real
    publication date of a round imported after the fact. `withheld`: submission id -> why that
    version may not be published yet (a chair publishes it later with publish_version)."""
    withheld = withheld or {}
    with transaction.atomic():
        locked = Round.objects.select_for_update().get(pk=round_.pk)
        if locked.state == RoundState.PUBLISHED:
            if published_at and locked.publish_at != published_at:
                locked.publish_at = round_.publish_at = published_at
                locked.save(update_fields=["publish_at"])
            return False
        published = Submission.objects.filter(round=locked, is_current=True, written_at__isnull=False).exclude(
            pk__in=list(withheld)
        )
        versions = list(published.values_list("organization__name", "version"))
        published.update(is_published=True)
        previous = locked.state
        locked.state = RoundState.PUBLISHED
        # From now on publish_at is the date it was published, not the one planned.
        locked.publish_at = published_at or timezone.now()
        locked.save(update_fields=["state", "publish_at"])
        events.round_published(locked, actor=actor, reason=reason or "publication", previous=previous,
                               versions=[f"{org} v{version}" for org, version in versions], withheld=withheld)
    round_.state, round_.publish_at = locked.state, locked.publish_at
    return True
