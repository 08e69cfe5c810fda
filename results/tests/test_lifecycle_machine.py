"""The lifecycle's invariants under random sequences of what people do (issue 34, docs/lifecycle.md).

A hypothesis RuleBasedStateMachine drives one round through the services the pages and the API
call: uploads as an ingestion job finishes them (results/tests/synthetic.py; with and without files
speaking for another organization), round moves, late fixes published by a chair, releases of held
versions, withdrawal requests and decisions, objections resolved "removed" or dismissed,
reinstatements and waivers, as the personas who may (a refusal, ReviewRefused, is a legitimate
outcome). After every step it checks:

* each citable id's status is the one its events say (withdrawn, removed, reinstated, replayed);
* a withdrawn or removed result is in no public answer: the queryset, the API's list and the
  result's page;
* every version the change log names is a published one, and "before" was published before it;
* every public result id has one current version;
* ids are never reused nor lost, and no id is registered by a held version;
* embargo: nothing of an unpublished round is visible to the public or to an organization that did
  not submit (queryset, audit log, round page);
* every observed change of a round, a citable result or a version is one of the tables' of
  results.services.lifecycle.

Budget: derandomized (a fixed seed: the same examples in CI on every run), EXAMPLES = 12 examples
of at most STEPS = 25 steps each after the round's set-up (which starts each example open, in
review, final or published, with a first version from one or both submitters): about 45 s on a
2-core machine. Raise them to search harder, e.g. LIFECYCLE_EXAMPLES=200 LIFECYCLE_STEPS=40 (still
derandomized: a failure found so is found again by the same command).
"""

from __future__ import annotations

import os
import re
import uuid
from collections import Counter
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.db import transaction
from django.test import Client
from django.utils import timezone
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from audit import events
from audit.models import AuditEvent
from mlperf_check.checkers.uploader import SYSTEM_SUBMITTER_NOT_UPLOADER
from pages import caching
from pages.changelog import public_changes
from results.audit_log import events_visible_to
from results.constants import ResultStatus, RoundState
from results.models import CitableId, Organization, Result, Round, Submission
from results.services.lifecycle import RESULT_TRANSITIONS, ROUND_TRANSITIONS, VERSION_TRANSITIONS
from results.states import VersionState, version_state
from results.tests.factories import make_round
from results.tests.synthetic import ingest_synthetic, synthetic_package
from review import services
from review.constants import WithdrawalState
from review.models import WithdrawalRequest
from review.services import ReviewRefused

pytestmark = [pytest.mark.django_db, pytest.mark.slow(minutes=1.5)]

EXAMPLES = int(os.environ.get("LIFECYCLE_EXAMPLES", 12))
STEPS = int(os.environ.get("LIFECYCLE_STEPS", 25))
BENCHMARKS = ("bert", "resnet")
# The events that set a citable result's status, and the status each sets.
STATUS_EVENTS = {
    events.RESULT_WITHDRAWN: ResultStatus.WITHDRAWN,
    events.RESULT_REMOVED: ResultStatus.REMOVED,
    events.RESULT_REINSTATED: ResultStatus.ACTIVE,
}
NEXT_ROUND_STATE = {current: next(iter(after)) for current, after in ROUND_TRANSITIONS.items() if after}


def reachable(table: dict, start: str, end: str) -> bool:
    """Whether `end` follows `start` along `table` in one step or more (a step of the machine may
    take a version through several: written then held, released then made current)."""
    seen, frontier = set(), [start]
    while frontier:
        for following in table.get(frontier.pop(), ()):
            if following == end:
                return True
            if following not in seen:
                seen.add(following)
                frontier.append(following)
    return False


