"""A worker's evidence without a worker: what an honest re-run of the tiny_mlp fixture reports, for
tests of the server's side (the internal API, the decision, the pages). The log is the fixture's
first claimed log, re-stamped as if printed now with the given seed, each line arriving a
millisecond after its timestamp; one CPU busy throughout; the evaluator's figure over the target.
Change one piece (`evidence(...)` keywords, the text) to play a liar."""

from __future__ import annotations

import json
import time

from verify import schema, services
from verify.hardware import cpu_model
from verify.tests.world import claimed_logs

LATENCY_SECONDS = 0.001


def live_log(seed: int, epoch_at_zero: float, started_t: float) -> tuple[str, list[list], float]:
    """(text, arrivals [[lines complete, seconds], ...], seconds when the last line arrived): the
    fixture's first claimed log as a run started `started_t` seconds into the job would print it."""
    lines = claimed_logs()[0].read_text().splitlines(keepends=True)
    first_ms = json.loads(lines[0][len(":::MLLOG "):])["time_ms"]
    shift_ms = round((epoch_at_zero + started_t) * 1000) - first_ms
    text, arrivals = [], []
    for number, line in enumerate(lines, start=1):
        record = json.loads(line[len(":::MLLOG "):])
        record["time_ms"] += shift_ms
        if record["key"] == "seed":
            record["value"] = seed
        text.append(":::MLLOG " + json.dumps(record) + "\n")
        arrivals.append([number, round(record["time_ms"] / 1000 - epoch_at_zero + LATENCY_SECONDS, 4)])
    return "".join(text), arrivals, arrivals[-1][1]


def evidence(number: int, seed: int, epoch_at_zero: float, started_t: float, ended_t: float, *,
             cpu_busy: float = 1.0, accuracy: float | None = 0.962, **changes) -> dict:
    """A run's evidence as verify.worker.run_evidence sends it."""
    steps = max(int((ended_t - started_t) / 0.1), 1)
    cpu = [[round(started_t + (ended_t - started_t) * i / steps, 3), round(cpu_busy * (ended_t - started_t) * i / steps, 3)]
           for i in range(steps + 1)]
    return {"number": number, "seed": seed, "eval_seed": 99, "status": "exited", "exit_code": 0, "detail": "",
            "limits": "cgroup v1: 2 GiB memory in all", "wall_seconds": round(ended_t - started_t + 0.3, 3),
            "started_t": started_t, "ended_t": ended_t + 0.3, "epoch_at_zero": epoch_at_zero, "cpu": cpu,
            "evaluation": None if accuracy is None else {"accuracy": accuracy, "samples": 20000}, **changes}


def like_the_claim() -> dict:
    """The hardware report of a worker like the fixture's claimed system (this machine's CPU)."""
    return {"accelerators": [], "cpu_model": cpu_model(), "cpus": 2}


def verify_honestly(job, **changes):
    """Drive `job` through the services as an honest worker would (each body through the internal
    API's schema); `changes` go into every run's evidence. Returns the finished job."""
    runs = job.runs_requested
    services.start_job(job)
    services.record_progress(job, schema.progress({"gpu": {"available": False, "note": "NVML is not available"},
                                                   "hardware": like_the_claim()}, runs))
    epoch, started_t = time.time() - 60, 1.0
    for number in range(1, runs + 1):
        seed = 7 + number
        text, arrivals, ended_t = live_log(seed, epoch, started_t)
        services.append_output(job, text, run=number, arrivals=arrivals)
        services.record_run(job, schema.run_evidence(evidence(number, seed, epoch, started_t, ended_t, **changes), runs))
        started_t = ended_t + 1.0
    return services.finish_job(job, message=f"{runs} re-run(s) done")
