"""discover_package(): one submitter folder in the standard and the v0.5 layouts."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mlperf_check.package import (
    STANDARD,
    V05,
    Package,
    discover_package,
    looks_like_submitter_folder,
    natural_sorted,
)
from mlperf_check.systems import load_system
from mlperf_check.tests.corpus import training_rounds

SYSTEM = '{"system_name": "sys1", "division": "closed"}'


def write(root: Path, files: dict[str, str | bytes]) -> Path:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)
    return root


def codes(findings) -> list[tuple[str, str]]:
    return [(f.code, f.file) for f in findings]


def test_it_discovers_the_standard_layout_in_natural_order(tmp_path):
    root = write(
        tmp_path / "Org",
        {
            "systems/sys1.json": SYSTEM,
            "systems/sys2.json": SYSTEM,
            "submission.json": "{}",
            **{f"results/sys1/resnet/result_{n}.txt": f"run {n}" for n in (10, 2, 1)},
            "results/sys1/resnet/raw/rank0.log": "raw",
            "results/sys1/resnet/notes.txt": "notes",
            "results/sys1/package_checker_params": "rcp-bypass",
            "results/README.md": "times",
        },
    )
    package, findings = discover_package(root)
    assert findings == []
    assert (package.layout, package.submitter, package.root) == (STANDARD, "Org", root)
    assert package.system_files == {"sys1": "systems/sys1.json", "sys2": "systems/sys2.json"}
    assert package.result_folders == {"sys1": "results/sys1"}
    [bench_dir] = package.benchmark_dirs
    assert (bench_dir.system_id, bench_dir.benchmark, bench_dir.folder) == (
        "sys1",
        "resnet",
        "results/sys1/resnet",
    )
    assert bench_dir.result_files == [f"results/sys1/resnet/result_{n}.txt" for n in (1, 2, 10)]
    assert bench_dir.other_files == ["results/sys1/resnet/notes.txt", "results/sys1/resnet/raw/rank0.log"]
    assert package.stray_files == ["results/README.md"]
    assert "results/sys1/package_checker_params" in package.files
    with package.open("results/sys1/resnet/result_10.txt") as stream:
        assert stream.read() == b"run 10"


def test_it_sorts_numbers_naturally_and_deterministically():
    assert natural_sorted(["result_10.txt", "result_2.txt", "result_01.txt", "result_1.txt"]) == [
        "result_01.txt",
        "result_1.txt",
        "result_2.txt",
        "result_10.txt",
    ]


def test_it_keeps_misplaced_and_nested_result_files_out_of_the_runs(tmp_path):
    root = write(
        tmp_path / "Alibaba",
        {
            "systems/n1.json": SYSTEM,
            "results/v100-256/result_1.txt": "outside a benchmark folder",
            "results/a100-8/resnet/2007_1.log": "crlf\r\n",
            "results/SYS/resnet/result_0.txt": "run",
            "results/SYS/resnet/bert/result_0.txt": "nested copy",
        },
    )
    package, _ = discover_package(root)
    by_folder = {b.folder: b for b in package.benchmark_dirs}
    assert by_folder["results/a100-8/resnet"].result_files == []
    assert by_folder["results/a100-8/resnet"].other_files == ["results/a100-8/resnet/2007_1.log"]
    assert by_folder["results/SYS/resnet"].result_files == ["results/SYS/resnet/result_0.txt"]
    assert by_folder["results/SYS/resnet"].other_files == ["results/SYS/resnet/bert/result_0.txt"]
    assert package.stray_files == ["results/v100-256/result_1.txt"]
    assert set(package.result_folders) == {"v100-256", "a100-8", "SYS"}


def test_it_takes_v06_entry_json_when_systems_has_no_description(tmp_path):
    root = write(
        tmp_path / "Org",
        {
            "results/sinian/entry.json": "{}",
            "results/sinian/resnet/result_1.txt": "run",
            "results/both/entry.json": "{}",
            "results/both/resnet/result_1.txt": "run",
            "systems/both.json": SYSTEM,
        },
    )
    package, _ = discover_package(root)
    assert package.system_files == {"both": "systems/both.json", "sinian": "results/sinian/entry.json"}
    assert package.stray_files == ["results/both/entry.json"]


def test_it_reads_the_mask_folder_as_maskrcnn_unless_both_exist(tmp_path):
    root = write(
        tmp_path / "Google",
        {
            "results/a/mask/result_1.txt": "run",
            "results/b/mask/result_1.txt": "run",
            "results/b/maskrcnn/result_1.txt": "run",
        },
    )
    package, _ = discover_package(root)
    assert [(b.folder, b.benchmark) for b in package.benchmark_dirs] == [
        ("results/a/mask", "maskrcnn"),
        ("results/b/mask", "mask"),
        ("results/b/maskrcnn", "maskrcnn"),
    ]


def test_it_discovers_the_v05_layout_with_grouped_entries(tmp_path):
    root = write(
        tmp_path / "google",
        {
            "cloud_v100x8/submission.json": '{"org": "Google"}',
            "cloud_v100x8/results/8xV100/entry.json": "{}",
            **{f"cloud_v100x8/results/8xV100/resnet/result_{n}.txt": "run" for n in range(5)},
            "cloud_v3.8/gnmt-tpuv3-8/submission.json": "{}",
            "cloud_v3.8/gnmt-tpuv3-8/results/tpu/entry.json": "{}",
            "cloud_v3.8/gnmt-tpuv3-8/results/tpu/gnmt/result_0.txt": "run",
            "cloud_v3.8/gnmt-tpuv3-8/code/gnmt/train.py": "never read",
            "cloud_v3.8/gnmt-tpuv3-8/results/tpu/notes.txt": "stray",
            "README.md": "stray",
        },
    )
    package, findings = discover_package(root)
    assert findings == []
    assert package.layout == V05
    assert package.system_files == {
        "cloud_v3.8--gnmt-tpuv3-8--tpu": "cloud_v3.8/gnmt-tpuv3-8/results/tpu/entry.json",
        "cloud_v100x8--8xV100": "cloud_v100x8/results/8xV100/entry.json",
    }
    assert [(b.system_id, b.benchmark, len(b.result_files)) for b in package.benchmark_dirs] == [
        ("cloud_v3.8--gnmt-tpuv3-8--tpu", "gnmt", 1),
        ("cloud_v100x8--8xV100", "resnet", 5),
    ]
    assert package.stray_files == ["README.md", "cloud_v3.8/gnmt-tpuv3-8/results/tpu/notes.txt"]
    assert not any("/code/" in rel for rel in package.files)


def test_it_tells_a_submitter_folder_from_a_round_folder(tmp_path):
    (tmp_path / "v0.5/intel/intel_ncf/results/skx/ncf").mkdir(parents=True)
    (tmp_path / "v1.0/NVIDIA/systems").mkdir(parents=True)
    # a v0.6 submitter without systems/ looks like a v0.5 entry; its round folder is still a round
    (tmp_path / "v0.6/Alibaba/results/sinian").mkdir(parents=True)
    (tmp_path / "v0.6/Google/systems").mkdir(parents=True)
    assert looks_like_submitter_folder(tmp_path / "v0.6/Alibaba")
    assert not looks_like_submitter_folder(tmp_path / "v0.6")
    assert looks_like_submitter_folder(tmp_path / "v0.5/intel")
    assert not looks_like_submitter_folder(tmp_path / "v0.5")
    assert looks_like_submitter_folder(tmp_path / "v1.0/NVIDIA")
    assert not looks_like_submitter_folder(tmp_path / "v1.0")
    assert not looks_like_submitter_folder(tmp_path / "absent")


def test_it_does_not_walk_the_benchmarks_source_code(tmp_path):
    root = write(tmp_path / "Org", {"benchmarks/resnet/train.py": "code", "systems/s.json": SYSTEM})
    package, _ = discover_package(root)
    assert package.files == ["systems/s.json"] and package.stray_files == []


def test_it_reports_symlinks_and_never_follows_them(tmp_path):
    outside = write(tmp_path / "outside", {"secret.txt": "secret", "result_1.txt": "x"})
    root = write(tmp_path / "Org", {"systems/s.json": SYSTEM, "results/s/resnet/result_0.txt": "run"})
    (root / "results/s/resnet/result_1.txt").symlink_to(outside / "result_1.txt")
    (root / "results/s/bert").symlink_to(outside, target_is_directory=True)
    package, findings = discover_package(root)
    assert codes(findings) == [
        ("LAYOUT_SYMLINK", "results/s/bert"),
        ("LAYOUT_SYMLINK", "results/s/resnet/result_1.txt"),
    ]
    assert all(f.severity == "error" and f.checker == "layout" for f in findings)
    assert "outside" in findings[0].message
    assert [b.folder for b in package.benchmark_dirs] == ["results/s/resnet"]
    assert package.benchmark_dirs[0].result_files == ["results/s/resnet/result_0.txt"]
    for rel in (
        "results/s/resnet/result_1.txt",
        "results/s/bert/secret.txt",
        "../outside/secret.txt",
        "/etc/hostname",
    ):
        with pytest.raises((OSError, ValueError)):
            package.open(rel)


def test_it_reports_special_files_unreadable_folders_and_undecodable_names(tmp_path, monkeypatch):
    root = write(tmp_path / "Org", {"systems/s.json": SYSTEM, "results/s/resnet/result_0.txt": "run"})
    os.mkfifo(root / "results/s/resnet/result_1.txt")
    (root / "results/s/ssd").mkdir()
    os.close(os.open(bytes(root / "results") + b"/caf\xe9.txt", os.O_CREAT | os.O_WRONLY))
    real_scandir = os.scandir

    def scandir(path):
        if str(path).endswith("results/s/ssd"):
            raise PermissionError(13, "Permission denied")
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", scandir)
    package, findings = discover_package(root)
    assert codes(findings) == [
        ("LAYOUT_NAME_ENCODING", "results"),
        ("LAYOUT_SPECIAL_FILE", "results/s/resnet/result_1.txt"),
        ("LAYOUT_UNREADABLE", "results/s/ssd"),
    ]
    assert "'caf\ufffd.txt'" in findings[0].message
    assert "Permission denied" in findings[2].message
    assert package.benchmark_dirs[0].result_files == ["results/s/resnet/result_0.txt"]
    with pytest.raises(OSError):
        package.open("results/s/resnet/result_1.txt")  # a named pipe: refused, without waiting for a writer


def test_it_handles_names_with_spaces(tmp_path):
    root = write(
        tmp_path / "nettrix",
        {
            "systems/X660 G45_pytorch.json": SYSTEM,
            "results/X660 G45_pytorch/bert/result_0.txt": "run",
        },
    )
    package, _ = discover_package(root)
    assert package.system_files == {"X660 G45_pytorch": "systems/X660 G45_pytorch.json"}
    [bench_dir] = package.benchmark_dirs
    assert bench_dir.system_id == "X660 G45_pytorch"
    with package.open(bench_dir.result_files[0]) as stream:
        assert stream.read() == b"run"


def test_it_reads_a_file_up_to_one_byte_over_a_limit(tmp_path):
    root = write(tmp_path / "org", {"systems/small.json": "x" * 10, "systems/large.json": "y" * 100})
    package, _ = discover_package(root)
    assert package.read_at_most("systems/small.json", 50) == b"x" * 10
    assert package.read_at_most("systems/large.json", 50) == b"y" * 51  # one more: too large
    assert package.read_at_most("systems/large.json", 100) == b"y" * 100
    with pytest.raises(ValueError, match="not a relative path"):
        package.read_at_most("../org/systems/small.json", 50)


def test_it_returns_an_empty_package_for_an_empty_or_missing_folder(tmp_path):
    (tmp_path / "empty").mkdir()
    package, findings = discover_package(tmp_path / "empty")
    assert (package.layout, package.files, package.benchmark_dirs, findings) == (STANDARD, [], [], [])
    package, findings = discover_package(tmp_path / "missing")
    assert [f.code for f in findings] == ["LAYOUT_UNREADABLE"]
    assert isinstance(package, Package)


@pytest.mark.corpus
def test_it_discovers_and_loads_every_corpus_submitter_without_raising(corpus):
    totals = {}
    for round_, _ in training_rounds(corpus):
        folders = sorted(p for p in (corpus / round_).iterdir() if p.is_dir())
        assert not looks_like_submitter_folder(corpus / round_)
        for folder in folders:
            assert looks_like_submitter_folder(folder)
            package, findings = discover_package(folder)
            assert findings == []  # no symlinks, special files or unreadable folders in the corpus
            for system_id in package.system_files:
                load_system(package, system_id)
            totals[round_] = totals.get(round_, 0) + sum(len(b.result_files) for b in package.benchmark_dirs)
    # Every result file where the layout puts one: results/<system>/<benchmark>/ (v0.5: anywhere in
    # its entries). MANIFEST: v0.7's 15 Alibaba logs sit outside a benchmark folder and v1.0's 10
    # Habana copies one level too deep; both are reported elsewhere, not loaded.
    expected = {}
    for round_, ruleset in training_rounds(corpus):
        pattern = "**/result_*.txt" if ruleset == "0.5.0" else "*/results/*/*/result_*.txt"
        expected[round_] = len(list((corpus / round_).glob(pattern)))
    assert totals == expected
    assert all(expected.values()), expected


@pytest.mark.corpus
def test_it_finds_the_corpus_irregularities_in_the_right_places(corpus):
    habana, _ = discover_package(corpus / "v1.0/Habana")
    resnet = next(b for b in habana.benchmark_dirs if b.benchmark == "resnet")
    assert len(resnet.result_files) == 5 and len(resnet.other_files) == 10
    assert all("/resnet/bert/result_" in rel for rel in resnet.other_files)

    intel, _ = discover_package(corpus / "v0.7/Intel")
    dlrm = next(b for b in intel.benchmark_dirs if b.benchmark == "dlrm")
    assert dlrm.result_files[0] == "results/1-node-4s-cpx-pytorch/dlrm/result_1_1n4r_32k_1592751389.txt"

    nettrix, _ = discover_package(corpus / "v1.0/nettrix")
    assert "X660 G45_SXM4-80G-BPS_pytorch" in nettrix.result_folders

    google, _ = discover_package(corpus / "v0.5/google")
    assert google.layout == V05 and len(google.system_files) == 12
