"""The home page, round-over-round progress, and what browsers and crawlers ask for (sitemap,
robots.txt, favicon)."""

from __future__ import annotations

from django.conf import settings
from django.db.models import Count, Exists, OuterRef
from django.http import Http404, HttpResponse, HttpResponsePermanentRedirect
from django.shortcuts import render
from django.templatetags.static import static
from django.urls import reverse
from django.utils.html import escape

from mlperf_check.rules.facts import version_key
from pages.caching import cache_public_page, round_figures
from pages.common import addresses_of, chart_response, draws
from pages.suites import SUITES
from results.constants import RoundState, Suite
from results.models import Benchmark, Organization, Result, Round, System
from results.paging import PAGE_SIZE


@cache_public_page
def home(request):
    rounds = list(Round.objects.visible_to(request.user))
    counts = round_figures(request.user, "counts", rounds, _round_counts)
    benchmarks = dict(
        Benchmark.objects.filter(round__in=[r.pk for r in rounds]).values("round")
        .annotate(n=Count("pk")).order_by().values_list("round", "n")
    )
    of_suite: dict[str, list[Round]] = {value: [] for value in SUITES}
    # Each round's links built in Python rather than four {% url %} a row: 27 rounds add up.
    slugs = [(round_.slug,) for round_ in rounds]
    links = zip(addresses_of("pages:round", slugs), addresses_of("pages:round-summary", slugs), strict=True)
    for round_, (round_.url, round_.summary_url) in zip(rounds, links, strict=True):
        of_suite[round_.suite].append(round_)
    suites = []
    for value, mine in of_suite.items():
        # Latest published first; rounds still in review (visible to their submitters) after them.
        mine.sort(key=lambda r: (r.state != RoundState.PUBLISHED, tuple(-p for p in version_key(r.version))))
        for round_ in mine:
            round_.counts = counts[round_.pk]
            round_.benchmark_count = benchmarks.get(round_.pk, 0)
        if mine:
            # Each suite in its own words and pictures (pages/suites/<suite>/views.py).
            pages = SUITES[value]
            suites.append({"label": Suite(value).label, "value": value, "rounds": mine, "tagline": pages.HOME_TAGLINE,
                           "charts": pages.home_charts(request.user)})
    return render(request, "results/home.html", {
        "suites": suites, "draws_charts": draws([item["chart"] for suite in suites for item in suite["charts"]]),
    })


def _round_counts(user, rounds) -> dict[int, dict]:
    """The results, systems and submitters of each of `rounds` that `user` may see (each counted
    once: a signed-in user's visibility joins their memberships, which may repeat a result)."""
    rows = (
        Result.objects.visible_to(user).current().filter(submission__round__in=rounds)
        .values("submission__round")
        .annotate(results=Count("pk", distinct=True), systems=Count("system", distinct=True),
                  submitters=Count("submission__organization", distinct=True))
        .order_by()
    )
    counts = {row["submission__round"]: {key: row[key] for key in ("results", "systems", "submitters")} for row in rows}
    return {round_.pk: counts.get(round_.pk, {"results": 0, "systems": 0, "submitters": 0}) for round_ in rounds}


@cache_public_page
def progress(request, suite: str):
    if suite not in SUITES:
        raise Http404("no such suite")
    built = SUITES[suite].progress_charts(request.user)
    return render(request, "results/progress.html", {
        "suite": Suite(suite), "charts": built, "note": SUITES[suite].PROGRESS_NOTE, "draws_charts": draws(built),
        # Past a hundred points the figures are fetched when drawn (every model's best of every
        # round: 1.2 MB of figures with twelve full inference rounds).
        "lazy_charts": sum(len(chart.rows) for chart in built) > PAGE_SIZE,
    })


@cache_public_page
def progress_chart(request, suite: str, chart: str, fmt: str):
    if suite not in SUITES:
        raise Http404("no such suite")
    for built in SUITES[suite].progress_charts(request.user):
        if built.name == chart:
            return chart_response(built, fmt, f"{suite}-progress")
    raise Http404("no such chart")


# The sitemaps protocol's most addresses in one file (sitemaps.org): the public record passes it
# (27,000 results and their systems in one file were 3 MB), so /sitemap.xml is an index of parts.
SITEMAP_URLS = 50_000
SITEMAP_KINDS = ("pages", "results", "systems")


def _sitemap_xml(root: str, tag: str, addresses) -> HttpResponse:
    """`addresses` (paths) as a <urlset> (tag "url") or <sitemapindex> (tag "sitemap"). They start
    with SITE_URL, never with the request's Host header: the answer is cached and served to everyone."""
    base = settings.SITE_URL.rstrip("/")
    body = "".join(f"<{tag}><loc>{escape(base + address)}</loc></{tag}>" for address in addresses)
    xml = f'<?xml version="1.0" encoding="UTF-8"?><{root} xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{body}</{root}>'
    return HttpResponse(xml, content_type="application/xml")


