"""Rounds: created from the rules of their suite (the ruleset catalog for training and HPC, the
inference rules for inference), and published. The lifecycle around publication (who moves a round,
when) is review's (review/services.py)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date

from django.db import transaction
from django.utils import timezone

from audit import events
from mlperf_check.inference.rules import ROUNDS as INFERENCE_ROUNDS
from mlperf_check.inference.rules import UnknownRound, rules_for
from mlperf_check.rules import catalog
from mlperf_check.rules.display import closed_hyperparameter_rules
from mlperf_check.rules.facts import HPC_PREFIX, version_key

from ..constants import MetricDirection, RoundState, Suite
from ..models import Benchmark, Round, Submission
from ..querysets import parse_round_slug


class UnknownRuleset(ValueError):
    """A ruleset the round's suite has no rules for (or another suite's): never guessed."""


def _round_version(ruleset: str) -> str:
    """'5.0.0', 'hpc-2.0.0', 'v5.0' -> '5.0': the round a ruleset is the rules of."""
    return ".".join(str(part) for part in version_key(ruleset.removeprefix(HPC_PREFIX).lstrip("v"))[:2])


def _training_ruleset(text: str) -> str:
    return catalog.get_ruleset(text).version


def _hpc_ruleset(text: str) -> str:
    # A bare version in an HPC round names the HPC rules of that round ("2.0" -> "hpc-2.0.0").
    return catalog.get_ruleset(text if text.lower().startswith("hpc") else HPC_PREFIX + text).version


def _inference_ruleset(text: str) -> str:
    return rules_for(text)[0].version


def _fill_from_catalog(round_: Round, ruleset: str) -> int:
    """Training and HPC: one Benchmark per benchmark of the catalog's ruleset."""
    spec = catalog.get_ruleset(ruleset)
    for bench in spec.benchmarks.values():
        Benchmark.objects.update_or_create(
            round=round_,
            name=bench.name,
            defaults={
                "area": bench.area,
                "model": bench.model,
                "dataset": bench.dataset,
                "quality_metric": bench.metric,
                "metric_direction": MetricDirection(bench.direction),
                "quality_target": bench.target,
                "quality_targets": bench.targets,
                "quality_rule": bench.quality_rule,
                "closed_hyperparameter_rules": closed_hyperparameter_rules(spec.version, bench.name)
                if spec.config_dir
                else [],
                "required_runs": bench.required_runs,
                "olympic_drop": bench.olympic_drop,
                "init_time_limit_closed_s": spec.init_limit_closed_s,
                "init_time_limit_open_s": spec.init_limit_open_s,
            },
        )
    return len(spec.benchmarks)


def _fill_from_inference_rules(round_: Round, ruleset: str) -> int:
    """Inference: one Benchmark per model of the round's rules (data)."""
    rules, _note = rules_for(ruleset)
    for model in rules.models.values():
        Benchmark.objects.update_or_create(
            round=round_,
            name=model.name,
            defaults={
                "area": "inference",
                "quality_metric": model.accuracy.kind,
                "metric_direction": MetricDirection.HIGHER,
                "quality_target": model.accuracy.target,
                "required_runs": 1,
                "olympic_drop": 0,
            },
        )
    return len(rules.models)


@dataclass(frozen=True)
class SuiteRules:
    """Where the rules of a suite's rounds come from."""

    rulesets: Callable[[], tuple[str, ...]]  # the names the project has rules for, oldest first
    name_of: Callable[[str], str]  # a name or round version as typed -> the ruleset's name; raises
    fill: Callable[[Round, str], int]  # a round's benchmarks from a ruleset; returns how many


SUITE_RULES: dict[str, SuiteRules] = {
    Suite.TRAINING: SuiteRules(catalog.known_rulesets, _training_ruleset, _fill_from_catalog),
    Suite.HPC: SuiteRules(catalog.known_hpc_rulesets, _hpc_ruleset, _fill_from_catalog),
    Suite.INFERENCE: SuiteRules(lambda: tuple(sorted(INFERENCE_ROUNDS, key=version_key)), _inference_ruleset,
                                _fill_from_inference_rules),
}


def suite_rulesets(suite: str) -> dict[str, str]:
    """The rulesets a round of `suite` may take, newest first: name -> the round version it is the
    rules of (training "6.1.0" -> "6.1", HPC "hpc-2.0.0" -> "2.0", inference "v5.0" -> "5.0")."""
    if suite not in SUITE_RULES:
        return {}
    return {name: _round_version(name) for name in reversed(SUITE_RULES[suite].rulesets())}


def ruleset_of(suite: str, text: str) -> str:
    """The name of the ruleset of `suite` that `text` names: one of suite_rulesets(suite), spelled
    as listed or as a round version ("2.0" in an HPC round -> "hpc-2.0.0", "5.0" in an inference
    round -> "v5.0"). UnknownRuleset when the suite has no such rules, saying so when `text` is
    another suite's ruleset."""
    text = (text or "").strip()
    if suite not in SUITE_RULES:
        raise UnknownRuleset(f"unknown suite {suite!r}: expected one of {', '.join(Suite.values)}")
    own = suite_rulesets(suite)
    if text in own:
        return text
    takes = f"{Suite(suite).label} rounds take one of {', '.join(own)}"
    other = next((name for name in SUITE_RULES if name != suite and text in suite_rulesets(name)), None)
    if other is None and suite != Suite.HPC and text.lower().startswith("hpc"):
        other = Suite.HPC
    if other is not None:
        raise UnknownRuleset(f"{text} is a ruleset of {Suite(other).label} rounds; {takes}")
    if not re.search(r"\d+\.\d+", text):
        raise UnknownRuleset(f"{text!r} names no ruleset; {takes}")
    try:
        return SUITE_RULES[suite].name_of(text)
    except (catalog.UnknownRuleset, UnknownRound) as exc:
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
    return SUITE_RULES[round_.suite].fill(round_, ruleset)


# The days MLCommons published each inference round's results (the press release announcing them;
# v4.1: the day inference_results_v4.1 was published, ../shared/corpus/inference/reference/README.md).
# The training and HPC rounds' days are in the ruleset catalog (mlperf_check/rules/catalog.py).
INFERENCE_ROUND_PUBLISHED: dict[str, date] = {
    "0.5": date(2019, 11, 6),
    "0.7": date(2020, 10, 21),
    "1.0": date(2021, 4, 21),
    "1.1": date(2021, 9, 22),
    "2.0": date(2022, 4, 6),
    "2.1": date(2022, 9, 8),
    "3.0": date(2023, 4, 5),
    "3.1": date(2023, 9, 11),
    "4.0": date(2024, 3, 27),
    "4.1": date(2024, 8, 28),
    "5.0": date(2025, 4, 2),
    "5.1": date(2025, 9, 9),
    "6.0": date(2026, 4, 1),
}
PUBLISHED_BY_SUITE: dict[str, dict[str, date]] = {
    Suite.TRAINING: catalog.ROUND_PUBLISHED, Suite.HPC: catalog.HPC_ROUND_PUBLISHED,
    Suite.INFERENCE: INFERENCE_ROUND_PUBLISHED,
}


def publication_date(round_: Round) -> date | None:
    """The day MLCommons published the round's results, where known: what a round imported after
    the fact shows as its publication (never the day it was imported)."""
    return PUBLISHED_BY_SUITE.get(round_.suite, {}).get(round_.version)


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
