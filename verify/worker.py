"""The GPU worker's side of a verification job. No Django, no ORM, no database credentials.

Everything the worker learns and reports goes through the internal API (verify/internal_api.py)
with the job's own token: the job spec, the submission's implementation code, heartbeats and
progress, the log as it is written, GPU telemetry, and the outcome. The token stops working when
the job ends, so a worker that outlived its job (swept as dead) cannot write to it any more.

Per job: fetch the spec and code, then for each requested run start the code's run script in the
sandbox with a fresh seed, ship its output, parse its log with the checker package, and decide.
A run that times out, runs out of memory, trips the sandbox or fails ends the job at once.
`tests/test_worker_is_pure.py` checks that this module and its imports stay Django-free.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import tempfile
import threading
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from mlperf_check.safety import extract_archive

from .reproduce import ArrivalClock, Rerun, decide, parse_rerun
from .sandbox import CODE_DIR, DATA_DIR, EXITED, OUTPUT_DIR, SANDBOX_ENV, Limits, RunSpec, make_sandbox
from .telemetry import GpuSampler

FAILED = "failed"
LOG_TAIL_CHARS = 3000
REQUEST_TIMEOUT_SECONDS = 30
SHIP_SLICE_BYTES = 256 * 1024
MAX_RUN_LOG_BYTES = 256 * 1024**2  # real MLPerf logs are at most a few tens of MB


@dataclass
class WorkerConfig:
    """The worker's own settings, from its environment (the gpu-worker service in docker-compose.yml)."""

    api_url: str  # where the web app's /internal/verify/ lives, e.g. http://web:8000
    sandbox: str = "bubblewrap"  # or "container"
    sandbox_limits: str = "cgroup"  # bubblewrap: "cgroup" (required) or "rlimits" (weaker, docs/security.md)
    container_image: str = ""
    container_engine: str = "docker"
    data_dir: Path = Path("/var/lib/mlperf-data")  # the datasets, mounted read-only into every run
    work_dir: str = ""  # where code and run outputs go (one temporary folder per job)
    ship_seconds: float = 1.0  # how often the log and telemetry are sent (each send is a heartbeat)

    @classmethod
    def from_env(cls, env=os.environ) -> WorkerConfig:
        return cls(
            api_url=env.get("VERIFY_API_URL", "http://127.0.0.1:8000").rstrip("/"),
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


class Shipper:
    """Sends the output and GPU samples gathered so far every `interval` seconds from a side thread;
    each send refreshes the job's heartbeat, output or not."""

    def __init__(self, api: InternalApi, gpu: GpuSampler, interval: float):
        self.api = api
        self.gpu = gpu
        self.interval = interval
        self.pending = bytearray()
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._loop, name="verify-shipper", daemon=True)
        self.gone: JobGone | None = None

    def add(self, chunk: bytes) -> None:
        with self.lock:
            self.pending.extend(chunk)

    def flush(self) -> None:
        with self.lock:
            pending, self.pending = bytes(self.pending), bytearray()
        samples = self.gpu.take()
        # In slices well under the API's request cap, however fast the run writes.
        for start in range(0, max(len(pending), 1), SHIP_SLICE_BYTES):
            text = pending[start : start + SHIP_SLICE_BYTES].decode("utf-8", "replace")
            self.api.post("log", {"text": text, "telemetry": samples if start == 0 else []})

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
    """Receives one run's output: into its log file and to the shipper, up to MAX_RUN_LOG_BYTES, noting
    when each line arrived (the clock the re-run is measured by). A run that floods its output must
    not fill the worker's disk: past the cap the rest is dropped (the run goes on; its log then lacks
    run_stop, so it does not reach the target)."""

    def __init__(self, log_file, shipper: Shipper):
        self.log_file = log_file
        self.shipper = shipper
        self.written = 0
        self.clock = ArrivalClock()

    def __call__(self, chunk: bytes) -> None:
        room = MAX_RUN_LOG_BYTES - self.written
        if room <= 0:
            return
        kept = chunk[:room]
        self.written += len(kept)
        self.clock.feed(kept)
        self.log_file.write(kept)
        self.shipper.add(kept)
        if len(kept) < len(chunk):
            self.shipper.add(f"\n[output cut at {MAX_RUN_LOG_BYTES} bytes]\n".encode())


def fetch_code(api: InternalApi, workdir: Path) -> Path:
    """Download the implementation folder (a tar.gz) and unpack it with the ingestion's archive
    safety checks (no links, no escaping paths, size limits)."""
    archive = workdir / "code.tar.gz"
    archive.write_bytes(api.call("GET", "code"))
    code = extract_archive(archive, workdir / "code")
    archive.unlink()
    for folder, _subfolders, _files in os.walk(code):
        os.chmod(folder, 0o755)  # readable by the sandbox's unprivileged user
    return code


