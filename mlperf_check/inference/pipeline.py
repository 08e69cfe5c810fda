"""check_inference_package(path): an inference round, division or submitter folder in, a report out.

Steps: find the submitter folders and their results -> decide the round (given, named by the
path, or from the LoadGen seeds in the first summary) -> per result: parse every performance
run's summary and detail log once, read the scenario metric from the reported run (run_1) ->
the inference checkers of the registry, in order. Pure Python, nothing written.
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from pathlib import Path

from mlperf_check.checkers import checkers_of_scope
from mlperf_check.errors import PackageUnreadable
from mlperf_check.finding_sources import checker_version
from mlperf_check.inference.checkers.base import ResultContext
from mlperf_check.inference.discovery import (
    DETAIL,
    ENDPOINTS,
    SUMMARY,
    ResultFolder,
    SubmitterFolder,
    find_submitters,
    read_model_mapping,
    read_system_descriptions,
    round_hint,
)
from mlperf_check.inference.endpoints import STRICTER_ONLY as ENDPOINTS_STRICTER_ONLY
from mlperf_check.inference.endpoints import (
    check_endpoints_compliance,
    read_endpoints_run,
    round_of_endpoints_run,
    score_endpoints,
)
from mlperf_check.inference.logs import parse_detail, parse_summary, to_number
from mlperf_check.inference.report import InferenceReport, InferenceResult, InferenceRun
from mlperf_check.inference.rules import (
    OFFLINE,
    SCENARIOS,
    SERVER,
    SINGLE_STREAM,
    InferenceRound,
    Metric,
    ModelRule,
    UnknownRound,
    round_from_seed,
    rules_for,
)
from mlperf_check.inference.scoring import inferred_figure as _inferred
from mlperf_check.inference.scoring import score_from_tables, submitter_findings, system_info
from mlperf_check.report import ERROR, INFO, Finding

# Findings about the round's rules and the scenario metric name scoring as their checker.
_finding = partial(Finding, checker="inference_scoring", checker_version=checker_version("inference_scoring"))

# The Offline figure of a result inferred from a SingleStream run (v0.7 edge rule); from v1.0 the
# checkers read it from the detail log (`:::MLLOG`), as every other figure.
INFERRED_OFFLINE = Metric("QPS w/o loadgen overhead", "samples/s", "higher", 1.0, "result_qps_without_loadgen_overhead")


class InferencePackageError(PackageUnreadable):
    """The path holds no inference results at all."""


def check_inference_package(
    path: Path | str, *, round_version: str | None = None, rules: InferenceRound | None = None
) -> InferenceReport:
    """`round_version` names the round whose rules apply (default: from the path or the seeds);
    `rules` gives them directly (tests, or a round not shipped yet)."""
    root = Path(path)
    if root.is_file():
        return _check_archive(root, round_version=round_version, rules=rules)
    if not root.is_dir():
        raise InferencePackageError(f"{root}: not a folder or an archive")
    submitters = find_submitters(root)
    if not submitters:
        raise InferencePackageError(f"{root}: no <division>/<submitter>/results/ folder")
    note = ""
    if rules is None:
        try:
            rules, note = _round(root, submitters, round_version)
        except UnknownRound as exc:
            return _unchecked(root, submitters, str(exc))
    report = InferenceReport(root=str(root), round=rules.version)
    if note:
        report.findings.append(_finding(INFO, "round_rules", note))
    checkers = [cls() for cls in checkers_of_scope("inference")]
    for submitter in submitters:
        prefix = submitter.rel
        for finding in submitter.findings:
            finding.file = _join(prefix, finding.file)
            report.findings.append(finding)
        systems = read_system_descriptions(submitter.root)
        mapping = read_model_mapping(submitter.root) if rules.from_tables else {}
        checked = []
        for folder in submitter.results:
            result = _check_result(rules, checkers, submitter, folder, systems.get(folder.system), mapping)
            checked.append(result)
        report.results.extend(checked)
        if rules.from_tables:
            report.findings.extend(submitter_findings(rules, submitter, checked, systems))
            for result in checked:  # a model without its required scenarios rejects its results
                result.official_valid, result.stricter = official_verdict(result, rules)
    return report


def _unchecked(root: Path, submitters: list[SubmitterFolder], reason: str) -> InferenceReport:
    """A round without rules: its results are listed, none is judged, and the report says why."""
    report = InferenceReport(root=str(root), round="")
    report.findings.append(_finding(ERROR, "round_unknown", f"{reason}: no result is checked"))
    for submitter in submitters:
        for folder in submitter.results:
            report.results.append(
                InferenceResult(
                    division=folder.division,
                    submitter=submitter.name,
                    system=folder.system,
                    model_folder=folder.model_folder,
                    model="",
                    scenario_folder=folder.scenario_folder,
                    scenario=folder.scenario,
                    folder=_join(submitter.rel, folder.rel),
                    findings=[_finding(ERROR, "round_unknown", reason, _join(submitter.rel, folder.rel))],
                )
            )
    return report


def _check_archive(path: Path, *, round_version: str | None, rules: InferenceRound | None) -> InferenceReport:
    """An archive of a submitter folder: extracted safely into a temporary folder, then checked."""
    import tempfile

    from mlperf_check.safety import UnsafeArchive, extract_archive

    with tempfile.TemporaryDirectory(prefix="mlperf-inference-") as tmp:
        try:
            root = extract_archive(path, Path(tmp) / "package")
        except UnsafeArchive as exc:
            raise InferencePackageError(f"{path.name}: {exc}") from exc
        report = check_inference_package(root, round_version=round_version, rules=rules)
    report.root = str(path)
    return report


def _round(root: Path, submitters: list[SubmitterFolder], given: str | None) -> tuple[InferenceRound, str]:
    if given:
        return rules_for(given)
    hint = round_hint(root)
    if hint:
        return rules_for(hint)
    for submitter in submitters:
        for folder in submitter.results:
            if folder.reading == ENDPOINTS:
                rules = round_of_endpoints_run(submitter.root / folder.rel)
                if rules is not None:
                    return rules, f"round {rules.version} recognised from the Endpoints client's seeds"
            for run in folder.runs:
                summary_path = run.path / SUMMARY
                if summary_path.is_file():
                    summary = parse_summary(summary_path.read_bytes(), str(summary_path))
                    raw = (summary.get("qsl_rng_seed") or "").strip()
                    rules = round_from_seed(int(raw)) if raw.isdigit() else None
                    if rules is not None:
                        return rules, f"round {rules.version} recognised from the LoadGen seeds"
                    raise UnknownRound(
                        f"the LoadGen seeds (qsl_rng_seed {raw or '?'}) are those of no known round; "
                        "name the round (--ruleset)"
                    )
    raise UnknownRound("no LoadGen summary to recognise the round from; name the round (--ruleset)")


def _join(prefix: str, rel: str) -> str:
    return f"{prefix}/{rel}" if prefix and rel else (rel or prefix)


def _check_result(
    rules, checkers, submitter: SubmitterFolder, folder: ResultFolder, system: dict | None, mapping=None
):
    prefix = submitter.rel
    if rules.from_tables:
        model = rules.models.get(rules.canonical_model(folder.model_folder, mapping))
    else:
        model = rules.model(folder.model_folder)
    division = folder.division or str((system or {}).get("division", "")).strip().lower()
    result = InferenceResult(
        division=division,
        submitter=submitter.name,
        system=folder.system,
        model_folder=folder.model_folder,
        model=model.name if model else "",
        scenario_folder=folder.scenario_folder,
        scenario=folder.scenario,
        folder=_join(prefix, folder.rel),
    )
    for finding in folder.findings:
        finding.file = _join(prefix, finding.file)
        result.findings.append(finding)
    if not folder.scenario:
        return result
    for run_folder in folder.runs:
        result.runs.append(_parse_run(run_folder.path, _join(prefix, run_folder.rel), run_folder.number))
    if rules.from_tables:
        result.system_type = str((system or {}).get("system_type", ""))
        result.system_info = system_info(system)
    if folder.reading == ENDPOINTS:
        if rules.from_tables and model is not None and model.name in rules.table["endpoints_models"]:
            run = read_endpoints_run(folder.submitter_root / folder.rel, result.folder)
            score_endpoints(result, rules, model, run)
            check_endpoints_compliance(result, rules, model, folder.submitter_root / folder.rel)
    elif rules.from_tables:
        score_from_tables(result, rules, model)
    else:
        _score(result, rules, model)
    context = ResultContext(rules, model, result, folder, prefix, system)
    for checker in checkers:
        if folder.reading in checker.readings:
            result.findings.extend(checker.check(context))
    result.official_valid, result.stricter = official_verdict(result, rules)
    return result


def official_verdict(result: InferenceResult, rules: InferenceRound) -> tuple[bool, list[str]]:
    """What the round's official checker decides, and the codes of our errors it does not count.

    Its leniencies are the round's data (rules.official_leniencies, and for the open division
    official_open_leniencies). With several Server runs
    (v0.7) it keeps the result when any one run passes; the other runs' errors are ours only.
    """
    lenient = rules.official_leniencies | ENDPOINTS_STRICTER_ONLY
    if result.division == "open":
        lenient = lenient | rules.official_open_leniencies
    errors = [f for f in result.all_findings() if f.severity == ERROR]
    counted = [f for f in errors if f.code not in lenient]
    if rules.server_any_run and result.scenario == SERVER and len(result.runs) > 1:
        prefixes = [run.folder + "/" for run in result.runs]
        outside = [f for f in counted if not any(f.file.startswith(p) for p in prefixes)]
        passing = [p for p in prefixes if not any(f.file.startswith(p) for f in counted)]
        if passing:
            counted = outside
    stricter = sorted({f.code for f in errors} - {f.code for f in counted})
    return not counted, stricter


def _parse_run(path: Path, rel: str, number: int) -> InferenceRun:
    run = InferenceRun(folder=rel, number=number, path_on_disk=path)
    summary_path = path / SUMMARY
    if summary_path.is_file():
        run.summary = parse_summary(summary_path.read_bytes(), f"{rel}/{SUMMARY}")
        run.findings.extend(run.summary.findings)
    detail_path = path / DETAIL
    if detail_path.is_file():
        with detail_path.open("rb") as stream:
            run.detail = parse_detail(stream, f"{rel}/{DETAIL}")
        run.findings.extend(run.detail.findings)
    return run


def _score(result: InferenceResult, rules: InferenceRound, model: ModelRule | None) -> None:
    """The scenario metric of the reported run (the first; v0.7 Server: the last of its runs, as
    that round's checker reports), with its unit and direction."""
    run = result.first_run
    if rules.server_any_run and result.scenario == SERVER and result.runs:
        run = result.runs[-1]
    if run is None or run.summary is None:
        return
    summary = run.summary
    metric = rules.metrics[result.scenario]
    ran = summary.scenario
    inferred = ran in SCENARIOS and ran != result.scenario
    if inferred and rules.inferred_from_any and run.detail is not None:
        # v2.0: MultiStream from SingleStream, Offline from either, as its checker computes them.
        result.metric_name, result.metric_unit, result.metric_direction = (
            metric.summary_key,
            metric.unit,
            metric.direction,
        )
        value = _detail_figure(run, rules.metrics[ran])
        if value is not None:
            result.metric_value = _inferred(result, ran, value, run.detail)
    else:
        if result.scenario == OFFLINE and ran == SINGLE_STREAM and rules.offline_from_singlestream:
            result.inferred_from = SINGLE_STREAM
            metric = replace(INFERRED_OFFLINE, detail_first=rules.detail_format == "mllog")
            result.findings.append(
                _finding(
                    INFO, "offline_inferred", "Offline figure inferred from a SingleStream run", result.folder
                )
            )
        result.metric_name, result.metric_unit, result.metric_direction = (
            metric.summary_key,
            metric.unit,
            metric.direction,
        )
        value = _figure(run, metric)
        if value is not None:
            result.metric_value = value * metric.scale
    if result.metric_value is None and summary.valid is not None:  # an unreadable summary is reported once, by its parser
        run.findings.append(
            _finding(
                ERROR,
                "metric_missing",
                f"no '{metric.summary_key}' figure in the summary",
                f"{run.folder}/{SUMMARY}",
                expected=metric.summary_key,
            )
        )
    result.min_duration_ms = rules.min_duration_ms
    detail = run.detail
    if detail is not None and detail.first_ts_ms is not None and detail.last_ts_ms is not None:
        result.duration_ms = detail.last_ts_ms - detail.first_ts_ms
    if (result.inferred_from or result.scenario) == OFFLINE:
        samples = summary.number("samples_per_query")  # Offline counts the samples of its one query
        result.query_count = None if samples is None else int(samples)
    elif detail is not None and isinstance(detail.results.get("result_query_count"), int | float):
        result.query_count = int(detail.results["result_query_count"])  # text logs do not say
    if model is not None:
        scenario = result.inferred_from or result.scenario
        if scenario not in rules.early_stopping:
            result.min_query_count = rules.min_query_count(model, scenario)
        if scenario == "Server":
            result.latency_bound_ms, result.latency_percentile = (
                model.server_latency_ms,
                model.server_percentile,
            )
        elif scenario == "MultiStream" and rules.metrics["MultiStream"].direction == "higher":
            result.latency_bound_ms = model.multistream_interval_ms
            result.latency_percentile = 1 - rules.multistream_skip_fraction


def _figure(run: InferenceRun, metric: Metric) -> float | None:
    """The metric as the summary prints it, else from the detail log (detail_first: the other way)."""
    summary_value = run.summary.number(metric.summary_key)
    if metric.detail_first:
        return _detail_figure(run, metric) if run.detail is not None else summary_value
    if summary_value is None and run.detail is not None and metric.detail_key:
        return _detail_figure(run, metric)
    return summary_value


def _detail_figure(run: InferenceRun, metric: Metric) -> float | None:
    results, effective = run.detail.results, run.detail.effective
    return to_number(results.get(metric.detail_key, effective.get(metric.detail_key.removeprefix("effective_"))))
