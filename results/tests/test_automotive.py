"""MLPerf Automotive in the database and on the pages, on the bundled real round
(sample_data/automotive-v0.5: NVIDIA Thor-X, bevformer SingleStream 5.209854 ms and ConstantStream
5.319681 ms, both VALID): import_results, the round, model and result pages in the suite's own
words, the downloads, MLCommons' summary_results.json reproduced from the database byte for byte,
a snapshot, and the citable ids."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from results.models import Benchmark, Result, Round

pytestmark = pytest.mark.django_db

ROUND = "/rounds/automotive-v0.5/"
REFERENCE = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "automotive" / "reference"


def import_round(sample_data, *extra: str) -> str:
    out = io.StringIO()
    call_command("import_results", str(sample_data / "automotive-v0.5"), "--round", "automotive-v0.5", "--publish",
                 "--ids", str(sample_data / "automotive-v0.5-ids.json"), *extra, stdout=out)
    return out.getvalue()


@pytest.fixture
def automotive(sample_data):
    import_round(sample_data)
    return {r.scenario: r for r in Result.objects.select_related("system", "benchmark")}


def test_import_stores_latencies_verdicts_and_the_system(automotive, sample_data):
    single, constant = automotive["SingleStream"], automotive["ConstantStream"]
    assert (single.metric_value, single.metric_unit, single.metric_direction) == (5.209854, "ms", "lower")
    assert (constant.metric_value, constant.metric_unit, constant.metric_direction) == (5.319681, "ms", "lower")
    assert all(r.valid and r.official_valid and r.stricter_rules == [] for r in automotive.values())
    assert single.inference["accuracy_printed"] == "mAP_3D: 0.2672970244966856"
    assert single.inference["weight_data_types"] == "int8"
    assert single.system.status_raw == "development" and single.system.accelerators_count == 1
    assert single.result_id == "automotive:0.5-0001:bevformer:SingleStream"
    round_ = Round.objects.get(suite="automotive", version="0.5")
    assert round_.is_published and round_.ruleset_version == "automotive-0.5"
    assert set(Benchmark.objects.filter(round=round_).values_list("name", flat=True)) == {
        "bevformer", "deeplabv3plus", "ssd"}
    assert "unchanged" in import_round(sample_data)  # idempotent


def test_an_unknown_round_is_refused_clearly(sample_data):
    with pytest.raises(CommandError, match=r"automotive-0\.5"):
        call_command("import_results", str(sample_data / "automotive-v0.5"), "--round", "automotive-v0.9",
                     stdout=io.StringIO())
    assert not Round.objects.filter(suite="automotive", version="0.9").exists()


def test_round_page_in_the_suites_words(client, automotive):
    page = client.get(ROUND).content.decode()
    assert "ConstantStream" in page and "SingleStream" in page and "5.2099" in page and "5.3197" in page
    assert "Latency (ms)" in page and "lower is better" in page and "mAP_3D: 0.2672970244966856" in page
    assert 'id="chart-latency"' in page and 'id="chart-accuracy-latency"' in page


def test_benchmark_and_result_pages(client, automotive):
    page = client.get(ROUND + "bevformer/").content.decode()
    assert "mAP_3D" in page and "0.265672" in page and "5.2099" in page
    single = automotive["SingleStream"]
    result = client.get(f"/results/{single.result_id}/").content.decode()
    assert "5.209854" in result and "early-stopping" in result and "development" in result
    assert "mAP_3D: 0.2672970244966856" in result and 'id="chart-latency"' in result
    for rule in ("Performance sample count", "≥ 256", "qsl_rng_seed", "= 1575625098", "Grouped sample library",
                 "Target latency percentile"):
        assert rule in result, rule
    assert "Constant query generation" not in result  # ConstantStream's rule only
    chart = client.get(f"/results/{single.result_id}/charts/latency.csv")
    assert chart.status_code == 200 and "99.9" in chart.content.decode()
    assert client.get(ROUND + "charts/latency.json").status_code == 200
    assert client.get(ROUND + "bevformer/charts/accuracy-latency.csv").status_code == 200
    assert client.get(ROUND + "charts/nope.json").status_code == 404


def test_citable_ids(client, automotive):
    single = automotive["SingleStream"]
    assert client.get(f"/r/{single.result_id}").status_code in (301, 302)
    for pasted in ("/r/0.5-0001", "/r/automotive:0.5-0001", "/r/automotive:v0.5-1"):
        response = client.get(pasted, follow=True)
        assert response.status_code == 200 and single.result_id in response.content.decode(), pasted


def test_the_api(client, automotive):
    single = automotive["SingleStream"]
    document = client.get(f"/api/v1/results/{single.result_id}/").json()
    assert (document["scenario"], document["metric_value"], document["metric_unit"]) == ("SingleStream", 5.209854, "ms")
    rounds = client.get("/api/v1/rounds/automotive-v0.5/").json()
    assert rounds["suite"] == "automotive"
    summary = client.get("/api/v1/rounds/automotive-v0.5/summary_results/")
    assert summary.status_code == 200 and summary.json()[0]["ID"] == "0.5-0001"


def test_exports(client, automotive):
    rows = list(csv.DictReader(io.StringIO(client.get(ROUND + "table.csv").content.decode())))
    assert [(r["scenario"], r["latency_ms"], r["official_verdict"]) for r in rows] == [
        ("SingleStream", "5.209854", "VALID"), ("ConstantStream", "5.319681", "VALID")]
    document = client.get(ROUND + "table.json").json()
    assert document["columns"][0] == "result_id" and len(document["rows"]) == 2


def test_summary_results_from_the_database_byte_for_byte(client, automotive):
    response = client.get(ROUND + "summary_results.json")
    assert response.status_code == 200
    if REFERENCE.is_dir():
        assert response.content.decode() == (REFERENCE / "summary_results_v0.5.json").read_text()
    records = json.loads(response.content)
    assert [(r["ID"], r["Scenario"], r["Performance_Result"]) for r in records] == [
        ("0.5-0001", "ConstantStream", 5.319681), ("0.5-0001", "SingleStream", 5.209854)]


def test_a_snapshot_of_the_round(automotive):
    from pages.snapshots import take_snapshot

    round_ = Round.objects.get(suite="automotive")
    snapshot = take_snapshot(round_)
    names = {f["name"] for f in snapshot.files}
    assert {"results.json", "results.csv", "verdicts.csv", "systems.csv", "README.md"} <= names


def test_every_link_of_the_rounds_pages_answers(client, automotive):
    """A crawl from the round page and the suite's progress page, following the links that stay on
    the round's pages, its results, systems and organizations: none answers 4xx/5xx."""
    from pages.tests.test_crawl import internal_links

    start = [ROUND, "/progress/automotive/", "/", "/compare/?results=" + automotive["SingleStream"].result_id]
    keep = (ROUND, "/results/automotive", "/systems/", "/organizations/", "/r/automotive", "/progress/automotive/")
    seen, queue, broken = set(start), list(start), {}
    while queue:
        address = queue.pop(0)
        response = client.get(address)
        if response.status_code >= 400:
            broken[address] = response.status_code
            continue
        if response.get("Content-Type", "").startswith("text/html"):
            for link in internal_links(address, response.content.decode()):
                if link.startswith(keep) and link not in seen:
                    seen.add(link)
                    queue.append(link)
    assert broken == {}
    assert any("/charts/" in a and "/embed/" in a for a in seen) and any(a.startswith("/systems/") for a in seen)
