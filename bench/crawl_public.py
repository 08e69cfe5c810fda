"""Crawl every public URL of the bundled sample and keep each answer, to prove that a change of
the code changes no page, download or API answer (issue 35: "behaviour unchanged, proven").

    .venv/bin/python bench/crawl_public.py OUT              # build the sample, crawl it into OUT
    .venv/bin/python bench/crawl_public.py --compare A B    # differing URLs and a short diff; exit 1 if any

Building: a throwaway SQLite database (DATABASE_URL=sqlite:///<tmp>), its own folder broker and
media under the same temporary folder, `manage.py migrate`, then the Makefile's `sample` target's
`import_results` lines, each in its own process, exactly as `make run` imports the sample.
Crawling, in this process with Django's test client, as an anonymous visitor (DJANGO_ENV=development):
a snapshot of every published round first (pages.snapshots.take_snapshot, so that their pages
exist), then every URL named below, and every same-site link found in the HTML, the sitemap and
the JSON answers. A page reached with a query string (a sort, a filter, a page of a log) is kept
but its links are not followed (their combinations never end; each is a view of a page whose
links were all followed), except an API list's `next` page. At most --max-urls addresses.

The answers are read from the database the import wrote; the URL list comes from the models, so a
change of the code may move nothing but what the pages say.

Each answer goes to one file of OUT (its name: the URL made safe, plus a digest of it): the URL,
the status, the content type, a redirect's Location, a blank line, then the body. Normalised,
because they differ from run to run and say nothing of the code: the content hash in a static
file's name (`app.3f2a9c1b7e4d.css` -> `app.css`), a form's CSRF token, and any time written
between the build's start and the crawl's end (the audit events of the import: the change logs,
their Atom feeds) -> `<time of this run>`. The snapshots are taken at a fixed clock
(SNAPSHOT_CLOCK), so their files and archives are the same bytes in every crawl and need nothing
normalised. Binary answers (Parquet) are kept as their size and SHA-256; a snapshot's tar.gz as
that and every member's text. OUT/index.tsv lists every URL with its status and file.
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import io
import json
import logging
import os
import re
import subprocess
import sys
import tarfile
import tempfile
from collections import deque
from datetime import UTC, datetime, timedelta
from html.parser import HTMLParser
from pathlib import Path
from unittest import mock
from urllib.parse import quote, urldefrag, urljoin, urlsplit

REPO = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
# Addresses a crawler must not follow: they act (sign out), belong to another application (the
# admin) or are not this project's answers (static files, served by WhiteNoise from staticfiles/).
NOT_FOLLOWED = ("/admin/", "/accounts/logout/", "/static/", "/media/")
# What differs from run to run and is no work of the code (see the docstring). The times of the
# import are replaced only where they fall between the build's start and the crawl's end (normalised()).
NORMALISED = [
    # A static file's content hash in its name (ManifestStaticFilesStorage).
    (re.compile(rb"(/static/[^\"'\s>?]+?)\.[0-9a-f]{12}(\.[A-Za-z0-9]+)"), rb"\1\2"),
    # The CSRF token of a form (the sign-in page, the API's documentation).
    (re.compile(rb'(csrfmiddlewaretoken" value=")[^"]+"'), rb'\1<csrf>"'),
    (re.compile(rb'(X-CSRFTOKEN"\] = ")[^"]+"'), rb'\1<csrf>"'),
]
TIME = re.compile(rb"(\d{4}-\d\d-\d\d)[T ](\d\d:\d\d)(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d| ?UTC)?")
# The clock the snapshots are taken at, so that their files (and archives) are the same bytes in every crawl.
SNAPSHOT_CLOCK = datetime(2030, 1, 1, tzinfo=UTC)
TEXT_TYPES = ("text/", "application/json", "application/javascript", "application/atom+xml", "application/xml", "application/vnd.oai")


# ---- building the sample ---------------------------------------------------------------------

def sample_commands() -> list[list[str]]:
    """The `import_results` lines of the Makefile's `sample` target, as argument lists."""
    lines, inside = [], False
    for line in (REPO / "Makefile").read_text().splitlines():
        if line.startswith("sample:"):
            inside = True
        elif inside and not line.startswith("\t"):
            break
        elif inside and "manage.py" in line:
            lines.append(line.strip().split()[2:])  # drop "$(PY) manage.py"
    if not lines:
        sys.exit("no manage.py lines in the Makefile's sample target")
    return lines


