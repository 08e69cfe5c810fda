"""tiny_mlp's evaluator (verify/fixtures/tiny_benchmark): the accuracy of the network the run saved
as /output/model.npz on fresh two-spiral points. Runs inside the sandbox after every process of
the submission is gone (runner.py); NumPy only, and the model file is read without pickle."""

from __future__ import annotations

from pathlib import Path

import numpy as np

SAMPLES = 20_000
MAX_HIDDEN = 4096
MODEL_FILE = "model.npz"


def spirals(count: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The benchmark's data: two interleaved spirals with a little noise (as its train.py makes them)."""
    labels = rng.integers(0, 2, count)
    turn = np.sqrt(rng.random(count)) * 3 * np.pi
    sign = np.where(labels == 1, 1.0, -1.0)
    points = np.stack([sign * turn * np.cos(turn), sign * turn * np.sin(turn)], axis=1) / (3 * np.pi)
    return points + rng.normal(0, 0.02, points.shape), labels


def evaluate(output_dir: Path, seed: int) -> dict:
    path = output_dir / MODEL_FILE
    if not path.is_file():
        return {"error": f"the run wrote no model (/output/{MODEL_FILE})"}
    with np.load(path, allow_pickle=False) as model:
        missing = [name for name in ("w1", "b1", "w2", "b2") if name not in model.files]
        if missing:
            return {"error": f"/output/{MODEL_FILE} lacks {', '.join(missing)}"}
        w1, b1, w2, b2 = (np.asarray(model[name], dtype=np.float64) for name in ("w1", "b1", "w2", "b2"))
    hidden = w1.shape[1] if w1.ndim == 2 else 0
    if not (w1.shape == (2, hidden) and b1.shape == (hidden,) and w2.shape == (hidden, 2) and b2.shape == (2,)
            and 0 < hidden <= MAX_HIDDEN):
        return {"error": f"/output/{MODEL_FILE} is not a 2-{hidden}-2 network"}
    points, labels = spirals(SAMPLES, np.random.default_rng(seed))
    logits = np.tanh(points @ w1 + b1) @ w2 + b2
    accuracy = float((logits.argmax(axis=1) == labels).mean())
    return {"accuracy": round(accuracy, 6), "samples": SAMPLES}
