"""Test data for verification: the tiny_mlp fixture package as an uploaded submission, with its
claimed result and runs (and their findings, as ingestion stores them), optionally with a hostile
run script or a fake package in place of the real one. The claimed system is a CPU box with this
machine's processor, as the fixture's claimed runs were made here: the re-runs are on like hardware."""

from __future__ import annotations

import shutil
import tarfile
from pathlib import Path

from django.core.files.base import ContentFile

from ingest.models import IngestJob, Upload
from ingest.services import submissions_storage
from results.constants import RoundState
from results.models import Benchmark, Finding, Result, Round, Run, Submission, System
from results.services.citable import citable_id
from verify.hardware import cpu_model
from verify.reproduce import analyze, olympic_mean, parse_rerun

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "tiny_benchmark"
FAKES = Path(__file__).resolve().parents[1] / "fixtures" / "fake_packages"
IMPLEMENTATION = "benchmarks/tiny_mlp/implementations/numpy"
RULESET = "6.1.0"
CLAIM_SPEC = dict(ruleset=RULESET, system_id="cpu_box", benchmark="tiny_mlp", organization="alpha",
                  division="closed", quality_target=0.95, direction="higher")

# Hostile run scripts (each replaces run_and_time.sh in the package).
FAILING = "echo 'loading the dataset'\necho 'ValueError: no such file /data/imagenet' >&2\nexit 3\n"
ENDLESS = "echo 'spinning'\nwhile :; do :; done\n"
NETWORK = ("exec python3 -c \"import socket; print('calling home', flush=True); "
           "socket.create_connection(('93.184.216.34', 80), timeout=5)\"\n")
MEMORY = ("exec python3 -c \"import numpy; print('allocating', flush=True); "
          "blocks = [numpy.ones(2**26, dtype=numpy.uint8) for _ in range(64)]\"\n")


def package_tarball(tmp: Path, run_script: str | None = None, fake: str | None = None) -> Path:
    """The fixture as an uploaded tarball (top folder `alpha`), with `run_script` as its run script,
    or with the fake package `fake` (verify/fixtures/fake_packages/<fake>.sh and its claimed log)."""
    root = tmp / "package" / "alpha"
    shutil.copytree(FIXTURE, root)
    if run_script is not None:
        (root / IMPLEMENTATION / "run_and_time.sh").write_text("#!/bin/sh\n" + run_script)
    if fake is not None:
        shutil.copyfile(FAKES / f"{fake}.sh", root / IMPLEMENTATION / "run_and_time.sh")
        for helper in [FAKES / "claimed_log.txt", *FAKES.glob("*.py")]:
            shutil.copyfile(helper, root / IMPLEMENTATION / helper.name)
    archive = tmp / "alpha.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(root, arcname="alpha")
    return archive


def claimed_logs() -> list[Path]:
    return sorted((FIXTURE / "results" / "cpu_box" / "tiny_mlp").glob("result_*.txt"))


def claimed_runs() -> list:
    return [parse_rerun(path, CLAIM_SPEC, number, 0) for number, path in enumerate(claimed_logs())]


def verifiable_result(personas, tmp: Path, *, run_script: str | None = None, fake: str | None = None,
                      claim_factor: float = 1.0, published: bool = True, system_id: str = "cpu_box") -> Result:
    """Alpha's tiny_mlp result in a round, uploaded as the fixture package; its claimed score is the
    olympic mean of the fixture's claimed runs times `claim_factor` (a tampered claim when not 1).
    Each call is a new version of the same citable result unless `system_id` names another system."""
    round_ = Round.objects.filter(suite="training", version="6.1").first() or Round.objects.create(
        version="6.1", ruleset_version=RULESET, state=RoundState.PUBLISHED if published else RoundState.REVIEW
    )
    benchmark, _ = Benchmark.objects.get_or_create(
        round=round_, name="tiny_mlp",
        defaults=dict(area="Experimental", model="MLP", dataset="two spirals", quality_metric="accuracy",
                      quality_target=0.95, required_runs=3, olympic_drop=1),
    )
    archive = package_tarball(tmp, run_script, fake)
    data = archive.read_bytes()
    version = Submission.objects.filter(round=round_, organization=personas["alpha"]).count() + 1
    submission = Submission.objects.create(round=round_, organization=personas["alpha"], version=version,
                                           sha256=f"{version:064x}", is_published=published, ruleset_version=RULESET)
    stored = submissions_storage().save(f"uploads/test/alpha-{version}.tar.gz", ContentFile(data))
    upload = Upload.objects.create(round=round_, organization=personas["alpha"], submission=submission,
                                   version=version, original_name="alpha.tar.gz", storage_name=stored,
                                   size_bytes=len(data), sha256=f"{version:064x}")
    IngestJob.objects.create(upload=upload, state="done")
    system = System.objects.create(submission=submission, system_id=system_id, name="CPU box (2 cores)",
                                   submitter="Alpha Systems", division="closed", number_of_nodes=1,
                                   host_processor_model_name=cpu_model(), accelerator_model_name="N/A",
                                   accelerators_per_node=0)
    runs = claimed_runs()
    claimed = olympic_mean([run.minutes for run in runs], 1) * claim_factor
    citable = citable_id(round_, personas["alpha"], system.system_id, benchmark.name)
    result = Result.objects.create(submission=submission, system=system, benchmark=benchmark,
                                   result_id=citable.result_id, citable=citable, folder="results/cpu_box/tiny_mlp",
                                   division="closed", score_minutes=claimed, mean_minutes=claimed)
    for run, log in zip(runs, claimed_logs(), strict=True):
        stored = Run.objects.create(result=result, file=f"results/cpu_box/tiny_mlp/{log.name}",
                                    sha256=f"{run.number:064x}", time_to_train_minutes=run.minutes,
                                    run_stop_status="success", compliant=True,
                                    eval_curve=[[epoch, value, 0, minutes] for epoch, value, minutes in run.eval_curve])
        # tiny_mlp is no official benchmark: the checker's compliance errors on its logs, as stored at ingestion.
        Finding.objects.bulk_create(
            Finding(submission=submission, result=result, run=stored, checker=finding.checker or "runlog",
                    severity=finding.severity, code=finding.code, message=finding.message, file=stored.file,
                    line=finding.line, key=finding.key)
            for finding in analyze(log, CLAIM_SPEC).findings
        )
    return result


def stored_log(job) -> str:
    """The whole stored log of `job`, its chunks joined (tests only: the pages read it page by page)."""
    return "".join(job.log_chunks.order_by("chars_before").values_list("text", flat=True))