def sample_environment(work: Path) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items()
           if key not in ("DATABASE_URL", "CELERY_BROKER_URL", "REDIS_URL", "CACHE_URL", "TEST_DB_SUFFIX")}
    env.update(DATABASE_URL=f"sqlite:///{work / 'db.sqlite3'}", DJANGO_ENV="development",
               DJANGO_SETTINGS_MODULE="config.settings", LOCAL_STATE_DIR=str(work / "var"),
               MEDIA_ROOT=str(work / "media"), LOG_LEVEL="ERROR")
    return env


def build_sample(work: Path, env: dict[str, str]) -> None:
    subprocess.run([PYTHON, "manage.py", "migrate", "--noinput", "-v0"], cwd=REPO, env=env, check=True)
    for arguments in sample_commands():
        print("import_results", arguments[1], file=sys.stderr)
        subprocess.run([PYTHON, "manage.py", *arguments], cwd=REPO, env=env, check=True, stdout=subprocess.DEVNULL)


# ---- crawling --------------------------------------------------------------------------------

class Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if value and ((tag == "a" and name == "href") or (tag in ("link", "script", "img", "iframe")
                                                              and name in ("href", "src"))):
                self.found.append(value)


def same_site(base: str, href: str) -> str | None:
    address = urldefrag(urljoin(base, href)).url
    parts = urlsplit(address)
    if parts.scheme not in ("", "http") or parts.netloc not in ("", "testserver"):
        return None
    return parts.path + (f"?{parts.query}" if parts.query else "")


def links_of(address: str, content_type: str, body: bytes) -> list[str]:
    """The same-site links of an answer: an HTML page's, the sitemap's, a JSON answer's (an API
    list reached with a query gives only its `next` page)."""
    if content_type.startswith("text/html"):
        parser = Links()
        parser.feed(body.decode("utf-8", "replace"))
        found = parser.found
        if urlsplit(address).query:
            return []
    elif content_type.startswith(("application/xml", "text/xml")):
        found = [m.decode() for m in re.findall(rb"<loc>([^<]+)</loc>", body)]
    elif content_type.startswith("application/json"):
        if urlsplit(address).query:
            try:
                document = json.loads(body)
            except ValueError:
                return []
            found = [document["next"]] if isinstance(document, dict) and document.get("next") else []
        else:
            found = [m.decode() for m in re.findall(rb'"(http://testserver/[^"]+)"', body)]
    else:
        return []
    return [link for link in (same_site(address, href) for href in found) if link]


