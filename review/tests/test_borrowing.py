"""Hyperparameter borrowing: declared once per entry before the deadline, the resubmission is
checked against the lender (batch-size-dependent hyperparameters may differ), a reviewer decides,
and the published result says where its hyperparameters came from."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from mlperf_check.rules.borrowing import batch_dependent, compare_hyperparameters
from results.models import Benchmark, Result, Run
from results.tests.factories import make_result, make_submission, make_system
from review import services
from review.services import ReviewRefused

pytestmark = pytest.mark.django_db

RESNET_KEYS = ["global_batch_size", "opt_name", "lars_opt_base_learning_rate", "lars_epsilon",
               "lars_opt_learning_rate_warmup_epochs", "lars_opt_momentum", "lars_opt_weight_decay"]


def test_batch_size_dependent_keys_may_differ_and_every_other_must_match():
    may = batch_dependent(RESNET_KEYS)
    assert may == {"global_batch_size", "lars_opt_base_learning_rate", "lars_opt_learning_rate_warmup_epochs"}
    lender = {"global_batch_size": 3264, "lars_opt_base_learning_rate": 10.0, "lars_epsilon": 0.0, "opt_name": "lars"}
    borrower = {"global_batch_size": 1632, "lars_opt_base_learning_rate": 5.0, "lars_epsilon": 0.1}
    mismatches = compare_hyperparameters(borrower, lender, may)
    assert [(m.key, m.actual, m.expected) for m in mismatches] == [
        ("lars_epsilon", 0.1, 0.0), ("opt_name", "(not logged)", "lars")
    ]


def resubmit(world, hyperparameters: dict, **system_fields) -> Result:
    """Alpha's version 2 of its resnet result, its runs logging `hyperparameters`."""
    v2 = make_submission(world["round"], world["alpha"], published=False, is_current=False, version=2)
    system = make_system(v2, "alpha-sys", **system_fields)
    result = make_result(system, "resnet", minutes=26.0, result_id=world["alpha_result"].result_id)
    Run.objects.filter(result=result).update(hyperparameters=hyperparameters)
    return result


@pytest.fixture
def lender_logged(world):
    Benchmark.objects.filter(name="resnet").update(
        closed_hyperparameter_rules=[{"key": key} for key in RESNET_KEYS]
    )
    lender = {"global_batch_size": 3264, "opt_name": "lars", "lars_opt_base_learning_rate": 10.0,
              "lars_epsilon": 0.0, "lars_opt_momentum": 0.9}
    Run.objects.filter(result=world["beta_result"]).update(hyperparameters=lender)
    world["beta_result"].benchmark.refresh_from_db()
    return lender


def test_a_resubmission_with_the_lenders_hyperparameters_passes(world, lender_logged):
    declaration = services.declare_borrowing(world["owner"], world["alpha_result"], world["beta_result"])
    new = resubmit(world, {**lender_logged, "global_batch_size": 1632, "lars_opt_base_learning_rate": 5.0})
    (checked,) = services.check_borrowings(new.submission)
    assert (checked.pk, checked.state, checked.mismatches) == (declaration.pk, "checked", [])
    approved = services.decide_borrowing(world["reviewer"], checked, True, "matches the lender")
    assert approved.state == "approved"


def test_each_mismatch_is_reported_with_both_values(world, lender_logged):
    services.declare_borrowing(world["owner"], world["alpha_result"], world["beta_result"])
    new = resubmit(world, {**lender_logged, "lars_opt_momentum": 0.95}, framework="JAX 0.3")
    (checked,) = services.check_borrowings(new.submission)
    keys = {m["key"]: (m["actual"], m["expected"]) for m in checked.mismatches}
    assert keys["lars_opt_momentum"] == (0.95, 0.9)
    assert keys["system.framework"] == ("JAX 0.3", "PyTorch 21.05")
    assert services.decide_borrowing(world["chair"], checked, False, "momentum differs").state == "rejected"


def test_borrowing_is_declared_once_per_entry_before_the_deadline_between_closed_results(world):
    services.set_round_dates(world["chair"], world["round"], "schedule",
                             borrowing_deadline=timezone.now() + timedelta(hours=1))
    services.declare_borrowing(world["owner"], world["alpha_result"], world["beta_result"])
    with pytest.raises(ReviewRefused, match="already declared"):
        services.declare_borrowing(world["teammate"], world["alpha_result"], world["beta_result"])
    late = timezone.now() + timedelta(hours=2)
    with pytest.raises(ReviewRefused, match="deadline passed"):
        services.declare_borrowing(world["outsider"], world["beta_result"], world["alpha_result"], now=late)
    open_result = make_result(make_system(make_submission(world["round"], world["gamma"]), "g", division="open"),
                              "resnet")
    with pytest.raises(ReviewRefused, match="closed-division"):
        services.declare_borrowing(world["outsider"], world["beta_result"], open_result)
    with pytest.raises(ReviewRefused, match="another submitter"):
        services.declare_borrowing(world["owner"], world["alpha_result"], world["alpha_result"])


