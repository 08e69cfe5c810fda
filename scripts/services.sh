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
    command -v bwrap >/dev/null || missing+=(bubblewrap)  # the verification sandbox and its tests
    # deploy/nginx.conf in front of a live server (tests/test_proxy.py); started by the tests only.
    command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || missing+=(nginx-light)
    if [ "${WITH_BROWSER:-1}" = 1 ]; then
        command -v chromium >/dev/null || missing+=(chromium)
        command -v chromedriver >/dev/null || missing+=(chromium-driver)
    fi
    if [ ${#missing[@]} -gt 0 ]; then
        echo "Installing Debian packages: ${missing[*]}"
        local sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
        $sudo apt-get update -qq
        # RUNLEVEL=1: the packages' own services (the system's nginx on port 80) are not started.
        $sudo env DEBIAN_FRONTEND=noninteractive RUNLEVEL=1 apt-get install -y -qq "${missing[@]}" >/dev/null
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
    # Two roles, neither a superuser, as in docker-compose.yml: mlperf_owner owns the database,
    # runs the migrations (and the test suite, which creates its own test database);
    # mlperf_app is what the application runs as (`manage.py grant_app_role mlperf_app` after
    # migrating: no UPDATE, DELETE or TRUNCATE on the audit log).
    as_postgres "$PG_BIN/psql" -q -h 127.0.0.1 -p "$PG_PORT" -U postgres -v ON_ERROR_STOP=1 <<'SQL'
SELECT 'CREATE ROLE mlperf_owner LOGIN CREATEDB' WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'mlperf_owner')\gexec
SELECT 'CREATE ROLE mlperf_app LOGIN' WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'mlperf_app')\gexec
SELECT 'CREATE DATABASE mlperf OWNER mlperf_owner' WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = 'mlperf')\gexec
SQL
    if ! redis_cli web ping >/dev/null 2>&1; then
        # No anonymous access: the web app and the workers each have their own ACL user
        # (redis_acl); the passwords are made here and kept in the data directory.
        for user in web worker; do
            [ -f "$SERVICES_DIR/redis-$user.password" ] || (umask 077; head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$SERVICES_DIR/redis-$user.password")
        done
        redis_acl > "$SERVICES_DIR/users.acl"
        redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save "" --appendonly yes --dir "$SERVICES_DIR" \
            --aclfile "$SERVICES_DIR/users.acl" \
            --daemonize yes --pidfile "$SERVICES_DIR/redis.pid" --logfile "$SERVICES_DIR/redis.log"
        for _ in $(seq 50); do redis_cli web ping >/dev/null 2>&1 && break; sleep 0.1; done
    fi
    echo "PostgreSQL on 127.0.0.1:$PG_PORT, Redis on 127.0.0.1:$REDIS_PORT (data in $SERVICES_DIR)"
}

password() { cat "$SERVICES_DIR/redis-$1.password"; }

redis_cli() {  # redis_cli USER ARGS...
    local user=$1; shift
    REDISCLI_AUTH=$(password "$user" 2>/dev/null) redis-cli --user "$user" -p "$REDIS_PORT" "$@"
}

# The ACL users, as in docker-compose.yml. `web` (the web app): every key, no admin commands, no
# FLUSHALL (FLUSHDB stays: cache.clear() empties the cache database with it).
# `worker` (Celery workers and beat, the GPU worker included): every key but the cache's
# ("cache:*", settings.CACHES KEY_PREFIX), spelled as the patterns of all other keys since Redis
# patterns cannot exclude; no admin or dangerous commands (CONFIG, FLUSHALL, KEYS, ...), and no
# SCAN or RANDOMKEY: key patterns do not filter the names those list, in any database (the cache's
# is 1). kombu's Redis transport uses neither.
redis_acl() {
    echo "user default off"
    echo "user web on >$(password web) ~* &* +@all -@admin -flushall"
    echo "user worker on >$(password worker) $(not_cache_keys) &* +@all -@admin -@dangerous -scan -randomkey"
}

not_cache_keys() {
    local prefix=cache: patterns="" i
    for ((i = 0; i < ${#prefix}; i++)); do
        patterns+=" ~${prefix:0:i}[^${prefix:i:1}]*"
        [ "$i" -gt 0 ] && patterns+=" ~${prefix:0:i}"
    done
    echo "${patterns# }"
}

stop() {
    if [ -f "$SERVICES_DIR/pg/postmaster.pid" ]; then
        as_postgres "$PG_BIN/pg_ctl" -s -D "$SERVICES_DIR/pg" -m fast stop || true
    fi
    # No ACL user may SHUTDOWN (an admin command): the server goes by its pid.
    if [ -f "$SERVICES_DIR/redis.pid" ]; then
        kill "$(cat "$SERVICES_DIR/redis.pid")" 2>/dev/null || true
        for _ in $(seq 50); do [ -f "$SERVICES_DIR/redis.pid" ] || break; sleep 0.1; done
    fi
    rm -rf "$SERVICES_DIR"
}

env_lines() {
    echo "DATABASE_URL=postgres://mlperf_owner@127.0.0.1:$PG_PORT/mlperf"
    echo "APP_DATABASE_URL=postgres://mlperf_app@127.0.0.1:$PG_PORT/mlperf"
    echo "CELERY_BROKER_URL=redis://web:$(password web)@127.0.0.1:$REDIS_PORT/0"
    echo "WORKER_BROKER_URL=redis://worker:$(password worker)@127.0.0.1:$REDIS_PORT/0"
    echo "REDIS_URL=redis://web:$(password web)@127.0.0.1:$REDIS_PORT/1"
}

case "${1:-}" in
    install) install_packages ;;
    start) start ;;
    stop) stop ;;
    env) env_lines ;;
    *) echo "usage: $0 install|start|stop|env" >&2; exit 2 ;;
esac
