"""What a verification worker runs on, and whether that is like the claimed system.

A re-run's time is compared with the claim only on like hardware: the same accelerator model and
count on one node for an accelerator system, the same processor model for a CPU system. Elsewhere
the ratio is reported and not judged (verify.reproduce.decide). Names are matched on their model
token (the first word holding a digit: "H100" in "NVIDIA H100 80GB HBM3" and "H100-SXM5-80GB"),
so spellings of one model family agree and different models never do.
No Django here: the GPU worker imports this.
"""

from __future__ import annotations

import os
import re

NO_ACCELERATOR = {"", "n/a", "na", "none", "-", "0"}
VENDOR_WORDS = {"nvidia", "intel", "amd", "corporation", "r", "tm", "cpu", "gpu", "processor", "apple", "google", "tpu"}


def cpu_model(cpuinfo: str | None = None) -> str:
    """The host processor's model name (/proc/cpuinfo), or "" where it says none."""
    if cpuinfo is None:
        try:
            with open("/proc/cpuinfo") as handle:
                cpuinfo = handle.read()
        except OSError:
            return ""
    for line in cpuinfo.splitlines():
        key, _, value = line.partition(":")
        if key.strip() in ("model name", "Model", "cpu model"):
            return value.strip()
    return ""


def describe_worker(accelerators: list[str]) -> dict:
    """The worker's hardware as it reports it with each job."""
    return {"accelerators": [str(name) for name in accelerators], "cpu_model": cpu_model(), "cpus": os.cpu_count() or 1}


def tokens(name: str) -> list[str]:
    words = re.split(r"[^a-z0-9+]+", name.lower().replace("(r)", " ").replace("(tm)", " "))
    return [word for word in words if word and word not in VENDOR_WORDS]


def model_token(name: str) -> str:
    return next((word for word in tokens(name) if any(ch.isdigit() for ch in word)), "")


def same_model(claimed: str, worker: str) -> bool:
    claimed_words, worker_words = tokens(claimed), tokens(worker)
    if claimed_words and claimed_words == worker_words:
        return True
    return bool(model_token(claimed)) and model_token(claimed) == model_token(worker)


def is_accelerator_system(claimed: dict) -> bool:
    return (claimed.get("accelerators_per_node") or 0) > 0 and str(
        claimed.get("accelerator_model_name", "")).strip().lower() not in NO_ACCELERATOR


def compare(claimed: dict, worker: dict) -> tuple[bool, str]:
    """(like, why in words). `claimed`: the system's number_of_nodes, accelerator_model_name,
    accelerators_per_node, host_processor_model_name; `worker`: describe_worker()."""
    accelerators = worker.get("accelerators") or []
    seen = f"{len(accelerators)} x {accelerators[0]}" if accelerators else f"no accelerator, CPU {worker.get('cpu_model') or 'unknown'}"
    if (claimed.get("number_of_nodes") or 1) > 1:
        return False, f"the claim ran on {claimed['number_of_nodes']} nodes; the worker is one machine ({seen})"
    if is_accelerator_system(claimed):
        wanted = f"{claimed['accelerators_per_node']} x {claimed['accelerator_model_name']}"
        like = len(accelerators) == claimed["accelerators_per_node"] and all(
            same_model(claimed["accelerator_model_name"], name) for name in accelerators)
        return like, f"claimed {wanted}; the worker has {seen}"
    wanted = f"CPU {claimed.get('host_processor_model_name') or 'unknown'}, no accelerator"
    worker_cpu = worker.get("cpu_model") or ""
    like = bool(worker_cpu) and same_model(claimed.get("host_processor_model_name") or "", worker_cpu)
    return like, f"claimed {wanted}; the worker has CPU {worker_cpu or 'unknown'}"
