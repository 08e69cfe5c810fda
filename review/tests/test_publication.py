"""Round lifecycle and publication: nothing public before publication, each organization's
current version after it, never withdrawn or removed results; the beat task publishes once;
a chair publishes a later version of one organization."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from audit.models import AuditEvent
from results.models import CitableId, Result, Round, Submission
from results.tests.factories import make_result, make_submission, make_system
from review import services

pytestmark = pytest.mark.django_db


def visible_ids(user):
    return set(Result.objects.visible_to(user).current().values_list("result_id", flat=True))


def finalize(world, publish_at=None):
    services.set_round_dates(world["chair"], world["round"], "schedule", publish_at=publish_at)
    services.move_round(world["chair"], world["round"], "final", "frozen")


def test_the_public_sees_nothing_of_a_round_before_publication_and_every_accepted_result_after(world, client):
    alpha, beta = world["alpha_result"].result_id, world["beta_result"].result_id
    assert visible_ids(None) == set() and visible_ids(world["outsider"]) == {alpha, beta}  # a peer
    assert client.get(f"/results/{alpha}/").status_code == 404
    assert client.get(f"/rounds/{world['round'].slug}/").status_code == 404
    finalize(world)
    assert visible_ids(None) == set()
    services.move_round(world["chair"], world["round"], "published", "on time")
    assert visible_ids(None) == {alpha, beta}
    assert client.get(f"/results/{alpha}/").status_code == 200
    assert Submission.objects.filter(round=world["round"], is_published=True).count() == 2


def test_withdrawn_and_removed_results_are_never_published(world):
    services.withdraw_result(world["owner"], world["alpha_result"], "hardware recalled")
    CitableId.objects.filter(results=world["beta_result"]).update(status="removed")
    finalize(world)
    services.move_round(world["chair"], world["round"], "published", "on time")
    assert visible_ids(None) == set() and visible_ids(world["outsider"]) == {world["beta_result"].result_id}
    assert visible_ids(world["owner"]) == {world["alpha_result"].result_id}  # its organization still sees it


def test_the_beat_task_publishes_a_final_round_at_publish_at_exactly_once(world):
    now = timezone.now()
    finalize(world, publish_at=now + timedelta(minutes=5))
    assert services.publish_due_rounds(now) == []
    assert services.publish_due_rounds(now + timedelta(minutes=6)) == [world["round"].slug]
    assert services.publish_due_rounds(now + timedelta(minutes=7)) == []
    assert Round.objects.get(pk=world["round"].pk).state == "published"
    assert AuditEvent.objects.filter(kind="round.published").count() == 1


def test_a_round_in_review_is_not_published_by_its_date(world):
    services.set_round_dates(world["chair"], world["round"], "schedule", publish_at=timezone.now() - timedelta(hours=1))
    assert services.publish_due_rounds() == []


def test_a_chair_publishes_a_later_version_of_one_organization(world):
    finalize(world)
    services.move_round(world["chair"], world["round"], "published", "on time")
    first = world["alpha_result"].submission
    fix = make_submission(world["round"], world["alpha"], published=False, is_current=False, version=2)
    make_result(make_system(fix, "alpha-sys"), "resnet", minutes=25.0, result_id=world["alpha_result"].result_id)
    assert Result.objects.visible_to(None).current().get(result_id=world["alpha_result"].result_id).score_minutes == 30.0
    services.publish_fix(world["chair"], fix, "fix accepted after publication")
    fix.refresh_from_db()
    first.refresh_from_db()
    assert (fix.is_current, fix.is_published, first.is_current, first.is_published) == (True, True, False, True)
    assert Result.objects.visible_to(None).current().get(result_id=world["alpha_result"].result_id).score_minutes == 25.0
    assert AuditEvent.objects.get(kind="version.published").submission == fix
    with pytest.raises(services.ReviewRefused):
        services.publish_fix(world["chair"], fix, "twice")


def test_a_final_round_takes_no_uploads_even_with_a_window(world):
    from ingest.services import upload_refusal
    from review.models import ResubmissionWindow

    ResubmissionWindow.objects.create(round=world["round"], organization=world["alpha"],
                                      closes_at=timezone.now() + timedelta(days=1))
    assert upload_refusal(round_=world["round"], organization=world["alpha"]) == ""
    finalize(world)
    assert "final" in upload_refusal(round_=Round.objects.get(pk=world["round"].pk), organization=world["alpha"])


def test_the_publication_date_is_the_day_it_was_published_not_the_day_planned(world):
    planned = timezone.now() + timedelta(days=10)
    finalize(world, publish_at=planned)
    before = timezone.now()
    services.move_round(world["chair"], world["round"], "published", "published early")
    assert before <= Round.objects.get(pk=world["round"].pk).publish_at <= timezone.now()
