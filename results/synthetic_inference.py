"""A published inference round of any size, written with bulk inserts, for `seed_synthetic
--inference-results` and the tests that measure pages at the size of the whole public record (a
real round holds 1,000-7,300 results: v5.1 about 1,500 on some 200 systems, v3.0 7,283).

Each system runs a few of the round's models in two or three scenarios; a tenth of them measured
power, LLM results carry token latencies, a few results are invalid, and systems are datacenter,
edge or both, as in a v2.1+ round. Organizations are "Synthetic inference NN". The planner's
statistics are refreshed after the inserts: rows it counts as none are joined row by row.
"""

from __future__ import annotations

import random

from django.utils import timezone

from results.constants import Availability, Deployment, RoundState
from results.models import Benchmark, CitableId, Organization, Result, Round, Submission, System
from results.services.record_import import refresh_planner_statistics
from results.services.rounds import ensure_round

ACCELERATORS = ["NVIDIA H100-SXM-80GB", "NVIDIA L4", "NVIDIA B200-SXM-180GB", "AMD Instinct MI300X",
                "Google TPU v6e", "Intel Xeon 6980P", "Qualcomm Cloud AI 100"]
SCENARIOS = {"datacenter": ["Server", "Offline"], "edge": ["SingleStream", "MultiStream", "Offline"]}
THROUGHPUT = {"Server", "Offline"}


def make_inference_round(version: str = "5.1", *, results: int = 1500, seed: int = 1, organizations: int = 24,
                         models: tuple[str, ...] = ()) -> Round:
    """A published inference round of about `results` results (a system's last model may add one
    or two beyond), every one current and public; of the named `models` only where given."""
    rng = random.Random(seed)
    round_ = ensure_round(f"inference-v{version}")
    Round.objects.filter(pk=round_.pk).update(state=RoundState.PUBLISHED)
    models = list(round_.benchmarks.filter(name__in=models) if models else round_.benchmarks.all())
    tag = f"{version}-{seed}"
    orgs = Organization.objects.bulk_create(
        Organization(name=f"Synthetic inference {tag} {i:02d}", slug=f"synthetic-inference-{tag}-{i:02d}".replace(".", "-"))
        for i in range(organizations)
    )
    submissions = Submission.objects.bulk_create(
        Submission(round=round_, organization=org, sha256=f"synthetic-inference-{tag}-{org.slug}",
                   is_published=True, written_at=timezone.now()) for org in orgs
    )
    systems, planned = [], []
    while len(planned) < results:
        index = len(systems)
        submission = submissions[index % len(submissions)]
        accelerator = rng.choice(ACCELERATORS)
        per_node = rng.choice([1, 2, 4, 8, 8])
        system_type = rng.choices(["datacenter", "edge", "datacenter,edge"], [6, 3, 1])[0]
        system = System(
            submission=submission, system_id=f"sys_{index:04d}", name=f"{accelerator.split()[-1]} x{per_node} #{index}",
            submitter=submission.organization.name, division=rng.choices(["closed", "open"], [5, 1])[0],
            availability=rng.choices([Availability.AVAILABLE, Availability.PREVIEW], [8, 1])[0],
            deployment=Deployment.ON_PREMISE, number_of_nodes=1, host_processor_model_name="AMD EPYC 9654",
            host_processors_per_node=2, host_processors_count=2, accelerator_model_name=accelerator,
            accelerators_per_node=per_node, accelerators_count=per_node, framework="TensorRT 10", notes="",
            description={"system_type": system_type, "accelerator_model_name": accelerator},
        )
        systems.append(system)
        power = rng.random() < 0.1
        scenarios = SCENARIOS[system_type.split(",")[0]]
        for model in rng.sample(models, k=min(len(models), rng.choice([2, 3, 4]))):
            for scenario in scenarios:
                planned.append((system, model, scenario, system_type, power))
    System.objects.bulk_create(systems, batch_size=2000)
    citables, rows = [], []
    for number, (system, model, scenario, system_type, power) in enumerate(planned, start=1):
        citable = CitableId(
            result_id=f"inference:{tag}-{number:05d}:{model.name}:{scenario}", round=round_,
            organization=system.submission.organization, system_id=system.system_id, benchmark=model.name,
            scenario=scenario, entry=f"{tag}-{number:05d}", local=True,
        )
        citables.append(citable)
        throughput = scenario in THROUGHPUT
        value = round(rng.uniform(10, 50000) if throughput else rng.uniform(0.2, 80), 3)
        llm = "llama" in model.name
        valid = rng.random() > 0.04
        details = {
            "system_type": system_type, "metric_name": "result_samples_per_second" if throughput else
            "90th percentile latency (ns)",
            "token_latency": {"ttft_p99_ms": 1200.0, "ttft_limit_ms": 2000.0, "tpot_p99_ms": 90.0,
                              "tpot_limit_ms": 200.0} if llm and scenario == "Server" else {},
            "power": {"value": round(rng.uniform(300, 9000), 1), "unit": "Watts",
                      "efficiency": round(value / 1000, 4)} if power and throughput else {},
        }
        rows.append(Result(
            submission=system.submission, system=system, benchmark=model, result_id=citable.result_id, citable=citable,
            folder=f"results/{system.system_id}/{model.name}/{scenario}", division=system.division, scenario=scenario,
            metric_value=value, metric_unit="Samples/s" if throughput else "ms",
            metric_direction="higher" if throughput else "lower", valid=valid, official_valid=valid or rng.random() < 0.5,
            inference=details,
        ))
    CitableId.objects.bulk_create(citables, batch_size=2000)
    Result.objects.bulk_create(rows, batch_size=2000)
    refresh_planner_statistics()
    return round_


