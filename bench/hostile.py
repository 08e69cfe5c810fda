"""Hostile load: gunicorn and a Celery worker under attack requests, while an ordinary page is timed.

    scripts/services.sh start            # throwaway PostgreSQL and Redis
    .venv/bin/python bench/hostile.py

Steps: create the `mlperf_bench_hostile` database next to the one in DATABASE_URL (from
`scripts/services.sh env` when unset), migrate, import the bundled v1.0 Fujitsu sample as a
published round, make one of its runs' stored log 20 MB of empty lines, open a second round for
uploads, then start gunicorn (DEBUG off) and a Celery worker on the `ingest` queue. Three attacks,
each REQUESTS times with CLIENTS concurrent clients, one after the other:

* the log page of the 20 MB empty-lines log (`/logs/<sha>/?page=N`, pages all over the log);
* a zip64 entry-count bomb upload (70,000 empty members, zip64 end records), each one a job the
  worker refuses;
* an oversized multi-part request (six 3 MiB file parts against a 16 MiB UPLOAD_MAX_BYTES: each
  part fits, the request does not). Status 0 in the answers: the server answered 413 and closed
  the connection before the client had sent the whole body, which is the point;
* the page of a running verification job whose log is 20 MB of `:::MLLOG` lines
  (`/verify/jobs/<id>/?page=N`, pages all over the log), and its status poll (`status.json`, which
  the page asks for every second). The setup appends that log as the worker does, in 256 KiB
  slices through verify.services.append_output, and prints the median time of the last ten appends
  against the first ten (constant-time appends: a ratio near 1).

Meanwhile one client requests the round page in a loop (its p95 latency is printed per attack) and
a sampler reads the resident memory (VmRSS) of every gunicorn and worker process from /proc. The
target: peak RSS of each process under 300 MB, and the ordinary page keeps answering 200. `--only
TEXT` runs only the attacks whose name holds TEXT, and skips the slow-body step.

Then the slow-body attack: as many clients as gunicorn has workers each start an upload and send
its body one byte every two seconds, for SLOW_SECONDS, while a probe asks for the round page every
second with a 5 s timeout: once straight at gunicorn, once through nginx configured with
deploy/nginx.conf (the docker-compose `proxy`; skipped, saying so, where no `nginx` is installed).
The target: through the proxy every probe answers 200.
"""

from __future__ import annotations

import argparse
import http.client
import io
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlparse

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
UPLOAD_LIMIT = 16 * 1024 * 1024  # the bomb fits under it; the six parts together do not
PART_BYTES = 3 * 1024 * 1024
SLOW_SECONDS = 30

from bench.web import PYTHON, create_database, free_port, manage  # noqa: E402
from deploy.local_nginx import NGINX, LocalNginx  # noqa: E402

SETUP = """
import django; django.setup()
import sys
from django.contrib.auth.models import User
from rest_framework.authtoken.models import Token
from results.models import Organization, Round, Run
from results.services.rounds import ensure_round
from results.services.training_import import store_log_copy

log = b"run_start\\n" + b"\\n" * (20 * 1024 * 1024)
run = Run.objects.filter(result__submission__is_published=True).order_by("pk").first()
sha = "e" * 64
run.sha256, run.log_name = sha, store_log_copy(sha, log)
run.save(update_fields=["sha256", "log_name"])
open_round = ensure_round("training-v0.7")
Round.objects.filter(pk=open_round.pk).update(state="open", submission_deadline=None)
org, _ = Organization.objects.get_or_create(slug="hostile", defaults={"name": "Hostile Bench"})
user, _ = User.objects.get_or_create(username="hostile")
org.members.add(user)
token, _ = Token.objects.get_or_create(user=user)
published = Round.objects.get(state="published")
print(sha, token.key, published.slug, open_round.slug)

import json, statistics, time
from verify import services
from verify.models import VerificationJob
job = VerificationJob.objects.create(result=run.result, runs_requested=1, tolerance=0.05, state="running",
                                     stage="running run 1")
line = ':::MLLOG {"namespace": "", "time_ms": %d, "event_type": "POINT_IN_TIME", "key": "train_loss", '
line += '"value": 0.4213, "metadata": {"file": "train.py", "lineno": 412, "epoch_num": 3, "step": %d}}\\n'
from django.conf import settings
text = "".join(line % (1700000000000 + n, n) for n in range(settings.VERIFY_MAX_LOG_CHARS // (len(line) + 16)))
took = []
for start in range(0, len(text), 256 * 1024):
    begun = time.perf_counter()
    services.append_output(job, text[start : start + 256 * 1024], [])
    took.append(time.perf_counter() - begun)
job.refresh_from_db()
print(json.dumps({"job": job.pk, "pages": job.log_page(1).page_count, "chars": job.log_chars, "appends": len(took),
                  "first_ms": 1000 * statistics.median(took[:10]), "last_ms": 1000 * statistics.median(took[-10:])}))
"""


