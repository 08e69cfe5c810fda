"""Result files with identical content: one training session submitted as several runs.

The official tools never compare run files (docs/official-tools.md §h item 12), so a copied log passes them and
counts twice in the olympic mean. Runs are compared by RunLog.sha256 within a folder and across
the folders of the package; every later copy is reported, naming the first file with that content.
Copies nested below a benchmark folder are not runs; the layout checker reports them.
"""

from __future__ import annotations

from mlperf_check.checkers.base import ERROR, Finding, PackageChecker, PackageContext
from mlperf_check.package import natural_key


class DuplicateFilesChecker(PackageChecker):
    name = "duplicate_files"
    description = "No two result files of the package have the same content."

    def run(self, context: PackageContext) -> list[Finding]:
        first_file: dict[str, str] = {}  # sha256 -> the first run file with that content
        findings = []
        runs = [run for result in context.report.results for run in result.runs]
        for run in sorted(runs, key=lambda run: natural_key(run.file)):
            # An empty or unread file has no content to compare; the parser reports it.
            if not run.sha256 or run.size_bytes == 0:
                continue
            original = first_file.setdefault(run.sha256, run.file)
            if original == run.file:
                continue
            same_folder = original.rpartition("/")[0] == run.file.rpartition("/")[0]
            findings.append(
                self.finding(
                    ERROR,
                    "DUPLICATE_RESULT_FILE",
                    f"{run.file} has the same content as {original} (sha256 {run.sha256[:12]}…)"
                    + ("" if same_folder else ", in another result folder")
                    + "; every run must be its own training session",
                    file=run.file,
                    expected="a distinct log per run",
                    actual=f"copy of {original}",
                )
            )
        return findings
