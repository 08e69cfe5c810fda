"""Store a snapshot of a round: files built by the pages layer (pages/snapshots.py), numbered,
checksummed and written once. A snapshot already covering the newest change is not taken again."""

from __future__ import annotations

import hashlib

from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import transaction

from ..models import Round, Snapshot

SNAPSHOT_PREFIX = "snapshots"


def snapshot_path(snapshot: Snapshot, name: str) -> str:
    return f"{SNAPSHOT_PREFIX}/{snapshot.round.slug}/{snapshot.number}/{name}"


def store_snapshot(round_: Round, files: dict[str, bytes], *, covers_event: int) -> Snapshot | None:
    """Snapshot number N+1 of `round_` with `files` and their SHA256SUMS; None when the newest
    snapshot already covers `covers_event` (nothing changed since)."""
    with transaction.atomic():
        Round.objects.select_for_update().get(pk=round_.pk)
        newest = round_.snapshots.order_by("-number").first()
        if newest is not None and newest.covers_event >= covers_event:
            return None
        snapshot = Snapshot(round=round_, number=(newest.number + 1) if newest else 1, covers_event=covers_event)
        listed = [{"name": name, "sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}
                  for name, data in files.items()]
        sums = "".join(f"{f['sha256']}  {f['name']}\n" for f in listed).encode()
        everything = {**files, "SHA256SUMS": sums}
        listed.append({"name": "SHA256SUMS", "sha256": hashlib.sha256(sums).hexdigest(), "bytes": len(sums)})
        for name, data in everything.items():
            path = snapshot_path(snapshot, name)
            if default_storage.exists(path):
                # No snapshot row has this number (the round is locked): left by an attempt that
                # failed before its row was saved, so never served. Replaced, not renamed.
                default_storage.delete(path)
            default_storage.save(path, ContentFile(data))
        snapshot.files = listed
        snapshot.save()
    return snapshot
