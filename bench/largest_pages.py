"""The largest HTML pages of a database of results (issue 38's "no page over 300 KB"), measured on
the whole public record as `bench/scale.py --record` imports it.

    .venv/bin/python bench/largest_pages.py --database mlperf_record [--top 25] [--most 300000] [--slowest]

Asks, with Django's test client as an anonymous visitor and the page cache bypassed (a cache of
this process only, REDIS_URL unset), for: the home, search, change and progress pages; every
round's page (and, following their "next" links, every page of its paged tables and boards),
change log and snapshot list; every benchmark page of the suites whose results
keep runs (training, HPC: an inference model's page is its round's, filtered); every organization; the 15 systems with the most results;
the 15 results with the most runs and the 15 with the most findings. Prints the largest pages
with their time (one process, one request each: the cold time of a page alone), or with --slowest
the slowest pages, and exits 1 when one is over --most bytes. The sitemap is XML for crawlers (up to 50,000 addresses) and not counted.
"""

from __future__ import annotations

import argparse
import html
import os
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import web  # noqa: E402  (bench/web.py: the service environment)

# A round's own page, and the links to the next page of each of its paged tables and boards.
ROUND_PAGE = re.compile(r"^/rounds/[^/]+/$")
NEXT_PAGE = re.compile(r'<a href="(\?[^"]*)" rel="next">')


def addresses() -> list[str]:
    from django.db.models import Count
    from django.urls import reverse

    from results.models import Organization, Result, Round, System
    from results.suites import SUITES

    urls = ["/", "/changes/", "/changes.atom", "/search/?q=NVIDIA", "/search/?q=a"]
    urls += [f"/progress/{suite}/" for suite in Round.objects.values_list("suite", flat=True).distinct()]
    for round_ in Round.objects.prefetch_related("benchmarks"):
        urls += [f"/rounds/{round_.slug}/", f"/rounds/{round_.slug}/changes/", f"/rounds/{round_.slug}/snapshots/"]
        if SUITES[round_.suite].keeps_runs:  # an inference model's page is its round's, filtered
            urls += [f"/rounds/{round_.slug}/{benchmark.name}/" for benchmark in round_.benchmarks.all()]
    urls += [f"/organizations/{slug}/" for slug in Organization.objects.values_list("slug", flat=True)]
    for system in System.objects.annotate(n=Count("results")).order_by("-n").select_related("submission__organization")[:15]:
        urls.append(reverse("pages:system", args=[system.submission.organization.slug, system.system_id]))
    for related in ("runs", "findings"):
        for result_id in Result.objects.annotate(n=Count(related)).order_by("-n").values_list("result_id", flat=True)[:15]:
            urls.append(reverse("pages:result", args=[result_id]))
    return list(dict.fromkeys(urls))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--database", default="mlperf_record")
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--most", type=int, default=300_000, help="the most HTML bytes a page may have")
    parser.add_argument("--slowest", action="store_true", help="list the slowest pages instead of the largest")
    parser.add_argument("--next-pages", type=int, default=60, help="the most next pages followed from one round page")
    args = parser.parse_args()
    os.environ.update(web.service_env(args.database))
    os.environ.pop("REDIS_URL", None)  # the page cache in this process only: every page built
    sys.path.insert(0, str(web.REPO))
    import django

    django.setup()
    from django.test import Client

    client = Client(HTTP_HOST="localhost")
    measured = []
    queue = addresses()
    seen = set(queue)
    followed: dict[str, int] = {}  # next pages asked for, per round page
    for url in queue:  # grows: a round page's next pages
        started = time.perf_counter()
        response = client.get(url)
        measured.append((len(response.content), response.status_code, time.perf_counter() - started, url))
        path = url.split("?")[0]
        if ROUND_PAGE.match(path) and response.status_code == 200:
            for link in NEXT_PAGE.findall(response.content.decode(errors="replace")):
                following = path + html.unescape(link).split("#")[0]
                if following not in seen and followed.get(path, 0) < args.next_pages:
                    seen.add(following)
                    followed[path] = followed.get(path, 0) + 1
                    queue.append(following)
    measured.sort(key=lambda row: row[2] if args.slowest else row[0], reverse=True)
    print(f"{len(measured)} pages of database {args.database} in {sum(row[2] for row in measured):.1f} s; "
          f"the {args.top} {'slowest' if args.slowest else 'largest'} (HTML bytes, status, ms):")
    for size, status, seconds, url in measured[:args.top]:
        print(f"{size:>10,} {status} {seconds * 1000:7.0f} {url}")
    failed = [url for _, status, _, url in measured if status != 200]
    over = [url for size, _, _, url in measured if size > args.most]
    print(f"over {args.most:,} bytes: {len(over)}; not 200: {len(failed)} {failed[:5]}")
    sys.exit(1 if over or failed else 0)


if __name__ == "__main__":
    main()
