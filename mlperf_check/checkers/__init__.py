"""The checker registry: one explicit, ordered table of every source of findings, with its name
and version. A finding carries both (Finding.checker, Finding.checker_version); this table is the
only place they are written.

Order matters and is the order findings are produced in. Adding a checker means one module,
one line here, and one test file. Bump a version when a checker's findings change meaning:
stored findings keep the version that produced them.
"""

from __future__ import annotations

from functools import cache
from importlib import import_module
from typing import NamedTuple


class Registered(NamedTuple):
    version: int
    path: str  # "module.Class" of the checker; "" for a source of findings that is no checker class
    # The class's `scope` ("run", "package", "inference"), written here so that a check imports
    # only the checkers of its own scopes (a training run never imports the inference checkers).
    scope: str = ""


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
    "inference_round_rules": Registered(
        1, "mlperf_check.inference.checkers.tables.InferenceRoundTablesChecker", "inference"
    ),
}


def checker_version(name: str) -> int:
    """The version findings of `name` carry; a KeyError for a name the registry does not know."""
    return CHECKERS[name].version


@cache
def get_checker(name: str):
    registered = CHECKERS[name]
    module, _, class_name = registered.path.rpartition(".")
    cls = getattr(import_module(module), class_name)
    if cls.scope != registered.scope:
        raise TypeError(
            f"checker {name!r}: registered with scope {registered.scope!r}, its class has {cls.scope!r}"
        )
    return cls


def checkers_of_scope(scope: str) -> list:
    """The checker classes of one scope, in registry order; imports only those."""
    return [
        get_checker(name)
        for name, registered in CHECKERS.items()
        if registered.path and registered.scope == scope
    ]
