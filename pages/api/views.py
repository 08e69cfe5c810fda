"""Read-only API. Every queryset starts from `visible_to(request.user)`; lists use cursor pagination.
Anonymous answers are served from the front cache like the public pages (pages.caching)."""

from urllib.parse import urlencode

from django.http import Http404, HttpResponseRedirect
from django.urls import reverse
from rest_framework import status, viewsets
from rest_framework.decorators import action
from rest_framework.pagination import CursorPagination
from rest_framework.response import Response

from pages import suites
from pages.caching import PublicApiCacheMixin
from results.lookups import Tombstone, entry_results, find_result_id, tombstone
from results.models import Benchmark, Result, Round, Run, System
from results.querysets import RoundNotFound
from results.services.citable import entry_reference

from . import filters, serializers


class ById(CursorPagination):
    ordering = "pk"
    page_size_query_param = "page_size"
    max_page_size = 1000


class RoundViewSet(PublicApiCacheMixin, viewsets.ReadOnlyModelViewSet):
    """Rounds, looked up by slug (`training-v1.0`)."""

    serializer_class = serializers.RoundSerializer
    filterset_class = filters.RoundFilter
    pagination_class = ById
    lookup_field = "slug"
    lookup_value_regex = r"[a-z]+-v[\d.]+"

    def get_queryset(self):
        return Round.objects.visible_to(self.request.user)

    def get_object(self):
        try:
            return self.get_queryset().named(self.kwargs["slug"])
        except RoundNotFound as exc:
            raise Http404(str(exc)) from exc

    @action(detail=True, url_path="summary_results")
    def summary_results(self, request, slug=None):
        """An inference round's accepted results as MLCommons publishes them (summary_results.json)."""
        round_ = self.get_object()
        _columns, records = suites.of_round(round_).summary_results(request.user, round_)
        return Response(records)


class BenchmarkViewSet(PublicApiCacheMixin, viewsets.ReadOnlyModelViewSet):
    serializer_class = serializers.BenchmarkSerializer
    filterset_class = filters.BenchmarkFilter
    pagination_class = ById

    def get_queryset(self):
        return Benchmark.objects.filter(round__in=Round.objects.visible_to(self.request.user)).select_related("round")


class SystemViewSet(PublicApiCacheMixin, viewsets.ReadOnlyModelViewSet):
    serializer_class = serializers.SystemSerializer
    filterset_class = filters.SystemFilter
    pagination_class = ById

    def get_queryset(self):
        return System.objects.visible_to(self.request.user).select_related(
            "submission__round", "submission__organization"
        )


def tombstone_json(gone: Tombstone) -> dict:
    """What the tombstone page says, as the API's body for the same result."""
    result = gone.result
    return {
        "detail": f"{result.result_id} was {gone.what}.",
        "result_id": result.result_id,
        "entry": result.citable.entry,
        "status": gone.status,
        "gone_at": gone.gone_at.isoformat(),
        "reason": gone.reason,
        "round": result.submission.round.slug,
        "last_published": {
            "submission_version": result.submission.version, "organization": result.submission.organization.slug,
            "system": result.system.name, "system_id": result.system.system_id, "benchmark": result.benchmark.name,
            "scenario": result.scenario, "division": result.division, "metric_value": result.metric_value,
            "metric_unit": result.metric_unit,
        },
        "earlier_versions": [reverse("pages:result-version", args=[result.result_id, version]) for version in gone.earlier],
        "url": reverse("pages:permalink", args=[result.result_id]),
        "changes": reverse("pages:round-changes", args=[result.submission.round.slug]),
    }


class ResultViewSet(PublicApiCacheMixin, viewsets.ReadOnlyModelViewSet):
    """Results of current submission versions, looked up by citable id
    (`/api/v1/results/training:4.1-0012:resnet/`, `/api/v1/results/inference:4.1-0001:resnet50:Offline/`;
    the entry may be written `v4.1-0001`, and case does not matter). An MLCommons entry id alone
    (`/api/v1/results/4.1-0001/`) redirects to its results (`?entry=4.1-0001`: one system in one
    round, each suite's entry of that number). A result that was public and is withdrawn or removed
    answers 410 Gone with what happened, when, why, and its last published figures."""

    # Columns of the joined rows that ResultSerializer does not show: their JSON would be read and
    # decoded for every row of a page for nothing.
    unshown = ("system__description", "system__notes", "benchmark__quality_targets", "benchmark__quality_rule",
               "benchmark__closed_hyperparameter_rules", "submission__organization__aliases")

    serializer_class = serializers.ResultSerializer
    filterset_class = filters.ResultFilter
    pagination_class = ById
    lookup_field = "result_id"
    lookup_value_regex = r"[^/]+"

    def get_queryset(self):
        return Result.objects.visible_to(self.request.user).current().with_related().defer(*self.unshown)

    def retrieve(self, request, *args, **kwargs):
        text = kwargs["result_id"]
        if find_result_id(request.user, text) is None:
            gone = tombstone(text)
            if gone is not None:
                # Cacheable by default, but a chair may reinstate it: ask again each time.
                return Response(tombstone_json(gone), status=status.HTTP_410_GONE, headers={"Cache-Control": "no-cache"})
            reference = entry_reference(text)
            if reference is not None and entry_results(request.user, text):
                query = {"entry": reference.entry, **({"suite": reference.suite} if reference.suite else {})}
                return HttpResponseRedirect(f"{reverse('result-list')}?{urlencode(query)}")
        return super().retrieve(request, *args, **kwargs)

    def get_object(self):
        result_id = find_result_id(self.request.user, self.kwargs["result_id"])
        if result_id is None:
            raise Http404("no such result")
        return (
            Result.objects.visible_to(self.request.user).citable(result_id).with_related().defer(*self.unshown).first()
        )


class RunViewSet(PublicApiCacheMixin, viewsets.ReadOnlyModelViewSet):
    serializer_class = serializers.RunSerializer
    filterset_class = filters.RunFilter
    pagination_class = ById

    def get_queryset(self):
        # Of each run's result, RunSerializer shows its citable id only: the result's other columns
        # (its JSON among them) are not read for every run of a page.
        shown = [field.name for field in Run._meta.concrete_fields]
        return Run.objects.visible_to(self.request.user).current().select_related("result").only(*shown,
                                                                                                  "result__result_id")
