"""Read-only public API routes, under /api/v1/."""

from rest_framework.routers import SimpleRouter

from . import views

router = SimpleRouter()
router.register("rounds", views.RoundViewSet, basename="round")
router.register("benchmarks", views.BenchmarkViewSet, basename="benchmark")
router.register("systems", views.SystemViewSet, basename="system")
router.register("results", views.ResultViewSet, basename="result")
router.register("runs", views.RunViewSet, basename="run")

urlpatterns = router.urls
