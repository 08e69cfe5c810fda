"""Upload API: POST /api/v1/submissions/ (round, file) -> receipt; GET /api/v1/uploads/[<id>/] ->
job status, findings and scores. Session or token auth. Thin: parse, check access, call a service."""

from __future__ import annotations

import json
import logging

from django.shortcuts import get_object_or_404
from django.urls import reverse
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
)
from rest_framework import serializers, status
from rest_framework.exceptions import NotAuthenticated
from rest_framework.parsers import MultiPartParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.throttling import ScopedRateThrottle
from rest_framework.views import APIView

from results.models import Finding, Result
from results.states import version_state
from review.findings import finding_counts, with_waivers

from .models import Upload
from .presence import ingest_worker_running, waiting_note
from .services import UploadRefused, accept_upload, refusal_before_body, upload_target
from .uploads import NO_SPACE_MESSAGE, HashingUploadHandler, out_of_space

log = logging.getLogger(__name__)

# The job page shows at most this many findings of each severity; the counts are always whole.
FINDINGS_PER_SEVERITY = 500


class OrganizationUploadThrottle(ScopedRateThrottle):
    """ScopedRateThrottle counted per organization, not per user: teammates share one budget."""

    def get_rate(self):
        # Read at request time so a settings override (tests, reload) takes effect.
        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)

    def get_cache_key(self, request, view):
        if not request.user.is_authenticated:
            return None
        org_ids = sorted(request.user.organizations.values_list("pk", flat=True))
        ident = "org-" + "-".join(map(str, org_ids)) if org_ids else f"user-{request.user.pk}"
        return self.cache_format % {"scope": self.scope, "ident": ident}


class UploadRequestSerializer(serializers.Serializer):
    round = serializers.CharField(help_text="Round slug, e.g. training-v1.0")
    file = serializers.FileField(help_text="One submitter folder as .tar, .tar.gz/.tgz, .tar.xz or .zip")
    organization = serializers.SlugField(
        required=False, help_text="Organization slug; needed only when you belong to several"
    )
    confirm_identical = serializers.BooleanField(
        required=False,
        default=False,
        help_text="Upload even when the file is byte-identical to an earlier version (otherwise 409)",
    )


class ReceiptSerializer(serializers.ModelSerializer):
    submission = serializers.IntegerField(source="submission_id")
    round = serializers.CharField(source="round.slug")
    organization = serializers.CharField(source="organization.slug")
    # The labels the public pages show, for the upload page to show the same.
    organization_name = serializers.CharField(source="organization.name")
    round_label = serializers.SerializerMethodField()
    size = serializers.IntegerField(source="size_bytes")
    uploader = serializers.SerializerMethodField()
    state = serializers.CharField(source="job.state")
    status_url = serializers.SerializerMethodField()
    page_url = serializers.SerializerMethodField()
    version_state = serializers.SerializerMethodField(
        help_text="Where this version stands (results.states.VersionState): received, held, written (checked, "
                  "not current), current, published, superseded"
    )
    held_reason = serializers.CharField(
        source="submission.held_reason",
        help_text="Set while the version is held because its files speak for another organization: a chair of "
                  "another organization decides; until then it is not current, not published and its results "
                  "have no new ids",
    )

    class Meta:
        model = Upload
        fields = [
            "id",
            "submission",
            "version",
            "round",
            "organization",
            "organization_name",
            "round_label",
            "original_name",
            "sha256",
            "size",
            "created_at",
            "uploader",
            "state",
            "status_url",
            "page_url",
            "version_state",
            "held_reason",
        ]

    def get_version_state(self, upload: Upload) -> str:
        return version_state(upload.submission)

    def get_round_label(self, upload: Upload) -> str:
        return f"{upload.round.get_suite_display()} v{upload.round.version}"

    def get_uploader(self, upload: Upload) -> str:
        return upload.uploaded_by.get_username() if upload.uploaded_by else ""

    def get_status_url(self, upload: Upload) -> str:
        return self._absolute(reverse("ingest-api-upload", args=[upload.pk]))

    def get_page_url(self, upload: Upload) -> str:
        return self._absolute(reverse("ingest:upload", args=[upload.pk]))

    def _absolute(self, path: str) -> str:
        request = self.context.get("request")
        return request.build_absolute_uri(path) if request else path


