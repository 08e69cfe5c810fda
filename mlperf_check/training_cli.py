"""`mlperf-check` on a training or MLPerf HPC path: a submitter folder, an archive of one, or a
round folder of them (the two suites of the package pipeline, mlperf_check/pipeline.py; the
command dispatches here through mlperf_check/suites/). Exit status: 0 no errors, 1 errors found,
2 the path cannot be checked."""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

from mlperf_check.output import format_github, format_text, github_annotation, to_json, unreadable_document
from mlperf_check.pipeline import PackageError, check_package, check_round, submitter_folders
from mlperf_check.report import ERROR, Finding, PackageReport
from mlperf_check.rules.catalog import UnknownRuleset, get_ruleset

USAGE_ERROR = 2


def run(
    path: str,
    *,
    ruleset: str | None,
    output_format: str,
    jobs: int,
    waivers: list | None,
    stdout: TextIO,
    stderr: TextIO,
) -> int:
    """`waivers`: the review decisions of a `--waivers` file (mlperf_check/waivers.py), already
    read; None without one."""
    if ruleset:
        try:
            get_ruleset(ruleset)  # refused before any file is read
        except UnknownRuleset as exc:
            stderr.write(f"mlperf-check: {exc}\n")
            return USAGE_ERROR
    package_path = Path(path)
    folders = submitter_folders(package_path) if package_path.is_dir() else []
    if folders and waivers is not None:
        stderr.write("mlperf-check: --waivers is one version's decisions: check one submitter folder with it\n")
        return USAGE_ERROR
    if folders:
        return run_round(
            folders, ruleset=ruleset, output_format=output_format, jobs=jobs, stdout=stdout, stderr=stderr
        )
    try:
        report = check_package(package_path, ruleset=ruleset, jobs=jobs, digests=False)
    except PackageError as exc:
        stderr.write(f"mlperf-check: {exc}\n")
        write_unreadable(package_path, exc, output_format, stdout)
        return USAGE_ERROR
    if waivers:
        from mlperf_check.waivers import apply_waivers

        apply_waivers(report, waivers)
    shown_as = path if package_path.is_dir() else ""  # findings in an archive: paths inside it
    stdout.write(render(report, output_format, shown_as=shown_as, one_line=False) + "\n")
    return 1 if report.has_errors else 0


def run_round(
    folders: list[Path], *, ruleset: str | None, output_format: str, jobs: int, stdout: TextIO, stderr: TextIO
) -> int:
    """Every submitter folder of a round; a progress bar on stderr when both streams are a
    terminal (a pipe or a file gets only the reports)."""
    bar = None
    if _is_terminal(stdout) and _is_terminal(stderr):
        from tqdm import tqdm  # only here: importing it costs ~60 ms

        bar = tqdm(total=len(folders), unit="submitter", file=stderr)
    with_errors = 0
    for folder, report in check_round(folders, ruleset=ruleset, jobs=jobs, digests=False):
        text = render(report, output_format, shown_as=str(folder), one_line=True)
        if output_format == "text":
            text += "\n"
        with_errors += report.has_errors
        if bar is None:
            stdout.write(text + "\n")
        else:
            bar.write(text, file=stdout)  # above the bar, which is redrawn below it
            bar.set_description(folder.name)
            bar.update()
    if bar is not None:
        bar.close()
    if output_format == "text":
        stdout.write(f"{len(folders)} submitters checked, {with_errors} with errors\n")
    return 1 if with_errors else 0


def render(report: PackageReport, output_format: str, *, shown_as: str, one_line: bool) -> str:
    if output_format == "json":
        return to_json(report.to_json(), one_line=one_line)
    if output_format == "github":
        return format_github(report, shown_as)
    return format_text(report)


def write_unreadable(path: Path, exc: PackageError, output_format: str, stdout: TextIO) -> None:
    """A package that could not be checked still gets a document in the machine formats, so a
    script reads why (code, message, the offending archive member as `file`) from stdout."""
    finding = Finding(ERROR, exc.code, str(exc), file=exc.file, checker="pipeline")
    if output_format == "json":
        stdout.write(to_json(unreadable_document(path.name, finding), one_line=False) + "\n")
    elif output_format == "github":
        stdout.write(github_annotation(finding, "") + "\n")


def _is_terminal(stream: TextIO) -> bool:
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())
