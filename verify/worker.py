"""The GPU worker's side of a verification job. No Django, no ORM, no database credentials.

The worker observes and reports; the server decides (verify/services.py with verify/reproduce.py).
It never sends a verdict: its last call only says that the job ended, and why when it was the
worker's own failure. Everything goes through the internal API (verify/internal_api.py) with the
job's token, which the worker derives from its key and the task message's nonce (verify/tokens.py)
and which stops working when the job ends, so a worker that outlived its job cannot write to it.

Per job: fetch the spec and the code, report the worker's hardware, then for each requested run:
1. choose a fresh SEED and a fresh seed for the evaluator's data, and a secret marker;
2. run the run script under verify/evaluators/runner.py in the sandbox (the runner kills what the
   script leaves running, then runs the benchmark's registered evaluator and prints its result
   after the marker);
3. ship the output as it comes, each line with when it reached the worker (the job's clock: see
   JobClock), and GPU telemetry;
4. report the run's evidence: how it ended, its wall time, the CPU time of its processes over time,
   the evaluator's figure (run_evidence()).
A run that ends badly ends the job. `verify/tests/test_reproduce.py` checks that this module and its
imports stay Django-free.
"""

from __future__ import annotations

import json
import logging
import os
import re
import secrets
import shutil
import tempfile
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from mlperf_check.safety import extract_archive

from .evaluators import RUNNER_FOLDER
from .hardware import describe_worker
from .reproduce import ArrivalClock
from .sandbox import (
    CODE_DIR,
    DATA_DIR,
    EXITED,
    OUTPUT_DIR,
    RUNNER_DIR,
    SANDBOX_ENV,
    Limits,
    RunOutcome,
    RunSpec,
    make_sandbox,
    process_exists,
    remove_leftover_cgroups,
)
from .telemetry import GpuSampler
from .tokens import job_token, worker_key

log = logging.getLogger(__name__)

FAILED = "failed"
REQUEST_TIMEOUT_SECONDS = 30
SHIP_SLICE_BYTES = 256 * 1024
MAX_RUN_LOG_BYTES = 256 * 1024**2  # real MLPerf logs are at most a few tens of MB
RESULT_TAIL_BYTES = 64 * 1024  # where the runner's result line is looked for (it is the last line)
WORK_FOLDER_PREFIX = "verify-job-"
# verify-job-<job>-pid<worker process>-<random>: a restarted worker removes those whose process is gone.
WORK_FOLDER_NAME = re.compile(r"^verify-job-\d+-(?:pid(?P<pid>\d+)-)?")


@dataclass
class WorkerConfig:
    """The worker's own settings, from its environment (the gpu-worker service in docker-compose.yml)."""

    api_url: str  # where the web app's /internal/verify/ lives, e.g. http://web:8000
    key: str  # VERIFY_WORKER_KEY: derives each job's token (verify/tokens.py)
    sandbox: str = "bubblewrap"  # or "container"
    sandbox_limits: str = "cgroup"  # bubblewrap: "cgroup" (required) or "rlimits" (weaker, docs/security.md)
    container_image: str = ""
    container_engine: str = "docker"
    data_dir: Path = Path("/var/lib/mlperf-data")  # the datasets, mounted read-only into every run
    work_dir: str = ""  # where code goes (one folder per job, mode 0700); "" for the system's temporary folder
    ship_seconds: float = 1.0  # how often the log and telemetry are sent (each send is a heartbeat)

    @classmethod
    def from_env(cls, env=os.environ) -> WorkerConfig:
        return cls(
            api_url=env.get("VERIFY_API_URL", "http://127.0.0.1:8000").rstrip("/"),
            key=worker_key(env),
            sandbox=env.get("VERIFY_SANDBOX", "bubblewrap"),
            sandbox_limits=env.get("VERIFY_SANDBOX_LIMITS", "cgroup"),
            container_image=env.get("VERIFY_CONTAINER_IMAGE", ""),
            container_engine=env.get("VERIFY_CONTAINER_ENGINE", "docker"),
            data_dir=Path(env.get("VERIFY_DATA_DIR", "/var/lib/mlperf-data")),
            work_dir=env.get("VERIFY_WORK_DIR", ""),
            ship_seconds=float(env.get("VERIFY_SHIP_SECONDS", "1.0")),
        )


class JobGone(Exception):
    """The internal API refused our token: the job has ended (finished, swept as dead) or is not ours."""


