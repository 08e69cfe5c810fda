"""Shipped scaling factors as decisions: import_results --published-factors, a reviewer accepting
or rejecting a shipped factor, the exports' two views and factor-source columns, the page marks.

The bundled v3.0 sample is real: GIGABYTE's G593-SD0_hugectr dlrm_dcnv2 folder ships 1.0370762711864403
while its logs give 1.0324858757062145 (the official summary published 4.255690011475988 minutes),
and IEI's nf5468m6_mxnet resnet folder ships exactly the factor its logs give.
"""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.contrib.auth.models import Group, User
from django.core.management import call_command
from django.core.management.base import CommandError

from audit.models import AuditEvent
from results.models import Finding, Organization, Result, Round, Submission, Waiver
from results.services.factors import (
    NO_SHIPPED_FACTOR_REASON,
    SHIPPED_FACTOR_REASON,
    DecisionRefused,
    accept_shipped_factor,
    reject_shipped_factor,
)
from results.services.training_import import waivers_for

pytestmark = pytest.mark.django_db

ROUND = "training-v3.0"
PUBLISHED_DLRM = 4.255690011475988  # reference/v3.0_summary_mlperf_logging_4.1.68.csv
LOGS_DLRM = 4.236853113229754
IEI_RESNET = 66.69938993894993


def import_round(path, *extra) -> str:
    out = io.StringIO()
    call_command("import_results", str(path), "--round", ROUND, "--jobs", "1", *extra, stdout=out)
    return out.getvalue()


def export(*extra) -> str:
    out = io.StringIO()
    call_command("export_scores", "--round", ROUND, *extra, stdout=out)
    return out.getvalue()


def dlrm() -> Result:
    return Result.objects.select_related("system", "benchmark", "submission__organization").get(
        system__system_id="G593-SD0_hugectr", benchmark__name="dlrm_dcnv2"
    )


def resnet() -> Result:
    return Result.objects.get(system__system_id="nf5468m6_mxnet", benchmark__name="resnet")


@pytest.fixture
def chair(personas):
    return personas["chair"]


@pytest.fixture
def v30(sample_data):
    return sample_data / "training-v3.0"


def test_without_the_flag_the_logs_decide(v30):
    import_round(v30, "--publish")
    result = dlrm()
    assert (result.score_minutes, result.scaling_factor, result.factor_source) == (
        LOGS_DLRM, 1.0324858757062145, "computed"
    )
    assert result.computed_score_minutes == LOGS_DLRM
    assert result.shipped_scaling_factor == 1.0370762711864403
    assert result.findings.get(code="SHIPPED_FACTOR_LARGER").severity == "warning"
    assert resnet().score_minutes == IEI_RESNET
    assert resnet().findings.get(code="SHIPPED_FACTOR_EQUAL").severity == "info"
    assert not Waiver.objects.exists()


def test_published_factors_are_recorded_as_the_chairs_decisions(v30, chair):
    out = import_round(v30, "--publish", "--published-factors", "--chair", "chair")
    assert "GIGABYTE: created (1 results, 10 runs); 1 published scaling factor decision(s) recorded" in out
    result = dlrm()
    assert (result.score_minutes, result.scaling_factor, result.factor_source) == (
        PUBLISHED_DLRM, 1.0370762711864403, "decision"
    )
    assert (result.computed_score_minutes, result.computed_scaling_factor) == (LOGS_DLRM, 1.0324858757062145)
    [decision] = Waiver.objects.all()
    assert (decision.kind, decision.system_id, decision.benchmark, decision.organization.slug) == (
        "published_factor", "G593-SD0_hugectr", "dlrm_dcnv2", "gigabyte"
    )
    assert (decision.factor, decision.accepted, decision.granted_by, decision.reason) == (
        1.0370762711864403, True, chair, SHIPPED_FACTOR_REASON
    )
    [event] = AuditEvent.objects.filter(kind__startswith="factor.")  # every decision is on record
    assert (event.kind, event.actor, event.organization.slug, event.result_id, event.subject) == (
        "factor.accepted", chair, "gigabyte", "", f"decision {decision.pk}"
    )
    assert event.data == {"factor": 1.0370762711864403, "system": "G593-SD0_hugectr", "benchmark": "dlrm_dcnv2"}
    # IEI ships the factor its logs give: nothing to decide.
    assert (resnet().score_minutes, resnet().factor_source) == (IEI_RESNET, "computed")


