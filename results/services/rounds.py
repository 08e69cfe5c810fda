"""Rounds: created from the ruleset catalog (training) or the inference rules, and published.
The lifecycle around publication (who moves a round, when) is review's (review/services.py)."""


from django.db import transaction
from django.utils import timezone

from audit import events
from mlperf_check.inference.rules import rules_for
from mlperf_check.rules.catalog import get_ruleset
from mlperf_check.rules.display import closed_hyperparameter_rules

from ..constants import MetricDirection, RoundState, Suite
from ..models import Benchmark, Round, Submission
from ..querysets import parse_round_slug


def ensure_round(slug: str) -> Round:
    """Get or create the round and its benchmarks from the ruleset catalog (training and HPC)."""
    suite, version = parse_round_slug(slug)
    if suite == Suite.INFERENCE:
        return ensure_inference_round(version)
    # An HPC round's rules are the package's hpc_* rulesets ("hpc-1.0" -> "hpc-1.0.0").
    spec = get_ruleset(f"hpc-{version}" if suite == Suite.HPC else version)
    with transaction.atomic():
        round_, _ = Round.objects.get_or_create(
            # An imported round takes results at once (a chair's round starts as a draft).
            suite=suite, version=version, defaults={"ruleset_version": spec.version, "state": RoundState.OPEN}
        )
        fill_benchmarks(round_)
    return round_

def fill_benchmarks(round_: Round) -> int:
    """Create or update the benchmarks of a training round from the catalog of its ruleset (an
    unknown ruleset raises UnknownRuleset); inference rounds from their rules. Returns how many."""
    if round_.suite == Suite.INFERENCE:
        return len(ensure_inference_round(round_.version).benchmarks.all())
    spec = get_ruleset(round_.ruleset_version or round_.version)
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


def ensure_inference_round(version: str) -> Round:
    """Get or create an inference round and one Benchmark per model of its rules (data)."""
    rules, _note = rules_for(version)
    with transaction.atomic():
        round_, _ = Round.objects.get_or_create(
            suite=Suite.INFERENCE, version=version, defaults={"ruleset_version": rules.version, "state": RoundState.OPEN}
        )
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
    return round_