class JobSerializer(serializers.Serializer):
    state = serializers.CharField()
    state_label = serializers.CharField(source="get_state_display")
    is_final = serializers.BooleanField()
    stage = serializers.CharField()
    files_done = serializers.IntegerField()
    files_total = serializers.IntegerField()
    error_count = serializers.IntegerField(help_text="Error findings, once done")
    summary = serializers.CharField(help_text='The state in words: "done, 3 errors" when done with errors')
    attempts = serializers.IntegerField()
    error_kind = serializers.CharField()
    error = serializers.CharField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    waiting = serializers.SerializerMethodField(
        help_text='While the job is received: why it has not started, e.g. "no ingestion worker is running: ..."'
    )
    worker_running = serializers.SerializerMethodField(help_text="Whether any ingestion worker is running now")

    def get_waiting(self, job) -> str:
        return waiting_note(job)

    def get_worker_running(self, job) -> bool:
        return ingest_worker_running()


class FindingSerializer(serializers.ModelSerializer):
    class Meta:
        model = Finding
        fields = ["severity", "code", "message", "file", "line", "checker", "key", "expected", "actual", "waiver",
                  "waived_by"]

    waiver = serializers.IntegerField(source="waiver_id", default=None, read_only=True,
                                      help_text="The decision (waiver id) that waived it; it then counts nowhere")
    waived_by = serializers.SerializerMethodField(
        help_text="The decision that waived it: {id, kind, label, code, reason}; null when none did"
    )

    def get_waived_by(self, finding: Finding) -> dict | None:
        waiver = getattr(finding, "waiver", None)  # review.findings.with_waivers
        if waiver is None:
            return None
        return {"id": waiver.pk, "kind": waiver.kind, "label": waiver.get_kind_display(), "code": waiver.code,
                "reason": waiver.reason}


class ResultSerializer(serializers.ModelSerializer):
    system = serializers.CharField(source="system.system_id")
    benchmark = serializers.CharField(source="benchmark.name")
    # As the public pages name and link them.
    system_name = serializers.CharField(source="system.name")
    rcp_label = serializers.CharField(source="get_rcp_status_display")
    url = serializers.SerializerMethodField()
    system_url = serializers.SerializerMethodField()

    def get_url(self, result: Result) -> str | None:
        """None while the version is held: its results have no id (and no page) yet."""
        return reverse("pages:result", args=[result.result_id]) if result.result_id else None

    def get_system_url(self, result: Result) -> str:
        return reverse("pages:system", args=[result.submission.organization.slug, result.system.system_id])

    class Meta:
        model = Result
        fields = [
            "result_id",
            "system",
            "benchmark",
            "division",
            "score_minutes",
            "mean_minutes",
            "scaling_factor",
            "score_note",
            "dropped_runs",
            "rcp_status",
            "system_name",
            "rcp_label",
            "url",
            "system_url",
        ]


class UploadStatusSerializer(ReceiptSerializer):
    job = JobSerializer()
    finding_counts = serializers.SerializerMethodField()
    findings = serializers.SerializerMethodField()
    results = serializers.SerializerMethodField()

    class Meta(ReceiptSerializer.Meta):
        fields = ReceiptSerializer.Meta.fields + ["job", "finding_counts", "findings", "results"]

    def get_finding_counts(self, upload: Upload) -> dict[str, int]:
        """Findings no decision waived, by severity; `waived`: how many a decision waived, and
        `waived_<severity>` (e.g. `waived_error`) those of each severity with any waived."""
        return finding_counts(upload.submission.findings.all())

    @extend_schema_field(FindingSerializer(many=True))
    def get_findings(self, upload: Upload) -> list[dict]:
        """Errors first, then warnings, then info; each capped at FINDINGS_PER_SEVERITY."""
        rows = []
        for severity in ("error", "warning", "info"):
            found = upload.submission.findings.with_waiver().filter(severity=severity).order_by("file", "line", "pk")
            rows.extend(FindingSerializer(with_waivers(found[:FINDINGS_PER_SEVERITY]), many=True).data)
        return rows

    @extend_schema_field(ResultSerializer(many=True))
    def get_results(self, upload: Upload) -> list[dict]:
        results = upload.submission.results.select_related("system", "benchmark", "submission__organization").order_by(
            "system__system_id", "benchmark__name"
        )
        return ResultSerializer(results, many=True).data


