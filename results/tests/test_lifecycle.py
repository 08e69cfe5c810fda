"""One state machine for a result and a round (issue 34, docs/lifecycle.md): withdrawn and removed
are states of the citable result, so no later version brings one back; only a chair's
reinstatement does, and the change log says so; the change log names published versions only; a
held version registers no result id."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from audit.models import AuditEvent
from pages.changelog import public_changes
from results.models import CitableId, Result, Round, Submission
from results.services.lifecycle import TransitionRefused, make_current, release_version, withdraw_result
from results.tests.factories import make_round
from results.tests.synthetic import ingest_synthetic, synthetic_package
from review import services
from review.services import ReviewRefused

pytestmark = pytest.mark.django_db

DELL_SYSTEMS = {"dell-xe8545": ["bert", "resnet"]}


def upload(round_, personas, org: str = "alpha", systems=None, **package) -> Submission:
    organization = personas[org]
    report = synthetic_package(organization, systems or DELL_SYSTEMS, **package)
    return ingest_synthetic(round_, organization, report, uploaded_by=personas["owner" if org == "alpha" else "outsider"])


@pytest.fixture
def published(personas):
    """training-v1.1, published with Alpha's version 1 (bert and resnet on one system) and Beta's."""
    round_ = make_round("1.1", state="open", benchmarks=("bert", "resnet"))
    upload(round_, personas)
    upload(round_, personas, "beta", {"beta-pod": ["bert"]})
    for state in ("review", "final", "published"):
        services.move_round(personas["chair"], round_, state, "on schedule")
    return Round.objects.get(pk=round_.pk)


def resubmission_window(round_, personas) -> None:
    services.grant_resubmission_window(personas["chair"], round_, personas["alpha"],
                                       timezone.now() + timedelta(days=7), "a late fix")


def alpha_bert(submission=None) -> Result:
    found = Result.objects.filter(benchmark__name="bert", submission__organization__slug="alpha")
    return (found.filter(submission=submission) if submission else found.filter(submission__version=1)).get()


def test_a_withdrawn_result_stays_withdrawn_when_a_later_version_is_published(client, personas, published):
    """The issue's path: withdrawn (approved), then a fix uploaded in a window and published."""
    bert = alpha_bert()
    result_id = bert.result_id
    request = services.withdraw_result(personas["owner"], bert, "the node count was misreported")
    services.decide_withdrawal(personas["chair"], request, True, "approved")
    assert client.get(f"/results/{result_id}/").status_code != 200

    resubmission_window(published, personas)
    fix = upload(published, personas, minutes=25.0)
    assert alpha_bert(fix).result_id == result_id  # the same citable result, in a new row
    services.publish_fix(personas["chair"], fix, "system description corrected")

    for address in (f"/results/{result_id}/", f"/api/v1/results/{result_id}/"):
        assert client.get(address).status_code != 200, address
    assert result_id not in client.get(f"/rounds/{published.slug}/").content.decode()
    assert not Result.objects.visible_to(None).filter(result_id=result_id).exists()
    assert alpha_bert(fix).status == "withdrawn"
    assert [c.kind for c in public_changes(published) if c.result_id == result_id] == ["result.withdrawn"]

    # Only a chair's reinstatement brings it back, in its current (published) version; the log says so.
    services.reinstate_result(personas["chair"], alpha_bert(fix), "the recall was cancelled")
    page = client.get(f"/results/{result_id}/")
    assert page.status_code == 200 and page.context["result"].submission_id == fix.pk
    change = next(c for c in public_changes(published) if c.kind == "result.reinstated")
    assert (change.label, change.before, change.after, change.reason) == (
        "Reinstatement", "withdrawn", "published", "the recall was cancelled")
    html = client.get(f"/rounds/{published.slug}/changes/").content.decode()
    assert "Reinstatement" in html and "the recall was cancelled" in html


def test_the_change_log_names_the_version_published_before_never_a_held_or_unpublished_one(personas, published):
    resubmission_window(published, personas)
    upload(published, personas)  # version 2: ingested, never published
    held = upload(published, personas, speaks_for="NVIDIA")  # version 3: held for a chair
    assert held.held_reason and held.version == 3
    fix = upload(published, personas)  # version 4
    services.publish_fix(personas["chair"], fix, "a late fix")
    (change,) = [c for c in public_changes(published) if c.kind == "version.published"]
    assert (change.before, change.after) == ("version 1", "version 4")
    event = AuditEvent.objects.get(kind="version.published")
    assert event.data == {"version": 4, "previous": 1}


