"""The API under /api/v1/: each app contributes its routes."""

from ingest.api_urls import urlpatterns as ingest_patterns
from results.api.urls import urlpatterns as results_patterns

urlpatterns = results_patterns + ingest_patterns
