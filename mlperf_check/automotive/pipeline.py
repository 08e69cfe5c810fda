"""check_automotive_package(path): an MLPerf Automotive round, division or submitter folder in, a
report out (mlperf_check.inference.report, suite "automotive").

The official checker's rules (mlperf_check/automotive/official_rules_data.py) are applied in its
order, each message worded as it words it and naming the file as it does (relative to the checked
folder), so that a rejection can be compared with the official one line by line. A rule of the
official checker rejects a result for it (`official`); our stricter rules (docs/differences.md,
"MLPerf Automotive") reject it for us only. A submitter folder the official checker refuses as a
whole (hidden or space-named files, empty folders, ...) has every result refused with it.
Pure Python, nothing written.
"""

from __future__ import annotations

import json
import os
import re
from functools import partial
from pathlib import Path

from mlperf_check.automotive.rules import AutomotiveRules, rules_for
from mlperf_check.errors import PackageUnreadable
from mlperf_check.finding_sources import checker_version
from mlperf_check.inference.detect import DIVISIONS, submitter_roots
from mlperf_check.inference.logs import detail_errors, parse_detail, parse_summary, to_number
from mlperf_check.inference.report import InferenceReport, InferenceResult, InferenceRun
from mlperf_check.report import ERROR, WARNING, Finding

NAME = "automotive"  # the suite's name in every layer (mlperf_check/suites/automotive.py), its reports'
OFFICIAL = "automotive_rules"  # the round's official checker's rules
STRICTER = "automotive_stricter"  # ours beyond them
_official = partial(Finding, checker=OFFICIAL, checker_version=checker_version(OFFICIAL))
_stricter = partial(Finding, checker=STRICTER, checker_version=checker_version(STRICTER))

SUMMARY = "mlperf_log_summary.txt"
DETAIL = "mlperf_log_detail.txt"
# The compliance tests whose verify_*.txt must say TEST PASS (our rule: the official checker reads none).
COMPLIANCE_TESTS = {"TEST01": ("verify_accuracy.txt", "verify_performance.txt"), "TEST04": ("verify_performance.txt",)}
# The top of a round folder may hold these besides the division folders.
ROOT_FILE_SUFFIXES = (".md", ".pdf")
IGNORED_TOP_FOLDERS = (".git", ".github", "assets")


class AutomotivePackageError(PackageUnreadable):
    """The path holds no automotive results at all."""


def check_automotive_package(path: Path | str, *, ruleset: str | None = None) -> InferenceReport:
    """`ruleset` names the round ("automotive-0.5", "v0.5"); by default the path's round folder
    name, else the newest round with rules."""
    root = Path(path)
    if root.is_file():
        return _check_archive(root, ruleset=ruleset)
    if not root.is_dir():
        raise AutomotivePackageError(f"{root}: not a folder or an archive")
    submitters = submitter_roots(root)
    if not submitters:
        raise AutomotivePackageError(f"{root}: no <division>/<submitter>/results/ folder")
    rules = rules_for(ruleset or _round_hint(root))
    report = InferenceReport(root=str(root), round=rules.ruleset, suite=NAME)
    refused = _round_refusals(root, report)
    for division, folder, rel in submitters:
        _check_submitter(rules, report, root, folder, rel, division, refused)
    return report


def _round_hint(root: Path) -> str:
    from mlperf_check.automotive.official_rules_data import OFFICIAL_RULES_DATA

    for folder in (root, *root.parents):
        if re.fullmatch(r"v?\d+\.\d+", folder.name) and f"v{folder.name.lstrip('v')}" in OFFICIAL_RULES_DATA:
            return folder.name
    return list(OFFICIAL_RULES_DATA)[-1]


def _check_archive(path: Path, *, ruleset: str | None) -> InferenceReport:
    """An archive of a submitter folder: extracted safely into a temporary folder, then checked."""
    import tempfile

    from mlperf_check.safety import UnsafeArchive, extract_archive

    with tempfile.TemporaryDirectory(prefix="mlperf-automotive-") as tmp:
        try:
            root = extract_archive(path, Path(tmp) / "package")
        except UnsafeArchive as exc:
            raise AutomotivePackageError(f"{path.name}: {exc}") from exc
        report = check_automotive_package(root, ruleset=ruleset)
    report.root = str(path)
    return report


