# ruff: noqa: F811 - fixtures imported from upload_fixtures are redefined as arguments
"""An Inference v6.1 submitter folder of MLCommons Endpoints-client results (the real NVIDIA
VR-NVL72 folders, as Alpha's) goes through upload and ingestion: checked with the round's rules,
stored with the official figures and the client's metrics."""

from __future__ import annotations

import pytest

from ingest.tests.test_inference_upload import alpha_tarball, ingested
from ingest.tests.upload_fixtures import dead_broker, unthrottled  # noqa: F401
from mlperf_check.tests.endpoints_mutations import submission
from results.models import Finding, Result, Round
from results.services.rounds import ensure_round

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("unthrottled", "dead_broker")]


def test_an_endpoints_upload_is_checked_and_stored(personas, tmp_path):
    round_ = ensure_round("inference-v6.1")
    Round.objects.filter(pk=round_.pk).update(state="open", submission_deadline=None)
    folder = submission(tmp_path / "real") / "closed" / "NVIDIA"
    upload, _ = ingested(personas, alpha_tarball(tmp_path, sample=folder, submitter="Alpha"), "inference-v6.1")
    results = {
        (r.benchmark.name, r.scenario): r
        for r in Result.objects.filter(submission=upload.submission).select_related("benchmark")
    }
    assert len(results) == 6 and all(r.valid and r.official_valid for r in results.values())
    assert not Finding.objects.filter(submission=upload.submission, severity="error").exists()
    server = results[("deepseek-r1", "Server")]
    assert (server.metric_value, server.metric_unit) == (1175890.2208168241, "tokens/s")
    assert server.inference["endpoints"]["ttft_ms"]["99.0"] == pytest.approx(303.546985)
    assert upload.submission.ruleset_version == "v6.1"
