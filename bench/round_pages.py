"""Pages at the size of the public record (issue 38): HTML bytes, cold and warm page times at 1 and
16 clients, and the first request after a change with and without the warm.

    .venv/bin/python bench/round_pages.py [--corpus ../shared/corpus/inference] [--before DIR]

Steps: a database of its own (`mlperf_bench_pages`, next to the one in DATABASE_URL), migrated;
the corpus's inference rounds imported (`import_results --publish`) and a synthetic inference
round of 1,500 results (v5.1, the size of a real one: results/synthetic_inference.py); then
* the HTML bytes of each inference round page, and with --before DIR (a copy of the code before,
  `git archive HEAD | tar -x -C DIR`) the same pages as that code builds them;
* gunicorn (-w 4, DEBUG off): per page family, the cold time (a page-cache miss: each request asks
  a URL no one asked before, `?cold=<n>`, as the first visitor after a change does) and the warm
  time (the same URL again: a hit), at 1 and 16 concurrent clients: median and p95;
* the first request for the round page after a change to the round (its submissions stamped, as
  a decision does), without the warm and after pages.warming.warm_pages (the Celery task's work:
  it asks gunicorn, SITE_URL here, for the pages).
"""

from __future__ import annotations

import argparse
import http.client
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import web  # noqa: E402  (bench/web.py: the service environment, gunicorn)

REPO = web.REPO
PYTHON = web.PYTHON
DATABASE = "mlperf_bench_pages"
SYNTHETIC = "inference-v5.1"


def django_code(env, code: str, *args: str, cwd: Path = REPO) -> str:
    return subprocess.run([PYTHON, "-c", "import django; django.setup()\n" + code, *args], cwd=cwd, env=env,
                          capture_output=True, text=True, check=True).stdout


def fill(env, corpus: Path) -> None:
    for folder in sorted(corpus.glob("v*")):
        started = time.perf_counter()
        web.manage(env, "import_results", str(folder), "--round", f"inference-{folder.name}", "--publish")
        print(f"imported inference-{folder.name} in {time.perf_counter() - started:.0f} s")
    django_code(env, "from results.synthetic_inference import make_inference_round\n"
                     "make_inference_round('5.1', results=1500)\n")


BYTES = (
    "import sys, uuid\n"
    "from django.test import Client\n"
    "from pages import caching\n"
    "caching.KEY_PREFIX = f'bench-bytes-{uuid.uuid4().hex}'\n"
    "client = Client()\n"
    "for url in sys.argv[1:]:\n"
    "    response = client.get(url, HTTP_HOST='127.0.0.1')\n"
    "    print(url, response.status_code, len(response.content))\n"
)


def page_bytes(env, urls: list[str], cwd: Path = REPO) -> dict[str, int]:
    sizes = {}
    for line in django_code(env, BYTES, *urls, cwd=cwd).splitlines():
        url, status, size = line.rsplit(" ", 2)
        sizes[url] = int(size) if status == "200" else -int(status)
    return sizes


def families(env) -> list[tuple[str, str]]:
    code = (
        "from results.models import Result\n"
        "r = Result.objects.filter(submission__round__version='5.1').order_by('result_id').select_related('system', 'submission__organization').first()\n"
        "print(r.result_id, r.submission.organization.slug, r.system.system_id, r.benchmark.name)\n"
    )
    result_id, organization, system_id, model = django_code(env, code).split()
    return [
        ("home", "/"),
        ("inference round (1,500 results)", f"/rounds/{SYNTHETIC}/"),
        ("inference round, one model", f"/rounds/{SYNTHETIC}/?model={model}"),
        ("inference round, page 2", f"/rounds/{SYNTHETIC}/?datacenter_page=2"),
        ("inference round v0.7 (corpus)", "/rounds/inference-v0.7/"),
        ("inference chart data (JSON)", f"/rounds/{SYNTHETIC}/charts/relative-performance.json"),
        ("tables CSV", f"/rounds/{SYNTHETIC}/tables.csv"),
        ("result", f"/results/{result_id}/"),
        ("system", f"/systems/{organization}/{system_id}/"),
        ("organization", f"/organizations/{organization}/"),
        ("search", "/search/?q=H100"),
        ("API results list", "/api/v1/results/"),
        ("feed", "/changes.atom"),
    ]


