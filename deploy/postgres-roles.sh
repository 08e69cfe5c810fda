#!/bin/sh
# Run once by the postgres image on its first start (/docker-entrypoint-initdb.d): the two roles the
# project uses, neither a superuser. mlperf_owner owns the database and runs the migrations;
# mlperf_app is what the application connects as, given its privileges after every migration by
# `manage.py grant_app_role mlperf_app` (the audit log append-only). Passwords from the environment.
set -eu
: "${DB_OWNER_PASSWORD:?set DB_OWNER_PASSWORD}" "${DB_APP_PASSWORD:?set DB_APP_PASSWORD}"
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres \
    -v owner_password="$DB_OWNER_PASSWORD" -v app_password="$DB_APP_PASSWORD" <<'SQL'
CREATE ROLE mlperf_owner LOGIN NOSUPERUSER NOCREATEROLE PASSWORD :'owner_password';
CREATE ROLE mlperf_app LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD :'app_password';
CREATE DATABASE mlperf OWNER mlperf_owner;
REVOKE ALL ON DATABASE mlperf FROM PUBLIC;
GRANT CONNECT ON DATABASE mlperf TO mlperf_app;
SQL
