"""Read-only public API routes (filled in by the dashboard work)."""

urlpatterns: list = []
