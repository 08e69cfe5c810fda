"""Inference v2.1+ in the database and on the pages, on the bundled real v4.1 sample
(sample_data/inference-v4.1: NeuralMagic llama2-70b, datacenter; UntetherAI resnet50 with power,
edge), and on the corpus round against the official checker's figures (skipped without it)."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from results.models import Result, Round, System

pytestmark = pytest.mark.django_db

ROUND = "/rounds/inference-v4.1/"
CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "inference"


def import_v41(path: Path) -> str:
    out = io.StringIO()
    call_command("import_results", str(path), "--round", "inference-v4.1", "--publish", stdout=out)
    return out.getvalue()


@pytest.fixture
def v41(sample_data):
    import_v41(sample_data / "inference-v4.1")
    return {(r.system.submitter, r.scenario): r for r in Result.objects.select_related("system")}


def test_import_stores_tokens_per_second_token_latency_power_and_system(v41):
    server = v41[("NeuralMagic", "Server")]
    assert (server.metric_value, server.metric_unit, server.metric_direction, server.valid) == (
        592.265, "Tokens/s", "higher", True
    )
    details = server.inference
    assert details["system_type"] == "datacenter"
    assert details["token_latency"] == {
        "ttft_p99_ms": 487.878924, "tpot_p99_ms": 84.101406, "ttft_limit_ms": 2000.0, "tpot_limit_ms": 200.0,
    }
    assert details["accuracy_figures"]["TOKENS_PER_SAMPLE"] == 295.9
    assert details["power"] is None
    assert (server.system.accelerators_count, server.system.accelerators_per_node, server.system.number_of_nodes) == (
        8, 8, 1
    )
    single = v41[("UntetherAI", "SingleStream")]
    assert (single.metric_value, single.metric_unit, single.metric_direction) == (0.120438, "Latency (ms)", "lower")
    assert single.inference["system_type"] == "edge"
    assert single.inference["power"]["unit"] == "millijoules"
    assert single.inference["power"]["value"] == pytest.approx(29.238986918361313, rel=1e-12)
    offline = v41[("UntetherAI", "Offline")]
    assert offline.inference["power"]["unit"] == "Watts"
    assert offline.inference["power"]["value"] == pytest.approx(398.32998477930016, rel=1e-12)


def test_a_round_without_rules_is_refused_clearly(sample_data):
    with pytest.raises(CommandError, match=r"no rules for inference round v9\.9 \(known: v0\.5, .*v6\.1\)"):
        call_command("import_results", str(sample_data / "inference-v4.1"), "--round", "inference-v9.9",
                     stdout=io.StringIO())
    assert not Round.objects.filter(version="9.9").exists()


def test_round_page_llm_latency_power_and_system_type_filter(client, v41):
    page = client.get(ROUND).content.decode()
    assert "llama2-70b-99 · Server" in page and "TTFT p99 (ms)" in page and "487.9" in page
    assert "Performance per watt" in page and 'id="chart-performance-per-watt"' in page
    assert "29.24 mJ/query" in page and "398.33 W" in page
    assert '<option value="edge">Edge</option>' in page
    edge = client.get(ROUND + "?system_type=edge").content.decode()
    assert 'data-model="llama2-70b-99"' not in edge and 'data-model="resnet"' in edge
    datacenter = client.get(ROUND + "?system_type=datacenter").content.decode()
    assert "Performance per watt" not in datacenter and "TTFT p99" in datacenter


def test_export_carries_every_unit(client, v41):
    response = client.get(ROUND + "table.csv")
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert len(rows) == 5
    by_key = {(r["submitter"], r["scenario"]): r for r in rows}
    server = by_key[("NeuralMagic", "Server")]
    assert (server["value"], server["unit"], server["system_type"]) == ("592.265", "Tokens/s", "datacenter")
    assert (server["ttft_p99_ms"], server["tpot_limit_ms"], server["power"]) == ("487.878924", "200.0", "")
    single = by_key[("UntetherAI", "SingleStream")]
    assert (single["unit"], single["power_unit"], single["accelerators"]) == ("Latency (ms)", "millijoules", "3")
    assert not any("(ns)" in column for column in rows[0])
    chart = client.get(ROUND + "charts/performance-per-watt.csv")
    assert chart.status_code == 200 and len(chart.content.decode().splitlines()) == 4  # header + 3 power results


def test_result_page_checks_token_latency_and_shows_power(client, v41):
    server = client.get(f"/results/{v41[('NeuralMagic', 'Server')].result_id}/").content.decode()
    assert "Time to first token (p99)" in server and "≤ 2000 ms" in server and "≤ 200 ms" in server
    # Whole queries of an LLM take a minute: the per-query bound of the tables is not its rule.
    assert "Latency bound" not in server and "bound 20000 ms" not in server
    assert "datacenter" in server and "8 × NVIDIA L40S" in server and "TOKENS_PER_SAMPLE 295.9" in server
    offline = client.get(f"/results/{v41[('UntetherAI', 'Offline')].result_id}/").content.decode()
    assert "398.33 W average" in offline and "423.568 per joule" in offline


def test_inference_system_page_has_no_training_columns(client, v41):
    system = System.objects.get(system_id="h13_u3_slim")
    response = client.get(f"/systems/{system.submission.organization.slug}/h13_u3_slim/")
    assert response.status_code == 200
    page = response.content.decode()
    assert "Closed division · Edge · Available" in page
    table = page.split('id="system-inference-results"')[1]
    assert "Minutes" not in table and "RCP" not in table
    assert "Latency (ms)" in table and "mJ/query" in table and "Samples/s" in table


@pytest.mark.corpus
def test_the_corpus_round_stores_the_official_figures():
    """import_results on ../shared/corpus/inference/v4.1: every VALID result's figure, unit and
    power equal the official checker's (reference/official_verdicts_v4.1.csv)."""
    if not (CORPUS / "v4.1").is_dir():
        pytest.skip(f"the inference corpus is not at {CORPUS}")
    import_v41(CORPUS / "v4.1")
    stored = {
        (r.division, r.folder.split("/")[1], r.inference["model_folder"], r.inference["scenario_folder"]): r
        for r in Result.objects.all()
    }
    with open(CORPUS / "reference" / "official_verdicts_v4.1.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert len(stored) == len(rows) == 64
    for row in rows:
        result = stored[(row["division"], row["system"], row["model"], row["scenario"])]
        if row["verdict"] != "VALID":
            continue
        assert result.metric_value == pytest.approx(float(row["result"]), rel=1e-9), row
        assert result.metric_unit == row["result_unit"], row
        power = result.inference["power"]
        if row["power_result"]:
            assert power["value"] == pytest.approx(float(row["power_result"]), rel=1e-12), row
            assert power["unit"] == row["power_unit"] and f"{power['efficiency']:f}" == row["power_efficiency"]
        else:
            assert power is None, row
    # An open model that the submitter's model_mapping.json maps onto llama2-70b-99.9 (the summary's
    # Model against MlperfModel) has its own leaderboard, not a second row on the official one's.
    fp8 = Result.objects.get(inference__model_folder="neuralmagic_Llama-2-7b-chat-hf-FP8")
    assert (fp8.benchmark.name, fp8.inference["mlperf_model"]) == ("neuralmagic_llama-2-7b-chat-hf-fp8", "llama2-70b-99.9")


@pytest.mark.parametrize("version", ["2.1", "3.0", "3.1", "4.0", "4.1", "5.0", "5.1", "6.0", "6.1"])
def test_every_round_from_v21_gets_its_own_models(version):
    from mlperf_check.inference.rules import rules_for
    from results.services.rounds import ensure_round

    round_ = ensure_round(f"inference-v{version}")
    rules, _ = rules_for(version)
    assert round_.ruleset_version == f"v{version}"
    assert set(round_.benchmarks.values_list("name", flat=True)) == set(rules.models)


# The run is a LoadGen Server run in an Interactive folder: v5.1 holds it to the Interactive
# limits, the v6.0+ checker to those of the scenario LoadGen ran (mlperf_check's own test says why).
@pytest.mark.parametrize("version, ttft_limit, tpot_limit", [("v5.1", 500, 30), ("v6.1", 2000, 100)])
def test_an_interactive_result_end_to_end(client, tmp_path, version, ttft_limit, tpot_limit):
    """Generated LoadGen logs of llama3.1-8b (mlperf_check's generated-round helper): Offline and
    Interactive, imported, on the round page with TTFT/TPOT against the round's limits."""
    from mlperf_check.tests.test_inference_generated_rounds import write_result

    write_result(tmp_path, version, "Offline", "Offline", ttft_ms=0, tpot_ms=0)
    write_result(tmp_path, version, "Interactive", "Server", ttft_ms=400, tpot_ms=25)
    # v6.1 has no publication date yet (results.services.rounds.publication_date): the import is told one.
    call_command("import_results", str(tmp_path), "--round", f"inference-{version}", "--publish",
                 "--published-at", "2026-09-09", stdout=io.StringIO())
    interactive = Result.objects.get(scenario="Interactive")
    assert interactive.valid and interactive.metric_value == 25_000.0
    assert interactive.inference["token_latency"]["ttft_limit_ms"] == ttft_limit
    assert interactive.inference["token_latency"]["tpot_limit_ms"] == tpot_limit
    page = client.get(f"/rounds/inference-{version}/").content.decode()
    assert "llama3.1-8b · Interactive" in page and "TTFT p99 (ms)" in page
    assert '<option value="Interactive">Interactive</option>' in page
    result_page = client.get(f"/results/{interactive.result_id}/").content.decode()
    assert f"≤ {ttft_limit} ms" in result_page and f"≤ {tpot_limit} ms" in result_page
