from django.apps import AppConfig


class IngestConfig(AppConfig):
    name = "ingest"
    verbose_name = "Ingestion"

    def ready(self):
        from review.signals import findings_waived

        findings_waived.connect(_recount_waived, dispatch_uid="ingest-recount-waived")


def _recount_waived(sender, submissions, **_kwargs) -> None:
    from .services import recount_errors

    recount_errors(submissions)
