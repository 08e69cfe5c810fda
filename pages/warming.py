"""Pages built before the next visitor asks: after a change to a round commits (an import, an
upload written, a publication, a decision), the Celery task pages.warm_pages asks the web server
for the round's page and the global pages, as an anonymous visitor at SITE_URL would (at
PAGE_WARM_URL, the address the workers reach it at). The web
process builds them and pages.caching.FrontCacheMiddleware stores them under the new version, so
the first visitor after the change gets a stored page instead of paying for the build.

Over HTTP, not in the worker's own process: the workers hold no credentials for the page cache's
keys (docker-compose.yml: Redis's `worker` user), so a page a worker built could not reach the
visitors, and a worker that handles uploads never writes what the public is served.

What is warmed: each changed round's page (only a round the public sees) and WARMED_GLOBAL, and
the figures each of them fetches when drawn (`data-figure-src`: a large round's charts). The
task is sent once per transaction, on commit, by name (the task module imports this one), after
the web processes' reuse of a version has run out (caching.DATA_VERSION_SECONDS), with the
versions the commit left: a round changed again before the task runs is left to the later
change's warm. A snapshot warms too: it changes its round's pages, up to a minute after the change
it records was warmed. A broker that refuses the task, or a web server that does not answer,
costs nothing but the warm (the page is built by its first visitor then).
"""

from __future__ import annotations

import gzip
import html
import logging
import re
import urllib.error
import urllib.parse
import urllib.request

from celery import current_app
from django.conf import settings
from django.db import transaction
from django.db.models.signals import post_save

from results.models import Round, Snapshot, Submission
from results.signals import data_changed

from . import caching

log = logging.getLogger(__name__)

WARM_TASK = "pages.warm_pages"
# The pages every change touches, that visitors open first.
WARMED_GLOBAL = ("/", "/changes/")
# A warm left in a queue no worker reads is worth nothing after a while.
WARM_EXPIRES_SECONDS = 300
# A page of a large round takes a second or two to build on a busy server.
WARM_TIMEOUT_SECONDS = 30
# A figure a page fetches when it draws it (templates/results/_chart.html).
FIGURE_SOURCE = re.compile(r'data-figure-src="(/[^"]+)"')


def warm_pages(round_ids: list[int], sent_versions: dict | None = None) -> list[tuple[str, int]]:
    """Ask the web server for the public pages of the rounds `round_ids` and the global pages, each
    followed by the figures it fetches when drawn; (address, HTTP status, 0 where none came) of
    each. A round the public does not see is skipped (its page is not public).

    `sent_versions`: each round's version when its change committed (by id, as JSON keeps it). A
    round changed again since then was changed by a later commit, which sent a warm of its own: its
    pages are left to that one, and where that holds for every round, the global pages too. An
    import commits a submission at a time, and would otherwise have the web server build a large
    round's page once per submission, each stale a second later."""
    if sent_versions is not None:
        now = caching.read_round_versions_by_id(round_ids)
        current = [pk for pk in round_ids if now.get(pk) == sent_versions.get(str(pk))]
        if not current:
            return []
        round_ids = current
    slugs = [round_.slug for round_ in Round.objects.visible_to(None).filter(pk__in=round_ids)]
    answered = []
    for address in [*(f"/rounds/{slug}/" for slug in sorted(slugs)), *WARMED_GLOBAL]:
        status, page = _ask(address)
        answered.append((address, status))
        for figure in dict.fromkeys(html.unescape(source) for source in FIGURE_SOURCE.findall(page)):
            answered.append((figure, _ask(figure)[0]))
    return answered


def _ask(address: str) -> tuple[int, str]:
    """(HTTP status, the answer's text) of a GET of `address` as an anonymous visitor."""
    headers = {"Accept": "text/html", "Accept-Encoding": "gzip", "User-Agent": "mlperf-results page warmer"}
    if settings.SITE_URL_SET:  # the host visitors name, wherever the workers reach the server
        headers["Host"] = urllib.parse.urlsplit(settings.SITE_URL).netloc
    request = urllib.request.Request(settings.PAGE_WARM_URL + address, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=WARM_TIMEOUT_SECONDS) as response:
            body = response.read()
            if response.headers.get("Content-Encoding") == "gzip":
                body = gzip.decompress(body)
            return response.status, body.decode(errors="replace")
    except urllib.error.HTTPError as error:
        return error.code, ""
    except OSError as error:  # refused, unreachable, timed out
        log.warning("%s not warmed: %s", address, error)
        return 0, ""


class _Warm:
    """The on-commit send of one transaction's changed rounds: one task however many rows it wrote
    (an import saves a submission per organization). A rolled-back transaction drops it with its
    other on-commit callbacks."""

    def __init__(self):
        self.rounds: set[int] = set()
        self.sent = False

    def __call__(self) -> None:
        self.sent = True
        rounds = sorted(self.rounds)
        try:
            # The versions this commit left: the worker tells by them whether a later change came.
            versions = {str(pk): version for pk, version in caching.read_round_versions_by_id(rounds).items()}
            current_app.signature(WARM_TASK, args=[rounds, versions]).apply_async(
                retry=True, retry_policy=settings.PUBLISH_RETRY_POLICY, expires=WARM_EXPIRES_SECONDS,
                countdown=caching.DATA_VERSION_SECONDS + 1,  # until every web process reads the new version
            )
        except Exception as exc:  # the broker refused it (kombu's OperationalError, a socket's error), or the database
            log.warning("pages of rounds %s not warmed: %s", rounds, exc)


def round_changed(round_id: int) -> None:
    """Warm the round's pages (and the global ones) when the transaction now running commits; at
    once outside a transaction."""
    connection = transaction.get_connection()
    if not connection.in_atomic_block:
        pending = _Warm()
        pending.rounds.add(round_id)
        pending()
        return
    pending = next((callback for _, callback, *_ in connection.run_on_commit
                    if isinstance(callback, _Warm) and not callback.sent), None)
    if pending is None:
        pending = _Warm()
        transaction.on_commit(pending)
    pending.rounds.add(round_id)


def _submission_saved(sender, instance: Submission, **kwargs) -> None:
    round_changed(instance.round_id)


def _round_saved(sender, instance: Round, **kwargs) -> None:
    round_changed(instance.pk)


def _snapshot_saved(sender, instance: Snapshot, **kwargs) -> None:
    round_changed(instance.round_id)


def _data_changed(sender, rounds=(), **kwargs) -> None:
    for round_id in rounds:
        round_changed(round_id)


def connect() -> None:
    """Called once, from PagesConfig.ready: in the web process and in every worker that writes."""
    post_save.connect(_submission_saved, sender=Submission, dispatch_uid="pages-warm-submission")
    post_save.connect(_round_saved, sender=Round, dispatch_uid="pages-warm-round")
    post_save.connect(_snapshot_saved, sender=Snapshot, dispatch_uid="pages-warm-snapshot")
    data_changed.connect(_data_changed, dispatch_uid="pages-warm-data-changed")