class InternalApi:
    def __init__(self, base_url: str, job_id: int, token: str):
        self.base = f"{base_url}/internal/verify/{job_id}/"
        self.token = token

    def call(self, method: str, name: str, body: bytes | None = None, content_type: str = "application/json") -> bytes:
        request = urllib.request.Request(self.base + name, data=body, method=method)
        request.add_header("Authorization", f"Bearer {self.token}")
        if body is not None:
            request.add_header("Content-Type", content_type)
        try:
            with urllib.request.urlopen(request, timeout=REQUEST_TIMEOUT_SECONDS) as response:
                return response.read()
        except urllib.error.HTTPError as exc:
            if exc.code in (403, 404, 410):
                raise JobGone(f"{name}: HTTP {exc.code} {exc.read()[:200]!r}") from exc
            raise

    def post(self, name: str, payload: dict) -> dict:
        return json.loads(self.call("POST", name, json.dumps(payload).encode()) or b"{}")

    def spec(self) -> dict:
        return json.loads(self.call("GET", "spec"))


@dataclass
class JobClock:
    """The job's clock: seconds since the job started on this worker (time.monotonic()), and what
    the wall clock said at that zero (`epoch`), so the server can read a log's timestamps against it."""

    origin: float = field(default_factory=time.monotonic)
    epoch: float = field(default_factory=time.time)

    def now(self) -> float:
        return time.monotonic() - self.origin

    def at(self, monotonic: float) -> float:
        return monotonic - self.origin


class Shipper:
    """Sends one run's output, its lines' arrival times and the GPU samples gathered so far every
    `interval` seconds from a side thread; each send refreshes the job's heartbeat."""

    def __init__(self, api: InternalApi, gpu: GpuSampler, interval: float, run: int, clock: ArrivalClock):
        self.api = api
        self.gpu = gpu
        self.interval = interval
        self.run = run
        self.clock = clock
        self.pending = bytearray()
        self.arrivals_sent = 0
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._loop, name="verify-shipper", daemon=True)
        self.gone: JobGone | None = None

    def add(self, chunk: bytes, timed: bool = True) -> None:
        with self.lock:
            self.pending.extend(chunk)
            if timed:
                self.clock.feed(chunk)

    def flush(self, final: bool = False) -> None:
        with self.lock:
            pending, self.pending = bytes(self.pending), bytearray()
            # The clock's last point may still move (lines arriving within its resolution): it is
            # sent with the next flush, or now when the run is over.
            upto = len(self.clock.lines) if final else max(len(self.clock.lines) - 1, self.arrivals_sent)
            arrivals, self.arrivals_sent = self.clock.points(self.arrivals_sent, upto), upto
        samples = self.gpu.take()
        # In slices well under the API's request cap, however fast the run writes.
        for start in range(0, max(len(pending), 1), SHIP_SLICE_BYTES):
            first = start == 0
            self.api.post("log", {
                "run": self.run,
                "text": pending[start : start + SHIP_SLICE_BYTES].decode("utf-8", "replace"),
                "arrivals": arrivals if first else [],
                "telemetry": samples if first else [],
            })

    def _loop(self) -> None:
        while not self.stop.wait(self.interval):
            try:
                self.flush()
            except JobGone as exc:
                self.gone = exc
                return
            except OSError:  # the web app is briefly unreachable: the next tick sends it all
                continue

    def __enter__(self) -> Shipper:
        self.thread.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self.stop.set()
        self.thread.join()


class CappedOutput:
    """Receives one run's output: into its log file and to the shipper, up to MAX_RUN_LOG_BYTES. A
    run that floods its output must not fill the worker's disk: past the cap the rest is dropped
    (the run goes on; its log then lacks run_stop, so it does not reach the target). The last
    RESULT_TAIL_BYTES are kept whatever the cap: the runner's result line is there."""

    def __init__(self, log_file, shipper: Shipper):
        self.log_file = log_file
        self.shipper = shipper
        self.written = 0
        self.tail = bytearray()

    def __call__(self, chunk: bytes) -> None:
        self.tail.extend(chunk)
        del self.tail[:-RESULT_TAIL_BYTES]
        room = MAX_RUN_LOG_BYTES - self.written
        if room <= 0:
            return
        kept = chunk[:room]
        self.written += len(kept)
        self.log_file.write(kept)
        self.shipper.add(kept)
        if len(kept) < len(chunk):
            self.shipper.add(f"\n[output cut at {MAX_RUN_LOG_BYTES} bytes]\n".encode(), timed=False)


