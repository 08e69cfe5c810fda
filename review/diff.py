"""What changed between two versions of one citable result: system-description fields, logged
hyperparameters, per-run times and scores, findings added and gone, and files by content hash."""

from __future__ import annotations

from dataclasses import dataclass, field

from mlperf_check.package import natural_key
from results.models import Finding, Result

from .findings import with_waivers


@dataclass
class VersionDiff:
    old: Result
    new: Result
    system: list[tuple[str, object, object]] = field(default_factory=list)
    hyperparameters: list[tuple[str, object, object]] = field(default_factory=list)
    score: tuple[object, object] = (None, None)
    runs: list[dict] = field(default_factory=list)
    findings_added: list[Finding] = field(default_factory=list)
    findings_gone: list[Finding] = field(default_factory=list)
    files: list[dict] = field(default_factory=list)


def _changed(old: dict, new: dict) -> list[tuple[str, object, object]]:
    return [(key, old.get(key), new.get(key)) for key in sorted(set(old) | set(new)) if old.get(key) != new.get(key)]


def _hyperparameters(result: Result) -> dict:
    merged: dict = {}
    for run in sorted(result.runs.all(), key=lambda run: natural_key(run.file)):
        for key, value in (run.hyperparameters or {}).items():
            merged.setdefault(key, value)
    return merged


def _finding_key(finding: Finding) -> tuple:
    return (finding.code, finding.file, finding.line, finding.message)


def version_diff(old: Result, new: Result) -> VersionDiff:
    diff = VersionDiff(old=old, new=new)
    diff.system = _changed(old.system.description or {}, new.system.description or {})
    diff.hyperparameters = _changed(_hyperparameters(old), _hyperparameters(new))
    diff.score = (old.score_minutes, new.score_minutes)
    old_runs = {run.file: run for run in old.runs.all()}
    new_runs = {run.file: run for run in new.runs.all()}
    for name in sorted(set(old_runs) | set(new_runs), key=natural_key):
        before, after = old_runs.get(name), new_runs.get(name)
        diff.runs.append(
            {
                "file": name,
                "old_minutes": before.time_to_train_minutes if before else None,
                "new_minutes": after.time_to_train_minutes if after else None,
                "old_scoring": before.scoring if before else "",
                "new_scoring": after.scoring if after else "",
            }
        )
        old_hash, new_hash = (before.sha256 if before else ""), (after.sha256 if after else "")
        if old_hash != new_hash:
            state = "added" if not old_hash else "removed" if not new_hash else "changed"
            diff.files.append({"file": name, "state": state, "old_sha256": old_hash, "new_sha256": new_hash})
    # Each with `waiver`: a finding a decision waived is marked so here too.
    old_findings = {_finding_key(f): f for f in with_waivers(Finding.objects.with_waiver().filter(result=old))}
    new_findings = {_finding_key(f): f for f in with_waivers(Finding.objects.with_waiver().filter(result=new))}
    diff.findings_added = [f for key, f in new_findings.items() if key not in old_findings]
    diff.findings_gone = [f for key, f in old_findings.items() if key not in new_findings]
    return diff
