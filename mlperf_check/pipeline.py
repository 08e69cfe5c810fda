"""check_package(): one submitter folder (or an archive of one) in, a PackageReport out.

Steps: discover the layout -> read the system descriptions -> stream every result file once
through the run summary and the per-run checkers -> per result folder, the RCP outcome and the
olympic score (HPC weak scaling: the throughput figures), and the energy where the folder has
power measurements -> the package checkers -> route every finding to the system, result or
package it concerns. Pure Python: no database, nothing written into the submission tree.

Training and MLPerf HPC packages go through the same steps; the layout (results/<system>/
{strong,weak}/<benchmark>) tells an HPC package, and its ruleset is an HPC one ("hpc-1.0.0").
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from functools import partial
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING

from mlperf_check.checkers import checkers_of_scope
from mlperf_check.checkers.base import PackageContext, RunContext
from mlperf_check.errors import PackageUnreadable
from mlperf_check.forks import map_in_forks
from mlperf_check.lean_dataclass import dataclass
from mlperf_check.package import (
    HPC,
    Package,
    discover_package,
    looks_like_submitter_folder,
)
from mlperf_check.parsing import ParseStats, iter_records
from mlperf_check.power import score_energy
from mlperf_check.report import ERROR, WARNING, BenchmarkResult, Finding, PackageReport, RcpOutcome, RunLog
from mlperf_check.rules.catalog import (
    RulesetSpec,
    get_ruleset,
    hpc_ruleset_for_timestamp,
    known_hpc_rulesets,
    known_rulesets,
    ruleset_for_timestamp,
    ruleset_of_log_format,
)
from mlperf_check.rules.configs import get_official_rules, load_config, shipped_configs
from mlperf_check.rules.facts import HPC_PREFIX, is_hpc
from mlperf_check.rules.rcp import evaluate_rcp
from mlperf_check.runlog import analyze_run
from mlperf_check.scoring import olympic_score, read_shipped_factor, weak_scaling_score
from mlperf_check.systems import load_system

if TYPE_CHECKING:
    from mlperf_check.safety import ArchiveLimits

Progress = Callable[[str, int, int], None]

# Records read from the first result file, at most, to find the ruleset when none is given.
RULESET_PROBE_RECORDS = 2000
# Below this many bytes of logs, starting worker processes costs more than it saves.
PARALLEL_MIN_BYTES = 4 * 1024 * 1024
# A round's folders are analysed in groups of about this many bytes of logs (check_round).
ROUND_GROUP_BYTES = 128 * 1024 * 1024
# A results repository's one round folder holding its submitter folders (training_results_v0.5: v0.5.0/).
ROUND_FOLDER = re.compile(r"v\d+\.\d+(?:\.\d+)?")


class PackageError(PackageUnreadable):
    """The path cannot be checked at all (not a folder or archive, unsafe archive). `code` is a
    stable finding code and `file` the offending archive member ("" when not one member's)."""

    def __init__(self, message: str, *, code: str = "PACKAGE_UNREADABLE", file: str = "") -> None:
        super().__init__(message)
        self.code = code
        self.file = file


def check_package(
    path: Path | str,
    *,
    ruleset: str | None = None,
    waivers: frozenset[tuple[str, str, str]] = frozenset(),
    limits: ArchiveLimits | None = None,
    jobs: int = 1,
    digests: bool = True,
    progress: Progress | None = None,
) -> PackageReport:
    """`digests=False` leaves RunLog.sha256 empty where no check needs it (see RunContext.digest);
    `progress` as check_folder() takes it."""
    path = Path(path)
    if path.is_file():
        # Imported here: a folder check (the common case) does not pay for the archive code.
        import tempfile

        from mlperf_check.safety import ArchiveLimits, UnsafeArchive, extract_archive

        with tempfile.TemporaryDirectory(prefix="mlperf-package-") as tmp:
            try:
                root = extract_archive(path, Path(tmp) / "package", limits or ArchiveLimits())
            except UnsafeArchive as exc:
                raise PackageError(
                    f"{path.name}: {exc}", code=f"ARCHIVE_{exc.reason.upper()}", file=exc.member
                ) from exc
            return check_folder(
                root, ruleset=ruleset, waivers=waivers, jobs=jobs, progress=progress, digests=digests
            )
    if not path.is_dir():
        raise PackageError(f"{path}: not a folder or an archive", code="PACKAGE_NOT_FOUND")
    return check_folder(path, ruleset=ruleset, waivers=waivers, jobs=jobs, progress=progress, digests=digests)


def submitter_folders(root: Path) -> list[Path]:
    """The submitter folders of a round folder (`<round>/<submitter>/...`) in name order, or of the
    one round folder a results repository keeps them in (training_results_v0.5: `v0.5.0/`); []
    when `root` is itself a submitter folder (or holds none)."""
    if looks_like_submitter_folder(root):
        return []
    found = sorted(p for p in root.iterdir() if p.is_dir() and looks_like_submitter_folder(p))
    if not found:
        inner = [p for p in root.iterdir() if p.is_dir() and ROUND_FOLDER.fullmatch(p.name)]
        if len(inner) == 1:
            return submitter_folders(inner[0])
    return found


def check_round(
    folders: list[Path], *, ruleset: str | None = None, jobs: int = 1, digests: bool = True
) -> Iterator[tuple[Path, PackageReport]]:
    """Check submitter folders in order. With jobs > 1 the result files of consecutive folders,
    about ROUND_GROUP_BYTES of them at a time, are shared out between `jobs` processes (forked once
    per group, not per folder), then each folder of the group is scored and reported: a long round
    reports group by group, holding one group's runs at a time."""
    if jobs <= 1:
        for folder in folders:
            yield folder, check_folder(folder, ruleset=ruleset, digests=digests)
        return
    group: list[_StartedCheck] = []
    sizes: list[int] = []  # of the group's result files, in order
    group_bytes = 0
    for folder in folders:
        check = _start_check(folder, ruleset=ruleset, waivers=frozenset(), digests=digests)
        group.append(check)
        sizes.extend(check.sizes)
        group_bytes += sum(check.sizes)
        if group_bytes >= ROUND_GROUP_BYTES:
            yield from _check_group(group, sizes, jobs)
            group, sizes, group_bytes = [], [], 0
    yield from _check_group(group, sizes, jobs)


def _check_group(
    started: list[_StartedCheck], sizes: list[int], jobs: int
) -> Iterator[tuple[Path, PackageReport]]:
    tasks = [(check.package, context) for check in started for context in check.contexts]
    runs = iter(_analyze_runs(tasks, sizes, jobs))
    for check in started:
        yield check.root, _finish_check(check, islice(runs, len(check.contexts)), _no_progress)


def check_folder(
    root: Path,
    *,
    ruleset: str | None = None,
    waivers: frozenset[tuple[str, str, str]] = frozenset(),
    jobs: int = 1,
    progress: Progress | None = None,
    digests: bool = True,
) -> PackageReport:
    """`progress(stage, done, total)` is called after every result file ("parsing") and every
    package checker ("checking"), for a live status page."""
    started = _start_check(root, ruleset=ruleset, waivers=waivers, digests=digests)
    runs = _analyze_runs([(started.package, context) for context in started.contexts], started.sizes, jobs)
    return _finish_check(started, runs, progress or _no_progress)


@dataclass
class _StartedCheck:
    """A folder whose layout and systems are read: its result files are still to be analysed
    (`contexts`, one per file, each with the BenchmarkResult in `results` it belongs to)."""

    root: Path
    package: Package
    spec: RulesetSpec
    waivers: frozenset[tuple[str, str, str]]
    report: PackageReport
    contexts: list[RunContext]
    results: list[BenchmarkResult]  # one per result file, in the order of `contexts`
    sizes: list[int]  # of each result file in bytes, in the order of `contexts`


def _start_check(
    root: Path,
    *,
    ruleset: str | None,
    waivers: frozenset[tuple[str, str, str]],
    digests: bool = True,
) -> _StartedCheck:
    package, discovery_findings = discover_package(root)
    hpc_layout = package.layout == HPC
    ruleset_findings = []
    if ruleset and hpc_layout and not is_hpc(ruleset) and not ruleset.strip().lower().startswith("hpc"):
        # A bare version given for an HPC package names its HPC ruleset ("1.0.0" -> "hpc-1.0.0").
        ruleset = HPC_PREFIX + ruleset.strip()
    if ruleset:
        spec = get_ruleset(ruleset)
        if spec.is_hpc != hpc_layout:
            expected = "results/<system>/{strong,weak}/<benchmark>/" if spec.is_hpc else "results/<system>/<benchmark>/"
            ruleset_findings.append(
                Finding(
                    ERROR,
                    "RULESET_LAYOUT_MISMATCH",
                    f"the package is checked against {spec.label}, whose results sit in {expected}; this "
                    f"package has the {'HPC' if hpc_layout else 'training'} layout",
                    checker="pipeline",
                    expected=expected,
                )
            )
    else:
        if hpc_layout:
            detected, round_findings = hpc_round_ruleset(root, package)
            ruleset_findings.extend(round_findings)
        else:
            detected = detect_ruleset(package)
        if detected is None:
            newest = known_hpc_rulesets()[-1] if hpc_layout else known_rulesets()[-1]
            spec = get_ruleset(newest)
            ruleset_findings.append(
                Finding(
                    ERROR,
                    "RULESET_UNDETERMINED",
                    "no result file has a readable run_start, so the round cannot be told from the logs; "
                    f"checked against the newest ruleset, {spec.label}: pass --ruleset",
                    checker="pipeline",
                )
            )
        else:
            spec = get_ruleset(detected)
    report = PackageReport(root=str(root), ruleset=spec.version, submitter=package.submitter)
    report.findings.extend(ruleset_findings)
    report.findings.extend(discovery_findings)

    systems = {system_id: load_system(package, system_id) for system_id in sorted(package.system_files)}
    report.systems = list(systems.values())

    sizes = {rel: package.size_of(rel) for bench_dir in package.benchmark_dirs for rel in bench_dir.result_files}
    # Without digests, the parser still digests a file whose size another result file shares:
    # only those can be copies (the duplicate check compares their digests).
    sizes_seen = Counter(sizes.values())
    contexts: list[tuple[BenchmarkResult, RunContext]] = []
    for bench_dir in package.benchmark_dirs:
        system = systems.get(bench_dir.system_id)
        division = system.normalized.get("division", "") if system else ""
        result = BenchmarkResult(
            system_id=bench_dir.system_id,
            benchmark=bench_dir.benchmark,
            folder=bench_dir.folder,
            division=division,
            scaling=bench_dir.scaling,
            shipped_factor=read_shipped_factor(package, bench_dir),
        )
        report.results.append(result)
        for rel in bench_dir.result_files:
            context = RunContext(
                file=rel,
                ruleset=spec,
                system_id=bench_dir.system_id,
                benchmark=bench_dir.benchmark,
                system=system,
                submitter=package.submitter,
                division=division,
                digest=digests or sizes_seen[sizes[rel]] > 1,
            )
            contexts.append((result, context))
    return _StartedCheck(
        root,
        package,
        spec,
        waivers,
        report,
        [c for _, c in contexts],
        [result for result, _ in contexts],
        [sizes[c.file] for _, c in contexts],
    )


def _finish_check(started: _StartedCheck, runs: Iterable[RunLog], progress: Progress) -> PackageReport:
    """Collect the runs of a started check (one per context), score every result, run the
    package checkers."""
    package, spec, waivers, report = started.package, started.spec, started.waivers, started.report
    for done, (result, run) in enumerate(zip(started.results, runs, strict=True), start=1):
        result.runs.append(run)
        progress("parsing", done, len(started.results))
    for bench_dir, result in zip(package.benchmark_dirs, report.results, strict=True):
        if not result.division:
            result.division = _division_from_logs(result)
        _score(result, spec, waivers)
        if spec.benchmark(result.benchmark) is not None:
            result.findings.extend(score_energy(package, bench_dir, result))

    context = PackageContext(package=package, ruleset=spec, report=report, waivers=waivers)
    package_checkers = checkers_of_scope("package")
    for done, checker_class in enumerate(package_checkers, start=1):
        if checker_class.applies_to(context):
            _route(report, checker_class().run(context))
        progress("checking", done, len(package_checkers))
    return report


def detect_ruleset(package: Package) -> str | None:
    """The ruleset of the round the logs were written for: their line format (v0.5 and v0.6 have
    their own), else the date of their run_start (see catalog.ROUND_PUBLISHED; for an HPC
    package, catalog.HPC_ROUND_PUBLISHED)."""
    for bench_dir in package.benchmark_dirs:
        for rel in bench_dir.result_files:
            stats = ParseStats()
            with package.open(rel) as stream:
                for count, record in enumerate(iter_records(stream, file=rel, findings=[], stats=stats)):
                    by_format = ruleset_of_log_format(stats.log_format)
                    if by_format is not None:
                        return by_format
                    if count >= RULESET_PROBE_RECORDS:
                        break
                    if record.key == "run_start" and record.time_ms > 0:
                        if package.layout == HPC:
                            return hpc_ruleset_for_timestamp(record.time_ms)
                        return ruleset_for_timestamp(record.time_ms)
    return None


def hpc_round_ruleset(root: Path, package: Package) -> tuple[str | None, list[Finding]]:
    """The ruleset of an HPC package's round: the round its path names (`hpc_results_v3.0`, or a
    `v3.0` folder), else the round most of its logs were written in (by their run_start; a tie goes
    to the newer round). A submitter may ship logs of an earlier round beside the new ones (weak-
    scaling runs kept from 2021): they are checked under the package's round, and a finding names
    them. None when no log has a readable run_start."""
    by_file = _hpc_rulesets_of_logs(package)
    known = known_hpc_rulesets()
    named = next((r for r in map(_hpc_ruleset_of_folder, (root, *root.parents)) if r in known), None)
    if named is not None:
        chosen, why = named, "the round its path names"
    elif by_file:
        counts = Counter(by_file.values())
        chosen = max(counts, key=lambda ruleset: (counts[ruleset], known.index(ruleset)))
        why = f"the round of {counts[chosen]} of its {len(by_file)} logs"
    else:
        return None, []
    older: dict[str, Counter] = {}
    for rel, ruleset in by_file.items():
        if known.index(ruleset) < known.index(chosen):
            older.setdefault(ruleset, Counter())[rel.rsplit("/", 1)[0]] += 1
    findings = [
        Finding(
            WARNING,
            "RULESET_OLDER_LOGS",
            f"{sum(folders.values())} logs were written in the time of {ruleset} ("
            + ", ".join(f"{folder}: {count}" for folder, count in sorted(folders.items()))
            + f"); the package is checked against {chosen}, {why}",
            checker="pipeline",
            expected=chosen,
            actual=ruleset,
        )
        for ruleset, folders in sorted(older.items())
    ]
    return chosen, findings


def _hpc_ruleset_of_folder(folder: Path) -> str:
    """ "hpc-3.0.0" for a folder named `hpc_results_v3.0` or `v3.0`; "" otherwise."""
    match = re.fullmatch(r"(?:hpc_results_)?v(\d+)\.(\d+)", folder.name, re.IGNORECASE)
    return f"{HPC_PREFIX}{match[1]}.{match[2]}.0" if match else ""


def _hpc_rulesets_of_logs(package: Package) -> dict[str, str]:
    """Each result file's HPC ruleset by the date of its run_start (files without one are left out)."""
    out = {}
    for bench_dir in package.benchmark_dirs:
        for rel in bench_dir.result_files:
            with package.open(rel) as stream:
                records = iter_records(stream, file=rel, findings=[], stats=ParseStats())
                for record in islice(records, RULESET_PROBE_RECORDS):
                    if record.key == "run_start" and record.time_ms > 0:
                        out[rel] = hpc_ruleset_for_timestamp(record.time_ms)
                        break
    return out


def _analyze_one(task: tuple[Package, RunContext]) -> RunLog:
    package, context = task
    return analyze_run(partial(package.open, context.file), context, checkers_of_scope("run"))


def _no_progress(stage: str, done: int, total: int) -> None:
    pass


def _analyze_runs(tasks: list[tuple[Package, RunContext]], sizes: list[int], jobs: int) -> Iterable[RunLog]:
    """The RunLog of every (package, result file), in order, `sizes` being the files' sizes. In
    this process, one at a time as they are asked for (a progress callback sees each), unless
    jobs > 1 and there are enough bytes to pay for forking (the offline command uses every core;
    the Celery worker and import_results, which run packages in parallel already, keep jobs=1)."""
    if jobs <= 1 or len(tasks) < 2 or sum(sizes) < PARALLEL_MIN_BYTES:
        return map(_analyze_one, tasks)
    _load_before_fork(tasks[0][1].ruleset)
    return map_in_forks(_analyze_one, tasks, sizes, jobs)


def _load_before_fork(spec: RulesetSpec) -> None:
    """What every log needs, loaded here before forking: the children inherit it instead of each
    importing the run checkers and compiling the configs every log starts with. The closed
    benchmark configs are loaded already (get_ruleset's quality targets)."""
    checkers_of_scope("run")
    if spec.config_dir is None:
        return
    rules = get_official_rules(spec.version)
    for name in (rules.entry, f"training_{spec.version}/closed_common.yaml", f"training_{spec.version}/open_common.yaml"):
        if name in shipped_configs():
            load_config(name)


def _division_from_logs(result: BenchmarkResult) -> str:
    divisions = {run.division.strip().lower() for run in result.runs if run.division}
    return divisions.pop() if len(divisions) == 1 and divisions <= {"closed", "open"} else ""


def _score(result: BenchmarkResult, spec: RulesetSpec, waivers: frozenset[tuple[str, str, str]]) -> None:
    bench = spec.benchmark(result.benchmark)
    if bench is None:
        result.score_note = f"{result.benchmark!r} is not a benchmark of {spec.label}"
        result.rcp = RcpOutcome()
        return
    batch_sizes = {run.global_batch_size for run in result.runs if run.global_batch_size is not None}
    result.global_batch_size = batch_sizes.pop() if len(batch_sizes) == 1 else None
    result.rcp = evaluate_rcp(
        result.runs,
        ruleset=spec,
        benchmark=result.benchmark,
        division=result.division,
        bypass=(result.system_id, result.benchmark, "rcp_bypass") in waivers,
    )
    result.converge_mean = result.rcp.submission_mean
    if result.scaling == "weak":
        # Throughput has no olympic score and no RCP factor (the official summarizer applies none);
        # the RCP verdict above still stands, as in the official package checker.
        result.weak, result.run_scores, findings = weak_scaling_score(result.runs, bench)
        result.findings.extend(findings)
        result.score_note = result.weak.note
        return
    outcome = olympic_score(result.runs, bench, result.rcp.scaling_factor)
    result.score_minutes = outcome.score_minutes
    result.mean_minutes = outcome.mean_minutes
    result.score_note = outcome.note
    result.dropped_runs = outcome.dropped_runs
    result.run_scores = outcome.run_scores


def _route(report: PackageReport, findings: list[Finding]) -> None:
    """Attach each package-checker finding to the result folder or system file it names."""
    by_folder = {result.folder: result for result in report.results}
    by_file = {system.file: system for system in report.systems}
    for finding in findings:
        target = by_file.get(finding.file)
        if target is not None:
            target.findings.append(finding)
            continue
        folder = finding.file
        while folder and folder not in by_folder:
            folder = folder.rpartition("/")[0]
        if folder:
            by_folder[folder].findings.append(finding)
        else:
            report.findings.append(finding)