def runner_result(tail: bytes, marker: str) -> dict | None:
    """The runner's result line (`<marker> {json}`), or None when the run ended without one."""
    for line in reversed(tail.decode("utf-8", "replace").splitlines()):
        if line.startswith(marker + " "):
            try:
                result = json.loads(line[len(marker) + 1 :])
            except ValueError:
                return None
            return result if isinstance(result, dict) else None
    return None


def fetch_code(api: InternalApi, workdir: Path) -> Path:
    """Download the implementation folder (a tar.gz) and unpack it with the ingestion's archive
    safety checks (no links, no escaping paths, size limits)."""
    archive = workdir / "code.tar.gz"
    archive.write_bytes(api.call("GET", "code"))
    code = extract_archive(archive, workdir / "code")
    archive.unlink()
    for folder, _subfolders, _files in os.walk(code):
        # Readable by the sandbox's unprivileged user; the job folder around it stays 0700.
        os.chmod(folder, 0o755)
    return code


def dataset_dir(data_dir: Path, benchmark: str) -> Path:
    """What the run sees at /data: `<data_dir>/<benchmark>/` where the data directory holds one folder
    per benchmark (the run then sees no other benchmark's data), else the whole data directory."""
    named = data_dir / benchmark
    if re.fullmatch(r"[A-Za-z0-9_.-]+", benchmark) and benchmark not in (".", "..") and named.is_dir():
        return named
    return data_dir


def clean_leftovers(config: WorkerConfig) -> list[str]:
    """What a killed worker left behind: its jobs' folders (the submission's code) and, with
    bubblewrap, its runs' cgroups; only those whose worker process is gone, so another worker on
    the same machine keeps its own. Called when the worker starts (verify/gpu_worker.py)."""
    removed = []
    work = Path(config.work_dir or tempfile.gettempdir())
    for folder in sorted(work.glob(f"{WORK_FOLDER_PREFIX}*")) if work.is_dir() else []:
        match = WORK_FOLDER_NAME.match(folder.name)
        if match is None or not folder.is_dir() or folder.is_symlink():
            continue
        if match["pid"] and process_exists(int(match["pid"])):
            continue  # a running worker's job
        shutil.rmtree(folder, ignore_errors=True)
        removed.append(str(folder))
    if config.sandbox == "bubblewrap" and config.sandbox_limits == "cgroup":
        removed += remove_leftover_cgroups()
    return removed


def run_job(job_id: int, nonce: str, config: WorkerConfig | None = None) -> str:
    """Do verification job `job_id` (the task message's `nonce` derives its token); returns the
    outcome the server decided, or "gone"."""
    config = config or WorkerConfig.from_env()
    token = job_token(config.key, job_id, nonce)
    api = InternalApi(config.api_url, job_id, token)
    try:
        spec = api.spec()
    except JobGone:
        log.error("verification %s: the server refused this worker's token (the job ended, or VERIFY_WORKER_KEY "
                  "differs from the web app's)", job_id)
        return "gone"
    # 0700 (mkdtemp): the submission's code inside is for the sandbox only.
    workdir = Path(tempfile.mkdtemp(prefix=f"{WORK_FOLDER_PREFIX}{job_id}-pid{os.getpid()}-", dir=config.work_dir or None))
    try:
        return _run(api, spec, config, workdir)
    except JobGone:
        return "gone"
    except Exception as exc:  # our side (a missing bwrap, a broken download): say so rather than go silent
        # Celery's time limit is the task's to report (verify/gpu_worker.py). Matched by name: importing
        # celery here would load parts of Django into this Django-free module.
        if type(exc).__name__ == "SoftTimeLimitExceeded":
            raise
        return report_ended(job_id, nonce, FAILED, f"the verification worker could not run the job: "
                                                   f"{type(exc).__name__}: {exc}", config)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def report_ended(job_id: int, nonce: str, hint: str, message: str, config: WorkerConfig | None = None) -> str:
    """Tell the server the job ended (`hint`: the failure the worker saw, if any); returns the
    outcome the server decided from its evidence, or "gone" once the job is over."""
    config = config or WorkerConfig.from_env()
    try:
        answer = InternalApi(config.api_url, job_id, job_token(config.key, job_id, nonce)).post(
            "outcome", {"outcome": hint, "message": message})
    except JobGone:
        return "gone"
    return str(answer.get("outcome", ""))


