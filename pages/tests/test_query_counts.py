"""No page does a query per row (issue 38): for each page family the number of queries with twice
the data is the number with the data once. A page that queried per result, system or run (an
N+1) would grow with the record; at the size of the public record that is thousands of queries.

The data: a training round (systems with resnet and bert results, five runs each), an HPC round
(strong-scaling results) and an inference round (results/synthetic_inference.py), then as
much again in each, in the same rounds and organizations."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from results.constants import RoundState
from results.models import Organization, Result, Round, Submission
from results.services.rounds import ensure_round
from results.synthetic_inference import make_inference_round
from results.tests.factories import make_org, make_result, make_round, make_submission, make_system

pytestmark = pytest.mark.django_db

TRAINING = "training-v1.0"
INFERENCE = "inference-v4.1"
HPC = "hpc-v1.0"


def grow(systems: int, seed: int) -> None:
    """`systems` more training systems (two results each, in the two organizations) and about
    eight inference results per system, in the rounds the first call made."""
    round_ = Round.objects.filter(suite="training", version="1.0").first() or make_round("1.0")
    for index in range(systems):
        organization = Organization.objects.filter(slug=f"org-n1-{index % 2}").first() or make_org(f"Org N1 {index % 2}")
        submission = (Submission.objects.filter(round=round_, organization=organization).first()
                      or make_submission(round_, organization))
        system = make_system(submission, f"sys_{seed}_{index}")
        make_result(system, "resnet", minutes=20.0 + index)
        make_result(system, "bert", minutes=30.0 + index)
    make_inference_round("4.1", results=systems * 8, seed=seed, organizations=2)
    hpc = ensure_round(HPC)
    Round.objects.filter(pk=hpc.pk).update(state=RoundState.PUBLISHED)
    benchmark = hpc.benchmarks.order_by("name").first()
    for index in range(systems):
        organization = Organization.objects.get(slug=f"org-n1-{index % 2}")
        submission = (Submission.objects.filter(round=hpc, organization=organization).first()
                      or make_submission(hpc, organization))
        make_result(make_system(submission, f"hpc_{seed}_{index}"), benchmark, minutes=50.0 + index, scaling="strong")


def pages() -> dict[str, str]:
    first = Result.objects.filter(submission__round__suite="training").order_by("pk")
    one, two = first[0], first[1]
    inference = Result.objects.filter(submission__round__suite="inference").order_by("pk").first()
    system = one.system
    return {
        "home": "/",
        "training round": f"/rounds/{TRAINING}/",
        "training round CSV": f"/rounds/{TRAINING}/table.csv",
        "training benchmark": f"/rounds/{TRAINING}/resnet/",
        "HPC round": f"/rounds/{HPC}/",
        "HPC round CSV": f"/rounds/{HPC}/table.csv",
        "inference round": f"/rounds/{INFERENCE}/",
        "inference round, one model": f"/rounds/{INFERENCE}/?model={inference.benchmark.name}",
        "inference tables CSV": f"/rounds/{INFERENCE}/tables.csv",
        "inference export JSON": f"/rounds/{INFERENCE}/table.json",
        "inference summary_results": f"/rounds/{INFERENCE}/summary_results.json",
        "inference chart": f"/rounds/{INFERENCE}/charts/relative-performance.json",
        "training result": f"/results/{one.result_id}/",
        "inference result": f"/results/{inference.result_id}/",
        "system": f"/systems/{system.submission.organization.slug}/{system.system_id}/",
        "organization": f"/organizations/{one.submission.organization.slug}/",
        "compare": f"/compare/?result={one.result_id}&result={two.result_id}",
        "search": "/search/?q=sys",
        "API rounds": "/api/v1/rounds/",
        "API results": "/api/v1/results/",
        "API systems": "/api/v1/systems/",
        "API runs": "/api/v1/runs/",
        "API benchmarks": "/api/v1/benchmarks/",
        "snapshots": f"/rounds/{INFERENCE}/snapshots/",
        "changes": "/changes/",
        "feed": "/changes.atom",
        "round feed": f"/rounds/{TRAINING}/changes.atom",
        "progress": "/progress/inference/",
    }


def query_counts(client) -> dict[str, int]:
    counts = {}
    for name, address in pages().items():
        with CaptureQueriesContext(connection) as queries:
            response = client.get(address)
        assert response.status_code == 200, (name, address, response.status_code)
        counts[name] = len(queries)
    return counts


def test_no_page_does_more_queries_with_twice_the_data(client):
    grow(4, seed=1)
    once = query_counts(client)
    grow(4, seed=2)
    twice = query_counts(client)
    grown = {name: (once[name], twice[name]) for name in once if twice[name] > once[name]}
    assert grown == {}, f"pages whose queries grow with the data (once, twice): {grown}"