def named_urls() -> list[str]:
    """Every public URL the models name: pages, downloads, snapshots, API lists and details,
    and a few that must answer 404 (an unknown round, result, chart)."""
    from results.models import Benchmark, Organization, Result, Round, Run, Snapshot, System

    urls = ["/", "/sitemap.xml", "/robots.txt", "/favicon.ico", "/changes/", "/changes.atom", "/compare/",
            "/search/", "/api/v1/", "/api/schema/",
            "/rounds/no-such-round/", "/rounds/training-v9.9/", "/results/no:such:result/", "/r/no-such-id"]
    urls += [f"/api/v1/{name}/" for name in ("rounds", "benchmarks", "systems", "results", "runs")]
    rounds = sorted(Round.objects.visible_to(None), key=lambda round_: round_.slug)
    for suite in sorted({round_.suite for round_ in rounds}):
        urls += [f"/progress/{suite}/", f"/api/v1/rounds/?suite={suite}", f"/api/v1/results/?suite={suite}"]
    for round_ in rounds:
        base = f"/rounds/{round_.slug}/"
        urls += [base, f"{base}table.csv", f"{base}table.json", f"{base}summary.csv", f"{base}summary_results.csv",
                 f"{base}summary_results.json", f"{base}tables.csv", f"{base}changes/", f"/rounds/{round_.slug}/changes.atom",
                 f"{base}snapshots/", f"{base}charts/no-such-chart.csv", f"{base}no-such-benchmark/",
                 f"/api/v1/rounds/{round_.slug}/", f"/api/v1/rounds/{round_.slug}/summary_results/",
                 f"/api/v1/results/?round={round_.slug}"]
        for benchmark in Benchmark.objects.filter(round=round_).order_by("name"):
            urls += [f"{base}{quote(benchmark.name)}/", f"/api/v1/benchmarks/{benchmark.pk}/"]
        for snapshot in Snapshot.objects.filter(round=round_).order_by("number"):
            urls.append(f"{base}snapshots/{snapshot.number}.tar.gz")
            urls += [f"{base}snapshots/{snapshot.number}/{file['name']}" for file in snapshot.files]
    public = Result.objects.visible_to(None)
    for result_id, version in public.order_by("result_id", "submission__version").values_list(
            "result_id", "submission__version"):
        urls += [f"/results/{quote(result_id)}/", f"/results/{quote(result_id)}/v{version}/", f"/r/{quote(result_id)}",
                 f"/r/{quote(result_id)}/v{version}", f"/api/v1/results/{quote(result_id)}/"]
    for organization, system_id, pk in System.objects.visible_to(None).order_by("pk").values_list(
            "submission__organization__slug", "system_id", "pk"):
        urls += [f"/systems/{quote(organization)}/{quote(system_id)}/", f"/api/v1/systems/{pk}/"]
    for slug in Organization.objects.order_by("slug").values_list("slug", flat=True):
        urls.append(f"/organizations/{quote(slug)}/")
    urls += [f"/api/v1/runs/{pk}/" for pk in Run.objects.visible_to(None).order_by("pk").values_list("pk", flat=True)]
    # Search for each suite, organization and benchmark word; compare a few results of each round
    # (and two rounds of different suites), and the systems of each organization.
    words = ["a", "resnet", "bert", "nvidia", "training", "inference", "hpc", "v1.0"]
    urls += [f"/search/?q={quote(word)}" for word in words]
    by_round: dict[str, list[str]] = {}
    for result_id, suite, version in public.current().order_by("result_id").values_list(
            "result_id", "submission__round__suite", "submission__round__version"):
        by_round.setdefault(f"{suite}-v{version}", []).append(result_id)
    firsts = []
    for _round, ids in sorted(by_round.items()):
        urls.append("/compare/?" + "&".join(f"result={quote(i)}" for i in ids[:3]))
        firsts.append(ids[0])
    urls.append("/compare/?" + "&".join(f"result={quote(i)}" for i in firsts))
    systems = list(System.objects.visible_to(None).order_by("pk").values_list("submission__organization__slug", "system_id"))
    urls.append("/compare/?" + "&".join(f"system={quote(f'{o}/{s}')}" for o, s in systems[:4]))
    return urls


def normalised(body: bytes, since: datetime) -> bytes:
    """`body` without what differs from run to run: NORMALISED, and every time written between
    `since` (the build's start) and now."""
    for pattern, replacement in NORMALISED:
        body = pattern.sub(replacement, body)
    now = datetime.now(UTC)

    def moment(match: re.Match) -> bytes:
        day, minute, _, _, zone = (part.decode() if part else "" for part in match.groups())
        offset = zone.strip() if zone.strip() not in ("", "Z", "UTC") else "+00:00"
        written = datetime.fromisoformat(f"{day}T{minute}{offset}")
        return b"<time of this run>" if since - timedelta(minutes=1) <= written <= now else match.group(0)

    return TIME.sub(moment, body)


def kept_body(address: str, content_type: str, body: bytes, since: datetime) -> bytes:
    """What is kept of an answer's body: normalised text, or a binary's digest (an archive's text
    members as normalised text)."""
    if content_type.startswith(TEXT_TYPES):
        return normalised(body, since)
    kept = f"binary, {len(body)} bytes, sha256 {hashlib.sha256(body).hexdigest()}\n".encode()
    if address.endswith(".tar.gz"):
        with tarfile.open(fileobj=io.BytesIO(body)) as archive:
            for member in archive.getmembers():
                data = archive.extractfile(member).read() if member.isfile() else b""
                if member.name.endswith(".parquet"):
                    data = f"sha256 {hashlib.sha256(data).hexdigest()}\n".encode()
                kept += f"== {member.name} ({member.type.decode()}, mode {member.mode:o})\n".encode() + normalised(data, since)
    return kept


def file_name(address: str) -> str:
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", address.strip("/"))[:120] or "root"
    return f"{safe}.{hashlib.sha256(address.encode()).hexdigest()[:10]}"


