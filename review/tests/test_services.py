"""The review services: who may act (conflict of interest for every action), the transition
tables, the effects of decisions, and the audit event each change writes."""

from __future__ import annotations

import pytest
from django.core import mail
from django.db import connection, transaction
from django.db.utils import InternalError

from audit.models import AppendOnly, AuditEvent
from results.models import Result, Waiver
from review import services
from review.models import Notification, Objection, ResubmissionWindow
from review.services import ReviewRefused

pytestmark = pytest.mark.django_db


def objection(world, by="reviewer", **fields) -> Objection:
    values = {"rule": "closed division: hyperparameters", "evidence": "lr differs", "result": world["alpha_result"]}
    values.update(fields)
    return services.file_objection(world[by], **values)


def answered(world, by="reviewer") -> Objection:
    return services.answer_objection(world["owner"], objection(world, by=by), "we used the reference lr")


def refused(call, status=403, match=None):
    with pytest.raises(ReviewRefused, match=match) as info:
        call()
    assert info.value.status == status, info.value
    return info.value


# --- Conflict of interest, for every action ---------------------------------------------------


def test_nobody_files_an_objection_against_their_own_organization(world):
    refused(lambda: objection(world, by="owner"), match="you belong to Alpha")
    refused(lambda: objection(world, by="alpha_reviewer"), match="you belong to Alpha")
    assert objection(world, by="outsider").filed_for == world["beta"]  # a submitter of another org may


def test_a_reviewer_never_resolves_objections_against_their_own_organization(world):
    item = answered(world)
    refused(lambda: services.resolve_objection(world["alpha_reviewer"], item, "dismissed", "fine"),
            match="conflict of interest")


def test_nobody_resolves_an_objection_they_filed_or_their_organization_filed(world, people):
    mine = answered(world, by="reviewer")
    refused(lambda: services.resolve_objection(world["reviewer"], mine, "dismissed", "fine"), match="filed")
    by_beta = answered(world, by="outsider")
    beta_reviewer = world["outsider"]
    beta_reviewer.groups.add(world["reviewer"].groups.get())
    refused(lambda: services.resolve_objection(beta_reviewer, by_beta, "dismissed", "fine"), match="filed")
    refused(lambda: services.resolve_objection(world["teammate"], by_beta, "dismissed", "fine"), match="reviewer")
    assert services.resolve_objection(world["chair"], by_beta, "dismissed", "no rule broken").outcome == "dismissed"


def test_only_the_accused_organization_answers(world):
    item = objection(world)
    for who in ("outsider", "reviewer", "chair"):
        refused(lambda who=who: services.answer_objection(world[who], item, "no"), match="only members of Alpha")


def test_a_reviewer_never_waives_findings_of_their_own_organization(world):
    refused(lambda: services.grant_waiver(world["alpha_reviewer"], world["alpha_result"], "rcp_bypass", "gap"),
            match="conflict of interest")
    refused(lambda: services.grant_waiver(world["owner"], world["alpha_result"], "rcp_bypass", "gap"),
            match="reviewer")
    waiver = services.grant_waiver(world["reviewer"], world["alpha_result"], "rcp_bypass", "RCP table gap")
    assert (waiver.system_id, waiver.benchmark, waiver.granted_by) == ("alpha-sys", "resnet", world["reviewer"])
    assert AuditEvent.objects.get(kind="finding.waived").result_id == world["alpha_result"].result_id
    refused(lambda: services.grant_waiver(world["chair"], world["alpha_result"], "rcp_bypass", "again"), 409)


def test_a_reviewer_never_decides_a_shipped_factor_of_their_own_organization(world):
    result = world["alpha_result"]
    Result.objects.filter(pk=result.pk).update(
        shipped_scaling_factor=1.1, computed_scaling_factor=1.0, computed_score_minutes=30.0
    )
    result.refresh_from_db()
    refused(lambda: services.decide_shipped_factor(world["alpha_reviewer"], result, True, "bypass"),
            match="conflict of interest")
    refused(lambda: services.decide_shipped_factor(world["owner"], result, True, "bypass"), match="reviewers")
    decision = services.decide_shipped_factor(world["reviewer"], result, True, "RCP bypass granted in review")
    result.refresh_from_db()
    assert (decision.factor, result.factor_source, result.score_minutes) == (1.1, "decision", pytest.approx(33.0))
    assert AuditEvent.objects.get(kind="factor.accepted").result_id == result.result_id
    services.decide_shipped_factor(world["chair"], result, False, "the logs do not support it")
    result.refresh_from_db()
    assert (result.factor_source, result.score_minutes) == ("computed", 30.0)
    assert AuditEvent.objects.filter(kind="factor.rejected").count() == 1


