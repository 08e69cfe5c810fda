#!/usr/bin/env bash
# Throwaway PostgreSQL and Redis for tests and `make services`, with their own data directory
# and ports, so nothing on the machine is touched. Usage: scripts/services.sh start|stop|env|install
set -euo pipefail

SERVICES_DIR=${SERVICES_DIR:-/tmp/mlperf-dashboard-services}
PG_PORT=${PG_PORT:-55432}
REDIS_PORT=${REDIS_PORT:-56379}
PG_BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)

as_postgres() {
    # initdb and postgres refuse to run as root.
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

install_packages() {
    local missing=()
    [ -n "$PG_BIN" ] || missing+=(postgresql)
    command -v redis-server >/dev/null || missing+=(redis-server)
    if [ "${WITH_BROWSER:-1}" = 1 ]; then
        command -v chromium >/dev/null || missing+=(chromium)
        command -v chromedriver >/dev/null || missing+=(chromium-driver)
    fi
    if [ ${#missing[@]} -gt 0 ]; then
        echo "Installing Debian packages: ${missing[*]}"
        local sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
        $sudo apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
        PG_BIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
    fi
}

start() {
    install_packages
    mkdir -p "$SERVICES_DIR"
    chmod 777 "$SERVICES_DIR"
    if ! as_postgres "$PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$PG_PORT"; then
        if [ ! -f "$SERVICES_DIR/pg/PG_VERSION" ]; then
            mkdir -p "$SERVICES_DIR/pg"
            [ "$(id -u)" = 0 ] && chown postgres "$SERVICES_DIR/pg"
            as_postgres "$PG_BIN/initdb" -D "$SERVICES_DIR/pg" -U postgres --auth=trust >/dev/null
        fi
        as_postgres "$PG_BIN/pg_ctl" -s -D "$SERVICES_DIR/pg" -l "$SERVICES_DIR/pg.log" -w \
            -o "-p $PG_PORT -k $SERVICES_DIR -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200" start
    fi
    # The application database of `make services` (the test suite creates its own test database).
    if ! as_postgres "$PG_BIN/psql" -h 127.0.0.1 -p "$PG_PORT" -U postgres -tAc "select 1 from pg_database where datname='mlperf'" | grep -q 1; then
        as_postgres "$PG_BIN/createdb" -h 127.0.0.1 -p "$PG_PORT" -U postgres mlperf
    fi
    if ! redis-cli -p "$REDIS_PORT" ping >/dev/null 2>&1; then
        redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save "" --appendonly yes --dir "$SERVICES_DIR" \
            --daemonize yes --pidfile "$SERVICES_DIR/redis.pid" --logfile "$SERVICES_DIR/redis.log"
        for _ in $(seq 50); do redis-cli -p "$REDIS_PORT" ping >/dev/null 2>&1 && break; sleep 0.1; done
    fi
    echo "PostgreSQL on 127.0.0.1:$PG_PORT, Redis on 127.0.0.1:$REDIS_PORT (data in $SERVICES_DIR)"
}

stop() {
    if [ -f "$SERVICES_DIR/pg/postmaster.pid" ]; then
        as_postgres "$PG_BIN/pg_ctl" -s -D "$SERVICES_DIR/pg" -m fast stop || true
    fi
    redis-cli -p "$REDIS_PORT" shutdown nosave >/dev/null 2>&1 || true
    rm -rf "$SERVICES_DIR"
}

env_lines() {
    echo "DATABASE_URL=postgres://postgres@127.0.0.1:$PG_PORT/mlperf"
    echo "CELERY_BROKER_URL=redis://127.0.0.1:$REDIS_PORT/0"
    echo "REDIS_URL=redis://127.0.0.1:$REDIS_PORT/1"
}

case "${1:-}" in
    install) install_packages ;;
    start) start ;;
    stop) stop ;;
    env) env_lines ;;
    *) echo "usage: $0 install|start|stop|env" >&2; exit 2 ;;
esac
