"""Citable result ids (issue 24): unique across suites and rounds, never reused, kept by every
version of a result, official where the data carries them, `/r/<id>` to the result's page, and the
migration that separated the ids both suites had minted as `<version>-NNNN`."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import IntegrityError, connection, transaction
from django.db.migrations.executor import MigrationExecutor

from audit import events
from results.models import CitableId, Result
from results.services.citable import IdMappingError, read_id_mapping
from results.tests.factories import make_org, make_result, make_round, make_submission, make_system

pytestmark = pytest.mark.django_db


def import_round(path, slug, *extra) -> str:
    out = io.StringIO()
    call_command("import_results", str(path), "--round", slug, "--jobs", "1", "--publish", *extra, stdout=out)
    return out.getvalue()


def test_training_and_inference_of_one_version_never_share_an_id(client, sample_data):
    import_round(sample_data / "training-v0.7", "training-v0.7")
    import_round(sample_data / "inference-v0.7", "inference-v0.7")
    ids = list(Result.objects.values_list("result_id", flat=True))
    assert len(ids) == len(set(ids)) == CitableId.objects.count()
    inference = Result.objects.filter(submission__round__suite="inference").order_by("pk").first()
    assert inference.result_id.startswith("inference:0.7-") and inference.citable.local
    # The page of an inference result is the inference result, and the API finds one row.
    page = client.get(f"/results/{inference.result_id}/")
    assert page.status_code == 200 and page.context["result"].pk == inference.pk
    rows = client.get("/api/v1/results/", {"result_id": inference.result_id}).json()["results"]
    assert [r["result_id"] for r in rows] == [inference.result_id]
    # Every result of one system shares its entry; two systems never do.
    entries = {}
    for citable in CitableId.objects.filter(round__suite="inference"):
        entries.setdefault((citable.organization_id, citable.system_id), set()).add(citable.entry)
    assert all(len(e) == 1 for e in entries.values())
    assert len({next(iter(e)) for e in entries.values()}) == len(entries)
    # The audit log holds the longest ids (suite, entry, model and scenario).
    longest = max(Result.objects.all(), key=lambda r: len(r.result_id))
    assert events.result_withdrawn(longest, actor=None, reason="test", previous="active").result_id == longest.result_id


def test_a_new_version_keeps_the_ids_and_an_id_is_never_given_twice(sample_data):
    import_round(sample_data / "training-v1.0", "training-v1.0")
    first = dict(Result.objects.values_list("folder", "result_id"))
    result = Result.objects.order_by("pk").first()
    # A second version of the same submission: a new row per result, the same ids.
    submission = result.submission
    second = make_submission(submission.round, submission.organization, version=2)
    again = make_result(make_system(second, result.system.system_id), result.benchmark)
    assert again.result_id == result.result_id and again.citable == result.citable
    assert first == {f: i for f, i in Result.objects.filter(submission__version=1).values_list("folder", "result_id")}
    with pytest.raises(IntegrityError), transaction.atomic():
        CitableId.objects.create(result_id=result.result_id, round=result.submission.round,
                                 organization=submission.organization, system_id="other", benchmark="resnet")


def test_official_ids_come_from_summary_results_json(tmp_path, sample_data):
    summary = [{
        "ID": "v0.7-0042", "Submitter": "Altos", "Category": "closed", "Suite": "datacenter", "System": "T4 x4",
        "Platform": "T4x4_TRT", "Model": "resnet", "Scenario": "Offline", "Performance_Result": 1.0,
        "Location": "closed/Altos/results/T4x4_TRT/resnet/Offline",
    }]
    (tmp_path / "summary_results.json").write_text(json.dumps(summary))
    import_round(sample_data / "inference-v0.7", "inference-v0.7", "--ids", str(tmp_path / "summary_results.json"))
    altos = Result.objects.filter(submission__organization__slug="altos")
    assert altos and all(r.result_id.startswith("inference:0.7-0042:") and not r.citable.local for r in altos)
    others = Result.objects.exclude(submission__organization__slug="altos")
    assert others and all(r.citable.local and r.citable.entry != "0.7-0042" for r in others)


def test_a_system_in_both_divisions_has_an_official_entry_in_each(tmp_path):
    summary = [
        {"ID": f"4.1-00{n}", "Submitter": "Alpha", "Category": division, "Suite": "datacenter", "Platform": "box",
         "Model": "resnet", "Scenario": "Offline", "Performance_Result": 1.0,
         "Location": f"{division}/Alpha/results/box/resnet/Offline"}
        for n, division in ((12, "closed"), (13, "open"))
    ]
    path = tmp_path / "summary_results.json"
    path.write_text(json.dumps(summary))
    assert read_id_mapping(path) == {("Alpha", "box"): "4.1-0012", ("Alpha", "box.closed"): "4.1-0012",
                                     ("Alpha", "box.open"): "4.1-0013"}


def test_official_ids_come_from_a_mapping_file(tmp_path, sample_data):
    mapping = tmp_path / "ids.json"
    mapping.write_text(json.dumps({"Fujitsu/gx_A100x4_mxnet_NGC_21.04": "1.0-0027"}))
    import_round(sample_data / "training-v1.0", "training-v1.0", "--ids", str(mapping))
    fujitsu = Result.objects.get(system__system_id="gx_A100x4_mxnet_NGC_21.04", benchmark__name="ssd")
    assert fujitsu.result_id == "training:1.0-0027:ssd" and not fujitsu.citable.local


@pytest.mark.parametrize("content, message", [
    ('{"Fujitsu": "1.0-0001"}', "is not <submitter folder>/<system id>"),
    ('{"Fujitsu/x": "one"}', "is not an entry id"),
    ('[{"ID": "1.0-0001"}]', "record 0: missing"),
    ("not json", "cannot read a JSON id mapping"),
])
def test_a_bad_id_mapping_is_named(tmp_path, content, message):
    path = tmp_path / "ids.json"
    path.write_text(content)
    with pytest.raises(IdMappingError, match=message):
        read_id_mapping(path)


def test_permalink_redirects_to_the_result_and_hides_what_is_hidden(client):
    round_ = make_round("4.1")
    public = make_result(make_system(make_submission(round_, make_org("Alpha"), published=True), "a"), "resnet")
    hidden = make_result(make_system(make_submission(round_, make_org("Beta"), published=False), "b"), "resnet")
    response = client.get(f"/r/{public.result_id}")
    assert response.status_code == 302 and response["Location"] == f"/results/{public.result_id}/"
    assert client.get(f"/r/{hidden.result_id}").status_code == 404
    assert client.get("/r/training:4.1-9999:resnet").status_code == 404


def test_the_migration_separates_ids_both_suites_minted(transactional_db):
    executor = MigrationExecutor(connection)
    executor.migrate([("results", "0005_core_version_order")])
    apps = executor.loader.project_state([("results", "0005_core_version_order")]).apps
    Round, Org, Submission, System, Benchmark, OldResult = (apps.get_model("results", name) for name in (
        "Round", "Organization", "Submission", "System", "Benchmark", "Result"))
    org = Org.objects.create(name="Alpha", slug="alpha")
    rows = []
    for suite, scenario in (("training", ""), ("inference", "Offline")):
        round_ = Round.objects.create(suite=suite, version="0.7", ruleset_version="0.7.0", next_result_number=2)
        bench = Benchmark.objects.create(round=round_, name="resnet")
        for version in (1, 2):  # two versions of each result share its id
            sub = Submission.objects.create(round=round_, organization=org, version=version, sha256=f"{suite}{version}")
            system = System.objects.create(submission=sub, system_id="box", name="Box", description={})
            rows.append(OldResult.objects.create(submission=sub, system=system, benchmark=bench, result_id="0.7-0001",
                                                 folder="results/box/resnet", scenario=scenario))
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
    ids = {r.pk: r.result_id for r in Result.objects.filter(pk__in=[r.pk for r in rows])}
    assert len(ids) == 4  # no row lost
    assert ids[rows[0].pk] == ids[rows[1].pk] == "0.7-0001"  # the first holder keeps its id
    assert ids[rows[2].pk] == ids[rows[3].pk] == "inference:0.7-0002:resnet:Offline"
    assert CitableId.objects.count() == 2


def test_several_open_models_of_a_system_under_one_official_model_each_get_a_leaderboard(tmp_path):
    # inference_results_v2.0's Krai ran eight detection models on one system, each a folder the
    # round's names map onto ssd-large: stored under one benchmark they collided (one result per
    # system, benchmark and scenario) and the whole import stopped with an IntegrityError.
    data = Path(__file__).resolve().parents[2] / "mlperf_check" / "tests" / "data" / "inference" / "v0.7"
    models = tmp_path / "v0.7" / "open" / "Mobilint" / "results" / "mobilint_edge"
    shutil.copytree(data / "closed" / "Mobilint", tmp_path / "v0.7" / "open" / "Mobilint")
    shutil.copytree(models / "resnet", models / "resnet50")  # both names of the official model resnet
    import_round(tmp_path / "v0.7", "inference-v0.7")
    rows = Result.objects.filter(scenario="SingleStream").values_list("benchmark__name", "folder")
    assert sorted(rows) == [("resnet", "results/mobilint_edge/resnet/SingleStream"),
                            ("resnet50", "results/mobilint_edge/resnet50/SingleStream")]
