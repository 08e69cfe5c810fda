"""Whole-page caching for anonymous visitors, served before the work a cached page does not need.

Every anonymous visitor sees the same public data, so a rendered public page can be served
from the cache. The key holds a data version read with one cheap query, so a cached page never
outlives the data it shows, with no list of write paths to keep: the version is what the writes
leave behind (new row ids, counts of submissions, publication flags, the submissions' timestamps,
which every change a column does not show stamps: results.services.versions.touch_submissions).
Results are not counted: a count reads every row (48 ms at 200,000 results, paid by the first
request after each change and by each process every DATA_VERSION_SECONDS). A result is deleted
with its submission, or in the admin, which stamps the submission (results/admin.py).
Two kinds of version, so that a change costs only the pages it touches:
* a round's, for its pages and downloads (`/rounds/<slug>/...`, `/api/v1/rounds/<slug>/...`): its
  results, submissions, snapshots and state, and its audit events (every state change writes
  one): an import, a decision or a publication in round A leaves round B's pages cached;
* the same for a result's own pages (`/results/<id>/...`, `/api/v1/results/<id>/`): its round's,
  found by its citable id, which belongs to one round for good; and for an API list of one round
  (`/api/v1/results/?round=<slug>&...`: a researcher's download, page by page);
* the versions of its rounds for a page over some rounds: a system's (the rounds it was entered
  in) and an organization's (the rounds it submitted to), those rounds read again after a change
  anywhere (a new round may add to them);
* the global one, for every other page (home, search, compare, logs, feeds, API lists), which any
  change may touch.
Under a round's version are also kept the rows its pages are built from (`round_rows`) and the
figures that pages over every round read of it (`round_figures`): a page over every round then
builds, after a change, only the changed round's figures. Those figures are kept for two views, the
public's and everything (reviewers and chairs); a submitter reads the public's in every round where
they see nothing more, so a signed-in home page builds only their own rounds' figures.
A process reads a version at most every DATA_VERSION_SECONDS, and at once after its own writes
(another process's write shows within that time). PAGE_CACHE_SECONDS bounds the age anyway, for
edits no version reflects (e.g. a benchmark's target edited in the admin). After a change to a
round commits, the Celery task pages.warm_pages (pages/warming.py) asks the web server for its
page and the global ones, so the next visitor gets a stored page. Logged-in users (submitters,
reviewers) always get a fresh page: what they see depends on them.

Two halves:
* `cache_public_page` marks a view's answer to an anonymous visitor as shareable
  (`PublicApiCacheMixin` does the same for the read-only API's viewsets);
* `FrontCacheMiddleware`, placed before the session, CSRF and authentication middleware, looks
  a GET without a session cookie or Authorization header up before any of them run, and answers
  a hit with the stored bytes (gzip-compressed, as stored; decompressed for the rare client that
  does not accept gzip).
  On the way out it stores a marked answer, with the headers the inner middleware added, unless
  it sets a cookie, and sends that first visitor the stored compressed bytes too.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import json
import logging
import re
import time
from collections import OrderedDict

from django.conf import settings
from django.core.cache import caches
from django.db import DatabaseError, connection
from django.db.models.signals import post_delete, post_save
from django.http import HttpResponse, QueryDict
from django.utils.cache import patch_vary_headers
from django.utils.connection import ConnectionProxy
from redis.exceptions import RedisError

from audit.models import AuditEvent
from audit.roles import is_privileged
from results.models import CitableId, Result, Round, Snapshot, Submission
from results.querysets import RoundSlugError, parse_round_slug, rounds_seen_beyond_public
from results.signals import data_changed

log = logging.getLogger(__name__)

# Everything kept here is rebuilt from the database on a miss, so it has a cache of its own,
# settings.CACHES["pages"], which production bounds in memory and evicts from (docker-compose.yml);
# the rate limits stay in the default cache.
cache = ConnectionProxy(caches, "pages")

PAGE_CACHE_SECONDS = 60
# The version query counts 20,000 results in ~5-15 ms: at hundreds of hits a second it would
# be most of the work, so each process reuses it this long.
DATA_VERSION_SECONDS = 2.0
_version = {"value": "", "read_at": -1e9}
# The most recent stored pages, also kept in this process: a hit then costs no cache round trip.
# Safe because a key names one data version of one URL.
LOCAL_PAGES = 64
_local: OrderedDict[str, tuple[float, dict]] = OrderedDict()
API_PREFIX = "/api/"
FEED_SUFFIX = ".atom"
KEY_PREFIX = "page"  # tests give each test its own prefix instead of clearing a shared cache
# Headers a stored page must not replay, or that are recomputed for each answer.
NOT_STORED = {"set-cookie", "content-length", "content-encoding"}


# A round's own pages, its downloads and its API: keyed on the round's version.
ROUND_PATH = re.compile(r"^/(?:api/v1/)?rounds/(?P<slug>[^/]+)/")
# Round versions kept in this process: (read at, version) by slug. Bounded: a slug comes from a URL.
_round_versions: OrderedDict[str, tuple[float, str]] = OrderedDict()
ROUND_VERSIONS_KEPT = 256
# A result's own pages and its API answer: keyed on its round's version.
RESULT_PATH = re.compile(r"^/(?:api/v1/)?results/(?P<result_id>[^/]+)/")
# The API's lists, which `?round=<slug>` narrows to one round (every other filter narrows further).
ROUND_LISTS = ("/api/v1/results/", "/api/v1/runs/", "/api/v1/systems/", "/api/v1/benchmarks/")
# A system's page and an organization's: keyed on the versions of the rounds they show.
SYSTEM_PATH = re.compile(r"^/systems/(?P<organization>[^/]+)/(?P<system_id>[^/]+)/$")
ORGANIZATION_PATH = re.compile(r"^/organizations/(?P<slug>[^/]+)/$")
# The rounds of each such page this process has read, with the global version they were read at:
# read again after a change anywhere (an import may enter the system in a new round). Bounded.
_page_rounds: OrderedDict[str, tuple[str, list[Round]]] = OrderedDict()
PAGE_ROUNDS_KEPT = 4096
# The round (slug) of each citable id this process has looked up: an id is given to one result of one
# round and never to another, so what is kept stays true. Bounded: an id comes from a URL.
_result_rounds: OrderedDict[str, str] = OrderedDict()
RESULT_ROUNDS_KEPT = 20_000


def data_version() -> str:
    now = time.monotonic()
    if now - _version["read_at"] < DATA_VERSION_SECONDS:
        return _version["value"]
    value = _read_data_version()
    if value != _version["value"]:
        # Another process wrote: the round versions kept here may be older than this one, and a
        # page stored under the new global version must not be built from an older round's figures.
        _round_versions.clear()
    _version["value"], _version["read_at"] = value, now
    return value


def round_version(slug: str) -> str:
    now = time.monotonic()
    kept = _kept_round_version(slug, now)
    if kept is not None:
        return kept
    value = _read_round_version(slug)
    _remember(_round_versions, slug, (now, value), ROUND_VERSIONS_KEPT)
    return value


def _kept_round_version(slug: str, now: float) -> str | None:
    """The version of round `slug` this process read within DATA_VERSION_SECONDS, or None."""
    kept = _round_versions.get(slug)
    return kept[1] if kept is not None and now - kept[0] < DATA_VERSION_SECONDS else None


def _remember(kept: OrderedDict, key: str, value, most: int) -> None:
    """`value` kept under `key` in one of this process's bounded maps, the least recently kept
    dropped beyond `most`."""
    kept[key] = value
    kept.move_to_end(key)
    while len(kept) > most:
        kept.popitem(last=False)


def forget_data_version(**_kwargs) -> None:
    """This process wrote: read the versions afresh on the next request."""
    _version["read_at"] = -1e9
    _round_versions.clear()


for model in (Result, Submission, Round):
    post_save.connect(forget_data_version, sender=model, dispatch_uid=f"page-cache-{model.__name__}-save")
    post_delete.connect(forget_data_version, sender=model, dispatch_uid=f"page-cache-{model.__name__}-delete")
data_changed.connect(forget_data_version, dispatch_uid="page-cache-data-changed")


def _read_data_version() -> str:
    tables = {
        "result": Result._meta.db_table,
        "submission": Submission._meta.db_table,
        "round": Round._meta.db_table,
        "snapshot": Snapshot._meta.db_table,  # beat takes them in another process: the snapshots page shows them
    }
    sql = (
        f"SELECT (SELECT COALESCE(MAX(id), 0) FROM {tables['result']}),"
        f" (SELECT COUNT(*) FROM {tables['submission']}),"
        f" (SELECT COUNT(*) FROM {tables['submission']} WHERE is_published AND is_current),"
        f" (SELECT MAX(updated_at) FROM {tables['submission']}),"
        f" (SELECT COUNT(*) FROM {tables['round']} WHERE state = 'published'),"
        f" (SELECT COALESCE(MAX(id), 0) FROM {tables['snapshot']})"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql)
        return hashlib.sha1(repr(cursor.fetchone()).encode()).hexdigest()[:16]


def _read_round_version(slug: str) -> str:
    suite, version = parse_round_slug(slug)
    return _read_round_versions("r.suite = %s AND r.version = %s", [suite, version]).get(slug, _version_of(None))


def _read_round_versions(where: str, parameters: list) -> dict[str, str]:
    """One query: the figures that a round's writes change (see the module's docstring), of each
    round `where` selects, as a version by slug."""
    return {slug: version for _, slug, version in _read_round_version_rows(where, parameters)}


def read_round_versions_by_id(round_ids) -> dict[int, str]:
    """The versions of the rounds `round_ids`, read now rather than kept by this process: what
    pages.warming compares between the process that changed a round and the worker that warms it."""
    ids = list(round_ids)
    if not ids:
        return {}
    return {pk: version for pk, _, version in _read_round_version_rows(f"r.id IN ({', '.join(['%s'] * len(ids))})", ids)}


def _read_round_version_rows(where: str, parameters: list) -> list[tuple[int, str, str]]:
    """(id, slug, version) of each round `where` selects."""
    tables = {
        "round": Round._meta.db_table, "result": Result._meta.db_table, "submission": Submission._meta.db_table,
        "snapshot": Snapshot._meta.db_table, "event": AuditEvent._meta.db_table,
    }
    # The newest result of each of the round's submissions, one index lookup each (results'
    # (submission_id, id) index), where a MAX over the round's results read every one of them.
    newest_result = (f"(SELECT MAX((SELECT MAX(x.id) FROM {tables['result']} x WHERE x.submission_id = s.id))"
                     f" FROM {tables['submission']} s WHERE s.round_id = r.id)")
    sql = (
        f"SELECT r.suite, r.version, r.id, r.state, r.publish_at, r.ruleset_version,"
        f" COALESCE({newest_result}, 0),"
        f" (SELECT COUNT(*) FROM {tables['submission']} WHERE round_id = r.id),"
        f" (SELECT COUNT(*) FROM {tables['submission']} WHERE round_id = r.id AND is_published AND is_current),"
        f" (SELECT MAX(updated_at) FROM {tables['submission']} WHERE round_id = r.id),"
        f" (SELECT COALESCE(MAX(id), 0) FROM {tables['snapshot']} WHERE round_id = r.id),"
        f" (SELECT COALESCE(MAX(id), 0) FROM {tables['event']} WHERE round_id = r.id)"
        f" FROM {tables['round']} r WHERE {where}"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, parameters)
        return [(pk, f"{suite}-v{version}", _version_of((pk, *figures))) for suite, version, pk, *figures in cursor.fetchall()]


def _version_of(figures) -> str:
    return hashlib.sha1(repr(None if figures is None else tuple(figures)).encode()).hexdigest()[:16]


def round_versions(rounds) -> dict[str, str]:
    """`round_version` of each of `rounds` (Round objects), by slug: one query for those this
    process has not read within DATA_VERSION_SECONDS."""
    now = time.monotonic()
    versions, unread = {}, []
    for round_ in rounds:
        kept = _kept_round_version(round_.slug, now)
        if kept is not None:
            versions[round_.slug] = kept
        else:
            unread.append(round_)
    if unread:
        read = read_round_versions_by_id(round_.pk for round_ in unread)
        for round_ in unread:
            versions[round_.slug] = read.get(round_.pk, _version_of(None))
            _remember(_round_versions, round_.slug, (now, versions[round_.slug]), ROUND_VERSIONS_KEPT)
    return versions


def page_version(path: str, query: QueryDict | None = None) -> str:
    """The version a page at `path`, asked with `query`, is keyed on: its round's (a round's page, a
    result's, an API list of one round), its rounds' (a system's, an organization's), or the global
    one."""
    slug = _round_of_page(path, query if query is not None else QueryDict())
    if slug is not None:
        try:
            return "round:" + round_version(slug)
        except RoundSlugError:
            pass  # not a round's name: the page (a 404, an empty list) goes with the global version
    rounds = _rounds_of_page(path)
    if rounds is not None:
        return "rounds:" + _version_of(sorted(round_versions(rounds).items()))
    return data_version()


def _rounds_of_page(path: str) -> list[Round] | None:
    """The rounds the page at `path` shows, where it is a system's or an organization's: kept in this
    process until the global version moves."""
    system, organization = SYSTEM_PATH.match(path), ORGANIZATION_PATH.match(path)
    if system is None and organization is None:
        return None
    now = data_version()
    kept = _page_rounds.get(path)
    if kept is not None and kept[0] == now:
        return kept[1]
    if system is not None:
        found = Submission.objects.filter(organization__slug=system["organization"],
                                          systems__system_id=system["system_id"])
    else:
        found = Submission.objects.filter(organization__slug=organization["slug"])
    rounds = [Round(pk=pk, suite=suite, version=version) for pk, suite, version in
              found.order_by().values_list("round_id", "round__suite", "round__version").distinct()]
    _remember(_page_rounds, path, (now, rounds), PAGE_ROUNDS_KEPT)
    return rounds


def _round_of_page(path: str, query: QueryDict) -> str | None:
    """The slug of the one round the page at `path` shows, or None."""
    match = ROUND_PATH.match(path)
    if match:
        return match.group("slug")
    match = RESULT_PATH.match(path)
    if match:
        return _round_of_result(match.group("result_id"))
    if path in ROUND_LISTS and len(query.getlist("round")) == 1:
        return query["round"]
    return None


def _round_of_result(result_id: str) -> str | None:
    """The slug of the round whose citable id `result_id` is, or None where no result has it (yet: a
    miss is not kept). Another spelling of an id is not found: its page is a redirect."""
    slug = _result_rounds.get(result_id)
    if slug is None:
        row = CitableId.objects.filter(result_id=result_id).values_list("round__suite", "round__version").first()
        if row is None:
            return None
        slug = Round(suite=row[0], version=row[1]).slug
        _remember(_result_rounds, result_id, slug, RESULT_ROUNDS_KEPT)
    return slug


def _round_key(kind: str, name: str, slug: str, version: str) -> str:
    """The cache key of what is kept of round `slug` at `version` (`kind`: rows or figures)."""
    return f"{KEY_PREFIX}:{kind}:{name}:" + hashlib.sha1(f"{slug}|{version}".encode()).hexdigest()


def round_rows(slug: str, name: str, build):
    """What `build()` returns (the rows an anonymous visitor's pages of round `slug` are built
    from), kept in the cache under the round's version: every filtered, sorted or paged view of a
    large round is then one cache read away from its rows, however many distinct URLs ask."""
    try:
        key = _round_key("rows", name, slug, round_version(slug))
        rows = cache.get(key)
    except (DatabaseError, RedisError):
        return build()
    if rows is None:
        rows = build()
        try:
            cache.set(key, rows, PAGE_CACHE_SECONDS)
        except RedisError:
            pass
    return rows


def view_name(kind: str, view) -> str:
    """The name of what is kept of a round (rows_seen_by) for one view of it: `kind` and `view`
    (whatever the kept rows depend on besides the round's results, as JSON: filters, order)."""
    return f"{kind}:" + hashlib.sha1(json.dumps(view, sort_keys=True).encode()).hexdigest()


def rows_seen_by(user, round_, name: str, build):
    """`build(viewer)`: the rows `user`'s pages of `round_` are built from, as `viewer` sees them,
    kept under the round's version for the two views round_figures keeps (below): the public's
    (`viewer` None: an anonymous visitor, and a signed-in user who sees nothing more in this round)
    and everything (reviewers and chairs, who all see every result: a round in review is read by
    them page after page). A submitter who sees more than the public here gets theirs afresh."""
    if is_privileged(user):
        return round_rows(round_.slug, f"{name}:everything", lambda: build(user))
    if _sees_beyond_public(user, round_):
        return build(user)
    return round_rows(round_.slug, name, lambda: build(None))


def _sees_beyond_public(user, round_) -> bool:
    """Whether `user` sees more than the public in `round_` (rounds_seen_beyond_public), asked once
    per request and round: a page reads several things kept under its round's version. Kept on the
    user object, which each request loads afresh."""
    if user is None or not user.is_authenticated:
        return False
    asked = getattr(user, "_rounds_seen_beyond_public", None)
    if asked is None:
        asked = user._rounds_seen_beyond_public = {}
    if round_.pk not in asked:
        asked[round_.pk] = round_.pk in rounds_seen_beyond_public(user, [round_])
    return asked[round_.pk]


# A round's figures (below) hold only what its version covers (ids and counts, not names, which an
# admin edit changes without a version), so they may outlive a page: a page built after its own
# expiry then reads the figures of every round nothing changed in from here.
ROUND_FIGURES_SECONDS = 24 * 3600


def round_figures(user, name: str, rounds, build) -> dict[int, object]:
    """`build(user, rounds)` ({round.pk: figures} for each of `rounds`; figures that depend only on
    the round's current results `user` sees), kept in the cache per round under that round's version and
    the view it was built for: a page over many rounds (the home page, a suite's progress) builds
    only the figures of the rounds changed since. Two views are kept:
    - the public's: an anonymous visitor's, and a signed-in user's in every round where they see
      nothing the public does not (results.querysets.rounds_seen_beyond_public);
    - everything: reviewers' and chairs', who all see every result.
    A signed-in user's own rounds (in peer review, or where their organization has results that are
    not public) are built afresh for them."""
    if is_privileged(user):
        return _kept_round_figures("everything", user, name, rounds, build)
    own = rounds_seen_beyond_public(user, rounds)
    figures = build(user, [r for r in rounds if r.pk in own]) if own else {}
    figures.update(_kept_round_figures("public", None, name, [r for r in rounds if r.pk not in own], build))
    return figures


def _kept_round_figures(view: str, user, name: str, rounds, build) -> dict[int, object]:
    """round_figures of `rounds` as `user` sees them, the view every user of `view` shares."""
    if not rounds:
        return {}
    try:
        versions = round_versions(rounds)
        keys = {r.pk: _round_key("figures", f"{name}:{view}", r.slug, versions[r.slug]) for r in rounds}
        found = cache.get_many(list(keys.values()))
    except (DatabaseError, RedisError):
        return build(user, rounds)
    figures = {pk: found[key] for pk, key in keys.items() if key in found}
    missing = [r for r in rounds if r.pk not in figures]
    if missing:
        built = build(user, missing)
        figures.update(built)
        try:
            cache.set_many({keys[pk]: value for pk, value in built.items()}, ROUND_FIGURES_SECONDS)
        except RedisError:
            pass
    return figures


def page_key(request) -> str:
    address = request.get_full_path()
    if request.path.startswith(API_PREFIX) or request.path.endswith(FEED_SUFFIX):
        # An API answer or a feed also depends on the format negotiated from Accept (JSON or the
        # browsable HTML; Atom or XML for a browser) and holds absolute links (pagination's `next`,
        # the feed's links where SITE_URL is not set) to the host it was asked on.
        address = "|".join((request.scheme, request.META.get("HTTP_HOST", ""), address,
                            request.META.get("HTTP_ACCEPT", "")))
    version = page_version(request.path, request.GET)
    return f"{KEY_PREFIX}:" + hashlib.sha1(f"{version}|{address}".encode()).hexdigest()


def cache_public_page(view):
    """Mark `view`'s 200 answers to anonymous GETs as the same for every anonymous visitor."""

    @functools.wraps(view)
    def wrapper(request, *args, **kwargs):
        response = view(request, *args, **kwargs)
        if request.method == "GET" and not request.user.is_authenticated:
            response.public_page = True
        return response

    return wrapper


class PublicApiCacheMixin:
    """`cache_public_page` for the read-only API's viewsets: an anonymous GET's answer (list or
    detail) is the same for every anonymous client. A token user's request never reaches the
    front cache (FrontCacheMiddleware passes every request with an Authorization header)."""

    def finalize_response(self, request, response, *args, **kwargs):
        response = super().finalize_response(request, response, *args, **kwargs)
        if request.method == "GET" and not request.user.is_authenticated:
            response.public_page = True
        return response


def _stored(response) -> dict | None:
    if response.status_code != 200 or getattr(response, "streaming", False) or response.cookies:
        return None
    if hasattr(response, "render") and callable(response.render):
        response.render()
    body = response.content
    headers = [(name, value) for name, value in response.items() if name.lower() not in NOT_STORED]
    return {"headers": headers, "gzip": gzip.compress(body, compresslevel=6)}


def _accepts_gzip(request) -> bool:
    return "gzip" in request.META.get("HTTP_ACCEPT_ENCODING", "")


def _replay(stored: dict, request) -> HttpResponse:
    compressed = _accepts_gzip(request)
    if compressed:
        body = stored["gzip"]
    else:
        # Decompressed once per process (kept beside the gzip bytes in the local copy).
        body = stored.get("body") or stored.setdefault("body", gzip.decompress(stored["gzip"]))
    response = HttpResponse(body)
    for name, value in stored["headers"]:
        response[name] = value
    if compressed:
        response["Content-Encoding"] = "gzip"
    patch_vary_headers(response, ["Accept-Encoding"])  # beside the stored Vary (Cookie, Accept, ...)
    return response


class FrontCacheMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        # A session cookie may mean a signed-in user, an Authorization header a token user (who
        # may see unpublished data): those requests go the whole way, and their answers are
        # never stored.
        if (request.method != "GET" or settings.SESSION_COOKIE_NAME in request.COOKIES
                or "HTTP_AUTHORIZATION" in request.META):
            return self.get_response(request)
        try:
            key = page_key(request)
            stored = _lookup(key)
        except (DatabaseError, RedisError):
            # The cache is an optimisation: during an outage the request goes the whole way, where
            # the view builds the page or config.middleware.OutageMiddleware answers 503.
            return self.get_response(request)
        if stored is not None:
            return _replay(stored, request)
        building = _start_building(key)
        if not building:
            stored = _built_by_another(key)
            if stored is not None:
                return _replay(stored, request)
        try:
            response = self.get_response(request)
            if getattr(response, "public_page", False):
                stored = _stored(response)
                if stored is not None:
                    _keep(key, stored)
                    try:
                        cache.set(key, stored, PAGE_CACHE_SECONDS)
                    except RedisError:
                        pass  # this process still has its copy; the others build their own
                    if _accepts_gzip(request):
                        # The first visitor gets the bytes the next ones will: compressed once.
                        response = _replay(stored, request)
        finally:
            if building:
                _done_building(key)
        return response


# Single flight: when many visitors miss the same page at once (the first ones after a change, or
# after the page expired), one process builds it and the others wait for its copy instead of all
# building it at once. A waiter builds the page itself when the builder gives up (its answer was
# not storable, its request failed) or takes longer than BUILD_WAIT_SECONDS.
BUILD_LOCK_SECONDS = 30  # a builder that died leaves its mark this long at most
BUILD_WAIT_SECONDS = 10.0
BUILD_POLL_SECONDS = 0.05


def _start_building(key: str) -> bool:
    """Whether this request builds the page (no other process is building it)."""
    try:
        return cache.add(f"{key}:building", 1, BUILD_LOCK_SECONDS)
    except RedisError:
        return True


def _done_building(key: str) -> None:
    try:
        cache.delete(f"{key}:building")
    except RedisError:
        pass


def _built_by_another(key: str) -> dict | None:
    """The page another process is building, once stored; None when it stops building without
    storing it or takes too long."""
    deadline = time.monotonic() + BUILD_WAIT_SECONDS
    try:
        while time.monotonic() < deadline:
            time.sleep(BUILD_POLL_SECONDS)
            # The builder stores the page, then drops its mark: whether it is still building is
            # asked first, so a page stored just before its mark went is found.
            building = cache.get(f"{key}:building") is not None
            stored = cache.get(key)
            if stored is not None:
                _keep(key, stored)
                return stored
            if not building:
                return None
    except RedisError:
        pass
    return None


def _lookup(key: str) -> dict | None:
    kept = _local.get(key)
    if kept is not None and time.monotonic() - kept[0] < PAGE_CACHE_SECONDS:
        _local.move_to_end(key)
        return kept[1]
    stored = cache.get(key)
    if stored is not None:
        _keep(key, stored)
    return stored


def _keep(key: str, stored: dict) -> None:
    _remember(_local, key, (time.monotonic(), stored), LOCAL_PAGES)
