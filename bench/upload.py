#!/usr/bin/env python
"""Upload and ingest one big submitter tarball through the real web and worker processes.

    .venv/bin/python bench/upload.py [--size-mb 2048] [--format tar|tar.gz] [--source ../shared/corpus/v1.0/NVIDIA]

1. builds a package of ONE submitter folder from real corpus logs: the source folder, plus its
   result folders replicated under extra system ids (system JSON copied under the new id) until
   --size-mb is reached, and tars it (streamed from the files);
2. times the offline parser on that folder: `manage.py check_package` (both cores) and
   `mlperf_check.pipeline.check_folder(jobs=1)` in one process, which is what the worker runs;
3. starts a throwaway PostgreSQL and Redis (scripts/services.sh), a fresh database, a round, an
   organization and a member with an API token, then gunicorn (2 workers) and a Celery worker
   (prefork, concurrency 1);
4. uploads the tarball with curl (streams the file) to POST /api/v1/submissions/, then polls
   GET /api/v1/uploads/<id>/ until the job is final, timing each state;
5. meanwhile samples, every 0.2 s, VmRSS/VmHWM of every process in the gunicorn tree and in the
   Celery tree (from /proc).

Prints sizes, wall times, MB/s, peak RSS of the largest single web and worker process and of the
trees, the final job state and the rows stored. Everything it starts is stopped and its temporary
data removed, also on Ctrl-C.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
BIN = Path(PYTHON).parent
ROUND_SLUG = "training-v1.0"
RULESET = "1.0.0"
MB = 1e6


# --- package ------------------------------------------------------------------------------------


def folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def build_package(source: Path, dest: Path, size_mb: int) -> tuple[Path, int, int]:
    """A copy of `source` whose results/<system>/ folders are replicated under new system ids
    (`<system>-copyN`, with systems/<system>-copyN.json) until the folder holds `size_mb` MB.
    Returns the folder, its bytes and its file count."""
    package = dest / source.name
    shutil.copytree(source, package)
    system_folders = sorted(p for p in (source / "results").iterdir() if p.is_dir())
    folder_sizes = {p.name: folder_bytes(p) for p in system_folders}
    total = folder_bytes(package)
    target = size_mb * MB
    copy = 0
    while total < target:
        copy += 1
        for folder in system_folders:
            if total >= target:
                break
            new_id = f"{folder.name}-copy{copy}"
            shutil.copytree(folder, package / "results" / new_id)
            system_json = source / "systems" / f"{folder.name}.json"
            if system_json.is_file():
                shutil.copyfile(system_json, package / "systems" / f"{new_id}.json")
                total += system_json.stat().st_size
            total += folder_sizes[folder.name]
    files = sum(1 for p in package.rglob("*") if p.is_file())
    return package, total, files


def write_tarball(package: Path, dest: Path, fmt: str) -> Path:
    """tarfile reads each member from its file in blocks: nothing near the package size in memory."""
    path = dest / f"{package.name}.{fmt}"
    if fmt == "tar":
        with tarfile.open(path, "w") as tar:
            tar.add(package, arcname=package.name)
    else:
        with tarfile.open(path, "w:gz", compresslevel=6) as tar:
            tar.add(package, arcname=package.name)
    return path


# --- processes ----------------------------------------------------------------------------------


@dataclass
class Measure:
    wall_s: float
    peak_rss_mb: float
    exit_code: int


def run_measured(command: list[str], env: dict, ok_codes=(0, 1)) -> Measure:
    start = time.perf_counter()
    process = subprocess.Popen(command, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    stderr = process.stderr.read()
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code not in ok_codes:
        sys.stderr.write(stderr.decode(errors="replace"))
    return Measure(wall, usage.ru_maxrss / 1024.0, code)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def proc_status(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM in kB, or {} when the process is gone."""
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return {}
    values = {}
    for line in text.splitlines():
        name, _, rest = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            values[name] = int(rest.split()[0])
    return values


def process_tree(pid: int) -> list[int]:
    pids, pending = [], [pid]
    while pending:
        current = pending.pop()
        pids.append(current)
        try:
            tasks = list(Path(f"/proc/{current}/task").iterdir())
        except OSError:
            continue
        for task in tasks:
            try:
                pending.extend(int(c) for c in (task / "children").read_text().split())
            except OSError:
                continue
    return pids


