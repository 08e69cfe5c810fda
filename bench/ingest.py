#!/usr/bin/env python
"""Ingestion speed and memory against the official MLCommons tools, measured in the same run.

    .venv/bin/python bench/ingest.py [--round ../shared/corpus/v1.0] [--ruleset 1.0.0] [--big-log-mb 1024]

1. ours: `manage.py check_package <submitter> --json`, one process per submitter folder;
2. official: `python -m mlperf_logging.package_checker` then `result_summarizer` per submitter
   folder, on a copy (they write into the folders they read);
3. ours: `manage.py import_results <round>` into a fresh PostgreSQL database (a throwaway server
   unless DATABASE_URL is set);
4. ours: check_package on a package holding one synthetic log of --big-log-mb MB, for peak RSS.

Prints MB/s, files/s, peak RSS (max over the child processes) and the ratios.

Whole-round mode (`--whole-rounds`, every training round of the corpus by default):

    .venv/bin/python bench/ingest.py --whole-rounds [--rounds v0.5,v0.6,v0.7,v1.0,v3.0,v4.0] [--jobs 2]
                                     [--repeat 5] [--official-repeat 1] [--baseline CHECKOUT]
    .venv/bin/python bench/ingest.py --whole-rounds --hpc [--rounds v1.0,v2.0]   # MLPerf HPC rounds
    .venv/bin/python bench/ingest.py --merged-folder [--rounds v4.0] [--copies 4] [--jobs 2] [--repeat 5]

per round, in the same run: the official package_checker + result_summarizer on a copy of every
submitter folder (timed per folder, the median of `--official-repeat` runs on fresh copies; a
folder where either exits non-zero is a crash), then
`python -m mlperf_check <round> --format json --jobs N`, `--repeat` times (the median counts):
over a round folder holding copies of the folders where the official pair completed (the ratio
compares the same folders), over the largest of those folders alone (the submitter-folder
ratio), and over the whole round. Peak RSS is the largest single process (wait4's ru_maxrss,
which covers the pool's workers). With `--baseline`, the same runs of ours are made with the code
of another checkout (e.g. a `git worktree` of the commit before a change), alternating with this
one, so before and after share the machine's state. Both checkouts' bytecode is compiled first
(`compileall`), as an installed package's is, and as the official package's is in the venv.

Merged-folder mode (`--merged-folder`): one submitter folder of about 90 MB built from every system
folder of a round (v4.0: 22 MB), each copied --copies times under a new name with its system
description; the official pair once on a copy, ours --repeat times (median), in the same run.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
sys.path.insert(0, str(REPO))  # the project, ahead of bench/ (whose ingest.py would shadow the package)

from mlperf_check.pipeline import submitter_folders as round_submitter_folders  # noqa: E402


@dataclass
class Measure:
    wall_s: float = 0.0
    peak_rss_mb: float = 0.0
    failures: int = 0
    cpu_s: float = 0.0  # user + system of the process and its waited-for children (wait4)

    def add(self, other: Measure) -> None:
        self.wall_s += other.wall_s
        self.cpu_s += other.cpu_s
        self.peak_rss_mb = max(self.peak_rss_mb, other.peak_rss_mb)
        self.failures += other.failures


def run(
    command: list[str], *, cwd: Path = REPO, env: dict | None = None, ok_codes=(0,), stdout: Path | None = None
) -> Measure:
    """Run a command, discarding its output (or writing it to `stdout`); wall time and the
    child's own peak RSS."""
    start = time.perf_counter()
    with open(stdout or os.devnull, "wb") as out:
        process = subprocess.Popen(command, cwd=cwd, env=env, stdout=out, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    return Measure(wall, usage.ru_maxrss / 1024.0, 0 if code in ok_codes else 1, usage.ru_utime + usage.ru_stime)


def submitter_folders(round_dir: Path) -> list[Path]:
    return sorted(p for p in round_dir.iterdir() if (p / "results").is_dir() or (p / "systems").is_dir())


def size_of(round_dir: Path) -> tuple[int, int, float]:
    files = [p for p in round_dir.rglob("*") if p.is_file()]
    results = [p for p in files if p.name.startswith("result_") and p.suffix == ".txt"]
    return len(files), len(results), sum(p.stat().st_size for p in files) / 1e6


def bench_ours_check(folders: list[Path], ruleset: str) -> Measure:
    total = Measure()
    for folder in folders:
        total.add(
            run([PYTHON, "manage.py", "check_package", str(folder), "--ruleset", ruleset, "--json"], ok_codes=(0, 1))
        )
    return total


def official_pair(folder: Path, copy: Path, usage: str, ruleset: str, csv: Path, work: Path) -> Measure:
    """The official package_checker then result_summarizer (writing `csv`) on `copy`, a fresh copy
    of `folder`: they write into the folders they read."""
    shutil.copytree(folder, copy)
    both = Measure()
    both.add(run([PYTHON, "-m", "mlperf_logging.package_checker", str(copy), usage, ruleset], cwd=work))
    both.add(
        run(
            [PYTHON, "-m", "mlperf_logging.result_summarizer", str(copy), usage, ruleset, "--csv", str(csv)],
            cwd=work,
        )
    )
    return both


def bench_official(folders: list[Path], ruleset: str, work: Path) -> Measure:
    total = Measure()
    for folder in folders:
        total.add(
            official_pair(folder, work / "official" / folder.name, "training", ruleset, work / f"{folder.name}.csv", work)
        )
    return total


def bench_import(round_dir: Path, round_slug: str, work: Path) -> Measure:
    env = dict(os.environ)
    started = False
    if not env.get("DATABASE_URL"):
        services = {
            # Its own folder under /tmp: PostgreSQL runs as user postgres, which cannot enter `work`.
            "SERVICES_DIR": tempfile.mkdtemp(prefix="bench-ingest-services-"),
            "PG_PORT": str(31000 + os.getpid() % 1000),
            "REDIS_PORT": str(32000 + os.getpid() % 1000),
            "WITH_BROWSER": "0",
        }
        env.update(services)
        subprocess.run([str(REPO / "scripts/services.sh"), "start"], env=env, check=True, stdout=subprocess.DEVNULL)
        started = True
        lines = subprocess.run(
            [str(REPO / "scripts/services.sh"), "env"], env=env, check=True, capture_output=True, text=True
        ).stdout.split()
        env.update(line.split("=", 1) for line in lines)
        env.pop("CELERY_BROKER_URL", None)  # import needs no broker
    base_url = env["DATABASE_URL"].rsplit("/", 1)[0]
    env["DATABASE_URL"] = f"{base_url}/postgres"
    db = f"bench_ingest_{os.getpid()}"
    subprocess.run([PYTHON, "-c", f"import psycopg2,os; c=psycopg2.connect(os.environ['DATABASE_URL']); "
                    f"c.autocommit=True; c.cursor().execute('create database {db}')"], env=env, check=True)
    env["DATABASE_URL"] = f"{base_url}/{db}"
    env["MEDIA_ROOT"] = str(work / "media")
    try:
        subprocess.run([PYTHON, "manage.py", "migrate", "-v0"], cwd=REPO, env=env, check=True)
        return run([PYTHON, "manage.py", "import_results", str(round_dir), "--round", round_slug], env=env)
    finally:
        if started:
            subprocess.run([str(REPO / "scripts/services.sh"), "stop"], env=env, stdout=subprocess.DEVNULL)


CORPUS_ROUNDS = ("v0.5", "v0.6", "v0.7", "v1.0", "v3.0", "v4.0")
HPC_CORPUS_ROUNDS = ("v1.0", "v2.0")


@dataclass
class Ours:
    """Our runs of one input: the median wall time of `--repeat` runs, the largest peak RSS, the
    failed runs."""

    walls: list[float]
    peak_rss_mb: float
    failures: int
    cpus: list[float] = field(default_factory=list)

    @property
    def wall_s(self) -> float:
        return statistics.median(self.walls)


@dataclass
class RoundFigures:
    name: str
    submitters: int
    megabytes: float
    official: Measure  # over the folders where the official pair completes
    completed: list[str]
    largest: str  # the largest completed submitter folder ("" when none completed)
    largest_megabytes: float
    official_largest: Measure | None
    ours: dict[str, dict[str, Ours]]  # checkout label -> "same" / "largest" / "round" -> runs


def ours_runs(checkouts: dict[str, Path], inputs: dict[str, tuple[Path, int]], ruleset: str, jobs: int,
              repeat: int, work: Path) -> dict[str, dict[str, Ours]]:
    """Each input checked `repeat` times by each checkout, alternating checkouts run by run."""
    runs = {label: {name: Ours([], 0.0, 0) for name in inputs} for label in checkouts}
    for _ in range(repeat):
        for name, (path, submitters) in inputs.items():
            for label, checkout in checkouts.items():
                command = [PYTHON, "-m", "mlperf_check", "--format", "json", "--jobs", str(jobs), "--ruleset",
                           ruleset, str(path)]
                measure = checked_json(run(command, cwd=checkout, ok_codes=(0, 1), stdout=work / "out.json"),
                                       work / "out.json", submitters)
                ours = runs[label][name]
                ours.walls.append(measure.wall_s)
                ours.cpus.append(measure.cpu_s)
                ours.peak_rss_mb = max(ours.peak_rss_mb, measure.peak_rss_mb)
                ours.failures += measure.failures
    return runs


def bench_round(round_dir: Path, checkouts: dict[str, Path], jobs: int, repeat: int, work: Path,
                usage: str = "training", official_repeat: int = 1) -> RoundFigures:
    """`usage` is the official tools' suite argument: "training" or "hpc" (ours: --ruleset hpc-X).
    Each folder's official pair runs `official_repeat` times, each on a fresh copy; the run of
    median wall time counts."""
    ruleset = ".".join(round_dir.name.removeprefix("v").split(".")[:2]) + ".0"
    our_ruleset = f"hpc-{ruleset}" if usage == "hpc" else ruleset
    folders = round_submitter_folders(round_dir)
    official = Measure()
    per_folder: dict[str, Measure] = {}
    for folder in folders:
        csv = work / f"{round_dir.name}-{folder.name}.csv"
        attempts = [
            official_pair(folder, work / "official" / round_dir.name / f"{folder.name}-{attempt}", usage, ruleset,
                          csv, work)
            for attempt in range(official_repeat)
        ]
        if any(both.failures for both in attempts):
            continue
        both = sorted(attempts, key=lambda measure: measure.wall_s)[len(attempts) // 2]
        official.add(both)
        per_folder[folder.name] = both
    completed = list(per_folder)
    inputs: dict[str, tuple[Path, int]] = {}
    largest, largest_megabytes = "", 0.0
    if completed:
        subset = work / "ours" / round_dir.name
        for name in completed:
            shutil.copytree(round_dir / name, subset / name)
        inputs["same"] = (subset, len(completed))
        largest_megabytes, largest = max((size_of(subset / name)[2], name) for name in completed)
        inputs["largest"] = (subset / largest, 1)
    inputs["round"] = (round_dir, len(folders))
    return RoundFigures(
        round_dir.name, len(folders), size_of(round_dir)[2], official, completed, largest, largest_megabytes,
        per_folder.get(largest), ours_runs(checkouts, inputs, our_ruleset, jobs, repeat, work),
    )


def checked_json(measure: Measure, output: Path, submitters: int) -> Measure:
    """A run of ours counts only when it printed one JSON report per submitter (exit status 1,
    errors found, is also what a crash gives; a single submitter folder prints one indented
    document)."""
    text = output.read_text()
    reports = [json.loads(line) for line in text.splitlines() if line.strip()] if submitters > 1 else [json.loads(text)]
    if len(reports) != submitters or not all("submitter" in r for r in reports):
        measure.failures += 1
    return measure


def print_rounds(figures: list[RoundFigures], jobs: int, repeat: int) -> None:
    print(f"mlperf-check --format json --jobs {jobs} (median of {repeat}) against package_checker + result_summarizer")
    print(
        f"{'round':6} {'checkout':9} {'MB':>6} {'official completes':>18} {'official s':>10} {'ours s (same)':>13} "
        f"{'ratio':>7} {'largest folder':>24} {'official s':>10} {'ours s':>7} {'ratio':>7} "
        f"{'ours s (round)':>14} {'ours peak RSS':>13}"
    )
    for f in figures:
        for label, ours in f.ours.items():
            same, largest, whole = ours.get("same"), ours.get("largest"), ours["round"]
            ratio = f"{f.official.wall_s / same.wall_s:6.1f}x" if same else "    n/a"
            largest_ratio = f"{f.official_largest.wall_s / largest.wall_s:6.1f}x" if largest else "    n/a"
            failures = sum(o.failures for o in ours.values())
            print(
                f"{f.name:6} {label:9} {f.megabytes:6.1f} {len(f.completed):>8} of {f.submitters:<7} "
                f"{f.official.wall_s:10.2f} {same.wall_s if same else float('nan'):13.2f} {ratio:>7} "
                f"{f'{f.largest} ({f.largest_megabytes:.1f} MB)' if f.largest else '-':>24} "
                f"{f.official_largest.wall_s if f.official_largest else float('nan'):10.2f} "
                f"{largest.wall_s if largest else float('nan'):7.2f} {largest_ratio:>7} "
                f"{whole.wall_s:14.2f} {max(o.peak_rss_mb for o in ours.values()):10.0f} MB"
                + (f"  (ours: {failures} bad runs)" if failures else "")
            )


def compile_bytecode(checkout: Path) -> None:
    subprocess.run([PYTHON, "-m", "compileall", "-q", str(checkout / "mlperf_check")], check=True,
                   stdout=subprocess.DEVNULL)


def build_big_package(source: Path, work: Path, megabytes: int) -> tuple[Path, float]:
    """A copy of a small real package whose first log is padded to `megabytes` by repeating its
    training-loop events (so the log stays valid MLLOG, only very long)."""
    package = work / "big" / source.name
    shutil.copytree(source, package)
    log = sorted(package.glob("results/*/*/result_*.txt"))[0]
    lines = log.read_bytes().splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if b'"run_start"' in line)
    stop = next(i for i, line in enumerate(lines) if b'"run_stop"' in line)
    head, body, tail = lines[: start + 1], b"".join(lines[start + 1 : stop]), lines[stop:]
    target = megabytes * 1024 * 1024
    with log.open("wb") as out:
        out.writelines(head)
        written = 0
        while written < target:
            out.write(body)
            written += len(body)
        out.writelines(tail)
    return package, log.stat().st_size / 1e6


def build_merged_folder(round_dir: Path, work: Path, copies: int) -> Path:
    """One submitter folder holding every system folder of the round, `copies` times each under a
    new name (<system>_c<i>, its system description copied under the same name): real logs, as
    many as a large submitter folder of a recent round has (issue 26 names one of 86 MB)."""
    merged = work / "merged" / "Merged"
    (merged / "systems").mkdir(parents=True)
    for copy in range(1, copies + 1):
        for folder in round_submitter_folders(round_dir):
            for system_dir in sorted(p for p in (folder / "results").iterdir() if p.is_dir()):
                name = f"{system_dir.name}_c{copy}"
                shutil.copytree(system_dir, merged / "results" / name)
                shutil.copyfile(folder / "systems" / f"{system_dir.name}.json", merged / "systems" / f"{name}.json")
    return merged


def bench_merged_folder(round_dir: Path, checkouts: dict[str, Path], jobs: int, repeat: int, copies: int,
                        work: Path) -> None:
    ruleset = ".".join(round_dir.name.removeprefix("v").split(".")[:2]) + ".0"
    merged = build_merged_folder(round_dir, work, copies)
    files, result_files, megabytes = size_of(merged)
    print(f"{round_dir.name} merged into one submitter folder ({copies} copies of each system folder): "
          f"{files} files, {result_files} result logs, {megabytes:.1f} MB", flush=True)
    official = bench_official([merged], ruleset, work)
    print(f"official package_checker + result_summarizer: {official.wall_s:.2f} s"
          + (f" ({official.failures} non-zero exits)" if official.failures else ""), flush=True)
    for label, runs in ours_runs(checkouts, {"merged": (merged, 1)}, ruleset, jobs, repeat, work).items():
        ours = runs["merged"]
        print(f"ours ({label}), --jobs {jobs}, median of {repeat}: {ours.wall_s:.2f} s "
              f"(runs {', '.join(f'{w:.2f}' for w in ours.walls)}; CPU median {statistics.median(ours.cpus):.2f} s, "
              f"least {min(ours.cpus):.2f} s), peak RSS {ours.peak_rss_mb:.0f} MB: "
              f"{official.wall_s / ours.wall_s:.1f}x" + (f" ({ours.failures} bad runs)" if ours.failures else ""))
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--round", default=str(REPO.parent / "shared/corpus/v1.0"))
    parser.add_argument("--ruleset", default="1.0.0")
    parser.add_argument("--big-log-mb", type=int, default=1024)
    parser.add_argument("--big-source", default=str(REPO / "sample_data/training-v1.0/Fujitsu"))
    parser.add_argument("--whole-rounds", action="store_true", help="only the whole-round comparison")
    parser.add_argument("--rounds", help="corpus rounds for --whole-rounds (default: every round of the suite)")
    parser.add_argument("--hpc", action="store_true", help="--whole-rounds on the MLPerf HPC rounds (corpus/hpc)")
    parser.add_argument("--corpus", default=str(REPO.parent / "shared/corpus"))
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--repeat", type=int, default=5, help="runs of ours per input, for --whole-rounds")
    parser.add_argument("--official-repeat", type=int, default=1,
                        help="runs of the official pair per folder (the median counts), for --whole-rounds")
    parser.add_argument("--baseline", help="another checkout whose code runs beside this one, for --whole-rounds")
    parser.add_argument("--merged-folder", action="store_true",
                        help="one large submitter folder made of a round's system folders (--rounds, default v4.0)")
    parser.add_argument("--copies", type=int, default=4, help="copies of each system folder, for --merged-folder")
    args = parser.parse_args()
    checkouts = {"this": REPO}
    if args.baseline:
        checkouts["baseline"] = Path(args.baseline).resolve()
    if args.merged_folder:
        for checkout in checkouts.values():
            compile_bytecode(checkout)
        with tempfile.TemporaryDirectory(prefix="bench-merged-") as tmp:
            round_dir = Path(args.corpus).resolve() / (args.rounds or "v4.0")
            bench_merged_folder(round_dir, checkouts, args.jobs, args.repeat, args.copies, Path(tmp))
        return
    if args.whole_rounds:
        for checkout in checkouts.values():
            compile_bytecode(checkout)
        with tempfile.TemporaryDirectory(prefix="bench-rounds-") as tmp:
            figures = []
            usage = "hpc" if args.hpc else "training"
            corpus = Path(args.corpus).resolve() / ("hpc" if args.hpc else "")
            rounds = args.rounds or ",".join(HPC_CORPUS_ROUNDS if args.hpc else CORPUS_ROUNDS)
            for name in rounds.split(","):
                figures.append(
                    bench_round(corpus / name, checkouts, args.jobs, args.repeat, Path(tmp), usage, args.official_repeat)
                )
                print_rounds(figures[-1:], args.jobs, args.repeat)
                print(f"official completes: {', '.join(figures[-1].completed) or 'none'}")
                print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
        print()
        print_rounds(figures, args.jobs, args.repeat)
        return
    round_dir = Path(args.round).resolve()
    folders = submitter_folders(round_dir)
    files, result_files, megabytes = size_of(round_dir)
    round_slug = "training-v" + ".".join(args.ruleset.split(".")[:2])
    print(f"round {round_dir}: {len(folders)} submitters, {files} files ({result_files} result logs), {megabytes:.1f} MB")

    with tempfile.TemporaryDirectory(prefix="bench-ingest-") as tmp:
        work = Path(tmp)
        ours = bench_ours_check(folders, args.ruleset)
        official = bench_official(folders, args.ruleset, work)
        imported = bench_import(round_dir, round_slug, work)
        big = None
        if args.big_log_mb:
            package, big_mb = build_big_package(Path(args.big_source), work, args.big_log_mb)
            big = (big_mb, run([PYTHON, "manage.py", "check_package", str(package), "--json"], ok_codes=(0, 1)))

    def line(name: str, m: Measure) -> str:
        return (
            f"{name:44} {m.wall_s:8.2f} s {megabytes / m.wall_s:8.1f} MB/s {files / m.wall_s:8.1f} files/s "
            f"peak RSS {m.peak_rss_mb:6.0f} MB" + (f"  ({m.failures} non-zero exits)" if m.failures else "")
        )

    print()
    print(line("check_package (ours, 1 process/submitter)", ours))
    print(line("package_checker + result_summarizer", official))
    print(line("import_results (ours, PostgreSQL)", imported))
    print(f"ratio official / check_package:  {official.wall_s / ours.wall_s:6.1f}x")
    print(f"ratio official / import_results: {official.wall_s / imported.wall_s:6.1f}x")
    if big:
        big_mb, m = big
        print(
            f"check_package on a package with one {big_mb:.0f} MB log: {m.wall_s:.1f} s, "
            f"{big_mb / m.wall_s:.1f} MB/s, peak RSS {m.peak_rss_mb:.0f} MB"
        )


if __name__ == "__main__":
    main()
