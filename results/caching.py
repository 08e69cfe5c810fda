"""Whole-page caching for anonymous visitors.

Every anonymous visitor sees the same public data, so a rendered public page can be served
from the cache. The key holds a data version read with one cheap query: it changes whenever
a result, submission or round is written (new row ids, counts, publication flags, timestamps),
so a cached page never outlives the data it shows. PAGE_CACHE_SECONDS bounds the age anyway,
for edits no column of the version reflects (e.g. a benchmark's target edited in the admin).
Logged-in users (submitters, reviewers) always get a fresh page: what they see depends on them.
"""

from __future__ import annotations

import functools
import hashlib

from django.core.cache import cache
from django.db import connection

from .models import Result, Round, Submission

PAGE_CACHE_SECONDS = 60
KEY_PREFIX = "page"  # tests give each test its own prefix instead of clearing a shared cache


def data_version() -> str:
    tables = {
        "result": Result._meta.db_table,
        "submission": Submission._meta.db_table,
        "round": Round._meta.db_table,
    }
    sql = (
        f"SELECT (SELECT COALESCE(MAX(id), 0) FROM {tables['result']}),"
        f" (SELECT COUNT(*) FROM {tables['result']}),"
        f" (SELECT COUNT(*) FROM {tables['submission']} WHERE is_published AND is_current),"
        f" (SELECT MAX(updated_at) FROM {tables['submission']}),"
        f" (SELECT COUNT(*) FROM {tables['round']} WHERE state = 'published')"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql)
        return hashlib.sha1(repr(cursor.fetchone()).encode()).hexdigest()[:16]


def cache_public_page(view):
    """Serve anonymous GETs of `view` from the cache; only 200 answers are stored."""

    @functools.wraps(view)
    def wrapper(request, *args, **kwargs):
        if request.method != "GET" or request.user.is_authenticated:
            return view(request, *args, **kwargs)
        key = f"{KEY_PREFIX}:" + hashlib.sha1(f"{data_version()}|{request.get_full_path()}".encode()).hexdigest()
        response = cache.get(key)
        if response is None:
            response = view(request, *args, **kwargs)
            if response.status_code == 200 and not getattr(response, "streaming", False):
                if hasattr(response, "render") and callable(response.render):
                    response.render()
                cache.set(key, response, PAGE_CACHE_SECONDS)
        return response

    return wrapper
