"""Submission upload API routes (filled in by the upload work)."""

urlpatterns: list = []
