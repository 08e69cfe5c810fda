"""Submitter pages, under /submit/."""

from django.urls import path

from . import views

app_name = "ingest"
urlpatterns = [
    path("", views.upload_page, name="upload-page"),
    path("uploads/<int:pk>/", views.upload_detail, name="upload"),
]
