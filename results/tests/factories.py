"""Small factory functions for results rows (factory_boy is not a dependency).

Every function takes keyword overrides and fills the rest with realistic MLPerf-like values.
"""

from __future__ import annotations

import itertools

from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.utils import timezone

from results.constants import Availability, Deployment, RcpStatus, RoundState, RunStatus, Severity
from results.models import Benchmark, CitableId, Finding, Organization, Result, Round, Run, Submission, System
from results.services.citable import citable_id

_counter = itertools.count(1)

BENCHMARKS = {
    "resnet": dict(area="vision", model="ResNet-50 v1.5", dataset="ImageNet", quality_metric="top-1 accuracy",
                   quality_target=0.759),
    "bert": dict(area="language", model="BERT-large", dataset="Wikipedia", quality_metric="mask-LM accuracy",
                 quality_target=0.72),
}


def make_round(version: str = "1.0", *, state: str = RoundState.PUBLISHED, benchmarks=("resnet", "bert")) -> Round:
    round_ = Round.objects.create(version=version, ruleset_version=f"{version}.0", state=state)
    for name in benchmarks:
        make_benchmark(round_, name)
    return round_


def make_benchmark(round_: Round, name: str, **fields) -> Benchmark:
    values = {**BENCHMARKS.get(name, {"quality_target": 0.5}), **fields}
    return Benchmark.objects.create(round=round_, name=name, **values)


def make_org(name: str | None = None) -> Organization:
    name = name or f"Org {next(_counter)}"
    return Organization.objects.create(name=name, slug=name.lower().replace(" ", "-"))


def make_submission(round_: Round, org: Organization, *, published: bool = True, **fields) -> Submission:
    return Submission.objects.create(
        round=round_,
        organization=org,
        sha256=f"{next(_counter):064x}",
        is_published=published,
        written_at=timezone.now(),
        **fields,
    )


def make_system(submission: Submission, system_id: str | None = None, **fields) -> System:
    system_id = system_id or f"sys{next(_counter)}"
    values = dict(
        name=f"{system_id.upper()} 8xA100",
        submitter=submission.organization.name,
        division="closed",
        availability=Availability.AVAILABLE,
        deployment=Deployment.ON_PREMISE,
        number_of_nodes=1,
        host_processor_model_name="AMD EPYC 7742",
        host_processors_per_node=2,
        host_processors_count=2,
        accelerator_model_name="NVIDIA A100-SXM4-40GB",
        accelerators_per_node=8,
        accelerators_count=8,
        framework="PyTorch 21.05",
        notes="",
    )
    values.update(fields)
    values.setdefault(
        "description",
        {
            "submitter": values["submitter"],
            "system_name": values["name"],
            "division": values["division"],
            "status": values["availability"],
            "number_of_nodes": values["number_of_nodes"],
            "host_processor_model_name": values["host_processor_model_name"],
            "accelerator_model_name": values["accelerator_model_name"],
            "accelerators_per_node": values["accelerators_per_node"],
            "framework": values["framework"],
            "host_memory_capacity": "1 TB",
        },
    )
    return System.objects.create(submission=submission, system_id=system_id, **values)


