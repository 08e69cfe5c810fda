"""The public pages as people read them (issue 34): waived findings counted apart everywhere a
result is shown, energy on the training round table and its exports, and each suite's figures in
its own words (compare rows, inference intro, home and progress pages)."""

import csv
import io
import json

import pytest
from django.core.management import call_command
from django.test import Client
from rest_framework.test import APIClient

from ingest.models import IngestJob, Upload
from results.models import Result
from results.tests.factories import make_finding, make_result, make_round, make_submission, make_system
from review import services

pytestmark = pytest.mark.django_db


def imported(sample_data, name: str) -> None:
    call_command("import_results", str(sample_data / name), "--round", name, "--publish", "--jobs", "1",
                 stdout=io.StringIO())


def csv_rows(response) -> list[dict]:
    return list(csv.DictReader(io.StringIO(response.content.decode())))


# --- Waived findings are counted apart -----------------------------------------------------------


@pytest.fixture
def waived(personas):
    """Alpha's published result with five error findings, all waived as a known false positive,
    and one open warning; a reviewer, and an upload of its version."""
    round_ = make_round("1.0")
    system = make_system(make_submission(round_, personas["alpha"]), "dgx")
    result = make_result(system, "resnet", minutes=20.0)
    for line in range(5):
        make_finding(result, severity="error", code="LOG_ORG_MISMATCH", checker="consistency", line=line + 1)
    make_finding(result, severity="warning", code="SEED_REPEATED")
    services.grant_waiver(personas["chair"], result, "false_positive", "the org name changed", code="LOG_ORG_MISMATCH")
    upload = Upload.objects.create(round=round_, organization=personas["alpha"], submission=result.submission,
                                   original_name="alpha.tar.gz", storage_name="x", size_bytes=1, sha256="0" * 64,
                                   version=1)
    IngestJob.objects.create(upload=upload, state="done", error_count=0)
    return {"result": result, "upload": upload, **personas}


def test_the_result_page_counts_waived_errors_apart_not_as_open(client, waived):
    page = client.get(f"/results/{waived['result'].result_id}/").content.decode()
    assert "<summary>Errors: 0 (5 waived)</summary>" in page
    assert "Error (5)" not in page and "checker errors not waived" not in page
    assert "<summary>Warnings: 1</summary>" in page
    assert 'data-severity="error" data-open="0" data-waived="5"' in page


def test_the_review_pages_and_the_upload_status_count_waived_findings_apart(waived):
    reviewer = Client()
    reviewer.force_login(waived["reviewer"])
    result_id = waived["result"].result_id
    review_page = reviewer.get(f"/review/results/{result_id}/").content.decode()
    assert 'data-severity="error" data-open="0" data-waived="5"' in review_page
    queue = reviewer.get("/review/?round=training-v1.0")
    (row,) = [r for r in queue.context["rows"] if r.result_id == result_id]
    assert (row.errors, row.waived_errors, row.warnings, row.waived_warnings) == (0, 5, 1, 0)
    assert '<td class="num errors">0 <span class="muted waived-count">(5 waived)</span></td>' in queue.content.decode()
    api = APIClient()
    api.force_authenticate(waived["owner"])
    counts = api.get(f"/api/v1/uploads/{waived['upload'].pk}/").json()["finding_counts"]
    assert counts == {"warning": 1, "waived": 5, "waived_error": 5}


def test_an_inference_result_page_counts_waived_findings_apart(client, sample_data, personas):
    imported(sample_data, "inference-v0.7")
    result = Result.objects.get(submission__organization__slug="altos", scenario="Server")
    make_finding(result, severity="error", code="LOADGEN_ERROR", checker="loadgen", message="a LoadGen error")
    services.grant_waiver(personas["chair"], result, "false_positive", "expected on this SUT", code="LOADGEN_ERROR")
    page = client.get(f"/results/{result.result_id}/").content.decode()
    assert "<summary>Errors: 0 (1 waived)</summary>" in page and "Error (1)" not in page


# --- Energy on the training round table ----------------------------------------------------------


def test_the_training_round_table_and_its_exports_carry_energy_where_the_round_has_it(client, sample_data):
    imported(sample_data, "training-v4.0")
    page = client.get("/rounds/training-v4.0/").content.decode()
    table = page[page.index('id="results-table"'):page.index("</table>")]
    assert 'data-energy="resnet"' in table and "energy, MJ" in table
    assert '<td class="num energy">7.757</td>' in table  # 7,757,109 J, as the benchmark page shows it
    rows = csv_rows(client.get("/rounds/training-v4.0/table.csv"))
    assert {row["system_id"]: round(float(row["resnet_energy_joules"])) for row in rows} == {
        "8xSMC-H100-SXM-80GB": 7757109, "1xSMC-H100-SXM-80GB": 5520377}
    exported = json.loads(client.get("/rounds/training-v4.0/table.json").content)
    assert "resnet_energy_joules" in exported["columns"] and "bert_energy_joules" not in exported["columns"]


def test_a_round_without_energy_has_no_energy_column(client, personas):
    round_ = make_round("1.0")
    make_result(make_system(make_submission(round_, personas["alpha"]), "dgx"), "resnet", minutes=20.0)
    page = client.get("/rounds/training-v1.0/").content.decode()
    assert "data-energy=" not in page and "energy, MJ" not in page
    assert not any(name.endswith("_energy_joules") for name in csv_rows(client.get(
        "/rounds/training-v1.0/table.csv"))[0])


