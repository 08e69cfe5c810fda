"""Inference rounds in the database and on the pages: import_results on the bundled real sample
(sample_data/inference-v0.7), metric unit and direction, leaderboards, charts with CSV, the result
page, and who may see what (personas)."""

from __future__ import annotations

import csv
import io
import re

import pytest
from django.core.management import call_command

from results.models import Finding, Organization, Result, Round, Submission

pytestmark = pytest.mark.django_db

ROUND = "/rounds/inference-v0.7/"


def import_sample(sample_data, *extra) -> str:
    out = io.StringIO()
    call_command("import_results", str(sample_data / "inference-v0.7"), "--round", "inference-v0.7", *extra, stdout=out)
    return out.getvalue()


@pytest.fixture
def world(sample_data, personas):
    """The sample round published, with Mobilint's submission still in review; Mobilint's team
    is the `owner` and `teammate` personas."""
    import_sample(sample_data, "--publish")
    mobilint = Organization.objects.get(slug="mobilint")
    mobilint.members.add(personas["owner"], personas["teammate"])
    Submission.objects.filter(organization=mobilint).update(is_published=False)
    hidden = Result.objects.get(submission__organization=mobilint, scenario="SingleStream")
    public = Result.objects.get(submission__organization__slug="altos", scenario="Server")
    return {"hidden": hidden, "public": public}


def fetch(client, personas, who, url):
    if personas[who] is not None:
        client.force_login(personas[who])
    return client.get(url)


def test_import_stores_the_scenario_metric_with_unit_and_direction(sample_data):
    out = import_sample(sample_data, "--publish")
    assert "Altos: created (2 results)" in out and "Mobilint: created (2 results)" in out
    round_ = Round.objects.get(suite="inference", version="0.7")
    assert round_.state == "published" and round_.ruleset_version == "v0.7"
    assert set(round_.benchmarks.values_list("name", flat=True)) >= {"resnet", "bert-99", "3d-unet-99.9"}
    server = Result.objects.get(submission__organization__slug="altos", scenario="Server")
    assert (server.scenario, server.metric_value, server.metric_unit, server.metric_direction) == (
        "Server", 20001.64, "queries/s", "higher"
    )
    assert server.benchmark.name == "resnet" and server.valid  # folder resnet50, the alias of resnet
    assert server.inference["latency_bound_ms"] == 15 and server.inference["latency_ms"]["99.00"] == pytest.approx(7.959715)
    assert server.inference["accuracy"]["value"] == 75.92
    ss = Result.objects.get(submission__organization__slug="mobilint", scenario="SingleStream")
    assert (ss.metric_unit, ss.metric_direction) == ("ms", "lower")
    assert ss.inference["settings"]["qsl_rng_seed"] == "12786827339337101903"
    assert Finding.objects.filter(result=server, code="model_alias").exists()
    deci = Result.objects.filter(submission__organization__slug="deci")
    assert deci.count() == 2 and set(deci.values_list("division", flat=True)) == {"open"}


def test_import_is_idempotent(sample_data):
    import_sample(sample_data)
    before = list(Result.objects.values_list("pk", "result_id", "metric_value").order_by("pk"))
    out = import_sample(sample_data)
    assert out.count(": unchanged") == 3
    assert list(Result.objects.values_list("pk", "result_id", "metric_value").order_by("pk")) == before


def test_training_results_carry_minutes_lower_is_better(sample_data):
    call_command("import_results", str(sample_data / "training-v1.0"), "--round", "training-v1.0", "--jobs", "1",
                 stdout=io.StringIO())
    scored = Result.objects.filter(score_minutes__isnull=False)
    assert scored.exists()
    assert all(r.metric_value == r.score_minutes and r.metric_unit == "minutes" and r.metric_direction == "lower"
               for r in scored)


def test_leaderboards_rank_in_the_metric_direction(client, sample_data):
    import_sample(sample_data, "--publish")
    page = client.get(ROUND).content.decode()
    assert "resnet · SingleStream" in page and "ms, lower is better" in page
    assert "resnet · Server" in page and "queries/s, higher is better" in page
    rows = list(csv.DictReader(io.StringIO(client.get(ROUND + "table.csv").content.decode())))
    singlestream = [float(r["value"]) for r in rows if r["scenario"] == "SingleStream" and r["valid"] == "True"]
    offline = [float(r["value"]) for r in rows if r["scenario"] == "Offline" and r["valid"] == "True"]
    assert singlestream == sorted(singlestream) and len(singlestream) == 2  # lower first
    assert offline == sorted(offline, reverse=True) and len(offline) == 3  # higher first
    only_server = list(csv.DictReader(io.StringIO(client.get(ROUND + "table.csv?scenario=Server").content.decode())))
    assert [r["scenario"] for r in only_server] == ["Server"]


def test_round_charts_have_csv(client, sample_data):
    import_sample(sample_data, "--publish")
    coverage = list(csv.DictReader(io.StringIO(client.get(ROUND + "charts/coverage.csv").content.decode())))
    assert {(r["model"], r["scenario"]): int(r["results"]) for r in coverage} == {
        ("resnet", "SingleStream"): 2, ("resnet", "Server"): 1, ("resnet", "Offline"): 3,
    }
    ratio = list(csv.DictReader(io.StringIO(client.get(ROUND + "charts/server-offline-ratio.csv").content.decode())))
    assert [(r["system"], float(r["ratio"])) for r in ratio] == [
        ("Altos BrainSphere P550 F4 (4x T4)", round(20001.64 / 22973.4, 4))
    ]
    relative = list(csv.DictReader(io.StringIO(client.get(ROUND + "charts/relative-performance.csv").content.decode())))
    assert min(float(r["relative"]) for r in relative if r["scenario"] == "Offline") == 1.0
    assert client.get(ROUND + "charts/server-offline-ratio.json").json()["name"] == "server-offline-ratio"
    assert client.get(ROUND + "charts/nope.csv").status_code == 404
    assert client.get("/rounds/inference-v0.7/charts/coverage.txt").status_code == 404


