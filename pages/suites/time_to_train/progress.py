"""A training or HPC suite's progress across its rounds: the best time per benchmark and round
(closed division), the speedup at a fixed scale and the newest round against the one before."""

from __future__ import annotations

from django.db.models import F, Window
from django.db.models.functions import RowNumber

from pages.caching import round_figures
from pages.charts import Chart
from results.models import Benchmark, Result, Round

from . import charts

FIXED_SCALE = 8  # accelerators; the round-over-round speedup compares the best entries at this scale


def progress_charts(user, suite: str, **words) -> list[Chart]:
    """Progress across the suite's rounds (closed division): the best time per benchmark and
    round, the speedup at FIXED_SCALE accelerators, the fastest entry's scale, and the newest
    round against the one before ("headlines"). HPC uses it for its time to solution, `words`
    naming it (charts.round_over_round's measure and minutes_axis)."""
    rounds = list(Round.objects.visible_to(user).filter(suite=suite))
    # Which results are the fastest is kept per round (pages.caching.round_figures); what the
    # charts show of them (names) is read afresh.
    fastest = round_figures(user, "fastest", rounds, _fastest_of_rounds)
    overall = [pk for round_ in rounds for pk in fastest[round_.pk]["overall"]]
    at_scale = [pk for round_ in rounds for pk in fastest[round_.pk]["at_scale"]]
    entry = _entries(overall + at_scale)
    entries = [entry[pk] for pk in overall + at_scale]
    targets = [
        {"round": b["round__version"], "benchmark": b["name"], "target": b["quality_target"]}
        for b in Benchmark.objects.filter(round__in=rounds).values("round__version", "name", "quality_target")
    ]
    return [*charts.round_over_round(entries, targets, FIXED_SCALE, **words), charts.headlines(entries, targets, **words)]


def _fastest_of_rounds(user, rounds) -> dict[int, dict[str, list[int]]]:
    """Each round's fastest closed result per benchmark, overall and at FIXED_SCALE (result pks):
    the database picks them (a full suite is 100,000 results; reading them all cost a second)."""
    closed = (Result.objects.visible_to(user).current()
              .filter(submission__round__in=rounds, division="closed", score_minutes__isnull=False))
    fastest = {round_.pk: {"overall": [], "at_scale": []} for round_ in rounds}
    for kind, results in (("overall", closed), ("at_scale", closed.filter(system__accelerators_count=FIXED_SCALE))):
        for round_pk, pk in _fastest(results):
            fastest[round_pk][kind].append(pk)
    return fastest


def _fastest(results) -> list[tuple[int, int]]:
    """The fastest of `results` per benchmark (a benchmark is one round's; a tie goes to the lowest
    result id), as (round pk, result pk) in result id order."""
    ranked = results.order_by().annotate(place=Window(
        RowNumber(), partition_by=[F("benchmark_id")], order_by=[F("score_minutes").asc(), F("result_id").asc()],
    ))
    return list(ranked.filter(place=1).order_by("result_id").values_list("submission__round", "pk"))


def _entries(pks: list[int]) -> dict[int, dict]:
    """The charts' entry of each result of `pks`, by pk."""
    return {
        row["pk"]: {"round": row["submission__round__version"], "benchmark": row["benchmark__name"],
                    "minutes": row["score_minutes"], "accelerators": row["system__accelerators_count"],
                    "system": row["system__name"], "submitter": row["submission__organization__name"],
                    "result_id": row["result_id"]}
        for row in Result.objects.filter(pk__in=pks).order_by().values(
            "pk", "submission__round__version", "benchmark__name", "score_minutes", "system__accelerators_count",
            "system__name", "submission__organization__name", "result_id")
    }
