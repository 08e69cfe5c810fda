"""Take a snapshot of every published round that changed since its newest snapshot (the beat task
pages.take_snapshots does the same every minute)."""

from django.core.management.base import BaseCommand

from pages.tasks import take_snapshots_task


class Command(BaseCommand):
    help = "Snapshot every published round that changed since its newest snapshot."

    def handle(self, *args, **options):
        taken = take_snapshots_task()
        self.stdout.write("\n".join(taken) if taken else "no round changed")