class Lifecycle(RuleBasedStateMachine):
    """One round, two submitting organizations (Alpha, Beta), a bystander organization that never
    submits, a reviewer and a chair of no organization. Each example runs in a savepoint that is
    rolled back at its end."""

    people: dict = {}  # set by the test: the personas

    def __init__(self):
        super().__init__()
        self.atomic = transaction.atomic()
        self.atomic.__enter__()
        self.cache_prefix, caching.KEY_PREFIX = caching.KEY_PREFIX, f"{caching.KEY_PREFIX}-{uuid.uuid4().hex}"
        self.client = Client()
        self.registry: dict[str, tuple] = {}  # every result id ever seen -> the result it names
        self.versions: dict[int, str] = {}
        self.statuses: dict[int, str] = {}
        self.round_state = RoundState.DRAFT

    def teardown(self):
        caching.KEY_PREFIX = self.cache_prefix
        transaction.set_rollback(True)
        self.atomic.__exit__(None, None, None)

    @initialize(start=st.sampled_from([RoundState.OPEN, RoundState.REVIEW, RoundState.FINAL, RoundState.PUBLISHED]),
                submitters=st.sets(st.sampled_from(["alpha", "beta"]), min_size=1))
    def make_the_round(self, start, submitters):
        """A draft round opened, a first version from each submitter, then moved on to `start`: every
        example starts where something can happen, whatever the number of steps it draws."""
        self.round = make_round("1.1", state=RoundState.DRAFT, benchmarks=BENCHMARKS)
        self.move_the_round()
        for org in sorted(submitters):
            self.upload(org, ("a",), set(BENCHMARKS), foreign=False, minutes=30.0)
        while self.round.state != start:
            self.move_the_round()
        self.round_state = self.round.state

    # --- what people do ------------------------------------------------------------------------

    @precondition(lambda self: self.round_state in (RoundState.OPEN, RoundState.REVIEW, RoundState.PUBLISHED))
    @rule(org=st.sampled_from(["alpha", "beta"]), systems=st.sampled_from([("a",), ("a", "b"), ("b",)]),
          benchmarks=st.sets(st.sampled_from(BENCHMARKS), min_size=1), foreign=st.booleans(),
          minutes=st.sampled_from([20.0, 30.0]))
    def upload(self, org, systems, benchmarks, foreign, minutes):
        organization = self.people[org]
        if services.upload_refusal(round_=self.round, organization=organization):
            # Past the deadline a chair grants a resubmission window (a fix required, a late fix).
            services.grant_resubmission_window(self.people["chair"], self.round, organization,
                                               timezone.now() + timedelta(days=1), "a fix")
        report = synthetic_package(organization, {f"{org}-{s}": sorted(benchmarks) for s in systems},
                                   speaks_for="NVIDIA" if foreign else "", minutes=minutes)
        ingest_synthetic(self.round, organization, report, uploaded_by=self.member(org))

    @precondition(lambda self: self.round_state != RoundState.PUBLISHED)
    @rule()
    def move_the_round(self):
        services.move_round(self.people["chair"], self.round, NEXT_ROUND_STATE[self.round.state], "on schedule")
        self.round.refresh_from_db()

    @rule(data=st.data())
    def publish_a_fix(self, data):
        versions = list(Submission.objects.filter(round=self.round).order_by("pk"))
        if versions:
            self.refusable(services.publish_fix, self.people["chair"], data.draw(st.sampled_from(versions)), "a fix")

    @rule(data=st.data())
    def release_a_held_version(self, data):
        held = list(Submission.objects.filter(round=self.round).exclude(held_reason="").order_by("pk"))
        if held:
            self.refusable(services.release_held_version, self.people["chair"], data.draw(st.sampled_from(held)),
                           "a partner's system")

    @rule(data=st.data())
    def withdraw(self, data):
        result = self.pick_result(data)
        if result is not None:
            self.refusable(services.withdraw_result, self.member(result.submission.organization.slug), result,
                           "hardware recalled")

    @rule(data=st.data(), approve=st.booleans())
    def decide_a_withdrawal(self, data, approve):
        pending = list(WithdrawalRequest.objects.filter(round=self.round, state=WithdrawalState.PENDING).order_by("pk"))
        if pending:
            self.refusable(services.decide_withdrawal, self.people["chair"], data.draw(st.sampled_from(pending)),
                           approve, "decided")

    @precondition(lambda self: self.round_state == RoundState.REVIEW)
    @rule(data=st.data(), outcome=st.sampled_from(["removed", "dismissed"]))
    def object(self, data, outcome):
        result = self.pick_result(data)
        if result is None:
            return
        try:
            objection = services.file_objection(self.people["reviewer"], rule="closed division", evidence="a log",
                                                result=result)
            services.answer_objection(self.member(result.submission.organization.slug), objection, "we disagree")
            services.resolve_objection(self.people["chair"], objection, outcome, "decided")
        except ReviewRefused:
            pass

    @rule(data=st.data())
    def reinstate(self, data):
        result = self.pick_result(data, Result.objects.exclude(citable__status=ResultStatus.ACTIVE))
        if result is not None:
            self.refusable(services.reinstate_result, self.people["chair"], result, "the decision was reversed")

    @rule(data=st.data(), package=st.booleans())
    def waive(self, data, package):
        if package:  # a chair declares the speaking-for-another finding a false positive for the organization
            versions = list(Submission.objects.filter(round=self.round, findings__code=SYSTEM_SUBMITTER_NOT_UPLOADER)
                            .distinct().order_by("pk"))
            if versions:
                self.refusable(services.waive_package_findings, self.people["chair"],
                               data.draw(st.sampled_from(versions)), SYSTEM_SUBMITTER_NOT_UPLOADER, "a partner")
            return
        result = self.pick_result(data)
        if result is not None:
            self.refusable(services.grant_waiver, self.people["reviewer"], result, "rcp_bypass", "RCP table fixed")

    # --- invariants ----------------------------------------------------------------------------

    @invariant()
    def statuses_are_what_their_events_say_and_never_public(self):
        public = Result.objects.visible_to(None)
        for citable in CitableId.objects.filter(round=self.round):
            told = AuditEvent.objects.filter(round=self.round, result_id=citable.result_id, kind__in=list(STATUS_EVENTS))
            expected = ResultStatus.ACTIVE
            for kind in told.order_by("pk").values_list("kind", flat=True):
                expected = STATUS_EVENTS[kind]
            assert citable.status == expected, (citable.result_id, citable.status, expected)
            if citable.status != ResultStatus.ACTIVE:
                assert not public.filter(citable=citable).exists(), citable.result_id
                assert self.client.get(f"/results/{citable.result_id}/").status_code != 200, citable.result_id

    @invariant()
    def the_public_api_lists_the_public_current_results(self):
        if self.round_state != RoundState.PUBLISHED:
            return
        listed = self.client.get("/api/v1/results/", {"round": self.round.slug}).json()["results"]
        current = Result.objects.visible_to(None).current().filter(submission__round=self.round)
        assert sorted(r["result_id"] for r in listed) == sorted(current.values_list("result_id", flat=True))

    @invariant()
    def the_change_log_names_published_versions(self):
        if self.round_state != RoundState.PUBLISHED:
            return
        for change in public_changes(self.round):
            if change.kind != events.VERSION_PUBLISHED:
                continue
            for word in (change.before, change.after):
                if word == "unpublished":
                    continue
                version = int(re.fullmatch(r"version (\d+)", word).group(1))
                submission = Submission.objects.get(round=self.round, organization=change.organization_id,
                                                    version=version)
                assert submission.is_published, (change, word)
            if change.before != "unpublished":
                before = Submission.objects.get(round=self.round, organization=change.organization_id,
                                                version=int(change.before.split()[1]))
                assert self.published_before(before, change.pk), change

    @invariant()
    def every_public_result_has_one_current_version(self):
        public = Result.objects.visible_to(None).filter(submission__round=self.round)
        counts = Counter(public.current().values_list("result_id", flat=True))
        assert all(count == 1 for count in counts.values()), counts
        for organization in Organization.objects.filter(submissions__round=self.round).distinct():
            assert Submission.objects.filter(round=self.round, organization=organization, is_current=True).count() <= 1

    @invariant()
    def ids_are_never_reused_and_held_versions_register_none(self):
        for citable in CitableId.objects.filter(round=self.round):
            key = (citable.organization_id, citable.system_id, citable.benchmark, citable.scenario)
            assert self.registry.setdefault(citable.result_id, key) == key, citable.result_id
            assert citable.results.filter(submission__held_reason="").exists(), f"{citable} registered while held"
        assert set(self.registry) == set(CitableId.objects.filter(round=self.round).values_list("result_id", flat=True))
        for result in Result.objects.filter(submission__round=self.round).select_related("citable", "system", "benchmark",
                                                                                          "submission"):
            if result.citable is None:
                assert result.submission.held_reason and result.result_id == "", result.pk
                continue
            assert result.result_id == result.citable.result_id
            assert (result.system.system_id, result.benchmark.name) == (result.citable.system_id,
                                                                        result.citable.benchmark)

    @invariant()
    def the_embargo_holds(self):
        if self.round_state == RoundState.PUBLISHED:
            return
        round_results = Result.objects.filter(submission__round=self.round)
        assert not Result.objects.visible_to(None).filter(pk__in=round_results).exists()
        assert not Result.objects.visible_to(self.people["bystander"]).filter(pk__in=round_results).exists()
        assert not events_visible_to(None).filter(round=self.round).exists()
        assert not Round.objects.visible_to(None).filter(pk=self.round.pk).exists()
        assert self.client.get(f"/rounds/{self.round.slug}/").status_code == 404

    @invariant()
    def every_change_is_one_of_the_lifecycle(self):
        round_state = Round.objects.get(pk=self.round.pk).state
        assert round_state == self.round_state or round_state in ROUND_TRANSITIONS[self.round_state]
        self.round_state = round_state
        for submission in Submission.objects.filter(round=self.round):
            state, before = version_state(submission), self.versions.get(submission.pk, VersionState.RECEIVED)
            assert state == before or reachable(VERSION_TRANSITIONS, before, state), (submission, before, state)
            self.versions[submission.pk] = state
        for pk, status in CitableId.objects.filter(round=self.round).values_list("pk", "status"):
            before = self.statuses.get(pk, ResultStatus.ACTIVE)
            assert status == before or status in RESULT_TRANSITIONS[before], (pk, before, status)
            self.statuses[pk] = status

    # --- helpers -------------------------------------------------------------------------------

    def member(self, org: str) -> User:
        return self.people["owner" if org == "alpha" else "outsider"]

    def pick_result(self, data, results=None) -> Result | None:
        """A result with an id, drawn among its round's: the version shown for it."""
        ids = sorted(set((Result.objects if results is None else results).filter(submission__round=self.round).exclude(result_id="")
                         .values_list("result_id", flat=True)))
        if not ids:
            return None
        return Result.objects.filter(submission__round=self.round).citable(data.draw(st.sampled_from(ids))).first()

    def refusable(self, action, *args):
        try:
            action(*args)
        except ReviewRefused:
            pass  # a refusal is an outcome too: the invariants say it changed nothing they guard

    def published_before(self, submission: Submission, event_pk: int) -> bool:
        """Whether `submission` was public before the event `event_pk`: published with the round or by
        an earlier version.published event."""
        if AuditEvent.objects.filter(kind=events.VERSION_PUBLISHED, submission=submission, pk__lt=event_pk).exists():
            return True
        name = f"{submission.organization.name} v{submission.version}"
        return AuditEvent.objects.filter(kind=events.ROUND_PUBLISHED, round=self.round, pk__lt=event_pk,
                                         data__versions__contains=[name]).exists()


@pytest.mark.slow
def test_the_lifecycle_keeps_its_invariants(personas):
    """The machine with a fixed seed and the budget of the module docstring."""
    bystander = User.objects.create_user("bystander", "bystander@gamma.example", "password")
    Organization.objects.create(name="Gamma Labs", slug="gamma").members.add(bystander)
    Lifecycle.people = {**personas, "bystander": bystander}
    run_state_machine_as_test(Lifecycle, settings=settings(
        max_examples=EXAMPLES, stateful_step_count=STEPS, derandomize=True, database=None, deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    ))
