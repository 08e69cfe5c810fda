"""Review pages: the persona test on every page and action (anonymous, member of the accused
organization, member of another organization, reviewer of another organization, reviewer of the
same organization, chair), and what the pages show."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from results.models import Result
from results.tests.factories import make_result, make_submission, make_system
from review import services
from review.models import BorrowingDeclaration, Objection

pytestmark = pytest.mark.django_db

PERSONAS = ["anonymous", "owner", "outsider", "reviewer", "alpha_reviewer", "chair"]


def client_as(world, who) -> Client:
    client = Client()
    if world[who] is not None:
        client.force_login(world[who])
    return client


def statuses(world, url, method="get", data=None) -> dict:
    return {who: getattr(client_as(world, who), method)(url, data or {}).status_code for who in PERSONAS}


def test_queue_persona(world):
    alpha, beta = world["alpha_result"].result_id, world["beta_result"].result_id
    seen = {}
    for who in PERSONAS:
        response = client_as(world, who).get("/review/")
        if response.status_code != 200:
            seen[who] = response.status_code
            continue
        page = response.content.decode()
        seen[who] = {rid for rid in (alpha, beta) if rid in page}
    assert seen == {
        "anonymous": 302,  # to the login page
        "owner": {alpha, beta},  # peer review: every submitter reads the round's submissions
        "outsider": {alpha, beta},
        "reviewer": {alpha, beta},
        "alpha_reviewer": {alpha, beta},
        "chair": {alpha, beta},
    }


def test_queue_filters(world):
    client = client_as(world, "reviewer")
    page = client.get("/review/", {"submitter": "beta"}).content.decode()
    assert world["beta_result"].result_id in page and world["alpha_result"].result_id not in page
    page = client.get("/review/", {"severity": "error"}).content.decode()
    assert world["alpha_result"].result_id not in page  # the fixture's findings are warnings
    page = client.get("/review/", {"checker": "seeds", "state": "none"}).content.decode()
    assert world["alpha_result"].result_id in page


def test_result_review_page_persona(world):
    url = f"/review/results/{world['alpha_result'].result_id}/"
    assert statuses(world, url) == {
        "anonymous": 404, "owner": 200, "outsider": 200, "reviewer": 200, "alpha_reviewer": 200, "chair": 200,
    }


def test_result_review_page_shows_findings_with_log_links_versions_objections_and_events(world):
    services.file_objection(world["reviewer"], result=world["alpha_result"], rule="seed rule", evidence="same seeds")
    page = client_as(world, "chair").get(f"/review/results/{world['alpha_result'].result_id}/").content.decode()
    assert "SEED_REPEATED" in page and "seed rule" in page and "objection.filed" in page and "v1" in page


def test_diff_page_persona_and_content(world):
    alpha = world["alpha_result"]
    fix = make_submission(world["round"], world["alpha"], published=False, version=2)
    system = make_system(fix, "alpha-sys", framework="PyTorch 22.01")
    make_result(system, "resnet", minutes=25.0, result_id=alpha.result_id, runs=4)
    url = f"/review/results/{alpha.result_id}/diff/?old=1&new=2"
    assert statuses(world, url) == {
        "anonymous": 404, "owner": 200, "outsider": 200, "reviewer": 200, "alpha_reviewer": 200, "chair": 200,
    }
    page = client_as(world, "reviewer").get(url).content.decode()
    assert "PyTorch 22.01" in page and "25.000" in page and "removed" in page  # result_4.txt is gone
    assert "SEED_REPEATED" in page  # gone: version 2 has no findings
    assert "waived by decision" not in page


def test_diff_page_marks_the_findings_a_decision_waived(world):
    alpha = world["alpha_result"]
    fix = make_submission(world["round"], world["alpha"], published=False, version=2)
    make_result(make_system(fix, "alpha-sys"), "resnet", minutes=25.0, result_id=alpha.result_id, runs=4)
    waiver = services.grant_waiver(world["reviewer"], alpha, "seed_bypass", "seeds come from the launcher")
    page = client_as(world, "reviewer").get(f"/review/results/{alpha.result_id}/diff/?old=1&new=2").content.decode()
    gone = page.split('id="findings-gone"')[1].split("</ul>")[0]
    assert "SEED_REPEATED" in gone and f"waived by decision {waiver.pk}" in gone


def test_objection_actions_persona(world):
    url = f"/review/results/{world['alpha_result'].result_id}/objections/"
    data = {"rule": "r", "evidence": "e"}
    # Beta's member reads Alpha's result in peer review and objects to it from the page.
    assert statuses(world, url, "post", data) == {
        "anonymous": 302, "owner": 403, "outsider": 302, "reviewer": 302, "alpha_reviewer": 403, "chair": 302,
    }
    objection = Objection.objects.filter(filed_by=world["reviewer"]).get()
    answer = statuses(world, f"/review/objections/{objection.pk}/answer/", "post", {"answer": "no"})
    assert answer == {"anonymous": 302, "owner": 302, "outsider": 404, "reviewer": 403, "alpha_reviewer": 409,
                      "chair": 403}  # the owner answered first; a second answer is out of the table
    resolve = statuses(world, f"/review/objections/{objection.pk}/resolve/", "post",
                       {"outcome": "dismissed", "reason": "fine"})
    assert resolve == {"anonymous": 302, "owner": 403, "outsider": 404, "reviewer": 403, "alpha_reviewer": 403,
                       "chair": 302}
    assert Objection.objects.get(pk=objection.pk).resolved_by == world["chair"]


def test_objections_are_not_read_across_organizations(world):
    objection = services.file_objection(world["reviewer"], result=world["alpha_result"], rule="r", evidence="e")
    assert statuses(world, f"/review/objections/{objection.pk}/") == {
        "anonymous": 404, "owner": 302, "outsider": 404, "reviewer": 302, "alpha_reviewer": 302, "chair": 302,
    }


def test_waiver_action_persona(world):
    url = f"/review/results/{world['alpha_result'].result_id}/waivers/"
    assert statuses(world, url, "post", {"kind": "seed_bypass", "reason": "known false positive"}) == {
        "anonymous": 302, "owner": 403, "outsider": 403, "reviewer": 302, "alpha_reviewer": 403, "chair": 409,
    }


def test_shipped_factor_decision_persona(world):
    from results.models import Result

    result = world["alpha_result"]
    Result.objects.filter(pk=result.pk).update(shipped_scaling_factor=1.1, computed_scaling_factor=1.0)
    url = f"/review/results/{result.result_id}/shipped-factor/"
    assert statuses(world, url, "post", {"decision": "accept", "reason": "RCP bypass granted"}) == {
        "anonymous": 302, "owner": 403, "outsider": 403, "reviewer": 302, "alpha_reviewer": 403, "chair": 302,
    }
    assert Result.objects.get(pk=result.pk).factor_source == "decision"


def test_borrowing_actions_persona(world):
    url = f"/review/results/{world['alpha_result'].result_id}/borrowing/"
    data = {"lender": world["beta_result"].result_id}
    # Alpha's members find Beta's result in peer review and name it by its id.
    assert statuses(world, url, "post", data) == {
        "anonymous": 302, "owner": 302, "outsider": 403, "reviewer": 403, "alpha_reviewer": 409, "chair": 403,
    }
    declaration = BorrowingDeclaration.objects.get()
    BorrowingDeclaration.objects.filter(pk=declaration.pk).update(state="checked")
    decide = statuses(world, f"/review/borrowing/{declaration.pk}/decide/", "post",
                      {"decision": "approve", "reason": "ok"})
    assert decide == {"anonymous": 302, "owner": 403, "outsider": 404, "reviewer": 302, "alpha_reviewer": 403,
                      "chair": 409}


def test_round_page_persona(world):
    url = f"/review/rounds/{world['round'].slug}/"
    assert statuses(world, url) == {
        "anonymous": 302, "owner": 403, "outsider": 403, "reviewer": 403, "alpha_reviewer": 403, "chair": 200,
    }
    client = client_as(world, "chair")
    assert client.post(url, {"action": "move", "state": "final", "reason": "frozen"}).status_code == 302
    assert client.post(url, {"action": "move", "state": "published", "reason": "go"}).status_code == 302
    assert Result.objects.visible_to(None).count() == 2


def test_inbox_persona(world):
    services.file_objection(world["reviewer"], result=world["alpha_result"], rule="r", evidence="e")
    seen = {}
    for who in PERSONAS:
        response = client_as(world, who).get("/review/inbox/")
        seen[who] = response.status_code if response.status_code != 200 else "objection was filed" in response.content.decode()
    assert seen == {"anonymous": 302, "owner": True, "outsider": False, "reviewer": False, "alpha_reviewer": True,
                    "chair": False}
    client = client_as(world, "owner")
    assert '<span class="badge warn">1</span>' in client.get("/").content.decode()
    client.post("/review/inbox/")
    assert '<span class="badge warn">1</span>' not in client.get("/review/inbox/").content.decode()


def test_bad_input_is_refused_clearly_never_a_crash(world):
    reviewer, chair = client_as(world, "reviewer"), client_as(world, "chair")
    url = f"/review/results/{world['alpha_result'].result_id}/objections/"
    for data in ({"rule": "r", "evidence": "e", "run": "abc"}, {"rule": "r", "evidence": "e", "run": "999999"},
                 {"rule": "r", "evidence": "e", "evidence_line": "99999999999"},
                 {"rule": "r", "evidence": "e", "evidence_line": "-3"}, {"rule": "", "evidence": "e"}):
        response = reviewer.post(url, data)
        assert response.status_code == 400, (data, response.status_code)
    round_url = f"/review/rounds/{world['round'].slug}/"
    for data in ({"action": "dates", "publish_at": "tomorrow", "reason": "x"},
                 {"action": "dates", "publish_at": "2026-13-45T00:00:00", "reason": "x"},
                 {"action": "assign", "reviewer": "x", "organization": "y"},
                 {"action": "publish_version", "submission": "nope", "reason": "x"},
                 {"action": "explode"}):
        response = chair.post(round_url, data)
        assert response.status_code == 400, (data, response.status_code)
    assert chair.post(round_url, {"action": "dates", "publish_at": "2026-05-01T12:00:00",
                                  "reason": "schedule"}).status_code == 302
    world["round"].refresh_from_db()
    assert world["round"].publish_at.isoformat() == "2026-05-01T12:00:00+00:00"


def test_whoever_filed_an_objection_is_never_offered_the_resolve_form(world):
    objection = services.file_objection(world["reviewer"], result=world["alpha_result"], rule="r", evidence="e")
    services.answer_objection(world["owner"], objection, "no")
    url = f"/review/results/{world['alpha_result'].result_id}/"
    offered = {who: "resolve-form" in client_as(world, who).get(url).content.decode()
               for who in ("owner", "outsider", "reviewer", "alpha_reviewer", "chair")}
    assert offered == {"owner": False, "outsider": False, "reviewer": False, "alpha_reviewer": False, "chair": True}
    peer = services.file_objection(world["outsider"], result=world["alpha_result"], rule="r2", evidence="e2")
    peer = services.answer_objection(world["owner"], peer, "no")
    assert services.may_resolve(world["chair"], peer) and not services.may_resolve(world["outsider"], peer)


def test_override_withdrawal_and_release_actions_persona(world):
    from results.models import Submission
    from review.models import WithdrawalRequest

    BorrowingDeclaration.objects.create(
        round=world["round"], organization=world["alpha"], benchmark=world["alpha_result"].benchmark,
        system_id="alpha-sys", result_id=world["alpha_result"].result_id, base_submission=world["alpha_result"].submission,
        lender_result=world["beta_result"], state="rejected", checked_submission=world["alpha_result"].submission,
        declared_by=world["owner"],
    )
    declaration = BorrowingDeclaration.objects.get()
    override = statuses(world, f"/review/borrowing/{declaration.pk}/override/", "post", {"reason": "fine"})
    assert override == {"anonymous": 302, "owner": 403, "outsider": 404, "reviewer": 403, "alpha_reviewer": 403,
                        "chair": 302}
    withdrawal = WithdrawalRequest.objects.create(round=world["round"], organization=world["alpha"],
                                                  result_id=world["alpha_result"].result_id, reason="recalled",
                                                  requested_by=world["owner"])
    decide = statuses(world, f"/review/withdrawals/{withdrawal.pk}/decide/", "post",
                      {"decision": "refuse", "reason": "no"})
    assert decide == {"anonymous": 302, "owner": 404, "outsider": 404, "reviewer": 404, "alpha_reviewer": 404,
                      "chair": 302}
    Submission.objects.filter(pk=world["beta_result"].submission_id).update(held_reason="speaks for NVIDIA")
    release = statuses(world, f"/review/rounds/{world['round'].slug}/", "post",
                       {"action": "release", "submission": world["beta_result"].submission_id, "reason": "partner"})
    assert release["chair"] == 302 and all(release[who] in (302, 403, 404) for who in release if who != "chair")
    assert not Submission.objects.get(pk=world["beta_result"].submission_id).held_reason


def test_withdraw_action_persona(world):
    url = f"/review/results/{world['alpha_result'].result_id}/withdraw/"
    # Before publication Alpha's members withdraw at once (a second member finds it withdrawn
    # already: 409); a peer reads the result but may not.
    assert statuses(world, url, "post", {"reason": "hardware recalled"}) == {
        "anonymous": 302, "owner": 302, "outsider": 403, "reviewer": 403, "alpha_reviewer": 409, "chair": 403,
    }
    assert Result.objects.get(pk=world["alpha_result"].pk).status == "withdrawn"


def test_runs_are_in_numeric_order_on_the_review_page(world):
    from results.tests.factories import make_run

    result = world["alpha_result"]
    result.runs.all().delete()
    for index in (10, 2, 1):
        make_run(result, index, 30.0)
    page = client_as(world, "chair").get(f"/review/results/{result.result_id}/").content.decode()
    positions = [page.index(f"result_{index}.txt") for index in (1, 2, 10)]
    assert positions == sorted(positions)


def test_the_borrower_picks_the_lender_from_the_results_it_may_read(world, people):
    """The picker offers another organization's current closed result of the same benchmark in the
    round that the borrower reads in peer review, and nothing it may not read."""
    from results.models import Organization
    from results.tests.factories import make_round

    round_, alpha, beta = world["round"], world["alpha_result"], world["beta_result"]
    beta_submission = beta.submission
    withdrawn = make_result(make_system(beta_submission, "beta-old"), "resnet", status="withdrawn")
    open_division = make_result(make_system(beta_submission, "beta-open", division="open"), "resnet")
    own = make_result(make_system(alpha.submission, "alpha-two"), "resnet")
    elsewhere = make_round("1.1", state="open", benchmarks=("resnet",))
    delta = Organization.objects.create(name="Delta AI", slug="delta")
    unpublished = make_result(make_system(make_submission(elsewhere, delta, published=False), "delta-sys"), "resnet")
    page = client_as(world, "owner").get(f"/review/results/{alpha.result_id}/")
    assert [r.result_id for r in page.context["lenders"]] == [beta.result_id]
    text = page.content.decode()
    assert f'<option value="{beta.result_id}">Beta Compute · BETA-SYS 8xA100 · {beta.result_id} · 28.00 min</option>' in text
    for hidden in (withdrawn, unpublished):
        assert hidden.result_id not in text
    assert open_division.result_id not in page.context["lenders"] and own.result_id not in page.context["lenders"]
    # Only the borrower's members are offered the picker, and only while the round is in review.
    for who in ("outsider", "reviewer", "chair"):
        assert client_as(world, who).get(f"/review/results/{alpha.result_id}/").context["lenders"] == []
    # An id learned elsewhere that the borrower may not read is refused like one that does not exist.
    borrow = f"/review/results/{alpha.result_id}/borrowing/"
    response = client_as(world, "owner").post(borrow, {"lender": unpublished.result_id})
    assert response.status_code == 400 and "no such lender result" in response.content.decode()
    # Peers read a withdrawn result during review, but nobody borrows from it.
    response = client_as(world, "owner").post(borrow, {"lender": withdrawn.result_id})
    assert response.status_code == 400 and "the lender&#x27;s result is withdrawn" in response.content.decode()
    # Never a form the borrower may not submit: not after the borrowing deadline, not outside review.
    round_.borrowing_deadline = timezone.now() - timedelta(minutes=1)
    round_.save()
    assert 'id="borrowing-form"' not in client_as(world, "owner").get(f"/review/results/{alpha.result_id}/").content.decode()
    round_.state, round_.borrowing_deadline = "open", None
    round_.save()
    page = client_as(world, "owner").get(f"/review/results/{alpha.result_id}/").content.decode()
    assert 'id="borrowing-form"' not in page and beta.result_id not in page.split("Hyperparameter borrowing")[1]
