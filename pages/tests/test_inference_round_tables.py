"""An inference round's results tables (issue 20): one per system type (and the network division),
a row per system, a column per model and scenario, like MLCommons' results tables; filtered by
division, availability, submitter, accelerator and power in the URL; a CSV beside them; invalid
results and results whose two verdicts differ badged. On the bundled v4.1 sample (NeuralMagic
llama2-70b on a datacenter system, UntetherAI resnet50 with power on an edge system)."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.core.management import call_command

from pages.snapshots import take_snapshot
from pages.suites.inference.leaderboards import inference_points, round_tables
from results.models import Result, Round
from results.tests.factories import make_round

pytestmark = pytest.mark.django_db

ROUND = "/rounds/inference-v4.1/"


@pytest.fixture
def v41(sample_data):
    call_command("import_results", str(sample_data / "inference-v4.1"), "--round", "inference-v4.1", "--publish",
                 stdout=io.StringIO())
    return {(r.system.submitter, r.scenario): r for r in Result.objects.select_related("system")}


def tables_csv(client, query: str = "") -> list[dict]:
    response = client.get(ROUND + "tables.csv" + query)
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    return list(csv.DictReader(io.StringIO(response.content.decode())))


def test_one_table_per_system_type_a_row_per_system_a_column_per_model_and_scenario(client, v41):
    page = client.get(ROUND).content.decode()
    assert page.index('id="round-tables"') < page.index('id="leaderboards"')  # the main view, first
    assert 'data-table="datacenter"' in page and 'data-table="edge"' in page and 'data-table="network"' not in page
    tables = {t["key"]: t for t in round_tables(inference_points(None, Round.objects.get(suite="inference")))}
    assert [(c["model"], c["scenario"], c["unit"]) for c in tables["datacenter"]["columns"]] == [
        ("llama2-70b-99", "Server", "Tokens/s"), ("llama2-70b-99", "Offline", "Tokens/s"),
    ]
    assert [(c["model"], c["scenario"]) for c in tables["edge"]["columns"]] == [
        ("resnet", "SingleStream"), ("resnet", "MultiStream"), ("resnet", "Offline"),
    ]
    (datacenter,) = tables["datacenter"]["rows"]
    assert (datacenter["submitter"], datacenter["accelerators"], datacenter["division"]) == ("NeuralMagic", 8, "closed")
    assert [cell["value"] for cell in datacenter["cells"]] == [592.265, v41[("NeuralMagic", "Offline")].metric_value]
    (edge,) = tables["edge"]["rows"]
    assert edge["submitter"] == "UntetherAI" and [c["power_unit"] for c in edge["cells"]] == [
        "millijoules", "millijoules", "Watts",
    ]
    # Each cell links to its result page; power beside the figure.
    server = v41[("NeuralMagic", "Server")]
    assert f'href="/results/{server.result_id}/"' in page.split('id="leaderboards"')[0]
    assert "29.24 mJ/query" in page.split('id="leaderboards"')[0]


def test_filters_in_the_url_division_availability_submitter_accelerator_power(client, v41):
    assert 'name="submitter"' in client.get(ROUND).content.decode()
    power = client.get(ROUND + "?power=yes").content.decode()
    assert 'data-table="edge"' in power and 'data-table="datacenter"' not in power
    no_power = client.get(ROUND + "?power=no").content.decode()
    assert 'data-table="datacenter"' in no_power and 'data-table="edge"' not in no_power
    by_submitter = client.get(ROUND + "?submitter=NeuralMagic").content.decode()
    assert 'data-table="datacenter"' in by_submitter and 'data-table="edge"' not in by_submitter
    accelerator = v41[("UntetherAI", "Offline")].system.accelerator_model_name
    by_accelerator = client.get(ROUND + "?accelerator=" + accelerator.replace(" ", "").lower()).content.decode()
    assert 'data-table="edge"' in by_accelerator and 'data-table="datacenter"' not in by_accelerator
    assert 'data-table=' not in client.get(ROUND + "?division=open").content.decode()
    available = client.get(ROUND + "?division=closed&category=available").content.decode()  # both say "available"
    assert 'data-table="edge"' in available and 'data-table="datacenter"' in available
    assert 'data-table=' not in client.get(ROUND + "?category=preview").content.decode()
    # The CSV is the tables on screen, filters included.
    assert {row["submitter"] for row in tables_csv(client, "?submitter=UntetherAI")} == {"UntetherAI"}


def test_the_csv_has_a_figure_and_a_verdict_per_model_and_scenario(client, v41):
    rows = {row["table"]: row for row in tables_csv(client)}
    assert set(rows) == {"datacenter", "edge"}
    datacenter = rows["datacenter"]
    assert datacenter["llama2-70b-99 Server (Tokens/s)"] == "592.265"
    assert datacenter["llama2-70b-99 Server (Tokens/s) verdict"] == "valid"
    assert datacenter["resnet Offline (Samples/s)"] == ""  # not run on that system
    assert rows["edge"]["resnet SingleStream (Latency (ms))"] == "0.120438"


def test_invalid_and_differing_verdicts_are_badged_never_shown_as_valid(client, v41):
    server, offline = v41[("NeuralMagic", "Server")], v41[("NeuralMagic", "Offline")]
    # Only our stricter rule rejects the Server result; both verdicts reject the Offline one.
    Result.objects.filter(pk=server.pk).update(valid=False, stricter_rules=["detail_log_error"])
    Result.objects.filter(pk=offline.pk).update(valid=False, official_valid=False)
    tables = client.get(ROUND).content.decode().split('id="leaderboards"')[0]
    assert '<span class="badge warn verdicts" title="official: VALID, ours: INVALID (detail_log_error)">ours: invalid</span>' in tables
    assert '<span class="badge bad">invalid</span>' in tables
    row = next(r for r in tables_csv(client) if r["table"] == "datacenter")
    assert row["llama2-70b-99 Server (Tokens/s) verdict"] == "official: VALID, ours: INVALID (detail_log_error)"
    assert row["llama2-70b-99 Offline (Tokens/s) verdict"] == "invalid"


def test_the_snapshot_carries_both_verdicts_and_says_which_the_results_list(client, v41, settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path
    server = v41[("NeuralMagic", "Server")]
    Result.objects.filter(pk=server.pk).update(valid=False, stricter_rules=["detail_log_error"])
    round_ = Round.objects.get(suite="inference")
    take_snapshot(round_)

    def download(name: str) -> bytes:
        return b"".join(client.get(f"{ROUND}snapshots/1/{name}").streaming_content)

    results = json.loads(download("results.json"))
    assert len(results) == 5  # the official verdict accepts the Server result: it is listed
    verdicts = {row["result_id"]: row for row in json.loads(download("verdicts.json"))}
    assert len(verdicts) == 5
    assert (verdicts[server.result_id]["valid"], verdicts[server.result_id]["official_valid"],
            verdicts[server.result_id]["stricter_rules"]) == (False, True, "detail_log_error")
    header = download("verdicts.csv").decode().splitlines()[0].split(",")
    assert {"valid", "official_valid", "stricter_rules"} <= set(header)
    readme = download("README.md").decode()
    assert "the round's official verdict accepts" in readme and "`official_valid`" in readme


def test_a_training_round_has_no_results_tables(client):
    round_ = make_round("4.0")
    assert client.get(f"/rounds/{round_.slug}/tables.csv").status_code == 404
