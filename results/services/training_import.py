"""Training import: `import_report` turns a PackageReport (mlperf_check/report.py) into rows for
one organization's submission, in one transaction. It is idempotent: the same content imported
twice changes nothing, changed content becomes a new version, and citable result ids
(services/citable.py) are kept for every (system, benchmark, scaling) seen before, given once the
version is admitted (services/lifecycle.py). HPC packages are stored here too; their scores are
hpc_import's."""

import hashlib

from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import transaction
from django.utils import timezone

from mlperf_check.report import BenchmarkResult, PackageReport, RunEnergy, RunLog
from mlperf_check.waivers import check_bypasses

from ..constants import FactorSource, MetricDirection
from ..models import Finding, Result, Round, Run, Submission, System, Waiver, fitted
from .factors import apply_factor_decisions, record_published_factors
from .hpc_import import hpc_score_fields
from .lifecycle import admit_written_version, make_current, publish_version
from .versions import (
    ImportOutcome,
    VersionAlreadyWritten,
    finding_rows,
    jsonable,
    new_version,
    organization_named,
)

# Log copies are stored content-addressed, so identical logs are stored once.
LOG_STORAGE_PREFIX = "logs"
# Part of every submission digest: bump it when what the import derives from a report changes
# (a new stored field, another eval-curve layout), so that re-importing unchanged files rewrites them.
IMPORT_FORMAT = 4

def report_digest(report: PackageReport) -> str:
    """A digest of what the import stores: the ruleset, every system file and every result file."""
    digest = hashlib.sha256(f"{IMPORT_FORMAT}\0{report.ruleset}".encode())
    for system in sorted(report.systems, key=lambda s: s.system_id):
        digest.update(f"\0system\0{system.system_id}\0".encode())
        digest.update(repr(sorted(system.description.items(), key=lambda kv: kv[0])).encode())
    for result in sorted(report.results, key=lambda r: r.folder):
        for run in result.runs:
            digest.update(f"\0run\0{run.file}\0{run.sha256}".encode())
        if result.energy is not None:
            # Energies come from the power/ files beside the result files.
            digest.update(repr((result.energy.energy, [(e.file, e.energy) for e in result.energy.runs])).encode())
    findings = sorted((f.code, f.file, f.line or 0, f.message) for f in report.all_findings())
    digest.update(repr(findings).encode())
    return digest.hexdigest()


def import_report(
    report: PackageReport,
    *,
    round_: Round,
    source: str,
    publish: bool = False,
    store_logs=None,
    published_factors_by=None,
    official_entries: dict[str, str] | None = None,
) -> ImportOutcome:
    """Store one submitter's report as a new version of its submission to `round_`, unless its
    newest version already holds exactly this content ("unchanged"). Earlier versions, uploaded
    or imported, are never rewritten.

    `publish` publishes the version (and makes it current, even in a published round).
    `store_logs(run) -> bytes | None` returns a result file's content for the content-addressed
    log copy (None skips it). `published_factors_by`: the chair recording the package's shipped
    factors as decisions (import_results --published-factors). One transaction; re-running with
    unchanged content is a no-op. `official_entries`: MLCommons' entry id of each system id
    (import_results --ids), for results that have no citable id yet.
    """
    digest = report_digest(report)
    with transaction.atomic():
        org = organization_named(report.submitter, [s.normalized.get("submitter") for s in report.systems])
        decisions = 0
        if published_factors_by is not None:
            decisions = record_published_factors(report, round_=round_, organization=org, chair=published_factors_by)
        latest = Submission.objects.filter(round=round_, organization=org).order_by("-version").first()
        if latest is not None and latest.sha256 == digest:
            if publish and not latest.is_published:
                publish_version(latest)
            apply_factor_decisions(round_, org)
            return ImportOutcome(latest, "unchanged", decisions=decisions)
        submission = new_version(
            round_=round_,
            organization=org,
            sha256=digest,
            source=source,
            size_bytes=sum(run.size_bytes for r in report.results for run in r.runs),
        )
        outcome = write_report(report, submission=submission, store_logs=store_logs, official_entries=official_entries)
        outcome.status = "updated" if latest else "created"
        outcome.decisions = decisions
        if publish:
            publish_version(submission)
        else:
            make_current(submission)
    return outcome


