"""django-filter FilterSets of the public API."""

import django_filters
from rest_framework.exceptions import ValidationError

from results.models import Benchmark, Result, Round, Run, System
from results.querysets import RoundSlugError, parse_round_slug
from results.services.citable import entry_reference


def filter_round_slug(queryset, prefix: str, value: str):
    try:
        suite, version = parse_round_slug(value)
    except RoundSlugError:
        return queryset.none()
    return queryset.filter(**{f"{prefix}suite": suite, f"{prefix}version": version})


def in_round_paged_by_id(queryset, value: str):
    """Results or runs of the round named `value`, for a list paged by id."""
    try:
        return queryset.in_round_within_its_ids(*parse_round_slug(value))
    except RoundSlugError:
        return queryset.none()


def in_benchmark_paged_by_id(queryset, prefix: str, name: str):
    """Results or runs (`prefix` their path to the benchmark) of the benchmarks named `name`, for
    a list paged by id: within the ids of the rounds that have one (a walk of every run for
    HPC's cosmoflow: 4.1 s at 2,000,000 runs)."""
    return queryset.filter(**{f"{prefix}name": name}).in_rounds_within_their_ids(
        Round.objects.filter(benchmarks__name=name))


class RoundFilter(django_filters.FilterSet):
    class Meta:
        model = Round
        fields = ["suite", "version", "state"]


class BenchmarkFilter(django_filters.FilterSet):
    round = django_filters.CharFilter(method="by_round", help_text="Round slug, e.g. training-v1.0")

    class Meta:
        model = Benchmark
        fields = ["round", "name", "area"]

    def by_round(self, queryset, name, value):
        return filter_round_slug(queryset, "round__", value)


class SystemFilter(django_filters.FilterSet):
    round = django_filters.CharFilter(method="by_round", help_text="Round slug, e.g. training-v1.0")
    organization = django_filters.CharFilter(field_name="submission__organization__slug")
    accelerator = django_filters.CharFilter(field_name="accelerator_model_name", lookup_expr="icontains")
    accelerators_min = django_filters.NumberFilter(field_name="accelerators_count", lookup_expr="gte")
    accelerators_max = django_filters.NumberFilter(field_name="accelerators_count", lookup_expr="lte")

    class Meta:
        model = System
        fields = ["round", "organization", "system_id", "division", "availability", "deployment", "accelerator",
                  "accelerators_min", "accelerators_max"]

    def by_round(self, queryset, name, value):
        return filter_round_slug(queryset, "submission__round__", value)


class ResultFilter(django_filters.FilterSet):
    round = django_filters.CharFilter(method="by_round", help_text="Round slug, e.g. training-v1.0")
    entry = django_filters.CharFilter(
        method="by_entry", help_text="MLCommons' entry id, one system in one round: 4.1-0012 (or v4.1-0012)"
    )
    suite = django_filters.CharFilter(method="by_suite", help_text="training, inference or hpc")
    benchmark = django_filters.CharFilter(method="by_benchmark")
    organization = django_filters.CharFilter(field_name="submission__organization__slug")
    system_id = django_filters.CharFilter(field_name="system__system_id")
    availability = django_filters.CharFilter(field_name="system__availability")
    deployment = django_filters.CharFilter(field_name="system__deployment")
    accelerator = django_filters.CharFilter(field_name="system__accelerator_model_name", lookup_expr="icontains")
    accelerators_min = django_filters.NumberFilter(field_name="system__accelerators_count", lookup_expr="gte")
    accelerators_max = django_filters.NumberFilter(field_name="system__accelerators_count", lookup_expr="lte")
    minutes_max = django_filters.NumberFilter(field_name="score_minutes", lookup_expr="lte")

    class Meta:
        model = Result
        fields = ["round", "entry", "suite", "benchmark", "organization", "system_id", "result_id", "division",
                  "availability", "deployment", "accelerator", "accelerators_min", "accelerators_max", "rcp_status",
                  "minutes_max", "scaling"]

    def by_round(self, queryset, name, value):
        return in_round_paged_by_id(queryset, value)

    # Within the ids of the rounds concerned: a rare suite's or benchmark's results were found by
    # walking the id index from its start (262-294 ms at 200,000 results, for 16-38 results).
    def by_suite(self, queryset, name, value):
        return queryset.in_rounds_within_their_ids(Round.objects.filter(suite=value))

    def by_benchmark(self, queryset, name, value):
        return in_benchmark_paged_by_id(queryset, "benchmark__", value)

    def by_entry(self, queryset, name, value):
        reference = entry_reference(value)
        if reference is None:
            raise ValidationError({"entry": f"{value!r} is not an entry id such as 4.1-0012"})
        if reference.suite:
            queryset = queryset.filter(submission__round__suite=reference.suite)
        return queryset.filter(citable__entry=reference.entry)


class RunFilter(django_filters.FilterSet):
    result_id = django_filters.CharFilter(field_name="result__result_id")
    round = django_filters.CharFilter(method="by_round", help_text="Round slug, e.g. training-v1.0")
    benchmark = django_filters.CharFilter(method="by_benchmark")

    class Meta:
        model = Run
        fields = ["result_id", "round", "benchmark", "scoring", "compliant"]

    def by_round(self, queryset, name, value):
        return in_round_paged_by_id(queryset, value)

    def by_benchmark(self, queryset, name, value):
        return in_benchmark_paged_by_id(queryset, "result__benchmark__", value)
