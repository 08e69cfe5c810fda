"""Pages of a long table, chosen in the URL, so that every view of a large round stays citable.

A page family whose tables grow with the record (an inference round has 1,000-1,500 results)
shows PAGE_SIZE rows of each table at a time; the page is a GET parameter (`page`, or one per
table where a page holds several), so a link to rows 101-200 of a filtered table is a link like
any other and the page works without JavaScript. Every link keeps the other parameters.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.db.models import QuerySet
from django.http import QueryDict

PAGE_SIZE = 100


class BadPage(ValueError):
    """A page parameter that is not a whole number from 1: the site answers 400 with this text
    (config.middleware.BadPageMiddleware)."""


@dataclass
class Page:
    rows: list
    number: int  # 1-based
    count: int  # how many pages
    first: int  # the 1-based position of the first row shown (0 when there is none)
    last: int
    total: int
    previous_url: str
    next_url: str

    @property
    def partial(self) -> bool:
        """Whether some rows are on other pages (the page then shows its counts and links)."""
        return self.count > 1


def page_number(query: QueryDict, param: str) -> int:
    raw = query.get(param, "1").strip() or "1"
    if not raw.isdigit() or int(raw) < 1:
        raise BadPage(f"'{param}' must be a whole number from 1, not {raw[:20]!r}")
    return int(raw)


def linked(query: QueryDict, **changes) -> str:
    """`?<query>` with `changes` applied (a value of None or 1 for a page drops the parameter)."""
    return linker(query, *changes)(**changes)


def linker(query: QueryDict, *names: str) -> Callable[..., str]:
    """linked(query, **changes) for many links that change the same `names` (the others dropped):
    the rest of the query encoded once (an inference round links its 576 leaderboards)."""
    rest = query.copy()
    for name in names:
        rest.pop(name, None)
    head = rest.urlencode()

    def link(**changes) -> str:
        assert set(changes) <= set(names), changes
        tail = QueryDict(mutable=True)
        for name, value in changes.items():
            if value is not None:
                tail[name] = str(value)
        encoded = "&".join(part for part in (head, tail.urlencode()) if part)
        return f"?{encoded}" if encoded else "?"

    return link


def page_of(rows: list | QuerySet, query: QueryDict, param: str = "page", size: int = PAGE_SIZE,
            anchor: str = "") -> Page:
    """The page of `rows` the URL asks for. A page past the last shows the last (a citation made
    before a withdrawal still opens); a malformed one raises BadPage. An ordered queryset is counted
    and read a page at a time by the database."""
    total = rows.count() if isinstance(rows, QuerySet) else len(rows)
    count = max(1, -(-total // size))
    number = min(page_number(query, param), count)
    start = (number - 1) * size
    shown = list(rows[start:start + size])
    suffix = f"#{anchor}" if anchor else ""

    def url(target: int) -> str:
        return linked(query, **{param: None if target == 1 else target}) + suffix

    return Page(
        rows=shown, number=number, count=count, first=start + 1 if shown else 0, last=start + len(shown),
        total=total, previous_url=url(number - 1) if number > 1 else "",
        next_url=url(number + 1) if number < count else "",
    )
