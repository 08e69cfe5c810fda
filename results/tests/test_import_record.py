"""import_record (issue 38): results checkouts recognized by suite and round, official ids from
the published summary, resumable and idempotent, on the bundled sample and the corpus."""

from __future__ import annotations

import io
import shutil

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from results.models import CitableId, Finding, ImportedFolder, Result, Round, Run, Submission
from results.services.record_import import CheckoutError, import_checkout, recognize_checkout
from results.suites import SUITES

pytestmark = pytest.mark.django_db


def import_record(*paths, jobs=1, extra=()) -> str:
    out = io.StringIO()
    call_command("import_record", *map(str, paths), "--jobs", str(jobs), *extra, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def stored():
    """Everything an import writes, to compare two states of the database."""
    return {
        "submissions": list(Submission.objects.values_list("pk", "sha256", "updated_at", "is_current").order_by("pk")),
        "results": list(Result.objects.values_list("pk", "result_id", "score_minutes", "metric_value").order_by("pk")),
        "runs": Run.objects.count(),
        "findings": Finding.objects.count(),
        "ids": CitableId.objects.count(),
        "progress": list(ImportedFolder.objects.values_list("pk", "fingerprint", "imported_at").order_by("pk")),
    }


def test_it_recognizes_the_suite_and_round_of_each_checkout(sample_data, tmp_path):
    training = recognize_checkout(sample_data / "training-v1.0")
    assert (training.suite, training.version, training.ids) == ("training", "1.0", None)
    hpc = recognize_checkout(sample_data / "hpc-v1.0")
    assert (hpc.suite, hpc.version, hpc.round_slug) == ("hpc", "1.0", "hpc-v1.0")
    inference = recognize_checkout(sample_data / "inference-v4.1")
    assert (inference.suite, inference.version) == ("inference", "4.1")
    assert inference.ids == sample_data / "inference-v4.1-ids.json"
    # A results repository as MLCommons names it, and a folder whose name gives no round: its logs do.
    repository = tmp_path / "training_results_v0.7"
    shutil.copytree(sample_data / "training-v0.7/Tencent", repository / "Tencent")
    assert recognize_checkout(repository).round_slug == "training-v0.7"
    unnamed = tmp_path / "history"
    shutil.copytree(sample_data / "training-v0.7/Tencent", unnamed / "Tencent")
    assert recognize_checkout(unnamed).round_slug == "training-v0.7"


def test_the_public_repositories_own_layouts(sample_data, tmp_path):
    # training_results_v0.5 keeps its submitter folders in one round folder, v0.5.0/.
    v05 = tmp_path / "training_results_v0.7"
    shutil.copytree(sample_data / "training-v0.7/Tencent", v05 / "v0.7.0" / "Tencent")
    checkout = recognize_checkout(v05)
    assert (checkout.path, checkout.round_slug) == (v05, "training-v0.7")
    assert [unit.folders for unit in SUITES["training"].submitters(v05)] == [(v05 / "v0.7.0" / "Tencent",)]
    # hpc_results_v0.7 has training's layout (no strong/ or weak/): refused, not filed as training.
    hpc = tmp_path / "hpc_results_v0.7"
    shutil.copytree(sample_data / "training-v0.7/Tencent", hpc / "Tencent")
    with pytest.raises(CheckoutError, match="named as hpc results, but its folders have the layout of training results"):
        recognize_checkout(hpc)
    # A round whose rules the checker does not have (tiny_results_v0.7; Tiny from v1.3 only).
    tiny = tmp_path / "tiny_results_v0.7"
    shutil.copytree(sample_data / "tiny-v1.3", tiny)
    with pytest.raises(CheckoutError, match=r"tiny_results_v0.7: .* v0.7 results; no MLPerf Tiny rules for '0.7'"):
        recognize_checkout(tiny)


def test_with_publish_every_round_must_have_a_known_day_before_any_is_imported(sample_data, tmp_path):
    undated = tmp_path / "inference_results_v6.1"  # rules known, the day of its publication not
    shutil.copytree(sample_data / "inference-v4.1", undated)
    with pytest.raises(CommandError, match="the day MLCommons published inference-v6.1 is not known") as refused:
        import_record(sample_data / "training-v1.0", undated, extra=["--publish"])
    assert refused.value.returncode == 2
    assert not Submission.objects.exists()


def test_it_refuses_what_is_no_checkout_before_importing_anything(sample_data, tmp_path):
    with pytest.raises(CheckoutError, match="not a folder"):
        recognize_checkout(tmp_path / "missing")
    (tmp_path / "empty_results_v1.0").mkdir()
    with pytest.raises(CommandError, match="no submitter folders") as refused:
        import_record(sample_data / "training-v1.0", tmp_path / "empty_results_v1.0")
    assert refused.value.returncode == 2
    assert not Submission.objects.exists()


def test_a_second_import_checks_and_changes_nothing(sample_data):
    first = import_record(sample_data / "training-v1.0", sample_data / "hpc-v1.0", extra=["--publish"])
    assert "training-v1.0 [1/7] Fujitsu: created" in first  # plain lines when not on a terminal
    assert "training-v1.0 from" in first and "7 created" in first and "hpc-v1.0 from" in first
    assert Round.objects.get(suite="training", version="1.0").state == "published"
    before = stored()
    second = import_record(sample_data / "training-v1.0", sample_data / "hpc-v1.0", extra=["--publish"])
    assert "7 skipped" in second and "3 skipped" in second and "created" not in second
    assert stored() == before
    # Checked again on demand: the same content stores nothing either.
    again = import_record(sample_data / "training-v1.0", extra=["--recheck"])
    assert "7 unchanged" in again
    assert stored()["results"] == before["results"] and stored()["submissions"] == before["submissions"]


def test_a_unit_the_database_refuses_is_reported_and_the_others_are_stored(sample_data, monkeypatch):
    # inference_results_v2.0's Krai once broke a constraint, and the IntegrityError stopped the
    # whole import of the record there.
    from django.db import IntegrityError

    from results import suites

    training = suites.SUITES["training"]
    store = training.import_checked

    def refuse_fujitsu(unit, checked, **kwargs):
        stored = store(unit, checked, **kwargs)  # its rows written, then refused: all rolled back
        if unit.name == "Fujitsu":
            raise IntegrityError('duplicate key value violates unique constraint "result_unique_per_submission"')
        return stored

    monkeypatch.setattr(training, "import_checked", refuse_fujitsu)
    with pytest.raises(CommandError):  # exit status 1: some folders failed, as the summary says
        import_record(sample_data / "training-v1.0")
    assert not Submission.objects.filter(organization__name__icontains="Fujitsu").exists()
    assert Submission.objects.count() == 6
    refused = ImportedFolder.objects.get(source__endswith="Fujitsu")
    assert refused.status == "failed" and "result_unique_per_submission" in refused.errors
    assert refused.fingerprint == ""  # tried again by the next import
    monkeypatch.setattr(training, "import_checked", store)
    again = import_record(sample_data / "training-v1.0")
    assert "Fujitsu: created" in again and "6 skipped" in again


def test_an_interrupted_import_continues_with_the_units_it_had_not_finished(sample_data):
    checkout = recognize_checkout(sample_data / "training-v1.0")

    def interrupt_after_three(outcome, done, total):
        if done == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        import_checkout(checkout, on_unit=interrupt_after_three)
    assert Submission.objects.count() == ImportedFolder.objects.count() == 3
    statuses = []
    summary = import_checkout(checkout, on_unit=lambda outcome, done, total: statuses.append(outcome.status))
    assert statuses == ["skipped"] * 3 + ["created"] * 4
    assert summary.count("created") == 4 and Submission.objects.count() == 7
    assert summary.results == Result.objects.count() > 0


def test_changed_files_are_checked_again_and_make_a_new_version(sample_data, tmp_path):
    checkout = tmp_path / "training_results_v1.0"
    shutil.copytree(sample_data / "training-v1.0/Fujitsu", checkout / "Fujitsu")
    shutil.copytree(sample_data / "training-v1.0/Inspur", checkout / "Inspur")
    import_record(checkout)
    log = next((checkout / "Fujitsu").rglob("result_*.txt"))
    log.write_bytes(log.read_bytes() + b"\n")
    out = import_record(checkout)
    assert "Fujitsu: updated" in out and "Inspur: skipped" in out
    assert Submission.objects.filter(organization__slug="fujitsu").count() == 2


def test_checking_in_parallel_stores_what_one_process_stores(sample_data):
    import_record(sample_data / "training-v0.7", jobs=2)
    assert ImportedFolder.objects.filter(status="created").count() == 4
    # Checked again in this process: the same reports (content digests), so nothing new is stored.
    assert "4 unchanged" in import_record(sample_data / "training-v0.7", jobs=1, extra=["--recheck"])
    assert Submission.objects.count() == 4


def test_official_ids_are_taken_from_the_checkouts_id_mapping(sample_data):
    out = import_record(sample_data / "inference-v4.1")
    assert "an id mapping: no published figures" in out
    entries = set(CitableId.objects.values_list("entry", "local"))
    assert entries == {("4.1-0052", False), ("4.1-0068", False)}


def test_official_ids_and_figures_are_taken_from_the_published_summary(corpus):
    out = import_record(corpus / "inference/v4.1", jobs=2)
    lines = out.splitlines()
    compared = next(line for line in lines if line.startswith("  published figures"))
    assert "summary_results_v4.1.json): 56 compared" in compared
    published = set(CitableId.objects.filter(local=False).values_list("entry", flat=True))
    assert len(published) > 10 and all(entry.startswith("4.1-") for entry in published)
    # Local numbers start after the summary's highest: no id the summary gives is taken by a result it
    # does not list (the official checker rejected it), whatever order the submitters come in.
    highest = max(int(entry[4:]) for entry in published)
    assert all(int(e[4:]) > highest for e in CitableId.objects.filter(local=True).values_list("entry", flat=True))
    # Every figure stored under a published id is the published one. The ids it lists as missing
    # are the open NeuralMagic system's: the summary gives it one id per model, the database one
    # entry per system (results/services/citable.py).
    differences = [line.strip() for line in lines[lines.index(compared) + 1:] if line.startswith("    ")]
    assert differences and all("no result stored under it" in line for line in differences), out


def test_synthetic_rounds_beside_the_record_take_ids_of_their_own_and_clear_again(sample_data):
    """seed_synthetic numbered its entries from 1 in rounds an import had numbered already (a
    duplicate result id), and --clear could not delete its organizations (their ids protect them)."""
    import_record(sample_data / "training-v1.0")
    real = sorted(Result.objects.values_list("result_id", flat=True))
    seed = ["seed_synthetic", "--results", "40", "--runs", "80", "--organizations", "2"]
    call_command(*seed, stdout=io.StringIO())
    call_command(*seed, "--clear", stdout=io.StringIO())
    synthetic = Result.objects.filter(submission__organization__slug__startswith="synthetic-")
    assert synthetic.count() == 40
    assert sorted(Result.objects.exclude(pk__in=synthetic.values("pk")).values_list("result_id", flat=True)) == real
    # An entry names one system of one organization: the synthetic ones are numbered after the real ones.
    entries = {}
    for organization, entry in CitableId.objects.filter(round__version="1.0").values_list("organization", "entry"):
        entries.setdefault(entry, set()).add(organization)
    assert all(len(organizations) == 1 for organizations in entries.values())
    # Inference-shaped rounds beside them, spread over the inference rounds; cleared with the rest.
    call_command(*seed, "--inference-results", "240", "--clear", stdout=io.StringIO())
    inference = synthetic.filter(submission__round__suite="inference")
    assert inference.count() >= 240 and inference.values("submission__round").distinct().count() == 12
    assert not inference.filter(runs__isnull=False).exists() and synthetic.count() == 40 + inference.count()
    call_command(*seed, "--clear", stdout=io.StringIO())
    assert not inference.exists() and synthetic.count() == 40


def test_on_a_terminal_it_shows_a_progress_bar_instead_of_lines(sample_data, monkeypatch):
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    terminal = Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    out = import_record(sample_data / "training-v0.7")
    assert "training-v0.7: 100%" in terminal.getvalue() and "4/4" in terminal.getvalue()
    assert "[1/4]" not in out and "training-v0.7 from" in out  # the summary still comes on stdout


@pytest.mark.django_db(transaction=True)
def test_the_planner_statistics_are_refreshed_after_an_import(sample_data):
    from django.db import connection

    import_record(sample_data / "training-v1.0")
    with connection.cursor() as cursor:
        cursor.execute("SELECT reltuples FROM pg_class WHERE relname = %s", [Result._meta.db_table])
        (estimated,) = cursor.fetchone()
    assert estimated == Result.objects.count() > 0  # what ANALYZE counted, not the empty table's -1
