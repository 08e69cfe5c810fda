"""LoadGen logs: `mlperf_log_summary.txt` and `mlperf_log_detail.txt`, every round's format.

Summaries are `key : value` text in every round. Detail logs are
`"pid": N, "tid": N, "ts": Nns : key : value` text with multi-line values in v0.5/v0.7, and one
`:::MLLOG {json}` object per line from v1.0. Both parsers read bytes (NUL bytes in SUT names,
CRLF line endings, non-UTF-8 text) and never raise on content: what they cannot read becomes a
finding with the file and line.

The detail parser streams: it keeps the settings, the results and the errors, not the
megabytes of sample indices and git logs.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import field
from functools import partial
from typing import Any

from mlperf_check.finding_sources import checker_version
from mlperf_check.inference.detect import normalize_scenario
from mlperf_check.lean_dataclass import dataclass
from mlperf_check.report import ERROR, Finding

# Findings of the log parsers name them as their checker.
_finding = partial(Finding, checker="inference_parser", checker_version=checker_version("inference_parser"))

# A summary line: a key (letters, digits, spaces, brackets, dots, slashes) then a colon.
_SUMMARY_LINE = re.compile(r"^\s*([A-Za-z0-9_][^:]*?)\s*:\s*(.*?)\s*$")
_TEXT_DETAIL_LINE = re.compile(r'^"pid": \d+, "tid": \d+, "ts": (\d+)ns : ?(.*)$')
_GENERATED = re.compile(r'"queries" : (\d+), "samples per query" : (\d+)')
MLLOG_PREFIX = ":::MLLOG "
# The one bulky event no check reads (the loaded sample indices: megabytes on one line in dlrm,
# retinanet and LLM logs): skipped before it is decoded.
_BULK = b':::MLLOG {"key": "loaded_qsl_set"'


def decode_lines(data: bytes) -> list[str]:
    """Bytes to lines: NUL bytes dropped, any line ending, undecodable bytes replaced."""
    return data.replace(b"\0", b"").decode("utf-8", errors="replace").splitlines()


def to_number(text: Any) -> float | None:
    if isinstance(text, bool):
        return None
    if isinstance(text, int | float):
        return float(text)
    try:
        return float(str(text).strip())
    except ValueError:
        return None


def yes(text: Any) -> bool | None:
    if isinstance(text, bool):
        return text
    lowered = str(text).strip().lower()
    if lowered in ("yes", "true", "1", "valid"):
        return True
    if lowered in ("no", "false", "0", "invalid"):
        return False
    return None


@dataclass
class Summary:
    file: str
    fields: dict[str, str] = field(default_factory=dict)  # first occurrence of every key
    lines: dict[str, int] = field(default_factory=dict)  # key -> 1-based line
    findings: list[Finding] = field(default_factory=list)

    def get(self, key: str) -> str | None:
        return self.fields.get(key)

    def number(self, key: str) -> float | None:
        return to_number(self.fields.get(key)) if key in self.fields else None

    def line_of(self, key: str) -> int | None:
        return self.lines.get(key)

    @property
    def scenario(self) -> str:
        return normalize_scenario(self.fields.get("Scenario", ""))

    @property
    def mode(self) -> str:
        return self.fields.get("Mode", "")

    @property
    def valid(self) -> bool | None:
        """LoadGen's own verdict (`Result is : VALID`)."""
        value = self.fields.get("Result is")
        return None if value is None else value.upper() == "VALID"

    def flag(self, key: str) -> bool | None:
        value = self.fields.get(key)
        return None if value is None else yes(value)

    @property
    def sut_name(self) -> str:
        return self.fields.get("SUT name", "")


def parse_summary(data: bytes, file: str) -> Summary:
    summary = Summary(file)
    for number, line in enumerate(decode_lines(data), start=1):
        if line.startswith("=") or not line.strip():
            continue
        match = _SUMMARY_LINE.match(line)
        if match is None:
            continue
        key, value = match.group(1), match.group(2)
        if key not in summary.fields:
            summary.fields[key] = value
            summary.lines[key] = number
    if "Result is" not in summary.fields:
        summary.findings.append(
            _finding(
                ERROR,
                "summary_unreadable",
                "no 'Result is : VALID/INVALID' line: not a LoadGen summary",
                file,
            )
        )
    return summary