def _round_refusals(root: Path, report: InferenceReport) -> set[str]:
    """The top of a round folder: a file other than .md/.pdf refuses the whole round, a file in a
    division folder that division (the divisions refused, "*" for all)."""
    divisions = [d for d in _folders(root) if d in DIVISIONS]
    if not divisions:
        return set()
    for name in _folders(root):
        if name not in DIVISIONS and name not in IGNORED_TOP_FOLDERS:
            report.findings.append(_official(WARNING, "invalid_division", f"invalid division in input dir {name}"))
    outside = [f for f in _files(root) if not f.endswith(ROOT_FILE_SUFFIXES)]
    if outside:
        report.findings.append(_official(
            ERROR, "files_outside_division", f"Root contains files outside division folder {divisions[0]}",
            actual=", ".join(outside)))
        return {"*"}
    refused = set()
    for division in divisions:
        stray = _files(root / division)
        if stray:
            report.findings.append(_official(
                ERROR, "files_outside_submitter", f"{division} contains files outside submitter folder {stray}"))
            refused.add(division)
    return refused


def _check_submitter(rules, report, root: Path, folder: Path, rel: str, division: str, refused: set[str]) -> None:
    if not (folder / "results").is_dir():
        return
    prefix = f"{rel}/" if rel else ""
    submitter = folder.name
    refusal = ""
    if "*" in refused:
        refusal = "the round folder holds files beside its division folders"
    elif division in refused:
        refusal = f"{division} holds files beside its submitter folders"
    else:
        problem = _folder_problem(root, folder, rel or submitter, rules)
        if problem:
            report.findings.append(_official(ERROR, problem[0], problem[1], file=rel))
            refusal = problem[1]
    mapping = _model_mapping(folder) if division == "open" else {}
    for system in _folders(folder / "results"):
        system_findings, description = _check_system(rules, folder, prefix, system, division)
        division_of = division or str(description.get("division", ""))
        for model_folder in _folders(folder / "results" / system):
            model = rules.official_model(model_folder, mapping)
            model_findings = _check_model(rules, prefix, system, model_folder, model, division_of)
            scenarios = _folders(folder / "results" / system / model_folder)
            # As the official checker, a refused system or model has its results left unchecked.
            refused_above = any(f.severity == ERROR for f in system_findings + model_findings)
            for scenario_folder in scenarios:
                result = _check_result(
                    rules, folder, prefix, division_of, submitter, system, description, model_folder, model,
                    scenario_folder, checked=not refused_above,
                )
                result.findings[:0] = system_findings + model_findings
                if refusal:
                    result.findings.insert(0, _official(
                        ERROR, "submitter_refused", f"the submitter folder is refused: {refusal}", file=rel))
                _decide(result)
                report.results.append(result)
            _required_scenarios(rules, report, prefix, system, model_folder, model, scenarios, division_of)


def _folder_problem(root: Path, folder: Path, name: str, rules: AutomotiveRules) -> tuple[str, str] | None:
    """The official checker's whole-submitter refusals, in its order: the first that applies (the
    paths relative to the checked folder `root`, as every finding's)."""
    dirs, files, empty = [], [], []
    for current, subdirs, filenames in os.walk(folder):
        dirs.append(Path(current))
        files.extend(Path(current) / f for f in filenames)
        if not subdirs and not filenames:
            empty.append(Path(current))

    def shown(paths):
        return [str(p.relative_to(root)) for p in paths]

    broken = [f for f in files if f.is_symlink() and not f.exists()]
    if broken:
        return "broken_symlink", f"{name} contains broken symbolic links: {shown(broken)}"
    limit = rules.table["file_size_limit_bytes"]
    large = [f for f in files if f.exists() and f.stat().st_size > limit]
    if large:
        return "file_too_large", f"{name} contains files with size greater than 50 MB: {shown(large)}"
    hidden = [d for d in dirs if d.name.startswith(".")] + [f for f in files if f.name.startswith(".")]
    if hidden:
        return "hidden_name", f"{name} contains files with git unfriendly name: {shown(hidden)}"
    spaced = [d for d in dirs if " " in d.name] + [f for f in files if " " in f.name]
    if spaced:
        return "space_in_name", f"{name} contains files with spaces in their names: {shown(spaced)}"
    pycache = [d for d in dirs if d.name.endswith("__pycache__")]
    if pycache:
        return "pycache", f"{name} has the following __pycache__ directories: {shown(pycache)}"
    if empty:
        return "empty_folder", f"{name} has the following empty directories: {shown(empty)}"
    return None