def test_a_decision_needs_a_checked_resubmission(world):
    declaration = services.declare_borrowing(world["owner"], world["alpha_result"], world["beta_result"])
    with pytest.raises(ReviewRefused, match="from declared to approved"):
        services.decide_borrowing(world["reviewer"], declaration, True, "early")


def test_the_published_result_keeps_its_borrowing_confidential(world, lender_logged, client):
    services.declare_borrowing(world["owner"], world["alpha_result"], world["beta_result"])
    new = resubmit(world, {**lender_logged, "global_batch_size": 1632})
    (checked,) = services.check_borrowings(new.submission)
    services.decide_borrowing(world["reviewer"], checked, True, "matches the lender")
    from results.services.lifecycle import make_current

    make_current(new.submission)
    url = f"/results/{new.result_id}/"
    assert client.get(url).status_code == 404  # nothing public before publication
    services.move_round(world["chair"], world["round"], "final", "frozen")
    services.move_round(world["chair"], world["round"], "published", "on time")
    page = client.get(url).content.decode()
    # Borrowing details stay in the review record: the public sees the published result only.
    assert 'id="borrowed-from"' not in page and "borrowing." not in page and "reviewer" not in page


def rejected(world, lender_logged):
    services.declare_borrowing(world["owner"], world["alpha_result"], world["beta_result"])
    new = resubmit(world, {**lender_logged, "lars_opt_momentum": 0.95})
    (checked,) = services.check_borrowings(new.submission)
    declaration = services.decide_borrowing(world["reviewer"], checked, False, "momentum differs")
    from results.services.lifecycle import make_current

    make_current(new.submission)
    return declaration, new.submission


def test_a_rejected_borrowing_withholds_the_version_until_a_chair_overrides_with_a_reason(world, lender_logged):
    from audit.models import AuditEvent
    from review.models import Notification

    declaration, v2 = rejected(world, lender_logged)
    assert "not published until" in Notification.objects.filter(user=world["owner"], kind="borrowing.rejected")[0].message
    assert set(services.withheld_versions(world["round"])) == {v2.pk}
    services.move_round(world["chair"], world["round"], "final", "frozen")
    services.move_round(world["chair"], world["round"], "published", "on time")
    public = set(Result.objects.visible_to(None).values_list("result_id", flat=True))
    assert public == {world["beta_result"].result_id}
    assert str(v2.pk) in AuditEvent.objects.get(kind="round.published").data["withheld"]
    with pytest.raises(ReviewRefused, match="rejected") as refusal:
        services.publish_fix(world["chair"], v2, "publish it")
    assert refusal.value.status == 409
    with pytest.raises(ReviewRefused, match="only a chair"):
        services.override_rejected_borrowing(world["reviewer"], declaration, "fine")
    with pytest.raises(ReviewRefused, match="reason"):
        services.override_rejected_borrowing(world["chair"], declaration, "")
    overridden = services.override_rejected_borrowing(world["chair"], declaration, "momentum is batch-scaled here")
    assert overridden.state == "overridden" and services.withheld_versions(world["round"]) == {}
    event = AuditEvent.objects.get(kind="borrowing.overridden")
    assert (event.actor, event.reason) == (world["chair"], "momentum is batch-scaled here")
    services.publish_fix(world["chair"], v2, "override")
    assert world["alpha_result"].result_id in Result.objects.visible_to(None).values_list("result_id", flat=True)


def test_a_later_version_with_the_earlier_hyperparameters_reverts_a_rejected_borrowing(world, lender_logged):
    own = {"global_batch_size": 1024, "opt_name": "lars", "lars_opt_momentum": 0.8}
    Run.objects.filter(result=world["alpha_result"]).update(hyperparameters=own)
    declaration, v2 = rejected(world, lender_logged)
    v3 = make_submission(world["round"], world["alpha"], published=False, is_current=True, version=3)
    still = make_result(make_system(v3, "alpha-sys"), "resnet", minutes=29.0, result_id=world["alpha_result"].result_id)
    Run.objects.filter(result=still).update(hyperparameters={**own, "lars_opt_momentum": 0.85})
    services.check_borrowings(v3)
    declaration.refresh_from_db()
    assert declaration.state == "rejected"  # neither the lender's nor its own: still withheld
    v4 = make_submission(world["round"], world["alpha"], published=False, is_current=True, version=4)
    back = make_result(make_system(v4, "alpha-sys"), "resnet", minutes=30.0, result_id=world["alpha_result"].result_id)
    Run.objects.filter(result=back).update(hyperparameters=own)
    (reverted,) = services.check_borrowings(v4)
    assert (reverted.pk, reverted.state) == (declaration.pk, "reverted")
    assert services.withheld_versions(world["round"]) == {}
