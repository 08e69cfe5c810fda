"""The first process of every sandboxed re-run (this folder is bound read-only into the sandbox).

    python3 runner.py COMMAND...

1. Takes its three secrets out of the environment before anything of the submission starts, and
   makes itself non-dumpable, so the submission (same uid) cannot read them from /proc/<pid>/environ
   or reach its file descriptors:
     VERIFY_RESULT_MARKER  a fresh random text: the runner's result line starts with it
     VERIFY_EVALUATOR      the registered evaluator's module ("" for none)
     VERIFY_EVAL_SEED      the seed of the evaluator's fresh data
2. Runs COMMAND (the submission's run script), its output going where the runner's goes.
3. When COMMAND exits, kills every other process of the sandbox (background printers included).
4. With nothing of the submission left, runs the evaluator on what the run wrote under /output.
5. Prints one line, `<marker> {"exit_code": N, "evaluation": {...}}`: nothing else can write any
   more, and nothing of the submission knew the marker, so the line cannot be forged.
Exits with COMMAND's status (128 + signal when a signal ended it).

Standard library only, until the evaluator imports what it needs (NumPy).
"""

from __future__ import annotations

import ctypes
import importlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

PR_SET_DUMPABLE = 4
SECRETS = ("VERIFY_RESULT_MARKER", "VERIFY_EVALUATOR", "VERIFY_EVAL_SEED")
STOP_SECONDS = 10.0


def others(me: int) -> list[int]:
    """The live processes of this PID namespace besides this one and its pid 1 (zombies are dead)."""
    alive = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) in (me, 1):
            continue
        try:
            state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if state not in ("Z", "X"):
            alive.append(int(entry))
    return alive


def kill_the_rest() -> bool:
    """SIGKILL every process this one may signal (its namespace's, its uid's: the submission's), until
    none is left; reaps what it inherits (as pid 1 of a container it inherits every orphan)."""
    me = os.getpid()
    deadline = time.monotonic() + STOP_SECONDS
    while True:
        try:
            os.kill(-1, signal.SIGKILL)  # never the caller itself, nor pid 1
        except ProcessLookupError:
            pass
        try:
            while os.waitpid(-1, os.WNOHANG)[0]:
                pass
        except ChildProcessError:
            pass
        if not others(me):
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)


def evaluate(module: str, seed: str) -> dict:
    try:
        evaluator = importlib.import_module(module)
        return evaluator.evaluate(Path(os.environ.get("OUTPUT_DIR", "/output")), int(seed))
    except Exception as exc:  # whatever the run left behind, the result line is still printed
        return {"error": f"the evaluator failed: {type(exc).__name__}: {exc}"[:500]}


def main(command: list[str]) -> int:
    secrets = {name: os.environ.pop(name, "") for name in SECRETS}
    if ctypes.CDLL(None, use_errno=True).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:
        print("verification runner: cannot make itself non-dumpable", file=sys.stderr)
        return 125
    status = subprocess.call(command, close_fds=True)
    exit_code = status if status >= 0 else 128 - status
    result: dict = {"exit_code": exit_code}
    if not kill_the_rest():
        result["evaluation"] = {"error": "the submission's processes could not be stopped"}
    elif secrets["VERIFY_EVALUATOR"] and exit_code == 0:
        result["evaluation"] = evaluate(secrets["VERIFY_EVALUATOR"], secrets["VERIFY_EVAL_SEED"])
    sys.stdout.flush()
    print(f"{secrets['VERIFY_RESULT_MARKER']} {json.dumps(result)}", flush=True)
    return exit_code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