def _model_mapping(folder: Path) -> dict[str, str]:
    try:
        mapping = json.loads((folder / "model_mapping.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in mapping.items()} if isinstance(mapping, dict) else {}


def _check_system(rules, folder: Path, prefix: str, system: str, division: str) -> tuple[list[Finding], dict]:
    """systems/<system>.json as check_results_dir() and check_system_desc_id() read it."""
    table = rules.table
    shown = f"{prefix}systems/{system}.json"
    try:
        description = json.loads((folder / "systems" / f"{system}.json").read_text(encoding="utf-8"))
    except OSError:
        return [_official(ERROR, "system_description_missing",
                          f"no system_desc for {prefix.rstrip('/') or folder.name}/{system}", file=shown)], {}
    except ValueError as exc:
        return [_official(ERROR, "system_description_unreadable", f"{shown} is not JSON: {exc}", file=shown)], {}
    if not isinstance(description, dict):
        return [_official(ERROR, "system_description_unreadable", f"{shown} is not a JSON object", file=shown)], {}
    status = str(description.get("status") or "").lower()
    if status not in table["availabilities"]:
        return [_official(ERROR, "invalid_status", f"{shown} has invalid status ({status})", file=shown)], description
    system_type = description.get("system_type")
    if system_type not in table["system_types"]:
        return [_official(ERROR, "invalid_system_type", f"{shown} has invalid system type ({system_type})",
                          file=shown)], description
    name = f"{prefix}results/{system}"
    findings = []
    network = str(description.get("is_network", "")).lower() == "true"
    if division in ("closed", "network") and network != (division == "network"):
        findings.append(_official(ERROR, "network_mode",
                                  f"{name} incorrect network mode (={network}) for division '{division}'", file=shown))
    required = table["system_fields"] + (table["system_fields_network"] if network else [])
    for key in required:
        if key not in description:
            findings.append(_official(ERROR, "system_field_missing", f"{name}, field {key} is missing", file=shown))
        elif key in table["system_fields_non_empty"] and not description[key]:
            findings.append(_official(ERROR, "system_field_empty",
                                      f"{name}, field {key} requires a meaningful response but is empty", file=shown))
    known = set(required) | set(table["system_fields_power"])
    for key in description:
        if key not in known:
            findings.append(_official(WARNING, "system_field_unknown", f"{name}, field {key} is unknown", file=shown))
    submitter = folder.name
    if str(description.get("submitter", "")).lower() != submitter.lower():
        findings.append(_official(ERROR, "system_submitter",
                                  f"{name} has submitter {description.get('submitter')}, directory has {submitter}",
                                  file=shown))
    if division and description.get("division") != division:
        findings.append(_official(ERROR, "system_division",
                                  f"{name} has division {description.get('division')}, division has {division}",
                                  file=shown))
    return findings, description


def _check_model(rules, prefix, system, model_folder, model, division) -> list[Finding]:
    name = f"{prefix}results/{system}/{model_folder}"
    if division in ("closed", "network") and model not in rules.table["models"]:
        return [_official(ERROR, "invalid_model",
                          f"{name} has an invalid model {model_folder} for closed/network division", file=name)]
    if model not in rules.table["required_scenarios"]:
        return [_official(ERROR, "invalid_model", f"{name} has an invalid model {model}, system_type=adas", file=name)]
    return []


def _required_scenarios(rules, report, prefix, system, model_folder, model, scenarios, division) -> None:
    """Our rule: every required scenario of the model (SingleStream) is there. The official test
    (`len(missing) > 1`) never fires with one required scenario (docs/differences.md)."""
    required = rules.table["required_scenarios"].get(model)
    if required is None or division not in ("closed", "network"):
        return
    missing = sorted(set(required) - {rules.scenario(s) for s in scenarios})
    if missing:
        name = f"{prefix}results/{system}/{model_folder}"
        finding = _stricter(ERROR, "required_scenario_missing",
                            f"{name} does not have all required scenarios, missing {missing}", file=name)
        for result in report.results:
            if result.folder.startswith(name + "/"):
                result.findings.append(finding)
                _decide(result)


def _check_result(rules, folder, prefix, division, submitter, system, description, model_folder, model,
                  scenario_folder, checked: bool) -> InferenceResult:
    """One result folder; `checked` False: only named (its system or model is refused)."""
    table = rules.table
    scenario = rules.scenario(scenario_folder)
    name = f"{prefix}results/{system}/{model_folder}/{scenario_folder}"
    path = folder / "results" / system / model_folder / scenario_folder
    result = InferenceResult(
        division=division, submitter=submitter, system=system, model_folder=model_folder, model=model,
        scenario_folder=scenario_folder, scenario=scenario, folder=name,
        metric_name=table["result_keys"].get(scenario, ""), metric_unit="ms" if scenario in table["ns_scenarios"] else "",
        metric_direction="lower" if scenario in table["ns_scenarios"] else "higher", system_type="adas",
        system_info=_system_info(description),
    )
    if not checked:
        return result
    findings = result.findings
    allowed = set(table["required_scenarios"].get(model, [])) | set(table["optional_scenarios"].get(model, []))
    if division in ("closed", "network") and scenario not in allowed:
        findings.append(_official(ERROR, "invalid_scenario",
                                  f"{name} ignoring scenario {scenario_folder} (neither required nor optional)", file=name))
        return result
    measurements = folder / "measurements" / system / model_folder / scenario_folder
    measurement_name = f"{prefix}measurements/{system}/{model_folder}/{scenario_folder}"
    if not measurements.is_dir():
        findings.append(_official(ERROR, "measurements_missing", f"no measurement_dir for {measurement_name}",
                                  file=measurement_name))
        return result
    measurement_findings, weight_types = _check_measurements(
        rules, folder, prefix, measurements, measurement_name, name, system, model_folder, scenario_folder)
    result.system_info["weight_data_types"] = weight_types
    findings.extend(measurement_findings)
    if any(f.severity == ERROR for f in measurement_findings):
        return result
    accuracy = path / "accuracy"
    if not (accuracy / "accuracy.txt").is_file():
        findings.append(_official(
            ERROR, "accuracy_missing",
            f"{name}/accuracy has no accuracy.txt. Generate it with accuracy-imagenet.py or accuracy-coco.py or "
            "process_accuracy.py", file=f"{name}/accuracy"))
        return result
    mismatch = _files_mismatch(rules, accuracy, table["accuracy_files"])
    if mismatch:
        findings.append(_official(ERROR, "accuracy_files", f"{name}/accuracy has file list mismatch ({mismatch})",
                                  file=f"{name}/accuracy"))
        return result
    findings.extend(_check_accuracy(rules, result, accuracy, f"{name}/accuracy", division))
    _check_performance(rules, result, path / "performance" / "run_1", f"{name}/performance/run_1", model, scenario)
    _check_compliance(folder, prefix, result)
    return result


def _system_info(description: dict) -> dict:
    def whole(value):
        try:
            return int(value)
        except (TypeError, ValueError):
            return None

    nodes, per_node = whole(description.get("number_of_nodes")), whole(description.get("accelerators_per_node"))
    return {
        "availability": str(description.get("status") or "").lower(),
        "nodes": nodes,
        "accelerators_per_node": per_node,
        "accelerators": nodes * per_node if nodes is not None and per_node is not None else None,
        "accelerator": str(description.get("accelerator_model_name") or ""),
    }


def _check_measurements(rules, folder, prefix, measurements: Path, shown: str, name: str, system: str,
                        model_folder: str, scenario_folder: str) -> tuple[list[Finding], str]:
    """check_measurement_dir(): user.conf and README.md, the implementation JSON and the code folder."""
    table = rules.table
    findings = []
    files = _files(measurements)
    for required in table["measurement_files"]:
        if required not in files:
            findings.append(_official(ERROR, "measurement_file_missing", f"{shown} is missing {required}", file=shown))
        elif (measurements / required).stat().st_size == 0:
            findings.append(_official(ERROR, "measurement_file_empty", f"{shown} is having empty {required}",
                                      file=f"{shown}/{required}"))
    implementation, end = "", 0
    for file in files:  # the first name that fits (the checker: in the folder's listing order)
        if file.startswith(system) and file.endswith(f"_{scenario_folder}.json"):
            implementation, end = file, len(f"_{scenario_folder}.json")
            break
        if file.startswith(system) and file.endswith(".json"):
            implementation, end = file, len(".json")
            break
    if not implementation:
        findings.append(_official(ERROR, "implementation_missing", f"{name} is missing {system}*.json", file=shown))
        return findings, ""
    try:
        described = json.loads((measurements / implementation).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        findings.append(_official(ERROR, "implementation_unreadable", f"{shown}/{implementation}: {exc}",
                                  file=f"{shown}/{implementation}"))
        return findings, ""
    described = described if isinstance(described, dict) else {}
    for key in table["implementation_fields"]:
        if key not in described:
            findings.append(_official(ERROR, "implementation_field_missing", f"{name}, field {key} is missing",
                                      file=f"{shown}/{implementation}"))
        elif not described[key]:
            findings.append(_official(ERROR, "implementation_field_empty",
                                      f"{name}, field {key} is missing meaningful value", file=f"{shown}/{implementation}"))
    implementation_name = implementation[len(system) + 1 : -end]
    code = folder / "code" / model_folder
    code_shown = f"{prefix}code/{model_folder}"
    if code.is_file():
        code_shown = f"{prefix}code/{code.read_text(encoding='utf-8', errors='replace').strip()}"
        code = folder / "code" / code.read_text(encoding="utf-8", errors="replace").strip()
    if not (code / implementation_name).exists() and not code.exists():
        findings.append(_official(ERROR, "code_missing",
                                  f"{name} is missing code_dir {code_shown}/{implementation_name}", file=code_shown))
    return findings, str(described.get("weight_data_types") or "")


def _files_mismatch(rules, folder: Path, required: list[str], optional: tuple[str, ...] = ()) -> set[str]:
    """files_diff(): the names missing or extra in `folder`, less the always tolerated ones."""
    tolerated = set(optional) | set(rules.table["always_tolerated_files"])
    return set(_files(folder)).symmetric_difference(required) - tolerated


def _check_accuracy(rules, result: InferenceResult, folder: Path, shown: str, division: str) -> list[Finding]:
    """check_accuracy_dir(): accuracy.txt read line by line until the target figure and the hash
    have both been seen, every matching line before then meeting the target; the accuracy log
    truncated; no ERROR in the accuracy run's detail log. The open division takes a figure below
    target."""
    table = rules.table
    kind, pattern, target = rules.accuracy_pattern(result.model)
    result.accuracy_kind, result.accuracy_target = kind, target
    findings = []
    seen = False
    all_met = True
    hashed = ""
    value = None
    with open(folder / "accuracy.txt", encoding="utf-8", errors="replace") as lines:
        for line in lines:
            match = pattern.match(line)
            if match:
                try:
                    value = float(match.group(1))
                except ValueError:
                    value = None
                text = match.group(1)
                if value is not None and value >= target:
                    seen = True
                else:
                    all_met = False
                result.accuracy_figures[kind] = value
                result.accuracy_printed = f"{kind}: {text}"
            hash_match = re.match(r"^hash=([\w\d]+)$", line)
            if hash_match:
                hashed = hash_match.group(1)
            if seen and hashed:
                break
    met = all_met and seen
    result.accuracy_value = value
    if not met and value is not None:
        findings.append(_official(ERROR, "accuracy_not_met",
                                  f"{shown} accuracy not met: expected={target:f}, found={result.accuracy_printed.split(': ')[-1]}",
                                  file=f"{shown}/accuracy.txt"))
    elif not met:
        findings.append(_official(ERROR, "accuracy_not_found", f"{shown}, accuracy not valid: no {kind} figure",
                                  file=f"{shown}/accuracy.txt"))
    if not hashed:
        findings.append(_official(ERROR, "accuracy_hash_missing", f"{shown} not hash value for mlperf_log_accuracy.json",
                                  file=f"{shown}/accuracy.txt"))
    log = folder / "mlperf_log_accuracy.json"
    if not log.is_file():
        findings.append(_official(ERROR, "accuracy_log_missing", f"{shown}/mlperf_log_accuracy.json is missing",
                                  file=shown))
    elif log.stat().st_size > table["max_accuracy_log_bytes"]:
        findings.append(_official(ERROR, "accuracy_log_not_truncated", f"{shown}/mlperf_log_accuracy.json is not truncated",
                                  file=f"{shown}/mlperf_log_accuracy.json"))
    findings.extend(_detail_log_errors(folder / DETAIL, f"{shown}/{DETAIL}"))
    if division == "open" and result.accuracy_printed:
        # The open division takes any accuracy it could read, whatever else the folder lacks (the
        # checker's `acc and not is_closed_or_network`): its findings only warn.
        for finding in findings:
            finding.severity = WARNING if finding.severity == ERROR else finding.severity
    return findings


def _detail_log_errors(path: Path, shown: str) -> list[Finding]:
    """find_error_in_detail_log(): a missing detail log, or its ERROR records."""
    if not path.is_file():
        return [_official(ERROR, "detail_log_missing", f"{shown} is missing", file=shown)]
    with open(path, "rb") as lines:
        errors = detail_errors(lines)
    if not errors:
        return []
    return [_official(ERROR, "detail_log_error", f"{shown} contains errors: {'; '.join(e.text for e in errors)}",
                      file=shown, line=errors[0].line)]


def _check_performance(rules, result: InferenceResult, run: Path, shown: str, model: str, scenario: str) -> None:
    """run_1 as check_results_dir() and check_performance_dir() check it; the figure from its
    detail log."""
    table = rules.table
    findings = result.findings
    if not run.is_dir():
        findings.append(_official(ERROR, "performance_missing", f"{shown} is missing", file=shown))
        return
    mismatch = _files_mismatch(rules, run, table["performance_files"], tuple(table["performance_optional_files"]))
    if mismatch:
        findings.append(_official(ERROR, "performance_files", f"{shown} has file list mismatch ({mismatch})", file=shown))
        return
    summary = parse_summary((run / SUMMARY).read_bytes(), f"{shown}/{SUMMARY}")
    with open(run / DETAIL, "rb") as lines:
        detail = parse_detail(lines, f"{shown}/{DETAIL}")
    result.runs.append(InferenceRun(folder=shown, number=1, summary=summary, detail=detail, path_on_disk=run))
    file = f"{shown}/{DETAIL}"
    settings, figures = detail.effective, detail.results
    metric_key = table["result_keys"].get(str(settings.get("scenario")), "")
    count = to_number(settings.get("performance_sample_count"))
    min_duration = to_number(settings.get("min_duration_ms"))
    value = to_number(figures.get(metric_key))
    unreadable = [name for name, found in (("effective_scenario", metric_key), ("effective_performance_sample_count", count),
                                           ("effective_min_duration_ms", min_duration),
                                           (metric_key or "the scenario's result", value)) if found in (None, "")]
    if unreadable:
        # The official checker stops its check of the run with a Python exception here.
        findings.append(_official(ERROR, "performance_unreadable",
                                  f"{shown} caused exception in check_performance_dir: the detail log has no "
                                  f"number for {', '.join(unreadable)}", file=file))
        return
    valid = figures.get("result_validity") == "VALID"
    if not valid:
        findings.append(_official(ERROR, "loadgen_invalid",
                                  f"{shown} has issues: LoadGen's result_validity is {figures.get('result_validity')}",
                                  file=file, line=detail.lines.get("result_validity")))
    findings.extend(_detail_log_errors(run / DETAIL, file))
    required_count = table["performance_sample_count"].get(model)
    if required_count is not None and count < required_count:
        findings.append(_official(ERROR, "performance_sample_count",
                                  f"{file} performance_sample_count, found {count:g}, needs to be >= {required_count}",
                                  file=file, line=detail.lines.get("effective_performance_sample_count")))
    for seed, expected in table["seeds"].items():
        if settings.get(seed) != expected:
            findings.append(_official(ERROR, "wrong_seed",
                                      f"{file} {seed} is wrong, expected={expected}, found={settings.get(seed)}",
                                      file=file, line=detail.lines.get(f"effective_{seed}")))
    constant_gen = settings.get("server_constant_gen")
    if settings.get("scenario") in table["constant_gen_scenarios"] and not constant_gen:
        findings.append(_official(ERROR, "constant_gen",
                                  f"{file} constant_gen is set to false, expected=True, found={constant_gen}",
                                  file=file, line=detail.lines.get("effective_server_constant_gen")))
    if model in table["grouped_qsl_models"] and not settings.get("use_grouped_qsl"):
        # The checker prints constant_gen's value as what it found (sic).
        findings.append(_official(ERROR, "grouped_qsl",
                                  f"{file} grouped_qsl is required but not used, expected=True, found={constant_gen}",
                                  file=file, line=detail.lines.get("effective_use_grouped_qsl")))
    percentile = settings.get("target_latency_percentile")
    if percentile != table["target_latency_percentile"]:
        findings.append(_official(ERROR, "target_latency_percentile",
                                  f"{file} target_latency_percentile is required to be 0.999, expected=0.999, "
                                  f"found={percentile}", file=file,
                                  line=detail.lines.get("effective_target_latency_percentile")))
    if settings.get("scenario") in table["early_stopping_scenarios"] and not figures.get("early_stopping_met"):
        findings.append(_stricter(ERROR, "early_stopping_not_met",
                                  f"Early stopping condition was not met, msg={figures.get('early_stopping_result')}",
                                  file=file, line=detail.lines.get("early_stopping_met")))
    if min_duration < table["min_duration_ms"]:
        findings.append(_official(ERROR, "min_duration",
                                  f"{file} Test duration less than 600s in user config. "
                                  f"expected={table['min_duration_ms']}, found={min_duration:g}",
                                  file=file, line=detail.lines.get("effective_min_duration_ms")))
    if settings.get("scenario") in table["ns_scenarios"]:
        value /= 1e6
    result.metric_value = value
    result.latency_percentile = 99.9 if scenario == "ConstantStream" else 99.0
    result.query_count = _whole(figures.get("result_query_count"))
    result.min_query_count = _whole(settings.get("min_query_count"))
    result.min_duration_ms = _whole(min_duration)
    if settings.get("scenario") != scenario:
        findings.append(_official(ERROR, "scenario_mismatch",
                                  f"{file} is a {settings.get('scenario')} run in a {scenario} folder", file=file))


def _whole(value) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _check_compliance(folder: Path, prefix: str, result: InferenceResult) -> None:
    """Our rule (the official checker reads no compliance folder): TEST01 and TEST04 of every
    closed-division result are there and their verify_*.txt say TEST PASS."""
    if result.division not in ("closed", "network"):
        return
    base = f"compliance/{result.system}/{result.model_folder}/{result.scenario_folder}"
    for test, verify_files in COMPLIANCE_TESTS.items():
        for verify in verify_files:
            path = folder / base / test / verify
            shown = f"{prefix}{base}/{test}/{verify}"
            if not path.is_file():
                result.findings.append(_stricter(ERROR, "compliance_missing", f"{shown} is missing", file=shown))
            elif "TEST PASS" not in path.read_text(encoding="utf-8", errors="replace"):
                result.findings.append(_stricter(ERROR, "compliance_failed", f"{shown} does not say TEST PASS",
                                                 file=shown))


def _decide(result: InferenceResult) -> None:
    """The official verdict counts the official rules' errors; ours every error; `stricter` names
    our rules that make ours INVALID beyond the official one."""
    errors = [f for f in result.all_findings() if f.severity == ERROR]
    result.official_valid = not any(f.checker == OFFICIAL for f in errors)
    result.stricter = sorted({f.code for f in errors if f.checker == STRICTER}) if result.official_valid else []


def _folders(path: Path) -> list[str]:
    try:
        with os.scandir(path) as entries:
            return sorted(e.name for e in entries if e.is_dir())
    except OSError:
        return []


def _files(path: Path) -> list[str]:
    try:
        with os.scandir(path) as entries:
            return sorted(e.name for e in entries if e.is_file())
    except OSError:
        return []
