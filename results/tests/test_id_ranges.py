"""A round's results and runs, for a list ordered by id, are read within the round's id range
(results.querysets._within_id_range), kept in the process while the round's submissions stay as
they were: never a row of the round left out, however its id compares with those read before."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from results.models import Result, Run

from .factories import make_org, make_result, make_round, make_run, make_submission, make_system

pytestmark = pytest.mark.django_db


def results_of(version: str = "1.0") -> list[int]:
    return sorted(Result.objects.in_round_within_its_ids("training", version).values_list("pk", flat=True))


def runs_of(version: str = "1.0") -> list[int]:
    return sorted(Run.objects.in_round_within_its_ids("training", version).values_list("pk", flat=True))


def test_only_the_rounds_rows_are_listed_with_those_of_rounds_around_it():
    before, round_, after = make_round("0.7"), make_round("1.0"), make_round("2.0")
    make_result(make_system(make_submission(before, make_org("Alpha")), "a"), "resnet")
    mine = [make_result(make_system(make_submission(round_, make_org(name)), "b"), "bert") for name in ("Beta", "Gamma")]
    make_result(make_system(make_submission(after, make_org("Delta")), "c"), "resnet")
    assert results_of() == sorted(result.pk for result in mine)
    assert runs_of() == sorted(Run.objects.filter(result__in=mine).values_list("pk", flat=True))
    assert len(runs_of()) == 10
    make_round("3.0")  # no submission yet
    assert results_of("3.0") == [] and runs_of("3.0") == []


def test_a_rounds_range_is_read_once_while_its_submissions_stay_as_they_were():
    round_ = make_round()
    make_result(make_system(make_submission(round_, make_org("Alpha")), "a"), "resnet")
    assert len(runs_of()) == 5
    with CaptureQueriesContext(connection) as kept:
        assert len(runs_of()) == 5
    assert len(kept) == 2  # the round's submissions, then the runs: the range is not read again
    make_result(make_system(make_submission(round_, make_org("Beta")), "b"), "bert")
    with CaptureQueriesContext(connection) as after_a_change:
        assert len(runs_of()) == 10
    assert len(after_a_change) == 3


def test_a_round_without_runs_is_kept_as_such():
    """An inference round has results and no runs: the runs of a benchmark it shares with training
    rounds are not looked for there at each request (one look per result: ~50 ms at 13,000)."""
    round_ = make_round()
    make_result(make_system(make_submission(round_, make_org("Alpha")), "a"), "resnet", runs=0)
    assert runs_of() == []
    with CaptureQueriesContext(connection) as kept:
        assert runs_of() == []
    assert len(kept) == 1


def test_rows_with_lower_ids_than_those_read_before_are_listed_once_written():
    """An import that took its ids before another import committed can commit after a request read
    the round's range: its rows lie below the range read, and a new written submission reads it
    again. The ids are taken by a submission and freed, as a transaction still running holds them."""
    round_ = make_round()
    late_org = make_org("Late")
    taken = make_result(make_system(make_submission(round_, late_org), "late"), "bert")
    taken_ids = taken.pk, sorted(taken.runs.values_list("pk", flat=True))
    taken.submission.delete()
    first = make_result(make_system(make_submission(round_, make_org("First")), "early"), "resnet")
    assert results_of() == [first.pk] and len(runs_of()) == 5

    late = make_result(make_system(make_submission(round_, late_org), "late"), "bert", runs=0, id=taken_ids[0])
    for index, run_id in enumerate(taken_ids[1]):
        make_run(late, index, 30.0, id=run_id)
    assert late.pk < first.pk
    assert results_of() == [late.pk, first.pk]
    assert runs_of() == sorted([*taken_ids[1], *first.runs.values_list("pk", flat=True)])
