"""Fill the database with a large, realistic, synthetic results set for load tests and demos.

    python manage.py seed_synthetic --results 20000 --runs 200000 [--inference-results 50000]

Training-shaped rounds (v0.5-v4.1: systems entering most benchmarks, each result with its runs,
eval curves and hyperparameters), and with --inference-results inference-shaped ones spread over
the inference rounds (results.synthetic_inference: no runs, a model and scenario each, system
types, power, token latencies). Rounds and benchmarks come from the ruleset catalog (as the
importer makes them); organizations are named "Synthetic ..." (slug `synthetic-...`) so they never
mix with real submitters, and `--clear` removes them first. Everything is written with
bulk_create, in one transaction.
"""

from __future__ import annotations

import math
import random

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django.utils import timezone

from results.constants import Availability, Deployment, RcpStatus, RoundState, RunStatus
from results.models import CitableId, Organization, Result, Round, Run, Submission, System
from results.services.rounds import ensure_round
from results.synthetic_inference import make_inference_round

ROUNDS = ["0.5", "0.6", "0.7", "1.0", "1.1", "2.0", "2.1", "3.0", "3.1", "4.0", "4.1"]
INFERENCE_ROUNDS = ["0.5", "0.7", "1.0", "1.1", "2.0", "2.1", "3.0", "3.1", "4.0", "4.1", "5.0", "5.1"]
ACCELERATORS = [
    ("NVIDIA Tesla V100-SXM2-32GB", 1.0), ("NVIDIA A100-SXM4-80GB", 2.2), ("NVIDIA H100-SXM5-80GB", 5.0),
    ("Google TPU v3", 1.1), ("Google TPU v4", 2.4), ("Habana Gaudi2", 2.0), ("Graphcore IPU-M2000", 1.3),
    ("Intel Xeon Platinum 8380", 0.08), ("Huawei Ascend 910", 1.8), ("AMD Instinct MI250", 2.0),
]
HOSTS = ["AMD EPYC 7742", "Intel Xeon Platinum 8168", "Intel Xeon Platinum 8480+", "AMD EPYC 9654"]
FRAMEWORKS = ["PyTorch NGC 23.09", "MXNet NGC 21.05", "TensorFlow 2.4", "JAX 0.4", "PaddlePaddle 2.1"]
# Minutes on 8 V100-class accelerators: the scale of each benchmark's time to train.
BASE_MINUTES = {"resnet": 90, "bert": 60, "ssd": 25, "maskrcnn": 120, "minigo": 300, "dlrm": 15, "rnnt": 70,
                "unet3d": 60, "gnmt": 30, "transformer": 25, "ncf": 2, "gpt3": 6000, "dlrm_dcnv2": 20,
                "stable_diffusion": 400, "llama2_70b_lora": 200, "gnn": 30}


