"""check_tiny_package(path) -> TinyReport: a round, division or submitter folder (or an archive of
one) checked as the round's official checker checks it, in its order, plus our stricter rules.

Every finding of an official rule ends with the line that checker prints for it, "(official
checker: <line>)", paths as it prints them (<division>/<submitter>/results/...), so that a reader
and the mutation tests (mlperf_check/tests/test_tiny_mutations.py) see the same reason. Where the
official checker stops with a traceback (a case it never meant to meet) the finding says so; such a
result has no official verdict, and both ours and the official one count it INVALID.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from mlperf_check.errors import PackageUnreadable
from mlperf_check.finding_sources import checker_version
from mlperf_check.report import ERROR, INFO, WARNING, Finding
from mlperf_check.tiny.detect import IGNORED_FOLDERS, subdirs, submitter_roots
from mlperf_check.tiny.report import SYSTEM_FIELDS, TinyReport, TinyResult
from mlperf_check.tiny.results_files import (
    RUNTIME_MET,
    WINDOW_ENERGY,
    WINDOW_HEADING,
    WINDOW_POWER,
    WINDOW_THROUGHPUT,
    Lines,
    floats,
    last_match,
    median,
    number,
    printed_precision,
    streaming,
)
from mlperf_check.tiny.rules import TinyRules, rules_for

OFFICIAL = "tiny_official"  # the round's checker's rules (mlperf_check/finding_sources.py)
STRICTER = "tiny_stricter"  # ours beyond them
CRASHES = "the official checker stops here with a traceback and gives no verdict"


class Findings:
    """Findings of one source, paths relative to the checked folder."""

    def __init__(self, root: Path):
        self.root = root

    def make(self, severity: str, code: str, explanation: str, path: Path | None = None, *,
             official: str = "", source: str = OFFICIAL) -> Finding:
        message = f"{explanation} (official checker: {official})" if official else explanation
        where = os.path.relpath(path, self.root) if path is not None else ""
        return Finding(severity, code, message, file="" if where == "." else where, checker=source,
                       checker_version=checker_version(source))


def check_tiny_package(path: str | Path, *, ruleset: str | None = None) -> TinyReport:
    """Check a Tiny round, division or submitter folder, or an archive of one; `ruleset` ("tiny-1.3",
    "1.3"; None: the newest round with rules). PackageUnreadable when nothing can be checked."""
    from mlperf_check.tiny.rules import rounds

    rules = rules_for(ruleset or rounds()[-1])
    path = Path(path)
    if path.is_file():
        from mlperf_check.safety import UnsafeArchive, extract_archive

        with tempfile.TemporaryDirectory(prefix="tiny-") as scratch:
            try:
                root = extract_archive(path, Path(scratch))
            except UnsafeArchive as exc:
                raise PackageUnreadable(f"{path}: {exc}") from exc
            report = _check_folder(root, rules)
            report.root = str(path)
            return report
    if not path.is_dir():
        raise PackageUnreadable(f"{path}: no such folder or archive")
    return _check_folder(path, rules)


def _check_folder(root: Path, rules: TinyRules) -> TinyReport:
    report = TinyReport(root=str(root), round=rules.version, rules_source=rules.source)
    found = Findings(root)
    submitters = submitter_roots(root)
    if not submitters:
        raise PackageUnreadable(f"{root}: no <division>/<submitter>/results/<system>/<benchmark>/ folders")
    if root.name not in ("closed", "open", "network") and not (root / "results").is_dir():
        for folder in subdirs(root):
            if folder.name not in rules.data["divisions"] and folder.name not in IGNORED_FOLDERS:
                report.findings.append(found.make(
                    ERROR, "tiny_invalid_division", f"{folder.name} is not a division ({', '.join(rules.data['divisions'])})",
                    folder, official=f"invalid division in input dir {folder.name}"))
    for division, submitter in submitters:
        if division and division not in rules.data["divisions"]:
            continue  # reported above: the official checker skips the folder
        division = division or _division_of(submitter)
        report.results.extend(_check_submitter(submitter, division, rules, found, report))
    return report


def _division_of(submitter: Path) -> str:
    """A lone submitter folder's division (no <division>/ folder above it): open where every
    system description says "Division": "Open", else closed, whose rules are the stricter (the
    descriptions are free text and disagree: syntiant's v1.3 folder, all closed, has one "Open")."""
    divisions = set()
    for description in sorted((submitter / "systems").glob("*.json")):
        try:
            divisions.add(str(json.loads(description.read_bytes()).get("Division", "")).strip().lower())
        except (OSError, ValueError, AttributeError):
            divisions.add("")
    return "open" if divisions == {"open"} else "closed"


def _walk(folder: Path):
    return list(os.walk(folder))


def _submitter_rejections(submitter: Path, name: str, rules: TinyRules, found: Findings) -> tuple[list, list]:
    """The checks of the whole submitter folder, in the official order: (errors that reject every
    result of it, warnings)."""
    walked = _walk(submitter)
    dirs = [Path(d) for d, _, _ in walked]
    files = [Path(d) / f for d, _, fs in walked for f in fs]
    rel = lambda p: f"{name}/{p.relative_to(submitter).as_posix()}" if p != submitter else name  # noqa: E731
    errors, warnings = [], []
    links = [f for f in files if f.is_symlink()]
    if links:
        errors.append(found.make(ERROR, "tiny_symlink", f"symbolic links: {', '.join(rel(f) for f in links)}", submitter,
                                 official=f"{name} contains symbolic links"))
        return errors, warnings
    limit = rules.data["file_size_limit_bytes"]
    large = [f for f in files if _size(f) > limit]
    if large:
        errors.append(found.make(
            ERROR, "tiny_file_too_large", f"files over {limit // 2**20} MiB: {', '.join(rel(f) for f in large)}",
            submitter, official=f"{name} contains files with size greater than 50 MB"))
        return errors, warnings
    hidden = [p for p in dirs + files if p.name.startswith(".") and p != submitter]
    if hidden:
        warnings.append(found.make(WARNING, "tiny_hidden_name", f"hidden names git may drop: "
                                   f"{', '.join(rel(p) for p in hidden)}", submitter,
                                   official=f"{name} contains files with git unfriendly name"))
    spaced = [p for p in dirs + files if " " in p.name and p != submitter]
    if spaced:
        warnings.append(found.make(WARNING, "tiny_space_in_name", f"names with spaces: "
                                   f"{', '.join(rel(p) for p in spaced)}", submitter,
                                   official=f"{name} contains files with spaces in their names"))
    pycache = [d for d in dirs if d.name.endswith("__pycache__")]
    if pycache:
        errors.append(found.make(ERROR, "tiny_pycache", f"__pycache__ folders: {', '.join(rel(d) for d in pycache)}",
                                 submitter, official=f"{name} has the following __pycache__ directories"))
        return errors, warnings
    empty = [Path(d) for d, ds, fs in walked if not ds and not fs]
    if empty:
        errors.append(found.make(ERROR, "tiny_empty_folder", f"empty folders: {', '.join(rel(d) for d in empty)}",
                                 submitter, official=f"{name} has the following empty directories"))
        return errors, warnings
    linked_dirs = [d for d, ds, _ in walked for sub in ds if (Path(d) / sub).is_symlink()]
    if linked_dirs:
        errors.append(found.make(ERROR, "tiny_symlinked_folder", "a symbolic link to a folder (the official "
                                 "checker looks for links among files only)", submitter, source=STRICTER))
    return errors, warnings


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _check_submitter(submitter: Path, division: str, rules: TinyRules, found: Findings,
                     report: TinyReport) -> list[TinyResult]:
    name = f"{division}/{submitter.name}"
    rejections, warnings = _submitter_rejections(submitter, name, rules, found)
    report.findings.extend(warnings)
    extra_mapping = None
    if division == "open" and (submitter / "model_mapping.json").is_file():
        try:
            extra_mapping = json.loads((submitter / "model_mapping.json").read_bytes())
        except ValueError:
            extra_mapping = None
    results = []
    for system in subdirs(submitter / "results"):
        system_info, system_errors = _system(submitter, system.name, name, rules, found)
        for benchmark in subdirs(system):
            result = TinyResult(
                division=division, submitter=submitter.name, system=system.name, benchmark=benchmark.name,
                folder=f"{name}/results/{system.name}/{benchmark.name}",
                path=os.path.relpath(benchmark, found.root),
                tests=[t for t in ("accuracy", "performance", "energy") if (benchmark / t).is_dir()],
            )
            result.findings.extend(rejections)
            result.findings.extend(system_errors)
            if system_info is not None:
                result.availability = system_info["availability"]
                result.system_fields = system_info["fields"]
            if not rejections and not system_errors:
                _check_result(result, benchmark, division, rules, found, extra_mapping)
            else:
                _read_figures(result, benchmark, rules)
            results.append(result)
    return results


def _system(submitter: Path, system: str, name: str, rules: TinyRules, found: Findings):
    """(the system's availability and CSV fields, the errors that reject all its results)."""
    description = submitter / "systems" / f"{system}.json"
    if not description.exists():
        return None, [found.make(ERROR, "tiny_no_system_description", f"no systems/{system}.json",
                                 submitter / "results" / system, official=f"no system_desc for {name}/{system}")]
    try:
        document = json.loads(description.read_bytes())
        status = document.get("Status")
    except (OSError, ValueError, AttributeError) as exc:
        return None, [found.make(ERROR, "tiny_system_unreadable", f"systems/{system}.json cannot be read as a "
                                 f"JSON object ({exc}); {CRASHES}", description)]
    if not isinstance(status, str):
        return None, [found.make(ERROR, "tiny_system_unreadable", f"systems/{system}.json has no \"Status\"; "
                                 f"{CRASHES}", description)]
    info = {"availability": status.lower(),
            "fields": {column: document.get(key) for column, key in SYSTEM_FIELDS}}
    if status.lower() not in rules.data["availabilities"]:
        return info, [found.make(
            ERROR, "tiny_invalid_status", f"Status {status!r} is none of {', '.join(rules.data['availabilities'])}",
            description, official=f"{name}/systems/{system}.json has invalid status ({status.lower()})")]
    return info, []


def _files_diff(folder: Path, required: list[str], rules: TinyRules) -> list[str]:
    """The official files_diff: files missing or added, beyond the ones every list may hold."""
    try:
        present = {p.name for p in folder.iterdir() if p.is_file()}
    except OSError:
        present = set()
    return sorted((present ^ set(required)) - set(rules.data["always_optional_files"]) - {""})


def _mismatch(result: TinyResult, folder: Path, label: str, required: list[str], rules: TinyRules,
              found: Findings) -> None:
    diff = _files_diff(folder, required, rules)
    if diff:
        shown = "{" + ", ".join(repr(f) for f in diff) + "}"
        result.findings.append(found.make(
            WARNING, "tiny_file_list_mismatch", f"files missing or not expected: {', '.join(diff)}; the official "
            "checker logs this as an ERROR but it never rejects a result", folder,
            official=f"{label} has file list mismatch ({shown})"))


def _read_figures(result: TinyResult, benchmark: Path, rules: TinyRules) -> None:
    """The figures of a result whose checks did not run (its submitter or system is rejected), for
    the pages."""
    model = rules.mlperf_model(benchmark.name)
    if model:
        result.mlperf_model, result.scenario = model, rules.scenario(model)
        result.accuracy_kind, result.accuracy_target = rules.accuracy_kind(model), rules.accuracy_target(model)


def _check_result(result: TinyResult, benchmark: Path, division: str, rules: TinyRules, found: Findings,
                  extra_mapping: dict | None) -> None:
    name = result.folder
    data = rules.data
    result.runner = "EEMBC" if (benchmark / data["eembc_marker"]).exists() else "MLC"
    required_files = data["runner_files"][result.runner]
    model = rules.mlperf_model(benchmark.name, extra_mapping)
    strict = rules.judged_strictly(division)
    if strict and model not in rules.models:
        result.findings.append(found.make(
            ERROR, "tiny_invalid_model", f"{benchmark.name} is not a benchmark of the closed division "
            f"({', '.join(rules.models)})", benchmark,
            official=f"{name} has an invalid model {benchmark.name} for closed/network division"))
        return
    if benchmark.name not in data["required_tests"]:
        result.findings.append(found.make(
            ERROR, "tiny_unknown_benchmark", f"{benchmark.name} is not a benchmark of the round's rules; {CRASHES}",
            benchmark))
        return
    result.mlperf_model, result.scenario = model, rules.scenario(model)
    result.accuracy_kind, result.accuracy_target = rules.accuracy_kind(model), rules.accuracy_target(model)
    required_tests = data["required_tests"][benchmark.name]

    if "accuracy" in required_tests and not _check_accuracy(
        result, benchmark / "accuracy", f"{name}/accuracy", model, strict, required_files, rules, found
    ):
        return  # the official checker stops
    energy = benchmark / "energy"
    performance = benchmark / "performance"
    perf_label = f"{name}/performance/"
    if "performance" in required_tests and not performance.exists():
        result.findings.append(found.make(
            ERROR, "tiny_no_performance", "no performance/ folder: the official checker drops the result without "
            "a NoResults line", benchmark, official=f"{perf_label} is missing"))
        return
    if result.scenario:
        if not _check_streaming(result, benchmark, strict, required_files, rules, found):
            return  # the official checker stops
    elif performance.exists():
        _mismatch(result, performance, perf_label, required_files, rules, found)
        _check_performance(result, performance, perf_label, rules, found)
    else:
        result.findings.append(found.make(
            ERROR, "tiny_no_performance", "no performance/ folder, and the round requires none", benchmark,
            official=f"{perf_label} has issues"))
    if energy.exists():
        _check_energy(result, energy, perf_label, rules, found)
    # Each failed check above made its finding: the official checker then logs "<performance>/ has
    # issues" (figures) or "<folder> is OK but accuracy has issues" (accuracy) and gives no result.


def _check_accuracy(result: TinyResult, folder: Path, label: str, model: str, strict: bool,
                    required_files: list[str], rules: TinyRules, found: Findings) -> bool:
    """check_accuracy_dir: the last figure of the benchmark's pattern against the closed target.
    False only where the official checker crashes (a figure that is no number)."""
    results_file = folder / rules.data["results_file"]
    if not results_file.exists():
        result.findings.append(found.make(ERROR, "tiny_no_accuracy_results", "no accuracy/results.txt", folder,
                                          official=f"{label} has no results.txt."))
        return True
    _mismatch(result, folder, label, required_files, rules, found)
    lines = Lines.read(results_file).lines or []
    kind, target = rules.accuracy_kind(model), rules.accuracy_target(model)
    text = last_match(lines, rules.data["accuracy_patterns"][kind])
    value = number(text)
    if text and value is None:
        result.findings.append(found.make(ERROR, "tiny_accuracy_unreadable", f"the accuracy {text!r} is no number; "
                                          f"{CRASHES}", results_file))
        return False
    result.accuracy, result.accuracy_text = value, text or ""
    if text and value >= target:
        return True
    shown = f"{value:g}" if value is not None else "no figure"
    if strict:
        result.findings.append(found.make(
            ERROR, "tiny_accuracy_not_met", f"{kind} {shown}, the closed division's target is {target}", results_file,
            official=f"{label}, accuracy not valid"))
        return True
    result.findings.append(found.make(INFO, "tiny_accuracy_not_met_open", f"{kind} {shown} is below the closed "
                                      f"division's target {target}; taken in the open division", results_file))
    return True


def _check_performance(result: TinyResult, folder: Path, label: str, rules: TinyRules, found: Findings) -> None:
    """check_performance_dir: the median throughput; and ours: the median of the windows, each
    window's runtime requirement."""
    results_file = folder / rules.data["results_file"]
    read = Lines.read(results_file)
    text = last_match(read.lines or [], rules.data["throughput_pattern"])
    result.throughput = number(text)
    if result.throughput is None:
        why = "no results.txt" if not read.readable else "no 'Median throughput is X inf./sec.' line"
        result.findings.append(found.make(ERROR, "tiny_no_throughput", why, results_file,
                                          official=f"{label} caused exception in check_performance_dir: {why}"))
        return
    result.throughput_windows = floats(read.lines, WINDOW_THROUGHPUT)
    if result.throughput_windows:
        exact = median(result.throughput_windows)
        if not _close(exact, result.throughput, text):
            result.findings.append(found.make(
                ERROR, "tiny_median_mismatch", f"the median throughput printed, {text} inf./sec., is not the median "
                f"of its {len(result.throughput_windows)} windows ({exact:.6g} inf./sec.)", results_file,
                source=STRICTER))
    headings = sum(1 for line in read.lines if WINDOW_HEADING.search(line))
    met = sum(1 for line in read.lines if RUNTIME_MET.search(line))
    if met < headings:
        result.findings.append(found.make(
            ERROR, "tiny_runtime_not_met", f"{headings - met} of {headings} performance windows do not say "
            "\"Runtime requirements have been met.\"", results_file, source=STRICTER))


def _close(exact: float, printed: float, text: str) -> bool:
    """Whether a printed median is the windows' one: within the last decimal it prints, or 0.05 %
    (the windows themselves are printed rounded, e.g. 1430.668 for a median of 1430.6681)."""
    return abs(exact - printed) <= max(printed_precision(text), 5e-4 * abs(exact))


def _check_energy(result: TinyResult, folder: Path, perf_label: str, rules: TinyRules, found: Findings) -> None:
    """check_power_dir: the median energy (uJ/inf.; sww: average power in mW); ours: the median of
    the windows."""
    results_file = folder / rules.data["results_file"]
    read = Lines.read(results_file)
    sww = bool(result.scenario)
    pattern = rules.data["energy_patterns"]["sww" if sww else ""]
    text = last_match(read.lines or [], pattern, search=True)
    value = number(text)
    result.energy_unit = rules.data["power_units"][result.scenario]
    if value is None:
        why = "no results.txt" if not read.readable else f"no line matching {pattern!r}"
        result.findings.append(found.make(ERROR, "tiny_no_energy", f"energy/: {why}", results_file,
                                          official=f"{perf_label} caused exception in check_power_dir: {why}"))
        return
    result.energy = value
    result.energy_windows = floats(read.lines, WINDOW_POWER if sww else WINDOW_ENERGY)
    if result.energy_windows and not sww:
        exact = median(result.energy_windows)
        if not _close(exact, value, text):
            result.findings.append(found.make(
                ERROR, "tiny_energy_median_mismatch", f"the median energy printed, {text} uJ/inf., is not the median "
                f"of its {len(result.energy_windows)} windows ({exact:.6g} uJ/inf.)", results_file, source=STRICTER))


def _check_streaming(result: TinyResult, benchmark: Path, strict: bool, required_files: list[str],
                     rules: TinyRules, found: Findings) -> bool:
    """sww_perf_acc on energy/ (or performance/ without it); False only where the official checker
    crashes (neither folder)."""
    data = rules.data
    energy, performance = benchmark / "energy", benchmark / "performance"
    perf_label = f"{result.folder}/performance/"
    source = energy if energy.exists() else performance
    if not source.exists():
        result.findings.append(found.make(ERROR, "tiny_sww_no_results", f"neither energy/ nor performance/; {CRASHES}",
                                          benchmark))
        return False
    extra = data["sww_energy_extra_files"] if source == energy else []
    _mismatch(result, source, f"{result.folder}/{source.name}", required_files + extra, rules, found)
    read = Lines.read(source / data["results_file"])
    if not read.readable:
        result.findings.append(found.make(ERROR, "tiny_sww_unreadable", f"no {source.name}/results.txt", source,
                                          official=f"{perf_label} caused exception in sww_perf_acc(): "
                                                   "no results.txt"))
        return True
    figures = streaming(read.lines, data["sww_patterns"])
    result.throughput = figures.throughput
    result.true_positives, result.false_negatives = figures.true_positives, figures.false_negatives
    result.false_positives, result.duty_cycle, result.period_s = figures.false_positives, figures.duty_cycle, figures.period_s
    result.accuracy = figures.f1
    result.accuracy_text = repr(figures.f1) if figures.f1 is not None else ""
    results_file = source / data["results_file"]
    missing = [what for what, value in (("'Accuracy: N True positives, N False negatives, N False positives'",
                                         figures.true_positives), ("'Average duty cycle'", figures.duty_cycle))
               if value is None]
    if missing:
        result.findings.append(found.make(ERROR, "tiny_sww_incomplete", f"no {' or '.join(missing)} line",
                                          results_file, official=f"{perf_label} caused exception in sww_perf_acc(): "
                                                                 f"no {' or '.join(missing)} line"))
        return True
    if figures.throughput is None:
        result.findings.append(found.make(ERROR, "tiny_sww_no_throughput", "no 'Estimated throughput: X inf./sec.' "
                                          "line", results_file, official=f"{perf_label} has issues"))
    words = data["sww_wake_words"]
    tp, fn, fp = figures.true_positives, figures.false_negatives, figures.false_positives
    if tp + fn != words:
        result.findings.append(found.make(
            ERROR, "tiny_sww_wake_words", f"{tp} true positives and {fn} false negatives make {tp + fn}, not the "
            f"test's {words} wake words", results_file,
            official=f"True Positives ({tp}) + False Negatives ({fn}) != {words}"))
    fp_limit, fn_limit = rules.accuracy_target(result.mlperf_model)
    if fp > fp_limit or fn > fn_limit:
        if strict:
            result.findings.append(found.make(
                ERROR, "tiny_sww_false_detections", f"{fp} false positives and {fn} false negatives: the closed "
                f"division allows at most {fp_limit} and {fn_limit}", results_file,
                official=f"FP={fp} and FN={fn} should both be <8 in closed division SWW."))
        else:
            result.findings.append(found.make(
                INFO, "tiny_sww_false_detections_open", f"{fp} false positives and {fn} false negatives exceed the "
                "closed division's limits; taken in the open division", results_file))
    return True