def test_the_round_table_gives_columns_to_benchmarks_with_results_only(client, personas):
    round_ = make_round("1.0", benchmarks=("resnet", "bert", "minigo"))
    make_result(make_system(make_submission(round_, personas["alpha"]), "dgx"), "resnet", minutes=20.0)
    page = client.get("/rounds/training-v1.0/").content.decode()
    assert 'data-benchmark="resnet"' in page and 'data-benchmark="minigo"' not in page
    assert "minigo (no results)" in page  # named above the table
    assert "minigo" in csv_rows(client.get("/rounds/training-v1.0/table.csv"))[0]  # the export keeps it


# --- Each suite in its own words -----------------------------------------------------------------


def test_the_compare_page_puts_the_hpc_note_in_its_own_row(client, sample_data):
    imported(sample_data, "hpc-v1.0")
    response = client.get("/compare/?result=hpc:1.0-0004:deepcam:weak&result=hpc:1.0-0002:deepcam:strong")
    rows = {row["label"]: row["values"] for row in response.context["rows"] if "label" in row}
    assert "Time to train (min)" not in rows
    assert rows["Time to solution (min)"] == ["", "4.36"]
    assert rows["Models per minute (derived)"][0] == "0.7557"
    assert rows["Score note"][0].startswith("6 of 6 models")


def test_the_compare_page_keeps_each_suites_rows_to_its_own_columns(client, sample_data, personas):
    imported(sample_data, "inference-v0.7")
    round_ = make_round("1.0")
    make_result(make_system(make_submission(round_, personas["alpha"]), "dgx"), "resnet", minutes=20.0,
                result_id="training:1.0-0001:resnet")
    inference = Result.objects.filter(submission__round__suite="inference").order_by("result_id").first()
    response = client.get(f"/compare/?result=training:1.0-0001:resnet&result={inference.result_id}")
    rows = {row["label"]: row["values"] for row in response.context["rows"] if "label" in row}
    assert rows["Time to train (min)"] == ["20.00", ""] and rows["Benchmark"] == ["resnet", ""]
    assert rows["Model"] == ["", "resnet"] and rows["Scenario"] == ["", inference.scenario]


def test_inference_pages_describe_ttft_and_tpot_only_where_results_have_them(client, sample_data):
    imported(sample_data, "inference-v0.7")
    imported(sample_data, "inference-v4.1")
    old = client.get("/rounds/inference-v0.7/").content.decode()
    assert "TTFT" not in old and "tokens" not in old.lower()
    assert "ms for SingleStream (lower is better)" in old and "samples/s for Offline (higher is better)" in old
    llm = client.get("/rounds/inference-v4.1/").content.decode()
    assert "time to first token (TTFT)" in llm and "Tokens/s for Server and Offline (higher is better)" in llm
    # A model's page (the round filtered to it) speaks of that model's results only.
    resnet = client.get("/rounds/inference-v4.1/?model=resnet").content.decode()
    assert "TTFT" not in resnet


def test_the_home_page_speaks_of_each_suite_in_its_own_words(client, sample_data):
    imported(sample_data, "training-v4.0")
    imported(sample_data, "inference-v0.7")
    imported(sample_data, "hpc-v1.0")
    page = client.get("/").content.decode()
    assert page.count("Who trained what") == 1
    training = page[page.index('id="suite-training"'):page.index('id="suite-inference"')]
    assert "Who trained what" in training and 'id="figure-headlines"' in training
    inference = page[page.index('id="suite-inference"'):page.index('id="suite-hpc"')]
    assert "Who trained what" not in inference and "per scenario" in inference
    hpc = page[page.index('id="suite-hpc"'):]
    assert "time to solution (strong scaling)" in hpc and "Who trained what" not in hpc
    lead = page[page.index('class="lead"'):page.index('id="suite-training"')]
    assert "trained" not in lead


def test_each_progress_page_says_what_it_compares_in_its_suites_words(client, sample_data):
    imported(sample_data, "hpc-v1.0")
    hpc = client.get("/progress/hpc/").content.decode()
    assert "time to solution (strong scaling) only" in hpc
    assert "Best time to solution per benchmark and round" in hpc and "Minutes to solution (log)" in hpc
    assert "to train" not in hpc[hpc.index("<h1"):hpc.index("<footer")]
    assert "Latency scenarios are left out" in client.get("/progress/inference/").content.decode()
    assert "Quality targets changed" in client.get("/progress/training/").content.decode()


def test_a_weak_scaling_result_shows_its_models_per_minute_on_system_and_organization_pages(client, sample_data):
    imported(sample_data, "hpc-v1.0")
    result = Result.objects.get(result_id="hpc:1.0-0004:deepcam:weak")
    organization = result.submission.organization.slug
    system = client.get(f"/systems/{organization}/{result.system.system_id}/").content.decode()
    assert "0.756 <span class=\"muted\">models/min</span>" in system
    listed = client.get(f"/organizations/{organization}/").content.decode()
    row = listed[listed.index("hpc:1.0-0004:deepcam:weak"):]
    row = row[:row.index("</tr>")]
    assert "0.756" in row and "models/min (derived)" in row and "n/a" not in row


def test_every_suite_gives_the_shared_pages_its_own_words():
    from pages.suites import SUITES

    for suite, pages in SUITES.items():
        assert pages.HOME_TAGLINE and pages.PROGRESS_NOTE, suite
        assert callable(pages.compare_rows) and callable(pages.progress_charts) and callable(pages.home_charts)


def test_search_names_each_round_with_its_suite(client, sample_data):
    imported(sample_data, "hpc-v1.0")
    page = client.get("/search/?q=A100").content.decode()
    assert '<a href="/rounds/hpc-v1.0/">HPC v1.0</a>' in page and "vhpc" not in page
