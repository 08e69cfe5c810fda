"""The API under /api/v1/: each app contributes its routes."""

from ingest.api_urls import urlpatterns as ingest_patterns
from results.api.urls import urlpatterns as results_patterns
from review.api_urls import urlpatterns as review_patterns

# Upload routes first: they accept POST on paths the read-only API must not shadow.
urlpatterns = ingest_patterns + review_patterns + results_patterns