def load(port: int, paths, clients: int) -> list[float]:
    """Each of `clients` threads asks the next path of `paths` (an iterator shared by them) over
    its own keep-alive connection until they run out; the latency of each answer, in ms."""
    latencies: list[float] = []
    lock = threading.Lock()

    def client() -> None:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        while True:
            with lock:
                path = next(paths, None)
            if path is None:
                return
            start = time.perf_counter()
            connection.request("GET", path, headers={"Accept-Encoding": "gzip"})
            response = connection.getresponse()
            response.read()
            elapsed = (time.perf_counter() - start) * 1000
            if response.status != 200:
                raise RuntimeError(f"{path}: {response.status}")
            with lock:
                latencies.append(elapsed)

    threads = [threading.Thread(target=client) for _ in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return latencies


def summary(latencies: list[float]) -> tuple[float, float]:
    ordered = sorted(latencies)
    return statistics.median(ordered), ordered[max(0, int(round(len(ordered) * 0.95)) - 1)]


def with_param(path: str, name: str, value: str) -> str:
    return f"{path}{'&' if '?' in path else '?'}{name}={value}"


FIRST_AFTER_CHANGE = (
    "import time, urllib.request\n"
    "from django.conf import settings\n"
    "from django.db import transaction\n"
    "from pages import caching, warming\n"
    "from results.models import Round, Submission\n"
    "from results.services.versions import touch_submissions\n"
    "round_ = Round.objects.get(suite='inference', version='5.1')\n"
    "def change():\n"
    "    with transaction.atomic():\n"
    "        touch_submissions(Submission.objects.filter(round=round_))\n"
    "    time.sleep(caching.DATA_VERSION_SECONDS + 1)  # as the task waits: every web process reads the new version\n"
    "def first():\n"
    "    start = time.perf_counter()\n"
    "    request = urllib.request.Request(f'{settings.SITE_URL}/rounds/{round_.slug}/', headers={'Accept-Encoding': 'gzip'})\n"
    "    urllib.request.urlopen(request, timeout=60).read()\n"
    "    return (time.perf_counter() - start) * 1000\n"
    "for _ in range(3):\n"
    "    change(); cold = first()\n"
    "    change(); start = time.perf_counter(); warming.warm_pages([round_.pk]); took = (time.perf_counter() - start) * 1000\n"
    "    print(f'{cold:.1f} {first():.1f} {took:.0f}')\n"
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, default=REPO.parent / "shared" / "corpus" / "inference")
    parser.add_argument("--before", type=Path, help="a copy of the code before, to measure its page bytes")
    parser.add_argument("--cold-requests", type=int, default=48, help="cache misses per page family and client count")
    parser.add_argument("--warm-requests", type=int, default=800)
    parser.add_argument("--workers", type=int, default=4)
    options = parser.parse_args()

    env = web.service_env(DATABASE)
    if web.create_database(env, DATABASE):
        web.manage(env, "migrate", "--noinput", "-v0")
        fill(env, options.corpus)
    web.manage(env, "collectstatic", "--noinput", "-v0")
    pages = families(env)
    rounds = [f"/rounds/inference-{folder.name}/" for folder in sorted(options.corpus.glob("v*"))] + [f"/rounds/{SYNTHETIC}/"]
    after = page_bytes(env, rounds)
    before = {}
    if options.before:
        subprocess.run([PYTHON, "manage.py", "collectstatic", "--noinput", "-v0"], cwd=options.before, env=env, check=True)
        before = page_bytes(env, rounds, cwd=options.before)
    print("\nHTML bytes of each inference round page (before -> after):")
    for url in rounds:
        print(f"  {url:36} {before.get(url, 0):>10,} -> {after[url]:>9,}")

    server, port = web.start_gunicorn(env, options.workers)
    try:
        print("\nFirst request for the round page after a change (ms): without the warm, after it; the warm took")
        for line in django_code({**env, "SITE_URL": f"http://127.0.0.1:{port}"}, FIRST_AFTER_CHANGE).splitlines():
            print("  " + line)

        print(f"\ngunicorn -w {options.workers}; cold = {options.cold_requests} misses, warm = {options.warm_requests} hits"
              " per family and client count (ms)")
        print(f"  {'page':34} {'clients':>7} {'cold p50':>9} {'cold p95':>9} {'warm p50':>9} {'warm p95':>9}")
        run = time.time_ns()
        for label, path in pages:
            for clients in (1, 16):
                cold = iter([with_param(path, "cold", f"{run}-{clients}-{n}") for n in range(options.cold_requests)])
                cold_p50, cold_p95 = summary(load(port, cold, clients))
                load(port, iter([path] * 4), 1)  # stored
                warm_p50, warm_p95 = summary(load(port, iter([path] * options.warm_requests), clients))
                print(f"  {label:34} {clients:>7} {cold_p50:9.1f} {cold_p95:9.1f} {warm_p50:9.1f} {warm_p95:9.1f}")
    finally:
        server.terminate()
        server.wait(timeout=60)


if __name__ == "__main__":
    main()
