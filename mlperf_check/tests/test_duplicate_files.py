"""DuplicateFilesChecker: identical result files across the runs of a package."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

from mlperf_check.checkers.base import PackageContext
from mlperf_check.checkers.duplicate_files import DuplicateFilesChecker, digests_of_possible_copies
from mlperf_check.package import discover_package
from mlperf_check.pipeline import check_folder
from mlperf_check.report import BenchmarkResult, PackageReport, RunLog
from mlperf_check.rules.catalog import get_ruleset

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data"


def run(file: str, content: bytes) -> RunLog:
    return RunLog(
        file=file, sha256=hashlib.sha256(content).hexdigest() if content else "", size_bytes=len(content)
    )


def check(folders: dict[str, list[RunLog]]):
    results = [
        BenchmarkResult(folder.split("/")[1], folder.split("/")[2], folder, "closed", runs=runs)
        for folder, runs in folders.items()
    ]
    report = PackageReport(root="/tmp/x", ruleset="1.0.0", submitter="Org", results=results)
    return DuplicateFilesChecker().run(
        PackageContext(package=None, ruleset=get_ruleset("1.0.0"), report=report)
    )


def test_it_accepts_distinct_runs():
    assert (
        check(
            {"results/s/resnet": [run(f"results/s/resnet/result_{n}.txt", b"run %d" % n) for n in range(5)]}
        )
        == []
    )


def test_it_reports_copies_within_a_folder_naming_the_first_file():
    folder = "results/s/dlrm"
    runs = [
        run(f"{folder}/result_{n}.txt", b"same" if n in (0, 2, 10) else b"run %d" % n) for n in (10, 0, 1, 2)
    ]
    findings = check({folder: runs})
    assert [(f.severity, f.code, f.file, f.actual) for f in findings] == [
        ("error", "DUPLICATE_RESULT_FILE", f"{folder}/result_2.txt", f"copy of {folder}/result_0.txt"),
        ("error", "DUPLICATE_RESULT_FILE", f"{folder}/result_10.txt", f"copy of {folder}/result_0.txt"),
    ]
    assert findings[0].message.startswith(
        f"{folder}/result_2.txt has the same content as {folder}/result_0.txt (sha256 "
    )
    assert "another result folder" not in findings[0].message
    assert findings[0].checker == "duplicate_files"


def test_it_reports_copies_across_folders_and_systems():
    findings = check(
        {
            "results/a/bert": [run("results/a/bert/result_0.txt", b"session")],
            "results/b/bert": [run("results/b/bert/result_0.txt", b"session")],
        }
    )
    [finding] = findings
    assert finding.file == "results/b/bert/result_0.txt" and "results/a/bert/result_0.txt" in finding.message
    assert "in another result folder" in finding.message


def test_without_the_parsers_digests_it_reads_the_files_of_equal_size(tmp_path):
    """The offline command's parser computes no SHA-256 (RunContext.digest); a copy has its
    original's size, so only files that share a size are read and compared."""
    folder = "results/s/dlrm"
    texts = [b"same", b"run one", b"same", b"the third run"]  # 0 and 2 alone share a size
    contents = {f"{folder}/result_{n}.txt": text for n, text in enumerate(texts)}
    for rel, content in contents.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_bytes(content)
    package, _ = discover_package(tmp_path)
    report = PackageReport(
        root=str(tmp_path),
        ruleset="1.0.0",
        submitter="Org",
        results=[
            BenchmarkResult(
                "s",
                "dlrm",
                folder,
                "closed",
                runs=[RunLog(file=rel, size_bytes=len(c)) for rel, c in contents.items()],
            )
        ],
    )
    findings = DuplicateFilesChecker().run(
        PackageContext(package=package, ruleset=get_ruleset("1.0.0"), report=report)
    )
    digested = check({folder: [run(rel, content) for rel, content in contents.items()]})
    assert [(f.code, f.file, f.message) for f in findings] == [(f.code, f.file, f.message) for f in digested]
    assert [f.file for f in findings] == [f"{folder}/result_2.txt"]
    assert digests_of_possible_copies(report.results[0].runs, package) == {
        f"{folder}/result_{n}.txt": hashlib.sha256(contents[f"{folder}/result_{n}.txt"]).hexdigest()
        for n in (0, 2)
    }


def test_the_offline_check_digests_only_result_files_that_share_a_size(tmp_path):
    folder = tmp_path / "Fujitsu"
    shutil.copytree(SAMPLE / "training-v1.0/Fujitsu", folder)
    ssd = next((folder / "results").glob("*/ssd"))
    shutil.copyfile(ssd / "result_1.txt", ssd / "result_3.txt")  # one session submitted twice
    with_digests = check_folder(folder)
    without = check_folder(folder, digests=False)
    assert [f for f in without.all_findings() if f.checker == "duplicate_files"] == [
        f for f in with_digests.all_findings() if f.checker == "duplicate_files"
    ] != []
    runs = {run.file.rpartition("/")[2]: run for result in without.results for run in result.runs}
    assert runs["result_1.txt"].sha256 == runs["result_3.txt"].sha256 != ""
    assert runs["result_2.txt"].sha256 == ""  # a size no other result file has: not digested


def test_it_ignores_empty_and_unread_files():
    folder = "results/s/ssd"
    assert check({folder: [run(f"{folder}/result_{n}.txt", b"") for n in range(3)]}) == []


@pytest.mark.corpus
def test_it_finds_the_copied_dlrm_runs_of_dell_v10(corpus):
    """v1.0 Dell DSS8440x8A100-PCIE-40GB/dlrm: result_2, 3 and 4 are byte-identical to result_0."""
    root = corpus / "v1.0/Dell"
    package, _ = discover_package(root)
    folders = {
        b.folder: [run(rel, (root / rel).read_bytes()) for rel in b.result_files]
        for b in package.benchmark_dirs
    }
    findings = check(folders)
    folder = "results/DSS8440x8A100-PCIE-40GB/dlrm"
    assert [(f.file, f.actual) for f in findings] == [
        (f"{folder}/result_{n}.txt", f"copy of {folder}/result_0.txt") for n in (2, 3, 4)
    ]