def test_a_removal_by_review_holds_for_every_later_version(client, personas):
    round_ = make_round("1.1", state="open", benchmarks=("bert", "resnet"))
    upload(round_, personas)
    services.move_round(personas["chair"], round_, "review", "deadline")
    bert = alpha_bert()
    objection = services.file_objection(personas["reviewer"], rule="closed division", evidence="wrong optimizer",
                                        result=bert)
    services.answer_objection(personas["owner"], objection, "we disagree")
    services.resolve_objection(personas["chair"], objection, "removed", "the optimizer is not allowed")

    resubmission_window(round_, personas)
    again = upload(round_, personas, minutes=20.0)
    services.move_round(personas["chair"], round_, "final", "frozen")
    services.move_round(personas["chair"], round_, "published", "on time")
    assert client.get(f"/results/{bert.result_id}/").status_code != 200
    resnet = Result.objects.get(submission=again, benchmark__name="resnet")
    assert client.get(f"/results/{resnet.result_id}/").status_code == 200
    assert Submission.objects.get(pk=again.pk).is_published and alpha_bert(again).status == "removed"
    assert AuditEvent.objects.filter(kind="result.removed", result_id=bert.result_id).exists()


def test_reinstatement_is_a_chairs_decision_with_a_reason_on_the_results_review_page(client, personas, published):
    bert = alpha_bert()
    services.decide_withdrawal(personas["chair"], services.withdraw_result(personas["owner"], bert, "recalled"), True,
                               "approved")
    page = f"/review/results/{bert.result_id}/"
    offered = {}
    for who in ("owner", "outsider", "reviewer", "chair"):
        client.force_login(personas[who])
        offered[who] = 'id="reinstate-form"' in client.get(page).content.decode()
    assert offered == {"owner": False, "outsider": False, "reviewer": False, "chair": True}

    client.force_login(personas["owner"])
    assert client.post(f"{page}reinstate/", {"reason": "ours"}).status_code == 403
    client.force_login(personas["chair"])
    assert client.post(f"{page}reinstate/", {"reason": ""}).status_code == 400
    assert client.post(f"{page}reinstate/", {"reason": "the recall was cancelled"}).status_code == 302
    assert Result.objects.visible_to(None).filter(result_id=bert.result_id).exists()
    event = AuditEvent.objects.get(kind="result.reinstated")
    assert (event.actor, event.data) == (personas["chair"], {"from": "withdrawn", "to": "active"})
    assert client.post(f"{page}reinstate/", {"reason": "again"}).status_code == 409  # active: nothing to reinstate
    personas["alpha"].members.add(personas["chair"])
    with pytest.raises(ReviewRefused, match="conflict of interest"):
        services.reinstate_result(personas["chair"], bert, "ours")


def test_a_held_version_registers_no_id_until_a_chair_releases_it(personas):
    round_ = make_round("1.1", state="open", benchmarks=("bert", "resnet"))
    upload(round_, personas)  # version 1: dell-xe8545 bert and resnet have their ids
    registered = set(CitableId.objects.values_list("result_id", flat=True))
    next_number = Round.objects.get(pk=round_.pk).next_result_number

    held = upload(round_, personas, systems={"dell-xe8545": ["bert"], "nv-dgx": ["bert", "resnet"]},
                  speaks_for="NVIDIA")
    assert held.held_reason and not held.is_current
    assert set(CitableId.objects.values_list("result_id", flat=True)) == registered
    assert Round.objects.get(pk=round_.pk).next_result_number == next_number
    ids = dict(Result.objects.filter(submission=held).values_list("system__system_id", "result_id"))
    assert ids == {"dell-xe8545": alpha_bert().result_id, "nv-dgx": ""}  # known ids only
    with pytest.raises(TransitionRefused, match="held"):
        withdraw_result(Result.objects.get(submission=held, system__system_id="nv-dgx", benchmark__name="bert"),
                        actor=None, reason="no id to withdraw")

    services.release_held_version(personas["chair"], held, "NVIDIA is the partner named in the contract")
    held.refresh_from_db()
    assert held.is_current and not held.held_reason
    assert CitableId.objects.count() == len(registered) + 2
    assert not Result.objects.filter(submission=held, result_id="").exists()


