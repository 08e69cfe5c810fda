"""A published round's snapshots: the list, and each frozen file with its checksum as ETag and
its time as Last-Modified (a conditional GET is answered 304)."""

from __future__ import annotations

from django.core.files.storage import default_storage
from django.http import FileResponse, Http404
from django.shortcuts import render
from django.utils.cache import get_conditional_response
from django.utils.http import http_date

from pages.caching import cache_public_page
from results.lookups import round_or_404
from results.services.snapshots import snapshot_path

CONTENT_TYPES = {".json": "application/json", ".csv": "text/csv; charset=utf-8", ".md": "text/markdown; charset=utf-8",
                 ".parquet": "application/vnd.apache.parquet", "SHA256SUMS": "text/plain; charset=utf-8"}


@cache_public_page
def snapshot_list(request, slug: str):
    round_ = round_or_404(None, slug)  # published rounds only, whoever asks
    return render(request, "results/snapshots.html", {"round": round_, "snapshots": round_.snapshots.all()})


def snapshot_file(request, slug: str, number: int, name: str):
    round_ = round_or_404(None, slug)
    snapshot = round_.snapshots.filter(number=number).first()
    listed = next((f for f in snapshot.files if f["name"] == name), None) if snapshot else None
    if listed is None:
        raise Http404("no such snapshot file")
    etag, last_modified = f'"{listed["sha256"]}"', snapshot.created_at.timestamp()
    not_modified = get_conditional_response(request, etag=etag, last_modified=int(last_modified))
    if not_modified is not None:
        return not_modified
    kind = next((t for suffix, t in CONTENT_TYPES.items() if name.endswith(suffix)), "application/octet-stream")
    response = FileResponse(default_storage.open(snapshot_path(snapshot, name), "rb"), content_type=kind,
                            as_attachment=True, filename=f"{round_.slug}-snapshot-{number}-{name}")
    response["ETag"] = etag
    response["Last-Modified"] = http_date(last_modified)
    response["Cache-Control"] = "public, max-age=31536000, immutable"  # a snapshot file never changes
    return response
