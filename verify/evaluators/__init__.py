"""The registered evaluators: for these benchmarks the worker, not the submission, measures the
quality of the model a re-run produced.

Each evaluator is a module of this folder, run by runner.py inside the run's sandbox once every
process of the submission has been killed: it loads the model the run wrote under /output and
evaluates it on fresh data generated from a seed the worker chose at run time, which the
submission never saw. Its figure decides whether the re-run reached the quality target; the
log's own eval lines are only shown. A benchmark without an evaluator can be verified for its
time to train only ("timing only", never "reproduced"). Plain Python: the GPU worker and the
web app both read this table.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

# Bound read-only into every sandbox at verify.sandbox.RUNNER_DIR.
RUNNER_FOLDER = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Evaluator:
    benchmark: str
    module: str  # a module of this folder with evaluate(output_dir: Path, seed: int) -> dict
    what: str  # what it measures, in words (shown on the job page)
    # How far under the target a fresh evaluation may land: the sampling error of the
    # benchmark's own evaluation set, which decided when the run stopped.
    quality_slack: float


EVALUATORS = {
    "tiny_mlp": Evaluator(
        benchmark="tiny_mlp",
        module="tiny_mlp",
        what="accuracy of /output/model.npz on 20,000 fresh two-spiral points generated from a seed the worker chose",
        # 3 standard errors of the benchmark's 4,000-point evaluation at 0.95: sqrt(0.95 * 0.05 / 4000) = 0.0034
        quality_slack=0.01,
    ),
}


def evaluator_for(benchmark: str) -> Evaluator | None:
    return EVALUATORS.get(benchmark)
