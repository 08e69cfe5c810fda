"""Web load benchmark: gunicorn on PostgreSQL, concurrent clients, p50/p95 and queries per request.

    scripts/services.sh start            # throwaway PostgreSQL (and Redis)
    .venv/bin/python bench/web.py        # seeds 20000 results / 200000 runs unless --skip-seed

Steps: create the `mlperf_bench` database next to the one in DATABASE_URL (from
`scripts/services.sh env` when unset), migrate, `seed_synthetic --clear`, collectstatic, count the
queries and bytes of each URL once in-process, write a static file of the same size per URL (the
floor: what the same gunicorn and WhiteNoise need to send that many bytes), start gunicorn (DEBUG
off), then load each URL and its floor file with `wrk` when it is installed, else with a Python
keep-alive client loop, and print one line per URL with the floor beside it.
"""

from __future__ import annotations

import argparse
import http.client
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlparse

REPO = Path(__file__).resolve().parent.parent
PYTHON = str(REPO / ".venv" / "bin" / "python")


def setup_django(code: Path) -> None:
    """Django set up in this process on the code of the checkout `code`, ahead of bench/ on the
    import path: a bench's `--code DIR` (this checkout, or another: `git worktree add --detach DIR
    <commit>`, the code before a change) with the same bench script."""
    sys.path.insert(0, str(code.resolve()))
    os.chdir(code)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("DJANGO_ENV", "development")
    import django

    django.setup()


def service_env(database: str = "mlperf_bench") -> dict[str, str]:
    """The environment of a bench's web processes: DATABASE_URL names `database` beside the one
    configured (BENCH_ADMIN_URL keeps that one, to create it), DEBUG off, no broker, and each
    process's database connection kept as production keeps it (docker-compose.yml's DB_CONN_MAX_AGE;
    DB_CONN_MAX_AGE=0 in the environment measures a new connection per request)."""
    env = dict(os.environ)
    if "DATABASE_URL" not in env:
        out = subprocess.run([str(REPO / "scripts" / "services.sh"), "env"], capture_output=True, text=True, check=True)
        env.update(line.split("=", 1) for line in out.stdout.split() if "=" in line)
    url = urlparse(env["DATABASE_URL"])
    if not url.scheme.startswith("postgres"):
        sys.exit("bench/web.py needs DATABASE_URL to point at PostgreSQL")
    env["BENCH_ADMIN_URL"] = env["DATABASE_URL"]
    env["DATABASE_URL"] = url._replace(path=f"/{database}").geturl()
    env["DEBUG"] = "false"
    env["DJANGO_ENV"] = "development"  # plain http on 127.0.0.1: no HTTPS redirect
    env["DJANGO_SETTINGS_MODULE"] = "config.settings"
    env.setdefault("DB_CONN_MAX_AGE", "60")
    env.pop("CELERY_BROKER_URL", None)
    return env


def create_database(env: dict[str, str], name: str = "mlperf_bench", *, fresh: bool = False) -> bool:
    """Create the database `name` on the server of BENCH_ADMIN_URL unless it is there (`fresh`:
    dropped first). True when it was created now, and so needs its data."""
    import psycopg2

    url = urlparse(env["BENCH_ADMIN_URL"])
    connection = psycopg2.connect(host=url.hostname, port=url.port, user=url.username, password=url.password,
                                  dbname="postgres")
    connection.autocommit = True
    with connection.cursor() as cursor:
        if fresh:
            cursor.execute(f"DROP DATABASE IF EXISTS {name}")
        cursor.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name])
        created = cursor.fetchone() is None
        if created:
            cursor.execute(f"CREATE DATABASE {name}")
    connection.close()
    return created


def manage(env, *args: str) -> None:
    subprocess.run([PYTHON, "manage.py", *args], cwd=REPO, env=env, check=True)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_gunicorn(env: dict[str, str], workers: int, code: Path = REPO) -> tuple[subprocess.Popen, int]:
    """gunicorn serving the checkout `code` on a free port of 127.0.0.1, once it accepts connections
    (up to 10 s)."""
    port = free_port()
    server = subprocess.Popen(
        [str(REPO / ".venv" / "bin" / "gunicorn"), "config.wsgi:application", "-b", f"127.0.0.1:{port}",
         "-w", str(workers), "--log-level", "warning"],
        cwd=code, env=env,
    )
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            time.sleep(0.1)
    return server, port


def pick_urls(env) -> list[tuple[str, str]]:
    code = (
        "import django; django.setup()\n"
        "from results.models import Result, Round\n"
        "r = Result.objects.filter(submission__round__version='1.0').order_by('result_id')[5]\n"
        "print(r.submission.round.slug, r.result_id, r.benchmark.name)\n"
    )
    slug, result_id, benchmark = subprocess.run(
        [PYTHON, "-c", code], cwd=REPO, env=env, capture_output=True, text=True, check=True
    ).stdout.split()
    return [
        ("round page", f"/rounds/{slug}/"),
        ("result page", f"/results/{result_id}/"),
        ("chart data (scaling JSON)", f"/rounds/{slug}/{benchmark}/charts/scaling.json"),
        ("benchmark page", f"/rounds/{slug}/{benchmark}/"),
        ("API results page", f"/api/v1/results/?round={slug}"),
    ]


