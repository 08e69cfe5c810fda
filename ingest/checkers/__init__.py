"""The checker registry: one explicit, ordered mapping from name to class path.

Order matters and is the order findings are produced in. Adding a checker means one module,
one line here, and one test file.
"""

from __future__ import annotations

from functools import cache
from importlib import import_module

CHECKERS: dict[str, str] = {
    # Package structure, before any log is read.
    "layout": "ingest.checkers.layout.LayoutChecker",
    "system_description": "ingest.checkers.system_description.SystemDescriptionChecker",
    # Per run, fed during the single streaming pass over each log.
    "compliance": "ingest.checkers.compliance.ComplianceChecker",
    "timing": "ingest.checkers.timing.TimingChecker",
    "consistency": "ingest.checkers.consistency.ConsistencyChecker",
    # Across the runs of a result folder, after parsing.
    "duplicate_files": "ingest.checkers.duplicate_files.DuplicateFilesChecker",
    "seeds": "ingest.checkers.seeds.SeedChecker",
    "run_count": "ingest.checkers.run_count.RunCountChecker",
    "rcp": "ingest.checkers.rcp.RcpChecker",
}


@cache
def get_checker(name: str):
    module, _, class_name = CHECKERS[name].rpartition(".")
    return getattr(import_module(module), class_name)


def checkers_of_scope(scope: str) -> list:
    return [cls for cls in map(get_checker, CHECKERS) if cls.scope == scope]