@dataclass
class TreePeaks:
    """Peaks over the samples of one process tree. `single_*`: the largest single process."""

    single_mb: float = 0.0
    single_pid: int = 0
    single_phase: str = ""
    tree_mb: float = 0.0
    tree_phase: str = ""
    hwm_mb: dict[int, float] = field(default_factory=dict)  # kernel high-water mark per pid
    single_by_phase: dict[str, float] = field(default_factory=dict)
    processes: int = 0

    def add(self, samples: dict[int, dict[str, int]], phase: str) -> None:
        rss = {pid: s.get("VmRSS", 0) / 1024.0 for pid, s in samples.items()}
        for pid, s in samples.items():
            self.hwm_mb[pid] = max(self.hwm_mb.get(pid, 0.0), s.get("VmHWM", 0) / 1024.0)
        if not rss:
            return
        pid = max(rss, key=rss.get)
        self.single_by_phase[phase] = max(self.single_by_phase.get(phase, 0.0), rss[pid])
        if rss[pid] > self.single_mb:
            self.single_mb, self.single_pid, self.single_phase = rss[pid], pid, phase
        total = sum(rss.values())
        if total > self.tree_mb:
            self.tree_mb, self.tree_phase = total, phase
        self.processes = max(self.processes, len(rss))


class Sampler(threading.Thread):
    def __init__(self, roots: dict[str, int], interval: float = 0.2):
        super().__init__(daemon=True)
        self.roots = roots
        self.interval = interval
        self.peaks = {name: TreePeaks() for name in roots}
        self.phase = "idle"
        self.stopped = threading.Event()

    def run(self) -> None:
        while not self.stopped.wait(self.interval):
            for name, root in self.roots.items():
                samples = {pid: proc_status(pid) for pid in process_tree(root)}
                self.peaks[name].add({p: s for p, s in samples.items() if s}, self.phase)


def stop_process(process: subprocess.Popen | None) -> None:
    """SIGTERM our process (and its own session, which we created), then SIGKILL after 20 s."""
    if process is None or process.poll() is not None:
        return
    os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(20)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


# --- database and HTTP --------------------------------------------------------------------------

SETUP = """
from django.contrib.auth import get_user_model
from rest_framework.authtoken.models import Token
from results.models import Organization
from results.services.rounds import ensure_round
ensure_round({round!r})
org = Organization.objects.create(name="NVIDIA", slug="nvidia")
user = get_user_model().objects.create_user("bench-submitter")
org.members.add(user)
print("TOKEN=" + Token.objects.create(user=user).key)
"""

COUNTS = """
from ingest.models import Upload
from results.models import Finding, Result, Run
s = Upload.objects.get(pk={upload}).submission
print(json.dumps({{"results": Result.objects.filter(submission=s).count(),
    "runs": Run.objects.filter(result__submission=s).count(),
    "systems": s.systems.count(), "findings": Finding.objects.filter(submission=s).count()}}))
"""


