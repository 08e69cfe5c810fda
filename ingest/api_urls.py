"""Submission upload API routes, under /api/v1/."""

from django.urls import path

from . import api

urlpatterns = [
    path("submissions/", api.SubmissionUploadView.as_view(), name="ingest-api-submissions"),
    path("submissions/permission/", api.UploadPermissionView.as_view(), name="ingest-api-upload-permission"),
    path("uploads/", api.UploadListView.as_view(), name="ingest-api-uploads"),
    path("uploads/<int:pk>/", api.UploadStatusView.as_view(), name="ingest-api-upload"),
]
