"""Both verdicts of an inference result in the database, on the pages and in the exports: the
round's official one and ours, with our stricter rules named where they differ (real v2.0 results,
mlperf_check/tests/data/inference/verdicts/README.md)."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from django.core.management import call_command

from results.models import Result

pytestmark = pytest.mark.django_db

DATA = Path(__file__).resolve().parents[2] / "mlperf_check" / "tests" / "data" / "inference" / "verdicts" / "v2.0"
ROUND = "/rounds/inference-v2.0/"
BADGE = "official: VALID, ours: INVALID (compliance_failed)"


@pytest.fixture
def v20():
    call_command("import_results", str(DATA), "--round", "inference-v2.0", "--publish", stdout=io.StringIO())
    return {r.benchmark.name: r for r in Result.objects.select_related("benchmark")}


def test_import_stores_both_verdicts(v20):
    orin, krai = v20["ssd-small"], v20["resnet"]
    assert (orin.official_valid, orin.valid, orin.stricter_rules) == (True, False, ["compliance_failed"])
    assert orin.verdict == BADGE and orin.verdicts_differ
    assert (krai.official_valid, krai.valid, krai.stricter_rules, krai.verdict) == (True, True, [], "VALID")


def test_pages_show_both_where_they_differ(client, v20):
    page = client.get(f"/results/{v20['ssd-small'].result_id}/").content.decode()
    assert BADGE in page and 'id="verdicts"' in page
    page = client.get(f"/results/{v20['resnet'].result_id}/").content.decode()
    assert 'id="verdicts"' not in page and "official:" not in page
    board = client.get(ROUND).content.decode()
    assert board.count(BADGE) == 2  # the results table's badge (its title) and the leaderboard's


def test_export_and_api_carry_both(client, v20):
    rows = list(csv.DictReader(io.StringIO(client.get(ROUND + "table.csv").content.decode())))
    by_model = {row["model"]: row for row in rows}
    assert (by_model["ssd-small"]["valid"], by_model["ssd-small"]["official_valid"]) == ("False", "True")
    assert by_model["ssd-small"]["stricter_rules"] == "compliance_failed"
    assert (by_model["resnet"]["valid"], by_model["resnet"]["official_valid"], by_model["resnet"]["stricter_rules"]) == (
        "True", "True", ""
    )


def test_compare_shows_inference_results_in_inference_terms(client, v20):
    orin, krai = v20["ssd-small"], v20["resnet"]
    response = client.get("/compare/", {"result": [orin.result_id, krai.result_id]})
    rows = {r["label"]: r["values"] for r in response.context["rows"] if "label" in r}
    assert "Time to train (min)" not in rows and "RCP status" not in rows
    assert rows["Scenario"] == [orin.scenario, krai.scenario]
    assert rows["Verdict"] == [BADGE, "VALID"]
    assert rows["Result"][0].endswith(orin.metric_unit) and rows["Result"][1].endswith(krai.metric_unit)
