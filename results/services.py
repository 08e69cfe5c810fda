"""The only writers of the results database.

`import_report` turns a PackageReport (mlperf_check/report.py) into rows for one organization's
submission, in one transaction. It is idempotent: the same content imported twice changes
nothing, changed content becomes a new version, and citable result ids (`1.0-0042`) are kept for
every (system, benchmark) seen before.

Versions: new_version() numbers them for uploads and imports alike, write_report() writes each
once, make_current() / publish_version() / publish_round() switch the current and published ones.

Scaling-factor decisions: a result's score uses the factor computed from the logs unless an
accepted `Waiver` of kind published_factor names another (`apply_factor_decisions`). Such
decisions come from importing a published round with its shipped factors
(`record_published_factors`) or from a reviewer accepting or rejecting a shipped factor
(`accept_shipped_factor`, `reject_shipped_factor`), never from the upload itself.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import dataclass

from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.text import slugify

from mlperf_check.checkers.shipped_factors import FACTOR_TOLERANCE
from mlperf_check.inference.report import InferenceReport
from mlperf_check.inference.rules import rules_for
from mlperf_check.report import PackageReport, RunLog
from mlperf_check.rules.catalog import get_ruleset
from mlperf_check.rules.display import closed_hyperparameter_rules
from review.audit import record_event

from .constants import FactorSource, MetricDirection, RoundState, Suite, WaiverKind
from .models import Benchmark, Finding, Organization, Result, Round, Run, Submission, System, Waiver
from .querysets import is_privileged, parse_round_slug

# Log copies are stored content-addressed, so identical logs are stored once.
LOG_STORAGE_PREFIX = "logs"
# Part of every submission digest: bump it when what the import derives from a report changes
# (a new stored field, another eval-curve layout), so that re-importing unchanged files rewrites them.
IMPORT_FORMAT = 3
# The reasons recorded by import_results --published-factors.
SHIPPED_FACTOR_REASON = "shipped in the published package"
NO_SHIPPED_FACTOR_REASON = (
    "the published package ships no scaling.json, so the official summarizer published the score with 1.0"
)


class DecisionRefused(Exception):
    """A decision the user may not take (role, conflict of interest), or with nothing to decide."""


@dataclass
class ImportOutcome:
    submission: Submission
    status: str  # "created" | "updated" | "unchanged"
    results: int = 0
    runs: int = 0
    decisions: int = 0  # published_factor decisions recorded or changed


def ensure_round(slug: str) -> Round:
    """Get or create the round and its benchmarks from the ruleset catalog."""
    suite, version = parse_round_slug(slug)
    if suite == Suite.INFERENCE:
        return ensure_inference_round(version)
    spec = get_ruleset(version)
    with transaction.atomic():
        round_, _ = Round.objects.get_or_create(
            # An imported round takes results at once (a chair's round starts as a draft).
            suite=suite, version=version, defaults={"ruleset_version": spec.version, "state": RoundState.OPEN}
        )
        fill_benchmarks(round_)
    return round_


def fill_benchmarks(round_: Round) -> int:
    """Create or update the benchmarks of a training round from the catalog of its ruleset (an
    unknown ruleset raises UnknownRuleset); inference rounds from their rules. Returns how many."""
    if round_.suite == Suite.INFERENCE:
        return len(ensure_inference_round(round_.version).benchmarks.all())
    spec = get_ruleset(round_.ruleset_version or round_.version)
    for bench in spec.benchmarks.values():
        Benchmark.objects.update_or_create(
            round=round_,
            name=bench.name,
            defaults={
                "area": bench.area,
                "model": bench.model,
                "dataset": bench.dataset,
                "quality_metric": bench.metric,
                "metric_direction": MetricDirection(bench.direction),
                "quality_target": bench.target,
                "quality_targets": bench.targets,
                "quality_rule": bench.quality_rule,
                "closed_hyperparameter_rules": closed_hyperparameter_rules(spec.version, bench.name)
                if spec.config_dir
                else [],
                "required_runs": bench.required_runs,
                "olympic_drop": bench.olympic_drop,
                "init_time_limit_closed_s": spec.init_limit_closed_s,
                "init_time_limit_open_s": spec.init_limit_open_s,
            },
        )
    return len(spec.benchmarks)


def report_digest(report: PackageReport) -> str:
    """A digest of what the import stores: the ruleset, every system file and every result file."""
    digest = hashlib.sha256(f"{IMPORT_FORMAT}\0{report.ruleset}".encode())
    for system in sorted(report.systems, key=lambda s: s.system_id):
        digest.update(f"\0system\0{system.system_id}\0".encode())
        digest.update(repr(sorted(system.description.items(), key=lambda kv: kv[0])).encode())
    for result in sorted(report.results, key=lambda r: r.folder):
        for run in result.runs:
            digest.update(f"\0run\0{run.file}\0{run.sha256}".encode())
    findings = sorted((f.code, f.file, f.line or 0, f.message) for f in report.all_findings())
    digest.update(repr(findings).encode())
    return digest.hexdigest()


def organization_for(report: PackageReport) -> Organization:
    """The organization of a submitter folder, named as its system descriptions spell it."""
    spelled = Counter(
        str(s.normalized.get("submitter") or "").strip() for s in report.systems if s.normalized.get("submitter")
    )
    name = spelled.most_common(1)[0][0] if spelled else report.submitter
    slug = slugify(report.submitter) or slugify(name) or "unknown"
    org = Organization.objects.filter(slug=slug).first()
    if org is None:
        if Organization.objects.filter(name=name).exists():
            name = f"{name} ({report.submitter})"
        org = Organization.objects.create(name=name, slug=slug, aliases=sorted({report.submitter, *spelled}))
    return org


class VersionAlreadyWritten(Exception):
    """A submission version is written once; a change is a new version."""


def new_version(
    *,
    round_: Round,
    organization: Organization,
    sha256: str,
    source: str,
    size_bytes: int = 0,
    uploaded_by=None,
) -> Submission:
    """Allocate the next version number of `organization`'s submission to `round_` (previous
    maximum + 1) and create its empty, non-current row. The only place versions are numbered,
    for uploads and imports alike; the lock on the organization row makes two simultaneous
    callers get two versions."""
    with transaction.atomic():
        Organization.objects.select_for_update().get(pk=organization.pk)
        latest = Submission.objects.filter(round=round_, organization=organization).aggregate(v=Max("version"))["v"]
        return Submission.objects.create(
            round=round_,
            organization=organization,
            version=(latest or 0) + 1,
            sha256=sha256,
            size_bytes=size_bytes,
            source=source,
            ruleset_version=round_.ruleset_version,
            uploaded_by=uploaded_by,
            is_current=False,
            is_published=False,
        )


def make_current(submission: Submission) -> bool:
    """Make the newest written version of an organization's submission the current one; an
    older version finishing late is not. True when `submission` is now current.

    Once the round is published the public tables show the published version: a later version
    (a fix) stays non-current until a chair publishes it (publish_version)."""
    with transaction.atomic():
        # The organization row lock orders this with new_version() and publish_version().
        Organization.objects.select_for_update().get(pk=submission.organization_id)
        if Round.objects.get(pk=submission.round_id).is_published:
            return False
        versions = Submission.objects.filter(round=submission.round_id, organization=submission.organization_id)
        if versions.filter(pk=submission.pk, held_reason__gt="").exists():
            return False  # a chair decides first (review.services.release_held_version)
        if versions.filter(version__gt=submission.version, written_at__isnull=False).exists():
            return False
        _switch_current(submission)
        record_event("version.switched", submission=submission, reason=f"version {submission.version} is the newest")
    return True


def _switch_current(submission: Submission) -> None:
    Submission.objects.filter(round=submission.round_id, organization=submission.organization_id).exclude(
        pk=submission.pk
    ).update(is_current=False)
    Submission.objects.filter(pk=submission.pk).update(is_current=True)
    submission.is_current = True


def import_report(
    report: PackageReport,
    *,
    round_: Round,
    source: str,
    publish: bool = False,
    store_logs=None,
    published_factors_by=None,
) -> ImportOutcome:
    """Store one submitter's report as a new version of its submission to `round_`, unless its
    newest version already holds exactly this content ("unchanged"). Earlier versions, uploaded
    or imported, are never rewritten.

    `publish` publishes the version (and makes it current, even in a published round).
    `store_logs(run) -> bytes | None` returns a result file's content for the content-addressed
    log copy (None skips it). `published_factors_by`: the chair recording the package's shipped
    factors as decisions (import_results --published-factors). One transaction; re-running with
    unchanged content is a no-op.
    """
    digest = report_digest(report)
    with transaction.atomic():
        org = organization_for(report)
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
        outcome = write_report(report, submission=submission, store_logs=store_logs)
        outcome.status = "updated" if latest else "created"
        outcome.decisions = decisions
        if publish:
            publish_version(submission)
        else:
            make_current(submission)
    return outcome


def write_report(report: PackageReport, *, submission: Submission, store_logs=None) -> ImportOutcome:
    """Write the systems, results, runs and findings of one new submission version from a report.

    A version is written once (VersionAlreadyWritten otherwise). Result ids already given to the
    same organization's (system, benchmark) in this round, in any version, are reused. Runs
    inside the caller's transaction, or opens one.
    """
    with transaction.atomic():
        locked = Submission.objects.select_for_update().get(pk=submission.pk)
        if locked.written_at is not None:
            raise VersionAlreadyWritten(f"{submission} was written at {locked.written_at:%Y-%m-%d %H:%M:%S}")
        known_ids = {
            (system_id, bench): result_id
            for system_id, bench, result_id in Result.objects.filter(
                submission__round=submission.round, submission__organization=submission.organization
            )
            .order_by("submission__version")
            .values_list("system__system_id", "benchmark__name", "result_id")
        }
        submission.ruleset_version = report.ruleset
        if not submission.size_bytes:
            submission.size_bytes = sum(run.size_bytes for r in report.results for run in r.runs)
        submission.written_at = timezone.now()
        submission.save(update_fields=["ruleset_version", "size_bytes", "written_at", "updated_at"])
        outcome = ImportOutcome(submission, "created")
        _write_rows(report, submission, known_ids, store_logs, outcome)
        apply_factor_decisions(submission.round, submission.organization)
    return outcome


def _write_rows(report, submission, known_ids, store_logs, outcome: ImportOutcome) -> None:
    round_ = submission.round
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
        findings.extend(_finding_rows(system_report.findings, submission))
    findings.extend(_finding_rows(report.findings, submission))

    for result_report in report.results:
        system = systems.get(result_report.system_id)
        benchmark = benchmarks.get(result_report.benchmark)
        if system is None or benchmark is None:
            # No system description or not a benchmark of the round: the findings say so, and
            # there is no result row to hang a score on.
            findings.extend(_finding_rows(result_report.findings, submission))
            for run in result_report.runs:
                findings.extend(_finding_rows(run.findings, submission))
            continue
        result_id = known_ids.get((result_report.system_id, result_report.benchmark)) or _next_result_id(round_)
        result = Result.objects.create(
            submission=submission,
            system=system,
            benchmark=benchmark,
            result_id=result_id,
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
        )
        outcome.results += 1
        findings.extend(_finding_rows(result_report.findings, submission, result=result))
        scoring = {s.file: s for s in result_report.run_scores}
        for run_report in result_report.runs:
            run = Run.objects.create(result=result, **_run_fields(run_report, scoring, store_logs))
            outcome.runs += 1
            findings.extend(_finding_rows(run_report.findings, submission, result=result, run=run))
    Finding.objects.bulk_create(findings, batch_size=1000)


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
        "run_stop_status": run.run_stop_status[:64],
        "compliant": run.compliant,
        "scoring": score.scoring if score else "failed",
        "scoring_reason": (score.reason if score else "")[:255],
        "seed": seed,
        "global_batch_size": run.global_batch_size if run.global_batch_size and run.global_batch_size > 0 else None,
        "epochs_to_target": run.epochs_to_converge,
        "samples_to_target": int(run.samples_to_converge) if run.samples_to_converge is not None else None,
        "hyperparameters": _jsonable(run.hyperparameters),
        "eval_curve": [
            [
                p.epoch if p.epoch is not None else p.samples,
                _jsonable(p.value),
                p.line,
                round((p.time_ms - run.run_start_ms) / 60000.0, 4) if run.run_start_ms is not None else None,
            ]
            for p in run.eval_curve
        ],
        "run_start_line": run.run_start_line,
        "run_stop_line": run.run_stop_line,
    }


def _jsonable(value):
    """Logs may hold NaN and Infinity, which PostgreSQL's JSON refuses: store them as strings."""
    if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
        return str(value)
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, str):
        return value.replace("\x00", "")
    return value