def make_result(
    system: System,
    benchmark: Benchmark | str,
    *,
    minutes: float | None = 30.0,
    runs: int = 5,
    result_id: str | None = None,
    log_text: str | None = None,
    **fields,
) -> Result:
    """A result with `runs` runs around `minutes`: the fastest and slowest are dropped, one run failed
    when there are more than five."""
    if isinstance(benchmark, str):
        benchmark = system.submission.round.benchmarks.get(name=benchmark)
    round_ = system.submission.round
    values = dict(
        division=system.division,
        score_minutes=minutes,
        mean_minutes=minutes,
        rcp_status=RcpStatus.PASS,
        rcp={"status": "pass", "scaling_factor": 1.0, "message": "", "submission_mean": 40.0,
             "rcp_mean": 41.0, "rcp_min": 39.5, "rcp_batch_size": 3264},
        global_batch_size=3264,
        converge_mean=40.0,
    )
    values.update(fields)
    status = values.pop("status", None)  # the citable result's (CitableId.status), every version's
    organization = system.submission.organization
    if result_id is None:
        citable = citable_id(round_, organization, system.system_id, benchmark.name, values.get("scenario", ""))
    else:  # a test's own id, registered like an imported one
        citable, _ = CitableId.objects.get_or_create(
            result_id=result_id,
            defaults=dict(round=round_, organization=organization, system_id=system.system_id,
                          benchmark=benchmark.name, scenario=values.get("scenario", "")),
        )
    if status is not None:
        CitableId.objects.filter(pk=citable.pk).update(status=status)
        citable.status = status
    result = Result.objects.create(
        submission=system.submission,
        system=system,
        benchmark=benchmark,
        result_id=citable.result_id,
        citable=citable,
        folder=f"results/{system.system_id}/{benchmark.name}",
        **values,
    )
    base = minutes or 30.0
    for index in range(runs):
        make_run(result, index, base * (0.96 + 0.02 * index), log_text=log_text)
    # Rows come into a written version only with its submission touched, as the admin's edits do
    # (results.querysets._id_ranges reads a round's ids again then).
    Submission.objects.filter(pk=system.submission_id).update(updated_at=timezone.now())
    return result


def make_run(result: Result, index: int, minutes: float, *, log_text: str | None = None, **fields) -> Run:
    target = result.benchmark.quality_target or 0.5
    curve = [[epoch, round(target * (0.6 + 0.1 * epoch), 4), 100 + epoch] for epoch in range(1, 6)]
    scoring = RunStatus.COUNTED
    reason = ""
    if index == 0:
        scoring, reason = RunStatus.DROPPED_FASTEST, "fastest run, dropped by the olympic mean"
    elif index == 4:
        scoring, reason = RunStatus.DROPPED_SLOWEST, "slowest run, dropped by the olympic mean"
    log_name = ""
    sha = f"{result.pk:032x}{index:032x}"
    if log_text is not None:
        log_name = f"logs/{sha[:2]}/{sha}.txt"
        if not default_storage.exists(log_name):
            default_storage.save(log_name, ContentFile(log_text.encode()))
    values = dict(
        file=f"{result.folder}/result_{index}.txt",
        sha256=sha,
        log_name=log_name,
        time_to_train_minutes=minutes,
        run_stop_status="success",
        compliant=True,
        scoring=scoring,
        scoring_reason=reason,
        seed=1000 + index,
        global_batch_size=result.global_batch_size,
        epochs_to_target=4.0 + 0.1 * index,
        hyperparameters={"global_batch_size": result.global_batch_size, "opt_base_learning_rate": 8.5 + index * 0},
        eval_curve=curve,
        run_start_line=3,
        run_stop_line=120,
    )
    values.update(fields)
    return Run.objects.create(result=result, **values)


def make_finding(result: Result, *, severity: str = Severity.WARNING, code: str = "SEED_REPEATED", **fields) -> Finding:
    values = dict(checker="seeds", message="seed 1000 appears in two runs", file=f"{result.folder}/result_1.txt", line=7)
    values.update(fields)
    return Finding.objects.create(submission=result.submission, result=result, severity=severity, code=code, **values)


def build_visibility_world(personas) -> dict:
    """A published round where Beta's submission is public and Alpha's is not yet published.

    Returns the public and the hidden result (same benchmark), and their systems.
    """
    round_ = make_round("1.0")
    public_sub = make_submission(round_, personas["beta"], published=True)
    hidden_sub = make_submission(round_, personas["alpha"], published=False)
    public_system = make_system(public_sub, "beta_dgx", name="Beta DGX A100")
    hidden_system = make_system(hidden_sub, "alpha_secret", name="Alpha Secret Box",
                                accelerator_model_name="Alpha TPU-X")
    log = "\n".join(f":::MLLOG line {n}" for n in range(1, 130))
    public = make_result(public_system, "resnet", minutes=28.5, result_id="1.0-0001", log_text=log)
    hidden = make_result(hidden_system, "resnet", minutes=12.25, result_id="1.0-0002", log_text=log + "\nsecret")
    make_finding(hidden, code="HIDDEN_FINDING")
    return {"round": round_, "public": public, "hidden": hidden,
            "public_system": public_system, "hidden_system": hidden_system}
