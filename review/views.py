"""Review pages. Thin: every read starts from a `visible_to(request.user)` queryset, every change
is one call to review.services; a refusal is shown with the status the service gives."""

from __future__ import annotations

from collections import Counter
from datetime import UTC

from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.db.models import Count, Exists, F, OuterRef, Q
from django.http import Http404, HttpResponseBadRequest
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.views.decorators.http import require_POST

from audit.models import AuditEvent
from audit.roles import PRIVILEGED_GROUPS, ROLE_GROUPS, is_chair
from mlperf_check.package import natural_key
from results import suites as results_suites
from results.audit_log import events_visible_to
from results.constants import ResultStatus, RoundState, Severity, Suite
from results.lookups import result_or_404, round_or_404
from results.models import Finding, Organization, Result, Round, Run, Submission, Waiver, version_order
from results.paging import PAGE_SIZE, linked, page_of
from results.services.lifecycle import ROUND_TRANSITIONS

from . import services
from .constants import BorrowingState, ObjectionOutcome, ObjectionState
from .diff import version_diff
from .findings import (
    finding_counts,
    findings_with_log_urls,
    log_line_url,
    read_finding_counts,
    severity_groups,
    with_waivers,
)
from .forms import RulesetForm
from .models import (
    BorrowingDeclaration,
    Notification,
    Objection,
    ResubmissionWindow,
    ReviewerAssignment,
    WithdrawalRequest,
)
from .preview import PREVIEW_STATES, preview_obligations, with_systems

QUEUE_PAGE_SIZE = PAGE_SIZE
PREVIEW_PAGE_SIZE = PAGE_SIZE
MAX_LINE = 2**31 - 1  # the evidence line's column is a PostgreSQL integer


def _refused(request, exc: services.ReviewRefused):
    return render(request, "review/refused.html", {"message": str(exc)}, status=exc.status)


# --- Reviewer queue ------------------------------------------------------------------------------


@login_required
def queue(request):
    """Every visible current result of a round with its automated findings and open objections,
    a page of QUEUE_PAGE_SIZE at a time (the page and the filters in the URL)."""
    user = request.user
    rounds = list(Round.objects.visible_to(user).exclude(state=RoundState.DRAFT).order_by(version_order("version").desc()))
    slug = request.GET.get("round") or next(
        (r.slug for r in rounds if r.state in (RoundState.REVIEW, RoundState.FINAL)), rounds[0].slug if rounds else ""
    )
    round_ = round_or_404(user, slug) if slug else None
    page, options = None, {}
    if round_ is not None:
        # Within the round's ids: a filter on findings was planned as a walk of every result by
        # id up to the newest round's (168 ms against 11 at 200,000 results).
        in_round = Result.objects.visible_to(user).current().in_round_within_its_ids(round_.suite, round_.version)
        chosen = {key: request.GET.get(key, "") for key in ("submitter", "benchmark", "checker", "severity", "state")}
        results = in_round
        if chosen["submitter"] == "assigned":
            results = results.filter(submission__organization__in=ReviewerAssignment.objects.filter(
                round=round_, reviewer=user).values("organization"))
        elif chosen["submitter"]:
            results = results.filter(submission__organization__slug=chosen["submitter"])
        if chosen["benchmark"]:
            results = results.filter(benchmark__name=chosen["benchmark"])
        # Filters on findings and objections as subqueries, so that a result is listed once.
        findings = {key: chosen[key] for key in ("checker", "severity") if chosen[key]}
        if findings:
            results = results.filter(Exists(Finding.objects.filter(result=OuterRef("pk"), **findings)))
        if chosen["state"] == "none":
            results = results.exclude(objections__isnull=False)
        elif chosen["state"]:
            results = results.filter(Exists(Objection.objects.filter(result=OuterRef("pk"), state=chosen["state"])))
        page = page_of(
            results.order_by("submission__organization__name", "benchmark__name", "system__name", "result_id", "pk")
            .values_list("pk", flat=True),
            request.GET, size=QUEUE_PAGE_SIZE, anchor="queue")
        # The counts for the page's results only: counted for every result of a large round
        # before the sort, they took most of a second (5,836 results).
        counted = Result.objects.filter(pk__in=page.rows).with_related().annotate(
            errors=Finding.objects.unwaived_errors_of(),
            warnings=Finding.objects.unwaived_of(Severity.WARNING),
            waived_errors=Finding.objects.waived_of(Severity.ERROR),
            waived_warnings=Finding.objects.waived_of(Severity.WARNING),
            open_objections=Count("objections", filter=~Q(objections__state=ObjectionState.RESOLVED), distinct=True),
        ).in_bulk()
        page.rows = [counted[pk] for pk in page.rows]
        listed = list(in_round.order_by().values_list(
            "submission__organization__slug", "submission__organization__name", "benchmark__name"))
        options = {
            "submitters": sorted({(slug, name) for slug, name, _ in listed}),
            "benchmarks": sorted({benchmark for *_, benchmark in listed}),
            "checkers": sorted(set(Finding.objects.filter(result__in=in_round.values("pk"))
                                   .order_by().values_list("checker", flat=True).distinct())),
            "severities": Severity.choices,
            "states": [*ObjectionState.choices, ("none", "No objection")],
            "chosen": chosen,
        }
    assignments = (
        ReviewerAssignment.objects.filter(round=round_).select_related("reviewer", "organization")
        if round_ is not None and services.is_reviewer(user) else []
    )
    return render(request, "review/queue.html", {
        "rounds": rounds, "round": round_, "page": page, "rows": page.rows if page else [], "options": options,
        "assignments": assignments, "is_chair": is_chair(user),
    })


