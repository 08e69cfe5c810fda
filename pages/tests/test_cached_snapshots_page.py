"""The anonymous page cache (pages/caching.py) keys on a data version that sees snapshots: beat
takes them in a worker process, and the snapshots page a visitor reads right after must list them."""

from __future__ import annotations

import pytest

from pages.snapshots import take_snapshot
from results.services.rounds import publish_round
from results.tests.factories import make_result, make_round, make_submission, make_system

pytestmark = pytest.mark.django_db


def test_a_snapshot_taken_elsewhere_shows_on_the_cached_snapshots_page(client, personas, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    round_ = make_round("4.1", state="review")
    make_result(make_system(make_submission(round_, personas["alpha"]), "box"), "resnet", minutes=20.0)
    publish_round(round_, actor=personas["chair"], reason="press release")
    address = f"/rounds/{round_.slug}/snapshots/"
    assert "No snapshot yet" in client.get(address).content.decode()  # now in the cache
    assert take_snapshot(round_).number == 1  # as the beat task in a worker does: no signal reaches us
    assert "Snapshot 1" in client.get(address).content.decode()
