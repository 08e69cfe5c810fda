# The two contract commands: `make run` and `make test`. Both set up a fresh Debian 12 machine.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test venv dev-venv migrate sample services services-stop lint bench-ingest clean

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
	$(PY) manage.py import_results sample_data/training-v0.7 --round training-v0.7 --publish
	$(PY) manage.py import_results sample_data/training-v1.0 --round training-v1.0 --publish

# Embedded default: SQLite and in-process tasks, unless DATABASE_URL / CELERY_BROKER_URL are set.
run: sample
	@echo "Serving on http://$(HOST):$(PORT)/"
	$(PY) manage.py runserver $(HOST):$(PORT)

# Real PostgreSQL and Redis: throwaway servers unless DATABASE_URL and CELERY_BROKER_URL are set.
test: dev-venv
	scripts/test.sh

services:
	scripts/services.sh start
	@scripts/services.sh env

services-stop:
	scripts/services.sh stop

lint: dev-venv
	$(VENV)/bin/ruff check .

bench-ingest: dev-venv
	$(PY) bench/ingest.py

clean:
	rm -rf $(VENV) db.sqlite3 media staticfiles
