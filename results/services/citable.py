"""Citable result ids: one registry row (models.CitableId) per result of a round, whatever the
suite, found again for every later version of the same result and never given to another.

An id reads `<suite>:<entry>:<benchmark>` (inference: `:<scenario>` after it), e.g.
`training:4.1-0012:resnet`, `inference:4.1-0001:resnet50:Offline`. The entry is the system's entry
in the round in MLCommons' scheme (`<version>-NNNN`, one per system, shared by its benchmarks):
the official one where the data carries it (summary_results.json, an id mapping), else numbered
here and marked local. The suite is part of the id because MLCommons numbers each suite's entries
on its own (training 4.1-0012 and inference 4.1-0012 are different systems).

A version's results get their ids once it is admitted (assign_result_ids, from
results.services.lifecycle): a held version registers none, so a package a chair never lets stand
leaves no gap in the round's numbering; it carries only the ids its results already had."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from django.db import transaction

from mlperf_check.inference.summary_results import ID_PATTERN, SummaryResultsError, parse_summary_results

from ..constants import Suite
from ..models import CitableId, Organization, Result, Round, Submission

# An entry id as people paste it: `4.1-0012`, `v4.1-0012`, `V4.1-12`, with its suite before it as in
# a result id (`inference:4.1-0012`) or not.
PASTED_ENTRY = re.compile(rf"^(?:({'|'.join(Suite.values)}):)?v?(\d+\.\d+)-(\d+)$", re.IGNORECASE)


class IdMappingError(ValueError):
    """An id mapping file that cannot be read, with the file and the entry at fault."""


@dataclass(frozen=True)
class EntryReference:
    suite: str  # "" where the text names none: the entry of that number in every suite
    entry: str  # as the registry keeps it: "4.1-0012"


def entry_reference(text: str) -> EntryReference | None:
    """The entry that `text` names as people paste one (`v4.1-0012`, `4.1-12`, `inference:4.1-0012`),
    or None when it is no entry id."""
    match = PASTED_ENTRY.match(text.strip())
    if match is None:
        return None
    suite, version, number = match.groups()
    return EntryReference((suite or "").lower(), f"{version}-{int(number):04d}")


def canonical_result_id(text: str) -> str:
    """A result id as people paste it, spelled as the registry spells it: the suite in lower case and
    the entry without its v, in four digits (`Inference:v4.1-1:resnet50:Offline` ->
    `inference:4.1-0001:resnet50:Offline`). The benchmark and scenario are left as written."""
    text = text.strip()
    suite, _, rest = text.partition(":")
    entry, separator, tail = rest.partition(":")
    reference = entry_reference(entry)
    if not separator or reference is None:
        return text
    return f"{suite.lower()}:{reference.entry}:{tail}"


def official_entry(text: str) -> str:
    """`v4.1-0001` or `4.1-0001` -> `4.1-0001` (MLCommons' pages write it without the v)."""
    match = ID_PATTERN.match(text.strip())
    if match is None:
        raise ValueError(f"'{text}' is not an entry id <round>-<number> (e.g. 4.1-0012)")
    return f"{match.group(1)}-{match.group(2)}"


def result_id_for(round_: Round, entry: str, benchmark: str, scenario: str = "") -> str:
    return ":".join(part for part in (round_.suite, entry, benchmark, scenario) if part)


def citable_id(
    round_: Round, organization: Organization, system_id: str, benchmark: str, scenario: str = "",
    *, official: str | None = None,
) -> CitableId:
    """The registry row of one result, created the first time it is seen. `official`: the entry
    MLCommons published for the system, if known. A system keeps one entry for all its results."""
    key = dict(round=round_, organization=organization, system_id=system_id, benchmark=benchmark, scenario=scenario)
    with transaction.atomic():
        Round.objects.select_for_update().get(pk=round_.pk)  # one writer numbers a round at a time
        found = CitableId.objects.filter(**key).first()
        if found is not None:
            return found
        sibling = (
            CitableId.objects.filter(round=round_, organization=organization, system_id=system_id)
            .exclude(entry="").order_by("pk").first()
        )
        if official:
            entry, local = official_entry(official), False
        elif sibling is not None:
            entry, local = sibling.entry, sibling.local
        else:
            entry, local = _next_local_entry(round_), True
        return CitableId.objects.create(
            **key, entry=entry, local=local, result_id=result_id_for(round_, entry, benchmark, scenario)
        )


def assign_result_ids(submission: Submission, *, register: bool = True, official: dict[int, str] | None = None) -> int:
    """Give every result of `submission` that has no id yet its citable id: the one already
    registered for its (system, benchmark, scenario or HPC scaling) in the round, else, when
    `register`, a newly registered one (`official`: MLCommons' entry by result pk, from an import's
    id mapping). A held version is assigned with `register` False. Returns how many got an id.
    Numbered in the order the results were written, as the imports always numbered them."""
    official = official or {}
    assigned = []
    waiting = Result.objects.filter(submission=submission, citable__isnull=True).select_related("system", "benchmark")
    for result in waiting.order_by("pk"):
        key = dict(system_id=result.system.system_id, benchmark=result.benchmark.name,
                   scenario=result.scenario or result.scaling)
        if register:
            citable = citable_id(submission.round, submission.organization, **key, official=official.get(result.pk))
        else:
            citable = CitableId.objects.filter(round=submission.round_id, organization=submission.organization_id,
                                               **key).first()
            if citable is None:
                continue
        result.citable, result.result_id = citable, citable.result_id
        assigned.append(result)
    Result.objects.bulk_update(assigned, ["citable", "result_id"], batch_size=1000)
    return len(assigned)


def reserve_official_entries(round_: Round, entries) -> None:
    """Number local entries of the round after the highest of MLCommons' `entries` (an import's id
    mapping): a result the published summary does not list (one the official checker rejected)
    would otherwise take a number that a system imported after it holds officially."""
    numbers = [int(official_entry(entry).rpartition("-")[2]) for entry in entries]
    if numbers:
        Round.objects.filter(pk=round_.pk, next_result_number__lte=max(numbers)).update(
            next_result_number=max(numbers) + 1
        )


def _next_local_entry(round_: Round) -> str:
    """The next entry number of the round that no entry (official or local) uses yet."""
    used = set(CitableId.objects.filter(round=round_).values_list("entry", flat=True))
    number = Round.objects.get(pk=round_.pk).next_result_number
    while f"{round_.version}-{number:04d}" in used:
        number += 1
    Round.objects.filter(pk=round_.pk).update(next_result_number=number + 1)
    return f"{round_.version}-{number:04d}"


def read_id_mapping(path: str | Path) -> dict[tuple[str, str], str]:
    """Official entries by (submitter folder, system id), from MLCommons' summary_results.json (a
    list) or a mapping object {"<submitter folder>/<system id>": "4.1-0012", ...}. A system in
    both divisions has an entry in each: summary_results.json also gives `<system id>.<division>`
    (the inference import looks that up first)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
        data = json.loads(text)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise IdMappingError(f"{path}: cannot read a JSON id mapping ({exc})") from exc
    mapping: dict[tuple[str, str], str] = {}
    if isinstance(data, list):
        try:
            records = parse_summary_results(text, str(path))
        except SummaryResultsError as exc:
            raise IdMappingError(str(exc)) from exc
        for index, record in enumerate(records):
            submitter = _submitter_folder(record.location, record.unique_id)
            if not submitter or not record.platform:
                raise IdMappingError(f"{path}: record {index} ({record.result_id}): no Location naming the submitter")
            entry = official_entry(record.result_id)
            mapping.setdefault((submitter, record.platform), entry)
            if record.division:
                mapping[(submitter, f"{record.platform}.{record.division}")] = entry
        return mapping
    if not isinstance(data, dict):
        raise IdMappingError(f"{path}: expected summary_results.json (a list) or an object of ids, found {type(data).__name__}")
    for key, value in data.items():
        submitter, _, system_id = str(key).partition("/")
        if not system_id:
            raise IdMappingError(f"{path}: key '{key}' is not <submitter folder>/<system id>")
        try:
            mapping[(submitter, system_id)] = official_entry(str(value))
        except ValueError as exc:
            raise IdMappingError(f"{path}: {key}: {exc}") from None
    return mapping


def _submitter_folder(location: str, unique_id: str) -> str:
    # Location: <division>/<submitter>/results/...; Unique ID: <suite>/<division>/<submitter>/<platform>
    parts = [p for p in re.split(r"/+", location) if p]
    if len(parts) >= 2:
        return parts[1]
    parts = [p for p in unique_id.split("/") if p]
    return parts[2] if len(parts) >= 3 else ""
