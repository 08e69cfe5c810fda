"""A published training or HPC round of any size, written with bulk inserts, for the tests that
measure pages far beyond the size of a real round (a real training round has at most a few hundred
systems; `manage.py seed_synthetic` makes rounds of thousands).

Training: each system enters three quarters of the round's benchmarks, as seed_synthetic's do, in
both divisions and every availability category. HPC: each system has a time-to-solution (strong
scaling) or a throughput (weak scaling) result on each benchmark it enters. No runs: the round and
benchmark pages do not read them. Organizations are "Synthetic <suite> <version> NN".
"""

from __future__ import annotations

import random

from django.db import connection
from django.utils import timezone

from results.constants import Availability, Deployment, RcpStatus, RoundState, Scaling
from results.models import CitableId, Organization, Result, Round, Submission, System
from results.services.rounds import ensure_round

ACCELERATORS = ["NVIDIA H100-SXM5-80GB", "NVIDIA A100-SXM4-80GB", "Google TPU v4", "Habana Gaudi2",
                "AMD Instinct MI250", "Intel Xeon Platinum 8380"]
FRAMEWORKS = ["PyTorch NGC 23.09", "MXNet NGC 21.05", "TensorFlow 2.4", "JAX 0.4"]


def make_training_round(version: str = "0.7", *, results: int = 1000, seed: int = 1, organizations: int = 20) -> Round:
    """A published training round of `results` results on about results / (3/4 of its benchmarks) systems."""
    return _make_round(f"training-v{version}", results=results, seed=seed, organizations=organizations)


def make_hpc_round(version: str = "1.0", *, results: int = 600, seed: int = 1, organizations: int = 12) -> Round:
    """A published HPC round of `results` results, strong and weak scaling."""
    return _make_round(f"hpc-v{version}", results=results, seed=seed, organizations=organizations)


def _make_round(slug: str, *, results: int, seed: int, organizations: int) -> Round:
    rng = random.Random(seed)
    round_ = ensure_round(slug)
    Round.objects.filter(pk=round_.pk).update(state=RoundState.PUBLISHED)
    hpc = round_.suite == "hpc"
    benchmarks = list(round_.benchmarks.order_by("name"))
    tag = f"{round_.suite} {round_.version} {seed}"
    orgs = Organization.objects.bulk_create(
        Organization(name=f"Synthetic {tag} {i:02d}",
                     slug=f"synthetic-{tag}-{i:02d}".replace(" ", "-").replace(".", "-"))
        for i in range(organizations)
    )
    submissions = Submission.objects.bulk_create(
        Submission(round=round_, organization=org, sha256=f"synthetic-{slug}-{seed}-{org.slug}", is_published=True,
                   written_at=timezone.now()) for org in orgs
    )
    per_system = max(1, round(len(benchmarks) * 0.75))
    systems, planned = [], []
    while len(planned) < results:
        index = len(systems)
        submission = submissions[index % len(submissions)]
        accelerator = rng.choice(ACCELERATORS)
        per_node, nodes = rng.choice([4, 8, 8]), rng.choice([1, 1, 2, 4, 16, 64, 256])
        system = System(
            submission=submission, system_id=f"sys_{seed}_{index:05d}",
            name=f"{accelerator.split()[-1]} {nodes}x{per_node} #{index}", submitter=submission.organization.name,
            division=rng.choices(["closed", "open"], [5, 1])[0],
            availability=rng.choices([Availability.AVAILABLE, Availability.PREVIEW, Availability.RESEARCH],
                                     [8, 1, 1])[0],
            deployment=rng.choices([Deployment.ON_PREMISE, Deployment.CLOUD], [4, 1])[0], number_of_nodes=nodes,
            host_processor_model_name="AMD EPYC 9654", host_processors_per_node=2, host_processors_count=2 * nodes,
            accelerator_model_name=accelerator, accelerators_per_node=per_node, accelerators_count=nodes * per_node,
            framework=rng.choice(FRAMEWORKS), notes="",
        )
        systems.append(system)
        scaling = rng.choice([Scaling.STRONG, Scaling.WEAK]) if hpc else ""
        for benchmark in rng.sample(benchmarks, k=per_system)[: results - len(planned)]:
            planned.append((system, benchmark, scaling))
    System.objects.bulk_create(systems, batch_size=2000)
    citables, rows = [], []
    for number, (system, benchmark, scaling) in enumerate(planned, start=1):
        entry = f"{round_.version}-{seed}-{number:05d}"
        citable = CitableId(
            result_id=f"{round_.suite}:{entry}:{benchmark.name}" + (f":{scaling}" if scaling else ""), round=round_,
            organization=system.submission.organization, system_id=system.system_id, benchmark=benchmark.name,
            entry=entry, local=True,
        )
        citables.append(citable)
        minutes = round(rng.uniform(2, 300) * 8 / system.accelerators_count ** 0.8, 3)
        weak = scaling == Scaling.WEAK
        models = rng.choice([4, 8, 16, 64]) if weak else None
        rows.append(Result(
            submission=system.submission, system=system, benchmark=benchmark, result_id=citable.result_id,
            citable=citable, folder=f"results/{system.system_id}/{benchmark.name}", division=system.division,
            score_minutes=None if weak else minutes, mean_minutes=None if weak else minutes,
            computed_score_minutes=None if weak else minutes, scaling_factor=1.0,
            rcp_status=RcpStatus.PASS, global_batch_size=2 ** rng.randint(8, 14),
            converge_mean=round(rng.uniform(20, 60), 2), scaling=scaling, number_of_models=models,
            instance_scale=system.accelerators_count // models if weak else None,
            time_to_train_all_minutes=minutes * 4 if weak else None,
            models_per_minute=models / (minutes * 4) if weak else None,
            energy_joules=round(rng.uniform(1e7, 1e9)) if rng.random() < 0.2 else None,
        ))
    CitableId.objects.bulk_create(citables, batch_size=2000)
    Result.objects.bulk_create(rows, batch_size=2000)
    analyze(Organization, Submission, System, CitableId, Result)
    return round_


def analyze(*models) -> None:
    """Fresh planner statistics of the tables just written, the test's own rows counted. A test
    database's tables were last analyzed holding no rows (tests roll back): planned as empty,
    thousands of rows are joined in nested loops, seconds to minutes a page."""
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE " + ", ".join(model._meta.db_table for model in models))
