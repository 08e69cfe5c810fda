"""Historical corrections to the compliance configs of the installed mlperf-logging package.

Where a later release changed a historical rule, the rule of the round's own time wins: a round's
results were accepted with the checker of its time, and re-checking them with a rule written
later would reject published results. Each correction is small data applied to the config's
records before they are compiled (mlperf_check.rules.configs.load_config), with the evidence.

How they were looked for: the official 4.1.68 checker was run over every v0.7 (ruleset 0.7.0)
and v1.0 (ruleset 1.0.0) result file of the corpus. Every file of every result folder that has a
score in reference/v0.7_summary_contemporary.txt and reference/v1.0_summary_contemporary.csv
passes, apart from runs that never reach their quality target (which the contemporary tools
dropped as well: Google v0.7 tpu-v4-512 gnmt and tpu-v3-1024 maskrcnn, and 8 v1.0 files). So the
4.1.68 rules of 0.7.0 and 1.0.0 agree with those of their time on this corpus; 4.1.68 only
crashes where its parser does (Alibaba v0.7 logs with "time_s"), which our parser reads.

The renamed required key is BERT's LAMB epsilon in ruleset 2.1.0, below.
"""

from __future__ import annotations

import copy

from mlperf_check.lean_dataclass import dataclass


@dataclass(frozen=True)
class RuleOverride:
    """A correction of one KEY record of a shipped rule config, with the evidence for it."""

    ruleset: str  # "2.1.0"
    config: str  # file name in training_<ruleset>/, e.g. "closed_bert.yaml"
    key: str  # NAME of the KEY record as shipped
    replacement: dict[str, str]  # fields of that KEY record replaced (YAML strings, as loaded)
    evidence: str


OVERRIDES: tuple[RuleOverride, ...] = (
    RuleOverride(
        ruleset="2.1.0",
        config="closed_bert.yaml",
        key="opt_lamb_epsilon",
        replacement={"NAME": "opt_epsilon"},
        evidence=(
            "During the v2.1 submission window the 2.1.0 BERT config required 'opt_epsilon' "
            "(mlcommons/logging issue #277, 2022-10-11: 'Required EXACTLY_ONE occurrence of "
            "opt_epsilon but found 0' from training_2.1.0/closed_bert.yaml). PR #290 renamed it to "
            "'opt_lamb_epsilon' on 2022-11-22, after the round was published (2022-11-09). "
            "Published v2.1 logs log opt_epsilon only (mlcommons/training_results_v2.1, e.g. "
            "ASUSTeK/results/ESCN4A-E11/bert/result_0.txt), so 4.1.68 would fail them."
        ),
    ),
)


def apply(ruleset: str, config: str, records: list[dict]) -> list[dict]:
    """The config's records with the overrides for (ruleset, config) applied. The input list
    (as loaded from YAML) is not modified."""
    corrections = [o for o in OVERRIDES if o.ruleset == ruleset and o.config == config]
    if not corrections:
        return records
    records = copy.deepcopy(records)
    for correction in corrections:
        matched = False
        for record in records:
            body = record.get("KEY")
            if isinstance(body, dict) and body.get("NAME") == correction.key:
                body.update(correction.replacement)
                matched = True
        if not matched:
            # The package changed under us: the override no longer says what it fixes.
            raise LookupError(f"override for training_{ruleset}/{config}: no KEY named {correction.key!r}")
    return records
