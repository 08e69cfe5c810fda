"""Withdrawing a result: before publication its organization withdraws it at once; a published
result is withdrawn when a chair of another organization approves, and then at once everywhere:
the pages, the cached pages and the API."""

from __future__ import annotations

import pytest

from audit.models import AuditEvent
from pages import caching
from review import services
from review.models import WithdrawalRequest
from review.services import ReviewRefused

pytestmark = pytest.mark.django_db


def publish(world):
    services.move_round(world["chair"], world["round"], "final", "frozen")
    services.move_round(world["chair"], world["round"], "published", "on time")


def test_before_publication_the_organization_withdraws_at_once(world):
    assert services.withdraw_result(world["owner"], world["alpha_result"], "hardware recalled") is None
    world["alpha_result"].refresh_from_db()
    assert world["alpha_result"].status == "withdrawn"
    with pytest.raises(ReviewRefused, match="only members"):
        services.withdraw_result(world["outsider"], world["alpha_result"], "not mine")


def test_a_published_result_is_withdrawn_when_a_chair_approves_and_at_once_in_cached_pages_and_the_api(
    world, client
):
    publish(world)
    result_id = world["alpha_result"].result_id
    page, api = f"/results/{result_id}/", f"/api/v1/results/{result_id}/"
    assert client.get(page).status_code == 200 and client.get(api).status_code == 200
    assert client.get(page).status_code == 200  # now served from the cache

    request = services.withdraw_result(world["owner"], world["alpha_result"], "hardware recalled")
    assert request.state == "pending"
    world["alpha_result"].refresh_from_db()
    assert world["alpha_result"].status == "active" and client.get(page).status_code == 200
    with pytest.raises(ReviewRefused, match="already waits"):
        services.withdraw_result(world["teammate"], world["alpha_result"], "again")
    with pytest.raises(ReviewRefused, match="only a chair"):
        services.decide_withdrawal(world["reviewer"], request, True, "ok")
    with pytest.raises(ReviewRefused, match="reason"):
        services.decide_withdrawal(world["chair"], request, True, "")

    version_before = caching._read_data_version()  # what every other process keys its cache on
    services.decide_withdrawal(world["chair"], request, True, "the vendor recalled the part")
    assert caching._read_data_version() != version_before
    assert client.get(page).status_code == 410 and client.get(api).status_code == 410  # gone: its tombstone
    event = AuditEvent.objects.get(kind="result.withdrawn")
    assert event.actor == world["chair"] and "the vendor recalled the part" in event.reason
    assert WithdrawalRequest.objects.get().state == "approved"


def test_a_refused_withdrawal_leaves_the_result_published(world, client):
    publish(world)
    request = services.withdraw_result(world["owner"], world["alpha_result"], "changed our mind")
    refused = services.decide_withdrawal(world["chair"], request, False, "no grounds after publication")
    assert refused.state == "refused"
    assert client.get(f"/results/{world['alpha_result'].result_id}/").status_code == 200
    with pytest.raises(ReviewRefused, match="already refused"):
        services.decide_withdrawal(world["chair"], request, True, "changed")


def test_the_withdrawal_decision_is_offered_to_chairs_of_other_organizations_only(world, client):
    publish(world)
    services.withdraw_result(world["owner"], world["alpha_result"], "hardware recalled")
    url = f"/review/results/{world['alpha_result'].result_id}/"
    offered = {}
    for who in ("owner", "outsider", "reviewer", "chair"):
        client.force_login(world[who])
        response = client.get(url)
        offered[who] = response.status_code == 200 and "withdrawal-decision" in response.content.decode()
    assert offered == {"owner": False, "outsider": False, "reviewer": False, "chair": True}
