"""A benchmark of a round, and its charts: each suite draws its own (pages/suites/)."""

from __future__ import annotations

from django.http import Http404

from pages import suites
from pages.caching import cache_public_page
from results.lookups import round_or_404
from results.models import Benchmark, Round


def _benchmark_or_404(request, slug: str, name: str) -> tuple[Round, Benchmark]:
    round_ = round_or_404(request.user, slug)
    benchmark = round_.benchmarks.filter(name=name).first()
    if benchmark is None:
        raise Http404("no such benchmark in this round")
    return round_, benchmark


@cache_public_page
def benchmark_detail(request, slug: str, name: str):
    round_, benchmark = _benchmark_or_404(request, slug, name)
    return suites.of_round(round_).benchmark_page(request, round_, benchmark)


@cache_public_page
def benchmark_chart(request, slug: str, name: str, chart: str, fmt: str):
    round_, benchmark = _benchmark_or_404(request, slug, name)
    return suites.of_round(round_).benchmark_chart(request, round_, benchmark, chart, fmt)