def _finding_rows(findings, submission, result=None, run=None) -> list[Finding]:
    return [
        Finding(
            submission=submission,
            result=result,
            run=run,
            checker=f.checker[:64],
            checker_version=f.checker_version,
            severity=f.severity,
            code=f.code[:64],
            message=f.message.replace("\x00", ""),
            file=f.file[:512],
            line=f.line,
            key=(f.key or "")[:128],
            expected=(f.expected or "").replace("\x00", ""),
            actual=(f.actual or "").replace("\x00", ""),
        )
        for f in findings
    ]


def _next_result_id(round_: Round) -> str:
    locked = Round.objects.select_for_update().get(pk=round_.pk)
    number = locked.next_result_number
    Round.objects.filter(pk=round_.pk).update(next_result_number=number + 1)
    return f"{round_.version}-{number:04d}"


def store_log_copy(sha256: str, content: bytes) -> str:
    name = f"{LOG_STORAGE_PREFIX}/{sha256[:2]}/{sha256}.txt"
    if not default_storage.exists(name):
        default_storage.save(name, ContentFile(content))
    return name


def waivers_for(round_: Round, organization_slug: str) -> frozenset[tuple[str, str, str]]:
    """The recorded bypass decisions (Waiver rows) of an organization in a round, in the
    (system id, benchmark, kind) form the checking pipeline takes."""
    return frozenset(
        Waiver.objects.filter(round=round_, organization__slug=organization_slug, accepted=True).values_list(
            "system_id", "benchmark", "kind"
        )
    )


