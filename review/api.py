"""Review API under /api/v1/review/: objections, answers, resolutions, borrowing, audit events, so
organizations can script their answers. Thin: visibility from the `visible_to` querysets, every
change one call to review.services (its refusal's status and message are the response)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.generics import ListAPIView
from rest_framework.pagination import PageNumberPagination
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from audit.models import AuditEvent
from results.audit_log import events_visible_to
from results.constants import Severity
from results.models import Result, Round, Run, Submission
from results.querysets import RoundSlugError

from . import services
from .constants import ObjectionOutcome
from .findings import waivers_document
from .models import BorrowingDeclaration, Objection

REFUSALS = {
    400: OpenApiResponse(description="Missing or invalid fields"),
    403: OpenApiResponse(description="Not allowed: role or conflict of interest"),
    404: OpenApiResponse(description="No such object visible to you"),
    409: OpenApiResponse(description="Not in a state that allows it (transition tables)"),
}


class ReviewPagination(PageNumberPagination):
    page_size = 100


def _refused(exc: services.ReviewRefused) -> Response:
    return Response({"detail": str(exc)}, status=exc.status)


def _missing(what: str) -> Response:
    return Response({"detail": f"no such {what}"}, status=404)


class ObjectionSerializer(serializers.ModelSerializer):
    round = serializers.CharField(source="round.slug")
    organization = serializers.CharField(source="organization.slug", help_text="The accused organization")
    result = serializers.CharField(source="result.result_id", allow_null=True)
    run = serializers.CharField(source="run.file", allow_null=True)
    system = serializers.CharField(source="system.system_id", allow_null=True)
    filed_by = serializers.CharField(source="filed_by.username")
    answered_by = serializers.CharField(source="answered_by.username", allow_null=True)
    resolved_by = serializers.CharField(source="resolved_by.username", allow_null=True)

    class Meta:
        model = Objection
        fields = [
            "id", "round", "organization", "result", "run", "system", "rule", "evidence", "evidence_file",
            "evidence_line", "severity", "state", "outcome", "filed_by", "created_at", "answer", "answered_by",
            "answered_at", "resolution", "resolved_by", "resolved_at",
        ]


class FileObjectionSerializer(serializers.Serializer):
    result = serializers.CharField(help_text="Citable result id, e.g. 1.0-0042 (its current version)")
    run = serializers.CharField(required=False, allow_blank=True, help_text="Result file path of one run")
    rule = serializers.CharField(max_length=255)
    evidence = serializers.CharField()
    evidence_file = serializers.CharField(required=False, allow_blank=True, max_length=512)
    evidence_line = serializers.IntegerField(required=False, min_value=1, max_value=2**31 - 1, allow_null=True)
    severity = serializers.ChoiceField(choices=Severity.choices, default=Severity.ERROR)


class AnswerSerializer(serializers.Serializer):
    answer = serializers.CharField()


class ResolveSerializer(serializers.Serializer):
    outcome = serializers.ChoiceField(choices=ObjectionOutcome.choices)
    reason = serializers.CharField()


class BorrowingSerializer(serializers.ModelSerializer):
    round = serializers.CharField(source="round.slug")
    organization = serializers.CharField(source="organization.slug")
    benchmark = serializers.CharField(source="benchmark.name")
    lender = serializers.CharField(source="lender_result.result_id")
    checked_version = serializers.IntegerField(source="checked_submission.version", allow_null=True)
    decided_by = serializers.CharField(source="decided_by.username", allow_null=True)
    mismatches = serializers.SerializerMethodField(
        help_text="The check's differences (the lender's unpublished values): reviewers and chairs, during review"
    )

    def get_mismatches(self, declaration) -> list[dict] | None:
        return declaration.mismatches if services.may_read_mismatches(self.context.get("user"), declaration) else None

    class Meta:
        model = BorrowingDeclaration
        fields = [
            "id", "round", "organization", "benchmark", "system_id", "result_id", "lender", "state",
            "checked_version", "mismatches", "declared_at", "decided_by", "decided_at", "decision_reason",
        ]


class DeclareBorrowingSerializer(serializers.Serializer):
    result = serializers.CharField(help_text="Your closed-division result id")
    lender = serializers.CharField(help_text="The lender's result id, same round and benchmark")


class DecideBorrowingSerializer(serializers.Serializer):
    approve = serializers.BooleanField()
    reason = serializers.CharField()


class EventSerializer(serializers.ModelSerializer):
    actor_name = serializers.CharField(source="shown_actor", help_text="Empty where you may not learn who acted")
    round = serializers.CharField(source="round.slug", allow_null=True)
    organization = serializers.CharField(source="organization.slug", allow_null=True)
    version = serializers.IntegerField(source="submission.version", allow_null=True)

    id = serializers.UUIDField(source="public_id", read_only=True, help_text=(
        "The event's public name: random, so the numbering reveals nothing about events you may not read"))

    class Meta:
        model = AuditEvent
        fields = ["id", "created_at", "kind", "actor_name", "round", "organization", "version", "result_id",
                  "subject", "reason", "data"]


def _current_result(user, result_id: str) -> Result | None:
    return Result.objects.visible_to(user).current().filter(result_id=result_id).with_related().first()


class ObjectionListView(APIView):
    pagination_class = ReviewPagination

    @extend_schema(
        summary="Objections you may read",
        parameters=[OpenApiParameter("round", str, description="e.g. training-v1.0"),
                    OpenApiParameter("result", str, description="Citable result id"),
                    OpenApiParameter("state", str)],
        responses=ObjectionSerializer(many=True), tags=["review"],
    )
    def get(self, request):
        objections = Objection.objects.visible_to(request.user).select_related(
            "round", "organization", "result", "run", "system", "filed_by", "answered_by", "resolved_by"
        ).order_by("-pk")
        if request.query_params.get("result"):
            objections = objections.filter(result__result_id=request.query_params["result"])
        if request.query_params.get("state"):
            objections = objections.filter(state=request.query_params["state"])
        if request.query_params.get("round"):
            try:
                objections = objections.filter(round__in=Round.objects.with_slug(request.query_params["round"]))
            except RoundSlugError as exc:
                return Response({"detail": str(exc)}, status=400)
        paginator = ReviewPagination()
        page = paginator.paginate_queryset(objections, request, view=self)
        return paginator.get_paginated_response(ObjectionSerializer(page, many=True).data)

    @extend_schema(
        summary="File an objection against a result or one of its runs",
        request=FileObjectionSerializer, responses={201: ObjectionSerializer, 401: None, **REFUSALS}, tags=["review"],
    )
    def post(self, request):
        if not request.user.is_authenticated:
            return Response({"detail": "sign in to file an objection"}, status=401)
        form = FileObjectionSerializer(data=request.data)
        if not form.is_valid():
            return Response(form.errors, status=400)
        data = form.validated_data
        result = _current_result(request.user, data["result"])
        if result is None:
            return _missing("result")
        run = None
        if data.get("run"):
            run = Run.objects.filter(result=result, file=data["run"]).first()
            if run is None:
                return _missing("run in that result")
        try:
            objection = services.file_objection(
                request.user, result=result, run=run, rule=data["rule"], evidence=data["evidence"],
                evidence_file=data.get("evidence_file", ""), evidence_line=data.get("evidence_line"),
                severity=data["severity"],
            )
        except services.ReviewRefused as exc:
            return _refused(exc)
        return Response(ObjectionSerializer(objection).data, status=201)


class ObjectionDetailView(APIView):
    @extend_schema(summary="One objection", responses={200: ObjectionSerializer, 404: REFUSALS[404]}, tags=["review"])
    def get(self, request, pk: int):
        objection = Objection.objects.visible_to(request.user).filter(pk=pk).first()
        return Response(ObjectionSerializer(objection).data) if objection else _missing("objection")


class ObjectionAnswerView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(summary="Answer an objection against your organization", request=AnswerSerializer,
                   responses={200: ObjectionSerializer, **REFUSALS}, tags=["review"])
    def post(self, request, pk: int):
        objection = Objection.objects.visible_to(request.user).filter(pk=pk).first()
        if objection is None:
            return _missing("objection")
        form = AnswerSerializer(data=request.data)
        if not form.is_valid():
            return Response(form.errors, status=400)
        try:
            objection = services.answer_objection(request.user, objection, form.validated_data["answer"])
        except services.ReviewRefused as exc:
            return _refused(exc)
        return Response(ObjectionSerializer(objection).data)


class ObjectionResolveView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(summary="Resolve an answered objection (reviewers and chairs of neither organization)",
                   request=ResolveSerializer, responses={200: ObjectionSerializer, **REFUSALS}, tags=["review"])
    def post(self, request, pk: int):
        objection = Objection.objects.visible_to(request.user).filter(pk=pk).first()
        if objection is None:
            return _missing("objection")
        form = ResolveSerializer(data=request.data)
        if not form.is_valid():
            return Response(form.errors, status=400)
        try:
            objection = services.resolve_objection(
                request.user, objection, form.validated_data["outcome"], form.validated_data["reason"]
            )
        except services.ReviewRefused as exc:
            return _refused(exc)
        return Response(ObjectionSerializer(objection).data)


class BorrowingListView(APIView):
    @extend_schema(summary="Borrowing declarations you may read", responses=BorrowingSerializer(many=True),
                   tags=["review"])
    def get(self, request):
        declarations = BorrowingDeclaration.objects.visible_to(request.user).select_related(
            "round", "organization", "benchmark", "lender_result", "checked_submission", "decided_by"
        ).order_by("-pk")
        paginator = ReviewPagination()
        page = paginator.paginate_queryset(declarations, request, view=self)
        return paginator.get_paginated_response(
            BorrowingSerializer(page, many=True, context={"user": request.user}).data
        )

    @extend_schema(summary="Declare that your result borrows another submitter's hyperparameters",
                   request=DeclareBorrowingSerializer, responses={201: BorrowingSerializer, 401: None, **REFUSALS},
                   tags=["review"])
    def post(self, request):
        if not request.user.is_authenticated:
            return Response({"detail": "sign in to declare borrowing"}, status=401)
        form = DeclareBorrowingSerializer(data=request.data)
        if not form.is_valid():
            return Response(form.errors, status=400)
        result = _current_result(request.user, form.validated_data["result"])
        if result is None:
            return _missing("result")
        # Only a result the borrower may read (peer review: every submission of the round after
        # the deadline): the answer never tells whether an id it may not read exists, nor its benchmark.
        lender = Result.objects.visible_to(request.user).current().for_round(result.submission.round).filter(
            result_id=form.validated_data["lender"]).first()
        if lender is None:
            return _missing("lender result")
        try:
            declaration = services.declare_borrowing(request.user, result, lender)
        except services.ReviewRefused as exc:
            return _refused(exc)
        return Response(BorrowingSerializer(declaration, context={"user": request.user}).data, status=201)


class BorrowingDecideView(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(summary="Approve or reject a checked borrowing (reviewers of another organization)",
                   request=DecideBorrowingSerializer, responses={200: BorrowingSerializer, **REFUSALS},
                   tags=["review"])
    def post(self, request, pk: int):
        declaration = BorrowingDeclaration.objects.visible_to(request.user).filter(pk=pk).first()
        if declaration is None:
            return _missing("borrowing")
        form = DecideBorrowingSerializer(data=request.data)
        if not form.is_valid():
            return Response(form.errors, status=400)
        try:
            declaration = services.decide_borrowing(
                request.user, declaration, form.validated_data["approve"], form.validated_data["reason"]
            )
        except services.ReviewRefused as exc:
            return _refused(exc)
        return Response(BorrowingSerializer(declaration, context={"user": request.user}).data)


class VersionWaiversView(APIView):
    @extend_schema(
        summary="The decisions that waive findings of a version, for `mlperf-check --waivers FILE`",
        description="A JSON document: round, organization, version and `waivers`, each with the checker "
                    "(a bypass) or the finding code (a known false positive) it covers, on which system and "
                    "benchmark (both empty: the package's own findings), its reason and date.",
        responses={200: dict, 404: REFUSALS[404]}, tags=["review"],
    )
    def get(self, request, pk: int):
        submission = Submission.objects.visible_to(request.user).select_related("round", "organization").filter(
            pk=pk).first()
        return Response(waivers_document(submission)) if submission else _missing("version")


class EventListView(ListAPIView):
    """The audit trail you may read: everything for reviewers and chairs, your organizations'
    events, and the events of published results."""

    serializer_class = EventSerializer
    pagination_class = ReviewPagination

    @extend_schema(parameters=[OpenApiParameter("result", str, description="Citable result id")], tags=["review"])
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    def get_queryset(self):
        events = events_visible_to(self.request.user).with_shown_actor(self.request.user).select_related(
            "round", "organization", "submission"
        ).order_by("created_at", "pk")
        if self.request.query_params.get("result"):
            events = events.filter(result_id=self.request.query_params["result"])
        return events
