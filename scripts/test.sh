#!/usr/bin/env bash
# Runs the whole suite against real PostgreSQL and Redis. Where DATABASE_URL and
# CELERY_BROKER_URL are not set, starts throwaway servers (own data directory and ports) and stops
# them afterwards.
set -euo pipefail
cd "$(dirname "$0")/.."

started=0
if [ -z "${DATABASE_URL:-}" ] || [ -z "${CELERY_BROKER_URL:-}" ]; then
    export SERVICES_DIR=${SERVICES_DIR:-$(mktemp -d /tmp/mlperf-test-services.XXXXXX)}
    export PG_PORT=${PG_PORT:-$((20000 + RANDOM % 20000))}
    export REDIS_PORT=${REDIS_PORT:-$((PG_PORT + 1))}
    scripts/services.sh start
    started=1
    trap 'scripts/services.sh stop' EXIT
    eval "export $(scripts/services.sh env | tr '\n' ' ')"
fi
scripts/services.sh install  # chromium for the browser tests, when missing
export TEST_DB_SUFFIX=${TEST_DB_SUFFIX:-$$}
# Bytecode written once and read by every later process: the workers, the servers and make run's
# copies start some 300 Python processes. Where the environment turns it off, each compiled every
# module of the project again, and each worker rewrote every test module's asserts (7 s of its
# collection's 7.5, against 3 s from the cache).
unset PYTHONDONTWRITEBYTECODE
# The import contracts in pyproject.toml: the checking core imports nothing of the web project, the
# GPU worker nothing of Django, and the web apps import only the apps below them (docs/architecture.md).
.venv/bin/lint-imports --no-logo --no-cache
# Parallel workers, each with its own test database (pytest-django names it test_mlperf_<suffix>_gw<n>)
# and its own cache keys (config/settings.py): a module's tests stay on one worker, in order, so a
# module-scoped fixture is built once (--dist loadscope; each journey story is a module of its own),
# the longest modules first (conftest.py orders them by their slow(minutes=N) mark).
# Many tests wait on servers, workers and browsers rather than compute: more workers than cores pay.
# TEST_WORKERS=0 runs in this process.
workers=${TEST_WORKERS:-4}
if [ "$workers" = 0 ]; then
    .venv/bin/pytest --durations=20 "$@"
else
    .venv/bin/pytest -n "$workers" --dist loadscope --no-loadscope-reorder --durations=20 "$@"
fi