# -- scaling-factor decisions ---------------------------------------------------------------------


def record_published_factors(report: PackageReport, *, round_: Round, organization: Organization, chair) -> int:
    """Record, as accepted decisions by `chair`, the factor the official summarizer published for
    every result folder where it differs from the factor the logs give: the shipped scaling.json,
    or 1.0 where the folder has none. An unreadable scaling.json decides nothing. Returns the
    number of decisions recorded or changed."""
    if not (chair.is_superuser or chair.groups.filter(name="chairs").exists()):
        raise DecisionRefused(f"{chair}: only a chair records the factors of a published round")
    changed = 0
    for result in report.results:
        published = result.published_factor
        if published is None or abs(published - result.rcp.scaling_factor) <= FACTOR_TOLERANCE:
            continue
        reason = NO_SHIPPED_FACTOR_REASON if result.shipped_factor is None else SHIPPED_FACTOR_REASON
        changed += _record_factor_decision(
            round_, organization, result.system_id, result.benchmark,
            factor=published, accepted=True, by=chair, reason=reason,
        )
    return changed


def accept_shipped_factor(result: Result, *, by, reason: str) -> Waiver:
    """A reviewer accepts the factor the result's package ships: the score uses it from now on, in
    every version of this system and benchmark, until the decision is rejected."""
    return _decide_on_shipped_factor(result, by=by, reason=reason, accepted=True)


