"""import_results of MLPerf HPC rounds and of energy-to-train results: what lands in the database
is the official summarizer's figures (../shared/corpus reference tables, to the printed digit),
and an HPC package's strong and weak results of one system and benchmark are two results."""

from __future__ import annotations

import csv
import io
import shutil

import pytest
from django.core.management import call_command

from mlperf_check.tests.test_hpc_power_corpus import FOLDERS, cells
from results.models import Result, Round, Run

pytestmark = pytest.mark.django_db


def import_round(path, slug: str, *extra) -> str:
    out = io.StringIO()
    call_command("import_results", str(path), "--round", slug, "--jobs", "1", *extra, stdout=out)
    return out.getvalue()


def stored(round_version: str, row: dict, benchmark: str, scaling: str) -> Result:
    """The database's result for one cell of the official summary (its row names the JSON)."""
    submitter, system_file = row["details_url"].split("/blob/main/")[1].split("/systems/")
    folder = FOLDERS.get((f"v{round_version}", submitter), submitter)
    return Result.objects.current().get(
        submission__round__suite="hpc",
        submission__round__version=round_version,
        submission__organization__slug=folder.lower().replace("+", ""),
        system__system_id=system_file.removesuffix(".json"),
        benchmark__name=benchmark,
        scaling=scaling,
    )


@pytest.mark.corpus
@pytest.mark.parametrize("version", ["1.0", "2.0"])
def test_an_hpc_round_is_stored_with_the_official_figures(corpus, version):
    out = import_round(corpus / "hpc" / f"v{version}", f"hpc-v{version}", "--publish")
    assert "created" in out
    round_ = Round.objects.get(suite="hpc", version=version)
    assert round_.ruleset_version == f"hpc-{version}.0" and round_.state == "published"
    assert set(round_.benchmarks.values_list("name", flat=True)) >= {"cosmoflow", "deepcam", "oc20"}
    checked = 0
    for row, benchmark, table in cells(f"v{version}", f"v{version}_summary_mlperf_logging_4.1.68.csv"):
        if table == 0:
            result = stored(version, row, benchmark, "strong")
            assert repr(result.score_minutes) == row[benchmark]
            assert result.metric_value == result.score_minutes and result.metric_unit == "minutes"
            checked += 1
        else:
            result = stored(version, row, benchmark, "weak")
            assert repr(result.time_to_train_all_minutes) == row[f"{benchmark}:time_to_train_all"]
            assert repr(float(result.number_of_models)) == row[f"{benchmark}:number_of_models"]
            assert repr(float(result.instance_scale)) == row[f"{benchmark}:instance_scale"]
            assert result.models_per_minute == result.number_of_models / result.time_to_train_all_minutes
            assert result.metric_value == result.models_per_minute and result.metric_direction == "higher"
            assert result.score_minutes is None
            checked += 3
    assert checked == {"1.0": 31, "2.0": 25}[version]
    # A second import changes nothing.
    assert "created" not in import_round(corpus / "hpc" / f"v{version}", f"hpc-v{version}")


def test_strong_and_weak_results_of_one_system_and_benchmark_are_two_results(sample_data, tmp_path):
    """One system with deepcam in both scalings (the sample's strong deepcam logs copied beside
    its weak ones): two results with two ids, each kept when the package is imported again."""
    package = tmp_path / "HelmholtzAI"
    shutil.copytree(sample_data / "hpc-v1.0" / "HelmholtzAI", package)
    system = package / "results" / "juwelsbooster_gpu_n3072_pytorch1.10_6x512"
    shutil.copytree(package / "results" / "horeka_gpu_n512_pytorch1.10" / "strong", system / "strong")
    import_round(package, "hpc-v1.0")
    both = Result.objects.filter(system__system_id=system.name, benchmark__name="deepcam")
    ids = dict(both.values_list("scaling", "result_id"))
    assert set(ids) == {"strong", "weak"} and len(set(ids.values())) == 2
    (system / "strong" / "deepcam" / "result_5.txt").unlink()  # a new version
    assert "updated" in import_round(package, "hpc-v1.0")
    assert dict(Result.objects.current().filter(system__system_id=system.name).values_list("scaling", "result_id")) == ids


@pytest.mark.corpus
def test_energy_to_train_is_stored_beside_time_to_train(corpus):
    import_round(corpus / "power" / "v4.0", "training-v4.0", "--publish")
    reference = corpus / "power" / "reference"
    rows = list(csv.reader(open(reference / "v4.0_power_summary_contemporary_power.csv")))
    benchmarks, kinds, header = rows[0], rows[1], rows[2]
    per_run = {
        (row["system"], row["benchmark"], row["result_file"]): row["energy"]
        for row in csv.DictReader(open(reference / "v4.0_power_per_run_energy.csv"))
        if row["tool"].startswith("mlcommons/logging")
    }
    checked = 0
    for row in rows[3:]:
        system_id = row[header.index("details_url")].rsplit("/", 1)[1].removesuffix(".json")
        for column, (benchmark, kind) in enumerate(zip(benchmarks, kinds, strict=True)):
            if not row[column] or kind not in ("perf", "power"):
                continue
            result = Result.objects.get(system__system_id=system_id, benchmark__name=benchmark)
            got = result.score_minutes if kind == "perf" else result.energy_joules
            assert repr(got) == row[column], (system_id, benchmark, kind)
            checked += 1
            if kind == "power":
                for run in Run.objects.filter(result=result):
                    assert repr(run.energy_joules) == per_run[(system_id, benchmark, run.file.rsplit("/", 1)[1])]
                    assert run.power_folder.endswith("power/" + run.file.rsplit("/", 1)[1].removesuffix(".txt"))
                    checked += 1
    assert checked == 12 + 45


def test_the_sample_hpc_round_imports_idempotently(sample_data):
    """The bundled sample (no corpus needed): strong and weak results, ids kept on re-import."""
    assert "HelmholtzAI: created (3 results, 21 runs)" in import_round(sample_data / "hpc-v1.0", "hpc-v1.0")
    weak = Result.objects.get(scaling="weak", benchmark__name="deepcam")
    assert (weak.number_of_models, weak.instance_scale) == (6, 512)
    ids = sorted(Result.objects.values_list("result_id", "scaling"))
    assert "unchanged" in import_round(sample_data / "hpc-v1.0", "hpc-v1.0")
    assert sorted(Result.objects.values_list("result_id", "scaling")) == ids