def test_it_is_idempotent_and_a_decision_stays_in_force_without_the_flag(v30, chair):
    import_round(v30, "--published-factors", "--chair", "chair")
    before = (list(Waiver.objects.values()), list(Result.objects.values().order_by("pk")),
              list(Submission.objects.values().order_by("pk")))
    assert import_round(v30, "--published-factors", "--chair", "chair").count(": unchanged") == 2
    assert import_round(v30).count(": unchanged") == 2
    after = (list(Waiver.objects.values()), list(Result.objects.values().order_by("pk")),
             list(Submission.objects.values().order_by("pk")))
    assert after == before
    assert dlrm().score_minutes == PUBLISHED_DLRM
    assert AuditEvent.objects.filter(kind__startswith="factor.").count() == 1  # an unchanged decision is not recorded again


def test_a_decision_recorded_after_an_import_applies_on_the_next_import(v30, chair):
    import_round(v30)
    assert dlrm().factor_source == "computed"
    import_round(v30, "--published-factors", "--chair", "chair")  # same files: "unchanged", decided now
    assert (dlrm().score_minutes, dlrm().factor_source) == (PUBLISHED_DLRM, "decision")


def test_a_folder_without_scaling_json_is_published_with_factor_one(v30, chair, tmp_path):
    import shutil

    copy = tmp_path / "training-v3.0"
    shutil.copytree(v30, copy)
    (copy / "GIGABYTE/results/G593-SD0_hugectr/dlrm_dcnv2/scaling.json").unlink()
    import_round(copy, "--published-factors", "--chair", "chair")
    result = dlrm()
    assert result.shipped_scaling_factor is None
    assert (result.scaling_factor, result.score_minutes, result.factor_source) == (1.0, result.mean_minutes, "decision")
    assert Waiver.objects.get().reason == NO_SHIPPED_FACTOR_REASON
    assert result.findings.get(code="SHIPPED_FACTOR_ABSENT").severity == "info"


def test_a_malformed_scaling_json_decides_nothing(v30, chair, tmp_path):
    import shutil

    copy = tmp_path / "training-v3.0"
    shutil.copytree(v30, copy)
    (copy / "GIGABYTE/results/G593-SD0_hugectr/dlrm_dcnv2/scaling.json").write_text('{"scaling_factor": "1.1"}')
    import_round(copy, "--published-factors", "--chair", "chair")
    assert (dlrm().score_minutes, dlrm().factor_source, dlrm().shipped_scaling_factor) == (LOGS_DLRM, "computed", None)
    assert not Waiver.objects.exists()
    assert dlrm().findings.get(code="SHIPPED_FACTOR_MALFORMED").severity == "error"


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--published-factors"], "name the chair with --chair"),
        (["--published-factors", "--chair", "nobody"], "--chair nobody: no such user"),
        (["--published-factors", "--chair", "reviewer"], "reviewer: only a chair records the factors"),
    ],
)
def test_published_factors_need_a_chair(v30, personas, extra, message):
    with pytest.raises(CommandError, match=message):
        import_round(v30, *extra)
    assert not Waiver.objects.exists() and not Submission.objects.exists()


# -- the exports ------------------------------------------------------------------------------------


