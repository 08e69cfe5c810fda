"""Every rule of the official MLPerf Tiny checker (github.com/mlcommons/tiny 4b503b87), and each of
our stricter ones, broken once on a copy of the bundled real round (sample_data/tiny-v1.3): our
official verdict and reason must be the official checker's on the same copy.

Every official verdict of the real round is VALID, so only mutations prove the rejections. The
official checker's outputs on each mutated copy are recorded in data/tiny/official_mutations.json
(verdict per result folder, its ERROR lines; written by `python -m
mlperf_check.tests.test_tiny_mutations --record`), so CI, which has no official checker, still
compares every mutation; where the checker's repository is present (official_checkers.py) the
test also runs it live on the copy and compares its output with the record.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

from mlperf_check.report import ERROR
from mlperf_check.tests.official_checkers import official_tools, run_checker
from mlperf_check.tiny.pipeline import CRASHES, check_tiny_package

BASE = Path(__file__).resolve().parents[2] / "sample_data" / "tiny-v1.3"
RECORD = Path(__file__).resolve().parent / "data" / "tiny" / "official_mutations.json"
COMMIT = "4b503b872219cb9c9729c957c9fa1fbd7c9e417a"
ST = "closed/STMicroelectronics"
L4 = f"{ST}/results/NUCLEO_L4R5ZI-P"
H7 = f"{ST}/results/NUCLEO_H7A3ZI_Q"
SY = "closed/syntiant"
S09 = f"{SY}/results/syntiant_9120_0v9_30mhz"
S10 = f"{SY}/results/syntiant_9120_1v0_49mhz"
# The lines the official checker logs after a reason, for every rejected result: not reasons.
CASCADE = re.compile(r" has issues$| is OK but accuracy has issues$|^NoResults |^SUMMARY")


def edit(path: str, old: str, new: str) -> Callable[[Path], None]:
    def mutate(root: Path) -> None:
        file = root / path
        text = file.read_text()
        assert old in text, (path, old)
        file.write_text(text.replace(old, new, 1))

    return mutate


def drop_lines(path: str, pattern: str, count: int = 0) -> Callable[[Path], None]:
    """Remove the lines matching `pattern` (the first `count` of them; 0: all)."""
    def mutate(root: Path) -> None:
        file = root / path
        lines = file.read_text().splitlines(keepends=True)
        matching = [i for i, line in enumerate(lines) if re.search(pattern, line)]
        assert matching, (path, pattern)
        gone = set(matching[:count] if count else matching)
        file.write_text("".join(line for i, line in enumerate(lines) if i not in gone))

    return mutate


def remove(path: str) -> Callable[[Path], None]:
    def mutate(root: Path) -> None:
        target = root / path
        shutil.rmtree(target) if target.is_dir() else target.unlink()

    return mutate


def add_file(path: str, data: bytes = b"x\n", size: int | None = None) -> Callable[[Path], None]:
    def mutate(root: Path) -> None:
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        if size is not None:
            os.truncate(target, size)  # sparse: no disk is used

    return mutate


def add_folder(path: str) -> Callable[[Path], None]:
    return lambda root: (root / path).mkdir(parents=True)


def symlink(path: str, to: str) -> Callable[[Path], None]:
    return lambda root: (root / path).symlink_to(to)


def rename(path: str, new: str) -> Callable[[Path], None]:
    def mutate(root: Path) -> None:
        (root / new).parent.mkdir(parents=True, exist_ok=True)
        (root / path).rename(root / new)

    return mutate


def both(*mutations: Callable[[Path], None]) -> Callable[[Path], None]:
    def mutate(root: Path) -> None:
        for mutation in mutations:
            mutation(root)

    return mutate


# name -> (the result folder it is about, the mutation). Submitter- and system-wide rules name one
# result of the folders they reject.
MUTATIONS: dict[str, tuple[str, Callable[[Path], None]]] = {
    # check_results_dir, the submitter folder: each rejects every result of the submitter.
    "symbolic_link": (f"{L4}/ic", symlink(f"{L4}/ic/performance/link.txt", "results.txt")),
    "file_over_size_limit": (f"{S09}/ic", add_file(f"{S09}/ic/energy/trace1-energy.bin", size=501 * 2**20)),
    "pycache_folder": (f"{S09}/ic", add_file(f"{SY}/code/__pycache__/runner.cpython-310.pyc")),
    "empty_folder": (f"{L4}/ad", add_folder(f"{ST}/code/empty")),
    # ... and the ones that only warn.
    "hidden_file": (f"{S09}/ic", add_file(f"{SY}/.DS_Store")),
    "space_in_name": (f"{L4}/ic", add_file(f"{L4}/ic/energy/energy plot.txt")),
    "invalid_division": (f"{S09}/ic", add_file("preview/README.md")),
    # The system description.
    "no_system_description": (f"{S09}/ic", remove(f"{SY}/systems/syntiant_9120_0v9_30mhz.json")),
    "invalid_status": (f"{L4}/ic", edit(f"{ST}/systems/NUCLEO_L4R5ZI-P.json", '"Available"', '"Retired"')),
    "no_status": (f"{L4}/ic", edit(f"{ST}/systems/NUCLEO_L4R5ZI-P.json", '"Status"', '"State"')),
    "system_description_not_json": (f"{S09}/ic", add_file(f"{SY}/systems/syntiant_9120_0v9_30mhz.json", b"{\n")),
    # The benchmark folder.
    "invalid_closed_model": (f"{S09}/person_detection", rename(f"{S09}/vww", f"{S09}/person_detection")),
    "runner_marker_removed": (f"{S09}/ic", remove(f"{S09}/ic/EEMBC_RUNNER")),
    # check_accuracy_dir.
    "top1_below_target": (f"{L4}/ic", edit(f"{L4}/ic/accuracy/results.txt", "Top 1% = 87.0", "Top 1% = 84.9")),
    "auc_below_target": (f"{L4}/ad", edit(f"{L4}/ad/accuracy/results.txt", "AUC = 0.862", "AUC = 0.849")),
    "no_accuracy_figure": (f"{S09}/ic", drop_lines(f"{S09}/ic/accuracy/results.txt", r"Top-1")),
    "accuracy_not_a_number": (f"{L4}/kws", edit(f"{L4}/kws/accuracy/results.txt", "Top 1% = 90.2", "Top 1% = 90.2.1")),
    "no_accuracy_results": (f"{L4}/kws", remove(f"{L4}/kws/accuracy/results.txt")),
    "open_top1_below_target": ("open/syntiant/results/syntiant_9120_0v9_30mhz/ic", both(
        edit(f"{S09}/ic/accuracy/results.txt", "Top-1: 86.0%", "Top-1: 80.0%"), rename(SY, "open/syntiant"))),
    # check_performance_dir and the file lists.
    "no_performance_folder": (f"{S09}/kws", remove(f"{S09}/kws/performance")),
    "no_median_throughput": (f"{L4}/vww", drop_lines(f"{L4}/vww/performance/results.txt", r"Median throughput")),
    "no_performance_results": (f"{S09}/vww", remove(f"{S09}/vww/performance/results.txt")),
    "unexpected_file": (f"{S09}/ic", add_file(f"{S09}/ic/performance/notes.txt")),
    # check_power_dir.
    "no_median_energy": (f"{L4}/ic", drop_lines(f"{L4}/ic/energy/results.txt", r"Median energy cost")),
    "no_sww_power": (f"{H7}/sww", drop_lines(f"{H7}/sww/energy/results.txt", r"Power\s+:")),
    # sww_perf_acc and the streaming wakeword's limits.
    "sww_false_positives": (f"{H7}/sww", edit(f"{H7}/sww/energy/results.txt", "4 False positives", "9 False positives")),
    "sww_false_negatives": (f"{H7}/sww", edit(f"{H7}/sww/energy/results.txt", "44 True positives, 6 False negatives",
                                              "41 True positives, 9 False negatives")),
    "sww_wake_words": (f"{H7}/sww", edit(f"{H7}/sww/energy/results.txt", "44 True positives", "45 True positives")),
    "sww_no_accuracy_line": (f"{H7}/sww", drop_lines(f"{H7}/sww/energy/results.txt", r"True positives")),
    "sww_no_duty_cycle": (f"{H7}/sww", drop_lines(f"{H7}/sww/energy/results.txt", r"Average duty cycle")),
    "sww_no_throughput": (f"{H7}/sww", drop_lines(f"{H7}/sww/energy/results.txt", r"Estimated throughput")),
    "sww_from_performance": (f"{H7}/sww", remove(f"{H7}/sww/energy")),
    "sww_no_results_folder": (f"{S10}/sww", both(remove(f"{S10}/sww/energy"), add_file(f"{S10}/sww/README.md"))),
    "open_sww_false_positives": ("open/syntiant/results/syntiant_9120_1v0_49mhz/sww", both(
        edit(f"{S10}/sww/energy/results.txt", "4 False positives", "9 False positives"),
        rename(SY, "open/syntiant"))),
    # Ours, beyond the official checker (its verdict stays VALID).
    "stricter_median_throughput": (f"{L4}/ic", edit(f"{L4}/ic/performance/results.txt",
                                                    "Median throughput is      6.036", "Median throughput is      6.136")),
    "stricter_runtime_not_met": (f"{L4}/kws", drop_lines(f"{L4}/kws/performance/results.txt",
                                                         r"Runtime requirements have been met", count=1)),
    "stricter_median_energy": (f"{S09}/ic", edit(f"{S09}/ic/energy/results.txt", "Median energy cost is 101.833",
                                                 "Median energy cost is 111.833")),
}
# Our stricter rule each "stricter_" mutation breaks.
STRICTER = {"stricter_median_throughput": "tiny_median_mismatch", "stricter_runtime_not_met": "tiny_runtime_not_met",
            "stricter_median_energy": "tiny_energy_median_mismatch"}


def mutated_copy(name: str, into: Path) -> Path:
    root = into / "round"
    shutil.copytree(BASE, root, symlinks=True)
    MUTATIONS[name][1](root)
    return root


def official_outcome(tools: Path, round_: Path, folders: list[str], csv_path: Path) -> dict:
    """The official checker on a round copy: each result folder's verdict (VALID: a `Results`
    line), its ERROR and WARNING lines, and whether it stopped with a traceback."""
    _status, records = run_checker(tools, ["--input", str(round_), "--version", "v1.3", "--csv", str(csv_path)])
    # Lines that are no log record (a traceback, a library's warning) are joined to the record
    # before them: cut, they name temporary paths. Each reason is one line.
    lines = [(level, text.split("\n")[0]) for level, text in records]
    crashed = any("Traceback (most recent call last)" in text for _, text in records)
    accepted = {text.split()[1] for level, text in lines if level == "INFO" and text.startswith("Results ")}
    return {
        "crashed": crashed,
        "verdicts": {folder: "VALID" if folder in accepted else "INVALID" for folder in sorted(folders)},
        "errors": [text for level, text in lines if level == "ERROR"],
        "warnings": [text for level, text in lines if level == "WARNING"],
    }


def normalized(line: str) -> str:
    """An official line without what varies between runs and Python versions: an exception's text,
    the list of paths after a submitter-wide reason."""
    line = re.sub(r"(caused exception in \w+(\(\))?):.*", r"\1", line, flags=re.DOTALL)
    return re.sub(r": \[.*\]$", "", line, flags=re.DOTALL)


def our_official_lines(result) -> list[str]:
    return [normalized(m.group(1)) for f in result.findings if f.severity == ERROR
            for m in [re.search(r"\(official checker: (.*)\)$", f.message, flags=re.DOTALL)] if m]


def reasons(outcome: dict, folder: str) -> list[str]:
    """The official reasons about `folder` (its own lines, or its system's or submitter's)."""
    parts = folder.split("/")
    scopes = (folder, "/".join(parts[:2] + parts[3:4]), "/".join(parts[:2]) + " ", "/".join(parts[:2] + ["systems"]))
    about = [normalized(line) for line in outcome["errors"] if any(scope in line for scope in scopes)
             or line.startswith(("True Positives", "FP=", "invalid division"))]
    rejecting = [line for line in about if "file list mismatch" not in line]  # never rejects: a warning of ours
    primary = [line for line in rejecting if not CASCADE.search(line)]
    return primary or [line for line in rejecting if not line.startswith(("NoResults", "SUMMARY"))]


def record() -> None:
    """Run the official checker on every mutated copy and write RECORD."""
    recorded = {}
    with tempfile.TemporaryDirectory() as scratch:
        tools = official_tools("mlcommons/tiny", COMMIT, Path(scratch))
        if tools is None:
            sys.exit("the mlcommons/tiny repository is not under $MLPERF_OFFICIAL_REPOS")
        for name in MUTATIONS:
            with tempfile.TemporaryDirectory() as work:
                root = mutated_copy(name, Path(work))
                folders = [r.folder for r in check_tiny_package(root).results]
                recorded[name] = official_outcome(tools, root, folders, Path(work) / "summary.csv")
                print(name, recorded[name]["verdicts"].get(MUTATIONS[name][0]), recorded[name]["crashed"])
    RECORD.parent.mkdir(parents=True, exist_ok=True)
    RECORD.write_text(json.dumps({"checker": f"github.com/mlcommons/tiny {COMMIT} tools/submission/"
                                  "submission_checker.py --version v1.3 (Python 3.11, pandas 3.1)", "base": "sample_data/tiny-v1.3",
                                  "mutations": recorded}, indent=1, sort_keys=True) + "\n")


RECORDED = json.loads(RECORD.read_text())["mutations"] if RECORD.exists() else {}


def test_every_mutation_is_recorded():
    assert sorted(RECORDED) == sorted(MUTATIONS)


@pytest.mark.parametrize("name", sorted(MUTATIONS))
def test_our_official_verdict_and_reason_are_the_official_checkers(name, tmp_path):
    folder, _ = MUTATIONS[name]
    outcome = RECORDED[name]
    report = check_tiny_package(mutated_copy(name, tmp_path))
    results = {r.folder: r for r in report.results}
    target = results[folder]
    if outcome["crashed"]:
        # The official checker gives no verdict at all; ours rejects the folder it stops at, and says why.
        assert not target.official and any(CRASHES in f.message for f in target.findings)
        return
    ours = {f: "VALID" if r.official else "INVALID" for f, r in results.items()}
    assert ours == outcome["verdicts"]
    if name in STRICTER:
        assert not target.valid and target.stricter == [STRICTER[name]]
        return
    official_reasons = reasons(outcome, folder)
    mismatches = {normalized(line) for line in outcome["errors"] if "file list mismatch" in line and folder + "/" in line}
    assert mismatches <= {normalized(m.group(1)) for f in target.findings
                          for m in [re.search(r"\(official checker: (.*)\)$", f.message, flags=re.DOTALL)] if m}
    if outcome["verdicts"][folder] == "INVALID":
        assert official_reasons and set(official_reasons) <= set(our_official_lines(target)), our_official_lines(target)
    else:
        assert target.valid or target.stricter  # a warning at most: the official checker's reason does not reject
        mine = {normalized(m.group(1)) for f in report.all_findings()
                for m in [re.search(r"\(official checker: (.*)\)$", f.message, flags=re.DOTALL)] if m}
        assert set(official_reasons) - {""} <= mine | {normalized(w) for w in outcome["warnings"]}


@pytest.mark.parametrize("name", sorted(MUTATIONS))
def test_the_record_is_what_the_official_checker_says_now(name, tmp_path):
    tools = official_tools("mlcommons/tiny", COMMIT, tmp_path)
    if tools is None:
        pytest.skip("the official Tiny checker's repository is absent ($MLPERF_OFFICIAL_REPOS, "
                    "mlcommons+tiny/repo); the recorded outputs were compared above")
    pytest.importorskip("pandas", reason="the official Tiny checker needs pandas")
    root = mutated_copy(name, tmp_path / "copy")
    folders = [r.folder for r in check_tiny_package(root).results]
    live = official_outcome(tools, root, folders, tmp_path / "summary.csv")
    recorded = RECORDED[name]
    assert live["crashed"] == recorded["crashed"]
    if not recorded["crashed"]:
        assert live["verdicts"] == recorded["verdicts"]
        assert sorted(map(normalized, live["errors"])) == sorted(map(normalized, recorded["errors"]))


if __name__ == "__main__":
    if sys.argv[1:] != ["--record"]:
        sys.exit(__doc__)
    record()
