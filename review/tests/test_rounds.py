"""Rounds from the first minute: a chair creates a round (page service or admin) with its
benchmarks from the ruleset catalog; ruleset changes are audited and end when review starts."""

from __future__ import annotations

import pytest

from audit.models import AuditEvent
from results.models import Benchmark, Round
from review import services
from review.services import ReviewRefused

pytestmark = pytest.mark.django_db


def test_a_chair_creates_a_round_with_the_catalogs_benchmarks(personas):
    with pytest.raises(ReviewRefused, match="only a chair"):
        services.create_round(personas["reviewer"], Round(suite="training", version="3.0", ruleset_version="3.0.0"),
                              "new")
    with pytest.raises(ReviewRefused, match="unknown training ruleset"):
        services.create_round(personas["chair"], Round(suite="training", version="9.9", ruleset_version="9.9.0"),
                              "new")
    round_ = services.create_round(personas["chair"], Round(suite="training", version="3.0",
                                                            ruleset_version="3.0.0"), "v3.0 opens")
    names = set(Benchmark.objects.filter(round=round_).values_list("name", flat=True))
    assert {"bert", "gpt3", "resnet"} <= names
    event = AuditEvent.objects.get(kind="round.created")
    assert event.data["benchmarks"] == len(names) and event.actor == personas["chair"]
    with pytest.raises(ReviewRefused, match="already exists"):
        services.create_round(personas["chair"], Round(suite="training", version="3.0", ruleset_version="3.0.0"),
                              "again")


def test_a_ruleset_change_is_audited_and_refused_once_review_starts(personas):
    round_ = services.create_round(personas["chair"], Round(suite="training", version="3.0",
                                                            ruleset_version="3.0.0"), "v3.0")
    services.change_ruleset(personas["chair"], round_, "3.1.0", "the 3.1 rules apply")
    assert round_.ruleset_version == "3.1.0"
    event = AuditEvent.objects.get(kind="round.ruleset_changed")
    assert (event.data["from"], event.data["to"], event.reason) == ("3.0.0", "3.1.0", "the 3.1 rules apply")
    services.move_round(personas["chair"], round_, "open", "open")
    services.move_round(personas["chair"], round_, "review", "deadline")
    with pytest.raises(ReviewRefused, match="fixed once review starts"):
        services.change_ruleset(personas["chair"], round_, "3.0.0", "back")


def test_a_round_created_in_the_admin_has_its_benchmarks(admin_client):
    response = admin_client.post("/admin/results/round/add/", {
        "suite": "training", "version": "4.0", "ruleset_version": "4.0",
        "benchmarks-TOTAL_FORMS": "0", "benchmarks-INITIAL_FORMS": "0",
    })
    assert response.status_code == 302, response.content.decode()[:2000]
    round_ = Round.objects.get(version="4.0")
    assert round_.ruleset_version == "4.0.0" and round_.benchmarks.filter(name="llama2_70b_lora").exists()
    assert AuditEvent.objects.filter(kind="round.created", round=round_).exists()
    response = admin_client.post(f"/admin/results/round/{round_.pk}/change/", {
        "suite": "training", "version": "4.0", "ruleset_version": "9.9",
        "benchmarks-TOTAL_FORMS": "0", "benchmarks-INITIAL_FORMS": "0",
    })
    assert response.status_code == 200 and "unknown training ruleset" in response.content.decode()


def test_a_chair_creates_a_round_from_the_pages(personas, client):
    client.force_login(personas["reviewer"])
    assert client.get("/review/rounds/new/").status_code == 403
    client.force_login(personas["chair"])
    assert "new-round-form" in client.get("/review/rounds/new/").content.decode()
    response = client.post("/review/rounds/new/", {
        "suite": "training", "version": "5.0", "ruleset_version": "4.1.0", "reason": "v5.0 opens",
        "submission_deadline": "2026-05-01T12:00", "publish_at": "",
    })
    assert response.status_code == 302 and response["Location"] == "/review/rounds/training-v5.0/"
    round_ = Round.objects.get(version="5.0")
    assert round_.ruleset_version == "4.1.0" and round_.benchmarks.exists()
    assert round_.submission_deadline.isoformat() == "2026-05-01T12:00:00+00:00"
    refused = client.post("/review/rounds/new/", {"suite": "training", "version": "5.0", "ruleset_version": "4.1.0",
                                                  "reason": "again"})
    assert refused.status_code == 409