# --- One result ----------------------------------------------------------------------------------


def result_review(request, result_id: str):
    """Runs, findings with their log lines, version history, objections, borrowing, waivers and
    the events of one citable result, with the actions the visitor may take."""
    user = request.user
    result = result_or_404(user, result_id)
    round_ = result.submission.round
    organization = result.submission.organization
    runs = sorted(result.runs.all(), key=lambda run: natural_key(run.file))  # result_2 before result_10
    versions = list(
        Result.objects.visible_to(user).filter(submission__round=round_, result_id=result_id)
        .select_related("submission").order_by("submission__version")
    )
    for previous, version in zip([None, *versions], versions, strict=False):
        version.previous_version = previous.submission.version if previous else None
    objections = list(
        Objection.objects.visible_to(user).filter(round=round_, result__result_id=result_id)
        .select_related("filed_by", "answered_by", "resolved_by", "filed_for", "run")
    )
    borrowings = list(
        BorrowingDeclaration.objects.visible_to(user).filter(round=round_, result_id=result_id)
        .select_related("lender_result__submission__organization", "declared_by", "decided_by")
    )
    for borrowing in borrowings:
        borrowing.mismatches_readable = services.may_read_mismatches(user, borrowing)
    logs = {run.file: run for run in runs if run.log_name}
    for objection in objections:
        objection.resolvable = services.may_resolve(user, objection)
        cited = logs.get(objection.evidence_file)
        objection.evidence_url = log_line_url(cited.sha256, objection.evidence_line or 1) if cited else ""
    member = services.member_of(user, organization)
    reviewer = services.is_reviewer(user) and not member
    in_review = round_.state == RoundState.REVIEW
    deadline_passed = bool(round_.borrowing_deadline and timezone.now() > round_.borrowing_deadline)
    can_declare = member and in_review and not deadline_passed and result.division == "closed" and not borrowings
    findings = findings_with_log_urls(result, runs)
    context = {
        "result": result,
        "round": round_,
        "organization": organization,
        "runs": runs,
        "findings": findings,
        "finding_groups": severity_groups(findings, read_finding_counts(findings)),
        "versions": versions,
        "objections": objections,
        "borrowings": borrowings,
        "waivers": Waiver.objects.filter(round=round_, organization=organization, system_id=result.system.system_id,
                                         benchmark=result.benchmark.name),
        "events": events_visible_to(user).with_shown_actor(user)
        .filter(round=round_, result_id=result_id).order_by("created_at"),
        "can_object": in_review and user.is_authenticated and not member and (
            reviewer or Organization.objects.filter(members=user).exists()),
        "can_answer": member,
        "can_decide": reviewer,
        "can_override": reviewer and is_chair(user),
        # Who decided is part of the review record: the review team and the organization read it.
        "show_decider": services.is_reviewer(user) or member,
        "withdrawals": WithdrawalRequest.objects.filter(round=round_, result_id=result_id)
        if member or is_chair(user) else [],
        "can_declare": can_declare,
        # Where a declared borrowing's resubmission goes: the window declaring it opened.
        "upload_window": ResubmissionWindow.objects.open_for(round_, organization).order_by("-closes_at").first()
        if member else None,
        "lenders": lender_choices(user, result) if can_declare else [],
        "can_withdraw": member and result.status == ResultStatus.ACTIVE,
        # The only way back for a withdrawn or removed result: a chair of another organization.
        "can_reinstate": result.status != ResultStatus.ACTIVE and is_chair(user) and not member,
        "outcomes": ObjectionOutcome.choices,
        "severities": Severity.choices,
        "waiver_kinds": [(kind.value, kind.label) for kind in services.waiver_kinds_for(user)],
        "shipped_factor_differs": result.shipped_factor_differs,
        "checked": BorrowingState.CHECKED,
        "open_state": ObjectionState.OPEN,
        "answered_state": ObjectionState.ANSWERED,
    }
    return render(request, "review/result.html", context)


