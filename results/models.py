"""The results database.

A Round holds Benchmarks. An Organization makes one Submission per round and version; every
System, Result, Run and Finding hangs from the Submission version that produced it, so a new
upload never overwrites an earlier version. Results keep a citable `result_id`, registered once in
CitableId (unique across suites and rounds, never reused) and given again to every version of the
same (round, organization, system, benchmark, scenario or HPC scaling).

Writers live in results/services.py; read rules (visibility) in results/querysets.py.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.db.models import F, Func, Value
from django.db.models.functions import Cast, Upper

from mlperf_check.checkers.shipped_factors import FACTOR_TOLERANCE
from mlperf_check.inference.report import verdict_text

from .constants import (
    Availability,
    Deployment,
    Division,
    FactorSource,
    MetricDirection,
    RcpStatus,
    ResultStatus,
    RoundState,
    RunStatus,
    Scaling,
    Scenario,
    Severity,
    Suite,
    WaiverKind,
)
from .querysets import (
    FindingQuerySet,
    ResultQuerySet,
    RoundQuerySet,
    RunQuerySet,
    SubmissionQuerySet,
    SystemQuerySet,
)


def version_order(field: str) -> Cast:
    """A version text field ("1.0", "10.0") as an array of its numbers, to order by: versions sort
    as versions ("10.0" after "2.0"), not as text. Non-digits are separators; a version has at
    most 16 characters, so every number fits a bigint."""
    numbers = Func(
        Func(F(field), Value(r"\D+"), function="regexp_split_to_array"), Value(""), function="array_remove"
    )
    return Cast(numbers, ArrayField(models.BigIntegerField()))


def fitted(model, field: str, value: str) -> str:
    """`value` cut to the max_length of `model.field`: a length is read from the model, never
    written twice."""
    return value[: model._meta.get_field(field).max_length]


class Round(models.Model):
    suite = models.CharField(max_length=16, choices=Suite.choices, default=Suite.TRAINING)
    version = models.CharField(max_length=16, help_text="Round version, e.g. 1.0")
    ruleset_version = models.CharField(max_length=16, help_text="Compliance ruleset, e.g. 1.0.0")
    submission_deadline = models.DateTimeField(null=True, blank=True)
    borrowing_deadline = models.DateTimeField(
        null=True, blank=True, help_text="Last moment to declare hyperparameter borrowing"
    )
    publish_at = models.DateTimeField(null=True, blank=True, help_text="Publication by the beat task, once final")
    state = models.CharField(max_length=16, choices=RoundState.choices, default=RoundState.DRAFT)
    next_result_number = models.PositiveIntegerField(default=1, editable=False)

    objects = RoundQuerySet.as_manager()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["suite", "version"], name="round_unique_suite_version")]
        ordering = ["suite", "-publish_at", version_order("version").desc()]

    def __str__(self) -> str:
        return self.slug

    @property
    def slug(self) -> str:
        return f"{self.suite}-v{self.version}"

    @property
    def is_published(self) -> bool:
        return self.state == RoundState.PUBLISHED


class Benchmark(models.Model):
    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="benchmarks")
    name = models.CharField(max_length=64, help_text="Benchmark id as logged, e.g. resnet")
    area = models.CharField(max_length=64, blank=True)
    model = models.CharField(max_length=128, blank=True)
    dataset = models.CharField(max_length=128, blank=True)
    quality_metric = models.CharField(max_length=128, blank=True)
    metric_direction = models.CharField(
        max_length=8, choices=MetricDirection.choices, default=MetricDirection.HIGHER
    )
    quality_target = models.FloatField(null=True, blank=True)
    quality_targets = models.JSONField(default=dict, blank=True, help_text="Per-component targets, e.g. BBOX/SEGM")
    quality_rule = models.TextField(blank=True, help_text="The official target predicate, as text")
    required_runs = models.PositiveSmallIntegerField(default=5)
    olympic_drop = models.PositiveSmallIntegerField(default=1, help_text="Runs dropped at each end")
    closed_hyperparameter_rules = models.JSONField(default=list, blank=True)
    init_time_limit_closed_s = models.FloatField(null=True, blank=True)
    init_time_limit_open_s = models.FloatField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["round", "name"], name="benchmark_unique_round_name")]
        ordering = ["round", "name"]

    def __str__(self) -> str:
        return f"{self.round.slug}/{self.name}"


class Organization(models.Model):
    name = models.CharField(max_length=128, unique=True, help_text="Display name, e.g. Dell EMC")
    slug = models.SlugField(max_length=128, unique=True, help_text="Folder name in the results repository")
    aliases = models.JSONField(default=list, blank=True, help_text="Other spellings seen in JSON and logs")
    members = models.ManyToManyField(settings.AUTH_USER_MODEL, blank=True, related_name="organizations")

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Submission(models.Model):
    round = models.ForeignKey(Round, on_delete=models.PROTECT, related_name="submissions")
    organization = models.ForeignKey(Organization, on_delete=models.PROTECT, related_name="submissions")
    version = models.PositiveIntegerField(default=1)
    sha256 = models.CharField(max_length=64, help_text="Digest of the package content")
    size_bytes = models.BigIntegerField(default=0)
    source = models.CharField(max_length=512, blank=True, help_text="Where the package came from")
    ruleset_version = models.CharField(max_length=16, blank=True)
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    is_current = models.BooleanField(default=True, help_text="The version that the round's tables show")
    is_published = models.BooleanField(default=False)
    written_at = models.DateTimeField(
        null=True, blank=True, editable=False, help_text="When its rows were written (a version is written once)"
    )
    held_reason = models.CharField(
        max_length=255, blank=True, editable=False,
        help_text="Set: never made current nor published until a chair's decision clears it (why it is held)",
    )

    objects = SubmissionQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["round", "organization", "version"], name="submission_unique_version")
        ]
        ordering = ["round", "organization", "-version"]

    def __str__(self) -> str:
        return f"{self.organization} {self.round.slug} v{self.version}"


class System(models.Model):
    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="systems")
    system_id = models.CharField(max_length=255, help_text="File name under systems/ (and folder under results/)")
    file = models.CharField(max_length=512, blank=True)
    name = models.CharField(max_length=255, help_text="system_name from the JSON")
    submitter = models.CharField(max_length=255, blank=True, help_text="submitter from the JSON")
    division = models.CharField(max_length=8, choices=Division.choices, blank=True)
    status_raw = models.CharField(max_length=128, blank=True, help_text="status as written")
    availability = models.CharField(max_length=16, choices=Availability.choices, default=Availability.UNKNOWN)
    deployment = models.CharField(max_length=16, choices=Deployment.choices, default=Deployment.UNKNOWN)
    number_of_nodes = models.PositiveIntegerField(null=True, blank=True)
    host_processor_model_name = models.CharField(max_length=255, blank=True)
    host_processors_per_node = models.PositiveIntegerField(null=True, blank=True)
    host_processors_count = models.PositiveIntegerField(null=True, blank=True)
    accelerator_model_name = models.CharField(max_length=255, blank=True)
    accelerators_per_node = models.PositiveIntegerField(null=True, blank=True)
    accelerators_count = models.PositiveIntegerField(null=True, blank=True)
    framework = models.CharField(max_length=255, blank=True)
    notes = models.TextField(blank=True)
    description = models.JSONField(default=dict, help_text="Every field of the system-description JSON")

    objects = SystemQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["submission", "system_id"], name="system_unique_per_submission")
        ]
        ordering = ["name"]
        # In the order the admin's list asks (its ordering, then -pk): its first page read and
        # sorted every system (36 ms at 32,869).
        indexes = [models.Index(fields=["name", "-id"], name="system_name_id")]

    def __str__(self) -> str:
        return self.name or self.system_id


class CitableId(models.Model):
    """The registry of citable result ids: one row per (round, organization, system, benchmark,
    scenario), never deleted, so an id names one result in every suite and round, and every version
    of it. `entry` is the system's entry in the round in MLCommons' scheme (`4.1-0012`: one per
    system, shared by its benchmarks); `local` says it was numbered here, not published by
    MLCommons (official ids come from summary_results.json or an id mapping). `status` is the
    citable result's: withdrawn and removed are states of the result, whatever version is shown
    (docs/lifecycle.md)."""

    result_id = models.CharField(max_length=96, unique=True)
    round = models.ForeignKey(Round, on_delete=models.PROTECT, related_name="citable_ids")
    organization = models.ForeignKey(Organization, on_delete=models.PROTECT, related_name="citable_ids")
    system_id = models.CharField(max_length=255)
    benchmark = models.CharField(max_length=64)
    scenario = models.CharField(max_length=16, blank=True)
    entry = models.CharField(max_length=32, blank=True, help_text="The system's entry in the round, e.g. 4.1-0012")
    local = models.BooleanField(default=True, help_text="Numbered here, not an id MLCommons published")
    status = models.CharField(
        max_length=16, choices=ResultStatus.choices, default=ResultStatus.ACTIVE, editable=False,
        help_text="Withdrawn or removed: the result in every version; only results.services.lifecycle changes it",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["round", "organization", "system_id", "benchmark", "scenario"], name="citable_id_unique_result"
            )
        ]
        # An MLCommons entry id (`/r/4.1-0012`, the API's ?entry=) finds its results by this column:
        # without an index each lookup read all 200,000 ids, twice (the current results, the gone).
        indexes = [models.Index(fields=["entry"], name="citable_id_entry")]
        ordering = ["round", "result_id"]

    def __str__(self) -> str:
        return self.result_id


class Result(models.Model):
    """One system on one benchmark (inference: and one scenario).

    Every result has a metric with its unit and direction: training's olympic score in minutes
    (lower is better); inference's scenario metric (latency in ms lower, streams, queries/s and
    samples/s higher). Tables, sorting, charts and exports read these three fields.
    """

    # Indexed with the id (Meta.indexes): a round's version reads its results' highest id and count.
    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="results", db_index=False)
    system = models.ForeignKey(System, on_delete=models.CASCADE, related_name="results")
    benchmark = models.ForeignKey(Benchmark, on_delete=models.PROTECT, related_name="results")
    # Empty while the version is held (a chair decides first): a held version registers no id.
    result_id = models.CharField(
        max_length=96, db_index=True, blank=True, help_text="Citable id, e.g. training:4.1-0012:resnet"
    )
    citable = models.ForeignKey(CitableId, null=True, blank=True, on_delete=models.PROTECT, related_name="results")
    folder = models.CharField(max_length=512, help_text="results/<system>/<benchmark> in the package")
    division = models.CharField(max_length=8, choices=Division.choices, blank=True)
    score_minutes = models.FloatField(null=True, blank=True, help_text="Olympic mean x scaling factor")
    mean_minutes = models.FloatField(null=True, blank=True, help_text="Olympic mean before the RCP factor")
    scaling_factor = models.FloatField(default=1.0, help_text="The factor score_minutes uses")
    factor_source = models.CharField(max_length=16, choices=FactorSource.choices, default=FactorSource.COMPUTED)
    computed_score_minutes = models.FloatField(
        null=True, blank=True, help_text="Olympic mean x the factor computed from the logs"
    )
    computed_scaling_factor = models.FloatField(default=1.0, help_text="From the logs and the RCP tables")
    shipped_scaling_factor = models.FloatField(
        null=True, blank=True, help_text="The package's scaling.json (none, or unreadable: null); never applied by itself"
    )
    score_note = models.CharField(max_length=255, blank=True, help_text="Why there is no score")
    dropped_runs = models.PositiveSmallIntegerField(default=0, help_text="Runs that failed compliance")
    rcp_status = models.CharField(max_length=24, choices=RcpStatus.choices, default=RcpStatus.NOT_APPLICABLE)
    rcp = models.JSONField(default=dict, blank=True, help_text="RCP record used, mean, min, message")
    global_batch_size = models.PositiveIntegerField(null=True, blank=True)
    converge_mean = models.FloatField(null=True, blank=True, help_text="Olympic mean of epochs/samples to target")
    scenario = models.CharField(max_length=16, choices=Scenario.choices, blank=True, help_text="Inference only")
    metric_value = models.FloatField(null=True, blank=True, help_text="The figure the result is ranked by")
    metric_unit = models.CharField(max_length=16, blank=True, help_text="minutes, ms, streams, queries/s, samples/s")
    metric_direction = models.CharField(
        max_length=8, choices=MetricDirection.choices, default=MetricDirection.LOWER
    )
    valid = models.BooleanField(default=True, help_text="Our verdict: no error finding (inference)")
    official_valid = models.BooleanField(
        default=True, help_text="The round's official checker's verdict, its leniencies included (inference)"
    )
    stricter_rules = models.JSONField(
        default=list, blank=True, help_text="Codes of our rules beyond the official checker that fired (inference)"
    )
    inference = models.JSONField(
        default=dict,
        blank=True,
        help_text="Latency percentiles and bound, query counts, duration, LoadGen settings, accuracy and target",
    )
    # MLPerf HPC: strong scaling is scored like training (score_minutes: time to solution); weak
    # scaling by the three figures the official summarizer prints, and models per minute, ours.
    scaling = models.CharField(max_length=8, choices=Scaling.choices, blank=True, help_text="HPC only")
    number_of_models = models.PositiveIntegerField(null=True, blank=True, help_text="HPC weak scaling")
    instance_scale = models.PositiveIntegerField(
        null=True, blank=True, help_text="HPC weak scaling: nodes x accelerators per node of one model"
    )
    time_to_train_all_minutes = models.FloatField(
        null=True, blank=True, help_text="HPC weak scaling: first run_start to last run_stop"
    )
    models_per_minute = models.FloatField(
        null=True, blank=True, help_text="HPC weak scaling, DERIVED: number_of_models / time_to_train_all (not official)"
    )
    # Energy to train (training v4.0+, HPC), where the result folder has power measurements.
    energy_joules = models.FloatField(
        null=True, blank=True, help_text="The official summarizer's Energy: olympic mean x the score's factor"
    )
    energy_mean_joules = models.FloatField(null=True, blank=True, help_text="The mean before the factor")
    energy_note = models.CharField(max_length=255, blank=True, help_text="Why there is no energy")

    objects = ResultQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["submission", "system", "benchmark", "scenario", "scaling"],
                name="result_unique_per_submission",
            )
        ]
        # pages.caching reads each round's highest result id and count from this index alone
        # (227,000 results, 29 rounds: 155 ms with an index on the submission alone, 72 ms with this).
        indexes = [
            models.Index(fields=["submission", "id"], name="result_submission_id"),
            # An id in another case or spelling (results.lookups._named_id: iexact, UPPER(result_id)
            # in SQL) is looked up on every miss of a result page, a permalink and the API: without
            # it each miss read all 200,000 results (260 ms of SQL).
            models.Index(Upper("result_id"), name="result_id_upper"),
        ]
        ordering = ["benchmark__name", "score_minutes"]

    def __str__(self) -> str:
        return self.result_id

    @property
    def shipped_factor_differs(self) -> bool:
        """The package ships a readable scaling factor other than the one the logs give: a decision
        for a reviewer (services/factors.py), flagged on the result and review pages."""
        shipped = self.shipped_scaling_factor
        return shipped is not None and abs(shipped - self.computed_scaling_factor) > FACTOR_TOLERANCE

    @property
    def status(self) -> str:
        """The citable result's status (active, withdrawn, removed), the same for every version; a
        result of a held version, with no id yet, is active."""
        return self.citable.status if self.citable_id else ResultStatus.ACTIVE

    def get_status_display(self) -> str:
        return ResultStatus(self.status).label

    @property
    def id_is_local(self) -> bool:
        return self.citable.local

    @property
    def verdict(self) -> str:
        """"VALID"/"INVALID" where the round's official verdict and ours agree; both where they do
        not: "official: VALID, ours: INVALID (run_too_short, wrong_seed)"."""
        return verdict_text(self.official_valid, self.valid, self.stricter_rules)

    @property
    def verdicts_differ(self) -> bool:
        return self.official_valid != self.valid


class Run(models.Model):
    # Indexed with the id (Meta.indexes): the API's runs of a round start from their lowest id.
    result = models.ForeignKey(Result, on_delete=models.CASCADE, related_name="runs", db_index=False)
    file = models.CharField(max_length=512, help_text="Path in the package")
    sha256 = models.CharField(max_length=64)
    log_name = models.CharField(max_length=255, blank=True, help_text="Content-addressed copy in storage")
    time_to_train_minutes = models.FloatField(null=True, blank=True)
    run_stop_status = models.CharField(max_length=64, blank=True)
    compliant = models.BooleanField(default=False, help_text="Passed every per-run rule")
    scoring = models.CharField(max_length=24, choices=RunStatus.choices, default=RunStatus.COUNTED)
    scoring_reason = models.CharField(max_length=255, blank=True)
    seed = models.BigIntegerField(null=True, blank=True)
    global_batch_size = models.PositiveIntegerField(null=True, blank=True)
    epochs_to_target = models.FloatField(null=True, blank=True)
    samples_to_target = models.BigIntegerField(null=True, blank=True)
    hyperparameters = models.JSONField(default=dict, blank=True)
    eval_curve = models.JSONField(default=list, blank=True, help_text="[[epoch or samples, value, line, minutes since run_start], ...]")
    run_start_line = models.PositiveIntegerField(null=True, blank=True)
    run_stop_line = models.PositiveIntegerField(null=True, blank=True)
    energy_joules = models.FloatField(null=True, blank=True, help_text="Energy to train of the run (power/)")
    power_folder = models.CharField(max_length=512, blank=True, help_text="power/<run> in the package")

    objects = RunQuerySet.as_manager()

    class Meta:
        ordering = ["result", "file"]
        indexes = [
            models.Index(fields=["result", "id"], name="run_result_id"),
            # A log page finds its runs by the log's hash (pages/views/logs.py): without it, a scan
            # of every run (4 s at 2,000,000 runs). Only runs with a stored copy have a page.
            models.Index(fields=["sha256"], name="run_sha256_logged", condition=~models.Q(log_name="")),
        ]

    def __str__(self) -> str:
        return self.file


class Finding(models.Model):
    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="findings")
    result = models.ForeignKey(Result, null=True, blank=True, on_delete=models.CASCADE, related_name="findings")
    run = models.ForeignKey(Run, null=True, blank=True, on_delete=models.CASCADE, related_name="findings")
    checker = models.CharField(max_length=64)
    checker_version = models.PositiveSmallIntegerField(default=1)
    severity = models.CharField(max_length=8, choices=Severity.choices)
    code = models.CharField(max_length=64, db_index=True)
    message = models.TextField()
    file = models.CharField(max_length=512, blank=True)
    line = models.PositiveIntegerField(null=True, blank=True)
    key = models.CharField(max_length=128, blank=True)
    expected = models.TextField(blank=True)
    actual = models.TextField(blank=True)

    objects = FindingQuerySet.as_manager()

    class Meta:
        ordering = ["submission", "file", "line", "pk"]

    def __str__(self) -> str:
        return f"{self.severity} {self.code}"


class Waiver(models.Model):
    """A recorded decision on one system and benchmark of an organization in a round (never a file
    in the upload): a bypass of a check, or the scaling factor its score uses (kind
    published_factor, with `factor`). A rejected decision (accepted False) is kept as a record and
    changes nothing."""

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="waivers")
    organization = models.ForeignKey(Organization, on_delete=models.CASCADE, related_name="waivers")
    system_id = models.CharField(max_length=255)
    benchmark = models.CharField(max_length=64)
    kind = models.CharField(max_length=16, choices=WaiverKind.choices)
    factor = models.FloatField(null=True, blank=True, help_text="published_factor: the scaling factor decided on")
    code = models.CharField(max_length=64, blank=True, help_text="false_positive: the finding code it waives")
    accepted = models.BooleanField(default=True, help_text="False: the request (e.g. a shipped factor) was rejected")
    reason = models.TextField()
    granted_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["round", "organization", "system_id", "benchmark", "kind", "code"], name="waiver_unique"
            ),
            models.CheckConstraint(
                condition=~models.Q(kind=WaiverKind.KNOWN_FALSE_POSITIVE) | ~models.Q(code=""),
                name="waiver_false_positive_names_a_code",
            ),
            # A scaling-factor decision without a usable factor would decide nothing.
            models.CheckConstraint(
                condition=~models.Q(kind=WaiverKind.PUBLISHED_FACTOR) | models.Q(factor__isnull=False, factor__gt=0),
                name="waiver_published_factor_positive",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.organization}/{self.system_id}/{self.benchmark}"


class Snapshot(models.Model):
    """A frozen, numbered copy of a published round's public data (results, systems, runs) taken
    after its publication and after each later change; its files are written once, in storage
    under `snapshots/<round>/<number>/`, and never rewritten (services/snapshots.py)."""

    round = models.ForeignKey(Round, on_delete=models.PROTECT, related_name="snapshots")
    number = models.PositiveIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)
    covers_event = models.BigIntegerField(help_text="The newest public audit event (change) it includes")
    files = models.JSONField(default=list, help_text='[{"name", "sha256", "bytes"}], SHA256SUMS last')

    class Meta:
        constraints = [models.UniqueConstraint(fields=["round", "number"], name="snapshot_unique_number")]
        ordering = ["round", "-number"]

    def __str__(self) -> str:
        return f"{self.round.slug} snapshot {self.number}"


class ImportedFolder(models.Model):
    """Progress of `manage.py import_record`: one row per submitter unit (the folder or folders of
    one organization in a results checkout) whose import finished, with the fingerprint of its files
    then (names, sizes, modification times). A unit whose files still have that fingerprint is not
    checked again, so an interrupted import continues where it stopped. Written in the transaction
    that stores the unit's version (services/record_import.py)."""

    round = models.ForeignKey(Round, on_delete=models.PROTECT, related_name="imported_folders")
    source = models.TextField(help_text="The unit's folders, as Submission.source records them")
    fingerprint = models.CharField(max_length=64, help_text="SHA-256 of its files' names, sizes and times")
    submission = models.ForeignKey(
        Submission, null=True, blank=True, on_delete=models.SET_NULL, related_name="+",
        help_text="The version its import left current (none: the unit could not be checked)",
    )
    status = models.CharField(max_length=16, help_text="created, updated, unchanged or failed")
    errors = models.TextField(blank=True, help_text="Why a folder of it could not be checked")
    imported_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["round", "source"], name="imported_folder_unique_source")]

    def __str__(self) -> str:
        return f"{self.round.slug} {self.source}: {self.status}"
