"""Decisions that take effect: a waiver takes the findings it covers out of every count and
badge at once (review queue, result page, round and benchmark tables, the upload's checker
output) and each waived finding names the decision; a known false positive is a chair's waiver
of one finding code, with a reason."""

from __future__ import annotations

import pytest
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from ingest.models import IngestJob, Upload
from results.models import Finding, Result
from results.tests.factories import make_finding
from review import services
from review.services import ReviewRefused

pytestmark = pytest.mark.django_db


@pytest.fixture
def errors(world):
    """Alpha's result: a seed error, an RCP error and a layout error (package level too)."""
    result = world["alpha_result"]
    Finding.objects.filter(result=result).delete()
    make_finding(result, severity="error", code="SEED_REPEATED")
    make_finding(result, severity="error", code="RCP_FAIL", checker="rcp", message="converged too fast")
    make_finding(result, severity="error", code="LAYOUT_EXTRA_FILE", checker="layout", message="stray file")
    return result


def unwaived(result) -> int:
    """The result's error findings nobody waived, as the review pages count them (a subquery per
    result) and as the round and benchmark pages do (one grouped query): the two agree."""
    annotated = Result.objects.filter(pk=result.pk).annotate(n=Finding.objects.unwaived_errors_of()).get().n
    assert Finding.objects.filter(submission=result.submission).unwaived_error_counts().get(result.pk, 0) == annotated
    return annotated


def test_a_bypass_waives_its_checkers_findings_and_a_false_positive_its_code(world, errors):
    assert unwaived(errors) == 3
    services.grant_waiver(world["reviewer"], errors, "seed_bypass", "seeds come from the launcher")
    assert unwaived(errors) == 2
    fp = services.grant_waiver(world["chair"], errors, "false_positive", "the file is the README", code="LAYOUT_EXTRA_FILE")
    assert unwaived(errors) == 1
    waived = {f.code: f.waiver_id for f in Finding.objects.with_waiver().filter(result=errors)}
    assert waived["LAYOUT_EXTRA_FILE"] == fp.pk and waived["RCP_FAIL"] is None and waived["SEED_REPEATED"]
    # Beta's findings of the same code are not Alpha's decision.
    make_finding(world["beta_result"], severity="error", code="LAYOUT_EXTRA_FILE", checker="layout")
    assert unwaived(world["beta_result"]) == 1


def test_a_result_pages_counts_of_its_read_findings_are_the_databases(world, errors):
    """A result's pages count the findings they list (review.findings.read_finding_counts) instead of
    asking the database again: the same counts as finding_counts, waived ones apart."""
    from review.findings import finding_counts, read_finding_counts, with_waivers

    make_finding(errors, severity="warning", code="LOW_BATCH", checker="layout")
    make_finding(errors, severity="info", code="NOTE", checker="layout")

    def both() -> dict:
        read = read_finding_counts(with_waivers(Finding.objects.with_waiver().filter(result=errors)))
        assert read == finding_counts(errors.findings.all())
        return read

    assert both() == {"error": 3, "warning": 1, "info": 1, "waived": 0}
    services.grant_waiver(world["reviewer"], errors, "seed_bypass", "seeds come from the launcher")
    services.grant_waiver(world["chair"], errors, "false_positive", "a note", code="NOTE")
    assert both() == {"error": 2, "warning": 1, "waived": 2, "waived_error": 1, "waived_info": 1}
    assert read_finding_counts([]) == finding_counts(Finding.objects.none()) == {"waived": 0}


def test_a_known_false_positive_is_a_chairs_decision_with_a_reason_on_a_code_the_result_has(world, errors):
    with pytest.raises(ReviewRefused, match="only a chair"):
        services.grant_waiver(world["reviewer"], errors, "false_positive", "wrong", code="RCP_FAIL")
    with pytest.raises(ReviewRefused, match="no finding with code"):
        services.grant_waiver(world["chair"], errors, "false_positive", "wrong", code="NOT_A_CODE")
    with pytest.raises(ReviewRefused, match="reason"):
        services.grant_waiver(world["chair"], errors, "false_positive", " ", code="RCP_FAIL")
    assert services.waiver_kinds_for(world["reviewer"]) == ["rcp_bypass", "seed_bypass"]
    assert "false_positive" in services.waiver_kinds_for(world["chair"])
    services.grant_waiver(world["chair"], errors, "false_positive", "rule misread", code="RCP_FAIL")
    with pytest.raises(ReviewRefused, match="already has"):
        services.grant_waiver(world["chair"], errors, "false_positive", "again", code="RCP_FAIL")