@dataclass
class LogMessage:
    line: int
    text: str


@dataclass
class Detail:
    """What the checks need from a detail log. Settings are the effective ones (text logs: the
    `Effective Settings:` block), keyed by LoadGen's names without the `effective_` prefix."""

    file: str
    log_format: str = ""  # "text" or "mllog"
    effective: dict[str, Any] = field(default_factory=dict)
    results: dict[str, Any] = field(default_factory=dict)  # MLLOG result_* and early_stopping* keys
    requested: dict[str, Any] = field(default_factory=dict)  # MLLOG requested_* settings, without the prefix
    power: dict[str, str] = field(default_factory=dict)  # MLLOG power_begin / power_end (analyzer clock)
    lines: dict[str, int] = field(default_factory=dict)  # "effective_<key>", "result_<key>" -> line
    errors: list[LogMessage] = field(default_factory=list)
    warnings: list[LogMessage] = field(default_factory=list)
    generated_queries: int | None = None
    generated_samples_per_query: int | None = None
    loadgen_version: str = ""
    first_ts_ms: float | None = None  # when the performance test started
    last_ts_ms: float | None = None  # the last timestamp seen
    line_count: int = 0
    findings: list[Finding] = field(default_factory=list)

    @property
    def scenario(self) -> str:
        return normalize_scenario(str(self.effective.get("scenario", "")))


def parse_detail(lines: Iterable[bytes], file: str) -> Detail:
    """`lines` yields raw lines (a file opened in binary mode): one pass, bounded memory."""
    detail = Detail(file)
    section = ""
    bad_json = 0
    for number, raw in enumerate(lines, start=1):
        detail.line_count = number
        if raw.startswith(_BULK):
            detail.log_format = detail.log_format or "mllog"
            continue
        line = raw.replace(b"\0", b"").decode("utf-8", errors="replace").rstrip("\r\n")
        if line.startswith(MLLOG_PREFIX):
            detail.log_format = detail.log_format or "mllog"
            try:
                event = json.loads(line[len(MLLOG_PREFIX) :])
            except ValueError:
                bad_json += 1
                if bad_json == 1:
                    detail.findings.append(
                        _finding(ERROR, "detail_bad_json", "a :::MLLOG line is not valid JSON", file, number)
                    )
                continue
            if isinstance(event, dict):
                _mllog_event(detail, event, number)
            continue
        match = _TEXT_DETAIL_LINE.match(line)
        if match is None:
            continue  # a continuation line of a multi-line value (git log, conf echo)
        detail.log_format = detail.log_format or "text"
        ts_ms = int(match.group(1)) / 1e6
        detail.last_ts_ms = ts_ms
        section = _text_event(detail, match.group(2), number, ts_ms, section)
    if not detail.log_format:
        detail.findings.append(
            _finding(
                ERROR, "detail_unreadable", "no LoadGen log line (text or :::MLLOG) in the detail log", file
            )
        )
    elif bad_json > 1:
        first_bad = next(f for f in detail.findings if f.code == "detail_bad_json")
        first_bad.message += f" ({bad_json} such lines)"
    return detail


# An :::MLLOG line that may be an error event (the JSON is decoded only then).
_MAYBE_ERROR = re.compile(rb'"is_error"\s*:\s*true|"key"\s*:\s*"error"')


