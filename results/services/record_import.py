"""Import the public record (`manage.py import_record`): results checkouts as MLCommons publishes
them (training_results_vX.Y, inference_results_vX.Y with its summary_results.json, hpc_results_vX.Y,
and the corpus's round folders), each recognized by its suite and round, imported submitter unit by
submitter unit.

A unit is one organization's folders in a checkout (the suite's Submitter: one submitter folder, or
an inference organization's closed/ and open/ folders). Its suite checks it (in `jobs` worker
processes, which read no database) and stores it as a new version of its submission, exactly as
import_results does: the same suite methods, the same content digest that makes an unchanged
package a no-op.

Progress is a model, ImportedFolder: each finished unit's row, written in the transaction that
stores its version, records the fingerprint of what was checked (its files' names, sizes and
modification times, the review's bypass decisions, the checkers' versions and the round's
ruleset). A unit whose fingerprint is unchanged is not checked again, so an interrupted import
continues with the units it had not finished and a second import changes nothing (and checks
nothing). `recheck` checks every unit again (unchanged content still stores nothing).

Official entry ids come from the published summary where the checkout has one (its
summary_results.json; the corpus keeps it as ../reference/summary_results_v<version>.json; an
id mapping `<checkout>-ids.json` beside it, as sample_data/ has); its figures are compared with
the stored ones in the summary.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import closing
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from django.db import DataError, IntegrityError, connection, transaction

from mlperf_check.errors import PackageUnreadable, UnknownRules
from mlperf_check.finding_sources import CHECKERS
from mlperf_check.inference.summary_results import SummaryRecord, SummaryResultsError, parse_summary_results
from mlperf_check.suites import suite_for

from .. import suites
from ..models import ImportedFolder, Result, Round
from ..querysets import RoundSlugError
from ..suites import Checked, Submitter
from .citable import official_entry, read_id_mapping, reserve_official_entries
from .rounds import ensure_round, publish_round, ruleset_of, suite_rulesets
from .training_import import waivers_for

# A round version at the end of a checkout's name: training_results_v4.0, inference-v4.1, v1.0.
VERSION_IN_NAME = re.compile(r"(?:^|[_-])v?(\d+\.\d+)$")
# A published figure and a stored one differ when they differ by more than this, relative (the
# summary prints what the checker read from the same log, to its precision).
FIGURE_TOLERANCE = 1e-6


class CheckoutError(ValueError):
    """A folder that is not a results checkout this database can import, and why."""


@dataclass(frozen=True)
class Checkout:
    path: Path
    suite: str  # a name of results.suites.SUITES
    version: str  # the round's version, "4.0"
    ids: Path | None  # official entry ids: summary_results.json or an id mapping

    @property
    def round_slug(self) -> str:
        return f"{self.suite}-v{self.version}"


@dataclass
class UnitOutcome:
    """What became of one unit: created, updated or unchanged (its version stored, or the same
    content already there), failed (none of its folders could be checked), or skipped (finished
    by an earlier import, its files unchanged since)."""

    name: str
    status: str
    results: int = 0
    runs: int = 0
    errors: tuple[str, ...] = ()
    earlier: str = ""  # skipped: the status of the import that finished it

    @property
    def failed(self) -> bool:
        return "failed" in (self.status, self.earlier)


@dataclass
class RoundSummary:
    """One checkout's import, for the summary at the end."""

    checkout: Checkout
    round_: Round
    units: list[UnitOutcome] = field(default_factory=list)
    results: int = 0  # the round's results in its current versions
    official_valid: int = 0
    official_invalid: int = 0
    valid: int = 0  # our verdict (the official checker's and the stricter rules)
    published_figures: int = 0  # results the published summary lists (0: the checkout has none)
    differences: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def count(self, status: str) -> int:
        return sum(1 for unit in self.units if unit.status == status)


