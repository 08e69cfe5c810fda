"""The public state of a result (issue 24), derived from versions, statuses, the round's state and
factor decisions in the audit log, and shown on the result page."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from results.constants import ResultStatus, RoundState
from results.models import CitableId, Result
from results.services.factors import accept_shipped_factor
from results.services.lifecycle import publish_version
from results.states import publication_state
from results.tests.factories import make_org, make_result, make_round, make_submission, make_system

pytestmark = pytest.mark.django_db


@pytest.fixture
def published():
    round_ = make_round("4.1")
    round_.publish_at = timezone.now() - timedelta(days=1)
    round_.save()
    submission = make_submission(round_, make_org("Gamma"), version=1)
    return make_result(make_system(submission, "box"), "resnet")


def state_of(result) -> str:
    return publication_state(Result.objects.with_related().get(pk=result.pk)).value


def test_a_result_published_with_its_round_is_official(client, published):
    assert state_of(published) == "official"
    html = client.get(f"/results/{published.result_id}/").content.decode()
    assert 'class="badge state-official"' in html and ">Official<" in html


def test_a_later_published_version_supersedes_the_first_and_is_a_correction(client, published):
    first = published.submission
    second = make_submission(first.round, first.organization, version=2, published=False, is_current=False)
    again = make_result(make_system(second, "box"), "resnet")
    publish_version(second)  # a chair publishes the fix
    assert state_of(published) == "superseded" and state_of(again) == "corrected"
    # Both stay reachable: the page shows the current one, with its state.
    assert ">Corrected<" in client.get(f"/results/{again.result_id}/").content.decode()


def test_public_before_the_round_is_published_is_provisional(published):
    published.submission.round.state = RoundState.REVIEW
    published.submission.round.save()
    assert state_of(published) == "provisional"


@pytest.mark.parametrize("status", [ResultStatus.WITHDRAWN, ResultStatus.REMOVED])
def test_withdrawn_and_removed(published, status):
    CitableId.objects.filter(results=published).update(status=status)
    assert state_of(published) == status


def test_a_factor_decision_after_publication_is_a_correction(published, personas):
    Result.objects.filter(pk=published.pk).update(shipped_scaling_factor=1.2)
    accept_shipped_factor(Result.objects.get(pk=published.pk), by=personas["chair"], reason="RCP table fixed")
    assert state_of(published) == "corrected"
