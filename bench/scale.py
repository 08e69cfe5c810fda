"""Scale bench (issue 38): the public record and synthetic rounds in one database, then every page
family cold and warm at 1 and 16 clients.

    set -a; . <env with DATABASE_URL on PostgreSQL>; set +a
    .venv/bin/python bench/scale.py --results 200000 --runs 2000000

Steps, each timed: create the database `mlperf_scale` (`--database`) beside the one in DATABASE_URL (`--fresh`
drops it first) and migrate; import the public record (`manage.py import_record --publish --jobs
N` over every round folder of ../shared/corpus that the database has a suite for, or with `--record
DIR` over every results checkout in DIR: the public results repositories as bench/export_snapshots.py
writes them out); add synthetic rounds
(`manage.py seed_synthetic --results R --runs N --inference-results I --clear`: training-shaped
rounds with runs, inference-shaped ones without); take a snapshot of one real round; the
database's size. Then gunicorn (DEBUG off) serves it and each page family is asked:

* warm: the same URL again and again (after one request, just before, that fills the page cache);
* cold: every request a URL the page cache has not seen (a `bench=<n>` query parameter), so each
  is a cache miss that builds the page from the database;

at 1 client and at 16 concurrent clients (threads, each with its own keep-alive connection), with
the median and 95th percentile of the answer times and the bytes of the answer (uncompressed, and
as sent: each client asks for gzip, as a browser does). Then the page's own URL once after a change
in the measured round (`--changes` times): the round's submissions stamped as a decision stamps
them, which moves the round's version and the global one, and the first request once every web
process reads the new versions. That is what the warm task (pages/warming.py), or without it the
first visitor, pays after each import, publication or review decision; a cold URL above also finds
the figures kept per round version (pages.caching.round_rows and round_figures) that a change
discards. And the same after a change in another round (the newest other public round): a page
keyed on its own round's version (a round's pages, a result's, an API list of one round) is still
stored then.
A measurement stops early after `--seconds` (the cold round page of a 200,000-result database is
slow). Prints a Markdown table for bench/RESULTS.md and writes var/bench/scale-<database>.json.
"""

from __future__ import annotations

import argparse
import gzip
import http.client
import json
import os
import re
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from web import PYTHON, REPO, create_database, service_env, start_gunicorn  # noqa: E402  (bench/web.py)

CORPUS = REPO.parent / "shared" / "corpus"
# The corpus's round folders (see its MANIFEST.md files): training, power (training v4.0), inference, HPC,
# automotive and tiny; a folder whose suite the database does not hold is left out and named.
CORPUS_ROUNDS = [
    "v0.5", "v0.6", "v0.7", "v1.0", "v3.0", "v4.0", "power/v4.0",
    "inference/v0.5", "inference/v0.7", "inference/v4.1", "hpc/v1.0", "hpc/v2.0",
    "automotive/v0.5", "tiny/v1.3",
]  # fmt: skip
FAMILIES = ("home", "round", "benchmark", "result", "log", "system", "organization", "compare", "search", "API list",
            "API runs", "CSV", "snapshot", "feed")


def database_env(database: str) -> dict[str, str]:
    env = service_env(database)  # DATABASE_URL on PostgreSQL, DEBUG off, no broker
    env["MEDIA_ROOT"] = str(REPO / "var" / "bench" / "media")  # its log copies and snapshots, apart from make run's
    return env


def timed_manage(env, *args: str, failures_reported: bool = False) -> tuple[float, str]:
    """Seconds and output of one manage.py command (its output also shown). `failures_reported`:
    exit status 1 means some submitter folders could not be imported, which its summary names."""
    started = time.monotonic()
    done = subprocess.run([PYTHON, "manage.py", *args], cwd=REPO, env=env, capture_output=True, text=True)
    seconds = time.monotonic() - started
    print(done.stdout[-4000:], done.stderr[-2000:], sep="\n", flush=True)
    if done.returncode and not (failures_reported and done.returncode == 1):
        sys.exit(f"manage.py {' '.join(args)} failed ({done.returncode})")
    return seconds, done.stdout


