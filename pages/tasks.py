"""Work of the public pages beside the requests: snapshots of published rounds after each change
(periodic), and pages warmed in the cache after a round changed (sent on commit)."""

from celery import shared_task

from pages.snapshots import take_snapshot
from pages.warming import warm_pages
from results.models import Round


@shared_task(name="pages.take_snapshots")
def take_snapshots_task() -> list[str]:
    """A new snapshot of every published round that changed since its newest one."""
    taken = [take_snapshot(round_) for round_ in Round.objects.visible_to(None)]
    return [str(snapshot) for snapshot in taken if snapshot is not None]


@shared_task(name="pages.warm_pages", ignore_result=True)
def warm_pages_task(round_ids: list[int], sent_versions: dict | None = None) -> list[tuple[str, int]]:
    """Build the changed rounds' pages and the global ones into the page cache, unless a later
    change superseded them (pages/warming.py)."""
    return warm_pages(round_ids, sent_versions)
