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
