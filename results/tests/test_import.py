"""import_results and export_scores on the bundled real sample, against PostgreSQL."""

from __future__ import annotations

import csv
import io
import json
import shutil

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from results.models import Finding, Organization, Result, Round, Run, Submission, System

pytestmark = pytest.mark.django_db


def import_round(path, slug="training-v1.0", *extra) -> str:
    out = io.StringIO()
    call_command("import_results", str(path), "--round", slug, "--jobs", "1", *extra, stdout=out)
    return out.getvalue()


def snapshot():
    return {
        "submissions": list(Submission.objects.values_list("pk", "sha256", "updated_at").order_by("pk")),
        "results": list(Result.objects.values_list("pk", "result_id", "score_minutes").order_by("pk")),
        "runs": Run.objects.count(),
        "findings": Finding.objects.count(),
    }


def test_it_imports_a_round_with_scores_runs_and_findings(sample_data):
    out = import_round(sample_data / "training-v1.0", "training-v1.0", "--publish")
    assert "Fujitsu: created" in out
    round_ = Round.objects.get(suite="training", version="1.0")
    assert round_.state == "published" and round_.ruleset_version == "1.0.0"
    assert set(round_.benchmarks.values_list("name", flat=True)) >= {"bert", "resnet", "unet3d"}
    assert round_.benchmarks.get(name="resnet").quality_target == pytest.approx(0.759)
    fujitsu = Result.objects.get(submission__organization__slug="fujitsu", benchmark__name="ssd")
    assert fujitsu.score_minutes == pytest.approx(21.899766666666665, rel=1e-12)
    assert fujitsu.result_id == f"training:{fujitsu.citable.entry}:ssd" and fujitsu.citable.local
    assert fujitsu.runs.count() == 5 and fujitsu.runs.filter(scoring="counted").count() == 3
    run = fujitsu.runs.order_by("file").first()
    assert run.log_name.startswith("logs/") and run.eval_curve and run.hyperparameters["global_batch_size"]
    assert Organization.objects.get(slug="habana").name == "HabanaLabs"  # as the system JSON spells it
    intel = System.objects.get(system_id="4-nodes-32s-8376H-pytorch")
    assert intel.division == "open" and intel.accelerators_count == 0
    assert Finding.objects.filter(code="LOG_DIVISION_MISMATCH", line__isnull=False).exists()
    assert Submission.objects.filter(is_published=True).count() == 7
    assert round_.publish_at.date().isoformat() == "2021-06-30"  # the real date, from the ruleset catalog


def test_it_takes_the_publication_date_on_the_command_line(sample_data):
    import_round(sample_data / "training-v1.0", "training-v1.0", "--publish", "--published-at", "2021-07-01")
    assert Round.objects.get(version="1.0").publish_at.date().isoformat() == "2021-07-01"


def test_it_is_idempotent(sample_data):
    import_round(sample_data / "training-v1.0")
    before = snapshot()
    out = import_round(sample_data / "training-v1.0")
    assert out.count(": unchanged") == 7
    assert snapshot() == before


def test_changed_files_make_a_new_version_with_the_same_result_ids(sample_data, tmp_path):
    folder = tmp_path / "Fujitsu"
    shutil.copytree(sample_data / "training-v1.0/Fujitsu", folder)
    import_round(folder)
    result = Result.objects.get()
    original_id, original_score = result.result_id, result.score_minutes
    # Drop the slowest run: the result now has 4 runs, one short of the 5 required.
    slowest = max(result.runs.all(), key=lambda run: run.time_to_train_minutes)
    (folder / slowest.file).unlink()
    out = import_round(folder)
    assert "Fujitsu: updated" in out
    first, second = Submission.objects.order_by("version")
    assert (first.version, first.is_current, second.version, second.is_current) == (1, False, 2, True)
    updated = Result.objects.get(submission=second)
    assert updated.result_id == original_id
    assert updated.runs.count() == 4 and updated.score_minutes != original_score
    assert Finding.objects.filter(submission=second, code="RUN_COUNT_WRONG").exists()
    # Version 1 is untouched.
    assert Result.objects.get(submission=first).score_minutes == original_score
    assert Run.objects.filter(result__submission=first).count() == 5


def test_it_refuses_a_malformed_round_name(sample_data):
    with pytest.raises(CommandError, match="training-v1.0"):
        import_round(sample_data / "training-v1.0", "v1.0")


def test_it_exports_the_summary_with_result_ids(sample_data):
    import_round(sample_data / "training-v1.0")
    out = io.StringIO()
    call_command("export_scores", "--round", "training-v1.0", stdout=out)
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    fujitsu = next(row for row in rows if row["system_id"] == "gx_A100x4_mxnet_NGC_21.04")
    assert float(fujitsu["ssd"]) == pytest.approx(21.899766666666665, rel=1e-12)
    assert fujitsu["ssd_result_id"].startswith("training:1.0-")
    assert fujitsu["submitter"] == "Fujitsu" and fujitsu["division"] == "closed"
    assert list(rows[0])[:11] == [
        "division", "availability", "submitter", "system", "number_of_nodes", "host_processor_model_name",
        "host_processors_count", "accelerator_model_name", "accelerators_count", "framework", "notes",
    ]
    out = io.StringIO()
    call_command("export_scores", "--round", "training-v1.0", "--format", "json", stdout=out)
    document = json.loads(out.getvalue())
    assert document["round"] == "training-v1.0" and len(document["rows"]) == len(rows)


def test_it_applies_recorded_waivers(sample_data, tmp_path):
    # Graphcore's closed POD64 BERT fails the RCP check of the current tables; a chair's recorded
    # rcp_bypass decision (never a file in the upload) turns that into an accepted result.
    from results.models import Waiver
    from results.services.rounds import ensure_round

    folder = sample_data / "training-v1.0/Graphcore"
    import_round(folder)
    failed = Result.objects.get(system__system_id="ipu-pod64-POPART-closed", benchmark__name="bert")
    assert failed.rcp_status == "fail"
    Waiver.objects.create(
        round=ensure_round("training-v1.0"),
        organization=Organization.objects.get(slug="graphcore"),
        system_id="ipu-pod64-POPART-closed",
        benchmark="bert",
        kind="rcp_bypass",
        reason="reviewed: RCP table gap at this batch size",
    )
    import_round(folder)  # the waiver changes the findings: a new, current version
    bypassed = Result.objects.current().get(system__system_id="ipu-pod64-POPART-closed", benchmark__name="bert")
    assert bypassed.rcp_status == "bypassed"
    assert bypassed.result_id == failed.result_id
    assert Finding.objects.filter(result=bypassed, code="RCP_BYPASSED").exists()
