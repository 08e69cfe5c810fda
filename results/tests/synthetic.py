"""Checked packages built in memory, and their upload through the services an ingestion job uses:
the lifecycle tests write many versions, and a real package takes seconds to check."""

from __future__ import annotations

import itertools

from mlperf_check.checkers.uploader import SYSTEM_SUBMITTER_NOT_UPLOADER
from mlperf_check.report import BenchmarkResult, Finding, PackageReport, RunLog, SystemReport
from results.models import Organization, Round, Submission
from results.services.lifecycle import make_current
from results.services.training_import import write_report
from results.services.versions import new_version
from review.services import check_borrowings

_digests = itertools.count(1)


def synthetic_package(organization: Organization, systems: dict[str, list[str]], *, speaks_for: str = "",
                      minutes: float = 30.0) -> PackageReport:
    """A package as check_folder reports it: each system (id -> benchmark names) with one result
    per benchmark, one run each. `speaks_for`: another organization its system descriptions name,
    so that the uploader checker's error says so (ingestion then holds the version)."""
    report = PackageReport(root=f"/synthetic/{organization.slug}", ruleset="1.0.0", submitter=organization.slug)
    for system_id, benchmarks in systems.items():
        file = f"systems/{system_id}.json"
        findings = []
        if speaks_for:
            findings.append(Finding(
                severity="error", code=SYSTEM_SUBMITTER_NOT_UPLOADER, file=file, checker="uploader", checker_version=1,
                message=f"the system description names {speaks_for}, not the uploader {organization.name}",
            ))
        report.systems.append(SystemReport(
            system_id=system_id, file=file, description={"submitter": speaks_for or organization.name},
            normalized={"name": system_id, "submitter": organization.name, "division": "closed"}, findings=findings,
        ))
        for benchmark in benchmarks:
            folder = f"results/{system_id}/{benchmark}"
            run = RunLog(file=f"{folder}/result_0.txt", sha256=f"{next(_digests):064x}", compliant=True)
            report.results.append(BenchmarkResult(
                system_id=system_id, benchmark=benchmark, folder=folder, division="closed", runs=[run],
                score_minutes=minutes, mean_minutes=minutes,
            ))
    return report


def ingest_synthetic(round_: Round, organization: Organization, report: PackageReport, *, uploaded_by=None) -> Submission:
    """An upload of `report` as the ingestion job finishes one (ingest.services: accept_upload's
    new_version, then _finish: write and admit, make it current, check its borrowings)."""
    submission = new_version(round_=round_, organization=organization, sha256=f"{next(_digests):064x}",
                             source="upload:synthetic.tar.gz", uploaded_by=uploaded_by)
    write_report(report, submission=submission)
    make_current(submission)
    check_borrowings(submission)
    submission.refresh_from_db()
    return submission
