"""Store a snapshot of a round: files built by the pages layer (pages/snapshots.py), numbered,
checksummed and written once. A snapshot already covering the newest change is not taken again."""

from __future__ import annotations

import gzip
import hashlib
import tarfile
from typing import BinaryIO

from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import transaction

from ..models import Round, Snapshot

SNAPSHOT_PREFIX = "snapshots"


def snapshot_path(snapshot: Snapshot, name: str) -> str:
    return f"{SNAPSHOT_PREFIX}/{snapshot.round.slug}/{snapshot.number}/{name}"


def archive_folder(snapshot: Snapshot) -> str:
    """The folder a snapshot's archive unpacks into: `inference-v4.1-snapshot-1`."""
    return f"{snapshot.round.slug}-snapshot-{snapshot.number}"


def write_archive(snapshot: Snapshot, out: BinaryIO) -> None:
    """The snapshot's files and SHA256SUMS as one gzipped tar, under archive_folder(): unpacked,
    `sha256sum -c SHA256SUMS` passes in that folder. The same snapshot always gives the same bytes
    (every time in it is the snapshot's), so the archive needs no copy of its own in storage."""
    folder, mtime = archive_folder(snapshot), int(snapshot.created_at.timestamp())

    def member(name: str, kind: bytes, size: int = 0) -> tarfile.TarInfo:
        info = tarfile.TarInfo(name)
        info.type, info.size, info.mtime = kind, size, mtime
        info.mode = 0o755 if kind == tarfile.DIRTYPE else 0o644
        return info

    with gzip.GzipFile(filename="", mode="wb", fileobj=out, mtime=mtime) as zipped:
        with tarfile.open(fileobj=zipped, mode="w", format=tarfile.USTAR_FORMAT) as tar:
            tar.addfile(member(folder, tarfile.DIRTYPE))
            for listed in snapshot.files:
                with default_storage.open(snapshot_path(snapshot, listed["name"]), "rb") as data:
                    tar.addfile(member(f"{folder}/{listed['name']}", tarfile.REGTYPE, listed["bytes"]), data)


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