def lender_choices(user, result: Result):
    """The results `result` may borrow hyperparameters from, as the borrower finds them on the
    pages: another organization's current closed result of the same benchmark in the round, one
    the borrower may read (peer review), never one it may not (the same queryset the declaration
    looks the lender up in)."""
    return list(
        _lenders(user, result).filter(benchmark__name=result.benchmark.name, division="closed",
                                      citable__status=ResultStatus.ACTIVE)
        .exclude(submission__organization=result.submission.organization_id).with_related()
        .order_by("submission__organization__name", "system__name", "result_id")
    )


def _lenders(user, result: Result):
    return Result.objects.visible_to(user).current().for_round(result.submission.round)


def version_diff_page(request, result_id: str):
    """?old=<version>&new=<version> (default: the two newest visible versions)."""
    user = request.user
    result = result_or_404(user, result_id)
    versions = {
        r.submission.version: r
        for r in Result.objects.visible_to(user).filter(submission__round=result.submission.round, result_id=result_id)
        .select_related("submission", "system")
    }
    numbers = sorted(versions)
    try:
        new = int(request.GET.get("new") or numbers[-1])
        old = int(request.GET.get("old") or (numbers[-2] if len(numbers) > 1 else numbers[-1]))
    except ValueError as exc:
        raise Http404("versions are numbers") from exc
    if old not in versions or new not in versions:
        raise Http404("no such version")
    return render(request, "review/diff.html", {"diff": version_diff(versions[old], versions[new]),
                                                "result": result, "numbers": numbers})


REPORT_LIMIT = 1000  # findings listed on a version's report page; the counts cover them all


def _visible_version(user, pk) -> Submission:
    submission = Submission.objects.visible_to(user).select_related("round", "organization").filter(pk=pk).first()
    if submission is None:
        raise Http404("no such version")
    return submission