def dataset_dir(data_dir: Path, benchmark: str) -> Path:
    """What the run sees at /data: `<data_dir>/<benchmark>/` where the data directory holds one folder
    per benchmark (the run then sees no other benchmark's data), else the whole data directory."""
    named = data_dir / benchmark
    if re.fullmatch(r"[A-Za-z0-9_.-]+", benchmark) and benchmark not in (".", "..") and named.is_dir():
        return named
    return data_dir


def run_job(job_id: int, token: str, config: WorkerConfig | None = None) -> str:
    """Do verification job `job_id`; returns the outcome it reported (or "gone")."""
    config = config or WorkerConfig.from_env()
    api = InternalApi(config.api_url, job_id, token)
    try:
        spec = api.spec()
    except JobGone:
        return "gone"
    workdir = Path(tempfile.mkdtemp(prefix=f"verify-job-{job_id}-", dir=config.work_dir or None))
    os.chmod(workdir, 0o755)
    try:
        return _run(api, spec, config, workdir)
    except JobGone:
        return "gone"
    except Exception as exc:  # our side (a missing bwrap, a broken download): say so rather than go silent
        # Celery's time limit is the task's to report (verify/tasks.py). Matched by name: importing
        # celery here would load parts of Django into this Django-free module.
        if type(exc).__name__ == "SoftTimeLimitExceeded":
            raise
        report_outcome(job_id, token, FAILED, f"the verification worker could not run the job: {type(exc).__name__}: {exc}", config)
        return FAILED
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def report_outcome(job_id: int, token: str, outcome: str, message: str, config: WorkerConfig | None = None) -> None:
    """Report an outcome decided outside run_job (the task's time limit); ignored once the job is over."""
    config = config or WorkerConfig.from_env()
    try:
        InternalApi(config.api_url, job_id, token).post("outcome", {"outcome": outcome, "message": message})
    except JobGone:
        pass


def _run(api: InternalApi, spec: dict, config: WorkerConfig, workdir: Path) -> str:
    api.post("progress", {"stage": "fetching the code", "runs_done": 0})
    code = fetch_code(api, workdir)
    sandbox = make_sandbox(config.sandbox, config.container_image, config.container_engine, config.sandbox_limits)
    limits = Limits(**spec["limits"])
    runs = spec["runs"]
    reruns: list[Rerun] = []
    with GpuSampler() as gpu:
        api.post("progress", {"stage": "starting", "runs_done": 0, "gpu": {"available": gpu.available, "note": gpu.note}})
        for number in range(1, runs + 1):
            seed = secrets.randbelow(2**31)  # a fresh seed per run, as the rules ask of submitters
            api.post("progress", {"stage": f"re-run {number} of {runs} (seed {seed})", "runs_done": number - 1})
            log_path = workdir / f"rerun_{number}.txt"
            with log_path.open("wb") as log_file, Shipper(api, gpu, config.ship_seconds) as shipper:

                on_output = CappedOutput(log_file, shipper)
                shipper.add(f"\n===== re-run {number} of {runs}, seed {seed} =====\n".encode())
                outcome = sandbox.run(
                    RunSpec(
                        code_dir=code,
                        data_dir=dataset_dir(config.data_dir, spec["benchmark"]),
                        command=["/bin/sh", f"{CODE_DIR}/{spec['run_script']}"],
                        env={**SANDBOX_ENV, "SEED": str(seed), "DATADIR": DATA_DIR, "OUTPUT_DIR": OUTPUT_DIR},
                        limits=limits,
                        name=f"verify-{spec['job']}-{number}",
                    ),
                    on_output,
                )
            if shipper.gone:
                raise shipper.gone
            shipper.flush()
            if outcome.status != EXITED or outcome.exit_code != 0:
                kind = outcome.status if outcome.status != EXITED else FAILED
                tail = log_path.read_bytes()[-LOG_TAIL_CHARS:].decode("utf-8", "replace")
                api.post(
                    "outcome",
                    {
                        "outcome": kind,
                        "message": f"re-run {number}: {outcome.detail}",
                        "exit_code": outcome.exit_code,
                        "log_tail": tail,
                        "reruns": [rerun.as_json() for rerun in reruns],
                    },
                )
                return kind
            rerun = parse_rerun(log_path, spec, number, seed, on_output.clock, outcome.wall_seconds)
            rerun.how["limits"] = outcome.limits
            reruns.append(rerun)
            api.post("progress", {"stage": f"re-run {number} of {runs} parsed", "runs_done": number, "rerun": rerun.as_json()})
    decision = decide(spec, reruns)
    api.post(
        "outcome",
        {
            "outcome": decision.outcome,
            "message": decision.message,
            "rerun_minutes": decision.rerun_minutes,
            "reruns": [rerun.as_json() for rerun in reruns],
        },
    )
    return decision.outcome

