from django.apps import AppConfig
from django.conf import settings
from django.utils.autoreload import autoreload_started


class ResultsConfig(AppConfig):
    name = "results"
    verbose_name = "Results database"

    def ready(self):
        autoreload_started.connect(watch_static_manifest, dispatch_uid="watch-static-manifest")


def watch_static_manifest(sender, **kwargs):
    """`runserver` restarts when collectstatic rewrites the manifest: the static files storage reads
    it once per process, so pages would link to the old hashed names until then."""
    sender.extra_files.add(settings.STATIC_ROOT / "staticfiles.json")
