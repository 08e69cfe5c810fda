"""The read-only API: endpoints, filters, cursor pagination, schema."""

import pytest

from results.tests.factories import (
    make_benchmark,
    make_org,
    make_result,
    make_round,
    make_submission,
    make_system,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def world():
    round_ = make_round("1.0")
    sub = make_submission(round_, make_org("Alpha"))
    small = make_system(sub, "dgx", accelerators_count=8)
    big = make_system(sub, "pod", accelerators_count=512, accelerator_model_name="TPU v4")
    return {
        "round": round_,
        "a": make_result(small, "resnet", minutes=28.5, result_id="1.0-0001"),
        "b": make_result(small, "bert", minutes=20.0, result_id="1.0-0002"),
        "c": make_result(big, "resnet", minutes=1.5, result_id="1.0-0003"),
    }


def test_it_lists_rounds_and_gets_one_by_slug(client, world):
    data = client.get("/api/v1/rounds/").json()
    assert [r["slug"] for r in data["results"]] == ["training-v1.0"]
    assert client.get("/api/v1/rounds/training-v1.0/").json()["version"] == "1.0"
    assert client.get("/api/v1/rounds/training-v9.9/").status_code == 404


def test_it_filters_benchmarks_by_round(client, world):
    make_round("0.7", benchmarks=("resnet",))
    names = [b["name"] for b in client.get("/api/v1/benchmarks/", {"round": "training-v1.0"}).json()["results"]]
    assert sorted(names) == ["bert", "resnet"]
    assert client.get("/api/v1/benchmarks/", {"round": "garbage"}).json()["results"] == []


def test_it_filters_results(client, world):
    ids = lambda params: sorted(r["result_id"] for r in client.get("/api/v1/results/", params).json()["results"])  # noqa: E731
    assert ids({"benchmark": "resnet"}) == ["1.0-0001", "1.0-0003"]
    assert ids({"accelerators_min": 100}) == ["1.0-0003"]
    assert ids({"accelerator": "tpu"}) == ["1.0-0003"]
    assert ids({"round": "training-v1.0", "organization": "alpha", "system_id": "dgx"}) == ["1.0-0001", "1.0-0002"]
    assert ids({"minutes_max": 21}) == ["1.0-0002", "1.0-0003"]


def test_suite_and_benchmark_filters_list_every_round_they_name(client, world):
    """The suite and benchmark filters read within the id ranges of the rounds they name (results.
    querysets._within_id_range, kept while a round's submissions stay as they are): results that
    come later, in those rounds or in a new one, are listed too, and nothing of another suite or
    benchmark."""
    from results.models import Round

    ids = lambda params: sorted(r["result_id"] for r in client.get("/api/v1/results/", params).json()["results"])  # noqa: E731
    hpc = Round.objects.create(suite="hpc", version="1.0", ruleset_version="1.0.0", state="published")
    make_result(make_system(make_submission(hpc, make_org("Beta")), "node"), make_benchmark(hpc, "cosmoflow"),
                minutes=9.0, result_id="hpc:1.0-0001")
    assert ids({"suite": "training"}) == ["1.0-0001", "1.0-0002", "1.0-0003"]
    assert ids({"suite": "hpc"}) == ["hpc:1.0-0001"]
    assert ids({"benchmark": "resnet"}) == ["1.0-0001", "1.0-0003"]
    assert ids({"round": "training-v1.0"}) == ["1.0-0001", "1.0-0002", "1.0-0003"]
    older = make_round("0.7", benchmarks=("resnet",))
    make_result(make_system(make_submission(older, make_org("Gamma")), "box"), "resnet", minutes=40.0,
                result_id="0.7-0001")
    make_result(make_system(make_submission(world["round"], make_org("Delta")), "rack"), "resnet", minutes=30.0,
                result_id="1.0-0004")
    assert ids({"suite": "training"}) == ["0.7-0001", "1.0-0001", "1.0-0002", "1.0-0003", "1.0-0004"]
    assert ids({"benchmark": "resnet"}) == ["0.7-0001", "1.0-0001", "1.0-0003", "1.0-0004"]
    assert ids({"suite": "training", "benchmark": "bert"}) == ["1.0-0002"]
    assert ids({"round": "training-v1.0"}) == ["1.0-0001", "1.0-0002", "1.0-0003", "1.0-0004"]
    assert ids({"suite": "nosuch"}) == [] and ids({"benchmark": "nosuch"}) == []


def test_it_gets_a_result_by_citable_id_with_system(client, world):
    data = client.get("/api/v1/results/1.0-0003/").json()
    assert data["score_minutes"] == 1.5
    assert data["system"]["accelerators_count"] == 512
    assert data["round"] == "training-v1.0" and data["url"] == "/results/1.0-0003/"


def test_it_pages_with_a_cursor(client, world):
    first = client.get("/api/v1/runs/", {"page_size": 4}).json()
    assert len(first["results"]) == 4 and "cursor=" in first["next"]
    seen = [r["id"] for r in first["results"]]
    page = first
    while page["next"]:
        page = client.get(page["next"]).json()
        seen += [r["id"] for r in page["results"]]
    assert len(seen) == len(set(seen)) == 15


def every_page(client, address: str, params: dict) -> list[dict]:
    page = client.get(address, params).json()
    rows = page["results"]
    while page["next"]:
        page = client.get(page["next"]).json()
        rows += page["results"]
    return rows


def test_a_rounds_results_and_runs_page_by_page_are_all_of_them_wherever_their_ids_lie(client, world):
    """A round's results and runs are listed within the round's id range (the index walk of a
    recent round's first page once read every earlier run: 3.6 s). Rows of the round that come
    after another round's, in id order, are listed too, each once."""
    other = make_round("0.7")
    make_result(make_system(make_submission(other, make_org("Gamma")), "box"), "resnet", minutes=9.0,
                result_id="0.7-0001")
    straggler = make_result(make_system(make_submission(world["round"], make_org("Beta")), "late"), "bert",
                            minutes=7.0, result_id="1.0-0009")
    make_round("0.6")  # a round with no results
    results = every_page(client, "/api/v1/results/", {"round": "training-v1.0", "page_size": 2})
    assert sorted(r["result_id"] for r in results) == ["1.0-0001", "1.0-0002", "1.0-0003", "1.0-0009"]
    runs = every_page(client, "/api/v1/runs/", {"round": "training-v1.0", "page_size": 3})
    assert len(runs) == len({r["id"] for r in runs}) == 20
    assert sum(r["result_id"] == straggler.result_id for r in runs) == 5
    assert every_page(client, "/api/v1/runs/", {"round": "training-v0.6"}) == []
    assert every_page(client, "/api/v1/results/", {"round": "training-v9.9"}) == []


def test_it_filters_runs_by_result(client, world):
    runs = client.get("/api/v1/runs/", {"result_id": "1.0-0001"}).json()["results"]
    assert len(runs) == 5 and {r["result_id"] for r in runs} == {"1.0-0001"}
    assert {r["scoring"] for r in runs} == {"counted", "dropped_fastest", "dropped_slowest"}


def test_a_runs_list_reads_of_each_runs_result_its_citable_id_only(client, world):
    """A run shows its result's citable id: the result's other columns (its JSON among them) are not
    read for every run of a page, and the run still shows every field of its own."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as queries:
        runs = client.get("/api/v1/runs/", {"result_id": "1.0-0001"}).json()["results"]
    assert runs and all(run["result_id"] == "1.0-0001" and run["sha256"] and "hyperparameters" in run for run in runs)
    listed = [query["sql"] for query in queries.captured_queries if 'FROM "results_run"' in query["sql"]]
    assert listed and not any('"results_result"."inference"' in sql or '"results_result"."score_minutes"' in sql
                              for sql in listed)


def test_it_filters_runs_by_benchmark_over_every_round_that_has_it(client, world):
    """Within the id ranges of the benchmark's rounds (a walk of every run for HPC's cosmoflow:
    4.1 s at 2,000,000 runs), a round without runs among them, and runs that come later."""
    from results.models import Run

    def run_ids(benchmark: str) -> list[int]:
        return sorted(r["id"] for r in every_page(client, "/api/v1/runs/", {"benchmark": benchmark, "page_size": 4}))

    def expected(benchmark: str) -> list[int]:
        return sorted(Run.objects.filter(result__benchmark__name=benchmark).values_list("pk", flat=True))

    no_runs = make_round("0.7")  # results without runs, as an inference round's
    make_result(make_system(make_submission(no_runs, make_org("Gamma")), "box"), "resnet", runs=0)
    assert run_ids("resnet") == expected("resnet") and len(expected("resnet")) == 10
    assert run_ids("bert") == expected("bert") and run_ids("nosuch") == []
    later = make_round("2.0")
    make_result(make_system(make_submission(later, make_org("Delta")), "rack"), "resnet", result_id="2.0-0001")
    make_result(make_system(make_submission(world["round"], make_org("Epsilon")), "node"), "bert")
    assert run_ids("resnet") == expected("resnet") and len(expected("resnet")) == 15
    assert run_ids("bert") == expected("bert")


def test_it_lists_systems(client, world):
    systems = client.get("/api/v1/systems/", {"accelerators_max": 8}).json()["results"]
    assert [s["system_id"] for s in systems] == ["dgx"]
    assert systems[0]["description"]["host_memory_capacity"] == "1 TB"


def test_it_is_read_only(client, world):
    assert client.post("/api/v1/results/", {}).status_code == 405
    assert client.delete("/api/v1/results/1.0-0001/").status_code == 405


def test_it_serves_the_openapi_schema_and_docs(client, world):
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/json").json()
    for path in ("/api/v1/rounds/", "/api/v1/results/{result_id}/", "/api/v1/runs/", "/api/v1/systems/",
                 "/api/v1/benchmarks/"):
        assert path in schema["paths"]
    assert client.get("/api/docs/").status_code == 200
