#!/usr/bin/env python
"""A signed-in user paging through large rounds, as a reviewer works through a round: each page
built in-process (the test client) against the configured database, its wall and CPU time, and an
MD5 of its HTML without the per-request CSRF tokens and the static files' content hashes (a checkout
without collected static files names them plainly), so two versions of the code can be shown to
give the same pages. A signed-in user's page never comes from the page cache; what a page is built
from may (pages.caching.rows_seen_by).

    DATABASE_URL=postgres://.../mlperf_scale .venv/bin/python bench/reviewer_pages.py \
        [--code DIR] --user USERNAME [--addresses /rounds/... ...]

--code DIR runs the code of another checkout (e.g. `git worktree add --detach DIR <commit>`, the
code before a change) with this script. Without REDIS_URL the caches are this process's memory.
"""

from __future__ import annotations

import argparse
import hashlib
import re
import time
from pathlib import Path

from web import REPO, setup_django  # bench/web.py

parser = argparse.ArgumentParser()
parser.add_argument("--code", type=Path, default=REPO)
parser.add_argument("--user", required=True, help="the signed-in user (a reviewer, a chair, a submitter)")
parser.add_argument("--addresses", nargs="+", help="the pages, in order (default: ADDRESSES below)")
args = parser.parse_args()
setup_django(args.code)

from django.contrib.auth.models import User  # noqa: E402
from django.test import Client  # noqa: E402

CSRF = re.compile(rb'(name="csrfmiddlewaretoken" value=")[^"]*(")')
STATIC_HASH = re.compile(rb'(/static/[^"]*?)\.[0-9a-f]{12}(\.\w+")')


# A reviewer working through two large rounds: four views of inference v4.1's page, four pages of
# training v0.7's table, four of its most populated benchmark (bert).
ADDRESSES = [
    "/rounds/inference-v4.1/", "/rounds/inference-v4.1/?datacenter_page=2", "/rounds/inference-v4.1/?sort=submitter",
    "/rounds/inference-v4.1/?table=edge",
    "/rounds/training-v0.7/", "/rounds/training-v0.7/?page=2", "/rounds/training-v0.7/?page=3",
    "/rounds/training-v0.7/?sort=-bert",
    "/rounds/training-v0.7/bert/", "/rounds/training-v0.7/bert/?page=2", "/rounds/training-v0.7/bert/?page=3",
    "/rounds/training-v0.7/bert/?colour=submitter",
]

client = Client(HTTP_HOST="127.0.0.1")
client.force_login(User.objects.get(username=args.user))
client.get("/")
total_cpu = 0.0
for address in args.addresses or ADDRESSES:
    started, cpu = time.perf_counter(), time.process_time()
    response = client.get(address)
    wall_ms, cpu_ms = (time.perf_counter() - started) * 1000, (time.process_time() - cpu) * 1000
    assert response.status_code == 200, (address, response.status_code)
    total_cpu += cpu_ms
    digest = hashlib.md5(STATIC_HASH.sub(rb"\1\2", CSRF.sub(rb"\1\2", response.content))).hexdigest()
    print(f"{address:60s} {wall_ms:7.1f} ms, CPU {cpu_ms:7.1f} ms, {len(response.content):>9,} bytes, md5 {digest}")
print(f"CPU of every page: {total_cpu:.0f} ms")
