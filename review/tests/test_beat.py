"""The publication task under a real Celery worker with embedded beat, restarted mid-way:
the round is published once."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from audit.models import AuditEvent
from ingest.tests.processes import RedisServer, Worker, database_url_of_test_db, wait_for
from ingest.tests.upload_fixtures import celery_broker
from results.models import Round

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def test_beat_publishes_at_publish_at_once_across_a_restart(world, tmp_path):
    round_ = world["round"]
    Round.objects.filter(pk=round_.pk).update(state="final", publish_at=timezone.now() + timedelta(seconds=3))
    server = RedisServer(tmp_path)
    server.start()
    workers = []
    try:
        with celery_broker(server.url):
            for _ in range(2):  # the second worker (and its beat) starts after the first is killed
                worker = Worker(tmp_path, server.url, database_url_of_test_db(), beat=True, queues="default")
                workers.append(worker)
                worker.start()
                wait_for(lambda: Round.objects.get(pk=round_.pk).state == "published", 30, "publication")
                wait_for(lambda worker=worker: worker.text().count("review.publish_due_rounds") >= 4, 30, "more beats")
                worker.kill9()
    finally:
        for worker in workers:
            worker.stop()
        server.stop()
    assert AuditEvent.objects.filter(kind="round.published").count() == 1