def service_env(work: Path) -> dict[str, str]:
    env = dict(os.environ)
    if "DATABASE_URL" not in env:
        out = subprocess.run([str(REPO / "scripts" / "services.sh"), "env"], capture_output=True, text=True, check=True)
        env.update(line.split("=", 1) for line in out.stdout.split() if "=" in line)
    url = urlparse(env["DATABASE_URL"])
    env["BENCH_ADMIN_URL"] = env["DATABASE_URL"]
    env["DATABASE_URL"] = url._replace(path="/mlperf_bench_hostile").geturl()
    env.update(
        DJANGO_ENV="development",  # plain http on 127.0.0.1: no HTTPS redirect
        DEBUG="false",
        DJANGO_SETTINGS_MODULE="config.settings",
        MEDIA_ROOT=str(work / "media"),
        FILE_UPLOAD_TEMP_DIR=str(work / "upload-tmp"),
        INGEST_WORK_DIR=str(work / "jobs"),
        UPLOAD_MAX_BYTES=str(UPLOAD_LIMIT),
        UPLOAD_RATE="1000000/hour",
        MAX_CONCURRENT_JOBS_PER_ORG="100000",
        LOG_LEVEL="ERROR",
    )
    for folder in ("media", "upload-tmp", "jobs"):
        (work / folder).mkdir(parents=True, exist_ok=True)
    return env


def zip64_bomb(path: Path, entries: int) -> bytes:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as archive:
        for n in range(entries):
            archive.writestr(f"P/{n:x}", b"")
    return path.read_bytes()


def multipart(fields: dict[str, str], files: list[tuple[str, str, bytes]]) -> tuple[bytes, str]:
    boundary = uuid.uuid4().hex
    body = io.BytesIO()
    for name, value in fields.items():
        body.write(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n{value}\r\n'.encode())
    for name, filename, data in files:
        body.write(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; filename="{filename}"\r\n'
                   "Content-Type: application/octet-stream\r\n\r\n".encode())
        body.write(data + b"\r\n")
    body.write(f"--{boundary}--\r\n".encode())
    return body.getvalue(), f"multipart/form-data; boundary={boundary}"


def request(port: int, method: str, path: str, body: bytes = b"", headers: dict | None = None) -> tuple[int, bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        connection.request(method, path, body=body or None, headers=headers or {})
        response = connection.getresponse()
        return response.status, response.read()
    except (BrokenPipeError, ConnectionResetError):
        return 0, b""  # the server answered and closed before the body was all sent
    finally:
        connection.close()


def slow_upload(port: int, headers: dict, stop: threading.Event, interval: float = 2.0) -> str:
    """Start an upload and send its body one byte every `interval` seconds until `stop`."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        head = "".join(f"{name}: {value}\r\n" for name, value in headers.items())
        # A multipart upload, as the upload form sends one: the server reads its body as it comes.
        sock.sendall(f"POST /api/v1/submissions/ HTTP/1.1\r\nHost: 127.0.0.1\r\n{head}"
                     "Content-Type: multipart/form-data; boundary=slowslowslow\r\nContent-Length: 1000000\r\n\r\n"
                     "--slowslowslow\r\nContent-Disposition: form-data; name=\"file\"; filename=\"slow.tar.gz\"\r\n"
                     "Content-Type: application/gzip\r\n\r\n".encode())
        sent = 0
        while not stop.wait(interval):
            try:
                sock.sendall(b"x")
                sent += 1
            except OSError:
                return f"cut off after {sent} bytes"
        return f"still sending after {sent} bytes"


def probe_during_slow_uploads(port: int, page: str, clients: int, headers: dict) -> tuple[int, int, list[str]]:
    """(answered 200, probes, what became of the slow clients)."""
    stop = threading.Event()
    with ThreadPoolExecutor(clients) as pool:
        slow = [pool.submit(slow_upload, port, headers, stop) for _ in range(clients)]
        time.sleep(3)  # every slow client has its request started
        ok = probes = 0
        deadline = time.monotonic() + SLOW_SECONDS
        while time.monotonic() < deadline:
            probes += 1
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            try:
                connection.request("GET", page)
                ok += connection.getresponse().status == 200
            except OSError:
                pass
            finally:
                connection.close()
            time.sleep(1)
        stop.set()
        return ok, probes, sorted({future.result().split(" after")[0] for future in slow})


def process_tree(root_pids: list[int]) -> list[int]:
    """root_pids and all their descendants, from /proc."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    found, todo = [], list(root_pids)
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, []))
    return found


def rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


