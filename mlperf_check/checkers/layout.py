"""Where the files of a package are: the folders the layout expects, a description for every
system with results, known benchmark folder names, and files in unexpected places.

discover_package() reports what it refused to read (symlinks, special files, unreadable folders,
non-UTF-8 names: LAYOUT_SYMLINK, LAYOUT_SPECIAL_FILE, LAYOUT_UNREADABLE, LAYOUT_NAME_ENCODING),
because those never reach the Package. Everything judged from the Package is reported here, once.

Result files nested below a benchmark folder are not scored (the official glob is not
recursive). When they are byte-identical copies of scored runs, as Habana's v1.0 copy of its bert
results inside the resnet folder, the LAYOUT_NESTED_RESULTS message says so; the duplicate_files
checker only compares scored runs, so the copy is reported here and only here.
"""

from __future__ import annotations

import re
from collections import defaultdict

from mlperf_check.checkers.base import ERROR, INFO, WARNING, Finding, PackageChecker, PackageContext
from mlperf_check.package import (
    BENCHMARK_ALIASES,
    CODE_FOLDERS,
    HPC,
    LAYOUT_CHECKER,
    STANDARD,
    V05,
    V05_SUBMISSION_FILE,
    BenchmarkDir,
    Package,
    is_result_file_name,
    natural_key,
    natural_sorted,
)

STANDARD_RESULT_NAME = re.compile(r"result_[0-9]+\.txt")
# Files a benchmark folder may hold besides its results (official package checker,
# docs/official-tools.md §d). Their content is judged by the shipped_factors checker: reported,
# never obeyed.
BENCHMARK_FOLDER_FILES = frozenset({"package_checker_params", "scaling.json"})
POWER_FILE = re.compile(r"power/result_[^/]+/(node|sw)_[^/]+")
# What str.isspace() calls white space (re's \s for str patterns is the same test, in C).
WHITE_SPACE = re.compile(r"\s")