def manage_shell(code: str, env: dict) -> str:
    return subprocess.run(
        [PYTHON, "manage.py", "shell", "-c", "import json\n" + code],
        cwd=REPO,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def get_json(url: str, token: str) -> dict:
    request = urllib.request.Request(url, headers={"Authorization": f"Token {token}"})
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.load(response)


def wait_for_web(base: str, token: str, process: subprocess.Popen) -> None:
    for _ in range(300):
        if process.poll() is not None:
            raise RuntimeError("gunicorn exited at start: see its log")
        try:
            get_json(f"{base}/api/v1/uploads/", token)
            return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError("gunicorn did not answer within 60 s")


# --- main ---------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--size-mb", type=int, default=2048, help="uncompressed package size")
    parser.add_argument("--format", choices=("tar", "tar.gz"), default="tar")
    parser.add_argument("--source", default=str(REPO.parent / "shared/corpus/v1.0/NVIDIA"))
    parser.add_argument(
        "--keep-logs", action="store_true", help="print the gunicorn and celery logs at the end"
    )
    args = parser.parse_args()

    # Its own folders directly under /tmp: PostgreSQL runs as user postgres, which cannot enter a
    # 0700 folder of ours, and must not see the package.
    work = Path(tempfile.mkdtemp(prefix="bench-upload-"))
    services_dir = tempfile.mkdtemp(prefix="bench-upload-services-")
    env = dict(os.environ)
    env.update(
        SERVICES_DIR=services_dir,
        PG_PORT=str(free_port()),
        REDIS_PORT=str(free_port()),
        WITH_BROWSER="0",
        DJANGO_ENV="development",  # plain http on 127.0.0.1: no HTTPS redirect
        DEBUG="false",
        ALLOWED_HOSTS="127.0.0.1",
        MEDIA_ROOT=str(work / "media"),
        FILE_UPLOAD_TEMP_DIR=str(work / "upload-tmp"),  # same filesystem as MEDIA_ROOT: saved by rename
        INGEST_WORK_DIR=str(work / "jobs"),
        UPLOAD_MAX_BYTES=str(64 * 1024**3),
        ARCHIVE_LIMITS="max_members=200000,max_total_bytes=64000000000,max_member_bytes=8000000000",
    )
    for folder in ("media", "upload-tmp", "jobs"):
        (work / folder).mkdir()
    web = worker = sampler = None
    services_started = False
    try:
        # 1. package and tarball
        start = time.perf_counter()
        package, package_bytes, files = build_package(
            Path(args.source).resolve(), work / "package", args.size_mb
        )
        tarball = write_tarball(package, work, args.format)
        tar_bytes = tarball.stat().st_size
        print(
            f"package {package.name}: {files} files, {package_bytes / MB:.0f} MB; {tarball.name} "
            f"{tar_bytes / MB:.0f} MB (built in {time.perf_counter() - start:.0f} s)",
            flush=True,
        )

        # 2. the parser alone, for comparison
        offline_env = {k: v for k, v in env.items() if k not in ("DATABASE_URL", "CELERY_BROKER_URL")}
        check_package = run_measured(
            [PYTHON, "manage.py", "check_package", str(package), "--ruleset", RULESET, "--json"], offline_env
        )
        check_folder = run_measured(
            [
                PYTHON,
                "-c",
                "import sys; from pathlib import Path; from mlperf_check.pipeline import check_folder; "
                f"check_folder(Path(sys.argv[1]), ruleset={RULESET!r}, jobs=1)",
                str(package),
            ],
            offline_env,
            ok_codes=(0,),
        )
        print(f"offline check done ({check_package.wall_s:.0f} s, {check_folder.wall_s:.0f} s)", flush=True)

        # 3. services, database, web and worker
        services_started = True
        subprocess.run(
            [str(REPO / "scripts/services.sh"), "start"], env=env, check=True, stdout=subprocess.DEVNULL
        )
        lines = subprocess.run(
            [str(REPO / "scripts/services.sh"), "env"], env=env, check=True, capture_output=True, text=True
        ).stdout.split()
        env.update(line.split("=", 1) for line in lines)
        base_url = env["DATABASE_URL"].rsplit("/", 1)[0]
        db = f"bench_upload_{os.getpid()}"
        subprocess.run(
            [
                PYTHON,
                "-c",
                f"import psycopg2; c=psycopg2.connect('{base_url}/postgres'); "
                f"c.autocommit=True; c.cursor().execute('create database {db}')",
            ],
            env=env,
            check=True,
        )
        env["DATABASE_URL"] = f"{base_url}/{db}"
        subprocess.run([PYTHON, "manage.py", "migrate", "-v0"], cwd=REPO, env=env, check=True)
        token = manage_shell(SETUP.format(round=ROUND_SLUG), env).split("TOKEN=")[1].strip()

        port = free_port()
        base = f"http://127.0.0.1:{port}"
        web_log = (work / "gunicorn.log").open("wb")
        worker_log = (work / "celery.log").open("wb")
        web = subprocess.Popen(
            [str(BIN / "gunicorn"), "config.wsgi", "-w", "2", "-b", f"127.0.0.1:{port}", "--timeout", "600"],
            cwd=REPO,
            env=env,
            stdout=web_log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        worker = subprocess.Popen(
            [
                str(BIN / "celery"),
                "-A",
                "config",
                "worker",
                "-Q",
                "default,ingest",
                "--concurrency",
                "1",
                "--pool",
                "prefork",
                "--loglevel",
                "INFO",
            ],
            cwd=REPO,
            env=env,
            stdout=worker_log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        wait_for_web(base, token, web)
        time.sleep(3)  # let the worker connect to the broker before its baseline is sampled
        sampler = Sampler({"web": web.pid, "worker": worker.pid})
        sampler.start()
        time.sleep(1)
        idle = {name: (p.single_mb, p.tree_mb) for name, p in sampler.peaks.items()}

        # 4. upload, streamed by curl
        sampler.phase = "upload"
        start = time.perf_counter()
        response = subprocess.run(
            [
                "curl",
                "-sS",
                "-H",
                f"Authorization: Token {token}",
                "-H",
                "Expect:",
                "-F",
                f"round={ROUND_SLUG}",
                "-F",
                f"file=@{tarball}",
                "-w",
                "\n%{http_code}",
                f"{base}/api/v1/submissions/",
            ],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        upload_s = time.perf_counter() - start
        body, _, code = response.rpartition("\n")
        if code != "201":
            raise RuntimeError(f"upload refused: HTTP {code}: {body[:2000]}")
        receipt = json.loads(body)
        print(f"uploaded in {upload_s:.1f} s: upload {receipt['id']}, {receipt['state']}", flush=True)

        # 5. ingestion, polled
        sampler.phase = "ingest"
        start = time.perf_counter()
        states: dict[str, float] = {}
        while True:
            status = get_json(f"{base}/api/v1/uploads/{receipt['id']}/", token)
            job = status["job"]
            states.setdefault(job["state"], time.perf_counter() - start)
            sampler.phase = f"ingest:{job['state']}"
            if job["is_final"]:
                break
            if time.perf_counter() - start > 3600:
                raise RuntimeError("ingestion did not finish within an hour")
            time.sleep(0.5)
        ingest_s = time.perf_counter() - start
        sampler.phase = "done"
        time.sleep(0.5)
        sampler.stopped.set()
        sampler.join()
        counts = json.loads(manage_shell(COUNTS.format(upload=receipt["id"]), env).strip().splitlines()[-1])

        # 6. figures
        print()
        print(
            f"tarball: {args.format}, {tar_bytes / MB:.0f} MB ({package_bytes / MB:.0f} MB uncompressed, {files} files)"
        )
        print(
            f"upload (curl -> gunicorn, streamed to disk + sha256): {upload_s:7.1f} s  {tar_bytes / MB / upload_s:7.1f} MB/s"
        )
        print(
            f"ingestion (enqueue -> done, polled every 0.5 s):        {ingest_s:7.1f} s  "
            f"{package_bytes / MB / ingest_s:7.1f} MB/s of uncompressed package"
        )
        marks = sorted(states.items(), key=lambda item: item[1])
        for (state, at), nxt in zip(marks, [m[1] for m in marks[1:]] + [ingest_s], strict=True):
            print(f"    {state:10} from {at:7.1f} s  for {nxt - at:7.1f} s")
        for name, m in (
            ("check_package (offline, 2 processes)", check_package),
            ("check_folder(jobs=1) (the worker's parser, 1 process)", check_folder),
        ):
            print(
                f"{name:54} {m.wall_s:7.1f} s  {package_bytes / MB / m.wall_s:7.1f} MB/s  "
                f"peak RSS {m.peak_rss_mb:5.0f} MB  exit {m.exit_code}"
            )
        for name, peaks in sampler.peaks.items():
            hwm = max(peaks.hwm_mb.values(), default=0.0)
            print(
                f"{name:6} peak RSS, largest single process: {peaks.single_mb:6.0f} MB (pid {peaks.single_pid}, "
                f"during {peaks.single_phase}; kernel VmHWM max {hwm:.0f} MB); tree total ({peaks.processes} "
                f"processes): {peaks.tree_mb:6.0f} MB (during {peaks.tree_phase}); idle before upload: "
                f"{idle[name][0]:.0f} / {idle[name][1]:.0f} MB"
            )
            print(
                "        largest single process by phase: "
                + ", ".join(f"{phase} {mb:.0f} MB" for phase, mb in peaks.single_by_phase.items())
            )
        print(
            f"job: {job['state']} {job['error_kind']} {job['error'][:300]}; stored {counts['systems']} systems, "
            f"{counts['results']} results, {counts['runs']} runs, {counts['findings']} findings "
            f"(status finding counts {status['finding_counts']})"
        )
        if args.keep_logs:
            for log in (work / "gunicorn.log", work / "celery.log"):
                print(f"--- {log.name}\n{log.read_text(errors='replace')[-5000:]}")
    except BaseException:
        for log in (work / "gunicorn.log", work / "celery.log"):
            if log.is_file():
                print(f"--- {log.name} (tail)\n{log.read_text(errors='replace')[-4000:]}", file=sys.stderr)
        raise
    finally:
        if sampler is not None:
            sampler.stopped.set()
        stop_process(web)
        stop_process(worker)
        if services_started:
            subprocess.run([str(REPO / "scripts/services.sh"), "stop"], env=env, stdout=subprocess.DEVNULL)
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree(services_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
