"""A published round's snapshots: the list, each frozen file, and each snapshot as one archive, with
a checksum as ETag and the snapshot's time as Last-Modified (a conditional GET is answered 304).
Every file downloads under the name its SHA256SUMS lists, so `sha256sum -c` checks what was
downloaded as it was saved."""

from __future__ import annotations

import tempfile

from django.core.files.storage import default_storage
from django.http import FileResponse, Http404
from django.shortcuts import render
from django.utils.cache import get_conditional_response
from django.utils.http import http_date

from pages.caching import cache_public_page
from results.lookups import round_or_404
from results.models import Round, Snapshot
from results.services.snapshots import archive_folder, snapshot_path, write_archive

CONTENT_TYPES = {".json": "application/json", ".csv": "text/csv; charset=utf-8", ".md": "text/markdown; charset=utf-8",
                 ".parquet": "application/vnd.apache.parquet", "SHA256SUMS": "text/plain; charset=utf-8"}


@cache_public_page
def snapshot_list(request, slug: str):
    round_ = round_or_404(None, slug)  # published rounds only, whoever asks
    snapshots = [{"snapshot": s, "folder": archive_folder(s)} for s in round_.snapshots.all()]
    return render(request, "results/snapshots.html", {"round": round_, "snapshots": snapshots})


def _snapshot_or_404(slug: str, number: int) -> tuple[Round, Snapshot]:
    round_ = round_or_404(None, slug)
    snapshot = round_.snapshots.filter(number=number).first()
    if snapshot is None:
        raise Http404("no such snapshot")
    return round_, snapshot


def _frozen(request, snapshot: Snapshot, etag: str, make_response):
    """A 304 where the client holds this version, else `make_response()` marked as never changing."""
    last_modified = snapshot.created_at.timestamp()
    not_modified = get_conditional_response(request, etag=etag, last_modified=int(last_modified))
    if not_modified is not None:
        return not_modified
    response = make_response()
    response["ETag"] = etag
    response["Last-Modified"] = http_date(last_modified)
    response["Cache-Control"] = "public, max-age=31536000, immutable"  # a snapshot never changes
    return response


def snapshot_file(request, slug: str, number: int, name: str):
    _, snapshot = _snapshot_or_404(slug, number)
    listed = next((f for f in snapshot.files if f["name"] == name), None)
    if listed is None:
        raise Http404("no such snapshot file")
    kind = next((t for suffix, t in CONTENT_TYPES.items() if name.endswith(suffix)), "application/octet-stream")
    return _frozen(request, snapshot, f'"{listed["sha256"]}"', lambda: FileResponse(
        default_storage.open(snapshot_path(snapshot, name), "rb"), content_type=kind, as_attachment=True,
        filename=name,
    ))


def snapshot_archive(request, slug: str, number: int):
    """The whole snapshot as `<round>-snapshot-<N>.tar.gz`, built from the stored files (the same
    bytes every time: write_archive)."""
    _, snapshot = _snapshot_or_404(slug, number)
    sums = next(f for f in snapshot.files if f["name"] == "SHA256SUMS")  # names every other file's digest

    def archive():
        out = tempfile.TemporaryFile()
        write_archive(snapshot, out)
        out.seek(0)
        return FileResponse(out, content_type="application/gzip", as_attachment=True,
                            filename=f"{archive_folder(snapshot)}.tar.gz")

    return _frozen(request, snapshot, f'"{sums["sha256"]}-tar-gz"', archive)