def test_a_newer_held_version_does_not_keep_a_released_one_from_being_current(personas):
    round_ = make_round("1.1", state="open", benchmarks=("bert", "resnet"))
    first = upload(round_, personas)
    second = upload(round_, personas, speaks_for="NVIDIA")
    third = upload(round_, personas, speaks_for="NVIDIA")
    assert first.is_current and second.held_reason and third.held_reason
    assert release_version(second, actor=personas["chair"], reason="a partner's system")
    assert Submission.objects.get(pk=second.pk).is_current and not Submission.objects.get(pk=first.pk).is_current
    assert make_current(third) is False  # still held


def test_a_published_correction_is_seen_at_once_by_cached_anonymous_pages(client, personas, published):
    """Found by the lifecycle machine: publishing a fix swapped the current version without anything
    the page cache keys on, so anonymous pages and API answers kept the old figures."""
    resubmission_window(published, personas)
    fix = upload(published, personas, minutes=25.0)  # waits for a chair: the public sees version 1
    listed = f"/api/v1/results/?round={published.slug}&organization=alpha"
    scores = {r["benchmark"]: r["score_minutes"] for r in client.get(listed).json()["results"]}
    assert scores == {"bert": 30.0, "resnet": 30.0}  # now cached
    services.publish_fix(personas["chair"], fix, "a late fix")
    scores = {r["benchmark"]: r["score_minutes"] for r in client.get(listed).json()["results"]}
    assert scores == {"bert": 25.0, "resnet": 25.0}


@pytest.mark.django_db(transaction=True)
def test_the_migration_moves_each_status_to_its_citable_id_and_back():
    """results 0014: a citable id takes the status any version had (a version still active is one
    written after the withdrawal: the defect); going back, every version gets it."""
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    before, after = [("results", "0013_inference_two_verdicts")], [("results", "0014_result_status_on_citable_id")]

    def migrate(target):
        executor = MigrationExecutor(connection)
        executor.migrate(target)
        return executor.loader.project_state(target).apps

    old = migrate(before)
    Round_, Organization, Submission_, System, Benchmark, Citable, Result_ = (
        old.get_model("results", name)
        for name in ("Round", "Organization", "Submission", "System", "Benchmark", "CitableId", "Result")
    )
    try:
        round_ = Round_.objects.create(version="9.9", ruleset_version="9.9.0", state="published")
        org = Organization.objects.create(name="Old Org", slug="old-org")
        benchmark = Benchmark.objects.create(round=round_, name="bert")
        statuses = {"withdrawn": ["withdrawn", "active"], "removed": ["removed"], "active": ["active", "active"]}
        for name, versions in statuses.items():
            citable = Citable.objects.create(result_id=f"training:9.9-{name}:bert", round=round_, organization=org,
                                             system_id=name, benchmark="bert")
            for number, status in enumerate(versions, start=1):
                submission, _ = Submission_.objects.get_or_create(round=round_, organization=org, version=number,
                                                                  defaults={"sha256": f"{number:064x}"})
                system = System.objects.create(submission=submission, system_id=name, name=name, description={})
                Result_.objects.create(submission=submission, system=system, benchmark=benchmark, folder=name,
                                       result_id=citable.result_id, citable=citable, status=status)
        migrate(after)
        assert dict(CitableId.objects.filter(round__version="9.9").values_list("system_id", "status")) == {
            "withdrawn": "withdrawn", "removed": "removed", "active": "active"}
        old = migrate(before)
        back = old.get_model("results", "Result").objects.filter(submission__round__version="9.9")
        assert sorted(back.values_list("system__system_id", "status")) == sorted(
            [("withdrawn", "withdrawn")] * 2 + [("removed", "removed")] + [("active", "active")] * 2)
    finally:
        migrate(MigrationExecutor(connection).loader.graph.leaf_nodes())