def reject_shipped_factor(result: Result, *, by, reason: str) -> Waiver:
    """A reviewer rejects the shipped factor: the score uses the factor the logs give, and the
    rejection is kept as a record."""
    return _decide_on_shipped_factor(result, by=by, reason=reason, accepted=False)


def _decide_on_shipped_factor(result: Result, *, by, reason: str, accepted: bool) -> Waiver:
    organization = result.submission.organization
    if not is_privileged(by):
        raise DecisionRefused("only reviewers and chairs decide on scaling factors")
    if organization.members.filter(pk=by.pk).exists():
        raise DecisionRefused(
            f"conflict of interest: {by} is a member of {organization}, so {result.result_id} is not theirs to decide"
        )
    shipped = result.shipped_scaling_factor
    if shipped is None:
        raise DecisionRefused(f"{result.folder} ships no readable scaling.json: there is no shipped factor to decide on")
    if abs(shipped - result.computed_scaling_factor) <= FACTOR_TOLERANCE:
        raise DecisionRefused(f"the shipped factor {shipped!r} agrees with the logs: there is nothing to decide")
    reason = (reason or "").strip()
    if not reason:
        raise DecisionRefused("a decision needs a reason")
    round_ = result.submission.round
    with transaction.atomic():
        _record_factor_decision(
            round_, organization, result.system.system_id, result.benchmark.name,
            factor=shipped, accepted=accepted, by=by, reason=reason,
        )
        apply_factor_decisions(round_, organization)
    return Waiver.objects.get(
        round=round_, organization=organization, system_id=result.system.system_id,
        benchmark=result.benchmark.name, kind=WaiverKind.PUBLISHED_FACTOR,
    )