class Sampler(threading.Thread):
    """Peak RSS of any single process, and of all together, per group (web, worker)."""

    def __init__(self, groups: dict[str, int]):
        super().__init__(daemon=True)
        self.groups = groups
        self.peak_process = dict.fromkeys(groups, 0.0)
        self.peak_total = dict.fromkeys(groups, 0.0)
        self.stopping = threading.Event()

    def run(self) -> None:
        while not self.stopping.wait(0.05):
            self.sample()

    def sample(self) -> None:
        for name, root in self.groups.items():
            sizes = [rss_mb(pid) for pid in process_tree([root])]
            self.peak_process[name] = max(self.peak_process[name], max(sizes, default=0.0))
            self.peak_total[name] = max(self.peak_total[name], sum(sizes))

    def reset(self) -> None:
        self.peak_process = dict.fromkeys(self.groups, 0.0)
        self.peak_total = dict.fromkeys(self.groups, 0.0)


class OrdinaryPage(threading.Thread):
    """One client requesting an ordinary page in a loop, recording latency and non-200 answers."""

    def __init__(self, port: int, path: str):
        super().__init__(daemon=True)
        self.port, self.path = port, path
        self.latencies: list[float] = []
        self.failures = 0
        self.stopping = threading.Event()

    def run(self) -> None:
        while not self.stopping.is_set():
            started = time.perf_counter()
            status, _ = request(self.port, "GET", self.path)
            self.latencies.append(time.perf_counter() - started)
            if status != 200:
                self.failures += 1
            time.sleep(0.05)

    def take(self) -> tuple[float, int, int]:
        latencies, failures = sorted(self.latencies), self.failures
        self.latencies, self.failures = [], 0
        p95 = latencies[max(0, int(len(latencies) * 0.95) - 1)] * 1000 if latencies else float("nan")
        return p95, len(latencies), failures


def wait_for_port(port: int) -> None:
    for _ in range(200):
        try:
            request(port, "GET", "/sitemap.xml")
            return
        except OSError:
            time.sleep(0.1)
    sys.exit("gunicorn did not start")


