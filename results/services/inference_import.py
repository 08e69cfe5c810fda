"""Inference import: the folders of one inference submitter (mlperf_check.inference) as one
version of its submission."""

import hashlib
import json
from collections import Counter
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone

from mlperf_check.inference.report import InferenceReport
from mlperf_check.inference.rules import rules_for

from ..constants import MetricDirection
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

# Inference (issue 12) ------------------------------------------------------------------------

INFERENCE_IMPORT_FORMAT = 2  # 2: v2.1+ figures (category, system info, accuracy figures, token latency, power)
# System-description `status` spellings -> category (inference calls research "RDI"/"RDO").
INFERENCE_AVAILABILITY = {"available": "available", "preview": "preview", "rdi": "research", "rdo": "research"}


@dataclass
class InferenceFolder:
    """One checked `<division>/<submitter>` folder, ready to store."""

    division: str
    report: InferenceReport
    systems: dict[str, dict]  # system id -> systems/<id>.json


def inference_digest(folders: list[InferenceFolder]) -> str:
    digest = hashlib.sha256(f"inference\0{INFERENCE_IMPORT_FORMAT}".encode())
    for folder in folders:
        digest.update(f"\0{folder.division}\0".encode())
        digest.update(json.dumps(folder.systems, sort_keys=True, default=str).encode())
        digest.update(json.dumps(folder.report.to_json(), sort_keys=True, default=str).encode())
    return digest.hexdigest()


def import_inference_report(
    folders: list[InferenceFolder], *, round_: Round, submitter: str, source: str, publish: bool = False,
    official_entries: dict[str, str] | None = None, aliases: dict[str, str] | None = None,
) -> ImportOutcome:
    """Store one submitter's inference folders (its closed and open divisions) as a new version of
    its submission to `round_`, unless its newest version holds exactly this content. Idempotent
    like import_report; result ids are kept per (system, model, scenario)."""
    digest = inference_digest(folders)
    all_systems = {k: v for folder in folders for k, v in folder.systems.items()}
    with transaction.atomic():
        org = organization_named(submitter, [d.get("submitter") for d in all_systems.values()])
        latest = Submission.objects.filter(round=round_, organization=org).order_by("-version").first()
        if latest is not None and latest.sha256 == digest:
            if publish and not latest.is_published:
                publish_version(latest)
            return ImportOutcome(latest, "unchanged")
        submission = new_version(round_=round_, organization=org, sha256=digest, source=source)
        outcome = write_inference_report(
            folders, submission=submission, official_entries=official_entries, aliases=aliases
        )
        outcome.status = "updated" if latest else "created"
        if publish:
            publish_version(submission)
        else:
            make_current(submission)
    return outcome


def write_inference_report(
    folders: list[InferenceFolder], *, submission: Submission, official_entries: dict[str, str] | None = None,
    aliases: dict[str, str] | None = None,
) -> ImportOutcome:
    """Write the systems, results and findings of one new submission version from checked
    inference folders (import_results and upload ingestion alike). A version is written once, then
    admitted (services/lifecycle.py: held, or given its result ids: those already given to the
    organization's (system, model, scenario) in this round, in any version, are reused);
    `official_entries` gives MLCommons' entry id of each system id; `aliases` the round's own model
    folder names -> official model (default: the inference round's; a LoadGen suite with other
    rules, MLPerf Automotive, gives its own)."""
    with transaction.atomic():
        locked = Submission.objects.select_for_update().get(pk=submission.pk)
        if locked.written_at is not None:
            raise VersionAlreadyWritten(f"{submission} was written at {locked.written_at:%Y-%m-%d %H:%M:%S}")
        submission.ruleset_version = folders[0].report.round if folders else ""
        submission.written_at = timezone.now()
        submission.save(update_fields=["ruleset_version", "written_at", "updated_at"])
        outcome = ImportOutcome(submission, "created")
        divisions_of = Counter(system for folder in folders for system in {r.system for r in folder.report.results})
        official = {}
        for folder in folders:
            official.update(_write_inference_rows(folder, submission, official_entries or {}, outcome,
                                                  shared=divisions_of, aliases=aliases))
        admit_written_version(submission, official=official)
    return outcome


def _inference_system(
    submission: Submission, system_id: str, description: dict | None, division: str, info: dict
) -> System:
    """`info`: the checker's reading of the description (v2.1+: nodes and accelerators as whole
    numbers, None where the description gives none)."""
    description = description or {}
    status = str(description.get("status") or "").strip()
    lowered = status.lower()
    availability = INFERENCE_AVAILABILITY.get(lowered, "research" if lowered.startswith("research") else "unknown")
    return System.objects.create(
        submission=submission,
        system_id=system_id,
        file=f"systems/{system_id}.json" if description else "",
        name=fitted(System, "name", str(description.get("system_name") or system_id)),
        submitter=fitted(System, "submitter", str(description.get("submitter") or "")),
        division=division,
        status_raw=fitted(System, "status_raw", status),
        availability=availability,
        host_processor_model_name=fitted(System, "host_processor_model_name", str(description.get("host_processor_model_name") or "")),
        accelerator_model_name=fitted(System, "accelerator_model_name", str(description.get("accelerator_model_name") or "")),
        framework=fitted(System, "framework", str(description.get("framework") or "")),
        number_of_nodes=info.get("nodes"),
        accelerators_per_node=info.get("accelerators_per_node"),
        accelerators_count=info.get("accelerators"),
        description=jsonable(description),
    )