def recognize_checkout(path: Path) -> Checkout:
    """The suite (the first checker suite that recognizes the folder, mlperf_check/suites/), the
    round (from the folder's name, else from the rules its first package was checked with) and
    the official ids of a results checkout; CheckoutError when it is none this database imports."""
    path = Path(path)
    if not path.is_dir():
        raise CheckoutError(f"{path}: not a folder")
    checker = suite_for(path)
    if checker.name not in suites.SUITES:
        raise CheckoutError(f"{path}: a {checker.label} results folder; this database holds no {checker.label} rounds")
    named_suites = [name for name in suites.SUITES if re.search(rf"(?:^|_){name}_results", path.name)]
    if named_suites and checker.name not in named_suites:
        # hpc_results_v0.7 has training's layout (no strong/ or weak/ folders): imported as
        # training it would put HPC results in the training round of the same version.
        raise CheckoutError(f"{path}: named as {named_suites[0]} results, but its folders have the layout of "
                            f"{checker.label} results; not imported")
    suite = suites.SUITES[checker.name]
    units = suite.submitters(path)
    if not units:
        raise CheckoutError(f"{path}: no {suite.submitter_layout} found")
    named = VERSION_IN_NAME.search(path.name)
    version = named.group(1) if named else _version_from_contents(checker, checker.name, units[0])
    try:
        suite.ruleset_name(version)
    except UnknownRules as exc:  # tiny_results_v0.7: the checker knows Tiny's rules from v1.3 only
        raise CheckoutError(f"{path}: {checker.label} v{version} results; {exc}") from exc
    return Checkout(path, checker.name, version, _official_ids(path, version))


def publication_day(checkout: Checkout):
    """The day MLCommons published the checkout's round (what --publish dates it with);
    CheckoutError when it is not known."""
    published_at = suites.SUITES[checkout.suite].published.get(checkout.version)
    if published_at is None:
        raise CheckoutError(f"{checkout.path}: the day MLCommons published {checkout.round_slug} is not known; "
                            "import it without --publish")
    return published_at


def _version_from_contents(checker, suite: str, unit: Submitter) -> str:
    """The round whose rules the first package of the checkout names (its logs' ruleset, an
    inference package's LoadGen seeds)."""
    try:
        document = checker.check_package(unit.folders[0]).to_json()
        named = document.get("ruleset") or document.get("round") or ""
        return suite_rulesets(suite)[ruleset_of(suite, named)]
    except (PackageUnreadable, UnknownRules, ValueError) as exc:
        raise CheckoutError(f"{unit.folders[0]}: the folder's name gives no round and its files none known ({exc})") \
            from exc


def _official_ids(path: Path, version: str) -> Path | None:
    candidates = (
        path / "summary_results.json",  # a results repository as MLCommons publishes it
        path.parent / "reference" / f"summary_results_v{version}.json",  # the corpus
        path.with_name(f"{path.name}-ids.json"),  # an id mapping beside the checkout (sample_data/)
    )
    return next((candidate for candidate in candidates if candidate.is_file()), None)


def fingerprint(unit: Submitter, *, round_: Round, bypasses: frozenset) -> str:
    """What a unit's import depends on: its files (names, sizes, modification times; read from the
    folder entries, not the contents), the review's bypass decisions, the checkers' versions and
    the round's ruleset. Unchanged: checking it again would store the same version."""
    digest = hashlib.sha256()
    digest.update(json.dumps([round_.ruleset_version, sorted(bypasses), sorted(CHECKERS.items())]).encode())
    for folder in unit.folders:
        for directory, subdirectories, files in os.walk(folder):
            subdirectories.sort()
            for name in sorted(files):
                file = Path(directory, name)
                try:
                    stat = file.stat()
                except OSError:
                    continue  # a dangling link: the check says what it makes of it
                digest.update(f"{file.relative_to(folder.parent)}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def _check(suite_name: str, unit: Submitter, round_: Round, bypasses: frozenset) -> Checked:
    """One unit checked; runs in a worker process (no database)."""
    return suites.SUITES[suite_name].check(unit, round_=round_, bypasses=bypasses)


def checked_in_order(
    suite_name: str, pending: list[tuple[Submitter, frozenset]], round_: Round, jobs: int
) -> Iterator[Checked]:
    """The pending units checked, yielded in their order: by `jobs` worker processes (all handed to
    the pool at once, so that the workers stay busy while this process stores), or in this process
    with one job."""
    if jobs <= 1 or len(pending) <= 1:
        for unit, bypasses in pending:
            yield _check(suite_name, unit, round_, bypasses)
        return
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(_check, suite_name, unit, round_, bypasses) for unit, bypasses in pending]
        try:
            for future in futures:
                yield future.result()
        finally:
            # Interrupted (Ctrl-C, an error storing a unit): the checks not started are dropped.
            pool.shutdown(wait=False, cancel_futures=True)