def add_open_models(round_: Round, *, systems: int, models_each: int, pool: int, seed: int = 1) -> list[System]:
    """Krai's shape (inference v0.7-v3.0): open-division systems without a system type (before
    v2.1), each running `models_each` models of its own (of `pool` names, none the round's, each
    its own benchmark) in SingleStream and Offline. Organization "Synthetic open models"."""
    rng = random.Random(seed)
    organization = Organization.objects.create(name="Synthetic open models", slug="synthetic-open-models")
    submission = Submission.objects.create(round=round_, organization=organization, is_published=True,
                                           sha256=f"synthetic-open-models-{round_.slug}", written_at=timezone.now())
    benchmarks = Benchmark.objects.bulk_create(
        Benchmark(round=round_, name=f"own-mobilenet-{i:03d}", required_runs=1, olympic_drop=0) for i in range(pool)
    )
    made = System.objects.bulk_create(
        System(submission=submission, system_id=f"board_{i:03d}", name=f"Board {i:03d}", submitter=organization.name,
               division="open", availability=Availability.AVAILABLE, deployment=Deployment.ON_PREMISE,
               number_of_nodes=1, accelerator_model_name="Arm Mali-G78", accelerators_per_node=1,
               accelerators_count=1, framework="TFLite", notes="", description={})
        for i in range(systems)
    )
    citables, rows = [], []
    for system in made:
        for model in rng.sample(benchmarks, k=models_each):
            for scenario in ("SingleStream", "Offline"):
                result_id = f"inference:open-{system.system_id}:{model.name}:{scenario}"
                citable = CitableId(result_id=result_id, round=round_, organization=organization,
                                    system_id=system.system_id, benchmark=model.name, scenario=scenario,
                                    entry=f"open-{system.system_id}", local=True)
                citables.append(citable)
                latency = scenario == "SingleStream"
                rows.append(Result(
                    submission=submission, system=system, benchmark=model, result_id=result_id, citable=citable,
                    folder=f"results/{system.system_id}/{model.name}/{scenario}", division="open", scenario=scenario,
                    metric_value=round(rng.uniform(1, 80) if latency else rng.uniform(10, 5000), 3),
                    metric_unit="ms" if latency else "Samples/s", metric_direction="lower" if latency else "higher",
                    valid=True, official_valid=True, inference={"metric_name": "90th percentile latency (ns)"
                                                                if latency else "result_samples_per_second"},
                ))
    CitableId.objects.bulk_create(citables, batch_size=2000)
    Result.objects.bulk_create(rows, batch_size=2000)
    refresh_planner_statistics()
    return made