def version_report(request, pk: int):
    """The checker's report of one version as the server stands by it: the package's own findings
    and each result's, every waived one with the decision that waived it, counts without them.
    A chair of another organization waives a package finding (one no result carries) here."""
    user = request.user
    submission = _visible_version(user, pk)
    # Findings of results the visitor may not read (withdrawn, removed) stay out, as the results do.
    findings = submission.findings.filter(
        Q(result__isnull=True) | Q(result__in=Result.objects.visible_to(user).filter(submission=submission))
    )
    package_first = F("result__result_id").asc(nulls_first=True)
    listed = with_waivers(
        findings.with_waiver().select_related("result").order_by(package_first, "file", "line", "pk")[:REPORT_LIMIT]
    )
    package = [f for f in listed if f.result_id is None]
    return render(request, "review/version.html", {
        "submission": submission,
        "round": submission.round,
        "counts": finding_counts(findings),
        "total": findings.count(),
        "package_findings": package,
        "result_findings": [f for f in listed if f.result_id is not None],
        "waivable_codes": sorted({f.code for f in package if f.waiver is None}),
        "can_waive": is_chair(user) and not services.member_of(user, submission.organization),
        "limit": REPORT_LIMIT,
    })


def objection_detail(request, pk: int):
    objection = (
        Objection.objects.visible_to(request.user).select_related("result", "organization", "filed_by", "round")
        .filter(pk=pk).first()
    )
    if objection is None:
        raise Http404("no such objection")
    if objection.result is not None:
        return redirect(f"{reverse('review:result', args=[objection.result.result_id])}#objection-{pk}")
    return render(request, "review/objection.html", {"objection": objection})


# --- Actions -------------------------------------------------------------------------------------


def _act(request, call, back: str):
    """Run one service call; then back to `back` (a URL), or the refusal with its status."""
    try:
        call()
    except services.ReviewRefused as exc:
        return _refused(request, exc)
    return redirect(back)


def _page_of(objection: Objection) -> str:
    if objection.result is not None:
        return reverse("review:result", args=[objection.result.result_id])
    return reverse("review:objection", args=[objection.pk])


def _visible_objection(user, pk) -> Objection:
    objection = Objection.objects.visible_to(user).filter(pk=pk).select_related("result").first()
    if objection is None:
        raise Http404("no such objection")
    return objection


@login_required
@require_POST
def file_objection(request, result_id: str):
    result = result_or_404(request.user, result_id)
    data = request.POST
    run_pk, line = data.get("run", ""), data.get("evidence_line", "")
    run = Run.objects.filter(result=result, pk=run_pk).first() if run_pk.isdigit() else None
    if run_pk and run is None:
        return _refused(request, services.ReviewRefused("no such run in this result", status=400))
    if line and not (line.isdigit() and 0 < int(line) <= MAX_LINE):
        return _refused(request, services.ReviewRefused(f"the line is a number from 1 to {MAX_LINE}", status=400))
    return _act(request, lambda: services.file_objection(
        request.user, result=result, run=run, rule=data.get("rule", ""), evidence=data.get("evidence", ""),
        evidence_file=data.get("evidence_file", ""), evidence_line=int(line) if line else None,
        severity=data.get("severity") if data.get("severity") in Severity.values else Severity.ERROR,
    ), reverse("review:result", args=[result_id]))


@login_required
@require_POST
def answer_objection(request, pk: int):
    objection = _visible_objection(request.user, pk)
    return _act(request, lambda: services.answer_objection(request.user, objection, request.POST.get("answer", "")),
                _page_of(objection))


@login_required
@require_POST
def resolve_objection(request, pk: int):
    objection = _visible_objection(request.user, pk)
    return _act(request, lambda: services.resolve_objection(
        request.user, objection, request.POST.get("outcome", ""), request.POST.get("reason", "")),
        _page_of(objection))


@login_required
@require_POST
def grant_waiver(request, result_id: str):
    result = result_or_404(request.user, result_id)
    return _act(request, lambda: services.grant_waiver(
        request.user, result, request.POST.get("kind", ""), request.POST.get("reason", ""),
        code=request.POST.get("code", "")),
        reverse("review:result", args=[result_id]))


@login_required
@require_POST
def waive_package_findings(request, pk: int):
    submission = _visible_version(request.user, pk)
    return _act(request, lambda: services.waive_package_findings(
        request.user, submission, request.POST.get("code", ""), request.POST.get("reason", "")),
        reverse("review:version", args=[pk]))


