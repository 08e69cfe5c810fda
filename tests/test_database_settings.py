"""The PostgreSQL connection's settings (config/settings.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import connection

REPO = Path(__file__).resolve().parent.parent


@pytest.mark.django_db
def test_queries_run_without_the_jit():
    """A round page's query spent ~1 s compiling in LLVM to run for 0.15 s (bench/RESULTS.md)."""
    with connection.cursor() as cursor:
        cursor.execute("SHOW jit")
        assert cursor.fetchone()[0] == "off"


def test_options_given_in_the_database_url_are_kept_beside_it():
    url = os.environ["DATABASE_URL"] + "?options=-c%20statement_timeout%3D5000"
    done = subprocess.run(
        [sys.executable, "-c", "from config import settings; print(settings.DATABASES['default']['OPTIONS'])"],
        cwd=REPO, env={"PATH": os.environ["PATH"], "DJANGO_ENV": "development", "DATABASE_URL": url},
        capture_output=True, text=True, timeout=60,
    )
    assert done.stdout.strip() == "{'options': '-c statement_timeout=5000 -c jit=off'}", done.stderr
