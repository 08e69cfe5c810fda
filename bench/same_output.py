"""Prove a change leaves `mlperf-check` output unchanged: the whole corpus and the generated logs,
checked at a base commit and at the working tree, compared byte for byte.

    .venv/bin/python bench/same_output.py BASE_REF [--keep DIR] [--jobs N]

Inputs (every one is checked by both versions, from the same files):
- every training round of ../shared/corpus (v0.5 ... v4.0), as one round folder, `--ruleset` from
  the folder name;
- every inference round of ../shared/corpus/inference;
- generated logs: for each ruleset mlperf-logging ships and each division, one package whose
  benchmark folders hold each benchmark's conforming log and every mutation of it
  (mlperf_check/tests/generated_logs.py, this tree's generator), so every rule of every benchmark,
  broken and unbroken, is in the comparison.

BASE_REF is checked out with `git worktree add --detach` into a temporary folder and run with the
same interpreter (`python -m mlperf_check <input> --format json`). Prints one line per input and
exits 1 if any stdout or exit status differs; `--keep DIR` keeps both outputs of every input.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO.parent / "shared" / "corpus"
sys.path.insert(0, str(REPO))

from mlperf_check.tests import generated_logs  # noqa: E402
from mlperf_check.tests.corpus import training_rounds  # noqa: E402


def write_generated_packages(root: Path) -> list[tuple[str, Path, list[str]]]:
    """One package per ruleset and division: results/generated/<benchmark>/result_<i>.txt, the
    conforming log first, then each mutation."""
    inputs = []
    for ruleset in generated_logs.shipped_rulesets():
        for division in generated_logs.DIVISIONS:
            logs = {
                benchmark: [
                    generated_logs.conforming_log(ruleset, benchmark, division),
                    *(data for _, data in generated_logs.mutations(ruleset, benchmark, division=division)),
                ]
                for benchmark in generated_logs.benchmarks(ruleset, division)
            }
            package = root / f"training_{ruleset}_{division}" / "Generated"
            generated_logs.write_package(package, logs, division)
            inputs.append((f"generated {ruleset} {division}", package, ["--ruleset", ruleset]))
    return inputs


def corpus_inputs() -> list[tuple[str, Path, list[str]]]:
    inputs = [
        (f"training {round_}", CORPUS / round_, ["--ruleset", ruleset])
        for round_, ruleset in training_rounds(CORPUS)
    ]
    inference = CORPUS / "inference"
    if inference.is_dir():
        inputs += [(f"inference {p.name}", p, []) for p in sorted(inference.glob("v*")) if p.is_dir()]
    return inputs


def check(tree: Path, target: Path, extra: list[str], jobs: int) -> tuple[int, bytes]:
    command = [
        sys.executable,
        "-m",
        "mlperf_check",
        str(target),
        "--format",
        "json",
        "--jobs",
        str(jobs),
        *extra,
    ]
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run(command, cwd=tree, env=env, capture_output=True, check=False)
    return done.returncode, done.stdout


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base", help="the commit to compare with (e.g. main, HEAD~1)")
    parser.add_argument("--keep", type=Path, help="write both outputs of every input here")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    if not CORPUS.is_dir():
        print(f"the corpus is not at {CORPUS}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="same-output-") as tmp:
        base = Path(tmp) / "base"
        subprocess.run(
            ["git", "worktree", "add", "--detach", "-q", str(base), args.base], cwd=REPO, check=True
        )
        try:
            inputs = corpus_inputs() + write_generated_packages(Path(tmp) / "generated")
            different = 0
            for name, target, extra in inputs:
                before = check(base, target, extra, args.jobs)
                after = check(REPO, target, extra, args.jobs)
                same = before == after
                different += not same
                print(
                    f"{'same     ' if same else 'DIFFERENT'} {name}: {len(after[1]):,} bytes, exit {after[0]}"
                )
                if args.keep:
                    args.keep.mkdir(parents=True, exist_ok=True)
                    slug = name.replace(" ", "_")
                    (args.keep / f"{slug}.base.json").write_bytes(before[1])
                    (args.keep / f"{slug}.head.json").write_bytes(after[1])
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(base)], cwd=REPO, check=False)
            shutil.rmtree(base, ignore_errors=True)
    print(
        f"{len(inputs) - different} of {len(inputs)} inputs give the same output at {args.base} and in this tree"
    )
    return 1 if different else 0


if __name__ == "__main__":
    sys.exit(main())
