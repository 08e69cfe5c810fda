"""Hyperparameter borrowing: which logged hyperparameters a borrower may change, and the check.

During review a closed-division submitter may resubmit a result with another submitter's
hyperparameters for the same benchmark; no other hardware or software change is allowed. The
batch size may differ, and so may the hyperparameters that scale with it: learning rates (scaled
with the batch size), warmup lengths and step or epoch counts of the schedule, which the rules
let a submitter adjust with its batch size. We derive that list from the round's closed-division
hyperparameter names (mlperf_check/rules/configs.py) by these name parts, so it follows each
ruleset's own keys.

Only hyperparameters are compared: the keys the closed-division rules name (when the ruleset has
closed configs for the benchmark), and never a per-run outcome such as `train_samples` (samples
seen until the target), `eval_*` or epoch counts, which differ from run to run of the same recipe.
"""

from __future__ import annotations

from typing import Any

from mlperf_check.lean_dataclass import dataclass

BATCH_DEPENDENT_NAME_PARTS = (
    "batch_size",
    "learning_rate",
    "warmup",
    "decay_steps",
    "training_steps",
    "decay_boundary",
    "gradient_accumulation",
)


def batch_dependent(closed_keys) -> frozenset[str]:
    """The closed-division hyperparameter keys (of one benchmark in one ruleset) that scale with
    the batch size and so may differ from the lender's."""
    return frozenset(key for key in closed_keys if any(part in key for part in BATCH_DEPENDENT_NAME_PARTS))


# Logged by every run but measured, not chosen: they differ between two runs of one recipe.
PER_RUN_OUTCOME_KEYS = frozenset({"train_samples", "epoch_count", "epoch_num", "samples_count"})
PER_RUN_OUTCOME_PREFIXES = ("eval_", "epoch_")


def is_per_run_outcome(key: str) -> bool:
    return key in PER_RUN_OUTCOME_KEYS or key.startswith(PER_RUN_OUTCOME_PREFIXES)


@dataclass(frozen=True)
class Mismatch:
    """One difference: `actual` is the borrower's value, `expected` the lender's (or, for the
    system, the previous version's)."""

    key: str
    actual: Any
    expected: Any
    message: str

    def to_dict(self) -> dict[str, Any]:
        return {"key": self.key, "actual": self.actual, "expected": self.expected, "message": self.message}


MISSING = "(not logged)"


def compare_hyperparameters(
    borrower: dict, lender: dict, may_differ: frozenset[str], closed_keys: frozenset[str] = frozenset()
) -> list[Mismatch]:
    """Every hyperparameter outside `may_differ` must equal the lender's: the `closed_keys` the
    rules name, or (a ruleset without closed configs for the benchmark) every logged key that is
    not a per-run outcome."""
    mismatches = []
    keys = closed_keys or (set(borrower) | set(lender))
    for key in sorted(keys):
        if key in may_differ or is_per_run_outcome(key):
            continue
        mine, theirs = borrower.get(key, MISSING), lender.get(key, MISSING)
        if mine != theirs:
            mismatches.append(
                Mismatch(key, mine, theirs, f"{key} is {mine!r} but the lender logged {theirs!r}")
            )
    return mismatches


def compare_systems(previous: dict, current: dict) -> list[Mismatch]:
    """A borrowing resubmission changes hyperparameters only: its system description must equal
    the previous version's."""
    return [
        Mismatch(
            f"system.{key}",
            current.get(key, MISSING),
            previous.get(key, MISSING),
            f"system field {key} changed from {previous.get(key, MISSING)!r} to {current.get(key, MISSING)!r}",
        )
        for key in sorted(set(previous) | set(current))
        if previous.get(key, MISSING) != current.get(key, MISSING)
    ]
