"""Issue 34: draft rounds were listed to submitters. A draft is a chair's alone: not on /submit/,
not in the review queue, not on the public pages or the API, not to reviewers; chairs see it on
their rounds page and manage it. The withdrawal form says its reason is public."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from results.constants import RoundState
from results.models import Round
from results.tests.factories import make_result, make_round, make_submission, make_system
from review import services
from review.models import ResubmissionWindow

pytestmark = pytest.mark.django_db


def client_of(user) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


@pytest.fixture
def draft(personas):
    round_ = services.create_round(personas["chair"], Round(suite="training", version="5.0"), "v5.0 in preparation")
    # Even a window granted on the draft (and a version in it) shows it to nobody but chairs.
    ResubmissionWindow.objects.create(round=round_, organization=personas["alpha"],
                                      closes_at=timezone.now() + timedelta(days=3), reason="early")
    benchmark = round_.benchmarks.order_by("name").first().name
    make_result(make_system(make_submission(round_, personas["alpha"], published=False), "alpha-sys"), benchmark)
    return round_


def test_no_one_but_chairs_sees_a_draft(personas, draft):
    assert list(Round.objects.visible_to(personas["chair"])) == [draft]
    for persona in ("owner", "outsider", "reviewer", "anonymous"):
        assert not Round.objects.visible_to(personas[persona]).exists(), persona


def test_submitters_never_see_a_draft_on_submit_the_queue_or_the_public_pages(personas, draft):
    open_round = make_round("4.1", state=RoundState.OPEN)
    for persona in ("owner", "reviewer"):
        client = client_of(personas[persona])
        submit = client.get("/submit/").content.decode()
        assert "training-v5.0" not in submit and "v5.0" not in submit, persona
        queue = client.get("/review/").content.decode()
        assert "training-v5.0" not in queue, persona
        assert client.get("/review/?round=training-v5.0").status_code == 404, persona
        assert client.get("/rounds/training-v5.0/").status_code == 404, persona
        api = client.get("/api/v1/rounds/").json()
        slugs = {r["slug"] for r in api.get("results", api)} if isinstance(api, dict) else {r["slug"] for r in api}
        assert "training-v5.0" not in slugs, persona
    assert open_round.slug in client_of(personas["owner"]).get("/submit/").content.decode()


def test_chairs_see_and_manage_their_drafts(personas, draft):
    client = client_of(personas["chair"])
    assert "training-v5.0" in client.get("/review/rounds/").content.decode()
    page = client.get("/review/rounds/training-v5.0/").content.decode()
    assert "Draft" in page and "seen by chairs only" in page
    assert client.get("/review/rounds/training-v5.0/", {"x": 1}).status_code == 200


def test_the_withdrawal_form_says_the_reason_is_published_verbatim(world, client):
    client.force_login(world["owner"])
    page = client.get(f"/review/results/{world['alpha_result'].result_id}/").content.decode()
    notice = page[page.index('id="withdraw-public"'):]
    notice = notice[:notice.index("</p>")]
    assert "published verbatim on the public change log and on the result's page" in notice
    assert "once the round is published" in notice


def test_a_drafts_deadlines_are_told_to_no_one_until_it_opens(personas, draft):
    from review.models import Notification

    soon = timezone.now() + timedelta(hours=12)
    services.set_round_dates(personas["chair"], draft, "planning", submission_deadline=soon)
    assert services.remind_deadlines() == 0 and not Notification.objects.exists()
    services.move_round(personas["chair"], draft, "open", "submissions open")
    Notification.objects.all().delete()
    assert services.remind_deadlines() > 0
    assert Notification.objects.filter(user=personas["reviewer"], kind="deadline").exists()


def test_a_window_does_not_open_a_draft_to_uploads(personas, draft):
    """The window of the fixture notwithstanding, the one upload rule refuses a draft (the upload API
    and /submit/ apply it)."""
    refusal = services.upload_refusal(round_=draft, organization=personas["alpha"])
    assert refusal == "training-v5.0 is a draft: it takes no submissions until a chair opens it"


def test_no_window_is_granted_on_a_draft_or_a_final_round(personas, draft):
    final = services.create_round(personas["chair"], Round(suite="training", version="4.0"), "v4.0")
    Round.objects.filter(pk=final.pk).update(state=RoundState.FINAL)
    final.refresh_from_db()
    for round_ in (draft, final):
        with pytest.raises(services.ReviewRefused, match="it takes no upload, window or not"):
            services.grant_resubmission_window(personas["chair"], round_, personas["beta"],
                                               timezone.now() + timedelta(days=2), "late fix")
