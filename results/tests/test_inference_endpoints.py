"""Inference v6.1 results of the MLCommons Endpoints client in the database and on the result
page: the real NVIDIA VR-NVL72 folders (mlperf_check/tests/data/inference/endpoints_v6.1),
imported with the official figures, their client metrics stored and shown."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from mlperf_check.tests.endpoints_mutations import submission
from results.models import Result

pytestmark = pytest.mark.django_db


@pytest.fixture
def imported(tmp_path):
    # v6.1 has no publication date yet (results.services.rounds.publication_date): the import is told one.
    call_command(
        "import_results",
        str(submission(tmp_path)),
        "--round",
        "inference-v6.1",
        "--publish",
        "--published-at",
        "2026-09-09",
        stdout=io.StringIO(),
    )
    return {(r.benchmark.name, r.scenario): r for r in Result.objects.select_related("benchmark")}


def test_the_official_figures_and_the_client_metrics_are_stored(imported):
    server = imported[("deepseek-r1", "Server")]
    assert (server.metric_value, server.metric_unit, server.valid, server.official_valid) == (
        1175890.2208168241,
        "tokens/s",
        True,
        True,
    )
    offline = imported[("deepseek-r1", "Offline")]
    assert (offline.metric_value, offline.metric_unit) == (312.2314212203155, "samples/s")
    metrics = imported[("deepseek-r1", "Interactive")].inference["endpoints"]
    assert metrics["tokens_per_second"] == 652750.1447708113
    assert metrics["ttft_ms"]["99.0"] == pytest.approx(475.31573)
    assert imported[("qwen3-vl-235b-a22b", "Interactive")].inference["latency_bound_ms"] == 1500.0
    assert len(imported) == 6 and all(r.valid and r.official_valid for r in imported.values())


def test_the_result_page_shows_the_client_metrics(client, imported):
    interactive = imported[("deepseek-r1", "Interactive")]
    page = client.get(f"/results/{interactive.result_id}/").content.decode()
    assert "the MLCommons Endpoints client" in page and "LoadGen verdict" not in page
    assert 'id="endpoints-metrics"' in page and "652750.1 tokens/s" in page
    assert "Tokens/s per user" in page and "94.94" in page  # 1e9 / mean TPOT 10532468.6 ns
    assert 'id="endpoints-percentiles"' in page and "Time to first token" in page and "475.316" in page
    assert "≤ 1500 ms" in page and "≤ 15 ms" in page  # TTFT and TPOT p99 against the Interactive limits
    offline = client.get(
        f"/results/{imported[('qwen3-vl-235b-a22b', 'Offline')].result_id}/"
    ).content.decode()
    assert "Query latency" in offline and "Time to first token" not in offline  # no tokens streamed offline
