"""Read-only API. Every queryset starts from `visible_to(request.user)`; lists use cursor pagination.
Anonymous answers are served from the front cache like the public pages (pages.caching)."""

from django.http import Http404
from rest_framework import viewsets
from rest_framework.decorators import action
from rest_framework.pagination import CursorPagination
from rest_framework.response import Response

from pages.caching import PublicApiCacheMixin
from pages.suites.inference.tables import summary_results
from results.constants import Suite
from results.models import Benchmark, Result, Round, Run, System
from results.querysets import RoundNotFound

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
        if round_.suite != Suite.INFERENCE:
            raise Http404("summary_results is the inference suite's round summary")
        return Response(summary_results(request.user, round_))


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


class ResultViewSet(PublicApiCacheMixin, viewsets.ReadOnlyModelViewSet):
    """Results of current submission versions, looked up by citable id (`1.0-0042`)."""

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

    def get_object(self):
        result = (
            Result.objects.visible_to(self.request.user).citable(self.kwargs["result_id"]).with_related()
            .defer(*self.unshown).first()
        )
        if result is None:
            raise Http404("no such result")
        return result


class RunViewSet(PublicApiCacheMixin, viewsets.ReadOnlyModelViewSet):
    serializer_class = serializers.RunSerializer
    filterset_class = filters.RunFilter
    pagination_class = ById

    def get_queryset(self):
        return Run.objects.visible_to(self.request.user).current().select_related("result")