def test_the_pages_and_the_upload_status_count_only_what_no_decision_waived(world, errors):
    result_id = errors.result_id
    reviewer = Client()
    reviewer.force_login(world["reviewer"])
    assert "3 checker errors not waived" in reviewer.get(f"/results/{result_id}/").content.decode()
    upload = Upload.objects.create(round=world["round"], organization=world["alpha"], submission=errors.submission,
                                   original_name="alpha.tar.gz", storage_name="x", size_bytes=1, sha256="0" * 64,
                                   version=1)
    IngestJob.objects.create(upload=upload, state="done", finished_at=timezone.now(), error_count=3)
    api = APIClient()
    api.force_authenticate(world["owner"])
    assert api.get(f"/api/v1/uploads/{upload.pk}/").json()["finding_counts"] == {"error": 3, "waived": 0}

    waiver = services.grant_waiver(world["reviewer"], errors, "rcp_bypass", "RCP table gap for this batch")

    page = reviewer.get(f"/results/{result_id}/").content.decode()
    assert "2 checker errors not waived" in page
    assert f"waived by decision {waiver.pk}" in page and "RCP table gap for this batch" in page
    status = api.get(f"/api/v1/uploads/{upload.pk}/").json()
    assert status["finding_counts"] == {"error": 2, "waived": 1, "waived_error": 1}
    assert status["job"]["error_count"] == 2 and status["job"]["summary"] == "done, 2 errors"
    assert {f["code"]: f["waiver"] for f in status["findings"]}["RCP_FAIL"] == waiver.pk
    queue = reviewer.get("/review/?round=training-v1.0").context["rows"]
    assert {row.result_id: row.errors for row in queue}[result_id] == 2
    review_page = reviewer.get(f"/review/results/{result_id}/").content.decode()
    assert f"waived by decision {waiver.pk}" in review_page


def test_a_waiver_reaches_the_cached_public_pages_at_once(world, errors, client):
    services.move_round(world["chair"], world["round"], "final", "frozen")
    services.move_round(world["chair"], world["round"], "published", "on time")
    url = f"/results/{errors.result_id}/"
    assert "3 checker errors not waived" in client.get(url).content.decode()
    assert "3 checker errors not waived" in client.get(url).content.decode()  # served from the cache
    services.grant_waiver(world["reviewer"], errors, "seed_bypass", "launcher seeds")
    assert "2 checker errors not waived" in client.get(url).content.decode()


def test_an_inference_result_page_names_the_decision_that_waived_a_finding(client, sample_data, personas):
    from django.core.management import call_command

    call_command("import_results", str(sample_data / "inference-v0.7"), "--round", "inference-v0.7", "--publish",
                 stdout=None)
    result = Result.objects.get(submission__organization__slug="altos", scenario="Server")
    finding = Finding.objects.create(submission=result.submission, result=result, checker="loadgen", severity="warning",
                                     code="LOADGEN_WARNING", message="a LoadGen warning", file="mlperf_log_detail.txt")
    url = f"/results/{result.result_id}/"
    assert "waived by decision" not in client.get(url).content.decode()
    waiver = services.grant_waiver(personas["chair"], result, "false_positive", "expected on this SUT",
                                   code="LOADGEN_WARNING")
    page = client.get(url).content.decode()
    assert f'id="waived-{finding.pk}">waived by decision {waiver.pk}' in page and "expected on this SUT" in page


def test_the_queue_counts_only_warnings_no_decision_waived(world):
    reviewer = Client()
    reviewer.force_login(world["reviewer"])
    result_id = world["alpha_result"].result_id  # one seeds warning (the world's finding)

    def warnings() -> int:
        rows = reviewer.get("/review/?round=training-v1.0").context["rows"]
        return {row.result_id: row.warnings for row in rows}[result_id]

    assert warnings() == 1
    services.grant_waiver(world["reviewer"], world["alpha_result"], "seed_bypass", "launcher seeds")
    assert warnings() == 0
