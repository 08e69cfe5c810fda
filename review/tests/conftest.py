"""A round in review: Alpha and Beta each submitted version 1 of a closed resnet result.

Personas for the review workflow, besides the shared ones (conftest.py): `reviewer` also
belongs to a third organization, Gamma (a reviewer of another organization), and
`alpha_reviewer` is a reviewer who belongs to Alpha (a reviewer of the accused organization).
"""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group, User

from results.constants import RoundState
from results.models import Organization
from results.tests.factories import make_finding, make_result, make_round, make_submission, make_system


@pytest.fixture
def people(personas):
    gamma = Organization.objects.create(name="Gamma Labs", slug="gamma")
    gamma.members.add(personas["reviewer"])
    alpha_reviewer = User.objects.create_user("alpha-reviewer", "ar@alpha.example", "password")
    alpha_reviewer.groups.add(Group.objects.get_or_create(name="reviewers")[0])
    personas["alpha"].members.add(alpha_reviewer)
    return {**personas, "gamma": gamma, "alpha_reviewer": alpha_reviewer}


@pytest.fixture
def world(people):
    round_ = make_round("1.0", state=RoundState.REVIEW, benchmarks=("resnet",))
    entries = {}
    for key in ("alpha", "beta"):
        submission = make_submission(round_, people[key], published=False, is_current=True)
        system = make_system(submission, f"{key}-sys")
        result = make_result(system, "resnet", minutes=30.0 if key == "alpha" else 28.0)
        make_finding(result)
        entries[key] = result
    return {**people, "round": round_, "alpha_result": entries["alpha"], "beta_result": entries["beta"]}