def run_evidence(number: int, seed: int, eval_seed: int, outcome: RunOutcome, clock: JobClock, started_t: float,
                 result: dict | None) -> dict:
    """What the worker observed of one run, for the server to judge (verify/schema.py run_evidence)."""
    return {
        "number": number,
        "seed": seed,
        "eval_seed": eval_seed,
        "status": outcome.status,
        "exit_code": outcome.exit_code,
        "detail": outcome.detail,
        "limits": outcome.limits,
        "wall_seconds": round(outcome.wall_seconds, 3),
        "started_t": round(started_t, 3),
        "ended_t": round(clock.now(), 3),
        "epoch_at_zero": clock.epoch,
        "cpu": [[round(clock.at(moment), 3), used] for moment, used in outcome.cpu_samples],
        "evaluation": (result or {}).get("evaluation"),
    }


def copy_runner(workdir: Path) -> Path:
    """The runner and evaluators (verify/evaluators) beside the job's code: the container engine
    mounts host paths, and the job folder is one (VERIFY_WORK_DIR, the same path inside and out)."""
    runner = shutil.copytree(RUNNER_FOLDER, workdir / "runner", ignore=shutil.ignore_patterns("__pycache__"))
    for folder, _subfolders, files in os.walk(runner):
        os.chmod(folder, 0o755)
        for name in files:
            os.chmod(Path(folder) / name, 0o644)  # readable by the sandbox's unprivileged user
    return runner


def _run(api: InternalApi, spec: dict, config: WorkerConfig, workdir: Path) -> str:
    api.post("progress", {"stage": "fetching the code", "runs_done": 0})
    code = fetch_code(api, workdir)
    runner = copy_runner(workdir)
    sandbox = make_sandbox(config.sandbox, config.container_image, config.container_engine, config.sandbox_limits)
    limits = Limits(**spec["limits"])
    runs = spec["runs"]
    clock = JobClock()
    with GpuSampler(origin=clock.origin) as gpu:
        api.post("progress", {"stage": "starting", "runs_done": 0, "gpu": {"available": gpu.available, "note": gpu.note},
                              "hardware": describe_worker(gpu.names)})
        for number in range(1, runs + 1):
            # Chosen now, never known to the submission in advance: the run's seed, as the rules ask
            # of submitters; the evaluator's data; the marker of the runner's result line.
            seed, eval_seed = secrets.randbelow(2**31), secrets.randbelow(2**31)
            marker = f"[verification runner {secrets.token_hex(16)}]"
            api.post("progress", {"stage": f"re-run {number} of {runs} (seed {seed})", "runs_done": number - 1})
            api.post("log", {"run": None, "text": f"\n===== re-run {number} of {runs}, seed {seed} =====\n"})
            log_path = workdir / f"rerun_{number}.txt"
            started_t = clock.now()
            with log_path.open("wb") as log_file, Shipper(api, gpu, config.ship_seconds, number,
                                                         ArrivalClock(origin=clock.origin)) as shipper:
                on_output = CappedOutput(log_file, shipper)
                outcome = sandbox.run(
                    RunSpec(
                        code_dir=code,
                        data_dir=dataset_dir(config.data_dir, spec["benchmark"]),
                        command=["python3", f"{RUNNER_DIR}/runner.py", "/bin/sh", f"{CODE_DIR}/{spec['run_script']}"],
                        env={**SANDBOX_ENV, "SEED": str(seed), "DATADIR": DATA_DIR, "OUTPUT_DIR": OUTPUT_DIR,
                             "VERIFY_RESULT_MARKER": marker, "VERIFY_EVALUATOR": spec.get("evaluator") or "",
                             "VERIFY_EVAL_SEED": str(eval_seed)},
                        limits=limits,
                        name=f"verify-{spec['job']}-{number}",
                        runner_dir=runner,
                    ),
                    on_output,
                )
            if shipper.gone:
                raise shipper.gone
            shipper.flush(final=True)
            result = runner_result(bytes(on_output.tail), marker)
            api.post("run", run_evidence(number, seed, eval_seed, outcome, clock, started_t, result))
            if not outcome.succeeded:  # the job ends here; the server names how from the evidence
                hint = outcome.status if outcome.status != EXITED else FAILED
                answer = api.post("outcome", {"outcome": hint, "message": f"re-run {number}: {outcome.detail}"})
                return str(answer.get("outcome", ""))
            api.post("progress", {"stage": f"re-run {number} of {runs} done", "runs_done": number})
    return str(api.post("outcome", {"message": f"{runs} re-run(s) done"}).get("outcome", ""))