def test_export_scores_gives_either_view_with_the_factor_source(v30, chair):
    import_round(v30, "--published-factors", "--chair", "chair")
    for extra, score, source in [((), PUBLISHED_DLRM, "decision"), (("--factors", "decided"), PUBLISHED_DLRM, "decision"),
                                 (("--factors", "computed"), LOGS_DLRM, "computed")]:
        rows = list(csv.DictReader(io.StringIO(export(*extra))))
        gigabyte = next(row for row in rows if row["system_id"] == "G593-SD0_hugectr")
        assert (float(gigabyte["dlrm_dcnv2"]), gigabyte["dlrm_dcnv2_factor_source"]) == (score, source), extra
        assert gigabyte["resnet_factor_source"] == ""  # no result
        iei = next(row for row in rows if row["system_id"] == "nf5468m6_mxnet")
        assert (float(iei["resnet"]), iei["resnet_factor_source"]) == (IEI_RESNET, "computed")
    document = json.loads(export("--format", "json", "--factors", "computed"))
    assert document["factors"] == "computed" and "dlrm_dcnv2_factor_source" in document["columns"]
    with pytest.raises(CommandError):
        export("--factors", "shipped")


def test_the_dashboard_downloads_carry_the_factor_source_and_either_view(client, v30, chair):
    import_round(v30, "--publish", "--published-factors", "--chair", "chair")
    table = client.get(f"/rounds/{ROUND}/table.json").json()
    gigabyte = next(row for row in table["rows"] if row["system_id"] == "G593-SD0_hugectr")
    assert (gigabyte["dlrm_dcnv2"], gigabyte["dlrm_dcnv2_factor_source"]) == (PUBLISHED_DLRM, "decision")
    table = client.get(f"/rounds/{ROUND}/table.json", {"factors": "computed"}).json()
    gigabyte = next(row for row in table["rows"] if row["system_id"] == "G593-SD0_hugectr")
    assert (gigabyte["dlrm_dcnv2"], gigabyte["dlrm_dcnv2_factor_source"]) == (LOGS_DLRM, "computed")
    rows = list(csv.DictReader(io.StringIO(client.get(f"/rounds/{ROUND}/summary.csv").content.decode())))
    assert float(next(r for r in rows if r["system_id"] == "G593-SD0_hugectr")["dlrm_dcnv2"]) == PUBLISHED_DLRM
    csv_text = client.get(f"/rounds/{ROUND}/table.csv", {"factors": "nonsense"}).content.decode()
    assert "dlrm_dcnv2_factor_source" in csv_text.splitlines()[0] and "decision" in csv_text


@pytest.mark.parametrize(
    ("persona", "status"),
    [("anonymous", 404), ("outsider", 404), ("owner", 404), ("reviewer", 200), ("chair", 200)],
)
def test_unpublished_scores_in_either_view_only_reach_who_may_see_them(client, v30, personas, persona, status):
    import_round(v30, "--published-factors", "--chair", "chair")  # not published
    if personas[persona] is not None:
        client.force_login(personas[persona])
    for path in (f"/rounds/{ROUND}/table.csv", f"/rounds/{ROUND}/summary.csv"):
        response = client.get(path, {"factors": "computed"})
        assert response.status_code == status, (persona, path)


# -- the pages --------------------------------------------------------------------------------------


def test_the_result_page_and_round_table_mark_a_decided_factor(client, v30, chair, personas):
    import_round(v30, "--publish", "--published-factors", "--chair", "chair")
    page = client.get(f"/results/{dlrm().result_id}/").content.decode()
    assert "Score rests on a decided scaling factor" in page
    assert "The score uses the factor 1.0370762711864403: shipped in the published package" in page
    assert "The logs give the factor 1.0324858757062145 and the score 4.24 minutes" in page
    assert "by chair" not in page  # who decided is for reviewers and chairs
    client.force_login(personas["reviewer"])
    assert "by chair" in client.get(f"/results/{dlrm().result_id}/").content.decode()
    client.logout()
    round_page = client.get(f"/rounds/{ROUND}/").content.decode()
    assert round_page.count('class="decided-mark"') == 1
    assert "† the score rests on a decided scaling factor" in round_page
    assert "Score rests on" not in client.get(f"/results/{resnet().result_id}/").content.decode()


def test_the_api_gives_both_scores_and_the_factor_source(client, v30, chair):
    import_round(v30, "--publish", "--published-factors", "--chair", "chair")
    data = client.get(f"/api/v1/results/{dlrm().result_id}/").json()
    assert (data["score_minutes"], data["scaling_factor"], data["factor_source"]) == (
        PUBLISHED_DLRM, 1.0370762711864403, "decision"
    )
    assert (data["computed_score_minutes"], data["computed_scaling_factor"], data["shipped_scaling_factor"]) == (
        LOGS_DLRM, 1.0324858757062145, 1.0370762711864403
    )


