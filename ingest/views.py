"""Submitter pages: the upload page (choose a round, drop a tarball, watch it) and an upload's page.
Thin: the browser talks to the JSON API (ingest/api.py) for the upload itself and for progress."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, render
from django.utils import timezone

from results.constants import RoundState
from results.models import Round, version_order
from review.models import ResubmissionWindow
from review.services import upload_refusal

from .models import Upload
from .presence import no_worker_note


def round_states(organizations, now) -> list[dict]:
    """Every round but the drafts (a chair's alone) with what it means for an upload now: open
    until, closed, or a resubmission window granted to one of `organizations` (the /submit/ page
    explains them; `until`: when uploading ends, the latest window's end where a window is the way
    in). Whether one of them may upload is review.services.upload_refusal, the rule the upload
    itself is held to."""
    windows: dict[int, list] = {}
    for window in ResubmissionWindow.objects.filter(organization__in=organizations, closes_at__gt=now).select_related(
        "organization"
    ):
        windows.setdefault(window.round_id, []).append(window)
    states = []
    for round_ in Round.objects.exclude(state=RoundState.DRAFT).order_by("suite", version_order("version").desc()):
        if round_.state == RoundState.OPEN and (round_.submission_deadline is None or round_.submission_deadline >= now):
            status = "open"
        elif round_.state == RoundState.OPEN:
            status = "deadline passed"
        else:
            status = round_.get_state_display().lower()
        can_upload = any(
            not upload_refusal(round_=round_, organization=organization, now=now)
            for organization in organizations or [None]
        )
        open_windows = windows.get(round_.pk, [])
        until = max(w.closes_at for w in open_windows) if open_windows and status != "open" else round_.submission_deadline
        states.append({"round": round_, "status": status, "can_upload": can_upload, "windows": open_windows,
                       "until": until})
    return states


@login_required
def upload_page(request):
    organizations = list(request.user.organizations.order_by("name"))
    now = timezone.now()
    states = round_states(organizations, now)
    uploads = (
        Upload.objects.visible_to(request.user)
        .select_related("round", "organization", "uploaded_by", "job", "submission")
        .order_by("-created_at", "-pk")[:50]
    )
    context = {
        "organizations": organizations,
        "rounds": [state for state in states if state["can_upload"]],
        "uploads": uploads,
        "max_bytes": settings.UPLOAD_MAX_BYTES,
        "round_states": states,
        "no_worker": no_worker_note(),
    }
    return render(request, "ingest/upload.html", context)


@login_required
def upload_detail(request, pk: int):
    upload = get_object_or_404(
        Upload.objects.visible_to(request.user).select_related(
            "round", "organization", "uploaded_by", "job", "submission"
        ),
        pk=pk,
    )
    return render(request, "ingest/upload_detail.html", {"upload": upload, "no_worker": no_worker_note()})