@login_required
@require_POST
def decide_shipped_factor(request, result_id: str):
    result = result_or_404(request.user, result_id)
    accept = request.POST.get("decision") == "accept"
    return _act(request, lambda: services.decide_shipped_factor(
        request.user, result, accept, request.POST.get("reason", "")),
        reverse("review:result", args=[result_id]))


@login_required
@require_POST
def withdraw(request, result_id: str):
    result = result_or_404(request.user, result_id)
    return _act(request, lambda: services.withdraw_result(request.user, result, request.POST.get("reason", "")),
                reverse("review:result", args=[result_id]))


@login_required
@require_POST
def reinstate(request, result_id: str):
    result = result_or_404(request.user, result_id)
    return _act(request, lambda: services.reinstate_result(request.user, result, request.POST.get("reason", "")),
                reverse("review:result", args=[result_id]))


@login_required
@require_POST
def decide_withdrawal(request, pk: int):
    withdrawal = WithdrawalRequest.objects.filter(pk=pk).first()
    if withdrawal is None or not is_chair(request.user):
        raise Http404("no such withdrawal request")
    approve = request.POST.get("decision") == "approve"
    return _act(request, lambda: services.decide_withdrawal(request.user, withdrawal, approve,
                                                            request.POST.get("reason", "")),
                reverse("review:result", args=[withdrawal.result_id]))


@login_required
@require_POST
def declare_borrowing(request, result_id: str):
    result = result_or_404(request.user, result_id)
    # The lender is one the borrower may read (peer review): the answer tells nothing of others.
    lender = _lenders(request.user, result).filter(result_id=request.POST.get("lender", "").strip()).first()
    if lender is None:
        return _refused(request, services.ReviewRefused("no such lender result", status=400))
    return _act(request, lambda: services.declare_borrowing(request.user, result, lender),
                reverse("review:result", args=[result_id]))


@login_required
@require_POST
def decide_borrowing(request, pk: int):
    declaration = BorrowingDeclaration.objects.visible_to(request.user).filter(pk=pk).first()
    if declaration is None:
        raise Http404("no such borrowing")
    approve = request.POST.get("decision") == "approve"
    return _act(request, lambda: services.decide_borrowing(request.user, declaration, approve,
                                                           request.POST.get("reason", "")),
                reverse("review:result", args=[declaration.result_id]))


@login_required
@require_POST
def override_borrowing(request, pk: int):
    declaration = BorrowingDeclaration.objects.visible_to(request.user).filter(pk=pk).first()
    if declaration is None:
        raise Http404("no such borrowing")
    return _act(request, lambda: services.override_rejected_borrowing(request.user, declaration,
                                                                      request.POST.get("reason", "")),
                reverse("review:result", args=[declaration.result_id]))


# --- Chairs: the round ---------------------------------------------------------------------------


DATE_FIELDS = ("submission_deadline", "borrowing_deadline", "publish_at")


def _date(text: str):
    """An ISO date and time (UTC when it names no zone), None for "", ReviewRefused otherwise."""
    if not text.strip():
        return None
    try:
        value = parse_datetime(text.strip())
    except ValueError:
        value = None
    if value is None:
        raise services.ReviewRefused(f"{text!r} is not a date and time like 2026-05-01T12:00:00Z", status=400)
    return value if timezone.is_aware(value) else timezone.make_aware(value, UTC)


def _by_pk(queryset, pk):
    return queryset.filter(pk=pk).first() if str(pk or "").isdigit() else None


def _chair_refusal(request, doing: str):
    """The refusal every chair page gives anyone else, or None for a chair."""
    if is_chair(request.user):
        return None
    return _refused(request, services.ReviewRefused(f"only chairs {doing}"))


