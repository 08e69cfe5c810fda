"""MLPerf Tiny import: one submitter's checked folders (mlperf_check.tiny) as one version of its
submission. A result is one benchmark on one system: ranked by its median throughput (inf./sec.,
higher is better), with its accuracy, energy and windows in Result.inference (the JSON of a
result's suite figures; Tiny keeps no Run rows)."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from mlperf_check.tiny.report import TinyReport, TinyResult

from ..constants import Availability, MetricDirection
from ..models import Benchmark, Finding, Result, Round, Submission, System, fitted
from .lifecycle import admit_written_version, make_current, publish_version
from .versions import (
    ImportOutcome,
    VersionAlreadyWritten,
    finding_rows,
    jsonable,
    new_version,
    organization_named,
)

TINY_IMPORT_FORMAT = 1
# The system descriptions' "Status" (lower-cased) -> category.
TINY_AVAILABILITY = {"available": Availability.AVAILABLE, "preview": Availability.PREVIEW, "rdi": Availability.RESEARCH}


@dataclass
class TinyFolders:
    """One checked Tiny submitter (its folder in each division), ready to store."""

    reports: list[TinyReport]
    systems: dict[str, dict]  # system id -> systems/<id>.json

    @property
    def results(self) -> list[TinyResult]:
        return [result for report in self.reports for result in report.results]


def tiny_digest(folders: TinyFolders) -> str:
    digest = hashlib.sha256(f"tiny\0{TINY_IMPORT_FORMAT}".encode())
    digest.update(json.dumps(folders.systems, sort_keys=True, default=str).encode())
    for report in folders.reports:
        digest.update(json.dumps(report.to_json() | {"root": ""}, sort_keys=True, default=str).encode())
    return digest.hexdigest()


def import_tiny_report(folders: TinyFolders, *, round_: Round, submitter: str, source: str,
                       publish: bool = False) -> ImportOutcome:
    """Store a Tiny submitter as a new version of its submission to `round_`, unless its newest
    version holds exactly this content."""
    digest = tiny_digest(folders)
    with transaction.atomic():
        org = organization_named(submitter, [d.get("Submitter") for d in folders.systems.values()])
        latest = Submission.objects.filter(round=round_, organization=org).order_by("-version").first()
        if latest is not None and latest.sha256 == digest:
            if publish and not latest.is_published:
                publish_version(latest)
            return ImportOutcome(latest, "unchanged")
        submission = new_version(round_=round_, organization=org, sha256=digest, source=source)
        outcome = write_tiny_report(folders, submission=submission)
        outcome.status = "updated" if latest else "created"
        if publish:
            publish_version(submission)
        else:
            make_current(submission)
    return outcome


def write_tiny_report(folders: TinyFolders, *, submission: Submission) -> ImportOutcome:
    """Write the systems, results and findings of one new version (import_results and upload
    ingestion alike), then admit it (services/lifecycle.py: its result ids)."""
    with transaction.atomic():
        locked = Submission.objects.select_for_update().get(pk=submission.pk)
        if locked.written_at is not None:
            raise VersionAlreadyWritten(f"{submission} was written at {locked.written_at:%Y-%m-%d %H:%M:%S}")
        submission.ruleset_version = f"tiny-{folders.reports[0].round}" if folders.reports else ""
        submission.written_at = timezone.now()
        submission.save(update_fields=["ruleset_version", "written_at", "updated_at"])
        outcome = ImportOutcome(submission, "created")
        benchmarks = {b.name: b for b in submission.round.benchmarks.all()}
        systems: dict[tuple[str, str], System] = {}
        # A system with results in two divisions gets a row per division (`<id>.open` beside the closed one).
        divisions_of = Counter(system for system, _ in {(r.system, r.division) for r in folders.results})
        findings = []
        for report in folders.reports:
            findings.extend(finding_rows(report.findings, submission))
            for result in report.results:
                benchmark = benchmarks.get(result.mlperf_model or result.benchmark)
                if benchmark is None:  # an open-division benchmark outside the round's list
                    benchmark, _ = Benchmark.objects.get_or_create(
                        round=submission.round, name=fitted(Benchmark, "name", result.benchmark),
                        defaults={"area": "tiny", "metric_direction": MetricDirection.HIGHER, "required_runs": 1,
                                  "olympic_drop": 0})
                    benchmarks[benchmark.name] = benchmark
                key = (result.system, result.division)
                if key not in systems:
                    shared = divisions_of[result.system] > 1 and result.division != "closed"
                    system_id = f"{result.system}.{result.division}" if shared else result.system
                    systems[key] = _system(submission, result, system_id, folders.systems.get(result.system))
                row = Result.objects.create(
                    submission=submission, system=systems[key], benchmark=benchmark,
                    folder=fitted(Result, "folder", result.path), division=result.division,
                    metric_value=result.throughput, metric_unit="inf./sec.", metric_direction=MetricDirection.HIGHER,
                    valid=result.valid, official_valid=result.official, stricter_rules=result.stricter,
                    score_note="" if result.valid else "invalid: see the findings",
                    inference=jsonable(tiny_details(result)),
                )
                outcome.results += 1
                findings.extend(finding_rows(result.findings, submission, result=row))
        Finding.objects.bulk_create(findings, batch_size=1000)
        admit_written_version(submission)
    return outcome


def _system(submission: Submission, result: TinyResult, system_id: str, description: dict | None) -> System:
    description = description or {}
    status = str(description.get("Status") or "").strip()
    processor = str(description.get("Processor(s) Name") or "")
    return System.objects.create(
        submission=submission,
        system_id=system_id,
        file=f"systems/{result.system}.json" if description else "",
        name=fitted(System, "name", str(description.get("Board Name") or result.system)),
        submitter=fitted(System, "submitter", str(description.get("Submitter") or "")),
        division=result.division,
        status_raw=fitted(System, "status_raw", status),
        availability=TINY_AVAILABILITY.get(status.lower(), Availability.UNKNOWN),
        host_processor_model_name=fitted(System, "host_processor_model_name", processor),
        accelerator_model_name=fitted(System, "accelerator_model_name", str(description.get("Accelerator") or "")),
        framework=fitted(System, "framework", str(description.get("Inference Framework") or "")),
        notes=str(description.get("Hardware Notes") or ""),
        description=jsonable(description),
    )


def tiny_details(result: TinyResult) -> dict:
    """What a Tiny result's pages, exports and snapshots show beside its throughput."""
    return {
        "submitter_folder": result.submitter,
        "system_folder": result.system,
        "benchmark_folder": result.benchmark,
        "mlperf_model": result.mlperf_model,
        "scenario": result.scenario,
        "runner": result.runner,
        "tests": result.tests,
        "accuracy": {"kind": result.accuracy_kind, "value": result.accuracy, "printed": result.accuracy_text,
                     "target": result.accuracy_target},
        "energy": None if result.energy is None else {"value": result.energy, "unit": result.energy_unit},
        "streaming": None if not result.scenario else {
            "true_positives": result.true_positives, "false_negatives": result.false_negatives,
            "false_positives": result.false_positives, "duty_cycle": result.duty_cycle, "period_s": result.period_s},
        "windows": {"throughput": result.throughput_windows, "energy": result.energy_windows},
        "availability": result.availability,
        "system_fields": result.system_fields,
        "official_results_line": result.official_results_line,
    }
