"""`mlperf-check` dispatches an inference folder to the inference checks, same interface as training."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

from mlperf_check.cli import main

DATA = Path(__file__).parent / "data" / "inference"


def run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return main(argv, stdout=out, stderr=err), out.getvalue(), err.getvalue()


def test_inference_round_text_report():
    code, out, _ = run([str(DATA / "v0.7")])
    assert code == 0
    assert out.startswith("inference round v0.7: 3 results")
    assert "VALID    closed/Altos/results/T4x4_TRT/resnet50/Server" in out and "20001.6 queries/s (higher)" in out


def test_inference_json_and_exit_status_on_errors(tmp_path):
    root = Path(shutil.copytree(DATA / "v0.7", tmp_path / "v0.7"))
    (root / "closed/Mobilint/systems/mobilint_edge.json").unlink()
    code, out, _ = run([str(root), "--json"])
    document = json.loads(out)
    assert code == 1
    assert document["suite"] == "inference" and document["round"] == "v0.7"
    invalid = [r for r in document["results"] if not r["valid"]]
    assert {r["system"] for r in invalid} == {"mobilint_edge"}
    assert any(f["code"] == "no_system_description" for r in invalid for f in r["findings"])


def test_explicit_round_overrides_the_path():
    code, out, _ = run([str(DATA / "v0.7"), "--ruleset", "v1.0"])
    assert code == 1 and out.startswith("inference round v1.0")


def test_a_round_without_rules_lists_its_results_unjudged_in_every_format():
    # It once failed with an AttributeError: the unjudged results had no official verdict at all.
    code, out, _ = run([str(DATA / "v0.7"), "--ruleset", "v9.9"])
    assert code == 1 and out.startswith("inference round (no rules): 3 results")
    assert "[round_unknown] no rules for inference round v9.9" in out
    code, out, _ = run([str(DATA / "v0.7"), "--ruleset", "v9.9", "--json"])
    results = json.loads(out)["results"]
    assert code == 1 and len(results) == 3
    assert {(r["valid"], r["verdict"]["official"]) for r in results} == {(False, "INVALID")}


def test_a_folder_of_an_unknown_scenario_is_reported_not_judged(tmp_path):
    # An MLPerf Automotive folder (ConstantStream) once failed the same way.
    root = Path(shutil.copytree(DATA / "v0.7", tmp_path / "v0.7"))
    server = root / "closed/Altos/results/T4x4_TRT/resnet50/Server"
    server.rename(server.with_name("ConstantStream"))
    code, out, _ = run([str(root), "--json"])
    (result,) = [r for r in json.loads(out)["results"] if r["system"] == "T4x4_TRT"]
    assert code == 1 and (result["scenario"], result["valid"], result["verdict"]["official"]) == ("", False, "INVALID")
    assert [f["code"] for f in result["findings"]] == ["unknown_scenario"]


def test_an_archive_of_an_inference_folder(tmp_path):
    import tarfile

    archive = tmp_path / "mobilint.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(DATA / "v0.7" / "closed" / "Mobilint", arcname="Mobilint")
    code, out, _ = run([str(archive), "--ruleset", "v0.7", "--json"])
    document = json.loads(out)
    assert code == 0 and document["round"] == "v0.7"
    assert sorted(r["scenario"] for r in document["results"]) == ["Offline", "SingleStream"]


def test_a_training_archive_stays_with_the_training_checks(tmp_path):
    import tarfile

    from mlperf_check.inference import looks_like_inference

    sample = Path(__file__).resolve().parents[2] / "sample_data" / "training-v1.0" / "Fujitsu"
    archive = tmp_path / "fujitsu.tar"
    with tarfile.open(archive, "w") as tar:
        tar.add(sample, arcname="Fujitsu")
    assert not looks_like_inference(archive)
    assert not looks_like_inference(DATA.parent / "missing.tar")
