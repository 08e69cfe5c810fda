"""Result files with identical content: one training session submitted as several runs.

The official tools never compare run files (docs/official-tools.md §h item 12), so a copied log passes them and
counts twice in the olympic mean. Runs are compared by RunLog.sha256 within a folder and across
the folders of the package; every later copy is reported, naming the first file with that content.
Copies nested below a benchmark folder are not runs; the layout checker reports them.

MLPerf HPC: one session that is both a strong-scaling run and a model of a weak-scaling folder of
the same benchmark (Fujitsu's v1.0 open cosmoflow: 10 of the 81 weak-scaling models are the
strong-scaling runs) is a warning for review, not an error: each folder counts it once.
"""

from __future__ import annotations

from collections import Counter

from mlperf_check.checkers.base import ERROR, WARNING, Finding, PackageChecker, PackageContext
from mlperf_check.package import Package, natural_key
from mlperf_check.report import RunLog


class DuplicateFilesChecker(PackageChecker):
    name = "duplicate_files"
    description = "No two result files of the package have the same content."

    def run(self, context: PackageContext) -> list[Finding]:
        first_file: dict[str, str] = {}  # sha256 -> the first run file with that content
        findings = []
        runs = [run for result in context.report.results for run in result.runs]
        digest_of = digests_of_possible_copies(runs, context.package)
        # HPC: (scaling, benchmark) of each run's folder
        folder_of = {
            run.file: (result.scaling, result.benchmark)
            for result in context.report.results
            for run in result.runs
        }
        for run in sorted(runs, key=lambda run: natural_key(run.file)):
            # An empty or unread file has no content to compare; the parser reports it.
            digest = digest_of.get(run.file, "")
            if not digest:
                continue
            original = first_file.setdefault(digest, run.file)
            if original == run.file:
                continue
            same_folder = original.rpartition("/")[0] == run.file.rpartition("/")[0]
            (scaling, benchmark), (other_scaling, other_benchmark) = folder_of[run.file], folder_of[original]
            if scaling and other_scaling and scaling != other_scaling and benchmark == other_benchmark:
                findings.append(
                    self.finding(
                        WARNING,
                        "DUPLICATE_RESULT_FILE_ACROSS_SCALING",
                        f"{run.file} has the same content as {original} (sha256 {digest[:12]}…): one "
                        "training session is both a strong-scaling run and a weak-scaling model; each "
                        "folder counts it once, but a reviewer should confirm the rules allow it",
                        file=run.file,
                        expected="a distinct log per run",
                        actual=f"copy of {original}",
                    )
                )
                continue
            findings.append(
                self.finding(
                    ERROR,
                    "DUPLICATE_RESULT_FILE",
                    f"{run.file} has the same content as {original} (sha256 {digest[:12]}…)"
                    + ("" if same_folder else ", in another result folder")
                    + "; every run must be its own training session",
                    file=run.file,
                    expected="a distinct log per run",
                    actual=f"copy of {original}",
                )
            )
        return findings


def digests_of_possible_copies(runs: list[RunLog], package: Package) -> dict[str, str]:
    """The SHA-256 of every run that may have a copy: one that is not empty and shares its size
    with another run. The parser's where it computed one (RunContext.digest), else the file's."""
    sizes = Counter(run.size_bytes for run in runs)
    return {
        run.file: run.sha256 or package.sha256_of(run.file)
        for run in runs
        if run.size_bytes > 0 and sizes[run.size_bytes] > 1
    }