def _write_inference_rows(
    folder: InferenceFolder, submission, official_entries, outcome: ImportOutcome, shared, aliases=None
) -> dict[int, str]:
    """`shared` counts the divisions each system id has results in: a system in several divisions
    gets one row per division (`<id>.open`, `<id>.network` beside the closed one). The results have
    no ids yet; returns MLCommons' entry of each result (by pk) that `official_entries` names."""
    official = {}
    report, systems = folder.report, folder.systems
    benchmarks = {b.name: b for b in submission.round.benchmarks.all()}
    system_rows: dict[str, System] = {}
    findings = finding_rows(report.findings, submission)
    if aliases is None:
        aliases = rules_for(submission.round.version)[0].aliases
    for result in report.results:
        result.division = result.division or folder.division
    shared_models = _open_models_sharing_a_model(report.results)
    for result in report.results:
        benchmark = benchmarks.get(result.model)
        official_names = {name.lower() for name in (result.model, *_aliases_of(result.model, aliases))}
        if result.division == "open" and (result.model_folder.lower() not in official_names
                                          or (result.system, result.model, result.scenario) in shared_models):
            # An open model the submitter's model_mapping.json maps onto an official one (the
            # official summary's Model against MlperfModel), or one of several open models of a
            # system that the round's names map onto the same official model and scenario
            # (inference v2.0's Krai: eight detection models as ssd-large): its own leaderboard,
            # by its folder name. The database holds one result per system, benchmark and scenario.
            benchmark = None
        if benchmark is None and result.model_folder:
            # An open-division model outside the round's list: it still gets a leaderboard.
            benchmark, _ = Benchmark.objects.get_or_create(
                round=submission.round, name=fitted(Benchmark, "name", result.model_folder.lower()), defaults={"area": "inference"}
            )
            benchmarks[benchmark.name] = benchmark
        system_id = result.system
        if shared[result.system] > 1 and result.division != "closed":
            system_id = f"{result.system}.{result.division}"
        if result.system not in system_rows:
            system_rows[result.system] = _inference_system(
                submission, system_id, systems.get(result.system), result.division, result.system_info
            )
        row = Result.objects.create(
            submission=submission,
            system=system_rows[result.system],
            benchmark=benchmark,
            folder=fitted(Result, "folder", result.folder),
            division=result.division,
            scenario=result.scenario,
            metric_value=result.metric_value,
            metric_unit=result.metric_unit,
            metric_direction=result.metric_direction or MetricDirection.HIGHER,
            valid=result.valid,
            official_valid=result.official,
            stricter_rules=result.stricter,
            score_note="" if result.valid else "invalid: see the findings",
            inference=jsonable(_inference_details(result)),
        )
        entry = official_entries.get(f"{result.system}.{result.division}") or official_entries.get(result.system)
        if entry:
            official[row.pk] = entry
        outcome.results += 1
        outcome.runs += len(result.runs)
        findings.extend(finding_rows(result.all_findings(), submission, result=row))
    Finding.objects.bulk_create(findings, batch_size=1000)
    return official


def _open_models_sharing_a_model(results) -> set[tuple[str, str, str]]:
    """(system, official model, scenario) that several open-division results of a report share."""
    counts = Counter((r.system, r.model, r.scenario) for r in results if r.division == "open" and r.model)
    return {key for key, count in counts.items() if count > 1}


def _aliases_of(model: str, aliases: dict[str, str]) -> list[str]:
    """The round's own folder names for `model` (not a submitter's mapping)."""
    return [folder for folder, official in aliases.items() if official == model]


def _inference_details(result) -> dict:
    run = result.first_run
    summary = run.summary if run else None
    return {
        "model_folder": result.model_folder,
        "mlperf_model": result.model,
        "scenario_folder": result.scenario_folder,
        "metric_name": result.metric_name,
        "inferred_from": result.inferred_from,
        "latency_ms": result.latencies_ms,
        "latency_bound_ms": result.latency_bound_ms,
        "latency_percentile": result.latency_percentile,
        "query_count": result.query_count,
        "min_query_count": result.min_query_count,
        "duration_ms": result.duration_ms,
        "min_duration_ms": result.min_duration_ms,
        "accuracy": {"kind": result.accuracy_kind, "value": result.accuracy_value, "target": result.accuracy_target},
        "loadgen_verdict": summary.get("Result is") if summary else None,
        "sut_name": summary.sut_name if summary else "",
        "settings": {k: str(v) for k, v in result.settings.items()},
        "runs": [r.folder for r in result.runs],
        # v2.1+ (empty before): datacenter or edge, every accuracy figure read (ROUGE, tokens per
        # sample, CLIP, FID, ...), the LLM token latencies against their limits, and power.
        "system_type": result.system_type,
        "accuracy_figures": result.accuracy_figures,
        "accuracy_printed": result.accuracy_printed,  # as the official checker prints it (summary_results.json)
        "token_latency": result.token_latency,
        "power": None
        if result.power_value is None
        else {"value": result.power_value, "unit": result.power_unit, "efficiency": result.power_efficiency},
        # The implementation JSON's weight types where the checker read them (MLPerf Automotive:
        # its published table has them); absent otherwise, so inference details keep their shape.
        **({"weight_data_types": weights} if (weights := result.system_info.get("weight_data_types")) else {}),
        # A result of the MLCommons Endpoints client (v6.1 on): its throughput, tokens per second per
        # user, TTFT, TPOT and latency percentiles; absent for LoadGen results.
        **({"endpoints": result.endpoints} if result.endpoints else {}),
    }
