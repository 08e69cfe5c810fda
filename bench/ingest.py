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

    .venv/bin/python bench/ingest.py --whole-rounds [--rounds v0.5,v0.6,v0.7,v1.0,v3.0] [--jobs 2]
    .venv/bin/python bench/ingest.py --whole-rounds --hpc [--rounds v1.0,v2.0]   # MLPerf HPC rounds

per round, in the same run: the official package_checker + result_summarizer on a copy of every
submitter folder (timed per folder; a folder where either exits non-zero is a crash), then
`python -m mlperf_check <round> --format json --jobs N` once over a round folder holding copies of
the folders where the official pair completed (the ratio compares the same folders), and once
over the whole round. Peak RSS is the largest single process (wait4's ru_maxrss, which covers
the pool's workers).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
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

    def add(self, other: Measure) -> None:
        self.wall_s += other.wall_s
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
    return Measure(wall, usage.ru_maxrss / 1024.0, 0 if code in ok_codes else 1)


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


def bench_official(folders: list[Path], ruleset: str, work: Path) -> Measure:
    total = Measure()
    for folder in folders:
        copy = work / "official" / folder.name
        shutil.copytree(folder, copy)
        total.add(run([PYTHON, "-m", "mlperf_logging.package_checker", str(copy), "training", ruleset], cwd=work))
        total.add(
            run(
                [PYTHON, "-m", "mlperf_logging.result_summarizer", str(copy), "training", ruleset, "--csv",
                 str(work / f"{folder.name}.csv")],
                cwd=work,
            )
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


CORPUS_ROUNDS = ("v0.5", "v0.6", "v0.7", "v1.0", "v3.0")
HPC_CORPUS_ROUNDS = ("v1.0", "v2.0")


@dataclass
class RoundFigures:
    name: str
    submitters: int
    megabytes: float
    official: Measure  # over the folders where the official pair completes
    completed: list[str]
    ours_same_folders: Measure | None  # None when the official pair completes on none
    ours_whole_round: Measure


def bench_round(round_dir: Path, jobs: int, work: Path, usage: str = "training") -> RoundFigures:
    """`usage` is the official tools' suite argument: "training" or "hpc" (ours: --ruleset hpc-X)."""
    ruleset = ".".join(round_dir.name.removeprefix("v").split(".")[:2]) + ".0"
    our_ruleset = f"hpc-{ruleset}" if usage == "hpc" else ruleset
    folders = round_submitter_folders(round_dir)
    official = Measure()
    completed = []
    for folder in folders:
        copy = work / "official" / round_dir.name / folder.name
        shutil.copytree(folder, copy)
        checked = run([PYTHON, "-m", "mlperf_logging.package_checker", str(copy), usage, ruleset], cwd=work)
        summarized = run(
            [PYTHON, "-m", "mlperf_logging.result_summarizer", str(copy), usage, ruleset, "--csv",
             str(work / f"{round_dir.name}-{folder.name}.csv")],
            cwd=work,
        )
        if checked.failures or summarized.failures:
            continue
        official.add(checked)
        official.add(summarized)
        completed.append(folder.name)
    ours_command = [PYTHON, "-m", "mlperf_check", "--format", "json", "--jobs", str(jobs), "--ruleset", our_ruleset]
    same_folders = None
    if completed:
        subset = work / "ours" / round_dir.name
        for name in completed:
            shutil.copytree(round_dir / name, subset / name)
        same_folders = checked_json(run([*ours_command, str(subset)], ok_codes=(0, 1), stdout=work / "out.json"),
                                    work / "out.json", len(completed))
    whole = checked_json(run([*ours_command, str(round_dir)], ok_codes=(0, 1), stdout=work / "out.json"),
                         work / "out.json", len(folders))
    return RoundFigures(
        round_dir.name, len(folders), size_of(round_dir)[2], official, completed, same_folders, whole
    )


def checked_json(measure: Measure, output: Path, submitters: int) -> Measure:
    """A run of ours counts only when it printed one JSON report per submitter (exit status 1,
    errors found, is also what a crash gives)."""
    reports = [json.loads(line) for line in output.read_text().splitlines() if line.strip()]
    if len(reports) != submitters or not all("submitter" in r for r in reports):
        measure.failures += 1
    return measure


def print_rounds(figures: list[RoundFigures], jobs: int) -> None:
    print(f"mlperf-check --format json --jobs {jobs} against package_checker + result_summarizer")
    print(
        f"{'round':6} {'submitters':>10} {'MB':>6} {'official completes':>18} {'official s':>10} "
        f"{'ours s (same)':>13} {'ratio':>7} {'ours s (round)':>14} {'ours peak RSS':>13}"
    )
    for f in figures:
        same = f.ours_same_folders
        ratio = f"{f.official.wall_s / same.wall_s:6.1f}x" if same else "    n/a"
        print(
            f"{f.name:6} {f.submitters:10} {f.megabytes:6.1f} {len(f.completed):>8} of {f.submitters:<7} "
            f"{f.official.wall_s:10.2f} {same.wall_s if same else float('nan'):13.2f} {ratio:>7} "
            f"{f.ours_whole_round.wall_s:14.2f} {f.ours_whole_round.peak_rss_mb:10.0f} MB"
            + (f"  (ours: {f.ours_whole_round.failures} bad exit)" if f.ours_whole_round.failures else "")
        )


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
    args = parser.parse_args()
    if args.whole_rounds:
        usage = "hpc" if args.hpc else "training"
        corpus = Path(args.corpus).resolve() / ("hpc" if args.hpc else "")
        rounds = args.rounds or ",".join(HPC_CORPUS_ROUNDS if args.hpc else CORPUS_ROUNDS)
        with tempfile.TemporaryDirectory(prefix="bench-rounds-") as tmp:
            figures = []
            for name in rounds.split(","):
                figures.append(bench_round(corpus / name, args.jobs, Path(tmp), usage))
                print_rounds(figures[-1:], args.jobs)
        print()
        print_rounds(figures, args.jobs)
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
