from django.urls import path

from . import internal_api

app_name = "verify"

# The GPU worker's API (token-authenticated, one job per token: verify/internal_api.py). The verification pages are in
# pages/ (pages/views/verification.py).
urlpatterns = [
    path("internal/verify/<int:job_id>/spec", internal_api.spec, name="internal-spec"),
    path("internal/verify/<int:job_id>/code", internal_api.code, name="internal-code"),
    path("internal/verify/<int:job_id>/progress", internal_api.progress, name="internal-progress"),
    path("internal/verify/<int:job_id>/log", internal_api.output, name="internal-log"),
    path("internal/verify/<int:job_id>/run", internal_api.run, name="internal-run"),
    path("internal/verify/<int:job_id>/outcome", internal_api.outcome, name="internal-outcome"),
]
