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

Which suite checks PATH is the registry's answer (mlperf_check/suites/: the first suite that
recognizes it, training the last); this module parses the options and hands the path to that
suite's command (mlperf_check/training_cli.py, mlperf_check/inference/cli.py).

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
from mlperf_check.suites import SUITES, suite_for

USAGE_ERROR = 2


def _labels(suites, conjunction: str = "and") -> str:
    """'HPC and training', 'inference': the suites a message names."""
    labels = [suite.label for suite in suites]
    return f" {conjunction} ".join(filter(None, [", ".join(labels[:-1]), labels[-1]]))


DESCRIPTION = (
    f"Check an MLPerf {_labels(SUITES.values(), 'or')} submitter folder (or a .tar/.tar.gz/.tar.xz/.zip of "
    "one, or a round folder of them) offline. `mlperf-check submit --help` uploads one to a results server."
)


def positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def output_formats() -> tuple[str, ...]:
    """Every suite's `--format` values, in registry order."""
    return tuple(dict.fromkeys(name for suite in SUITES.values() for name in suite.output_formats))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", help="submitter folder, archive of one, or round folder of submitter folders")
    parser.add_argument("--ruleset", help="ruleset, e.g. 1.0.0 (training) or hpc-1.0.0 (HPC) (default: from the logs)")
    parser.add_argument("--format", choices=output_formats(), default="text", help="output format (default: text)")
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
    waivers = None
    if waivers_file is not None:
        # Imported only here: most checks have no waivers file.
        from mlperf_check.waivers import WaiversError, load_waivers

        try:
            waivers = load_waivers(waivers_file)  # refused before any file is read
        except WaiversError as exc:
            stderr.write(f"mlperf-check: {exc}\n")
            return USAGE_ERROR
    suite = suite_for(Path(path))
    if waivers is not None and not suite.takes_waivers:
        takers = _labels(suite for suite in SUITES.values() if suite.takes_waivers)
        stderr.write(f"mlperf-check: --waivers is for {takers} packages\n")
        return USAGE_ERROR
    if output_format not in suite.output_formats:
        printers = _labels(suite for suite in SUITES.values() if output_format in suite.output_formats)
        stderr.write(f"mlperf-check: --format {output_format} is for {printers} results; {path} holds none\n")
        return USAGE_ERROR
    return suite.run_command(
        path,
        ruleset=ruleset,
        output_format=output_format,
        jobs=jobs,
        waivers=waivers,
        stdout=stdout,
        stderr=stderr,
    )
