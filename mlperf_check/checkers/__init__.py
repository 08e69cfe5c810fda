"""The checker registry: one explicit, ordered mapping from name to class path.

Order matters and is the order findings are produced in. Adding a checker means one module,
one line here, and one test file.
"""

from __future__ import annotations

from functools import cache
from importlib import import_module

CHECKERS: dict[str, str] = {
    # Package structure, before any log is read.
    "layout": "mlperf_check.checkers.layout.LayoutChecker",
    "system_description": "mlperf_check.checkers.system_description.SystemDescriptionChecker",
    # Per run, fed during the single streaming pass over each log.
    "compliance": "mlperf_check.checkers.compliance.ComplianceChecker",
    "timing": "mlperf_check.checkers.timing.TimingChecker",
    "consistency": "mlperf_check.checkers.consistency.ConsistencyChecker",
    # Across the runs of a result folder, after parsing.
    "duplicate_files": "mlperf_check.checkers.duplicate_files.DuplicateFilesChecker",
    "seeds": "mlperf_check.checkers.seeds.SeedChecker",
    "run_count": "mlperf_check.checkers.run_count.RunCountChecker",
    "rcp": "mlperf_check.checkers.rcp.RcpChecker",
    # What the package ships to set its own score (scaling.json, package_checker_params).
    "shipped_factors": "mlperf_check.checkers.shipped_factors.ShippedFactorsChecker",
    # Inference: once per result folder, after its LoadGen logs are parsed (mlperf_check.inference).
    "inference_layout": "mlperf_check.inference.checkers.layout.InferenceLayoutChecker",
    "inference_division": "mlperf_check.inference.checkers.division.InferenceDivisionChecker",
    "inference_performance": "mlperf_check.inference.checkers.performance.InferencePerformanceChecker",
    "inference_settings": "mlperf_check.inference.checkers.settings.InferenceSettingsChecker",
    "inference_accuracy": "mlperf_check.inference.checkers.accuracy.InferenceAccuracyChecker",
    "inference_compliance": "mlperf_check.inference.checkers.compliance.InferenceComplianceChecker",
}


@cache
def get_checker(name: str):
    module, _, class_name = CHECKERS[name].rpartition(".")
    return getattr(import_module(module), class_name)


def checkers_of_scope(scope: str) -> list:
    return [cls for cls in map(get_checker, CHECKERS) if cls.scope == scope]