def wait_for_jobs(env: dict[str, str], timeout: float) -> str:
    code = ("import django; django.setup()\nfrom ingest.models import IngestJob\n"
            "from django.db.models import Count\n"
            "print(dict(IngestJob.objects.values_list('state').annotate(n=Count('pk')).order_by()))")
    deadline = time.monotonic() + timeout
    states = ""
    while time.monotonic() < deadline:
        states = subprocess.run([PYTHON, "-c", code], cwd=REPO, env=env, capture_output=True, text=True).stdout.strip()
        if "received" not in states and "unpacking" not in states and "parsing" not in states \
                and "checking" not in states:
            break
        time.sleep(1)
    return states


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=50)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--web-workers", type=int, default=4)
    parser.add_argument("--zip-entries", type=int, default=70_000)
    parser.add_argument("--only", default="", help="run only the attacks whose name holds this; no slow bodies")
    options = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="bench-hostile-"))
    env = service_env(work)
    create_database(env, "mlperf_bench_hostile", fresh=True)
    manage(env, "migrate", "--noinput", "-v0")
    manage(env, "import_results", "sample_data/training-v1.0/Fujitsu", "--round", "training-v1.0", "--publish")
    ids, job_log = subprocess.run(
        [PYTHON, "-c", SETUP], cwd=REPO, env=env, capture_output=True, text=True, check=True
    ).stdout.splitlines()[-2:]
    sha, token, published, open_round = ids.split()
    job_log = json.loads(job_log)
    bomb = zip64_bomb(work / "bomb.zip", options.zip_entries)
    oversized, oversized_type = multipart({"round": open_round}, [(f"file{n}", f"p{n}.tar", b"\0" * PART_BYTES) for n in range(6)])
    bomb_body, bomb_type = multipart({"round": open_round, "confirm_identical": "true"}, [("file", "bomb.zip", bomb)])
    auth = {"Authorization": f"Token {token}"}

    port = free_port()
    web = subprocess.Popen(
        [str(REPO / ".venv" / "bin" / "gunicorn"), "config.wsgi:application", "-b", f"127.0.0.1:{port}",
         "-w", str(options.web_workers), "--log-level", "warning", "--timeout", "120"],
        cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=(work / "gunicorn.log").open("w"),
    )
    worker = subprocess.Popen(
        [str(REPO / ".venv" / "bin" / "celery"), "-A", "config", "worker", "-Q", "ingest", "--concurrency", "2",
         "--loglevel", "WARNING", "--without-gossip", "--without-mingle", "-n", f"hostile-{uuid.uuid4().hex[:6]}@%h"],
        cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    sampler = Sampler({"web": web.pid, "worker": worker.pid})
    ordinary = OrdinaryPage(port, f"/rounds/{published}/")
    try:
        wait_for_port(port)
        time.sleep(3)  # the worker connects to the broker
        sampler.start()
        ordinary.start()
        time.sleep(5)
        p95, count, failures = ordinary.take()
        print(f"{options.requests} requests per attack, {options.clients} concurrent clients; gunicorn -w "
              f"{options.web_workers}, one Celery worker --concurrency 2; {os.cpu_count()} CPUs")
        print(f"verification log: {job_log['chars']:,} characters in {job_log['appends']} appends; median append "
              f"{job_log['first_ms']:.1f} ms (first ten) vs {job_log['last_ms']:.1f} ms (last ten): ratio "
              f"{job_log['last_ms'] / job_log['first_ms']:.2f}")
        print(f"{'attack':34} {'answers':>16} {'s':>6} {'largest KB':>11} {'web peak MB':>12} {'(all)':>7} "
              f"{'worker peak MB':>15} {'(all)':>7} {'page p95 ms':>12} {'page non-200':>13}")
        print(f"{'(idle)':34} {'':>16} {'':>6} {'':>11} {sampler.peak_process['web']:12.0f} {sampler.peak_total['web']:7.0f} "
              f"{sampler.peak_process['worker']:15.0f} {sampler.peak_total['worker']:7.0f} {p95:12.0f} "
              f"{failures:>6} of {count:<4}")
        pages = max(1, (20 * 1024 * 1024) // 2000)
        attacks = [
            ("log page, 20 MB of empty lines", lambda n: request(port, "GET", f"/logs/{sha}/?page={1 + n * 211 % pages}")),
            ("zip64 entry-count bomb upload", lambda n: request(port, "POST", "/api/v1/submissions/", bomb_body,
                                                               {**auth, "Content-Type": bomb_type})),
            ("oversized multi-part request", lambda n: request(port, "POST", "/api/v1/submissions/", oversized,
                                                              {**auth, "Content-Type": oversized_type})),
            ("verification job page, 20 MB log", lambda n: request(
                port, "GET", f"/verify/jobs/{job_log['job']}/?page={1 + n * 7 % job_log['pages']}")),
            ("verification job status poll", lambda n: request(port, "GET", f"/verify/jobs/{job_log['job']}/status.json")),
        ]
        for label, attack in attacks:
            if options.only not in label:
                continue
            sampler.reset()
            started = time.perf_counter()
            with ThreadPoolExecutor(options.clients) as pool:
                answered = list(pool.map(lambda n, attack=attack: attack(n), range(options.requests)))
            statuses = [status for status, _ in answered]
            largest = max((len(body) for _, body in answered), default=0) / 1024
            if "zip64" in label:
                jobs = wait_for_jobs(env, timeout=600)
            elapsed = time.perf_counter() - started
            p95, count, failures = ordinary.take()
            answers = ",".join(f"{code}x{statuses.count(code)}" for code in sorted(set(statuses)))
            print(f"{label:34} {answers:>16} {elapsed:6.1f} {largest:11.1f} {sampler.peak_process['web']:12.0f} "
                  f"{sampler.peak_total['web']:7.0f} {sampler.peak_process['worker']:15.0f} "
                  f"{sampler.peak_total['worker']:7.0f} {p95:12.0f} {failures:>6} of {count:<4}")
            if "zip64" in label:
                print(f"{'':34} jobs: {jobs}")
        print(json.dumps({"target": "each process under 300 MB; the ordinary page answers 200 throughout"}))
        ordinary.stopping.set()
        if options.only:
            return
        print(f"\nslow bodies: {options.web_workers} clients each sending an upload body one byte every 2 s for "
              f"{SLOW_SECONDS} s; the round page probed every second (5 s timeout)")
        ok, probes, fates = probe_during_slow_uploads(port, f"/rounds/{published}/", options.web_workers, auth)
        print(f"{'straight at gunicorn':34} page answered {ok} of {probes}; slow clients: {', '.join(fates)}")
        if NGINX is None:
            print(f"{'through nginx':34} skipped: nginx is not installed (apt-get install nginx-light)")
        else:
            # One bench machine is one address: without the per-client limits.
            nginx = LocalNginx(port, trusted_proxy_count=1, per_client_limits=False)
            try:
                proxy_port = nginx.start()
                ok, probes, fates = probe_during_slow_uploads(proxy_port, f"/rounds/{published}/", options.web_workers,
                                                              auth)
                print(f"{'through nginx (deploy/nginx.conf)':34} page answered {ok} of {probes}; slow clients: "
                      f"{', '.join(fates)}")
            finally:
                nginx.stop()
        print(json.dumps({"target": "through the proxy the page answers every probe while the slow bodies trickle"}))
    finally:
        ordinary.stopping.set()
        sampler.stopping.set()
        web.terminate()
        worker.terminate()
        web.wait(timeout=20)
        worker.wait(timeout=30)


if __name__ == "__main__":
    main()
