"""Does the package speak for the organization that uploads it?

Every `submitter` in the system descriptions and every `submission_org` in the logs must be the
uploading organization: its name or one of its recorded spellings. A member of one company must
not publish results as another's. Only the server knows the uploader, so this checker is not in
the offline registry (mlperf_check/checkers/__init__.py); ingest runs it on the finished report.

Names are compared without case, spaces and punctuation ("Dell EMC" = "DellEMC"), but exactly
otherwise: containment is not enough ("NV" is not "NVIDIA").
"""

from __future__ import annotations

from collections.abc import Iterable

from mlperf_check.checkers.consistency import normalize_org
from mlperf_check.finding_sources import checker_version
from mlperf_check.parsing.formats import short_repr
from mlperf_check.report import ERROR, Finding, PackageReport

NAME = "uploader"  # its entry in the checker registry
SYSTEM_SUBMITTER_NOT_UPLOADER = "SYSTEM_SUBMITTER_NOT_UPLOADER"
LOG_ORG_NOT_UPLOADER = "LOG_ORG_NOT_UPLOADER"


def is_uploader(name: str, uploader_names: Iterable[str]) -> bool:
    wanted = normalize_org(name)
    return bool(wanted) and any(wanted == normalize_org(known) for known in uploader_names)


def check_uploader(report: PackageReport, uploader: str, aliases: Iterable[str] = ()) -> int:
    """Attach an error to every system description and every log of `report` that names another
    organization than `uploader` (display name) or one of its `aliases`, and make such a system's
    submitter `uploader`, so nothing is stored as the other organization's. Returns the count."""
    names = [uploader, *aliases]
    accepted = ", ".join(repr(n) for n in names)
    count = 0
    for system in report.systems:
        submitter = system.description.get("submitter")
        if isinstance(submitter, str) and submitter.strip() and not is_uploader(submitter, names):
            system.normalized["submitter"] = uploader
            system.findings.append(_finding(
                SYSTEM_SUBMITTER_NOT_UPLOADER,
                f"{system.file} says submitter {short_repr(submitter)} but the package was uploaded by "
                f"{uploader!r} (accepted names: {accepted}); its systems are stored as {uploader!r}'s",
                file=system.file, key="submitter", expected=uploader, actual=submitter,
            ))
            count += 1
    for result in report.results:
        for run in result.runs:
            if run.org.strip() and not is_uploader(run.org, names):
                run.findings.append(_finding(
                    LOG_ORG_NOT_UPLOADER,
                    f"the log says submission_org {short_repr(run.org)} but the package was uploaded by "
                    f"{uploader!r} (accepted names: {accepted})",
                    file=run.file, key="submission_org", expected=uploader, actual=run.org,
                ))
                count += 1
    return count


def _finding(code: str, message: str, *, file: str, key: str, expected: str, actual: str) -> Finding:
    return Finding(ERROR, code, message, file=file, key=key, expected=expected, actual=actual[:200],
                   checker=NAME, checker_version=checker_version(NAME))
