"""Waivers of findings no result carries (the package's layout, system descriptions, archive): a
chair of another organization waives one code with a reason; the findings leave every count and
badge like a result's waived findings and name the decision. The checker's report of a version
(review page, upload status API, the waivers export for `mlperf-check --waivers`) marks them."""

from __future__ import annotations

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from audit.models import AuditEvent
from ingest.models import IngestJob, Upload
from results.models import Finding
from results.tests.factories import make_finding
from review import services
from review.services import ReviewRefused

from .test_pages import client_as, statuses

pytestmark = pytest.mark.django_db


@pytest.fixture
def package(world):
    """Alpha's version 1: a package-level layout error, a system-description warning and a result
    error of the same layout code (which a package waiver must not cover)."""
    result = world["alpha_result"]
    submission = result.submission
    Finding.objects.filter(result=result).delete()
    layout = Finding.objects.create(submission=submission, checker="layout", severity="error", code="LAYOUT_EXTRA_FILE",
                                    message="stray file at the package root", file="notes.txt")
    Finding.objects.create(submission=submission, checker="systems", severity="warning", code="SYSTEM_FIELD_MISSING",
                           message="host_memory_capacity is missing", file="systems/alpha-sys.json")
    make_finding(result, severity="error", code="LAYOUT_EXTRA_FILE", checker="layout", message="stray file in the result")
    upload = Upload.objects.create(round=world["round"], organization=world["alpha"], submission=submission,
                                   original_name="alpha.tar.gz", storage_name="x", size_bytes=1, sha256="0" * 64,
                                   version=1)
    IngestJob.objects.create(upload=upload, state="done", finished_at=timezone.now(), error_count=2)
    return {"submission": submission, "layout": layout, "upload": upload, "result": result}


def test_a_chair_waives_a_package_finding_and_it_leaves_every_count(world, package):
    submission, upload = package["submission"], package["upload"]
    api = APIClient()
    api.force_authenticate(world["owner"])
    assert api.get(f"/api/v1/uploads/{upload.pk}/").json()["finding_counts"] == {"error": 2, "warning": 1, "waived": 0}

    waiver = services.waive_package_findings(world["chair"], submission, "LAYOUT_EXTRA_FILE", "the notes file is allowed")

    assert (waiver.system_id, waiver.benchmark, waiver.kind) == ("", "", "false_positive")
    status = api.get(f"/api/v1/uploads/{upload.pk}/").json()
    assert status["finding_counts"] == {"error": 1, "warning": 1, "waived": 1, "waived_error": 1}
    assert status["job"]["summary"] == "done, 1 error"
    waived = [f for f in status["findings"] if f["waived_by"]]
    assert [(f["file"], f["waived_by"]) for f in waived] == [("notes.txt", {
        "id": waiver.pk, "kind": "false_positive", "label": "Known false positive", "code": "LAYOUT_EXTRA_FILE",
        "reason": "the notes file is allowed"})]
    # The result's finding of the same code is not the package's: it still counts.
    assert Finding.objects.filter(result=package["result"]).not_waived().count() == 1
    event = AuditEvent.objects.get(kind="finding.waived")
    assert (event.subject, event.result_id, event.actor_name, event.submission_id) == (
        f"waiver {waiver.pk}", "", "chair", submission.pk)
    assert "the notes file is allowed" in world["owner"].notifications.get().message