def test_the_result_page_names_a_shipped_factor_that_is_not_applied(client, v30):
    import_round(v30, "--publish")
    page = client.get(f"/results/{dlrm().result_id}/").content.decode()
    assert "The package ships the factor 1.0370762711864403 (scaling.json); it is not applied" in page
    assert "Score rests on" not in page


# -- reviewers deciding on a shipped factor ---------------------------------------------------------


@pytest.fixture
def imported(v30, personas):
    import_round(v30)
    return personas


def test_a_reviewer_accepts_then_rejects_a_shipped_factor(imported):
    reviewer = imported["reviewer"]
    submission = dlrm().submission
    before = submission.updated_at
    decision = accept_shipped_factor(dlrm(), by=reviewer, reason="RCP bypass granted in review")
    assert (decision.kind, decision.factor, decision.accepted, decision.granted_by) == (
        "published_factor", 1.0370762711864403, True, reviewer
    )
    assert (dlrm().score_minutes, dlrm().factor_source) == (PUBLISHED_DLRM, "decision")
    assert Submission.objects.get(pk=submission.pk).updated_at > before  # the page cache moves on
    decision = reject_shipped_factor(dlrm(), by=imported["chair"], reason="the logs do not support it")
    assert (decision.accepted, decision.granted_by, decision.reason) == (False, imported["chair"], "the logs do not support it")
    assert (dlrm().score_minutes, dlrm().factor_source) == (LOGS_DLRM, "computed")
    assert Waiver.objects.count() == 1  # one decision per result, the one in force
    events = AuditEvent.objects.filter(kind__startswith="factor.").order_by("pk")
    assert [(e.kind, e.actor, e.result_id) for e in events] == [
        ("factor.accepted", reviewer, dlrm().result_id), ("factor.rejected", imported["chair"], dlrm().result_id),
    ]
    # A rejected decision is no bypass of anything either.
    assert waivers_for(Round.objects.get(), "gigabyte") == frozenset()


@pytest.mark.parametrize("decide", [accept_shipped_factor, reject_shipped_factor])
@pytest.mark.parametrize("persona", ["owner", "outsider", "teammate"])
def test_only_reviewers_and_chairs_decide(imported, decide, persona):
    with pytest.raises(DecisionRefused, match="only reviewers and chairs"):
        decide(dlrm(), by=imported[persona], reason="why not")
    assert not Waiver.objects.exists() and dlrm().factor_source == "computed"


@pytest.mark.parametrize("decide", [accept_shipped_factor, reject_shipped_factor])
@pytest.mark.parametrize("persona", ["reviewer", "chair"])
def test_a_reviewer_never_decides_on_their_own_organizations_result(imported, decide, persona):
    Organization.objects.get(slug="gigabyte").members.add(imported[persona])
    with pytest.raises(DecisionRefused, match="conflict of interest"):
        decide(dlrm(), by=imported[persona], reason="ours is fine")
    assert not Waiver.objects.exists() and dlrm().factor_source == "computed"


def test_there_must_be_something_to_decide_and_a_reason(imported):
    reviewer = imported["reviewer"]
    with pytest.raises(DecisionRefused, match="agrees with the logs"):
        accept_shipped_factor(resnet(), by=reviewer, reason="fine")
    with pytest.raises(DecisionRefused, match="needs a reason"):
        accept_shipped_factor(dlrm(), by=reviewer, reason="  ")
    Result.objects.filter(pk=dlrm().pk).update(shipped_scaling_factor=None)
    with pytest.raises(DecisionRefused, match="ships no readable scaling.json"):
        reject_shipped_factor(dlrm(), by=reviewer, reason="none")
    assert not Waiver.objects.exists()


