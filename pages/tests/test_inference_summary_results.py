"""An inference round as MLCommons publishes it (summary_results.json and its CSV) from the
database: the round page's download, the API and the round's snapshot, one function
(pages.suites.inference.leaderboards.summary_results), against the official file."""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path

import pytest
from django.core.management import call_command

from mlperf_check.inference.official_rules_data import OFFICIAL_RULES_DATA
from mlperf_check.inference.summary_export import SUMMARY_COLUMNS
from pages.snapshots import take_snapshot
from pages.suites.inference.leaderboards import summary_results
from results.models import Result, Round

pytestmark = pytest.mark.django_db

ROUND = "/rounds/inference-v4.1/"
# The official summary_results.json of the v4.1 corpus (generate_final_report.py over the official
# checker's CSV; mlperf_check/tests/data/inference/summary_results/README.md).
OFFICIAL = (Path(__file__).resolve().parents[2] / "mlperf_check" / "tests" / "data" / "inference"
            / "summary_results" / "summary_results_v4.1.json")
CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "inference"


def import_round(path: Path) -> Round:
    call_command("import_results", str(path), "--round", "inference-v4.1", "--publish", stdout=io.StringIO())
    return Round.objects.get(suite="inference")


def official_by_location() -> dict[str, dict]:
    return {r["Location"] + "|" + r["Model"]: r for r in json.loads(OFFICIAL.read_text(encoding="utf-8"))}


def assert_official(records: list[dict]) -> None:
    """Each record equals the official one field by field, in the same order; the ID is the
    system's citable entry here (numbered within the corpus subset there), one per system."""
    official = official_by_location()
    for record in records:
        expected = official[record["Location"] + "|" + record["Model"]]
        assert list(record) == list(expected), record["Location"]
        assert {k: v for k, v in record.items() if k != "ID"} == {k: v for k, v in expected.items() if k != "ID"}
    entries = {}
    for record in records:
        entries.setdefault(record["Unique ID (e.g. for Audit)"].rsplit("/", 1)[0] if record["Category"] == "open"
                           else record["Unique ID (e.g. for Audit)"], set()).add(record["ID"])
    assert all(len(ids) == 1 for ids in entries.values())


def test_the_round_page_api_and_snapshot_give_the_official_summary(client, sample_data):
    round_ = import_round(sample_data / "inference-v4.1")
    records = json.loads(client.get(ROUND + "summary_results.json").content)
    assert len(records) == 5  # every result of the sample: NeuralMagic llama2-70b, UntetherAI resnet50 (power)
    assert_official(records)
    assert sum("Power_Result" in r for r in records) == 3
    assert client.get(f"/api/v1/rounds/{round_.slug}/summary_results/").json() == records
    rows = list(csv.DictReader(io.StringIO(client.get(ROUND + "summary_results.csv").content.decode())))
    assert list(rows[0]) == SUMMARY_COLUMNS and [r["Location"] for r in rows] == [r["Location"] for r in records]
    assert 'id="download-summary-results"' in client.get(ROUND).content.decode()
    # The snapshot's results are the same function's records.
    take_snapshot(round_)
    response = client.get(f"{ROUND}snapshots/1/results.json")
    snapshot = json.loads(b"".join(response.streaming_content))
    assert snapshot == summary_results(None, round_) == records


def test_only_an_inference_round_has_a_summary_results(client, sample_data):
    call_command("import_results", str(sample_data / "training-v1.0"), "--round", "training-v1.0", "--publish",
                 stdout=io.StringIO())
    assert client.get("/rounds/training-v1.0/summary_results.json").status_code == 404
    assert client.get("/api/v1/rounds/training-v1.0/summary_results/").status_code == 404


@pytest.mark.corpus
def test_the_corpus_round_exports_the_official_summary():
    """import_results on ../shared/corpus/inference/v4.1, then the export: every official record
    whose result this copy holds (49 of 56; the 7 others lack left-out detail logs, see
    docs/differences.md)."""
    if not (CORPUS / "v4.1").is_dir():
        pytest.skip(f"the inference corpus is not at {CORPUS}")
    records = summary_results(None, import_round(CORPUS / "v4.1"))
    assert len(records) == 49
    assert_official(records)


def test_a_network_division_result_is_stored_and_exported(client, sample_data, tmp_path):
    """The same system in the closed and network divisions (the network copy says so: is_network,
    the round's network fields, a "Network SUT" SUT name): both stored, one system row each."""
    closed = sample_data / "inference-v4.1" / "closed" / "NeuralMagic"
    root = tmp_path / "v4.1"
    shutil.copytree(closed, root / "closed" / "NeuralMagic")
    network = root / "network" / "NeuralMagic"
    shutil.copytree(closed, network)
    for path in root.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    (description,) = (network / "systems").glob("*.json")
    fields = {name: "x" for name in OFFICIAL_RULES_DATA["v4.1"]["network_system_fields"]}
    description.write_text(json.dumps({**json.loads(description.read_text()), **fields,
                                       "division": "network", "is_network": "true"}))
    for summary in network.rglob("performance/run_1/mlperf_log_summary.txt"):
        summary.write_text(summary.read_text().replace("SUT name : PySUT", "SUT name : PySUT Network SUT"))
    round_ = import_round(root)
    results = Result.objects.filter(submission__round=round_).select_related("system")
    assert sorted((r.division, r.system.system_id, r.valid) for r in results) == [
        ("closed", description.stem, True)] * 2 + [("network", f"{description.stem}.network", True)] * 2
    records = json.loads(client.get(ROUND + "summary_results.json").content)
    assert sorted(r["Category"] for r in records) == ["closed", "closed", "network", "network"]
    assert {r["Location"].split("/")[0] for r in records} == {"closed", "network"}
