from django.urls import path, re_path

from . import internal_api, views

app_name = "verify"

urlpatterns = [
    path("verify/results/<int:result_pk>/request/", views.request_verification, name="request"),
    path("verify/jobs/<int:pk>/", views.job_detail, name="job"),
    path("verify/jobs/<int:pk>/status.json", views.job_status, name="job-status"),
    re_path(r"^verify/jobs/(?P<pk>\d+)/charts/(?P<chart>[a-z-]+)\.(?P<fmt>csv|json)$", views.job_chart, name="job-chart"),
    # The GPU worker's API (token-authenticated, one job per token).
    path("internal/verify/<int:job_id>/spec", internal_api.spec, name="internal-spec"),
    path("internal/verify/<int:job_id>/code", internal_api.code, name="internal-code"),
    path("internal/verify/<int:job_id>/progress", internal_api.progress, name="internal-progress"),
    path("internal/verify/<int:job_id>/log", internal_api.output, name="internal-log"),
    path("internal/verify/<int:job_id>/outcome", internal_api.outcome, name="internal-outcome"),
]
