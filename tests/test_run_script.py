"""scripts/run.sh, `make run`'s server, stops everything it started on a TERM to its whole process
group (`kill -- -PGID`, a process manager) while its worker is busy; the journeys stop `make run`
with Ctrl-C. A pool process that got the group's TERM itself used to die holding its pool's queue
lock, and the worker then hung in warm shutdown for good.

The script runs in this checkout with a state folder of its own (no `make`: the journeys run the
whole `make run`); its worker is kept busy with Celery's own `celery.accumulate` tasks."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from ingest.tests.processes import wait_for
from tests.journeys.servers import (
    NOT_A_NEWCOMERS,
    REPO,
    as_from_a_terminal,
    free_port,
    kill_session,
    processes_of_session,
)

pytestmark = pytest.mark.slow(minutes=1)

TASKS = 400
SEND_TASKS = f"""
from config.celery import app
for number in range({TASKS}):
    app.send_task("celery.accumulate", args=[number], queue="default")
"""


def test_a_term_to_make_runs_group_stops_every_process_it_started(tmp_path):
    state = tmp_path / "var"
    env = {name: value for name, value in os.environ.items() if name not in NOT_A_NEWCOMERS}
    env.update(DJANGO_ENV="development", LOCAL_STATE_DIR=str(state), PORT=str(free_port()),
               DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}", VENV=str(Path(sys.executable).parent.parent))
    log = tmp_path / "run.log"
    server = subprocess.Popen(["scripts/run.sh"], cwd=REPO, env=env, stdout=log.open("wb"), stderr=subprocess.STDOUT,
                              start_new_session=True, preexec_fn=as_from_a_terminal)
    worker_log = state / "logs" / "worker.log"
    try:
        wait_for(lambda: worker_log.exists() and " ready." in worker_log.read_text(), 90, "the worker to be ready")
        subprocess.run([sys.executable, "-c", SEND_TASKS], cwd=REPO, env=env, check=True, timeout=60)
        wait_for(lambda: "celery.accumulate" in worker_log.read_text(), 30, "the worker to take a task")
        os.killpg(server.pid, signal.SIGTERM)
        try:
            wait_for(lambda: server.poll() is not None and not processes_of_session(server.pid), 30, "every process to end")
        except AssertionError:
            left = processes_of_session(server.pid)
            raise AssertionError(f"a TERM to make run's group left {left}:\n"
                                 f"{log.read_text()[-2000:]}\n{worker_log.read_text()[-2000:]}") from None
    finally:
        kill_session(server.pid)
        server.wait(10)