def django_json(env, code: str) -> dict:
    """Run `code` (which prints one JSON document last) with Django set up, in the bench database."""
    program = "import json, django; django.setup()\n" + code
    out = subprocess.run([PYTHON, "-c", program], cwd=REPO, env=env, capture_output=True, text=True)
    if out.returncode:
        sys.exit(out.stderr[-3000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


DATABASE_FIGURES = """
from django.db import connection
from results.models import Result, Round, Run, Submission
with connection.cursor() as cursor:
    cursor.execute("SELECT pg_database_size(current_database())")
    size = cursor.fetchone()[0]
print(json.dumps({"bytes": size, "rounds": Round.objects.count(), "results": Result.objects.count(),
                  "runs": Run.objects.count(), "versions": Submission.objects.count()}))
"""

# One URL per page family, from the data: the largest real training round (real and synthetic
# organizations side by side; `--round` names another), its most populated benchmark, a real result
# (with the most runs), its system and organization, two results to compare, a snapshot of the round
# (taken here when it has none).
PICK_URLS = """
from django.db.models import Count
from pages.snapshots import take_snapshot
from results.models import Result, Round, Snapshot
real = Result.objects.exclude(submission__organization__slug__startswith="synthetic-").filter(
    submission__is_published=True).exclude(result_id="")
if ROUND:
    suite, version = ROUND.split("-v")
    round_ = Round.objects.get(suite=suite, version=version)
else:
    real = real.filter(runs__isnull=False).distinct()
    round_ = Round.objects.filter(pk__in=real.values("submission__round")).annotate(
        n=Count("submissions__results")).order_by("-n").first()
benchmark = round_.benchmarks.annotate(n=Count("results")).order_by("-n").first()
result = real.filter(submission__round=round_).annotate(n=Count("runs")).order_by("-n", "pk").first()
other = real.filter(submission__round=round_, benchmark=result.benchmark).exclude(pk=result.pk).first() or result
run_log = result.runs.exclude(log_name="").order_by("pk").first()
if not Snapshot.objects.filter(round=round_).exists():
    take_snapshot(round_)
org = result.submission.organization
# A change elsewhere: the newest other round the public sees.
elsewhere = Round.objects.visible_to(None).exclude(pk=round_.pk).order_by("-pk").first()
print(json.dumps({"round id": round_.pk, "other round id": elsewhere.pk, "urls": {
    "home": "/",
    "round": f"/rounds/{round_.slug}/",
    "benchmark": f"/rounds/{round_.slug}/{benchmark.name}/",
    "result": f"/results/{result.result_id}/",
    "log": f"/logs/{run_log.sha256}/",
    "system": f"/systems/{org.slug}/{result.system.system_id}/",
    "organization": f"/organizations/{org.slug}/",
    "compare": f"/compare/?result={result.result_id}&result={other.result_id}",
    "search": f"/search/?q={org.name.split()[0]}",
    "API list": f"/api/v1/results/?round={round_.slug}",
    "API runs": f"/api/v1/runs/?round={round_.slug}",
    "CSV": f"/rounds/{round_.slug}/table.csv",
    "snapshot": f"/rounds/{round_.slug}/snapshots/",
    "feed": "/changes.atom",
}}))
"""


def load(port: int, urls, clients: int, per_client: int, seconds: float) -> tuple[list[float], set[int], list[int]]:
    """`clients` threads, each asking its share of `urls` (a function of the request's number) over
    its own keep-alive connection, until each has asked `per_client` or `seconds` have passed.
    Returns the answer times in ms, the statuses seen and the bytes of the last answer
    (uncompressed, and as sent)."""
    times: list[float] = []
    statuses: set[int] = set()
    size = [0, 0]  # the last answer's body: uncompressed, and as sent
    deadline = time.monotonic() + seconds
    lock = threading.Lock()

    def client(number: int) -> None:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        for index in range(per_client):
            if time.monotonic() > deadline:
                break
            started = time.perf_counter()
            # As a browser asks: a gzip-compressed answer where the server has one.
            connection.request("GET", urls(number * per_client + index),
                               headers={"Host": "127.0.0.1", "Accept-Encoding": "gzip"})
            response = connection.getresponse()
            body = response.read()
            elapsed = (time.perf_counter() - started) * 1000
            with lock:
                times.append(elapsed)
                statuses.add(response.status)
                compressed = response.getheader("Content-Encoding") == "gzip"
                size[0], size[1] = len(gzip.decompress(body)) if compressed else len(body), len(body)
        connection.close()

    threads = [threading.Thread(target=client, args=(number,)) for number in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return times, statuses, size


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def measure(port: int, url: str, args) -> dict:
    """Cold and warm, at 1 and 16 clients, for one URL."""
    separator = "&" if "?" in url else "?"
    run = time.time_ns()  # cold URLs no earlier run of the bench has put in the cache

    def cold(n: int) -> str:
        return f"{url}{separator}bench={run}-{n}"

    figures = {}
    for clients in (1, 16):
        for kind, urls, per_client in (("cold", cold, args.cold_requests), ("warm", lambda n: url, args.warm_requests)):
            if kind == "warm":
                # Fill the page cache just before: a cached page lives PAGE_CACHE_SECONDS, less than a
                # slow cold measurement takes.
                load(port, lambda n: url, 1, 1, args.seconds)
            count = per_client if clients == 1 else max(2, per_client // 4)
            times, statuses, size = load(port, urls, clients, count, args.seconds)
            figures[f"{kind} {clients}"] = {
                "median": statistics.median(times), "p95": percentile(times, 0.95), "n": len(times),
                "statuses": sorted(statuses), "bytes": size[0], "bytes sent": size[1],
            }
            run += 1
    return figures


# A web process reads the versions again DATA_VERSION_SECONDS (pages/caching.py: 2 s) after it last
# read them: a change shows to every process after that, here with a margin.
VERSIONS_READ_AGAIN_SECONDS = 2.5


def after_changes(port: int, url: str, round_id: int, env: dict, args) -> dict:
    """`url` asked once after each of `args.changes` changes in the round: its submissions'
    updated_at stamped, as results.services.versions.touch_submissions stamps them (here in SQL: no
    task is sent, so nothing warms the page first)."""
    import psycopg2

    times = []
    with psycopg2.connect(env["DATABASE_URL"]) as database:
        for _ in range(args.changes):
            with database.cursor() as cursor:
                cursor.execute("UPDATE results_submission SET updated_at = now() WHERE round_id = %s", [round_id])
            database.commit()
            time.sleep(VERSIONS_READ_AGAIN_SECONDS)
            answered, statuses, _ = load(port, lambda n: url, 1, 1, args.seconds)
            times += answered
    return {"median": statistics.median(times), "p95": percentile(times, 0.95), "n": len(times),
            "statuses": sorted(statuses)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database", default="mlperf_scale", help="the bench database, beside DATABASE_URL's")
    parser.add_argument("--results", type=int, default=20000, help="synthetic results (seed_synthetic; 0: none)")
    parser.add_argument("--runs", type=int, default=200000, help="synthetic runs")
    parser.add_argument("--inference-results", type=int, default=0,
                        help="synthetic inference-shaped results beside them (seed_synthetic --inference-results)")
    parser.add_argument("--jobs", type=int, default=2, help="import_record --jobs")
    parser.add_argument("--workers", type=int, default=4, help="gunicorn workers")
    parser.add_argument("--record", type=Path, help="a folder of results checkouts (bench/export_snapshots.py) "
                        "to import instead of the corpus's round folders")
    parser.add_argument("--fresh", action="store_true", help="drop the bench database first")
    parser.add_argument("--skip-data", action="store_true", help="measure the pages of the database as it is")
    parser.add_argument("--cold-requests", type=int, default=12, help="cold requests per client at 1 client")
    parser.add_argument("--warm-requests", type=int, default=60, help="warm requests per client at 1 client")
    parser.add_argument("--seconds", type=float, default=30, help="longest time of one measurement")
    parser.add_argument("--changes", type=int, default=5, help="first requests after a change, per page")
    parser.add_argument("--families", nargs="*", default=list(FAMILIES))
    parser.add_argument("--round", default="", help="the round whose pages are measured (inference-v3.0); "
                        "default: the largest real training round")
    args = parser.parse_args()

    env = database_env(args.database)
    figures: dict = {"machine": {"cpus": os.cpu_count(), "load_before": os.getloadavg()}}
    if not args.skip_data:
        create_database(env, args.database, fresh=args.fresh)
        subprocess.run([PYTHON, "manage.py", "migrate", "-v", "0"], cwd=REPO, env=env, check=True)
        if args.record:
            checkouts = sorted(str(path) for path in args.record.iterdir() if path.is_dir() and not path.name.startswith("."))
        else:
            checkouts = [str(CORPUS / name) for name in CORPUS_ROUNDS if (CORPUS / name).is_dir()]
        imported = [path for path in checkouts if _recognized(env, path)]
        figures["record"] = {"checkouts": imported, "left out": sorted(set(checkouts) - set(imported))}
        seconds, out = timed_manage(env, "import_record", *imported, "--publish", "--jobs", str(args.jobs),
                                  failures_reported=True)
        figures["record"]["import seconds"] = seconds
        figures["record"]["summary"] = [line for line in out.splitlines() if re.match(r"^\S+-v\S+ from |^\d+ results", line)]
        figures["record"]["database"] = django_json(env, DATABASE_FIGURES)
        seconds, _ = timed_manage(env, "import_record", *imported, "--publish", "--jobs", str(args.jobs),
                                  failures_reported=True)
        figures["record"]["second import seconds"] = seconds
        if args.results:
            seconds, _ = timed_manage(env, "seed_synthetic", "--results", str(args.results), "--runs", str(args.runs),
                                      "--inference-results", str(args.inference_results), "--clear")
            figures["synthetic"] = {"results": args.results, "runs": args.runs,
                                    "inference results": args.inference_results, "seconds": seconds}
        subprocess.run([PYTHON, "manage.py", "shell", "-c", "from django.db import connection; "
                        "connection.cursor().execute('VACUUM ANALYZE')"], cwd=REPO, env=env, check=True)
    figures["database"] = django_json(env, DATABASE_FIGURES)
    picked = django_json(env, f"ROUND = {args.round!r}\n" + PICK_URLS)
    urls = figures["urls"] = picked["urls"]
    print(json.dumps(figures, indent=1), flush=True)

    server, port = start_gunicorn(env, args.workers)
    try:
        figures["load_at_pages"] = os.getloadavg()
        figures["pages"] = {}
        for family in args.families:
            figures["pages"][family] = measure(port, urls[family], args)
            figures["pages"][family]["after a change"] = after_changes(port, urls[family], picked["round id"], env, args)
            figures["pages"][family]["after a change elsewhere"] = after_changes(
                port, urls[family], picked["other round id"], env, args)
            print(family, json.dumps(figures["pages"][family]), flush=True)
        figures["load_after"] = os.getloadavg()
    finally:
        server.terminate()
        server.wait()
    out_dir = REPO / "var" / "bench"
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / f"scale-{args.database}.json").write_text(json.dumps(figures, indent=1))
    print(markdown(figures))


def _recognized(env, path: str) -> bool:
    code = ("from results.services.record_import import CheckoutError, recognize_checkout\n"
            f"try:\n    recognize_checkout({path!r}); ok = True\nexcept CheckoutError:\n    ok = False\n"
            "print(json.dumps(ok))")
    return django_json(env, code)


def markdown(figures: dict) -> str:
    lines = ["| page | bytes (gzip sent) | cold p50 / p95 ms, 1 client | warm p50 / p95 ms, 1 client | "
             "cold p50 / p95 ms, 16 clients | warm p50 / p95 ms, 16 clients | first after a change p50 / p95 ms | "
             "first after a change in another round p50 / p95 ms |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for family, page in figures.get("pages", {}).items():
        cells = [f"{page[k]['median']:.1f} / {page[k]['p95']:.1f}" + ("" if page[k]["statuses"] == [200] else
                                                                      f" ({page[k]['statuses']})")
                 for k in ("cold 1", "warm 1", "cold 16", "warm 16", "after a change", "after a change elsewhere")
                 if k in page]
        lines.append(f"| {family} `{figures['urls'][family]}` | {page['warm 1']['bytes']:,} ({page['warm 1'].get('bytes sent', 0):,}) | " + " | ".join(cells) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
