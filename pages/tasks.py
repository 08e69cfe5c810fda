"""Periodic work of the public pages: snapshots of published rounds after each change."""

from celery import shared_task

from pages.snapshots import take_snapshot
from results.models import Round


@shared_task(name="pages.take_snapshots")
def take_snapshots_task() -> list[str]:
    """A new snapshot of every published round that changed since its newest one."""
    taken = [take_snapshot(round_) for round_ in Round.objects.visible_to(None)]
    return [str(snapshot) for snapshot in taken if snapshot is not None]
