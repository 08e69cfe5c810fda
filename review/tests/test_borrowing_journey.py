"""Issue 34: a borrower that declared borrowing was told "waiting for the resubmission", but no
window opened and /submit/ said no round was open; the lender was not told. Now declaring opens the
borrower's resubmission window (audited, shown on /submit/ with its end), both organizations hear
of it (inbox and email), and a chair rejects the checked borrowing from the result's page."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core import mail
from django.utils import timezone

from audit.models import AuditEvent
from results.models import Benchmark, Run
from results.tests.factories import make_result, make_submission, make_system
from review import services
from review.models import Notification, ResubmissionWindow

pytestmark = pytest.mark.django_db


@pytest.fixture
def past_deadline(world):
    """The world's round in review, its submission deadline passed: uploads need a window."""
    round_ = world["round"]
    round_.submission_deadline = timezone.now() - timedelta(days=1)
    round_.borrowing_deadline = timezone.now() + timedelta(days=5)
    round_.save()
    return world


def test_declaring_borrowing_opens_the_borrowers_resubmission_window(past_deadline):
    world = past_deadline
    round_ = world["round"]
    assert services.upload_refusal(round_=round_, organization=world["alpha"]).startswith(f"{round_.slug} is not open")
    declaration = services.declare_borrowing(world["owner"], world["alpha_result"], world["beta_result"])
    window = ResubmissionWindow.objects.get()
    assert (window.organization, window.closes_at, window.granted_by) == (world["alpha"], round_.borrowing_deadline, None)
    assert declaration.result_id in window.reason and world["beta_result"].result_id in window.reason
    assert services.upload_refusal(round_=round_, organization=world["alpha"]) == ""
    assert services.upload_refusal(round_=round_, organization=world["beta"]) != ""  # the lender's is not open
    event = AuditEvent.objects.get(kind="resubmission_window.granted")
    assert (event.actor_name, event.organization, event.data["closes_at"]) == (
        "system", world["alpha"], round_.borrowing_deadline.isoformat())


def test_a_round_without_a_borrowing_deadline_gives_the_window_a_week(world):
    now = timezone.now()
    services.declare_borrowing(world["owner"], world["alpha_result"], world["beta_result"], now=now)
    assert ResubmissionWindow.objects.get().closes_at == now + services.DEFAULT_FIX_WINDOW


def test_an_open_window_lasting_as_long_serves_the_borrowing(past_deadline):
    world = past_deadline
    longer = services.grant_resubmission_window(world["chair"], world["round"], world["alpha"],
                                                world["round"].borrowing_deadline + timedelta(days=1), "fix required")
    services.declare_borrowing(world["owner"], world["alpha_result"], world["beta_result"])
    assert list(ResubmissionWindow.objects.all()) == [longer]


def test_submit_lists_the_round_as_open_for_the_borrower_until_the_windows_end(past_deadline, client):
    world = past_deadline
    client.force_login(world["owner"])
    assert "No round is open" in client.get("/submit/").content.decode()
    services.declare_borrowing(world["owner"], world["alpha_result"], world["beta_result"])
    page = client.get("/submit/").content.decode()
    end = f"{world['round'].borrowing_deadline:%Y-%m-%d %H:%M}"
    assert 'id="upload-form"' in page
    assert f'<option value="{world["round"].slug}">Training v1.0 (resubmission window until {end} UTC)</option>' in page
    assert f"Open for your resubmission until {end} UTC" in page
    # The result's review page says where the resubmission goes.
    review_page = client.get(f"/review/results/{world['alpha_result'].result_id}/").content.decode()
    assert 'id="borrowing-upload"' in review_page and end in review_page
    client.force_login(world["outsider"])  # the lender has no window: its page is unchanged
    assert "No round is open" in client.get("/submit/").content.decode()


def test_the_lender_and_the_borrower_are_told(past_deadline, django_capture_on_commit_callbacks):
    world = past_deadline
    alpha_id, beta_id = world["alpha_result"].result_id, world["beta_result"].result_id
    with django_capture_on_commit_callbacks(execute=True):
        services.declare_borrowing(world["owner"], world["alpha_result"], world["beta_result"])
    (lender,) = Notification.objects.filter(user=world["outsider"])
    assert lender.kind == "borrowing.declared" and lender.link == f"/review/results/{alpha_id}/"
    assert lender.message == (f"Alpha Systems declared that its result {alpha_id} (resnet) borrows the "
                              f"hyperparameters of your result {beta_id} in {world['round'].slug}.")
    borrowers = Notification.objects.filter(kind="borrowing.declared", link="/submit/")
    assert {n.user.username for n in borrowers} == {"owner", "teammate", "alpha-reviewer"}
    assert f"{world['round'].borrowing_deadline:%Y-%m-%d %H:%M} UTC" in borrowers[0].message
    mailed = {m.to[0]: m for m in mail.outbox}
    assert "outsider@beta.example" in mailed and f"/review/results/{alpha_id}/" in mailed["outsider@beta.example"].body
    assert "owner@alpha.example" in mailed and "reviewer@mlcommons.example" not in mailed


def test_a_chair_rejects_a_checked_borrowing_from_the_results_page(past_deadline, client):
    world = past_deadline
    Benchmark.objects.filter(name="resnet").update(closed_hyperparameter_rules=[{"key": "opt_name"}])
    Run.objects.filter(result=world["beta_result"]).update(hyperparameters={"opt_name": "lars"})
    declaration = services.declare_borrowing(world["owner"], world["alpha_result"], world["beta_result"])
    v2 = make_submission(world["round"], world["alpha"], published=False, is_current=True, version=2)
    resubmitted = make_result(make_system(v2, "alpha-sys"), "resnet", result_id=world["alpha_result"].result_id)
    Run.objects.filter(result=resubmitted).update(hyperparameters={"opt_name": "sgd"})
    services.check_borrowings(v2)
    client.force_login(world["chair"])
    url = f"/review/results/{declaration.result_id}/"
    page = client.get(url).content.decode()
    assert 'id="borrowing-decision"' in page and 'value="reject"' in page
    round_page = client.get(f"/review/rounds/{world['round'].slug}/").content.decode()
    assert f'href="{url}#borrowing-{declaration.pk}"' in round_page  # the round lists its borrowings
    response = client.post(f"/review/borrowing/{declaration.pk}/decide/",
                           {"decision": "reject", "reason": "opt_name differs from the lender's"})
    assert response.status_code == 302
    declaration.refresh_from_db()
    assert (declaration.state, declaration.decided_by) == ("rejected", world["chair"])
