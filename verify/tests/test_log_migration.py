"""verify 0002 moves each stored job log into chunks with its running totals, and back."""

from __future__ import annotations

import io

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from results import logs
from results.tests.factories import make_org, make_result, make_round, make_submission, make_system
from verify.models import VerificationJob
from verify.tests.world import stored_log

# Forward to the newest migration: the model the test reads through is the current one.
BEFORE, AFTER = [("verify", "0001_verify_jobs")], [("verify", "0004_server_judges_the_workers_evidence")]


def migrate(target):
    executor = MigrationExecutor(connection)
    executor.migrate(target)
    return executor.loader.project_state(target).apps


@pytest.mark.django_db(transaction=True)
def test_stored_logs_become_chunks_and_back():
    round_ = make_round()
    result = make_result(make_system(make_submission(round_, make_org())), "resnet")
    text = "".join(f"line {n} {'é' * (n % 50)}\n" for n in range(40_000)) + "unfinished"
    old = migrate(BEFORE).get_model("verify", "VerificationJob")
    common = dict(result_id=result.pk, runs_requested=1, tolerance=0.05)
    with_log = old.objects.create(log=text, **common).pk
    empty = old.objects.create(**common).pk
    try:
        migrate(AFTER)
        job = VerificationJob.objects.get(pk=with_log)
        assert stored_log(job) == text and job.log_chunks.count() > 1
        assert (job.log_chars, job.log_newlines, job.log_lines) == (len(text), 40_000, 40_001)
        assert job.log_page(20) == logs.read_page(io.BytesIO(text.encode()), 20)
        assert VerificationJob.objects.get(pk=empty).log_lines == 0
        old = migrate(BEFORE).get_model("verify", "VerificationJob")
        assert old.objects.get(pk=with_log).log == text and old.objects.get(pk=empty).log == ""
    finally:
        migrate(AFTER)