def test_a_shipped_factor_is_not_waived_as_a_bypass(world):
    refused(lambda: services.grant_waiver(world["reviewer"], world["alpha_result"], "published_factor", "x"), 400)


def test_a_reviewer_never_decides_borrowing_of_their_own_organization(world):
    declaration = services.declare_borrowing(world["owner"], world["alpha_result"], world["beta_result"])
    declaration.state = "checked"
    declaration.save()
    refused(lambda: services.decide_borrowing(world["alpha_reviewer"], declaration, True, "ok"),
            match="conflict of interest")
    refused(lambda: services.decide_borrowing(world["owner"], declaration, True, "ok"), match="reviewer")
    assert services.decide_borrowing(world["reviewer"], declaration, True, "same lr").state == "approved"


def test_only_members_declare_borrowing_for_their_results(world):
    for who in ("outsider", "reviewer", "chair"):
        refused(lambda who=who: services.declare_borrowing(world[who], world["alpha_result"], world["beta_result"]))


def test_a_reviewer_is_never_assigned_to_their_own_organization(world):
    refused(lambda: services.assign_reviewer(world["chair"], world["round"], world["alpha_reviewer"], world["alpha"]),
            match="conflict of interest")
    refused(lambda: services.assign_reviewer(world["reviewer"], world["round"], world["reviewer"], world["alpha"]),
            match="chair")
    assert services.assign_reviewer(world["chair"], world["round"], world["reviewer"], world["alpha"]).pk


def test_a_chair_never_publishes_a_fix_of_their_own_organization(world):
    world["alpha"].members.add(world["chair"])
    services.move_round(world["chair"], world["round"], "final", "frozen")
    services.move_round(world["chair"], world["round"], "published", "on time")
    refused(lambda: services.publish_fix(world["chair"], world["alpha_result"].submission, "late fix"),
            match="conflict of interest")


def test_only_chairs_move_rounds(world):
    for who in ("owner", "outsider", "reviewer", "alpha_reviewer"):
        refused(lambda who=who: services.move_round(world[who], world["round"], "final", "now"), match="chair")


# --- Transition tables -------------------------------------------------------------------------


def test_objection_transitions_outside_the_table_are_refused(world):
    item = objection(world)
    refused(lambda: services.resolve_objection(world["chair"], item, "dismissed", "no"), 409, "from open to resolved")
    services.answer_objection(world["owner"], item, "answer")
    refused(lambda: services.answer_objection(world["owner"], item, "again"), 409, "from answered to answered")
    services.resolve_objection(world["chair"], item, "dismissed", "no rule broken")
    refused(lambda: services.resolve_objection(world["chair"], item, "removed", "again"), 409)
    kinds = list(AuditEvent.objects.filter(subject=item.subject).values_list("kind", "actor_name"))
    assert kinds == [("objection.filed", "reviewer"), ("objection.answered", "owner"), ("objection.resolved", "chair")]


def test_round_transitions_outside_the_table_are_refused(world):
    refused(lambda: services.move_round(world["chair"], world["round"], "open", "reopen"), 409)
    refused(lambda: services.move_round(world["chair"], world["round"], "published", "skip final"), 409)
    refused(lambda: services.move_round(world["chair"], world["round"], "final", ""), 400, "reason")
    services.move_round(world["chair"], world["round"], "final", "frozen")
    event = AuditEvent.objects.get(kind="round.state_changed")
    assert (event.data, event.reason, event.actor) == ({"from": "review", "to": "final"}, "frozen", world["chair"])


def test_objections_are_filed_during_review_only(world):
    services.move_round(world["chair"], world["round"], "final", "frozen")
    refused(lambda: objection(world), 409, "not in review")


# --- Decisions ---------------------------------------------------------------------------------


def test_fix_required_opens_a_resubmission_window(world):
    item = services.resolve_objection(world["chair"], answered(world), "fix_required", "rerun with the reference lr")
    window = ResubmissionWindow.objects.get(organization=world["alpha"])
    assert window.granted_by == world["chair"] and item.subject in window.reason
    assert AuditEvent.objects.get(kind="objection.resolved").data["outcome"] == "fix_required"


def test_removed_and_moved_results(world):
    services.resolve_objection(world["chair"], answered(world), "moved_to_open", "not closed-compliant")
    assert Result.objects.get(pk=world["alpha_result"].pk).division == "open"
    other = services.answer_objection(world["outsider"], objection(world, result=world["beta_result"]), "hm")
    services.resolve_objection(world["chair"], other, "removed", "broken")
    assert Result.objects.get(pk=world["beta_result"].pk).status == "removed"


