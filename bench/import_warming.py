"""The web server's work while the public record is imported with the workers running (issue 38).

Each commit of an import sends a warm of its round's pages (pages/warming.py): the worker asks the
web server for the round's page, its charts and the global pages, which the web server builds into
the page cache. This measures what those warms cost while `import_record` runs, as an operator's
docker-compose stack would run it.

    set -a; . <env with DATABASE_URL on PostgreSQL and CELERY_BROKER_URL on Redis>; set +a
    .venv/bin/python bench/import_warming.py --base /path/to/a/checkout/of/the/code/before

For the checkout `--base` (the peer), then for this one: a fresh database `mlperf_warming`, migrated;
gunicorn (2 workers, DEBUG off) and a Celery worker on the default queue (PAGE_WARM_URL: that
gunicorn), each with the checkout's code, on Redis databases of their own (broker 12, page cache 13,
emptied first); `import_record --publish --jobs N` over the corpus's round folders; then wait until
the worker has run every warm it received. Prints, for each: the import's wall time, the warms sent,
those that asked for pages and the pages they asked for, and the CPU seconds of gunicorn's and the
worker's processes from the import's start until the last warm.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlparse

# The repository's verify package before bench/ (which holds a verify.py of its own) on the path.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from verify.sandbox.processes import tree_cpu_seconds  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from scale import CORPUS, CORPUS_ROUNDS  # noqa: E402  (bench/scale.py)
from web import PYTHON, REPO, create_database, service_env, start_gunicorn  # noqa: E402  (bench/web.py)

DATABASE = "mlperf_warming"
BROKER_DB, CACHE_DB = 12, 13
# The worker's log line of a warm that ran: its pages and their answers (pages/tasks.py returns them).
WARM_DONE = re.compile(r"Task pages\.warm_pages\[[^\]]+\] succeeded in [\d.e-]+s: (\[.*\])$")


def redis_url(url: str, number: int) -> str:
    return urlparse(url)._replace(path=f"/{number}").geturl()


def measure(code: Path, env: dict[str, str], jobs: int, scratch: Path) -> dict:
    create_database(env, DATABASE, fresh=True)
    subprocess.run([PYTHON, "manage.py", "migrate", "-v", "0"], cwd=code, env=env, check=True)
    subprocess.run([PYTHON, "-c", "import os, redis\nfor name in ('CELERY_BROKER_URL', 'REDIS_URL'):\n"
                    "    redis.Redis.from_url(os.environ[name]).flushdb()"], env=env, check=True)
    log = scratch / f"worker-{code.name}.log"
    server, port = start_gunicorn(env, 2, code)
    env = {**env, "PAGE_WARM_URL": f"http://127.0.0.1:{port}"}
    worker = subprocess.Popen([str(REPO / ".venv" / "bin" / "celery"), "-A", "config", "worker", "-Q", "default",
                               "--concurrency", "2", "--loglevel", "INFO", "--logfile", str(log), "-n", f"warming-{port}@%h"],
                              cwd=code, env=env)
    try:
        while "ready." not in (log.read_text() if log.exists() else ""):
            time.sleep(0.2)
        cpu_before = tree_cpu_seconds(server.pid), tree_cpu_seconds(worker.pid)
        started = time.monotonic()
        folders = [str(CORPUS / name) for name in CORPUS_ROUNDS if (CORPUS / name).is_dir()]
        done = subprocess.run([PYTHON, "manage.py", "import_record", *folders, "--publish", "--jobs", str(jobs)],
                              cwd=code, env=env, capture_output=True, text=True)
        if done.returncode not in (0, 1):  # 1: some folders refused, which the summary names
            sys.exit(done.stdout[-3000:] + done.stderr[-3000:])
        imported = time.monotonic() - started
        # Every warm the worker received has run (a warm waits caching.DATA_VERSION_SECONDS + 1 first).
        while True:
            text = log.read_text()
            received = len(re.findall(r"Task pages\.warm_pages\[[^\]]+\] received", text))
            ran = [ast.literal_eval(m.group(1)) for m in map(WARM_DONE.search, text.splitlines()) if m]
            if ran and len(ran) == received and time.monotonic() - started > imported + 5:
                break
            time.sleep(1)
        finished = time.monotonic() - started
        cpu_after = tree_cpu_seconds(server.pid), tree_cpu_seconds(worker.pid)
    finally:
        worker.terminate()
        server.terminate()
        worker.wait()
        server.wait()
    return {
        "import seconds": round(imported, 1),
        "last warm at seconds": round(finished, 1),
        "warms sent": received,
        "warms that asked for pages": sum(1 for pages in ran if pages),
        "pages asked": sum(len(pages) for pages in ran),
        "gunicorn CPU seconds": round(cpu_after[0] - cpu_before[0], 1),
        "worker CPU seconds": round(cpu_after[1] - cpu_before[1], 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base", type=Path, required=True, help="a checkout of the code to compare with")
    parser.add_argument("--jobs", type=int, default=2, help="import_record --jobs")
    args = parser.parse_args()
    broker = os.environ.get("CELERY_BROKER_URL") or sys.exit("CELERY_BROKER_URL must name a Redis server")
    env = service_env(DATABASE)
    env.update(CELERY_BROKER_URL=redis_url(broker, BROKER_DB), REDIS_URL=redis_url(broker, CACHE_DB))
    figures = {}
    with tempfile.TemporaryDirectory(prefix="import-warming-") as scratch:
        for name, code in (("base", args.base.resolve()), ("this checkout", REPO)):
            media = Path(scratch) / f"media-{name.replace(' ', '-')}"
            figures[name] = measure(code, {**env, "MEDIA_ROOT": str(media)}, args.jobs, Path(scratch))
            print(name, json.dumps(figures[name]), flush=True)
    print("\n| | " + " | ".join(figures) + " | ratio |\n|---|" + "---:|" * (len(figures) + 1))
    base, this = figures["base"], figures["this checkout"]
    for key in base:
        ratio = f"{this[key] / base[key]:.2f}" if base[key] else ""
        print(f"| {key} | {base[key]:,} | {this[key]:,} | {ratio} |")


if __name__ == "__main__":
    main()