class StreamingUploadMixin:
    """Installs the hashing, disk-streaming upload handler before anything reads the body
    (SessionAuthentication's CSRF check reads request.POST, so it must be this early). Its
    precheck refuses, before the body is read, what the user and the query string already tell:
    the round and organization may be given as query parameters for that (the upload page does)."""

    # config.middleware.NulCharacterMiddleware leaves the body to the view (the serializer refuses NUL).
    streams_request_body = True

    def initialize_request(self, request, *args, **kwargs):
        def precheck():
            # By now the user is authenticated: the session's, or DRF's (token), which DRF also
            # sets on the Django request.
            return refusal_before_body(
                getattr(request, "user", None), request.GET.get("round", ""), request.GET.get("organization", "")
            )

        request.upload_handlers = [HashingUploadHandler(request, precheck=precheck)]
        return super().initialize_request(request, *args, **kwargs)


class SubmissionUploadView(StreamingUploadMixin, APIView):
    permission_classes = [IsAuthenticated]
    parser_classes = [MultiPartParser]
    throttle_classes = [OrganizationUploadThrottle]
    throttle_scope = "uploads"

    @extend_schema(
        operation_id="submissions_upload",
        summary="Upload a submission tarball",
        description=(
            "Uploads one submitter folder (MLCommons layout) for a round as .tar, .tar.gz/.tgz, .tar.xz or "
            ".zip. Each upload is a new version of the organization's submission. The archive is "
            "checked by a worker; poll `status_url` for progress, findings and scores."
        ),
        request={"multipart/form-data": UploadRequestSerializer},
        responses={
            201: ReceiptSerializer,
            400: OpenApiResponse(description="Not an accepted archive, unknown round or organization"),
            403: OpenApiResponse(description="Not a member, or the round is closed to you"),
            413: OpenApiResponse(description="Larger than UPLOAD_MAX_BYTES"),
            507: OpenApiResponse(description="The server has no space left to store it; nothing was kept"),
            409: OpenApiResponse(description="Identical to an earlier version (code `identical`): resend with confirm_identical"),
            429: OpenApiResponse(description="Upload rate or concurrent-job limit reached"),
            503: OpenApiResponse(description="The database or Redis is briefly unreachable; see Retry-After"),
        },
        examples=[
            OpenApiExample(
                "Receipt",
                response_only=True,
                value={
                    "id": 12,
                    "submission": 40,
                    "version": 2,
                    "round": "training-v1.0",
                    "organization": "alpha",
                    "original_name": "alpha.tar.gz",
                    "sha256": "9f2c...",
                    "size": 1048576,
                    "created_at": "2024-05-01T12:00:00Z",
                    "uploader": "owner",
                    "state": "received",
                    "status_url": "https://results.example.org/api/v1/uploads/12/",
                    "page_url": "https://results.example.org/submit/uploads/12/",
                },
            )
        ],
        tags=["submissions"],
    )
    def post(self, request):
        data = request.data  # parses the body now, streaming the file to disk (unless refused first)
        refused = getattr(request._request, "upload_refused", None)
        if refused is not None:
            return _error(str(refused), refused.status)
        if not hasattr(data, "dict"):  # no body, or JSON: an upload is a multipart form with the archive
            return _error("expected a multipart/form-data body with the archive in the `file` field", 400)
        form = UploadRequestSerializer(data={**request.query_params.dict(), **data.dict()})
        if not form.is_valid():
            return Response(form.errors, status=status.HTTP_400_BAD_REQUEST)
        try:
            round_, organization = upload_target(
                request.user, form.validated_data["round"], form.validated_data.get("organization", "")
            )
            upload = accept_upload(
                actor=request.user,
                round_=round_,
                organization=organization,
                uploaded_file=form.validated_data["file"],
                confirm_identical=form.validated_data["confirm_identical"],
            )
        except UploadRefused as exc:
            return _error(str(exc), exc.status, exc.code)
        except OSError as exc:  # storing the archive (MEDIA_ROOT or the bucket's disk) failed
            if not out_of_space(exc):
                raise
            log.error("upload refused: no space left to store it (%s)", exc)
            return _error(NO_SPACE_MESSAGE, 507)
        upload = Upload.objects.select_related("round", "organization", "uploaded_by", "job", "submission").get(
            pk=upload.pk
        )
        return Response(ReceiptSerializer(upload, context={"request": request}).data, status=201)


