"""The registered evaluators and the runner that runs them: the quality of a re-run is measured by
the worker on the model the run wrote, on data the submission never saw, after every process of the
submission is gone, and its result line cannot be forged."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from verify.evaluators import EVALUATORS, RUNNER_FOLDER, evaluator_for
from verify.evaluators import tiny_mlp as evaluator
from verify.sandbox import RUNNER_DIR, SANDBOX_ENV, BubblewrapSandbox, Limits, RunSpec, python_runtime_binds
from verify.tests.world import FIXTURE, IMPLEMENTATION
from verify.worker import runner_result

MARKER = "[verification runner 0123456789abcdef]"


def test_only_benchmarks_with_an_evaluator_are_evaluated():
    assert evaluator_for("tiny_mlp") is EVALUATORS["tiny_mlp"] and evaluator_for("resnet") is None
    assert (RUNNER_FOLDER / f"{EVALUATORS['tiny_mlp'].module}.py").is_file()


def test_a_trained_model_is_measured_on_fresh_data(tmp_path):
    env = {"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "SEED": "3", "OUTPUT_DIR": str(tmp_path)}
    subprocess.run([sys.executable, "train.py"], cwd=FIXTURE / IMPLEMENTATION, env=env, check=True, capture_output=True)
    first = evaluator.evaluate(tmp_path, seed=1)
    second = evaluator.evaluate(tmp_path, seed=2)
    assert first["samples"] == 20000 and 0.94 <= first["accuracy"] <= 1.0
    assert first != second  # other points, another figure: the data depends on the worker's seed


def test_an_untrained_model_fails_and_broken_files_say_why(tmp_path):
    rng = np.random.default_rng(0)
    np.savez(tmp_path / "model.npz", w1=rng.normal(size=(2, 8)), b1=np.zeros(8), w2=rng.normal(size=(8, 2)), b2=np.zeros(2))
    assert evaluator.evaluate(tmp_path, seed=1)["accuracy"] < 0.8  # a coin toss, not 0.95
    np.savez(tmp_path / "model.npz", w1=np.zeros((3, 8)), b1=np.zeros(8), w2=np.zeros((8, 2)), b2=np.zeros(2))
    assert evaluator.evaluate(tmp_path, seed=1) == {"error": "/output/model.npz is not a 2-8-2 network"}
    np.savez(tmp_path / "model.npz", w1=np.zeros((2, 8)))
    assert evaluator.evaluate(tmp_path, seed=1) == {"error": "/output/model.npz lacks b1, w2, b2"}
    (tmp_path / "model.npz").unlink()
    assert evaluator.evaluate(tmp_path, seed=1) == {"error": "the run wrote no model (/output/model.npz)"}


def test_a_pickled_model_is_never_unpickled(tmp_path, monkeypatch):
    from verify.evaluators import runner

    np.savez(tmp_path / "model.npz", w1=np.array([object()], dtype=object), b1=np.zeros(1), w2=np.zeros(1), b2=np.zeros(1))
    monkeypatch.setenv("OUTPUT_DIR", str(tmp_path))
    monkeypatch.syspath_prepend(str(RUNNER_FOLDER))
    result = runner.evaluate("tiny_mlp", "1")
    assert result["error"].startswith("the evaluator failed: ValueError") and "allow_pickle" in result["error"]


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")
def test_the_submission_can_neither_read_the_runners_secrets_nor_outlive_its_script(tmp_path):
    """The hostile script reads every /proc/<pid>/environ it can, forges a result line, and leaves a
    process printing behind it. The runner's line is the last one, and the only true one."""
    code = tmp_path / "code"
    code.mkdir()
    (code / "run.sh").write_text(
        "#!/bin/sh\n"
        "env | grep -c VERIFY_ || true\n"
        "for environ in /proc/[0-9]*/environ; do tr '\\0' '\\n' < $environ 2>/dev/null; done | grep VERIFY_ || echo 'no secret read'\n"
        "echo '[verification runner guess] {\"exit_code\": 0, \"evaluation\": {\"accuracy\": 0.99}}'\n"
        "( while :; do echo 'still printing'; sleep 0.05; done ) &\n"
        "sleep 0.3\n"
    )
    for folder in (tmp_path, code):
        os.chmod(folder, 0o755)
    output = bytearray()
    outcome = BubblewrapSandbox(runtime_binds=python_runtime_binds()).run(
        RunSpec(code_dir=code, data_dir=code, command=["python3", f"{RUNNER_DIR}/runner.py", "/bin/sh", "/code/run.sh"],
                env={**SANDBOX_ENV, "OUTPUT_DIR": "/output", "VERIFY_RESULT_MARKER": MARKER,
                     "VERIFY_EVALUATOR": "tiny_mlp", "VERIFY_EVAL_SEED": "77"},
                limits=Limits(wall_seconds=30, memory_bytes=2 * 1024**3, max_processes=64), runner_dir=RUNNER_FOLDER),
        output.extend,
    )
    lines = output.decode().splitlines()
    assert outcome.succeeded, lines
    assert lines[0] == "0" and "no secret read" in lines and "0123456789abcdef" not in "\n".join(lines[:-1])
    assert lines[-1].startswith(MARKER + " ")  # nothing printed after it: the background printer was killed
    assert runner_result(bytes(output), MARKER) == {
        "exit_code": 0, "evaluation": {"error": "the run wrote no model (/output/model.npz)"}}
    assert len(outcome.cpu_samples) >= 2 and outcome.cpu_samples[-1][1] >= 0
