from django.apps import AppConfig


class IngestConfig(AppConfig):
    name = "ingest"
    verbose_name = "Ingestion"

    def ready(self):
        from review.signals import findings_waived

        findings_waived.connect(_recount_waived, dispatch_uid="ingest-recount-waived")


def _recount_waived(sender, submissions, **_kwargs) -> None:
    """A decision waived findings of these versions (review.signals.findings_waived, sent by
    review/services/waivers.py): their finished jobs count their errors again, through the same
    queryset as every page (FindingQuerySet.not_waived: mlperf_check/waivers.py's rule)."""
    from .services import recount_errors

    recount_errors(submissions)
