"""The MLPerf HPC pages and energy to train, on the bundled real sample (sample_data/hpc-v1.0,
training-v4.0): leaderboards per benchmark for both scores with the stored figures, their CSV,
the scaling, throughput and energy charts, and the result pages."""

import csv
import io

import pytest
from django.core.management import call_command

pytestmark = pytest.mark.django_db


@pytest.fixture
def hpc(sample_data):
    call_command("import_results", str(sample_data / "hpc-v1.0"), "--round", "hpc-v1.0", "--publish", "--jobs", "1",
                 stdout=io.StringIO())


@pytest.fixture
def energy(sample_data):
    call_command("import_results", str(sample_data / "training-v4.0"), "--round", "training-v4.0", "--publish",
                 "--jobs", "1", stdout=io.StringIO())


def rows(response) -> list[dict]:
    return list(csv.DictReader(io.StringIO(response.content.decode())))


def test_the_hpc_round_ranks_both_scores_per_benchmark(client, hpc):
    page = client.get("/rounds/hpc-v1.0/").content.decode()
    assert "HPC v1.0" in page
    # oc20 time to solution: ANL (256.27 min) first, NCSA (1021.80 min) second.
    oc20 = page[page.index('data-benchmark="oc20" data-scaling="strong"'):]
    oc20 = oc20[: oc20.index("</table>")]
    assert oc20.index("256.27") < oc20.index("1021.80")
    weak = page[page.index('data-benchmark="deepcam" data-scaling="weak"'):]
    weak = weak[: weak.index("</table>")]
    assert "0.756" in weak and ">6<" in weak and ">512<" in weak and "7.94" in weak
    assert "(derived)" in page
    assert 'href="/rounds/hpc-v1.0/table.csv?benchmark=deepcam&amp;scaling=weak"' in page


def test_the_csv_beside_each_leaderboard_holds_exactly_its_rows(client, hpc):
    weak = rows(client.get("/rounds/hpc-v1.0/table.csv?benchmark=deepcam&scaling=weak"))
    assert len(weak) == 1
    (row,) = weak
    assert row["result_id"] == "hpc:1.0-0004:deepcam:weak" and row["scaling"] == "weak"
    assert (row["number_of_models"], row["instance_scale"]) == ("6", "512")
    assert float(row["time_to_train_all_minutes"]) == pytest.approx(7.9394)
    assert float(row["models_per_minute_derived"]) == pytest.approx(6 / 7.9394)
    assert row["time_to_solution_minutes"] == ""
    strong = rows(client.get("/rounds/hpc-v1.0/table.csv?benchmark=oc20&scaling=strong"))
    assert [r["system_id"] for r in strong] == ["thetagpu_n128_pt1.7.1", "halv100_n16_pt1.7.1"]
    assert [float(r["time_to_solution_minutes"]) for r in strong] == [256.26894444444446, 1021.8025555555555]
    everything = rows(client.get("/rounds/hpc-v1.0/table.csv"))
    assert len(everything) == 5
    assert len(rows(client.get("/rounds/hpc-v1.0/summary.csv"))) == 5


def test_an_hpc_benchmark_page_plots_scaling_and_throughput(client, hpc):
    page = client.get("/rounds/hpc-v1.0/oc20/").content.decode()
    assert 'id="chart-scaling"' in page and 'id="chart-throughput"' in page
    assert "Minutes to solution" in page
    scaling = rows(client.get("/rounds/hpc-v1.0/oc20/charts/scaling.csv"))
    assert sorted((int(r["accelerators"]), float(r["minutes"])) for r in scaling) == [
        (64, 1021.8025555555555), (128, 256.26894444444446)]
    throughput = rows(client.get("/rounds/hpc-v1.0/deepcam/charts/throughput.csv"))
    assert [(r["result_id"], r["number_of_models"], r["instance_scale"]) for r in throughput] == [("hpc:1.0-0004:deepcam:weak", "6", "512")]
    assert client.get("/rounds/hpc-v1.0/oc20/charts/energy.csv").status_code == 404  # no power measurements


def test_hpc_result_pages_show_their_score(client, hpc):
    weak = client.get("/results/hpc:1.0-0004:deepcam:weak/").content.decode()
    assert "models per minute (derived)" in weak and "0.756" in weak
    assert 'id="weak-figures"' in weak and "6 models of 512 accelerators" in weak
    assert "Throughput (weak scaling)" in weak
    strong = client.get("/results/hpc:1.0-0001:oc20:strong/").content.decode()
    assert "256.27" in strong and "minutes to solution" in strong
    assert "Time to solution (strong scaling)" in strong


def test_energy_is_shown_beside_time_to_train(client, energy):
    page = client.get("/rounds/training-v4.0/resnet/").content.decode()
    assert "Energy (MJ)" in page and "5.520" in page and "7.757" in page
    assert 'id="chart-energy"' in page
    chart = rows(client.get("/rounds/training-v4.0/resnet/charts/energy.csv"))
    assert [(r["result_id"], float(r["minutes"]), float(r["energy"])) for r in chart] == [
        ("training:4.0-0002:resnet", 2.5543979922909337, 7757109.181548542),
        ("training:4.0-0001:resnet", 13.425142327802915, 5520377.467398339),
    ]
    assert [r["on_frontier"] for r in chart] == ["True", "True"]
    result = client.get("/results/training:4.0-0001:resnet/").content.decode()
    assert "5.520 MJ to train" in result and "5520377 J" in result
    assert "Energy (kJ)" in result  # per run


def test_a_benchmark_without_energy_has_no_energy_column(client, sample_data):
    call_command("import_results", str(sample_data / "training-v3.0"), "--round", "training-v3.0", "--publish",
                 "--jobs", "1", stdout=io.StringIO())
    page = client.get("/rounds/training-v3.0/resnet/").content.decode()
    assert "Energy (MJ)" not in page and 'id="chart-energy"' not in page


def test_the_api_gives_the_hpc_figures_and_energy(client, hpc, energy):
    weak = client.get("/api/v1/results/", {"round": "hpc-v1.0", "scaling": "weak"}).json()["results"]
    assert [(r["result_id"], r["number_of_models"], r["instance_scale"], r["models_per_minute"]) for r in weak] == [
        ("hpc:1.0-0004:deepcam:weak", 6, 512, 6 / 7.9394)]
    assert weak[0]["metric_unit"] == "models/min" and weak[0]["score_minutes"] is None
    (resnet,) = client.get("/api/v1/results/", {"round": "training-v4.0", "system_id": "1xSMC-H100-SXM-80GB"}).json()[
        "results"]
    assert resnet["energy_joules"] == 5520377.467398339