def test_who_may_waive_a_package_finding(world, package):
    submission = package["submission"]
    for who in ("reviewer", "outsider", "owner"):
        with pytest.raises(ReviewRefused, match="only a chair"):
            services.waive_package_findings(world[who], submission, "LAYOUT_EXTRA_FILE", "fine")
    world["alpha"].members.add(world["chair"])
    with pytest.raises(ReviewRefused, match="conflict of interest"):
        services.waive_package_findings(world["chair"], submission, "LAYOUT_EXTRA_FILE", "fine")
    world["alpha"].members.remove(world["chair"])
    with pytest.raises(ReviewRefused, match="a reason is required"):
        services.waive_package_findings(world["chair"], submission, "LAYOUT_EXTRA_FILE", " ")
    with pytest.raises(ReviewRefused, match="no package finding with code 'SEED_REPEATED'"):
        services.waive_package_findings(world["chair"], submission, "SEED_REPEATED", "fine")
    services.waive_package_findings(world["chair"], submission, "LAYOUT_EXTRA_FILE", "fine")
    with pytest.raises(ReviewRefused, match="already has") as refused:
        services.waive_package_findings(world["chair"], submission, "LAYOUT_EXTRA_FILE", "again")
    assert refused.value.status == 409


def test_the_version_report_page_persona_and_the_waive_form(world, package):
    submission = package["submission"]
    url = f"/review/versions/{submission.pk}/"
    # In review: the organization, the peers of the round and the review team read it; not the public.
    assert statuses(world, url) == {
        "anonymous": 404, "owner": 200, "outsider": 200, "reviewer": 200, "alpha_reviewer": 200, "chair": 200,
    }
    forms = {who: 'id="package-waive-form"' in client_as(world, who).get(url).content.decode()
             for who in ("owner", "outsider", "reviewer", "chair")}
    assert forms == {"owner": False, "outsider": False, "reviewer": False, "chair": True}
    waive = f"/review/versions/{submission.pk}/waivers/"
    data = {"code": "LAYOUT_EXTRA_FILE", "reason": "the notes file is allowed"}
    assert statuses(world, waive, "post", data) == {
        "anonymous": 302, "owner": 403, "outsider": 403, "reviewer": 403, "alpha_reviewer": 403, "chair": 302,
    }
    page = client_as(world, "owner").get(url).content.decode()
    waiver_pk = package["layout"].submission.findings.with_waiver().get(pk=package["layout"].pk).waiver_id
    assert f"waived by decision {waiver_pk} (Known false positive LAYOUT_EXTRA_FILE, the notes file is allowed)" in page
    assert "1 error, 1 warning, 0 notes not waived · 1 waived by a decision" in page
    assert client_as(world, "chair").get(url).context["waivable_codes"] == ["SYSTEM_FIELD_MISSING"]


def test_the_waivers_export_for_mlperf_check(world, package, tmp_path):
    submission = package["submission"]
    services.waive_package_findings(world["chair"], submission, "LAYOUT_EXTRA_FILE", "the notes file is allowed")
    bypass = services.grant_waiver(world["reviewer"], package["result"], "rcp_bypass", "RCP table gap")
    url = f"/api/v1/review/versions/{submission.pk}/waivers/"
    assert statuses(world, url) == {
        "anonymous": 404, "owner": 200, "outsider": 200, "reviewer": 200, "alpha_reviewer": 200, "chair": 200,
    }
    document = client_as(world, "owner").get(url).json()
    assert {k: document[k] for k in ("format", "round", "organization", "version")} == {
        "format": "mlperf-check-waivers/1", "round": "training-v1.0", "organization": "alpha", "version": 1}
    assert [(w["kind"], w["checker"], w["code"], w["system"], w["benchmark"]) for w in document["waivers"]] == [
        ("false_positive", "", "LAYOUT_EXTRA_FILE", "", ""),
        ("rcp_bypass", "rcp", "", "alpha-sys", "resnet"),
    ]
    assert document["waivers"][1]["id"] == bypass.pk and "granted_by" not in document["waivers"][1]
    # mlperf-check --waivers reads the export as the server wrote it.
    from mlperf_check.waivers import load_waivers

    exported = tmp_path / "waivers.json"
    exported.write_text(client_as(world, "owner").get(url).content.decode())
    assert [(w.id, w.checker, w.code, w.system) for w in load_waivers(exported)] == [
        (document["waivers"][0]["id"], "", "LAYOUT_EXTRA_FILE", ""), (bypass.pk, "rcp", "", "alpha-sys"),
    ]