@login_required
def rounds(request):
    """Chairs: every round, drafts included, with its suite, ruleset and state."""
    if refusal := _chair_refusal(request, "manage rounds"):
        return refusal
    every_round = Round.objects.annotate(benchmark_count=Count("benchmarks")).order_by(
        "suite", version_order("version").desc())
    return render(request, "review/rounds.html", {"rounds": every_round})


@login_required
def new_round(request):
    """A chair creates a round: suite, version, a ruleset of that suite (its benchmarks come from
    it; none chosen: the one of the version), dates. A refusal shows the form again with why."""
    if refusal := _chair_refusal(request, "create rounds"):
        return refusal
    fields = ("suite", "version", "ruleset_version", "reason", *DATE_FIELDS)
    values = {name: request.POST.get(name, "") for name in fields}
    error, status = "", 200
    if request.method == "POST":
        round_ = Round(suite=values["suite"], version=values["version"], ruleset_version=values["ruleset_version"])
        try:
            dates = {name: _date(values[name]) for name in DATE_FIELDS}
            with transaction.atomic():
                services.create_round(request.user, round_, values["reason"])
                if any(dates.values()):
                    services.set_round_dates(request.user, round_, values["reason"], **dates)
        except services.ReviewRefused as exc:
            error, status = str(exc), exc.status
        else:
            return redirect("review:round", round_.slug)
    return render(request, "review/new_round.html", {
        "suites": Suite.choices,
        "values": values,
        "ruleset_form": RulesetForm(initial={"ruleset_version": values["ruleset_version"]}),
        "error": error,
    }, status=status)


@login_required
def round_control(request, slug: str):
    """Chairs move the round, set its dates and ruleset, assign reviewers, grant resubmission
    windows and publish or release versions; the page shows its rules and benchmarks."""
    if refusal := _chair_refusal(request, "manage rounds"):
        return refusal
    round_ = round_or_404(request.user, slug)
    if request.method == "POST":
        action = request.POST.get("action")
        reason = request.POST.get("reason", "")
        try:
            if action == "move":
                services.move_round(request.user, round_, request.POST.get("state", ""), reason)
            elif action == "dates":
                dates = {name: _date(request.POST[name]) for name in DATE_FIELDS if name in request.POST}
                services.set_round_dates(request.user, round_, reason, **dates)
            elif action == "ruleset":
                services.change_ruleset(request.user, round_, request.POST.get("ruleset_version", ""), reason)
            elif action == "assign":
                services.assign_reviewer(
                    request.user, round_, _by_pk(get_user_model().objects, request.POST.get("reviewer")),
                    _by_pk(Organization.objects, request.POST.get("organization")),
                )
            elif action == "window":
                organization = _by_pk(Organization.objects, request.POST.get("organization"))
                closes_at = _date(request.POST.get("closes_at", ""))
                if organization is None or closes_at is None:
                    raise services.ReviewRefused("a window is for an organization, until a date", status=400)
                services.grant_resubmission_window(request.user, round_, organization, closes_at, reason)
            elif action == "publish_version":
                submission = _by_pk(Submission.objects.filter(round=round_), request.POST.get("submission"))
                if submission is None:
                    raise services.ReviewRefused("no such version in this round", status=400)
                services.publish_fix(request.user, submission, reason)
            elif action == "release":
                submission = _by_pk(Submission.objects.filter(round=round_), request.POST.get("submission"))
                if submission is None:
                    raise services.ReviewRefused("no such version in this round", status=400)
                services.release_held_version(request.user, submission, reason)
            else:
                raise services.ReviewRefused(f"unknown action {action!r}", status=400)
        except services.ReviewRefused as exc:
            return _refused(request, exc)
        return redirect("review:round", slug)
    return render(request, "review/round.html", {
        "round": round_,
        "suite": results_suites.of(round_),
        "benchmarks": round_.benchmarks.order_by("name"),
        "ruleset_form": RulesetForm(suites=[round_.suite], empty=False,
                                    initial={"ruleset_version": round_.ruleset_version}),
        "ruleset_changes": round_.state in (RoundState.DRAFT, RoundState.OPEN),
        "next_states": sorted(ROUND_TRANSITIONS[round_.state]),
        "events": AuditEvent.objects.filter(round=round_).order_by("-created_at")[:50],
        "submissions": Submission.objects.filter(round=round_).select_related("organization")
        .order_by("organization__name", "-version"),
        "reviewers": get_user_model().objects.filter(groups__name__in=PRIVILEGED_GROUPS).distinct(),
        "organizations": Organization.objects.filter(submissions__round=round_).distinct(),
        "all_organizations": Organization.objects.order_by("name"),
        "assignments": ReviewerAssignment.objects.filter(round=round_).select_related("reviewer", "organization"),
        "windows": ResubmissionWindow.objects.filter(round=round_).select_related("organization", "granted_by"),
        "borrowings": BorrowingDeclaration.objects.filter(round=round_)
        .select_related("organization", "lender_result__submission__organization").order_by("result_id"),
        "now": timezone.now(),
    })