class LayoutChecker(PackageChecker):
    name = LAYOUT_CHECKER
    description = "Folders, system descriptions for result folders, benchmark names and stray files."

    def run(self, context: PackageContext) -> list[Finding]:
        package = context.package
        findings = self._missing_folders(package)
        findings += self._systems(package)
        benchmarks = context.ruleset.benchmarks
        for bench_dir in package.benchmark_dirs:
            findings += self._benchmark_name(bench_dir, benchmarks, context.ruleset.label)
            findings += self._result_names(bench_dir)
            findings += self._other_files(bench_dir, package, context)
        findings += self._stray_files(package)
        findings += self._names_with_spaces(package)
        return findings

    # -- folders and system descriptions ------------------------------------------------------------

    def _missing_folders(self, package: Package) -> list[Finding]:
        if package.layout == V05:
            return self._v05_submission_files(package)
        findings = []
        if "results" not in package.folders:
            findings.append(
                self.finding(
                    ERROR,
                    "LAYOUT_MISSING_FOLDER",
                    "the package has no results/ folder: expected results/<system>/<benchmark>/result_*.txt "
                    "(or, for v0.5, <entry>/results/<platform>/<benchmark>/result_*.txt)",
                    file="results",
                    expected="results/",
                )
            )
        # v0.6 packages may describe every system by results/<system>/entry.json instead.
        all_described = bool(package.result_folders) and set(package.result_folders) <= set(
            package.system_files
        )
        if "systems" not in package.folders and not all_described:
            findings.append(
                self.finding(
                    ERROR,
                    "LAYOUT_MISSING_FOLDER",
                    "the package has no systems/ folder: expected systems/<system>.json for every "
                    "results/<system>/ folder",
                    file="systems",
                    expected="systems/",
                )
            )
        return findings

    def _v05_submission_files(self, package: Package) -> list[Finding]:
        entries = sorted(
            {folder.split("/results/")[0] for folder in package.result_folders.values()}, key=natural_key
        )
        files = set(package.files)
        return [
            self.finding(
                WARNING,
                "LAYOUT_MISSING_FILE",
                f"the v0.5 entry {entry}/ has no {V05_SUBMISSION_FILE} (it names the organisation)",
                file=f"{entry}/{V05_SUBMISSION_FILE}",
                expected=V05_SUBMISSION_FILE,
            )
            for entry in entries
            if f"{entry}/{V05_SUBMISSION_FILE}" not in files
        ]

    def _systems(self, package: Package) -> list[Finding]:
        findings = []
        for system_id, folder in package.result_folders.items():
            if system_id in package.system_files:
                continue
            expected = f"{folder}/entry.json" if package.layout == V05 else f"systems/{system_id}.json"
            findings.append(
                self.finding(
                    ERROR,
                    "LAYOUT_SYSTEM_MISSING",
                    f"{folder}/ has no system description: expected {expected}",
                    file=folder,
                    expected=expected,
                )
            )
        for system_id, rel in package.system_files.items():
            if system_id not in package.result_folders:
                findings.append(
                    self.finding(
                        INFO,
                        "LAYOUT_SYSTEM_UNUSED",
                        f"{rel} describes a system with no results in this package",
                        file=rel,
                    )
                )
        return findings

    # -- benchmark folders ----------------------------------------------------------------------------

    def _benchmark_name(self, bench_dir: BenchmarkDir, benchmarks: dict, version: str) -> list[Finding]:
        folder_name = bench_dir.folder.rpartition("/")[2]
        if bench_dir.benchmark in benchmarks:
            if folder_name == bench_dir.benchmark:
                return []
            return [
                self.finding(
                    INFO,
                    "LAYOUT_BENCHMARK_ALIAS",
                    f"{bench_dir.folder}/ is read as the {bench_dir.benchmark} results, as the official "
                    f"summarizer reads a folder named {folder_name!r}",
                    file=bench_dir.folder,
                    expected=bench_dir.benchmark,
                    actual=folder_name,
                )
            ]
        known = sorted(benchmarks)
        hint = next((f"; did you mean {name!r}?" for name in known if name == folder_name.lower()), "")
        if not hint and folder_name in BENCHMARK_ALIASES:
            hint = f"; {folder_name!r} stands for {BENCHMARK_ALIASES[folder_name]!r}, which has its own folder too"
        return [
            self.finding(
                WARNING,
                "LAYOUT_UNKNOWN_BENCHMARK",
                f"{bench_dir.folder}/ is not a benchmark of {version} (expected one of "
                f"{', '.join(known)}){hint}; its results are not checked or scored, as the official "
                "package checker skips such folders",
                file=bench_dir.folder,
                expected=", ".join(known),
                actual=folder_name,
            )
        ]

    def _result_names(self, bench_dir: BenchmarkDir) -> list[Finding]:
        findings = []
        for rel in bench_dir.result_files:
            name = rel.rpartition("/")[2]
            if not STANDARD_RESULT_NAME.fullmatch(name):
                findings.append(
                    self.finding(
                        WARNING,
                        "LAYOUT_RESULT_NAME",
                        f"{rel}: result files are named result_<N>.txt; {name!r} matches the official "
                        "glob result_*.txt and is checked, but the run number cannot be read from it",
                        file=rel,
                        expected="result_<N>.txt",
                        actual=name,
                    )
                )
        return findings

    def _other_files(
        self, bench_dir: BenchmarkDir, package: Package, context: PackageContext
    ) -> list[Finding]:
        findings = []
        nested: dict[str, list[str]] = defaultdict(list)  # subfolder -> result files in it
        prefix = bench_dir.folder + "/"
        for rel in bench_dir.other_files:
            inside = rel[len(prefix) :]
            name = inside.rpartition("/")[2]
            if inside in BENCHMARK_FOLDER_FILES or POWER_FILE.fullmatch(inside):
                continue
            if "/" in inside and is_result_file_name(name):
                nested[rel.rpartition("/")[0]].append(rel)
            else:
                findings.append(self._unknown_file(rel, f"{bench_dir.folder}/ holds only result_*.txt files"))
        for subfolder in sorted(nested, key=natural_key):
            findings.append(self._nested_results(subfolder, nested[subfolder], package, context))
        return findings

    def _nested_results(
        self, subfolder: str, files: list[str], package: Package, context: PackageContext
    ) -> Finding:
        # Only a scored run of the size of a nested file can be its copy. Its digest is read from
        # its file here where the parser left it out (RunContext.digest): a few files, not the package.
        sizes = set()
        for rel in files:
            try:
                sizes.add(package.size_of(rel))
            except OSError:
                continue  # unreadable: not a copy of anything (sha256_of gives "")
        scored = {
            digest: run.file
            for result in context.report.results
            for run in result.runs
            if run.size_bytes in sizes and (digest := run.sha256 or package.sha256_of(run.file))
        }
        copies = {}
        for rel in files:
            digest = package.sha256_of(rel)
            if digest in scored:
                copies[rel] = scored[digest]
        if len(copies) == len(files):
            originals = sorted({original.rpartition("/")[0] for original in copies.values()}, key=natural_key)
            explanation = f"all are byte-identical copies of scored runs in {', '.join(originals)}/"
        elif copies:
            explanation = f"byte-identical copies of scored runs: {len(copies)} of {len(files)}"
        else:
            explanation = "none of them is a copy of a scored run, so these runs are not counted anywhere"
        return self.finding(
            WARNING,
            "LAYOUT_NESTED_RESULTS",
            f"{subfolder}/ holds {len(files)} result file(s) below a benchmark folder; they are not checked "
            f"or scored (the official glob is not recursive); {explanation}",
            file=subfolder,
            expected="results/<system>/<benchmark>/result_*.txt",
            actual=f"{subfolder}/",
        )

    # -- files elsewhere ------------------------------------------------------------------------------

    def _stray_files(self, package: Package) -> list[Finding]:
        findings = []
        for rel in package.stray_files:
            name = rel.rpartition("/")[2]
            if is_result_file_name(name):
                findings.append(
                    self.finding(
                        ERROR,
                        "LAYOUT_MISPLACED_RESULT",
                        f"{rel} is not directly inside a benchmark folder, so it is not checked or scored: "
                        f"expected {_expected_result_place(package)}",
                        file=rel,
                        expected=_expected_result_place(package),
                        actual=rel,
                    )
                )
            else:
                findings.append(self._unknown_file(rel, _expected_files(package)))
        return findings

    def _unknown_file(self, rel: str, expected: str) -> Finding:
        return self.finding(
            WARNING,
            "LAYOUT_UNKNOWN_FILE",
            f"{rel} is not a file the package layout expects ({expected}); it is ignored",
            file=rel,
            expected=expected,
        )

    def _names_with_spaces(self, package: Package) -> list[Finding]:
        """One note per file or folder name with white space, at the highest level it occurs."""
        noted: set[str] = set()
        findings = []
        spaced = [rel for rel in (*package.folders, *package.files) if WHITE_SPACE.search(rel)]
        for rel in natural_sorted(spaced):
            parts = rel.split("/")
            for depth, part in enumerate(parts, start=1):
                if WHITE_SPACE.search(part):
                    path = "/".join(parts[:depth])
                    if path not in noted:
                        noted.add(path)
                        findings.append(
                            self.finding(
                                INFO,
                                "LAYOUT_NAME_SPACES",
                                f"the name {part!r} in {path} contains white space; it is read as written, "
                                "but scripts that split paths on spaces will break",
                                file=path,
                            )
                        )
                    break
        return findings


def _expected_result_place(package: Package) -> str:
    if package.layout == V05:
        return "<entry>/results/<platform>/<benchmark>/result_<N>.txt"
    if package.layout == HPC:
        return "results/<system>/{strong,weak}/<benchmark>/result_<N>.txt"
    return "results/<system>/<benchmark>/result_<N>.txt"


def _expected_files(package: Package) -> str:
    if package.layout in (STANDARD, HPC):
        return (
            f"systems/<system>.json, {_expected_result_place(package)}, submission.json, "
            f"package_checker_params, {CODE_FOLDERS[STANDARD]}/"
        )
    return "<entry>/submission.json, <entry>/results/<platform>/entry.json and <benchmark>/result_<N>.txt"
