"""Submitter pages: upload and job status (filled in by the upload work)."""

app_name = "ingest"
urlpatterns: list = []