class Command(BaseCommand):
    help = "Create synthetic published rounds, systems, results and runs (bulk inserts)."

    def add_arguments(self, parser):
        parser.add_argument("--results", type=int, default=20000)
        parser.add_argument("--runs", type=int, default=200000, help="Total runs, spread over the results")
        parser.add_argument("--inference-results", type=int, default=0,
                            help="Inference-shaped results, spread over the inference rounds")
        parser.add_argument("--organizations", type=int, default=40)
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument("--clear", action="store_true", help="Delete earlier synthetic data first")

    def handle(self, *args, results, runs, inference_results, organizations, seed, clear, **options):
        if results < 1 or runs < results or inference_results < 0:
            raise CommandError("need --results >= 1, --runs >= --results and --inference-results >= 0")
        rng = random.Random(seed)
        with transaction.atomic():
            if clear:
                self._clear()
            if Organization.objects.filter(slug__startswith="synthetic-").exists():
                raise CommandError("synthetic data exists already; pass --clear to replace it")
            made = self._seed(rng, results, runs, organizations)
            if inference_results:
                for version in INFERENCE_ROUNDS:
                    make_inference_round(version, results=math.ceil(inference_results / len(INFERENCE_ROUNDS)), seed=seed)
            inference = Result.objects.filter(submission__organization__slug__startswith="synthetic-").count()
            inference -= made["results"]
        self.stdout.write(f"created {made['results']} results, {made['runs']} runs, {made['systems']} systems "
                          f"in {len(ROUNDS)} training rounds; {inference} inference results")

    def _clear(self) -> None:
        submissions = Submission.objects.filter(organization__slug__startswith="synthetic-")
        Run.objects.filter(result__submission__in=submissions).delete()
        Result.objects.filter(submission__in=submissions).delete()
        System.objects.filter(submission__in=submissions).delete()
        submissions.delete()
        # Synthetic ids only: a real result's id is never deleted, a synthetic one names nothing real.
        CitableId.objects.filter(organization__slug__startswith="synthetic-").delete()
        Organization.objects.filter(slug__startswith="synthetic-").delete()

    def _seed(self, rng: random.Random, n_results: int, n_runs: int, n_orgs: int) -> dict:
        orgs = Organization.objects.bulk_create(
            Organization(name=f"Synthetic {i:02d}", slug=f"synthetic-{i:02d}") for i in range(1, n_orgs + 1)
        )
        rounds = []
        for version in ROUNDS:
            round_ = ensure_round(f"training-v{version}")
            round_.state = RoundState.PUBLISHED
            round_.save(update_fields=["state"])
            rounds.append(round_)
        per_round = math.ceil(n_results / len(rounds))
        runs_per_result = n_runs / n_results
        systems: list[System] = []
        plan: list[tuple[System, object, float]] = []  # (system, benchmark, speed)
        for position, round_ in enumerate(rounds):
            benchmarks = list(round_.benchmarks.all())
            submissions = Submission.objects.bulk_create(
                Submission(round=round_, organization=org, sha256=f"synthetic-{round_.version}-{org.slug}",
                           is_published=True, written_at=timezone.now()) for org in orgs
            )
            per_system = max(1, round(len(benchmarks) * 0.75))
            n_systems = math.ceil(per_round / per_system)
            round_systems = []
            for index in range(n_systems):
                submission = submissions[index % len(submissions)]
                accelerator, speed = rng.choice(ACCELERATORS)
                per_node = rng.choice([1, 4, 8, 8, 8, 16])
                nodes = rng.choice([1, 1, 1, 2, 4, 8, 16, 32, 64, 128, 256])
                availability = rng.choices(
                    [Availability.AVAILABLE, Availability.PREVIEW, Availability.RESEARCH], [8, 1, 1])[0]
                deployment = rng.choices([Deployment.ON_PREMISE, Deployment.CLOUD], [4, 1])[0]
                system = System(
                    submission=submission, system_id=f"sys_{round_.version}_{index:04d}",
                    name=f"{submission.organization.name} {accelerator.split()[-1]} {nodes}x{per_node}",
                    submitter=submission.organization.name,
                    division=rng.choices(["closed", "open"], [5, 1])[0],
                    status_raw=availability.label, availability=availability, deployment=deployment,
                    number_of_nodes=nodes, host_processor_model_name=rng.choice(HOSTS), host_processors_per_node=2,
                    host_processors_count=2 * nodes, accelerator_model_name=accelerator,
                    accelerators_per_node=per_node, accelerators_count=nodes * per_node,
                    framework=rng.choice(FRAMEWORKS), notes="",
                    description={"submitter": submission.organization.name, "accelerator_model_name": accelerator,
                                 "number_of_nodes": str(nodes), "accelerators_per_node": str(per_node),
                                 "host_memory_capacity": f"{rng.choice([512, 1024, 2048])} GB",
                                 "host_networking": rng.choice(["InfiniBand HDR 200Gb/s", "RoCE 100Gb/s"]),
                                 "operating_system": "Ubuntu 20.04", "sw_notes": "synthetic"},
                )
                round_systems.append(system)
            systems += round_systems
            # Later rounds are faster: better software on the same hardware.
            round_speed = 1.25 ** position
            planned = 0
            for system in round_systems:
                for benchmark in rng.sample(benchmarks, k=per_system):
                    if planned >= per_round:
                        break
                    planned += 1
                    speed = dict(ACCELERATORS)[system.accelerator_model_name] * round_speed
                    plan.append((system, benchmark, speed))
        System.objects.bulk_create(systems, batch_size=2000)
        plan = plan[:n_results]
        results, entries, citable_ids = [], {}, []
        # Entries numbered after those the round has (an imported round's), never one of theirs.
        counters = {round_.pk: Round.objects.get(pk=round_.pk).next_result_number - 1 for round_ in rounds}
        for system, benchmark, speed in plan:
            round_ = system.submission.round
            if (round_.pk, system.system_id) not in entries:  # one entry per system, as MLCommons numbers them
                counters[round_.pk] += 1
                entries[(round_.pk, system.system_id)] = f"{round_.version}-{counters[round_.pk]:04d}"
            entry = entries[(round_.pk, system.system_id)]
            citable = CitableId(
                result_id=f"{round_.suite}:{entry}:{benchmark.name}", round=round_,
                organization=system.submission.organization, system_id=system.system_id, benchmark=benchmark.name,
                entry=entry, local=True,
            )
            citable_ids.append(citable)
            count = system.accelerators_count
            # Sub-linear scaling: efficiency falls with scale.
            minutes = BASE_MINUTES.get(benchmark.name, 60) * 8 / (count ** 0.9 * 8 ** 0.1) / speed
            minutes *= rng.uniform(0.85, 1.2)
            batch = 2 ** int(math.log2(max(1, count)) + rng.choice([4, 5, 6]))
            results.append(Result(
                submission=system.submission, system=system, benchmark=benchmark,
                result_id=citable.result_id, citable=citable,
                folder=f"results/{system.system_id}/{benchmark.name}", division=system.division,
                score_minutes=round(minutes, 3), mean_minutes=round(minutes, 3), scaling_factor=1.0,
                rcp_status=RcpStatus.PASS, global_batch_size=batch,
                converge_mean=round(30 + 8 * math.log2(batch / 256 + 1) * rng.uniform(0.9, 1.1), 2),
                rcp={"status": "pass", "scaling_factor": 1.0, "message": "synthetic"},
            ))
        CitableId.objects.bulk_create(citable_ids, batch_size=2000)
        Result.objects.bulk_create(results, batch_size=2000)
        for round_ in rounds:
            Round.objects.filter(pk=round_.pk).update(next_result_number=counters[round_.pk] + 1)
        run_rows: list[Run] = []
        made_runs = 0
        for index, result in enumerate(results):
            remaining_results = len(results) - index
            count = max(1, round((n_runs - made_runs) / remaining_results)) if index else round(runs_per_result)
            run_rows += self._runs(rng, result, count)
            made_runs += count
            if len(run_rows) >= 10000:
                Run.objects.bulk_create(run_rows, batch_size=5000)
                run_rows = []
        Run.objects.bulk_create(run_rows, batch_size=5000)
        return {"results": len(results), "runs": made_runs, "systems": len(systems)}

    def _runs(self, rng: random.Random, result: Result, count: int) -> list[Run]:
        target = result.benchmark.quality_target or 0.75
        times = sorted(result.score_minutes * rng.uniform(0.93, 1.07) for _ in range(count))
        runs = []
        for index, minutes in enumerate(times):
            scoring = RunStatus.COUNTED
            if index == 0 and count > 2:
                scoring = RunStatus.DROPPED_FASTEST
            elif index == count - 1 and count > 2:
                scoring = RunStatus.DROPPED_SLOWEST
            epochs = max(2, int(result.converge_mean * rng.uniform(0.9, 1.1)))
            step = max(1, epochs // 12)
            curve = [[e, round(target * (1 - 0.5 * math.exp(-4 * e / epochs)) * (1.0 if e < epochs else 1.002), 5),
                      20 + e] for e in range(step, epochs + 1, step)]
            curve.append([epochs, round(target * 1.002, 5), 20 + epochs])
            runs.append(Run(
                result=result, file=f"{result.folder}/result_{index}.txt", sha256=f"{result.result_id}-{index}",
                time_to_train_minutes=round(minutes, 3), run_stop_status="success", compliant=True,
                scoring=scoring, scoring_reason="", seed=rng.randrange(1, 2**31),
                global_batch_size=result.global_batch_size, epochs_to_target=float(epochs),
                hyperparameters={"global_batch_size": result.global_batch_size,
                                 "opt_base_learning_rate": round(0.1 * result.global_batch_size / 256, 4),
                                 "opt_name": "lamb" if result.global_batch_size > 4096 else "sgd"},
                eval_curve=curve, run_start_line=3, run_stop_line=30 + epochs,
            ))
        return runs