def _record_factor_decision(round_, organization, system_id, benchmark, *, factor, accepted, by, reason) -> bool:
    """Create or replace the one published_factor decision of a system and benchmark. Returns
    whether anything changed (an identical decision is left as it was)."""
    decision = {"factor": factor, "accepted": accepted, "granted_by": by, "reason": reason}
    waiver = Waiver.objects.filter(
        round=round_, organization=organization, system_id=system_id, benchmark=benchmark,
        kind=WaiverKind.PUBLISHED_FACTOR,
    ).first()
    if waiver is None:
        Waiver.objects.create(
            round=round_, organization=organization, system_id=system_id, benchmark=benchmark,
            kind=WaiverKind.PUBLISHED_FACTOR, **decision,
        )
        return True
    if all(getattr(waiver, name) == value for name, value in decision.items()):
        return False
    for name, value in decision.items():
        setattr(waiver, name, value)
    waiver.created_at = timezone.now()  # when the decision in force was taken
    waiver.save()
    return True


def apply_factor_decisions(round_: Round, organization: Organization) -> int:
    """Bring the scores of an organization's results in a round in line with the accepted
    published_factor decisions: olympic mean x decided factor where one exists, the score the
    logs give everywhere else. Returns the number of results changed (none: nothing is written)."""
    decisions = Waiver.objects.filter(
        round=round_, organization=organization, kind=WaiverKind.PUBLISHED_FACTOR, accepted=True, factor__isnull=False
    )
    decided = {(system_id, benchmark): factor for system_id, benchmark, factor in decisions.values_list(
        "system_id", "benchmark", "factor"
    )}
    changed = []
    results = Result.objects.filter(submission__round=round_, submission__organization=organization).select_related(
        "system", "benchmark"
    )
    for result in results:
        factor = decided.get((result.system.system_id, result.benchmark.name))
        if factor is None:
            wanted = (result.computed_score_minutes, result.computed_scaling_factor, FactorSource.COMPUTED)
        else:
            score = None if result.mean_minutes is None else result.mean_minutes * factor
            wanted = (score, factor, FactorSource.DECISION)
        if (result.score_minutes, result.scaling_factor, result.factor_source) != wanted:
            result.score_minutes, result.scaling_factor, result.factor_source = wanted
            changed.append(result)
    if changed:
        Result.objects.bulk_update(changed, ["score_minutes", "scaling_factor", "factor_source"])
        touch_submissions(Submission.objects.filter(pk__in={r.submission_id for r in changed}))
    return len(changed)


def touch_submissions(submissions) -> None:
    """A change the page cache's data version does not see by itself (a result's status, a
    waiver, a decision): stamp the submissions, so that every cached page and API answer built
    before it is stale at once in this process, and within DATA_VERSION_SECONDS in the others
    (results/caching.py keys on the newest submission timestamp)."""
    from .caching import forget_data_version

    submissions.update(updated_at=timezone.now())
    transaction.on_commit(forget_data_version)


def publish_version(submission: Submission, *, actor=None, reason: str = "") -> None:
    """Publish one version and make it its organization's current one: how a chair publishes a
    fix accepted after the round's publication (and how an import publishes what it imports)."""
    with transaction.atomic():
        Organization.objects.select_for_update().get(pk=submission.organization_id)
        _switch_current(submission)
        Submission.objects.filter(pk=submission.pk).update(is_published=True)
        submission.is_published = True
        record_event("version.published", actor=actor, submission=submission, reason=reason or "published")


