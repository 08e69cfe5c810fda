"""One streaming pass over the bytes of a log: size, sha256, line counts, and a Record per event.

The stream is read in blocks of READ_SIZE bytes; memory stays bounded by MAX_LINE whatever the
input. Event lines are found with a substring search for ':::ML' over each block, so text between
events (most of a log) is never split or decoded.

Like the official parser, which reads files in Python's universal-newline mode, both '\\n' and a
lone '\\r' end an event line: tqdm-style progress bars rewrite themselves with '\\r', and a token
after one is an event of its own. Reported line numbers count '\\n' only (what editors show).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator
from itertools import chain
from typing import Any, BinaryIO

from orjson import JSONDecodeError
from orjson import loads as loads_json

from mlperf_check.finding_sources import checker_version
from mlperf_check.lean_dataclass import dataclass
from mlperf_check.parsing.formats import (
    MLL,
    MLL_TOKEN,
    MLLOG,
    MLLOG_TOKEN,
    MLP05,
    MLP_TOKEN,
    EventError,
    decode_mll,
    decode_mllog,
    decode_mlp05,
)
from mlperf_check.report import ERROR, WARNING, Finding, Record

CHECKER = "parser"  # its entry in the checker registry

READ_SIZE = 1 << 20
MAX_LINE = 4 << 20  # an event line longer than this is not parsed (no real event is over a few KB)
MAX_FINDINGS_PER_CODE = 50  # per file; junk files must not fill memory with findings
SNIPPET_CHARS = 200  # of the offending text, in Finding.actual

PARSE_LINE_TOO_LONG = "PARSE_LINE_TOO_LONG"
PARSE_MIXED_FORMATS = "PARSE_MIXED_FORMATS"
PARSE_TOO_MANY_FINDINGS = "PARSE_TOO_MANY_FINDINGS"

# Records are built without the Python-level __new__ of a NamedTuple (once per event).
new_tuple = tuple.__new__
EVENT_PREFIX = b":::ML"  # common to the three tokens: the only test most lines get
TOKEN_OVERLAP = len(MLL_TOKEN) - 1  # bytes kept between blocks to see a token cut in two
SAMPLE_BYTES = 4 << 10  # of a block, to tell mostly events from mostly other output

DECODERS: dict[str, Callable[[bytes], tuple[str, Any, dict, float]]] = {
    MLLOG: decode_mllog,
    MLL: decode_mll,
    MLP05: decode_mlp05,
}


@dataclass
class ParseStats:
    """Figures of one parsed log stream, filled as it is read."""

    size_bytes: int = 0
    line_count: int = 0  # physical lines ('\n'-terminated, plus a last unterminated one)
    event_count: int = 0  # lines carrying an event token (valid or not)
    log_format: str = ""  # "mllog" | "mll" | "mlp05" | "" (no events); the first format seen
    sha256: str = ""  # hex digest of the whole byte stream, set when the stream is exhausted (if asked)


def iter_record_blocks(
    stream: BinaryIO, *, file: str, findings: list[Finding], stats: ParseStats | None = None, digest: bool = True
) -> Iterator[list[Record]]:
    """Stream a log once, in file order. Yields the mlperf_check.report.Record(key, value, metadata,
    time_ms, line, index) of each block read (READ_SIZE bytes) as one list, possibly empty.
    Appends parser findings (checker="parser", checker_version=1) to `findings`.
    Never raises on any byte input (errors of `stream.read` itself propagate). With `digest`,
    stats.sha256 is the SHA-256 of the stream once it is read.

    The checkers take these lists whole (RunChecker.feed_records): each loops over a block
    itself, so that a record costs no call per consumer and a checker that wants few records
    costs nothing for the rest (bench/parse.py)."""
    return LogReader(file, findings, stats if stats is not None else ParseStats(), digest).blocks(stream)


def iter_records(
    stream: BinaryIO, *, file: str, findings: list[Finding], stats: ParseStats | None = None
) -> Iterator[Record]:
    """iter_record_blocks(), one record at a time."""
    return chain.from_iterable(iter_record_blocks(stream, file=file, findings=findings, stats=stats))


def event_format(segment: bytes) -> str:
    """The format whose token the text carries, or "" when it carries none (e.g. ':::MLX')."""
    if MLL_TOKEN in segment:
        return MLLOG if b":::MLLOG" in segment else MLL
    if MLP_TOKEN in segment:
        return MLP05
    return ""


def carries_token(data: bytes) -> bool:
    return MLL_TOKEN in data or MLP_TOKEN in data


class LogReader:
    def __init__(self, file: str, findings: list[Finding], stats: ParseStats, digest: bool = True) -> None:
        self.file = file
        self.digest = digest
        self.findings = findings
        self.stats = stats
        self.findings_per_code: dict[str, int] = {}
        self.mixed_reported = False
        self.newlines = 0  # '\n' bytes before the next byte to scan

    def blocks(self, stream: BinaryIO) -> Iterator[list[Record]]:
        """The records of the stream, one list per block read."""
        stats = self.stats
        hasher = hashlib.sha256() if self.digest else None
        carry = b""  # the unterminated end of the previous block
        oversized: OversizedSegment | None = None
        last_byte = b""
        while chunk := stream.read(READ_SIZE):
            if hasher is not None:
                hasher.update(chunk)
            stats.size_bytes += len(chunk)
            last_byte = chunk[-1:]
            if oversized is not None:
                rest = oversized.consume(chunk)
                if rest is None:
                    continue
                self.too_long(oversized.length, oversized.has_token, oversized.line)
                oversized = None
                chunk = rest
            data = carry + chunk if carry else chunk
            end = max(data.rfind(b"\n"), data.rfind(b"\r")) + 1
            yield self.scan(data[:end] if end < len(data) else data)
            carry = data[end:]
            if len(carry) > MAX_LINE:
                oversized = OversizedSegment(carry, self.newlines + 1)
                carry = b""
        if oversized is not None:
            self.too_long(oversized.length, oversized.has_token, oversized.line)
        elif carry:
            yield self.scan(carry)
        stats.line_count = self.newlines + (1 if last_byte not in (b"", b"\n") else 0)
        if hasher is not None:
            stats.sha256 = hasher.hexdigest()
        self.report_suppressed()

    def scan(self, data: bytes) -> list[Record]:
        """The records of the event lines in `data`, which ends with a line terminator except for
        the last piece of a stream. Counts its '\\n' into self.newlines.

        A block of mostly other output (most of a long training log) is searched for ':::ML'
        instead of split (event_lines()); a block of mostly events is split, cheaper there.
        This loop runs once per line, so the common case (a well-formed ':::MLLOG {json}' line in
        a block without a lone '\\r' or an over-long line) is decoded inline, with no call but the
        JSON decoder's: this is most of the parser's cost (bench/parse.py). Any other event line
        takes event(), which says what is wrong, or segments()."""
        records: list[Record] = []
        append = records.append
        stats = self.stats
        plain = b"\r" not in data and len(data) <= MAX_LINE  # then no line needs segments()
        mllog = stats.log_format == MLLOG
        index = stats.event_count
        first_number = self.newlines + 1
        if mostly_other_output(data):
            lines: Iterable[tuple[int, bytes]] = event_lines(data, first_number)
            self.newlines += data.count(b"\n")
        else:
            split = data.split(b"\n")  # at least one line
            lines = enumerate(split, first_number)
            self.newlines += len(split) - 1
        for number, line in lines:
            if line.find(EVENT_PREFIX) < 0:  # not `in`: bytes.__contains__ first tries its operand
                continue  # as an integer, raising and clearing a TypeError per line (~120 ns)
            if not plain:
                if line[-1:] == b"\r":  # CRLF ends a line like LF; line numbers count '\n'
                    line = line[:-1]
                if line.find(b"\r") >= 0 or len(line) > MAX_LINE:
                    stats.event_count = index
                    records.extend(self.segments(line, number))
                    index = stats.event_count
                    mllog = stats.log_format == MLLOG
                    continue
            if mllog:
                _, token, payload = line.rpartition(MLLOG_TOKEN)  # the text after the last token
                if token:
                    try:
                        event = loads_json(payload)
                        key = event["key"]
                        metadata = event["metadata"]
                        raw_time = event["time_ms"]
                        value = event["value"]
                    except (JSONDecodeError, KeyError, TypeError):
                        pass
                    else:
                        if type(key) is str and type(metadata) is dict and type(raw_time) in (int, float):
                            append(new_tuple(Record, (key, value, metadata, float(raw_time), number, index)))
                            index += 1
                            continue
            stats.event_count = index
            record = self.event(line, number)
            if record is not None:
                append(record)
            index = stats.event_count
            mllog = stats.log_format == MLLOG
        stats.event_count = index
        return records

    def segments(self, line: bytes, number: int) -> Iterator[Record]:
        """The events of a line with '\\r' in it (CRLF, progress-bar text before the event) or
        over the length limit."""
        for segment in line.split(b"\r"):
            if len(segment) > MAX_LINE:
                self.too_long(len(segment), carries_token(segment), number)
            elif EVENT_PREFIX in segment:
                record = self.event(segment, number)
                if record is not None:
                    yield record

    def event(self, segment: bytes, line: int) -> Record | None:
        fmt = MLLOG if MLLOG_TOKEN in segment else event_format(segment)
        if not fmt:
            return None
        stats = self.stats
        index = stats.event_count
        stats.event_count += 1
        if fmt != stats.log_format:
            self.note_format(fmt, line)
        try:
            key, value, metadata, time_ms = DECODERS[fmt](segment)
        except EventError as exc:
            self.report(
                ERROR, exc.code, line, exc.message, key=storable(exc.key), actual=storable(snippet(segment))
            )
            return None
        return Record(key, value, metadata, time_ms, line, index)

    def note_format(self, fmt: str, line: int) -> None:
        if not self.stats.log_format:
            self.stats.log_format = fmt
        elif not self.mixed_reported:
            self.mixed_reported = True
            self.report(
                WARNING,
                PARSE_MIXED_FORMATS,
                line,
                f"a {fmt} event in a {self.stats.log_format} log; a log is expected to use one format",
                expected=self.stats.log_format,
                actual=fmt,
            )

    def too_long(self, length: int, has_token: bool, line: int) -> None:
        """A segment over MAX_LINE is never parsed, whichever block boundaries it crosses."""
        if not has_token:
            return  # program output without events: the official parser ignores it too
        self.stats.event_count += 1
        self.report(
            ERROR,
            PARSE_LINE_TOO_LONG,
            line,
            f"an event line of {length} bytes was not parsed; the limit is {MAX_LINE} bytes",
            expected=f"at most {MAX_LINE} bytes",
            actual=f"{length} bytes",
        )

    def report(self, severity: str, code: str, line: int | None, message: str, **where: str) -> None:
        count = self.findings_per_code.get(code, 0) + 1
        self.findings_per_code[code] = count
        if count > MAX_FINDINGS_PER_CODE:
            return
        self.findings.append(
            Finding(
                severity,
                code,
                f"line {line}: {message}" if line is not None else message,
                file=self.file,
                line=line,
                checker=CHECKER,
                checker_version=checker_version(CHECKER),
                **where,
            )
        )

    def report_suppressed(self) -> None:
        for code, count in self.findings_per_code.items():
            if count > MAX_FINDINGS_PER_CODE:
                self.findings.append(
                    Finding(
                        WARNING,
                        PARSE_TOO_MANY_FINDINGS,
                        f"{count - MAX_FINDINGS_PER_CODE} more {code} findings in this file are not listed "
                        f"(only the first {MAX_FINDINGS_PER_CODE} are)",
                        file=self.file,
                        key=code,
                        checker=CHECKER,
                        checker_version=checker_version(CHECKER),
                    )
                )


class OversizedSegment:
    """A segment that outgrew MAX_LINE: its bytes are dropped as they arrive; only its length,
    whether it carries an event token, and its line are kept."""

    def __init__(self, head: bytes, line: int) -> None:
        self.line = line
        self.length = len(head)
        self.has_token = carries_token(head)
        self.tail = head[-TOKEN_OVERLAP:]

    def consume(self, chunk: bytes) -> bytes | None:
        """Takes the segment's continuation from `chunk`; returns what follows the segment
        (from its terminator on), or None when the whole chunk still belongs to it."""
        stop = chunk.find(b"\n")
        cr = chunk.find(b"\r", 0, stop if stop >= 0 else len(chunk))
        if cr >= 0:
            stop = cr
        body = self.tail + (chunk if stop < 0 else chunk[:stop])
        self.length += len(body) - len(self.tail)
        self.has_token = self.has_token or carries_token(body)
        self.tail = body[-TOKEN_OVERLAP:]
        return None if stop < 0 else chunk[stop:]


def mostly_other_output(data: bytes) -> bool:
    """Whether fewer than one line in eight carries ':::ML', judged on SAMPLE_BYTES in the middle of
    the block (the head of a log is often start-up output before a dense run of events). Only
    the speed of scan() depends on it, never its result."""
    start = max(0, (len(data) - SAMPLE_BYTES) // 2)
    end = start + SAMPLE_BYTES
    return data.count(EVENT_PREFIX, start, end) * 8 < data.count(b"\n", start, end)


def event_lines(data: bytes, first_number: int) -> list[tuple[int, bytes]]:
    """The lines of `data` that carry ':::ML', with their numbers (the first line's being
    first_number), found with C searches over the whole block: no line between them is split out
    or looked at from Python."""
    lines = []
    find = data.find
    line_start = 0  # of the first line not yet counted, whose number is `number`
    number = first_number
    at = find(EVENT_PREFIX)
    while at >= 0:
        start = data.rfind(b"\n", line_start, at) + 1 or line_start
        number += data.count(b"\n", line_start, start)
        end = find(b"\n", at)
        if end < 0:
            end = len(data)
        lines.append((number, data[start:end]))
        line_start = end + 1
        number += 1
        at = find(EVENT_PREFIX, end)
    return lines


def snippet(segment: bytes) -> str:
    return segment[: SNIPPET_CHARS * 4].decode("utf-8", "replace")[:SNIPPET_CHARS]


def storable(text: str) -> str:
    """Log text as it may go into a finding: no NUL (PostgreSQL text refuses it) and no lone
    surrogate (json decodes '\\ud800' into one; UTF-8 cannot encode it)."""
    return text.encode("utf-8", "replace").decode("utf-8").replace("\x00", "\ufffd")
