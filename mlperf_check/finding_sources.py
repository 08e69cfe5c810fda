"""The one table of finding sources: every checker, and every other source of findings (the
parsers, scoring, discovery), with the name and version its findings carry (Finding.checker,
Finding.checker_version). This table is the only place they are written.

Order matters and is the order findings are produced in. Adding a checker means one module,
one line here, and one test file. Bump a version when a source's findings change meaning:
stored findings keep the version that produced them.

This module imports nothing of the project, so every module that makes findings reads its
version here without importing the checkers (mlperf_check/checkers/__init__.py loads the checker
classes of this table).
"""

from __future__ import annotations

from typing import NamedTuple

# The v2.1+ rules of an inference round, as the round's official checker applies them to one
# result: one source of findings, checked by one checker per concern (the rows that report as it).
ROUND_RULES = "inference_round_rules"


class Registered(NamedTuple):
    version: int  # the version its findings carry; 0 for a checker that reports as another source
    path: str  # "module.Class" of the checker; "" for a source of findings that is no checker class
    # The class's `scope` ("run", "package", "inference"), written here so that a check imports
    # only the checkers of its own scopes (a training run never imports the inference checkers).
    scope: str = ""
    # The source whose name and version this checker's findings carry ("" its own): one concern of
    # a larger source, whose name stored findings, waivers and every output format know.
    reports_as: str = ""


def _round_rule(module_and_class: str) -> Registered:
    """One concern of the round's official rules (v2.1+): an inference checker reporting as ROUND_RULES."""
    return Registered(0, f"mlperf_check.inference.checkers.round_rules.{module_and_class}", "inference", ROUND_RULES)


CHECKERS: dict[str, Registered] = {
    # The bytes of each log (mlperf_check.parsing, mlperf_check.runlog), before any checker.
    "parser": Registered(1, ""),
    # Package structure, before any log is read.
    "layout": Registered(1, "mlperf_check.checkers.layout.LayoutChecker", "package"),
    "system_description": Registered(
        1, "mlperf_check.checkers.system_description.SystemDescriptionChecker", "package"
    ),
    # Per run, fed during the single streaming pass over each log.
    "compliance": Registered(1, "mlperf_check.checkers.compliance.ComplianceChecker", "run"),
    "timing": Registered(1, "mlperf_check.checkers.timing.TimingChecker", "run"),
    "consistency": Registered(1, "mlperf_check.checkers.consistency.ConsistencyChecker", "run"),
    # Across the runs of a result folder, after parsing.
    "duplicate_files": Registered(
        1, "mlperf_check.checkers.duplicate_files.DuplicateFilesChecker", "package"
    ),
    "seeds": Registered(1, "mlperf_check.checkers.seeds.SeedChecker", "package"),
    "run_count": Registered(1, "mlperf_check.checkers.run_count.RunCountChecker", "package"),
    "rcp": Registered(1, "mlperf_check.checkers.rcp.RcpChecker", "package"),
    # Energy to train: each result folder's power/ measurements, checked and scored (mlperf_check.power).
    "power": Registered(1, ""),
    # HPC throughput: the figures of a weak-scaling folder (mlperf_check.scoring.weak_scaling_score).
    "weak_scaling": Registered(1, ""),
    # What the package ships to set its own score (scaling.json, package_checker_params).
    "shipped_factors": Registered(
        1, "mlperf_check.checkers.shipped_factors.ShippedFactorsChecker", "package"
    ),
    # The server's check that the uploading organisation is the package's (mlperf_check.checkers.uploader).
    "uploader": Registered(1, ""),
    # Inference: the folders found (mlperf_check.inference.discovery) and the bytes of each LoadGen
    # log (mlperf_check.inference.logs), before any checker.
    "inference_discovery": Registered(1, ""),
    "inference_parser": Registered(1, ""),
    # Inference: once per result folder, after its LoadGen logs are parsed (mlperf_check.inference).
    "inference_layout": Registered(
        1, "mlperf_check.inference.checkers.layout.InferenceLayoutChecker", "inference"
    ),
    "inference_division": Registered(
        1, "mlperf_check.inference.checkers.division.InferenceDivisionChecker", "inference"
    ),
    "inference_performance": Registered(
        1, "mlperf_check.inference.checkers.performance.InferencePerformanceChecker", "inference"
    ),
    "inference_settings": Registered(
        1, "mlperf_check.inference.checkers.settings.InferenceSettingsChecker", "inference"
    ),
    "inference_accuracy": Registered(
        1, "mlperf_check.inference.checkers.accuracy.InferenceAccuracyChecker", "inference"
    ),
    "inference_compliance": Registered(
        1, "mlperf_check.inference.checkers.compliance.InferenceComplianceChecker", "inference"
    ),
    # Inference: reading the scenario metric of each result (mlperf_check.inference.pipeline).
    "inference_scoring": Registered(1, ""),
    # Inference v6.1+: results of the MLCommons Endpoints client, read and checked in place of
    # LoadGen logs (mlperf_check.inference.endpoints).
    "inference_endpoints": Registered(1, ""),
    # Inference v2.1+: the round's official rules (ROUND_RULES), one checker per concern, in the
    # order that round's checker applies them; their findings all name ROUND_RULES.
    ROUND_RULES: Registered(1, ""),
    "inference_round_model": _round_rule("model.RoundModelChecker"),
    "inference_round_system": _round_rule("system.RoundSystemChecker"),
    "inference_round_category": _round_rule("category.RoundCategoryChecker"),
    "inference_round_measurements": _round_rule("measurements.RoundMeasurementsChecker"),
    "inference_round_accuracy": _round_rule("accuracy.RoundAccuracyChecker"),
    "inference_round_performance_run": _round_rule("performance_run.RoundPerformanceRunChecker"),
    "inference_round_token_latency": _round_rule("token_latency.RoundTokenLatencyChecker"),
    "inference_round_network": _round_rule("network.RoundNetworkChecker"),
    "inference_round_compliance": _round_rule("compliance.RoundComplianceChecker"),
    # MLPerf Automotive (mlperf_check.automotive.pipeline): the round's official checker's rules,
    # and ours beyond them (docs/differences.md).
    "automotive_rules": Registered(1, ""),
    "automotive_stricter": Registered(1, ""),
    # MLPerf Tiny (mlperf_check.tiny.pipeline): the round's official checker's rules, and ours beyond them.
    "tiny_official": Registered(1, ""),
    "tiny_stricter": Registered(1, ""),
}


def reported_as(name: str) -> str:
    """The source name the findings of `name` carry: its own, or the source it is a concern of."""
    return CHECKERS[name].reports_as or name


def checker_version(name: str) -> int:
    """The version findings of `name` carry; a KeyError for a name the table does not know."""
    return CHECKERS[reported_as(name)].version
