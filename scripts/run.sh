#!/usr/bin/env bash
# `make run`'s server: the web server and the processes that do the rest of the job.
#
# With no CELERY_BROKER_URL (the embedded default) this starts, beside `manage.py runserver`:
#   - a Celery worker on the `default` and `ingest` queues: uploads are checked, rounds published,
#     snapshots taken;
#   - celery beat: the periodic work (publication at publish_at, snapshots, the sweeps);
#   - a verification worker on the `gpu` queue (verify/gpu_worker.py: no database settings, the
#     bubblewrap sandbox; on the CPU where the machine has no GPU).
# They share the folder broker under LOCAL_STATE_DIR (default var/, verify/broker.py) and the SQLite
# file. With CELERY_BROKER_URL set, the workers are someone else's (`make services` starts them), and
# only the web server runs here. Ctrl-C stops everything this started.
set -euo pipefail
cd "$(dirname "$0")/.."

HOST=${HOST:-127.0.0.1}
PORT=${PORT:-8000}
VENV=${VENV:-.venv}
STATE=${LOCAL_STATE_DIR:-var}
# Where the worker asks for the pages a change touched, to warm the page cache (pages/warming.py):
# this server, whatever SITE_URL says.
export PAGE_WARM_URL=${PAGE_WARM_URL:-http://$HOST:$PORT}
LOGS=$STATE/logs
mkdir -p "$LOGS"

children=()
stop_children() {
    for pid in "${children[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "${children[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap stop_children EXIT
trap 'exit 130' INT TERM

if [ -z "${CELERY_BROKER_URL:-}" ]; then
    # Each Celery process in a process group of its own (job control on while they start): a signal
    # to make run's group (Ctrl-C, `kill -- -PGID`) reaches this script, which stops each one with a
    # TERM to its main process, as Celery expects. A pool process that got the group's TERM itself
    # died holding its pool's queue lock, and the worker then hung in warm shutdown for good.
    set -m
    # A unique node name: two servers on one machine (a test beside a developer's) stay apart.
    node="run-$$"
    "$VENV/bin/celery" --quiet -A config worker -Q default,ingest --concurrency 2 -n "ingest-$node@%h" \
        --loglevel INFO --logfile "$LOGS/worker.log" &
    children+=($!)
    rm -f "$STATE/beat.pid"
    "$VENV/bin/celery" --quiet -A config beat --schedule "$STATE/beat-schedule" --pidfile "$STATE/beat.pid" \
        --loglevel INFO --logfile "$LOGS/beat.log" &
    children+=($!)
    echo "Worker (uploads, publication, snapshots) and beat running; logs in $LOGS/"

    if ! command -v bwrap >/dev/null && [ "$(id -u)" = 0 ]; then
        echo "Installing bubblewrap for the verification worker's sandbox"
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null || true
    fi
    if command -v bwrap >/dev/null; then
        # Root can give each run a cgroup of its own; another user gets per-process limits only
        # (weaker, and every re-run records it: docs/security.md).
        limits=rlimits; [ "$(id -u)" = 0 ] && limits=cgroup
        mkdir -p "$STATE/verify-data" && chmod 755 "$STATE/verify-data"
        # No database settings: it finds the folder broker as the settings do (verify/broker.py).
        env -u DATABASE_URL -u REDIS_URL -u DJANGO_ENV -u SECRET_KEY -u DJANGO_SETTINGS_MODULE \
            VERIFY_API_URL="http://$HOST:$PORT" VERIFY_SANDBOX=bubblewrap VERIFY_SANDBOX_LIMITS=$limits \
            VERIFY_DATA_DIR="${VERIFY_DATA_DIR:-$STATE/verify-data}" \
            "$VENV/bin/celery" --quiet -A verify.gpu_worker worker -Q gpu --concurrency 1 --prefetch-multiplier 1 \
            -n "gpu-$node@%h" --loglevel INFO --logfile "$LOGS/gpu-worker.log" &
        children+=($!)
        echo "Verification worker running (bubblewrap, $limits limits); log in $LOGS/gpu-worker.log"
    else
        echo "No bubblewrap (apt-get install bubblewrap): verification requests wait until a verification worker runs"
    fi
    set +m
fi

echo "Serving on http://$HOST:$PORT/"
"$VENV/bin/python" manage.py runserver "$HOST:$PORT"