# --- Chairs: people --------------------------------------------------------------------------------


@login_required
def people(request):
    """Chairs give organizations their members and people their review roles (the same services
    as `manage.py add_member` / `grant_role` and the admin's user actions: audited)."""
    if refusal := _chair_refusal(request, "manage people"):
        return refusal
    users = get_user_model().objects
    if request.method == "POST":
        action = request.POST.get("action")
        username = request.POST.get("username", "").strip()
        add = request.POST.get("change") != "remove"
        try:
            user = users.filter(username=username).first()
            if user is None:
                raise services.ReviewRefused(f"no user {username!r}", status=400)
            if action == "member":
                organization = _by_pk(Organization.objects, request.POST.get("organization"))
                if organization is None:
                    raise services.ReviewRefused("choose the organization", status=400)
                services.set_membership(request.user, user, organization, member=add)
            elif action == "role":
                services.set_role(request.user, user, request.POST.get("role", ""), granted=add)
            else:
                raise services.ReviewRefused(f"unknown action {action!r}", status=400)
        except services.ReviewRefused as exc:
            return _refused(request, exc)
        return redirect("review:people")
    listed = (users.filter(organizations__isnull=False) | users.filter(groups__name__in=PRIVILEGED_GROUPS)
              | users.filter(is_staff=True) | users.filter(is_superuser=True))
    return render(request, "review/people.html", {
        "people": listed.distinct().prefetch_related("organizations", "groups").order_by("username"),
        "organizations": Organization.objects.order_by("name"),
        "roles": ROLE_GROUPS,
    })


# --- Preview systems ------------------------------------------------------------------------------


def preview_systems(request):
    """Which preview systems became available in time, which are pending and which are overdue:
    a page of them at a time, of one state where the URL names it (`?state=overdue`)."""
    state = request.GET.get("state", "")
    if state and state not in PREVIEW_STATES:
        return HttpResponseBadRequest(f"'state' must be one of {', '.join(PREVIEW_STATES)}, not {state[:20]!r}",
                                      content_type="text/plain; charset=utf-8")
    obligations = preview_obligations(request.user)
    counts = Counter(o.state for o in obligations)
    page = page_of([o for o in obligations if o.state == state] if state else obligations, request.GET,
                   size=PREVIEW_PAGE_SIZE, anchor="preview-systems")
    return render(request, "review/preview.html", {
        "page": page, "obligations": with_systems(page.rows), "state": state, "total": len(obligations),
        "states": [(name, counts[name], linked(request.GET, state=name, page=None)) for name in PREVIEW_STATES],
        "all_url": linked(request.GET, state=None, page=None),
    })


# --- Inbox ---------------------------------------------------------------------------------------


@login_required
def inbox(request):
    if request.method == "POST":
        services.mark_read(request.user)
        return redirect("review:inbox")
    notifications = Notification.objects.filter(user=request.user)[:200]
    return render(request, "review/inbox.html", {"notifications": notifications})
