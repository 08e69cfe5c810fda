"""Confidential review and peer review: from the submission deadline to publication every
submitting organization reads every submission of the round; organizations that did not submit
and the public see nothing before publication; the public never reads the review record
(objections, borrowing, who reviewed), before or after publication."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.utils import timezone
from rest_framework.test import APIClient

from results.models import Result, Round, Run
from results.querysets import peer_review_rounds
from results.tests.factories import make_benchmark, make_result, make_submission, make_system
from review import services

pytestmark = pytest.mark.django_db


def api_as(user) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


def visible(user) -> set[str]:
    return set(Result.objects.visible_to(user).values_list("result_id", flat=True))


@pytest.fixture
def bystander(world):
    """A member of Gamma, which did not submit to the round."""
    user = User.objects.create_user("bystander", "b@gamma.example", "password")
    world["gamma"].members.add(user)
    return user


def publish(world):
    services.move_round(world["chair"], world["round"], "final", "frozen")
    services.move_round(world["chair"], world["round"], "published", "on time")


def test_submitters_read_every_submission_of_the_round_from_the_deadline_to_publication(world, bystander):
    alpha, beta = world["alpha_result"].result_id, world["beta_result"].result_id
    Round.objects.filter(pk=world["round"].pk).update(submission_deadline=timezone.now() + timedelta(hours=1))
    assert visible(world["outsider"]) == {beta}  # before the deadline: its own only
    Round.objects.filter(pk=world["round"].pk).update(submission_deadline=timezone.now() - timedelta(hours=1))
    assert visible(world["outsider"]) == {alpha, beta} and visible(world["owner"]) == {alpha, beta}
    assert Run.objects.visible_to(world["outsider"]).filter(result=world["alpha_result"]).exists()
    assert visible(bystander) == set() and visible(None) == set()
    assert list(peer_review_rounds(bystander)) == [] and list(peer_review_rounds(None)) == []


def test_after_publication_peers_see_what_the_public_sees(world, bystander):
    services.withdraw_result(world["owner"], world["alpha_result"], "hardware recalled")
    publish(world)
    beta = world["beta_result"].result_id
    assert visible(world["outsider"]) == {beta} == visible(None) == visible(bystander)


def test_peers_read_each_others_findings_but_not_each_others_review_record(world, client):
    objection = services.file_objection(world["reviewer"], result=world["alpha_result"], rule="r", evidence="e")
    client.force_login(world["outsider"])
    assert client.get(f"/results/{world['alpha_result'].result_id}/").status_code == 200
    body = api_as(world["outsider"]).get(f"/api/v1/review/objections/{objection.pk}/")
    assert body.status_code == 404


def test_a_peer_files_an_objection_with_evidence_at_a_file_and_line(world):
    run = world["alpha_result"].runs.first()
    answer = api_as(world["outsider"]).post("/api/v1/review/objections/", {
        "result": world["alpha_result"].result_id, "run": run.file, "rule": "seeds",
        "evidence": "the same seed in every run", "evidence_file": run.file, "evidence_line": 12,
    }, format="json")
    assert answer.status_code == 201, answer.json()
    assert (answer.json()["evidence_file"], answer.json()["evidence_line"]) == (run.file, 12)
    elsewhere = api_as(world["outsider"]).post("/api/v1/review/objections/", {
        "result": world["alpha_result"].result_id, "rule": "seeds", "evidence": "e",
        "evidence_file": "results/other/result_9.txt", "evidence_line": 3,
    }, format="json")
    assert elsewhere.status_code == 400 and "is not a file of Alpha Systems" in elsewhere.json()["detail"]


def test_the_evidence_links_to_the_cited_log_line(world, client):
    run = world["alpha_result"].runs.first()
    Run.objects.filter(pk=run.pk).update(log_name="logs/alpha-1")
    services.file_objection(world["outsider"], result=world["alpha_result"], rule="seeds", evidence="same seed",
                            evidence_file=run.file, evidence_line=12)
    client.force_login(world["owner"])
    page = client.get(f"/review/results/{world['alpha_result'].result_id}/").content.decode()
    assert f'class="evidence-link" href="/logs/{run.sha256}/' in page and "#L12" in page


@pytest.fixture
def checked_borrowing(world):
    declaration = services.declare_borrowing(world["owner"], world["alpha_result"], world["beta_result"])
    v2 = make_submission(world["round"], world["alpha"], published=False, is_current=True, version=2)
    resubmitted = make_result(make_system(v2, "alpha-sys"), "resnet", minutes=26.0,
                              result_id=world["alpha_result"].result_id)
    Run.objects.filter(result=world["beta_result"]).update(hyperparameters={"opt_name": "lars", "secret_lr": 7.7})
    Run.objects.filter(result=resubmitted).update(hyperparameters={"opt_name": "sgd", "secret_lr": 7.7})
    (checked,) = services.check_borrowings(v2)
    assert checked.mismatches and declaration.pk == checked.pk
    return checked


def borrowings_seen(user) -> list:
    return api_as(user).get("/api/v1/review/borrowings/").json()["results"]


def test_the_borrower_never_reads_the_check_mismatches_nor_anyone_after_publication(world, checked_borrowing):
    (mine,) = borrowings_seen(world["owner"])
    assert mine["state"] == "checked" and mine["mismatches"] is None
    (reviewed,) = borrowings_seen(world["reviewer"])
    assert reviewed["mismatches"][0]["key"] == "opt_name"
    events = api_as(world["owner"]).get("/api/v1/review/events/").json()["results"]
    checked_event = next(e for e in events if e["kind"] == "borrowing.checked")
    assert "mismatches" not in checked_event["data"] and "sgd" not in str(checked_event)
    services.decide_borrowing(world["reviewer"], checked_borrowing, True, "fine")
    publish(world)
    assert borrowings_seen(None) == [] and borrowings_seen(world["outsider"]) == []
    assert borrowings_seen(world["reviewer"])[0]["mismatches"] is None
    assert borrowings_seen(world["owner"])[0]["mismatches"] is None


def test_the_borrowing_endpoint_does_not_tell_which_unreadable_results_exist(world, bystander):
    """Before the deadline Alpha cannot read Beta's result: naming it, or a result of another
    benchmark, or an id nobody uses, gets the same answer."""
    Round.objects.filter(pk=world["round"].pk).update(submission_deadline=timezone.now() + timedelta(hours=1))
    make_benchmark(world["round"], "bert")
    beta_bert = make_result(world["beta_result"].system, "bert", minutes=100.0)
    answers = set()
    for lender in (world["beta_result"].result_id, beta_bert.result_id, "9.9-9999"):
        answer = api_as(world["owner"]).post("/api/v1/review/borrowings/", {
            "result": world["alpha_result"].result_id, "lender": lender}, format="json")
        answers.add((answer.status_code, answer.content))
    assert answers == {(404, b'{"detail":"no such lender result"}')}


def test_the_public_sees_outcomes_only_and_never_who_reviewed(world, checked_borrowing):
    objection = services.file_objection(world["reviewer"], result=world["beta_result"], rule="secret rule",
                                        evidence="secret evidence")
    services.answer_objection(world["outsider"], objection, "we disagree")
    services.resolve_objection(world["chair"], objection, "dismissed", "no case")
    services.decide_borrowing(world["reviewer"], checked_borrowing, False, "opt differs")
    services.grant_waiver(world["reviewer"], world["beta_result"], "rcp_bypass", "known RCP gap")
    publish(world)
    public = api_as(None).get("/api/v1/review/events/").json()["results"]
    kinds = {e["kind"] for e in public}
    assert kinds <= {"round.published", "finding.waived", "version.published"} and "finding.waived" in kinds
    assert {e["actor_name"] for e in public} == {""}
    assert "secret" not in str(public)
    assert api_as(None).get("/api/v1/review/objections/").json()["count"] == 0
    # Members see their own organization's record, with who acted.
    own = api_as(world["outsider"]).get("/api/v1/review/events/").json()["results"]
    assert {"objection.filed", "objection.resolved"} <= {e["kind"] for e in own}
    assert "chair" in {e["actor_name"] for e in own}


def test_an_organization_that_did_not_submit_files_no_objection(world, bystander):
    with pytest.raises(services.ReviewRefused, match="organizations that submitted to training-v1.0"):
        services.file_objection(bystander, result=world["alpha_result"], rule="r", evidence="e")
    assert services.file_objection(world["outsider"], result=world["alpha_result"], rule="r", evidence="e").filed_for \
        == world["beta"]