def test_result_page_shows_latency_queries_settings_and_accuracy(client, sample_data):
    import_sample(sample_data, "--publish")
    server = Result.objects.get(submission__organization__slug="altos", scenario="Server")
    page = client.get(f"/results/{server.result_id}/").content.decode()
    assert "Latency bound" in page and "≤ 15 ms" in page
    assert "≥ 270336" in page and "Accuracy (acc)" in page and "≥ 75.6954" in page
    assert "target_qps" in page
    assert "qsl_rng_seed" in page
    latency = client.get(f"/results/{server.result_id}/charts/latency.csv").content.decode()
    assert latency.splitlines()[0] == "percentile,latency_ms" and "99.00,7.959715" in latency


@pytest.mark.parametrize("who", ["anonymous", "outsider"])
def test_unpublished_inference_results_are_hidden(client, personas, world, who):
    hidden = world["hidden"]
    for url in (ROUND, ROUND + "table.csv", ROUND + "charts/coverage.csv", ROUND + "charts/relative-performance.csv"):
        response = fetch(client, personas, who, url)
        assert response.status_code == 200, url
        assert "mobilint" not in response.content.decode().lower(), url
    assert world["public"].result_id in fetch(client, personas, who, ROUND).content.decode()
    for url in (f"/results/{hidden.result_id}/", f"/results/{hidden.result_id}/charts/latency.csv"):
        assert fetch(client, personas, who, url).status_code == 404, url


@pytest.mark.parametrize("who", ["owner", "teammate", "reviewer", "chair"])
def test_unpublished_inference_results_are_shown_to_the_team_and_reviewers(client, personas, world, who):
    hidden = world["hidden"]
    assert hidden.result_id in fetch(client, personas, who, ROUND).content.decode()
    assert "Mobilint" in fetch(client, personas, who, ROUND + "table.csv").content.decode()
    assert fetch(client, personas, who, f"/results/{hidden.result_id}/").status_code == 200
    assert fetch(client, personas, who, f"/results/{hidden.result_id}/charts/latency.csv").status_code == 200


def test_model_page_and_api_follow_the_metric(client, sample_data):
    import_sample(sample_data, "--publish")
    response = client.get("/rounds/inference-v0.7/resnet/")
    assert response.status_code == 302 and response["Location"] == "/rounds/inference-v0.7/?model=resnet"
    server = Result.objects.get(submission__organization__slug="altos", scenario="Server")
    data = client.get(f"/api/v1/results/{server.result_id}/").json()
    assert (data["scenario"], data["metric_value"], data["metric_unit"], data["metric_direction"], data["valid"]) == (
        "Server", 20001.64, "queries/s", "higher", True
    )
    assert data["inference"]["min_query_count"] == 270336


def test_summary_and_export_scores_list_every_result_best_first(client, sample_data):
    import_sample(sample_data, "--publish")
    summary = list(csv.DictReader(io.StringIO(client.get(ROUND + "summary.csv").content.decode())))
    assert len(summary) == 6 and {r["unit"] for r in summary} == {"ms", "queries/s", "samples/s"}
    # The SingleStream metric is LoadGen's "90th percentile latency (ns)", stored in ms: the export
    # names it without the nanosecond marker and gives its unit beside it.
    single = next(r for r in summary if r["scenario"] == "SingleStream")
    assert (single["metric"], single["unit"]) == ("90th percentile latency", "ms")
    assert not any("(ns)" in r["metric"] or r["metric"].endswith("_ns") for r in summary)
    out = io.StringIO()
    call_command("export_scores", "--round", "inference-v0.7", stdout=out)
    assert out.getvalue().splitlines()[0].startswith("result_id,division,system_type,category,submitter,system")


def test_the_export_never_labels_ms_values_ns(client, sample_data):
    import_sample(sample_data, "--publish")
    rows = list(csv.DictReader(io.StringIO(client.get(ROUND + "table.csv").content.decode())))
    latency = [r for r in rows if r["unit"] == "ms"]
    assert latency and all("(ns)" not in r["metric"] for r in latency)
    assert {r["metric"] for r in latency} == {"90th percentile latency"}


def test_an_inference_system_page_shows_scenarios_and_metrics_and_links_the_code(client, sample_data):
    import_sample(sample_data, "--publish")
    html = client.get("/systems/altos/T4x4_TRT/").content.decode()
    assert 'id="system-inference-results"' in html and 'id="system-results"' not in html
    assert "Minutes" not in html and "RCP" not in html
    for scenario in ("Offline", "Server"):
        assert f"<td>{scenario}</td>" in html
    links = re.findall(r'href="/results/(inference:[^"/]+)/"', html)
    assert links and len(links) == len(set(links))  # one row per result
    assert "/tree/main/closed/Altos/systems/T4x4_TRT.json" in html and "/tree/main/closed/Altos/code" in html