def official_entries_of(official: dict[tuple[str, str], str], unit: Submitter) -> dict[str, str]:
    """The official entries of one unit's systems, by system id (and `<system id>.<division>`)."""
    return {system_id: entry for (folder, system_id), entry in official.items() if folder in unit.folder_names}


def import_checkout(
    checkout: Checkout,
    *,
    jobs: int = 1,
    publish: bool = False,
    published_factors_by=None,
    recheck: bool = False,
    on_unit: Callable[[UnitOutcome, int, int], None] | None = None,
) -> RoundSummary:
    """Import every unit of a checkout into its round (created from its suite's rules when new):
    each unit in its own transaction, with its progress row. `publish`: the round is published on
    the day MLCommons published it, once every unit is in. `on_unit(outcome, done, total)` after
    each unit (skipped ones included). Raises CheckoutError before importing anything when the
    round or the ids cannot be had."""
    started = time.monotonic()
    published_at = publication_day(checkout) if publish else None
    try:
        round_ = ensure_round(checkout.round_slug)
        official = read_id_mapping(checkout.ids) if checkout.ids else {}
        reserve_official_entries(round_, official.values())
    except (RoundSlugError, ValueError) as exc:  # UnknownRuleset and IdMappingError are ValueErrors
        raise CheckoutError(f"{checkout.path}: {exc}") from exc
    suite = suites.of(round_)
    units = suite.submitters(checkout.path)
    summary = RoundSummary(checkout, round_)
    finished = {row.source: row for row in ImportedFolder.objects.filter(round=round_)}

    def report(outcome: UnitOutcome) -> None:
        summary.units.append(outcome)
        if on_unit is not None:
            on_unit(outcome, len(summary.units), len(units))

    pending: list[tuple[Submitter, frozenset, str]] = []
    for unit in units:
        bypasses = waivers_for(round_, unit.slug)
        prints = fingerprint(unit, round_=round_, bypasses=bypasses)
        earlier = finished.get(unit.source)
        if not recheck and earlier is not None and earlier.fingerprint == prints:
            report(UnitOutcome(unit.name, "skipped", errors=tuple(earlier.errors.splitlines()), earlier=earlier.status))
        else:
            pending.append((unit, bypasses, prints))
    checks = checked_in_order(suite.name, [(unit, bypasses) for unit, bypasses, _ in pending], round_, jobs)
    with closing(checks):
        for (unit, _bypasses, prints), checked in zip(pending, checks, strict=True):
            report(_store_unit(suite, unit, checked, prints, round_=round_, publish=publish,
                               published_factors_by=published_factors_by,
                               official_entries=official_entries_of(official, unit)))
    if publish:
        publish_round(round_, published_at=datetime(published_at.year, published_at.month, published_at.day, tzinfo=UTC))
    _count_results(summary)
    if checkout.ids:
        _compare_published_figures(summary, checkout.ids)
    summary.seconds = time.monotonic() - started
    return summary