def crawl(out: Path, max_urls: int, since: datetime) -> int:
    import django

    django.setup()
    logging.disable(logging.WARNING)  # the 404s and 403s asked for on purpose
    from django.test import Client

    from pages.snapshots import take_snapshot
    from results.models import Round

    with mock.patch("django.utils.timezone.now", return_value=SNAPSHOT_CLOCK):
        for round_ in Round.objects.visible_to(None).order_by("version", "suite"):
            take_snapshot(round_)
    client = Client(raise_request_exception=False)  # a 500 is an answer to compare, not the end
    start = named_urls()
    seen = set(start)
    queue = deque(start)
    index = []
    while queue and len(index) < max_urls:
        address = queue.popleft()
        response = client.get(address)
        content_type = response.get("Content-Type", "")
        body = b"".join(response.streaming_content) if response.streaming else response.content
        location = response.get("Location", "")
        name = file_name(address)
        header = f"{address}\n{response.status_code}\n{content_type}\n{location}\n\n".encode()
        (out / name).write_bytes(normalised(header, since) + kept_body(address, content_type, body, since))
        index.append(f"{address}\t{response.status_code}\t{name}")
        found = [location] if 300 <= response.status_code < 400 else (
            links_of(address, content_type, body) if response.status_code < 400 else [])
        for link in found:
            link = same_site(address, link)
            if link and link not in seen and not link.startswith(NOT_FOLLOWED):
                seen.add(link)
                queue.append(link)
    (out / "index.tsv").write_text("\n".join(sorted(index)) + "\n")
    if queue:
        print(f"stopped at --max-urls {max_urls}: {len(queue)} addresses not fetched", file=sys.stderr)
        return 1
    print(f"{len(index)} addresses crawled into {out}", file=sys.stderr)
    return 0


def compare(first: Path, second: Path, context: int = 2, shown: int = 40) -> int:
    """The URLs whose answers differ (or that only one crawl has), each with a short diff."""
    def entries(folder: Path) -> dict[str, str]:
        return {line.split("\t")[0]: line.split("\t")[2]
                for line in (folder / "index.tsv").read_text().splitlines() if line}

    a, b = entries(first), entries(second)
    differing = 0
    for address in sorted(a.keys() | b.keys()):
        if address not in b or address not in a:
            differing += 1
            print(f"ONLY IN {first if address in a else second}: {address}")
            continue
        old, new = (first / a[address]).read_bytes(), (second / b[address]).read_bytes()
        if old == new:
            continue
        differing += 1
        print(f"DIFFERS: {address}")
        diff = list(difflib.unified_diff(old.decode("utf-8", "replace").splitlines(),
                                         new.decode("utf-8", "replace").splitlines(), lineterm="", n=context))
        for line in diff[2:shown + 2]:
            print("    " + line[:200])
        if len(diff) > shown + 2:
            print(f"    ... {len(diff) - shown - 2} more lines")
    print(f"{len(a.keys() | b.keys())} addresses, {differing} differ", file=sys.stderr)
    return 1 if differing else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", nargs="?", type=Path, help="folder to write the answers into (made empty first)")
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("A", "B"), help="compare two crawls")
    parser.add_argument("--max-urls", type=int, default=30000)
    parser.add_argument("--keep-database", type=Path, help="build the sample here (kept) instead of a temporary folder")
    options = parser.parse_args()
    if options.compare:
        return compare(*options.compare)
    if options.out is None:
        parser.error("give OUT, or --compare A B")
    options.out.mkdir(parents=True, exist_ok=True)
    for old in options.out.iterdir():
        old.unlink()
    with tempfile.TemporaryDirectory(prefix="crawl-public-") as temporary:
        work = options.keep_database or Path(temporary)
        work.mkdir(parents=True, exist_ok=True)
        env = sample_environment(work)
        built_at = work / "built-at"
        if not built_at.exists():
            started = datetime.now(UTC)
            build_sample(work, env)
            built_at.write_text(started.isoformat())
        os.environ.clear()
        os.environ.update(env)
        sys.path.insert(0, str(REPO))
        os.chdir(REPO)
        return crawl(options.out, options.max_urls, since=datetime.fromisoformat(built_at.read_text()))


if __name__ == "__main__":
    sys.exit(main())