class UploadPermissionView(APIView):
    """Whether the caller may upload now, asked before a byte of the upload is sent: the proxy
    (deploy/nginx.conf, `auth_request`) asks it before it reads an upload's body, so an anonymous or
    refused client never costs it disk; a client may ask it too. The rule is the upload's own
    (ingest.services.refusal_before_body)."""

    # Asked by the proxy with this header: nginx's auth_request passes on only 2xx, 401 and 403,
    # so the refusal then answers 403 and carries its status and body in these headers.
    PROXY_HEADER = "X-Upload-Permission-Check"
    REFUSAL_HEADER = "X-Upload-Refusal"
    REFUSAL_STATUS_HEADER = "X-Upload-Refusal-Status"

    @extend_schema(
        operation_id="submissions_permission",
        summary="May I upload now?",
        description=(
            "The checks an upload gets before its body is read, without sending it: sign-in, membership and, "
            "when `round` (and `organization`) are given, the round being open to you and your organization's "
            "concurrent-job limit. 204 when an upload with the same query may be sent."
        ),
        parameters=[
            OpenApiParameter("round", str, description="Round slug, as the upload's `round`"),
            OpenApiParameter("organization", str, description="Organization slug, as the upload's `organization`"),
        ],
        responses={
            204: OpenApiResponse(description="You may upload"),
            400: OpenApiResponse(description="Unknown round, or an organization to choose"),
            403: OpenApiResponse(description="Not signed in, not a member, or the round is closed to you"),
            429: OpenApiResponse(description="Your organization's concurrent-job limit is reached"),
        },
        tags=["submissions"],
    )
    def get(self, request):
        if not request.user.is_authenticated:
            raise NotAuthenticated()
        refusal = refusal_before_body(request.user, request.GET.get("round", ""), request.GET.get("organization", ""))
        if refusal is not None:
            return _error(str(refusal), refusal.status, refusal.code)
        return Response(status=204)

    def finalize_response(self, request, response, *args, **kwargs):
        response = super().finalize_response(request, response, *args, **kwargs)
        if response.status_code >= 400 and request.headers.get(self.PROXY_HEADER):
            # ASCII JSON: a header value (no line breaks), returned by nginx as the upload's answer.
            response[self.REFUSAL_HEADER] = json.dumps(response.data)
            response[self.REFUSAL_STATUS_HEADER] = str(response.status_code)
            response.status_code = 403
        return response


class UploadListView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="uploads_list",
        summary="Uploads of my organizations",
        responses=ReceiptSerializer(many=True),
        tags=["submissions"],
    )
    def get(self, request):
        uploads = (
            Upload.objects.visible_to(request.user)
            .select_related("round", "organization", "uploaded_by", "job", "submission")
            .order_by("-created_at", "-pk")[:200]
        )
        return Response(ReceiptSerializer(uploads, many=True, context={"request": request}).data)


class UploadStatusView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="uploads_status",
        summary="Ingestion status, findings and scores of an upload",
        description="Findings and results appear once `job.state` is `done`. Other organizations' uploads are 404.",
        responses={
            200: UploadStatusSerializer,
            404: OpenApiResponse(description="No such upload visible to you"),
        },
        tags=["submissions"],
    )
    def get(self, request, pk: int):
        upload = get_object_or_404(
            Upload.objects.visible_to(request.user).select_related(
                "round", "organization", "uploaded_by", "job", "submission"
            ),
            pk=pk,
        )
        return Response(UploadStatusSerializer(upload, context={"request": request}).data)


def _error(message: str, status_code: int, code: str = "") -> Response:
    return Response({"detail": message, **({"code": code} if code else {})}, status=status_code)
