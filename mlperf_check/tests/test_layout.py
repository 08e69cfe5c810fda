"""LayoutChecker: folders, system descriptions for result folders, benchmark names, stray files."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from mlperf_check.checkers.base import PackageContext
from mlperf_check.checkers.layout import LayoutChecker
from mlperf_check.finding_sources import checker_version
from mlperf_check.package import discover_package
from mlperf_check.report import BenchmarkResult, PackageReport, RunLog
from mlperf_check.rules.catalog import get_ruleset

SYSTEM = '{"division": "closed"}'


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content)
    return root


def check(root: Path, ruleset: str = "1.0.0", digested: bool = True) -> list:
    """The layout findings of a package whose scored runs carry their real sha256 (none when not
    `digested`: what the offline command's parser leaves, RunContext.digest)."""
    package, _ = discover_package(root)
    report = PackageReport(root=str(root), ruleset=ruleset, submitter=package.submitter)
    for bench_dir in package.benchmark_dirs:
        result = BenchmarkResult(bench_dir.system_id, bench_dir.benchmark, bench_dir.folder, "closed")
        for rel in bench_dir.result_files:
            data = (root / rel).read_bytes()
            result.runs.append(
                RunLog(
                    file=rel,
                    sha256=hashlib.sha256(data).hexdigest() if digested else "",
                    size_bytes=len(data),
                )
            )
        report.results.append(result)
    context = PackageContext(package=package, ruleset=get_ruleset(ruleset), report=report)
    return LayoutChecker().run(context)


def found(findings, *, skip_unused: bool = True) -> list[tuple[str, str, str]]:
    return [
        (f.severity, f.code, f.file)
        for f in findings
        if not (skip_unused and f.code == "LAYOUT_SYSTEM_UNUSED")
    ]


def runs(system: str, benchmark: str, count: int) -> dict[str, str]:
    return {
        f"results/{system}/{benchmark}/result_{n}.txt": f"{system} {benchmark} run {n}" for n in range(count)
    }


def test_it_accepts_a_clean_package_with_the_files_the_official_checker_knows(tmp_path):
    root = write(
        tmp_path / "Org",
        {
            "systems/s1.json": SYSTEM,
            "submission.json": "{}",
            "package_checker_params": "",
            "results/s1/package_checker_params": "",
            "results/s1/privateid.json": "{}",
            "results/s1/resnet/package_checker_params": "rcp-bypass",
            "results/s1/resnet/scaling.json": "{}",
            "results/s1/resnet/power/result_0/node_0.txt": "",
            "results/s1/resnet/power/result_0/sw_0.txt": "",
            **runs("s1", "resnet", 5),
        },
    )
    assert check(root) == []


def test_it_reports_missing_folders(tmp_path):
    root = write(tmp_path / "Org", {"README.md": "hello"})
    findings = check(root)
    assert found(findings) == [
        ("error", "LAYOUT_MISSING_FOLDER", "results"),
        ("error", "LAYOUT_MISSING_FOLDER", "systems"),
        ("warning", "LAYOUT_UNKNOWN_FILE", "README.md"),
    ]
    assert {(f.checker, f.checker_version) for f in findings} == {("layout", checker_version("layout"))}


def test_it_accepts_v06_entry_json_descriptions_without_systems(tmp_path):
    root = write(
        tmp_path / "Alibaba",
        {"submission.json": "{}", "results/sinian/entry.json": "{}", **runs("sinian", "resnet", 5)},
    )
    assert check(root, "0.6.0") == []
    root = write(tmp_path / "Other", runs("sinian", "resnet", 5))
    assert found(check(root, "0.6.0")) == [
        ("error", "LAYOUT_MISSING_FOLDER", "systems"),
        ("error", "LAYOUT_SYSTEM_MISSING", "results/sinian"),
    ]


def test_it_requires_a_description_for_every_result_folder_and_notes_unused_ones(tmp_path):
    root = write(
        tmp_path / "Alibaba",
        {"systems/n126_pai_eflops.json": SYSTEM, **runs("v100-256", "resnet", 5)},
    )
    findings = check(root)
    assert found(findings, skip_unused=False) == [
        ("error", "LAYOUT_SYSTEM_MISSING", "results/v100-256"),
        ("info", "LAYOUT_SYSTEM_UNUSED", "systems/n126_pai_eflops.json"),
    ]
    assert (
        findings[0].message == "results/v100-256/ has no system description: expected systems/v100-256.json"
    )


def test_it_warns_about_benchmarks_the_round_does_not_know(tmp_path):
    root = write(
        tmp_path / "Org",
        {"systems/s.json": SYSTEM, **runs("s", "ResNet", 1), **runs("s", "gnmt", 1), **runs("s", "bert", 1)},
    )
    findings = check(root, "1.0.0")
    assert found(findings) == [
        ("warning", "LAYOUT_UNKNOWN_BENCHMARK", "results/s/ResNet"),
        ("warning", "LAYOUT_UNKNOWN_BENCHMARK", "results/s/gnmt"),
    ]
    assert "did you mean 'resnet'?" in findings[0].message
    assert "not a benchmark of training 1.0.0" in findings[1].message
    assert check(root.parent / "Org", "0.7.0")[0].file == "results/s/ResNet"  # gnmt is a 0.7 benchmark


def test_it_notes_the_mask_alias_and_warns_when_both_folders_exist(tmp_path):
    root = write(
        tmp_path / "Google",
        {
            "systems/a.json": SYSTEM,
            "systems/b.json": SYSTEM,
            **runs("a", "mask", 5),
            **runs("b", "mask", 5),
            **runs("b", "maskrcnn", 5),
        },
    )
    findings = check(root, "0.6.0")
    assert found(findings) == [
        ("info", "LAYOUT_BENCHMARK_ALIAS", "results/a/mask"),
        ("warning", "LAYOUT_UNKNOWN_BENCHMARK", "results/b/mask"),
    ]
    assert "'mask' stands for 'maskrcnn', which has its own folder too" in findings[1].message


def test_it_reports_result_files_outside_benchmark_folders(tmp_path):
    root = write(
        tmp_path / "Alibaba",
        {"systems/v100-256.json": SYSTEM, "results/v100-256/result_1.txt": "run", "result_2.txt": "run"},
    )
    findings = check(root)
    assert found(findings) == [
        ("error", "LAYOUT_MISPLACED_RESULT", "result_2.txt"),
        ("error", "LAYOUT_MISPLACED_RESULT", "results/v100-256/result_1.txt"),
    ]
    assert findings[1].expected == "results/<system>/<benchmark>/result_<N>.txt"


def test_it_explains_nested_results_that_copy_scored_runs(tmp_path):
    bert = runs("SYS", "bert", 10)
    nested = {rel.replace("/bert/", "/resnet/bert/"): content for rel, content in bert.items()}
    root = write(
        tmp_path / "Habana", {"systems/SYS.json": SYSTEM, **bert, **runs("SYS", "resnet", 5), **nested}
    )
    [finding] = check(root)
    assert (finding.severity, finding.code, finding.file) == (
        "warning",
        "LAYOUT_NESTED_RESULTS",
        "results/SYS/resnet/bert",
    )
    assert finding.message.endswith("all are byte-identical copies of scored runs in results/SYS/bert/")
    assert "holds 10 result file(s)" in finding.message
    assert check(root, digested=False) == [finding]  # the runs' digests read from their files


def test_it_says_when_nested_results_are_not_copies(tmp_path):
    root = write(
        tmp_path / "Org",
        {
            "systems/S.json": SYSTEM,
            **runs("S", "resnet", 5),
            "results/S/resnet/extra/result_0.txt": "a run nobody scores",
            "results/S/resnet/extra/result_1.txt": "S resnet run 1",
        },
    )
    [finding] = check(root)
    assert finding.code == "LAYOUT_NESTED_RESULTS"
    assert finding.message.endswith("byte-identical copies of scored runs: 1 of 2")
    assert check(root, digested=False) == [finding]


def test_it_warns_about_unknown_files_and_odd_result_names(tmp_path):
    root = write(
        tmp_path / "Intel",
        {
            "systems/s.json": SYSTEM,
            "systems/README.md": "",
            "results/README.md": "",
            "results/s/resnet/raw_logs/rank0-1stRun": "",
            "results/s/resnet/result_1.log": "",
            "results/s/dlrm/result_1_1n4r_32k_1592751389.txt": "run",
            **runs("s", "resnet", 5),
        },
    )
    findings = check(root)
    assert found(findings) == [
        ("warning", "LAYOUT_RESULT_NAME", "results/s/dlrm/result_1_1n4r_32k_1592751389.txt"),
        ("warning", "LAYOUT_UNKNOWN_FILE", "results/s/resnet/raw_logs/rank0-1stRun"),
        ("warning", "LAYOUT_UNKNOWN_FILE", "results/s/resnet/result_1.log"),
        ("warning", "LAYOUT_UNKNOWN_FILE", "results/README.md"),
        ("warning", "LAYOUT_UNKNOWN_FILE", "systems/README.md"),
    ]
    assert findings[0].actual == "result_1_1n4r_32k_1592751389.txt"


def test_it_notes_names_with_spaces_once_at_their_highest_level(tmp_path):
    root = write(tmp_path / "nettrix", {"systems/X660 G45.json": SYSTEM, **runs("X660 G45", "bert", 10)})
    assert found(check(root)) == [
        ("info", "LAYOUT_NAME_SPACES", "results/X660 G45"),
        ("info", "LAYOUT_NAME_SPACES", "systems/X660 G45.json"),
    ]


def test_it_leaves_symlinks_to_discovery(tmp_path):
    root = write(tmp_path / "Org", {"systems/s.json": SYSTEM, **runs("s", "resnet", 5)})
    (root / "results/s/resnet/result_9.txt").symlink_to("/etc/hostname")
    _, discovered = discover_package(root)
    assert [f.code for f in discovered] == ["LAYOUT_SYMLINK"]
    assert check(root) == []


def test_it_checks_the_v05_layout(tmp_path):
    root = write(
        tmp_path / "intel",
        {
            "intel_resnet/submission.json": "{}",
            "intel_resnet/results/skx/entry.json": "{}",
            "intel_resnet/results/skx/resnet/result_1.txt": "run",
            "intel_ncf/results/skx8180/ncf/result_1.txt": "run",
            "intel_ncf/results/notes.txt": "",
        },
    )
    assert found(check(root, "0.5.0")) == [
        ("warning", "LAYOUT_MISSING_FILE", "intel_ncf/submission.json"),
        ("error", "LAYOUT_SYSTEM_MISSING", "intel_ncf/results/skx8180"),
        ("warning", "LAYOUT_UNKNOWN_FILE", "intel_ncf/results/notes.txt"),
    ]


# -- the corpus -----------------------------------------------------------------------------------


@pytest.mark.corpus
def test_it_reports_alibaba_v07(corpus):
    findings = check(corpus / "v0.7/Alibaba", "0.7.0")
    counts: dict[str, int] = {}
    for finding in findings:
        counts[finding.code] = counts.get(finding.code, 0) + 1
    assert counts == {
        "LAYOUT_SYSTEM_MISSING": 4,
        "LAYOUT_MISPLACED_RESULT": 15,
        "LAYOUT_UNKNOWN_FILE": 6,  # five CRLF *.log files and results/README.md
        "LAYOUT_SYSTEM_UNUSED": 6,
    }


@pytest.mark.corpus
def test_it_reports_the_other_corpus_irregularities(corpus):
    [habana] = check(corpus / "v1.0/Habana")
    assert (
        habana.code == "LAYOUT_NESTED_RESULTS"
        and "copies of scored runs in results/SYS-420GH-TNGR/bert/" in habana.message
    )
    intel = found(check(corpus / "v0.7/Intel", "0.7.0"))
    assert [f for f in intel if f[1] == "LAYOUT_RESULT_NAME"] == [
        ("warning", "LAYOUT_RESULT_NAME", f"results/1-node-4s-cpx-pytorch/dlrm/{name}")
        for name in (
            "result_1_1n4r_32k_1592751389.txt",
            "result_2_1n4r_32k_1592758721.txt",
            "result_3_1n4r_32k_1592766119.txt",
            "result_4_1n4r_32k_1592773475.txt",
            "result_5_1n4r_32k_1592780836.txt",
        )
    ]
    assert len([f for f in intel if f[1] == "LAYOUT_UNKNOWN_FILE"]) == 5  # raw_logs/
    nettrix = found(check(corpus / "v1.0/nettrix"))
    assert ("info", "LAYOUT_NAME_SPACES", "results/X660 G45_SXM4-80G-BPS_pytorch") in nettrix
    assert {f[1] for f in nettrix} == {"LAYOUT_NAME_SPACES"}
    assert found(check(corpus / "v1.0/Supermicro")) == [
        ("warning", "LAYOUT_UNKNOWN_FILE", "results/as-2124gq-checker-log.txt")
    ]
    assert found(check(corpus / "v0.7/NVIDIA", "0.7.0")) == [
        ("warning", "LAYOUT_UNKNOWN_FILE", "systems/README.md")
    ]
    assert found(check(corpus / "v0.6/Alibaba", "0.6.0")) == []
    assert len(found(check(corpus / "v0.6/Google", "0.6.0"))) == 3  # the mask folders, as maskrcnn
    assert found(check(corpus / "v0.5/google", "0.5.0")) == []
