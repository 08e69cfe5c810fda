# The two contract commands: `make run` and `make test`. Both set up a fresh Debian 12 machine.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000
# Everything make starts is development: DEBUG on and the development key unless set otherwise.
# Production (no DJANGO_ENV) refuses to start without a real SECRET_KEY and ALLOWED_HOSTS.
export DJANGO_ENV ?= development

.PHONY: run test venv dev-venv migrate static sample demo services services-stop lint bench-ingest bench-verify clean

$(VENV)/bin/activate:
	@$(PYTHON) -m venv $(VENV) 2>/dev/null || { \
		echo "python3-venv missing: installing it"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null; \
		$(PYTHON) -m venv $(VENV); }
	@$(VENV)/bin/pip install -q --upgrade pip

$(VENV)/.installed: requirements.txt | $(VENV)/bin/activate
	$(VENV)/bin/pip install -q -r requirements.txt
	@touch $@

$(VENV)/.installed-dev: requirements.txt requirements-dev.txt | $(VENV)/bin/activate
	$(VENV)/bin/pip install -q -r requirements-dev.txt
	@touch $(VENV)/.installed $@

venv: $(VENV)/.installed
dev-venv: $(VENV)/.installed-dev

migrate: venv
	$(PY) manage.py migrate --noinput -v0

# Imports the bundled real sample (idempotent: a second run changes nothing).
sample: migrate
	$(PY) manage.py import_sample

# Hashed, gzip-compressed copies under staticfiles/, which WhiteNoise serves with far-future cache
# headers in every mode (config/storage.py). Rerun after editing static/.
static: venv
	$(PY) manage.py collectstatic --noinput -v0

# Embedded default: SQLite and a folder broker under var/, with a worker, beat and a verification
# worker started beside the web server (scripts/run.sh), unless DATABASE_URL / CELERY_BROKER_URL are set.
run: demo static
	HOST=$(HOST) PORT=$(PORT) VENV=$(VENV) scripts/run.sh

# Development only: demo accounts (chair, reviewer, submitter), an open round and a package to upload.
demo: sample
	$(PY) manage.py seed_demo

# Real PostgreSQL and Redis: throwaway servers unless DATABASE_URL and CELERY_BROKER_URL are set.
test: dev-venv
	scripts/test.sh

# PostgreSQL and Redis, plus (unless WORKERS=0) a Celery worker on the default and ingest queues
# and celery beat, all in the background: the processes of docker-compose.yml without Docker.
SERVICES_DIR ?= /tmp/mlperf-dashboard-services
WORKERS ?= 1
# GPU_WORKER=1: also a verification worker on the `gpu` queue, with no Django settings (verify/gpu_worker.py).
GPU_WORKER ?= 0
services:
	scripts/services.sh start
	@scripts/services.sh env
	@if [ "$(WORKERS)" = 1 ]; then \
		export $$(scripts/services.sh env | xargs); \
		$(PY) manage.py migrate --noinput -v0 && $(PY) manage.py grant_app_role mlperf_app >/dev/null && \
		export DATABASE_URL=$$APP_DATABASE_URL CELERY_BROKER_URL=$$WORKER_BROKER_URL && \
		$(VENV)/bin/celery -A config worker -Q default,ingest --concurrency 2 --loglevel INFO --detach \
			--pidfile=$(SERVICES_DIR)/worker.pid --logfile=$(SERVICES_DIR)/worker.log && \
		$(VENV)/bin/celery -A config beat --loglevel INFO --detach --schedule=$(SERVICES_DIR)/beat-schedule \
			--pidfile=$(SERVICES_DIR)/beat.pid --logfile=$(SERVICES_DIR)/beat.log && \
		echo "Celery worker and beat running (logs in $(SERVICES_DIR))"; \
	fi
	@if [ "$(GPU_WORKER)" = 1 ]; then \
		command -v bwrap >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null; }; \
		export CELERY_BROKER_URL=$$(scripts/services.sh env | sed -n 's/^WORKER_BROKER_URL=//p'); \
		env -u DATABASE_URL -u REDIS_URL -u DJANGO_ENV -u SECRET_KEY VERIFY_API_URL=http://$(HOST):$(PORT) VERIFY_SANDBOX=bubblewrap \
			VERIFY_DATA_DIR=$${VERIFY_DATA_DIR:-$(SERVICES_DIR)/verify-data} \
			$(VENV)/bin/celery -A verify.gpu_worker worker -Q gpu --concurrency 1 --prefetch-multiplier 1 --loglevel INFO \
			--detach -n gpu@%h --pidfile=$(SERVICES_DIR)/gpu-worker.pid --logfile=$(SERVICES_DIR)/gpu-worker.log && \
		mkdir -p $(SERVICES_DIR)/verify-data && chmod 755 $(SERVICES_DIR)/verify-data && \
		echo "GPU (verification) worker running, no database settings, bubblewrap sandbox (log in $(SERVICES_DIR))"; \
	fi

services-stop:
	@for name in worker beat gpu-worker; do \
		[ -f $(SERVICES_DIR)/$$name.pid ] && kill $$(cat $(SERVICES_DIR)/$$name.pid) 2>/dev/null || true; \
	done
	scripts/services.sh stop

lint: dev-venv
	$(VENV)/bin/ruff check .
	$(VENV)/bin/lint-imports --no-logo --no-cache

bench-ingest: dev-venv
	$(PY) bench/ingest.py

bench-verify: dev-venv
	$(PY) bench/verify.py

clean:
	rm -rf $(VENV) db.sqlite3 db.sqlite3-wal db.sqlite3-shm media staticfiles var
