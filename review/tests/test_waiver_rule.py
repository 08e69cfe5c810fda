"""Where a waiver takes effect: one rule, mlperf_check/waivers.py. The server applies it in SQL
(FindingQuerySet.covering_waivers: every count, badge and recount), the offline command in Python
on the server's export of a version's decisions (`mlperf-check --waivers`). On the same decisions
and findings both waive the same findings, each with the same decision."""

from __future__ import annotations

import itertools
import json
from collections import Counter

import pytest

from mlperf_check import waivers as rule
from results.constants import WaiverKind
from results.models import Finding, Waiver
from results.services.training_import import waivers_for
from results.tests.factories import make_result, make_round, make_system
from review.findings import waivers_document

pytestmark = pytest.mark.django_db

# Every checker a decision names, one it does not, and none: the checker's findings always name
# one, yet the rule decides a finding without one too (a decision that names no checker never
# covers it).
CHECKERS = ("rcp", "seeds", "layout", "")
CODES = ("RCP_FAILED", "SEED_REUSED", "LAYOUT_EXTRA_FILE")


@pytest.fixture
def decided(world):
    """Alpha's version with an error of every checker and code in three scopes (its two results'
    and the package's), a run's finding, and decisions of every kind: in force, rejected, another
    organization's and another round's."""
    alpha = world["alpha_result"]
    submission = alpha.submission
    other = make_result(make_system(submission, "alpha-sys-2"), "resnet")
    Finding.objects.filter(submission=submission).delete()
    for result, checker, code in itertools.product((alpha, other, None), CHECKERS, CODES):
        Finding.objects.create(submission=submission, result=result, checker=checker, code=code, severity="error",
                               message=f"{checker} {code}")
    Finding.objects.create(submission=submission, result=alpha, run=alpha.runs.first(), checker="seeds",
                           code="SEED_REUSED", severity="error", message="a run's finding")

    def decide(label, system_id, benchmark, kind, code="", **fields):
        fields.setdefault("round", world["round"])
        fields.setdefault("organization", world["alpha"])
        return Waiver.objects.create(system_id=system_id, benchmark=benchmark, kind=kind, code=code, reason=label,
                                     **fields)

    decide("rcp bypass", "alpha-sys", "resnet", WaiverKind.RCP_BYPASS)
    decide("false positive after the bypass", "alpha-sys", "resnet", WaiverKind.KNOWN_FALSE_POSITIVE, "RCP_FAILED")
    decide("factor", "alpha-sys", "resnet", WaiverKind.PUBLISHED_FACTOR, factor=1.1)
    decide("false positive", "alpha-sys-2", "resnet", WaiverKind.KNOWN_FALSE_POSITIVE, "SEED_REUSED")
    decide("rejected", "alpha-sys-2", "resnet", WaiverKind.SEED_BYPASS, accepted=False)
    decide("package false positive", "", "", WaiverKind.KNOWN_FALSE_POSITIVE, "LAYOUT_EXTRA_FILE")
    decide("package seed bypass", "", "", WaiverKind.SEED_BYPASS)
    decide("beta's", "alpha-sys", "resnet", WaiverKind.KNOWN_FALSE_POSITIVE, "LAYOUT_EXTRA_FILE",
           organization=world["beta"])
    decide("another round's", "alpha-sys-2", "resnet", WaiverKind.RCP_BYPASS, round=make_round("2.0", benchmarks=()))
    return submission


def test_the_kinds_the_rule_names_are_the_databases():
    assert (rule.RCP_BYPASS, rule.SEED_BYPASS, rule.KNOWN_FALSE_POSITIVE) == (
        WaiverKind.RCP_BYPASS, WaiverKind.SEED_BYPASS, WaiverKind.KNOWN_FALSE_POSITIVE
    )


def test_the_server_and_the_offline_rule_waive_the_same_findings_with_the_same_decision(decided, tmp_path):
    export = tmp_path / "waivers.json"
    export.write_text(json.dumps(waivers_document(decided)))
    decisions = rule.load_waivers(export)
    findings = list(Finding.objects.filter(submission=decided).with_waiver().select_related(
        "result__system", "result__benchmark"))
    assert len(findings) == 3 * len(CHECKERS) * len(CODES) + 1

    for finding in findings:
        scope = (finding.result.system.system_id, finding.result.benchmark.name) if finding.result else rule.PACKAGE_SCOPE
        offline = rule.waiver_covering(decisions, scope, finding.checker, finding.code)
        assert finding.waiver_id == (offline.id if offline else None), (scope, finding.checker, finding.code)
    # not_waived (the counts, the recount) agrees with with_waiver (the marks).
    open_ = set(Finding.objects.filter(submission=decided).not_waived().values_list("pk", flat=True))
    assert open_ == {f.pk for f in findings if f.waiver_id is None}
    # What each decision waived: a bypass its checker's findings, a false positive its code's, in
    # its own scope, the first decision by id when two cover one; the rest nothing.
    reasons = dict(Waiver.objects.values_list("pk", "reason"))
    assert Counter(reasons[f.waiver_id] for f in findings if f.waiver_id) == {
        "rcp bypass": 3, "false positive after the bypass": 3, "false positive": 4, "package false positive": 4,
        "package seed bypass": 2,
    }


def test_the_checks_take_the_bypasses_in_force_only(decided):
    """The decisions the checks themselves take (the RCP verdict, the seeds checker)."""
    assert waivers_for(decided.round, "alpha") == {("alpha-sys", "resnet", "rcp_bypass"), ("", "", "seed_bypass")}