def publish_round(
    round_: Round, *, published_at=None, actor=None, reason: str = "", withheld: dict[int, str] | None = None
) -> bool:
    """Publish the round: each organization's current version becomes public. Exactly once: the
    round row is locked and a round already published is left alone (False). Withdrawn and
    removed results stay unpublished (ResultQuerySet.visible_to). `published_at`: the real
    publication date of a round imported after the fact. `withheld`: submission id -> why that
    version may not be published yet (a chair publishes it later with publish_version)."""
    withheld = withheld or {}
    with transaction.atomic():
        locked = Round.objects.select_for_update().get(pk=round_.pk)
        if locked.state == RoundState.PUBLISHED:
            if published_at and locked.publish_at != published_at:
                locked.publish_at = round_.publish_at = published_at
                locked.save(update_fields=["publish_at"])
            return False
        published = Submission.objects.filter(round=locked, is_current=True, written_at__isnull=False).exclude(
            pk__in=list(withheld)
        )
        versions = list(published.values_list("organization__name", "version"))
        published.update(is_published=True)
        previous = locked.state
        locked.state = RoundState.PUBLISHED
        # From now on publish_at is the date it was published, not the one planned.
        locked.publish_at = published_at or timezone.now()
        locked.save(update_fields=["state", "publish_at"])
        record_event(
            "round.published",
            actor=actor,
            round_=locked,
            reason=reason or "publication",
            data={"from": previous, "versions": [f"{org} v{version}" for org, version in versions],
                  "withheld": {str(pk): why for pk, why in withheld.items()}},
        )
    round_.state, round_.publish_at = locked.state, locked.publish_at
    return True


# Inference (issue 12) ------------------------------------------------------------------------

INFERENCE_IMPORT_FORMAT = 1
# System-description `status` spellings -> category (inference calls research "RDI"/"RDO").
INFERENCE_AVAILABILITY = {"available": "available", "preview": "preview", "rdi": "research", "rdo": "research"}


def ensure_inference_round(version: str) -> Round:
    """Get or create an inference round and one Benchmark per model of its rules (data)."""
    rules, _note = rules_for(version)
    with transaction.atomic():
        round_, _ = Round.objects.get_or_create(
            suite=Suite.INFERENCE, version=version, defaults={"ruleset_version": rules.version, "state": RoundState.OPEN}
        )
        for model in rules.models.values():
            Benchmark.objects.update_or_create(
                round=round_,
                name=model.name,
                defaults={
                    "area": "inference",
                    "quality_metric": model.accuracy.kind,
                    "metric_direction": MetricDirection.HIGHER,
                    "quality_target": model.accuracy.target,
                    "required_runs": 1,
                    "olympic_drop": 0,
                },
            )
    return round_


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
    folders: list[InferenceFolder], *, round_: Round, submitter: str, source: str, publish: bool = False
) -> ImportOutcome:
    """Store one submitter's inference folders (its closed and open divisions) as a new version of
    its submission to `round_`, unless its newest version holds exactly this content. Idempotent
    like import_report; result ids are kept per (system, model, scenario)."""
    digest = inference_digest(folders)
    all_systems = {k: v for folder in folders for k, v in folder.systems.items()}
    with transaction.atomic():
        org = _inference_organization(submitter, all_systems)
        latest = Submission.objects.filter(round=round_, organization=org).order_by("-version").first()
        if latest is not None and latest.sha256 == digest:
            if publish and not latest.is_published:
                publish_version(latest)
            return ImportOutcome(latest, "unchanged")
        submission = new_version(round_=round_, organization=org, sha256=digest, source=source)
        outcome = write_inference_report(folders, submission=submission)
        outcome.status = "updated" if latest else "created"
        if publish:
            publish_version(submission)
        else:
            make_current(submission)
    return outcome


def write_inference_report(folders: list[InferenceFolder], *, submission: Submission) -> ImportOutcome:
    """Write the systems, results and findings of one new submission version from checked
    inference folders (import_results and upload ingestion alike). A version is written once.
    Result ids already given to the organization's (system, model, scenario) in this round, in
    any version, are reused."""
    with transaction.atomic():
        locked = Submission.objects.select_for_update().get(pk=submission.pk)
        if locked.written_at is not None:
            raise VersionAlreadyWritten(f"{submission} was written at {locked.written_at:%Y-%m-%d %H:%M:%S}")
        known_ids = {
            (system_id, bench, scenario): result_id
            for system_id, bench, scenario, result_id in Result.objects.filter(
                submission__round=submission.round, submission__organization=submission.organization
            )
            .order_by("submission__version")
            .values_list("system__system_id", "benchmark__name", "scenario", "result_id")
        }
        submission.ruleset_version = folders[0].report.round if folders else ""
        submission.written_at = timezone.now()
        submission.save(update_fields=["ruleset_version", "written_at", "updated_at"])
        outcome = ImportOutcome(submission, "created")
        divisions_of = Counter(system for folder in folders for system in {r.system for r in folder.report.results})
        for folder in folders:
            _write_inference_rows(folder, submission, known_ids, outcome, shared=divisions_of)
    return outcome


