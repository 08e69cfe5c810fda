"""The round or result a user may see, by the name in a URL, else Http404: what every app's views
look up first (the public pages, the review pages)."""

from __future__ import annotations

from django.http import Http404

from .models import Result, Round
from .querysets import RoundNotFound


def round_or_404(user, slug: str) -> Round:
    """The round `user` may see, else 404."""
    try:
        return Round.objects.visible_to(user).named(slug)
    except RoundNotFound as exc:
        raise Http404(str(exc)) from exc


def result_or_404(user, result_id: str) -> Result:
    """The result `user` may see, by its citable id, else 404."""
    result = Result.objects.visible_to(user).citable(result_id).with_related().first()
    if result is None:
        raise Http404("no such result")
    return result
