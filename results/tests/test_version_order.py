"""Round versions sort as versions, not as text, wherever the database orders them."""

from __future__ import annotations

import pytest

from results.models import Round, version_order

pytestmark = pytest.mark.django_db


def test_rounds_sort_by_version_numbers_not_text():
    for version in ["2.0", "10.0", "1.1", "9.10", "9.9"]:
        Round.objects.create(version=version, ruleset_version=f"{version}.0")
    assert [r.version for r in Round.objects.all()] == ["10.0", "9.10", "9.9", "2.0", "1.1"]
    ascending = Round.objects.order_by(version_order("version"))
    assert [r.version for r in ascending] == ["1.1", "2.0", "9.9", "9.10", "10.0"]


def test_an_odd_version_text_still_sorts():
    for version in ["v2.0", "10.0-beta", "3"]:
        Round.objects.create(version=version, ruleset_version="1.0.0")
    assert [r.version for r in Round.objects.all()] == ["10.0-beta", "3", "v2.0"]
