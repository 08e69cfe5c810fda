"""What the checkers of the round's official rules share: when they run, and the round's layout
and file-set rules."""

from __future__ import annotations

from pathlib import Path

from mlperf_check.inference.checkers.base import InferenceChecker, ResultContext
from mlperf_check.report import Finding

# Files any folder may hold besides the listed ones (the official files_diff).
ALWAYS_OPTIONAL = ("mlperf_log_trace.json", "results.json", ".gitkeep")
# A detail-log error the official checker never counts.
UNCOMMITTED = "Loadgen built with uncommitted changes"


class RoundRuleChecker(InferenceChecker):
    """One concern of a v2.1+ round's rules, on a result whose model the round knows (the model
    checker reports one it does not know)."""

    def check(self, context: ResultContext) -> list[Finding]:
        if not context.rules.from_tables or context.model is None:
            return []
        return self.check_result(context)

    def check_result(self, context: ResultContext) -> list[Finding]:
        raise NotImplementedError


def place(template: str, folder) -> Path:
    """A path of the round's layout table (relative to the submitter folder) for one result."""
    relative = template.format(
        system=folder.system, benchmark=folder.model_folder, scenario=folder.scenario_folder
    )
    return folder.submitter_root / relative


def file_set(folder: Path, required, optional=()) -> str:
    """ "" when `folder` holds exactly the required files (and any optional ones), else what is
    missing and what is unexpected, as the official checker compares them."""
    present = {p.name for p in folder.iterdir() if p.is_file()} if folder.is_dir() else set()
    missing = sorted(set(required) - present)
    unexpected = sorted(present - set(required) - set(optional) - set(ALWAYS_OPTIONAL))
    parts = ([f"lacks {', '.join(missing)}"] if missing else []) + (
        [f"holds unexpected {', '.join(unexpected)}"] if unexpected else []
    )
    return "; ".join(parts)


def has_power(context: ResultContext) -> bool:
    return (context.result_dir / "performance" / "power").is_dir()


def performance_run(context: ResultContext):
    """The result's reported run (performance/run_1) when its detail log gives the run's effective
    settings; None otherwise (nothing of it to check against the round's rules)."""
    run = context.result.first_run
    if run is None or run.detail is None or not run.detail.effective:
        return None
    return run