def detail_errors(lines: Iterable[bytes]) -> list[LogMessage]:
    """Only the ERROR events of a detail log, as parse_detail reads them, in one cheap pass: the
    accuracy run's log is checked for errors and nothing else."""
    errors = []
    prefix = MLLOG_PREFIX.encode()
    for number, raw in enumerate(lines, start=1):
        if raw.startswith(prefix):
            if not _MAYBE_ERROR.search(raw):
                continue
            try:
                event = json.loads(raw[len(prefix) :])
            except ValueError:
                continue
            metadata = event.get("metadata") if isinstance(event, dict) else None
            if isinstance(event, dict) and (
                (isinstance(metadata, dict) and metadata.get("is_error")) or event.get("key") == "error"
            ):
                errors.append(LogMessage(number, str(event.get("value"))))
            continue
        match = _TEXT_DETAIL_LINE.match(
            raw.replace(b"\0", b"").decode("utf-8", errors="replace").rstrip("\r\n")
        )
        if match and match.group(2).partition(" : ")[0].strip() == "ERROR":
            errors.append(LogMessage(number, match.group(2).partition(" : ")[2].strip()))
    return errors


_SECTIONS = {"Effective Settings:": "effective", "Requested Settings:": "requested"}


def _text_event(detail: Detail, content: str, number: int, ts_ms: float, section: str) -> str:
    """One prefixed line of a v0.5/v0.7 detail log; returns the settings section it is in."""
    stripped = content.strip()
    if stripped in _SECTIONS:
        return _SECTIONS[stripped]
    if not stripped:
        return ""
    key, sep, value = content.partition(" : ")
    key = key.strip()
    if key == "ERROR":
        detail.errors.append(LogMessage(number, value.strip()))
        return section
    if key == "WARNING":
        detail.warnings.append(LogMessage(number, value.strip()))
        return section
    if stripped.startswith("GeneratedQueries:"):
        generated = _GENERATED.search(stripped)
        if generated:
            detail.generated_queries = int(generated.group(1))
            detail.generated_samples_per_query = int(generated.group(2))
        return ""
    if stripped.startswith("Starting performance mode"):
        detail.first_ts_ms = ts_ms
        return ""
    if key == "version" and not detail.loadgen_version:
        detail.loadgen_version = value.strip()
    if sep and section == "effective":  # the requested settings are what the SUT asked for, not what ran
        name = _setting_name(key)
        detail.effective[name] = value.strip()
        detail.lines[f"effective_{name}"] = number
    return section


def _setting_name(text_key: str) -> str:
    """`target_latency (ns)` -> `target_latency_ns`, `Test mode` -> `test_mode` (the MLLOG names)."""
    name = text_key.strip().lower().replace(" (ns)", "_ns").replace(" (ms)", "_ms")
    return re.sub(r"\W+", "_", name).strip("_")


def _mllog_event(detail: Detail, event: dict, number: int) -> None:
    key = str(event.get("key", ""))
    value = event.get("value")
    metadata = event.get("metadata") if isinstance(event.get("metadata"), dict) else {}
    time_ms = to_number(event.get("time_ms"))
    is_message = bool(metadata.get("is_error") or metadata.get("is_warning"))
    # Warnings from LoadGen's logging threads can carry a wrapped-around time (2^64 ns); the run's
    # own events keep the clock.
    if time_ms is not None and not is_message:
        detail.last_ts_ms = time_ms
    if metadata.get("is_error") or key == "error":
        detail.errors.append(LogMessage(number, str(value)))
    elif metadata.get("is_warning") or key == "warning":
        detail.warnings.append(LogMessage(number, str(value)))
    if key.startswith("effective_"):
        detail.effective[key[len("effective_") :]] = value
        detail.lines[key] = number
    elif key.startswith("result_") or key.startswith("early_stopping"):
        detail.results[key] = value
        detail.lines[key] = number
    elif key.startswith("requested_"):
        detail.requested[key[len("requested_") :]] = value
    elif key in ("power_begin", "power_end"):
        detail.power[key] = str(value)
    elif key == "generated_query_count":
        detail.generated_queries = _int(value)
    elif key == "generated_samples_per_query":
        detail.generated_samples_per_query = _int(value)
    elif key == "loadgen_version":
        detail.loadgen_version = str(value)
    elif key == "generic_message" and str(value).startswith("Starting performance mode"):
        detail.first_ts_ms = time_ms


def _int(value: Any) -> int | None:
    number = to_number(value)
    return None if number is None else int(number)
