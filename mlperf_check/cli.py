"""`mlperf-check`: the offline check of a submitter folder, an archive of one, or a whole round.

    mlperf-check PATH [--ruleset X.Y.Z] [--format text|json|github|summary-json|summary-csv] [--jobs N]
                      [--waivers FILE]
    mlperf-check submit PATH --round training-v1.0 [--url URL] [--token TOKEN] [--force]

The check needs no settings, database or broker: it is the same code the server's ingestion
worker runs. `manage.py check_package` is a thin alias of it for tools that call that name.
`submit` (mlperf_check/submit.py) checks, then uploads to a results server.

An MLPerf HPC package (results/<system>/{strong,weak}/<benchmark>/) is told by its layout and
checked against an HPC ruleset (`--ruleset hpc-1.0.0`; default: from the logs' dates). A result
folder with power/ measurements also gets its energy to train.

PATH is a round folder when it is not a submitter folder itself and holds submitter folders
(`<round>/<submitter>/systems|results`): every submitter is checked, their result files shared
out between `--jobs` processes (this one and forked copies of it). `--format json` then prints
JSON Lines: one document per submitter per line.

`--waivers FILE` marks the findings a results server's review waived (the file is the server's
per-version export, mlperf_check/waivers.py): they count nowhere, as on the server.

`--format summary-json` (or `summary-csv`) prints an inference package's accepted results in the
shape MLCommons publishes a round (`summary_results.json`, mlperf_check/inference/summary_export.py).

Exit status: 0 no errors, 1 errors found, 2 bad usage (missing path, unknown ruleset, unreadable
or unsafe archive).
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
from pathlib import Path
from typing import NoReturn, TextIO

from mlperf_check.forks import usable_cpus
from mlperf_check.inference.detect import looks_like_inference
from mlperf_check.output import (
    FORMATS,
    format_github,
    format_text,
    github_annotation,
    to_json,
    unreadable_document,
)
from mlperf_check.pipeline import PackageError, check_package, check_round, submitter_folders
from mlperf_check.report import ERROR, Finding, PackageReport
from mlperf_check.rules.catalog import UnknownRuleset, get_ruleset

USAGE_ERROR = 2
SUMMARY_FORMATS = ("summary-json", "summary-csv")  # inference only: MLCommons' summary_results shape


DESCRIPTION = (
    "Check an MLPerf training or HPC submitter folder (or a .tar/.tar.gz/.tar.xz/.zip of one, or a round "
    "folder of them) offline. `mlperf-check submit --help` uploads one to a results server."
)


def positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", help="submitter folder, archive of one, or round folder of submitter folders")
    parser.add_argument("--ruleset", help="ruleset, e.g. 1.0.0 (training) or hpc-1.0.0 (HPC) (default: from the logs)")
    parser.add_argument("--format", choices=(*FORMATS, *SUMMARY_FORMATS), default="text", help="output format (default: text)")
    parser.add_argument(
        "--json", dest="format", action="store_const", const="json", help="the same as --format json"
    )
    parser.add_argument(
        "--jobs",
        type=positive_int,
        default=usable_cpus(),
        help="processes that parse result files (default: one per CPU this process may use)",
    )
    parser.add_argument(
        "--waivers",
        type=Path,
        help="a results server's waivers export for this version: its waived findings count nowhere",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mlperf-check", description=DESCRIPTION)
    add_arguments(parser)
    return parser


def main(argv: list[str] | None = None, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    stdout, stderr = stdout or sys.stdout, stderr or sys.stderr
    if argv[:1] == ["submit"]:  # a folder literally named "submit" is checked as ./submit
        from mlperf_check import submit

        return submit.main(argv[1:], stdout=stdout, stderr=stderr)
    args = build_parser().parse_args(argv)  # exits with 2 on bad usage
    return run(
        args.path,
        ruleset=args.ruleset,
        output_format=args.format,
        jobs=args.jobs,
        waivers_file=args.waivers,
        stdout=stdout,
        stderr=stderr,
    )


def console() -> NoReturn:
    """The process entry (`mlperf-check`, `python -m mlperf_check`): main(), then, once the
    output is flushed, exit without the interpreter's teardown, which frees every module and
    object one by one (~10 ms of a small check, more after a round). Nothing is left to close:
    the pool and any extracted archive are closed by main() itself."""
    gc.enable()
    gc.freeze()  # what the imports built stays: later collections need not walk it
    code = main()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def run(
    path: str,
    *,
    ruleset: str | None,
    output_format: str = "text",
    jobs: int = 1,
    waivers_file: Path | None = None,
    stdout: TextIO,
    stderr: TextIO,
) -> int:
    waivers = []
    if waivers_file is not None:
        # Imported only here: most checks have no waivers file.
        from mlperf_check.waivers import WaiversError, load_waivers

        try:
            waivers = load_waivers(waivers_file)  # refused before any file is read
        except WaiversError as exc:
            stderr.write(f"mlperf-check: {exc}\n")
            return USAGE_ERROR
    if os.path.exists(path) and looks_like_inference(Path(path)):  # an inference folder, round or archive
        if waivers_file is not None:
            stderr.write("mlperf-check: --waivers is for training and HPC packages\n")
            return USAGE_ERROR
        # Imported only here: a training check does not need the inference pipeline.
        from mlperf_check.inference import cli as inference_cli

        return inference_cli.run(
            path, round_version=ruleset, output_format=output_format, stdout=stdout, stderr=stderr
        )
    if output_format in SUMMARY_FORMATS:
        stderr.write(f"mlperf-check: --format {output_format} is for inference results; {path} holds none\n")
        return USAGE_ERROR
    if ruleset:
        try:
            get_ruleset(ruleset)  # refused before any file is read
        except UnknownRuleset as exc:
            stderr.write(f"mlperf-check: {exc}\n")
            return USAGE_ERROR
    package_path = Path(path)
    folders = submitter_folders(package_path) if package_path.is_dir() else []
    if folders and waivers_file is not None:
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