def write_report(
    report: PackageReport, *, submission: Submission, store_logs=None, official_entries: dict[str, str] | None = None
) -> ImportOutcome:
    """Write the systems, results, runs and findings of one new submission version from a report.

    A version is written once (VersionAlreadyWritten otherwise), then admitted (held when its
    files speak for another organization, else given its result ids: those already given to the
    same organization's (system, benchmark, scaling) in this round, in any version, are reused).
    Runs inside the caller's transaction, or opens one.
    """
    with transaction.atomic():
        locked = Submission.objects.select_for_update().get(pk=submission.pk)
        if locked.written_at is not None:
            raise VersionAlreadyWritten(f"{submission} was written at {locked.written_at:%Y-%m-%d %H:%M:%S}")
        submission.ruleset_version = report.ruleset
        if not submission.size_bytes:
            submission.size_bytes = sum(run.size_bytes for r in report.results for run in r.runs)
        submission.written_at = timezone.now()
        submission.save(update_fields=["ruleset_version", "size_bytes", "written_at", "updated_at"])
        outcome = ImportOutcome(submission, "created")
        official = _write_rows(report, submission, official_entries or {}, store_logs, outcome)
        admit_written_version(submission, official=official)
        apply_factor_decisions(submission.round, submission.organization)
    return outcome


def _write_rows(report, submission, official_entries, store_logs, outcome: ImportOutcome) -> dict[int, str]:
    """The version's rows, its results without their ids yet; returns MLCommons' entry of each
    result (by pk) that the id mapping names."""
    round_ = submission.round
    official = {}
    benchmarks = {b.name: b for b in round_.benchmarks.all()}
    systems = {}
    for system_report in report.systems:
        n = system_report.normalized
        systems[system_report.system_id] = System.objects.create(
            submission=submission,
            system_id=system_report.system_id,
            file=system_report.file,
            name=n.get("name") or system_report.system_id,
            submitter=n.get("submitter") or "",
            division=n.get("division") or "",
            status_raw=n.get("status_raw") or "",
            availability=n.get("availability") or "unknown",
            deployment=n.get("deployment") or "unknown",
            number_of_nodes=n.get("number_of_nodes"),
            host_processor_model_name=n.get("host_processor_model_name") or "",
            host_processors_per_node=n.get("host_processors_per_node"),
            host_processors_count=n.get("host_processors_count"),
            accelerator_model_name=n.get("accelerator_model_name") or "",
            accelerators_per_node=n.get("accelerators_per_node"),
            accelerators_count=n.get("accelerators_count"),
            framework=n.get("framework") or "",
            notes=n.get("notes") or "",
            description=system_report.description,
        )
    findings = []
    for system_report in report.systems:
        findings.extend(finding_rows(system_report.findings, submission))
    findings.extend(finding_rows(report.findings, submission))

    for result_report in report.results:
        system = systems.get(result_report.system_id)
        benchmark = benchmarks.get(result_report.benchmark)
        if system is None or benchmark is None:
            # No system description or not a benchmark of the round: the findings say so, and
            # there is no result row to hang a score on.
            findings.extend(finding_rows(result_report.findings, submission))
            for run in result_report.runs:
                findings.extend(finding_rows(run.findings, submission))
            continue
        fields = dict(
            submission=submission,
            system=system,
            benchmark=benchmark,
            folder=result_report.folder,
            division=result_report.division or system.division,
            score_minutes=result_report.score_minutes,
            mean_minutes=result_report.mean_minutes,
            scaling_factor=result_report.rcp.scaling_factor,
            factor_source=FactorSource.COMPUTED,
            computed_score_minutes=result_report.score_minutes,
            computed_scaling_factor=result_report.rcp.scaling_factor,
            shipped_scaling_factor=result_report.shipped_factor.factor if result_report.shipped_factor else None,
            score_note=result_report.score_note,
            dropped_runs=result_report.dropped_runs,
            rcp_status=result_report.rcp.status,
            rcp=result_report.rcp.to_dict(),
            global_batch_size=result_report.global_batch_size,
            converge_mean=result_report.converge_mean,
            metric_value=result_report.score_minutes,
            metric_unit="minutes",
            metric_direction=MetricDirection.LOWER,
            **_energy_fields(result_report),
        )
        if result_report.scaling:
            fields.update(hpc_score_fields(result_report))
        result = Result.objects.create(**fields)
        if result_report.system_id in official_entries:
            official[result.pk] = official_entries[result_report.system_id]
        outcome.results += 1
        findings.extend(finding_rows(result_report.findings, submission, result=result))
        scoring = {s.file: s for s in result_report.run_scores}
        energies = {e.file: e for e in result_report.energy.runs} if result_report.energy else {}
        for run_report in result_report.runs:
            run = Run.objects.create(
                result=result, **_run_fields(run_report, scoring, store_logs), **_run_energy(energies.get(run_report.file))
            )
            outcome.runs += 1
            findings.extend(finding_rows(run_report.findings, submission, result=result, run=run))
    Finding.objects.bulk_create(findings, batch_size=1000)
    return official