def _sitemap_figures(user, rounds) -> dict[int, dict]:
    """Of each of `rounds`, what the sitemap lists: its benchmarks with a result `user` sees, and
    its systems with one, as (organization, system id). Kept per round (round_figures): read over
    every public result, the sitemap's index took 1.4-2.3 s to build after each change. Ids, not
    names: the admin renames a benchmark or an organization without a new version."""
    shown = Result.objects.visible_to(user).current()
    figures = {round_.pk: {"benchmarks": [], "systems": []} for round_ in rounds}
    for round_pk, benchmark_pk in (Benchmark.objects.filter(round__in=rounds)
                                   .filter(Exists(shown.filter(benchmark=OuterRef("pk"))))
                                   .values_list("round", "pk")):
        figures[round_pk]["benchmarks"].append(benchmark_pk)
    for round_pk, organization_pk, system_id in (System.objects.filter(submission__round__in=rounds)
                                                 .filter(Exists(shown.filter(system=OuterRef("pk"))))
                                                 .order_by().values_list("submission__round", "submission__organization",
                                                                         "system_id").distinct()):
        figures[round_pk]["systems"].append([organization_pk, system_id])
    return figures


def _sitemap_rounds() -> tuple[list[Round], dict[int, dict]]:
    """The public rounds, and what each keeps for the sitemap (_sitemap_figures)."""
    rounds = list(Round.objects.visible_to(None))
    return rounds, round_figures(None, "sitemap", rounds, _sitemap_figures)


def _sitemap_pages(rounds, figures) -> list[str]:
    """The public pages that are not a result's or a system's: home, progress, the rounds, their
    benchmarks (those with a public result) and change logs."""
    names = dict(Benchmark.objects.filter(round__in=rounds).values_list("pk", "name"))
    urls = [reverse("pages:home"), reverse("pages:progress", args=["training"])]
    urls += [reverse("pages:round", args=[round_.slug]) for round_ in rounds]
    urls += [reverse("pages:benchmark", args=[round_.slug, name])
             for round_ in rounds for name in sorted(names[pk] for pk in figures[round_.pk]["benchmarks"])]
    urls += [reverse("pages:changes")] + [reverse("pages:round-changes", args=[r.slug]) for r in rounds]
    return list(dict.fromkeys(urls))


def _sitemap_systems(rounds, figures) -> set[tuple[str, str]]:
    """(organization slug, system id) of every system page, each once: a system page covers the
    system id in every round."""
    slugs = dict(Organization.objects.values_list("pk", "slug"))
    return {(slugs[organization], system_id) for round_ in rounds
            for organization, system_id in figures[round_.pk]["systems"]}


def _public_result_ids():
    return Result.objects.visible_to(None).current().values_list("result_id", flat=True).order_by("result_id")


@cache_public_page
def sitemap(request):
    """The index of the sitemap's parts: public pages only, built for an anonymous visitor whoever asks."""
    rounds, figures = _sitemap_rounds()
    counts = {
        "pages": len(_sitemap_pages(rounds, figures)),
        # A citable id is on one current public result (pages/tests/test_crawl.py): the home page's
        # counts of results, kept per round, are the number of result pages.
        "results": sum(c["results"] for c in round_figures(None, "counts", rounds, _round_counts).values()),
        "systems": len(_sitemap_systems(rounds, figures)),
    }
    parts = [reverse("pages:sitemap-part", args=[kind, number]) for kind in SITEMAP_KINDS
             for number in range(1, -(-counts[kind] // SITEMAP_URLS) + 1)]
    return _sitemap_xml("sitemapindex", "sitemap", parts)


@cache_public_page
def sitemap_part(request, kind: str, number: str):
    """Part `number` (from 1) of the public pages of `kind`: at most SITEMAP_URLS addresses."""
    if kind not in SITEMAP_KINDS:
        raise Http404("no such part of the sitemap")
    start = (int(number) - 1) * SITEMAP_URLS
    if kind == "results":
        addresses = addresses_of("pages:result", [(rid,) for rid in _public_result_ids()[start:start + SITEMAP_URLS]])
    else:
        rounds, figures = _sitemap_rounds()
        if kind == "pages":
            addresses = _sitemap_pages(rounds, figures)[start:start + SITEMAP_URLS]
        else:
            addresses = addresses_of("pages:system", sorted(_sitemap_systems(rounds, figures))[start:start + SITEMAP_URLS])
    if not addresses:
        raise Http404("no such part of the sitemap")
    return _sitemap_xml("urlset", "url", addresses)


def favicon(request):
    return HttpResponsePermanentRedirect(static("favicon.ico"))


def robots_txt(request):
    sitemap_url = request.build_absolute_uri(reverse("pages:sitemap"))
    return render(request, "robots.txt", {"sitemap_url": sitemap_url}, content_type="text/plain; charset=utf-8")
