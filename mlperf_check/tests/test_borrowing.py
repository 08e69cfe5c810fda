"""The borrowing check on real results of ../shared/corpus/v1.0: a submitter that ran another's
recipe (its own batch size, the learning rate and schedule scaled with it) passes; one whose
recipe differs in a hyperparameter the batch size does not set fails, with that key named."""

from __future__ import annotations

import pytest

from mlperf_check.checkers.base import RunContext
from mlperf_check.rules.borrowing import batch_dependent, compare_hyperparameters
from mlperf_check.rules.catalog import get_ruleset
from mlperf_check.rules.display import closed_hyperparameter_rules
from mlperf_check.runlog import analyze_run

RULESET = "1.0.0"


def logged(corpus, folder: str) -> dict:
    """The hyperparameters the folder's first run logged (review.services.borrowing._logged's choice)."""
    path = sorted((corpus / "v1.0" / folder).glob("result_*.txt"))[0]
    benchmark = folder.rsplit("/", 1)[1]
    context = RunContext(file=str(path), ruleset=get_ruleset(RULESET), system_id="", benchmark=benchmark,
                         system=None, submitter="", division="closed")
    return analyze_run(lambda: path.open("rb"), context, checkers=[]).hyperparameters


def check(corpus, borrower: str, lender: str) -> list[tuple]:
    benchmark = lender.rsplit("/", 1)[1]
    closed = frozenset(rule["key"] for rule in closed_hyperparameter_rules(RULESET, benchmark))
    may_differ = batch_dependent(closed) | {"global_batch_size"}
    mismatches = compare_hyperparameters(logged(corpus, borrower), logged(corpus, lender), may_differ, closed)
    return [(m.key, m.actual, m.expected) for m in mismatches]


@pytest.mark.corpus
def test_the_same_recipe_at_the_same_batch_size_passes_though_train_samples_differ(corpus):
    # Inspur's BERT ran NVIDIA's recipe at the same batch size; its runs saw 3150336 samples
    # before the target, NVIDIA's 3000256: an outcome, not a hyperparameter.
    borrower, lender = "Inspur/results/nf5488a5_pytorch/bert", "NVIDIA/results/dgxa100_ngc21.05_pytorch/bert"
    assert logged(corpus, borrower)["train_samples"] != logged(corpus, lender)["train_samples"]
    assert check(corpus, borrower, lender) == []


@pytest.mark.corpus
def test_the_recipe_at_another_batch_size_passes(corpus):
    # Lenovo ran NVIDIA's ResNet recipe at half the batch (1632, learning rate 7.4 for 10.5);
    # Dell ran NVIDIA's BERT recipe at batch 256, with 13700 training steps for 7100.
    assert check(corpus, "Lenovo/results/SR670_A100_PCIe_40GB_250W/resnet",
                 "NVIDIA/results/dgxa100_ngc21.05_mxnet/resnet") == []
    assert check(corpus, "Dell/results/DSS8440x8A100-PCIE-40GB/bert",
                 "NVIDIA/results/dgxa100_ngc21.05_pytorch/bert") == []


@pytest.mark.corpus
def test_another_recipe_is_a_mismatch_on_each_key_the_batch_size_does_not_set(corpus):
    # Habana's ResNet (batch 2048) did not run Google's TPU recipe (batch 8192): the weight decay
    # and the batch-norm span differ; the learning rate, warmup and decay steps may.
    assert check(corpus, "Habana/results/SYS-420GH-TNGR/resnet", "Google/results/tpu-v4-128-TF/resnet") == [
        ("lars_opt_weight_decay", 0.0001, 0.0002),
        ("model_bn_span", 256, 128),
    ]


def test_without_closed_configs_every_logged_key_but_per_run_outcomes_is_compared():
    lender = {"opt_name": "adam", "train_samples": 100, "eval_samples": 10, "epoch_count": 3, "opt_beta": 0.9}
    borrower = {"opt_name": "adam", "train_samples": 120, "eval_samples": 10, "epoch_count": 4, "opt_beta": 0.8}
    assert [(m.key, m.actual, m.expected) for m in compare_hyperparameters(borrower, lender, frozenset())] == [
        ("opt_beta", 0.8, 0.9)
    ]
