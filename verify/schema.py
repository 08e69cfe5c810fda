"""The shapes of what a GPU worker may send (verify/internal_api.py), checked before anything is stored.

Every field has a type, a range and a count limit; a body that breaks one is refused with a
ValueError naming the field (the API answers 400 with it), so nothing malformed ever reaches a
page. Unknown fields are refused too: a typo is an error, not silently dropped. Plain Python.
"""

from __future__ import annotations

import math

MAX_TELEMETRY_PER_CALL = 5000
MAX_ARRIVALS_PER_CALL = 50_000
MAX_CPU_SAMPLES = 5000  # verify.sandbox keeps at most 4000
MAX_LINES = 10**9
MAX_JOB_SECONDS = 30 * 86400.0
RUN_STATUSES = ("exited", "timed_out", "out_of_memory", "sandbox_violation")  # verify.sandbox's
# A GPU sample (verify.telemetry): "t" and "gpu" always, each measurement where NVML gave it.
TELEMETRY_FIELDS = {
    "utilization_pct": (0, 100),
    "memory_used_mib": (0, 10**7),
    "power_w": (0, 10**5),
    "sm_clock_mhz": (0, 10**5),
}
MAX_GPUS = 256


def number(value, name: str, low: float, high: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or not low <= value <= high:
        raise ValueError(f"{name} must be a number from {low:g} to {high:g}, not {value!r:.60}")
    return value


def whole(value, name: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{name} must be a whole number from {low} to {high}, not {value!r:.60}")
    return value


def text(value, name: str, limit: int) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{name} must be a text, not {value!r:.60}")
    return value[:limit]


def items(value, name: str, limit: int) -> list:
    if not isinstance(value, list):
        raise ValueError(f"{name} must be a list, not {value!r:.60}")
    if len(value) > limit:
        raise ValueError(f"{name} holds {len(value)} items; at most {limit} per call")
    return value


def fields(value, name: str, allowed: set[str], required: set[str] = frozenset()) -> dict:
    if not isinstance(value, dict):
        raise ValueError(f"{name} must be a JSON object, not {value!r:.60}")
    unknown = sorted(set(value) - allowed)
    if unknown:
        raise ValueError(f"{name} has unknown field(s): {', '.join(map(str, unknown))[:200]}")
    missing = sorted(required - set(value))
    if missing:
        raise ValueError(f"{name} lacks {', '.join(missing)}")
    return value


def telemetry(samples) -> list[dict]:
    """GPU samples: {"t": seconds on the job's clock, "gpu": index, measurements...}."""
    cleaned = []
    for index, sample in enumerate(items(samples, "telemetry", MAX_TELEMETRY_PER_CALL)):
        name = f"telemetry[{index}]"
        fields(sample, name, {"t", "gpu", *TELEMETRY_FIELDS}, {"t", "gpu"})
        row = {"t": number(sample["t"], f"{name}.t", 0, MAX_JOB_SECONDS),
               "gpu": whole(sample["gpu"], f"{name}.gpu", 0, MAX_GPUS - 1)}
        for field, (low, high) in TELEMETRY_FIELDS.items():
            if field in sample:
                row[field] = number(sample[field], f"{name}.{field}", low, high)
        cleaned.append(row)
    return cleaned


def pairs(value, name: str, limit: int, first, second) -> list[list]:
    """[[a, b], ...] with each column checked by `first` / `second` (called with value and name)."""
    cleaned = []
    for index, pair in enumerate(items(value, name, limit)):
        if not isinstance(pair, list) or len(pair) != 2:
            raise ValueError(f"{name}[{index}] must be a pair [a, b], not {pair!r:.60}")
        cleaned.append([first(pair[0], f"{name}[{index}][0]"), second(pair[1], f"{name}[{index}][1]")])
    return cleaned


def seconds(value, name):
    return number(value, name, 0, MAX_JOB_SECONDS)


def log_append(payload: dict, runs: int) -> dict:
    """{"run": re-run number or null (the worker's own notes), "text", "arrivals": [[lines complete,
    seconds], ...] (a run's only), "telemetry": [...]}."""
    fields(payload, "the body", {"run", "text", "arrivals", "telemetry"})
    run = payload.get("run")
    if run is not None:
        whole(run, "run", 1, runs)
    arrivals = pairs(payload.get("arrivals", []), "arrivals", MAX_ARRIVALS_PER_CALL,
                     lambda value, name: whole(value, name, 0, MAX_LINES), seconds)
    if arrivals and run is None:
        raise ValueError("arrivals belong to a re-run: give its number as run")
    return {"run": run, "text": text(payload.get("text", ""), "text", 10**8), "arrivals": arrivals,
            "telemetry": telemetry(payload.get("telemetry", []))}


def run_evidence(payload: dict, runs: int) -> dict:
    """What the worker observed of one re-run (verify/worker.py, run_evidence())."""
    required = {"number", "seed", "status", "exit_code", "wall_seconds", "started_t", "ended_t", "epoch_at_zero", "cpu"}
    fields(payload, "the run", required | {"eval_seed", "detail", "limits", "evaluation"}, required)
    if payload["status"] not in RUN_STATUSES:
        raise ValueError(f"status must be one of {', '.join(RUN_STATUSES)}, not {payload['status']!r:.60}")
    exit_code = payload["exit_code"]
    evaluation = payload.get("evaluation")
    if evaluation is not None:
        fields(evaluation, "evaluation", {"accuracy", "samples", "error"})
        evaluation = {
            **({"accuracy": number(evaluation["accuracy"], "evaluation.accuracy", -1e12, 1e12)} if "accuracy" in evaluation else {}),
            **({"samples": whole(evaluation["samples"], "evaluation.samples", 0, 10**12)} if "samples" in evaluation else {}),
            **({"error": text(evaluation["error"], "evaluation.error", 500)} if "error" in evaluation else {}),
        }
    return {
        "number": whole(payload["number"], "number", 1, runs),
        "seed": whole(payload["seed"], "seed", 0, 2**63 - 1),
        "eval_seed": whole(payload.get("eval_seed", 0), "eval_seed", 0, 2**63 - 1),
        "status": payload["status"],
        "exit_code": None if exit_code is None else whole(exit_code, "exit_code", -255, 255),
        "detail": text(payload.get("detail", ""), "detail", 1000),
        "limits": text(payload.get("limits", ""), "limits", 1000),
        "wall_seconds": seconds(payload["wall_seconds"], "wall_seconds"),
        "started_t": seconds(payload["started_t"], "started_t"),
        "ended_t": seconds(payload["ended_t"], "ended_t"),
        # Seconds since 1970 at the job clock's zero: 2001 to 2286.
        "epoch_at_zero": number(payload["epoch_at_zero"], "epoch_at_zero", 1e9, 1e10),
        "cpu": pairs(payload["cpu"], "cpu", MAX_CPU_SAMPLES, seconds, lambda value, name: number(value, name, 0, 1e9)),
        "evaluation": evaluation,
    }


def progress(payload: dict, runs: int) -> dict:
    """{"stage", "runs_done", "gpu": {"available", "note"}, "hardware": {"accelerators", "cpu_model", "cpus"}}."""
    fields(payload, "the body", {"stage", "runs_done", "gpu", "hardware"})
    cleaned = {}
    if "stage" in payload:
        cleaned["stage"] = text(payload["stage"], "stage", 255)
    if "runs_done" in payload:
        cleaned["runs_done"] = whole(payload["runs_done"], "runs_done", 0, runs)
    if "gpu" in payload:
        gpu = fields(payload["gpu"], "gpu", {"available", "note"}, {"available"})
        if not isinstance(gpu["available"], bool):
            raise ValueError("gpu.available must be true or false")
        cleaned["gpu"] = {"available": gpu["available"], "note": text(gpu.get("note", ""), "gpu.note", 500)}
    if "hardware" in payload:
        hardware = fields(payload["hardware"], "hardware", {"accelerators", "cpu_model", "cpus"},
                          {"accelerators", "cpu_model", "cpus"})
        cleaned["hardware"] = {
            "accelerators": [text(name, "hardware.accelerators[]", 200)
                             for name in items(hardware["accelerators"], "hardware.accelerators", MAX_GPUS)],
            "cpu_model": text(hardware["cpu_model"], "hardware.cpu_model", 200),
            "cpus": whole(hardware["cpus"], "hardware.cpus", 1, 100_000),
        }
    return cleaned


def ended(payload: dict) -> dict:
    """The worker's last call: {"outcome": a hint (a failure it saw, e.g. the job's time limit), "message"}."""
    fields(payload, "the body", {"outcome", "message"})
    return {"hint": text(payload.get("outcome", ""), "outcome", 40), "message": text(payload.get("message", ""), "message", 4000)}