def test_a_staff_user_in_no_group_may_decide(imported):
    staff = User.objects.create_user("staff", is_staff=True)
    accept_shipped_factor(dlrm(), by=staff, reason="chair's delegate")
    assert dlrm().factor_source == "decision"
    assert not Group.objects.filter(user=staff).exists()


def test_the_finding_rows_name_both_factors(imported):
    finding = Finding.objects.get(code="SHIPPED_FACTOR_LARGER")
    assert (finding.expected, finding.actual) == ("1.0324858757062145", "1.0370762711864403")
    assert finding.result == dlrm() and finding.file.endswith("dlrm_dcnv2/scaling.json")


# -- the whole v3.0 round of the corpus -------------------------------------------------------------


@pytest.mark.corpus
def test_the_v30_round_is_reproduced_with_published_factors_and_explained_without(corpus, chair):
    """Every score of the official v3.0 summary, from export_scores: with --published-factors all
    19 match; with the factors the logs give, exactly the two dlrm_dcnv2 scores differ, each with
    the finding that says why."""
    reference = {}
    with (corpus / "reference/v3.0_summary_mlperf_logging_4.1.68.csv").open() as stream:
        for row in csv.DictReader(stream):
            system_id = row["details_url"].rsplit("/", 1)[1].removesuffix(".json")
            for benchmark in ("bert", "dlrm_dcnv2", "gpt3", "maskrcnn", "resnet", "ssd", "rnnt", "unet3d"):
                if row[benchmark]:
                    reference[(system_id, benchmark)] = float(row[benchmark])
    assert len(reference) == 19
    import_round(corpus / "v3.0", "--publish", "--published-factors", "--chair", "chair")

    def differing(factors: str) -> dict:
        rows = {row["system_id"]: row for row in csv.DictReader(io.StringIO(export("--factors", factors)))}
        return {
            key: (float(rows[key[0]][key[1]]), rows[key[0]][f"{key[1]}_factor_source"])
            for key, published in reference.items()
            if abs(float(rows[key[0]][key[1]]) - published) > 1e-9 * published
        }

    assert differing("decided") == {}
    assert differing("computed") == {
        ("G593-SD0_hugectr", "dlrm_dcnv2"): (LOGS_DLRM, "computed"),
        ("nf5468m6_hugectr", "dlrm_dcnv2"): (41.247515376984126, "computed"),
    }
    decided = Result.objects.filter(factor_source="decision")
    assert sorted(decided.values_list("system__system_id", flat=True)) == ["G593-SD0_hugectr", "nf5468m6_hugectr"]
    for result in decided:
        assert result.findings.filter(code="SHIPPED_FACTOR_LARGER").count() == 1
    assert Waiver.objects.filter(kind="published_factor", reason=SHIPPED_FACTOR_REASON).count() == 2
    assert Finding.objects.filter(checker="shipped_factors").count() == 10  # one per shipped scaling.json


def test_the_admin_cannot_set_a_factor_decision_behind_the_services(imported, rf, personas):
    # Decisions are taken through the services (conflict of interest, audit); the admin reads them.
    from django.contrib.admin.sites import site

    waiver_admin = site._registry[Waiver]
    request = rf.get("/admin/")
    request.user = personas["chair"]
    assert not waiver_admin.has_add_permission(request)
    assert not waiver_admin.has_change_permission(request)
    assert (dlrm().score_minutes, dlrm().factor_source) == (LOGS_DLRM, "computed")


def test_a_scaling_factor_decision_needs_a_positive_factor(imported):
    from django.db import IntegrityError, transaction

    result = dlrm()
    for factor in (None, 0.0, -1.0):
        with pytest.raises(IntegrityError), transaction.atomic():
            Waiver.objects.create(
                round=result.submission.round, organization=result.submission.organization,
                system_id="G593-SD0_hugectr", benchmark="dlrm_dcnv2", kind="published_factor", factor=factor,
                reason="a number nobody checked",
            )
    # Bypasses carry no factor.
    Waiver.objects.create(
        round=result.submission.round, organization=result.submission.organization,
        system_id="G593-SD0_hugectr", benchmark="dlrm_dcnv2", kind="rcp_bypass", reason="granted",
    )
