#!/usr/bin/env python
"""Uncached page cost, one request at a time, as a logged-in reviewer (never served from the page
cache), in-process with Django's test client against the configured database.

    DATABASE_URL=postgres://... .venv/bin/python bench/page_time.py [URL ...]

Run it on a database seeded with `manage.py seed_synthetic --results 20000 --runs 200000`.
Prints the median and maximum of 7 requests per URL after one warm-up, and the query count.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("DEBUG", "false")
os.environ.setdefault("DJANGO_ENV", "development")

import django  # noqa: E402

django.setup()

from django.contrib.auth.models import User  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402

DEFAULT_URLS = ["/rounds/training-v1.0/", "/results/1.0-0006/", "/rounds/training-v1.0/maskrcnn/"]


def main() -> None:
    urls = sys.argv[1:] or DEFAULT_URLS
    user, _ = User.objects.get_or_create(username="bench-reviewer", defaults={"is_staff": True})
    client = Client(SERVER_NAME="127.0.0.1")
    client.force_login(user)
    for url in urls:
        client.get(url)
        times = []
        for _ in range(7):
            start = time.perf_counter()
            response = client.get(url)
            times.append((time.perf_counter() - start) * 1000)
        with CaptureQueriesContext(connection) as queries:
            client.get(url)
        print(
            f"{url:45} status {response.status_code}  median {statistics.median(times):6.1f} ms"
            f"  max {max(times):6.1f} ms  {len(queries)} queries  {len(response.content) // 1024} KB"
        )


if __name__ == "__main__":
    main()