def test_waivers_are_read_by_the_checks(world):
    from results.services.training_import import waivers_for

    services.grant_waiver(world["reviewer"], world["alpha_result"], "seed_bypass", "known false positive")
    assert waivers_for(world["round"], "alpha") == {("alpha-sys", "resnet", "seed_bypass")}
    assert Waiver.objects.get().reason == "known false positive"


# --- Audit log ---------------------------------------------------------------------------------


def test_nobody_edits_or_deletes_an_audit_event(world):
    event = objection(world) and AuditEvent.objects.get(kind="objection.filed")
    event.reason = "rewritten"
    with pytest.raises(AppendOnly):
        event.save()
    with pytest.raises(AppendOnly):
        event.delete()
    with pytest.raises(AppendOnly):
        AuditEvent.objects.filter(pk=event.pk).update(reason="rewritten")
    with pytest.raises(AppendOnly):
        AuditEvent.objects.all().delete()
    for sql in ("UPDATE review_auditevent SET reason = 'x'", "DELETE FROM review_auditevent"):
        with pytest.raises(InternalError, match="append-only"), transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(sql)
    assert AuditEvent.objects.get(pk=event.pk).reason.startswith("closed division")


def test_a_refused_change_writes_no_event(world):
    before = AuditEvent.objects.count()
    refused(lambda: objection(world, by="owner"))
    assert AuditEvent.objects.count() == before


# --- Notifications -----------------------------------------------------------------------------


def test_the_accused_hear_of_objections_by_inbox_and_mail_after_commit(world, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        item = objection(world)
    inbox = Notification.objects.filter(user=world["owner"], kind="objection.filed")
    assert inbox.count() == 1 and inbox.get().read_at is None
    assert sorted(m.to[0] for m in mail.outbox) == ["ar@alpha.example", "owner@alpha.example", "teammate@alpha.example"]
    assert f"/review/objections/{item.pk}/" in mail.outbox[0].body


def test_a_rule_with_line_breaks_still_sends_the_mail_with_a_one_line_subject(world, django_capture_on_commit_callbacks):
    rule = "closed division:\r\nBcc: everyone@example.com\n\thyperparameters\x1b\u2028differ"
    with django_capture_on_commit_callbacks(execute=True):
        objection(world, rule=rule)
    assert sorted(m.to[0] for m in mail.outbox) == ["ar@alpha.example", "owner@alpha.example", "teammate@alpha.example"]
    for sent in mail.outbox:
        sent.message()  # builds the headers, as the SMTP backend does: no BadHeaderError
        subject = sent.subject
        assert subject.startswith("[MLPerf results] An objection was filed against ")
        assert subject.isprintable() and ": closed division:" in subject  # cut at 80 characters
        assert sent.recipients() == [sent.to[0]]  # the rule's "Bcc:" stays text
        assert rule in sent.body  # the whole rule, as written, in the body


def test_a_rolled_back_change_sends_nothing(world, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        with pytest.raises(RuntimeError), transaction.atomic():
            objection(world)
            raise RuntimeError("rolled back")
    assert callbacks == [] and mail.outbox == [] and not Notification.objects.exists()


def test_deadline_reminders_go_out_once_a_day_before(world):
    from datetime import timedelta

    from django.utils import timezone

    now = timezone.now()
    services.set_round_dates(world["chair"], world["round"], "schedule", borrowing_deadline=now + timedelta(hours=20),
                             publish_at=now + timedelta(days=3))
    first = services.remind_deadlines(now)
    assert first >= 4 and services.remind_deadlines(now) == 0
    assert Notification.objects.filter(user=world["owner"], kind="deadline").count() == 1


def test_assigned_reviewers_and_the_filer_hear_of_answers(world, client):
    services.assign_reviewer(world["chair"], world["round"], world["reviewer"], world["alpha"])
    item = objection(world, by="chair")
    services.answer_objection(world["owner"], item, "we disagree")
    heard = set(Notification.objects.filter(kind="objection.answered").values_list("user__username", flat=True))
    assert heard == {"chair", "reviewer"}
    client.force_login(world["reviewer"])
    page = client.get("/review/", {"submitter": "assigned"}).content.decode()
    assert world["alpha_result"].result_id in page and world["beta_result"].result_id not in page


def test_resubmission_windows_are_granted_through_the_service(world):
    from datetime import timedelta

    from django.utils import timezone

    refused(lambda: services.grant_resubmission_window(world["alpha_reviewer"], world["round"], world["alpha"],
                                                       timezone.now() + timedelta(days=1), "late"),
            match="conflict of interest")
    window = services.grant_resubmission_window(world["chair"], world["round"], world["alpha"],
                                                timezone.now() + timedelta(days=1), "power outage")
    assert window.granted_by == world["chair"]
    assert AuditEvent.objects.get(kind="resubmission_window.granted").reason == "power outage"