def _store_unit(
    suite, unit: Submitter, checked: Checked, prints: str, *, round_: Round, publish: bool, published_factors_by,
    official_entries: dict[str, str],
) -> UnitOutcome:
    """A checked unit's version and its progress row, in one transaction. A unit whose rows the
    database refuses (a constraint they break) is rolled back and reported as failed, with no
    fingerprint so that the next import tries it again, and the import goes on with the others."""
    try:
        return _stored_unit(suite, unit, checked, prints, round_=round_, publish=publish,
                            published_factors_by=published_factors_by, official_entries=official_entries)
    except (IntegrityError, DataError) as exc:
        outcome = UnitOutcome(unit.name, "failed", errors=(*checked.errors, f"{unit.name}: not stored: {exc}".strip()))
        ImportedFolder.objects.update_or_create(
            round=round_, source=unit.source,
            defaults={"fingerprint": "", "submission": None, "status": "failed", "errors": "\n".join(outcome.errors)},
        )
        return outcome


def _stored_unit(
    suite, unit: Submitter, checked: Checked, prints: str, *, round_: Round, publish: bool, published_factors_by,
    official_entries: dict[str, str],
) -> UnitOutcome:
    with transaction.atomic():
        if checked.package is None:
            outcome = UnitOutcome(unit.name, "failed", errors=checked.errors)
            submission = None
        else:
            stored = suite.import_checked(unit, checked, round_=round_, publish=publish,
                                          published_factors_by=published_factors_by,
                                          official_entries=official_entries)
            runs = stored.runs if suite.keeps_runs else 0  # an inference result is one run, not counted apart
            outcome = UnitOutcome(unit.name, stored.status, stored.results, runs, checked.errors)
            submission = stored.submission
        ImportedFolder.objects.update_or_create(
            round=round_, source=unit.source,
            defaults={"fingerprint": prints, "submission": submission, "status": outcome.status,
                      "errors": "\n".join(outcome.errors)},
        )
    return outcome


def refresh_planner_statistics() -> None:
    """PostgreSQL's planner counts the tables as it last analyzed them (empty, on a fresh
    database) until autovacuum comes by: after a bulk import, thousands of rows planned as none
    were joined row by row and a round page took seconds. ANALYZE now, once, after the import."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")


def _count_results(summary: RoundSummary) -> None:
    current = Result.objects.filter(submission__round=summary.round_, submission__is_current=True)
    summary.results = current.count()
    summary.official_valid = current.filter(official_valid=True).count()
    summary.official_invalid = summary.results - summary.official_valid
    summary.valid = current.filter(valid=True).count()


def _compare_published_figures(summary: RoundSummary, ids: Path) -> None:
    """Each result of the published summary (summary_results.json) against the stored result of
    its entry, model and scenario: missing, or a figure that differs. An id mapping has no figures."""
    try:
        records = parse_summary_results(ids.read_bytes(), str(ids))
    except (OSError, SummaryResultsError):
        return  # an id mapping ({"<submitter>/<system>": "4.1-0012"}), read as such by read_id_mapping
    stored = {}
    current = Result.objects.filter(submission__round=summary.round_, submission__is_current=True)
    for entry, benchmark, scenario, value in current.values_list(
        "citable__entry", "benchmark__name", "scenario", "metric_value"
    ):
        stored[(entry, benchmark.lower(), scenario.lower())] = value  # an open model's benchmark: its folder, lower-case
    summary.published_figures = len(records)
    for record in records:
        summary.differences.extend(_difference(record, stored))


def _difference(record: SummaryRecord, stored: dict) -> Iterable[str]:
    entry = official_entry(record.result_id)
    name = f"{entry} {record.model_folder or record.model} {record.scenario}"
    # The folder's own model first: an open result of a mapped model is stored under its folder name.
    keys = [(entry, model.lower(), record.scenario.lower()) for model in (record.model_folder, record.model) if model]
    found = next((key for key in keys if key in stored), None)
    if found is None:
        yield f"{name}: published under this id, no result stored under it"
        return
    value = stored[found]
    if value is None or abs(value - record.performance) > FIGURE_TOLERANCE * max(abs(record.performance), 1e-12):
        yield f"{name}: published {record.performance:g} {record.performance_unit}, stored {value}"