def count_queries(env, urls: list[tuple[str, str]]) -> dict[str, tuple[int, int]]:
    """Per URL: queries of one uncached request (a page-cache miss), and the bytes of its answer."""
    code = (
        "import sys, django; django.setup()\n"
        "from django.db import connection\n"
        "from django.test import Client\n"
        "from django.test.utils import CaptureQueriesContext\n"
        "import uuid\n"
        "from pages import caching\n"
        "caching.KEY_PREFIX, caching.DATA_VERSION_SECONDS = f'bench-count-{uuid.uuid4().hex}', 0  # count misses\n"
        "client = Client()\n"
        "for url in sys.argv[1:]:\n"
        "    with CaptureQueriesContext(connection) as ctx:\n"
        "        response = client.get(url, HTTP_HOST='127.0.0.1')\n"
        "        status = response.status_code\n"
        "    print(url, status, len(ctx.captured_queries), len(response.content))\n"
    )
    out = subprocess.run([PYTHON, "-c", code, *[u for _, u in urls]], cwd=REPO, env=env, capture_output=True,
                         text=True, check=True).stdout
    counts = {}
    for line in out.splitlines():
        url, status, queries, size = line.rsplit(" ", 3)
        if status != "200":
            sys.exit(f"{url} answered {status}")
        counts[url] = (int(queries), int(size))
    return counts


FLOOR_DIR = REPO / "staticfiles" / "bench-floor"


def write_floor_files(sizes: dict[str, int]) -> dict[str, str]:
    """A static file of each page's size under STATIC_ROOT (WhiteNoise serves what it finds there
    at start-up); returns the URL of each."""
    FLOOR_DIR.mkdir(parents=True, exist_ok=True)
    floors = {}
    for index, (url, size) in enumerate(sizes.items()):
        name = f"page-{index}.html"
        (FLOOR_DIR / name).write_bytes(b"x" * size)
        floors[url] = f"/static/bench-floor/{name}"
    return floors


def python_load(port: int, path: str, clients: int, seconds: float) -> list[float]:
    latencies: list[float] = []
    lock = threading.Lock()
    deadline = time.perf_counter() + seconds

    def client() -> None:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        mine = []
        while time.perf_counter() < deadline:
            start = time.perf_counter()
            connection.request("GET", path)
            response = connection.getresponse()
            response.read()
            mine.append(time.perf_counter() - start)
            if response.status != 200:
                raise RuntimeError(f"{path}: {response.status}")
        with lock:
            latencies.extend(mine)

    threads = [threading.Thread(target=client) for _ in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return latencies


def wrk_load(port: int, path: str, clients: int, seconds: float) -> tuple[float, float, float]:
    out = subprocess.run(
        ["wrk", "-t", "2", "-c", str(clients), "-d", f"{int(seconds)}s", "--latency", f"http://127.0.0.1:{port}{path}"],
        capture_output=True, text=True, check=True,
    ).stdout
    def ms(label: str) -> float:
        value, unit = re.search(rf"{label}\s+([\d.]+)(us|ms|s)", out).groups()
        return float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    if "Non-2xx" in out:
        raise RuntimeError(f"{path}: non-2xx answers\n{out}")
    # wrk prints 50/75/90/99; p95 is read between 90 and 99 by linear interpolation of the two.
    p90, p99 = ms("90%"), ms("99%")
    return ms("50%"), p90 + (p99 - p90) * 5 / 9, rps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--results", type=int, default=20000)
    parser.add_argument("--runs", type=int, default=200000)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--skip-seed", action="store_true")
    parser.add_argument("--python-client", action="store_true", help="Use the Python client even with wrk")
    options = parser.parse_args()

    env = service_env()
    create_database(env)
    manage(env, "migrate", "--noinput", "-v0")
    if not options.skip_seed:
        started = time.perf_counter()
        manage(env, "seed_synthetic", "--clear", "--results", str(options.results), "--runs", str(options.runs))
        print(f"seeded in {time.perf_counter() - started:.1f} s")
    manage(env, "collectstatic", "--noinput", "-v0")
    urls = pick_urls(env)
    measured = count_queries(env, urls)
    floors = write_floor_files({url: size for url, (_, size) in measured.items()})
    server, port = start_gunicorn(env, options.workers)
    try:
        use_wrk = shutil.which("wrk") and not options.python_client
        client = "wrk" if use_wrk else "python threads"
        print(f"gunicorn -w {options.workers}, {options.clients} concurrent clients ({client}), "
              f"{options.seconds:.0f} s per URL, {os.cpu_count()} CPUs")
        print(f"{'page':28} {'p50 ms':>8} {'p95 ms':>8} {'req/s':>8} {'queries':>8} {'bytes':>8}"
              f" | {'floor p50':>9} {'p95':>6} {'req/s':>7} | {'p95/floor':>9}  url")

        def load(path: str) -> tuple[float, float, float]:
            python_load(port, path, 2, 1.0)  # warm the workers' connections and caches
            if use_wrk:
                return wrk_load(port, path, options.clients, options.seconds)
            latencies = sorted(python_load(port, path, options.clients, options.seconds))
            return (statistics.median(latencies) * 1000, latencies[int(len(latencies) * 0.95) - 1] * 1000,
                    len(latencies) / options.seconds)

        for label, path in urls:
            p50, p95, rps = load(path)
            floor_p50, floor_p95, floor_rps = load(floors[path])
            queries, size = measured[path]
            print(f"{label:28} {p50:8.1f} {p95:8.1f} {rps:8.1f} {queries:8d} {size:8d}"
                  f" | {floor_p50:9.1f} {floor_p95:6.1f} {floor_rps:7.1f} | {p95 / floor_p95:9.2f}  {path}")
    finally:
        server.terminate()
        server.wait(timeout=10)


if __name__ == "__main__":
    main()
