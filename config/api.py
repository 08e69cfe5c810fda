"""The API under /api/v1/: each app contributes its routes, and the root lists them."""

from django.urls import path
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework.decorators import api_view, permission_classes
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.reverse import reverse

from ingest.api_urls import urlpatterns as ingest_patterns
from pages.api.urls import urlpatterns as pages_patterns
from review.api_urls import urlpatterns as review_patterns

# (name, url name, what it is), in the order a newcomer reads them.
ENDPOINTS = [
    ("rounds", "round-list", "Rounds of each suite, with their state and publication date"),
    ("benchmarks", "benchmark-list", "Benchmarks of each round: quality target, metric, runs required"),
    ("systems", "system-list", "Systems as submitted, with their description"),
    ("results", "result-list", "Results: time to train, RCP outcome, per result id"),
    ("runs", "run-list", "Runs of each result, with their scoring"),
    ("uploads", "ingest-api-uploads", "Your organization's uploads and their ingestion state (sign-in needed)"),
    ("submissions", "ingest-api-submissions", "Upload a submission: POST a tarball (sign-in needed)"),
]


@extend_schema(responses=OpenApiTypes.OBJECT, auth=[])
@api_view(["GET"])
@permission_classes([AllowAny])
def api_root(request, format=None):
    """The endpoints of this API, with links to the schema and its interactive documentation."""
    return Response({
        **{name: reverse(url_name, request=request) for name, url_name, _ in ENDPOINTS},
        "schema": reverse("api-schema", request=request),
        "docs": reverse("api-docs", request=request),
        "descriptions": {name: text for name, _, text in ENDPOINTS},
    })


# Upload routes first: they accept POST on paths the read-only API must not shadow.
urlpatterns = [path("", api_root, name="api-root"), *ingest_patterns, *review_patterns, *pages_patterns]
