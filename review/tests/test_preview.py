"""Preview-system obligations on the public page: met, pending, overdue; unpublished rounds hidden."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from results.models import Round
from results.tests.factories import make_round, make_submission, make_system
from review.preview import preview_obligations, with_systems

pytestmark = pytest.mark.django_db


def dated_round(version, days_ago, state="published"):
    round_ = make_round(version, state=state, benchmarks=("resnet",))
    Round.objects.filter(pk=round_.pk).update(submission_deadline=timezone.now() - timedelta(days=days_ago))
    round_.refresh_from_db()
    return round_


def test_preview_obligations(personas):
    old, new = dated_round("0.7", 400), dated_round("1.0", 30)
    hidden = dated_round("2.0", 1, state="review")
    make_system(make_submission(old, personas["alpha"]), "a-preview", availability="preview")
    make_system(make_submission(new, personas["alpha"]), "a-available", availability="available")
    make_system(make_submission(old, personas["beta"]), "b-preview", availability="preview",
                accelerator_model_name="Beta TPU")
    make_system(make_submission(new, personas["beta"]), "b-new-preview", availability="preview")
    make_system(make_submission(hidden, personas["beta"], published=False), "b-hidden", availability="preview")

    states = {o.system.system_id: (o.state, o.met_by.system_id if o.met_by else None)
              for o in with_systems(preview_obligations(None))}
    assert states == {"a-preview": ("met", "a-available"), "b-preview": ("overdue", None),
                      "b-new-preview": ("pending", None)}
    due = {o.system.system_id: o.due for o in with_systems(preview_obligations(None))}
    # 60 days after 0.7's deadline is earlier than 1.0's deadline: the later date counts.
    assert due["b-preview"] == new.submission_deadline
    assert due["b-new-preview"] == new.submission_deadline + timedelta(days=60)
    assert "b-hidden" in {o.system.system_id for o in with_systems(preview_obligations(personas["outsider"]))}

    for who in ("anonymous", "owner", "outsider", "reviewer", "chair"):
        client = Client()
        if personas[who] is not None:
            client.force_login(personas[who])
        page = client.get("/review/preview-systems/").content.decode()
        assert "B-PREVIEW" in page and "overdue" in page
        assert ("B-HIDDEN" in page) == (who in ("outsider", "reviewer", "chair")), who