def _energy_fields(result: BenchmarkResult) -> dict:
    """Energy to train, where the folder has power measurements (training v4.0+, HPC)."""
    energy = result.energy
    if energy is None:
        return {}
    return {
        "energy_joules": energy.energy,
        "energy_mean_joules": energy.mean,
        "energy_note": fitted(Result, "energy_note", energy.note),
    }


def _run_energy(energy: RunEnergy | None) -> dict:
    if energy is None:
        return {}
    return {"energy_joules": energy.energy, "power_folder": fitted(Run, "power_folder", energy.power_folder)}


def _run_fields(run: RunLog, scoring, store_logs) -> dict:
    score = scoring.get(run.file)
    log_name = ""
    if store_logs is not None:
        content = store_logs(run)
        if content is not None:
            log_name = store_log_copy(run.sha256, content)
    seed = None
    for candidate in run.seeds:
        try:
            seed = int(candidate.value)
        except (TypeError, ValueError, OverflowError):
            continue
        if -(2**63) <= seed < 2**63:
            break
        seed = None
    return {
        "file": run.file,
        "sha256": run.sha256,
        "log_name": log_name,
        "time_to_train_minutes": run.time_to_train_minutes,
        "run_stop_status": fitted(Run, "run_stop_status", run.run_stop_status),
        "compliant": run.compliant,
        "scoring": score.scoring if score else "failed",
        "scoring_reason": fitted(Run, "scoring_reason", score.reason if score else ""),
        "seed": seed,
        "global_batch_size": run.global_batch_size if run.global_batch_size and run.global_batch_size > 0 else None,
        "epochs_to_target": run.epochs_to_converge,
        "samples_to_target": int(run.samples_to_converge) if run.samples_to_converge is not None else None,
        "hyperparameters": jsonable(run.hyperparameters),
        "eval_curve": [
            [
                p.epoch if p.epoch is not None else p.samples,
                jsonable(p.value),
                p.line,
                round((p.time_ms - run.run_start_ms) / 60000.0, 4) if run.run_start_ms is not None else None,
            ]
            for p in run.eval_curve
        ],
        "run_start_line": run.run_start_line,
        "run_stop_line": run.run_stop_line,
    }


def store_log_copy(sha256: str, content: bytes) -> str:
    name = f"{LOG_STORAGE_PREFIX}/{sha256[:2]}/{sha256}.txt"
    if not default_storage.exists(name):
        default_storage.save(name, ContentFile(content))
    return name


def waivers_for(round_: Round, organization_slug: str) -> frozenset[tuple[str, str, str]]:
    """The recorded bypass decisions (Waiver rows) of an organization in a round, in the
    (system id, benchmark, kind) form the checking pipeline takes (mlperf_check.waivers.check_bypasses)."""
    return check_bypasses(
        Waiver.objects.filter(round=round_, organization__slug=organization_slug, accepted=True).values_list(
            "system_id", "benchmark", "kind"
        )
    )