def _inference_organization(submitter: str, systems: dict[str, dict]) -> Organization:
    spelled = Counter(str(d.get("submitter") or "").strip() for d in systems.values() if d.get("submitter"))
    name = spelled.most_common(1)[0][0] if spelled else submitter
    slug = slugify(submitter) or "unknown"
    org = Organization.objects.filter(slug=slug).first()
    if org is None:
        if Organization.objects.filter(name=name).exists():
            name = f"{name} ({submitter})"
        org = Organization.objects.create(name=name, slug=slug, aliases=sorted({submitter, *spelled}))
    return org


def _inference_system(submission: Submission, system_id: str, description: dict | None, division: str) -> System:
    description = description or {}
    status = str(description.get("status") or "").strip()
    lowered = status.lower()
    availability = INFERENCE_AVAILABILITY.get(lowered, "research" if lowered.startswith("research") else "unknown")
    return System.objects.create(
        submission=submission,
        system_id=system_id,
        file=f"systems/{system_id}.json" if description else "",
        name=str(description.get("system_name") or system_id)[:255],
        submitter=str(description.get("submitter") or "")[:255],
        division=division,
        status_raw=status[:128],
        availability=availability,
        host_processor_model_name=str(description.get("host_processor_model_name") or "")[:255],
        accelerator_model_name=str(description.get("accelerator_model_name") or "")[:255],
        framework=str(description.get("framework") or "")[:255],
        description=_jsonable(description),
    )


def _write_inference_rows(folder: InferenceFolder, submission, known_ids, outcome: ImportOutcome, shared) -> None:
    """`shared` counts the divisions each system id has results in: a system in both divisions
    gets one row per division (`<id>.open` for the open one)."""
    report, systems = folder.report, folder.systems
    benchmarks = {b.name: b for b in submission.round.benchmarks.all()}
    system_rows: dict[str, System] = {}
    findings = _finding_rows(report.findings, submission)
    for result in report.results:
        result.division = result.division or folder.division
        benchmark = benchmarks.get(result.model)
        if benchmark is None and result.model_folder:
            # An open-division model outside the round's list: it still gets a leaderboard.
            benchmark, _ = Benchmark.objects.get_or_create(
                round=submission.round, name=result.model_folder.lower()[:64], defaults={"area": "inference"}
            )
            benchmarks[benchmark.name] = benchmark
        system_id = result.system
        if shared[result.system] > 1 and result.division == "open":
            system_id = f"{result.system}.open"
        if result.system not in system_rows:
            system_rows[result.system] = _inference_system(
                submission, system_id, systems.get(result.system), result.division
            )
        key = (system_id, benchmark.name, result.scenario)
        result_id = known_ids.get(key) or _next_result_id(submission.round)
        known_ids[key] = result_id
        row = Result.objects.create(
            submission=submission,
            system=system_rows[result.system],
            benchmark=benchmark,
            result_id=result_id,
            folder=result.folder[:512],
            division=result.division,
            scenario=result.scenario,
            metric_value=result.metric_value,
            metric_unit=result.metric_unit,
            metric_direction=result.metric_direction or MetricDirection.HIGHER,
            valid=result.valid,
            score_note="" if result.valid else "invalid: see the findings",
            inference=_jsonable(_inference_details(result)),
        )
        outcome.results += 1
        outcome.runs += len(result.runs)
        findings.extend(_finding_rows(result.all_findings(), submission, result=row))
    Finding.objects.bulk_create(findings, batch_size=1000)


def _inference_details(result) -> dict:
    run = result.first_run
    summary = run.summary if run else None
    return {
        "model_folder": result.model_folder,
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
    }
