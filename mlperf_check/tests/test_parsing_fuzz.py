"""Property-based tests of the log parser: for any bytes, and for real lines mutated in every way an
upload can break them, iter_records never raises, returns sane Records and findings, and does not
depend on where the stream's blocks happen to end."""

from __future__ import annotations

import hashlib
import io
import json
import math
from unittest import mock

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mlperf_check.parsing import ParseStats, iter_records, reader
from mlperf_check.report import SEVERITIES, Finding, Record
from mlperf_check.tests.test_parsing import (
    ALIBABA_TIME_S,
    BERT_BACKSPACES,
    BERT_RANK_PREFIX,
    DLRM_CRLF,
    GOOGLE_SUBMISSION,
    MLL_MASK_EVAL,
    MLL_RUN_STOP,
    MLP_EVAL,
    MLP_FLIP,
    MLP_RUN_START,
    RESNET_EVAL,
    RESNET_RUN_START,
)

REAL_LINES = [
    RESNET_RUN_START,
    RESNET_EVAL,
    BERT_RANK_PREFIX,
    BERT_BACKSPACES,
    DLRM_CRLF.rstrip(),
    GOOGLE_SUBMISSION,
    ALIBABA_TIME_S,
    MLL_RUN_STOP,
    MLL_MASK_EVAL,
    MLP_EVAL,
    MLP_RUN_START,
    MLP_FLIP,
    b"INFO:root:epoch 3 done",
]
TOKENS = [
    b":::MLLOG ",
    b":::MLLOG",
    b":::MLL ",
    b":::MLL",
    b":::MLPv0.5.0 ",
    b":::ML",
    b"NaN",
    b"\x00",
    b"\xff",
]
TERMINATORS = [b"\n", b"\r\n", b"\r", b""]
PARSER_CODES = {
    "PARSE_BAD_JSON",
    "PARSE_MISSING_FIELD",
    "PARSE_BAD_TIME",
    "PARSE_BAD_LINE",
    "PARSE_LINE_TOO_LONG",
    "PARSE_MIXED_FORMATS",
    "PARSE_TOO_MANY_FINDINGS",
}
SMALL_MAX_LINE = 1000  # so that "huge" lines stay cheap to generate
FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def mutated_line(draw: st.DrawFn) -> bytes:
    line = draw(st.sampled_from(REAL_LINES))
    for _ in range(draw(st.integers(0, 4))):
        at = draw(st.integers(0, len(line)))
        mutation = draw(st.sampled_from(["insert", "delete", "flip", "truncate", "token", "repeat"]))
        if mutation == "insert":
            line = line[:at] + draw(st.binary(min_size=1, max_size=8)) + line[at:]
        elif mutation == "delete":
            line = line[:at] + line[at + draw(st.integers(1, 30)) :]
        elif mutation == "flip" and at < len(line):
            line = line[:at] + bytes([line[at] ^ draw(st.integers(1, 255))]) + line[at + 1 :]
        elif mutation == "truncate":
            line = line[:at]
        elif mutation == "token":
            line = line[:at] + draw(st.sampled_from(TOKENS)) + line[at:]
        elif mutation == "repeat":  # duplicated tokens, and lines over SMALL_MAX_LINE
            line = line * draw(st.integers(2, 8))
    return line


logs = st.lists(
    st.tuples(st.one_of(mutated_line(), st.binary(max_size=80)), st.sampled_from(TERMINATORS)), max_size=15
).map(lambda parts: b"".join(line + end for line, end in parts))


def parse(
    data: bytes, read_size: int, max_line: int = reader.MAX_LINE
) -> tuple[list[Record], list[Finding], ParseStats]:
    findings: list[Finding] = []
    stats = ParseStats()
    with mock.patch.object(reader, "READ_SIZE", read_size), mock.patch.object(reader, "MAX_LINE", max_line):
        records = list(
            iter_records(io.BytesIO(data), file="results/s/b/result_0.txt", findings=findings, stats=stats)
        )
    return records, findings, stats


def assert_sane(data: bytes, records: list[Record], findings: list[Finding], stats: ParseStats) -> None:
    line_count = data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
    assert stats.size_bytes == len(data)
    assert stats.sha256 == hashlib.sha256(data).hexdigest()
    assert stats.line_count == line_count
    assert stats.log_format in ("mllog", "mll", "mlp05", "")
    assert stats.log_format or not records
    assert stats.event_count or not stats.log_format
    for record in records:
        assert type(record) is Record
        assert type(record.key) is str
        assert type(record.metadata) is dict
        assert type(record.time_ms) is float and math.isfinite(record.time_ms)
        assert 1 <= record.line <= line_count
        assert 0 <= record.index < stats.event_count
    assert [r.index for r in records] == sorted({r.index for r in records})
    assert [r.line for r in records] == sorted(r.line for r in records)
    for finding in findings:
        assert type(finding) is Finding
        assert finding.severity in SEVERITIES
        assert finding.code in PARSER_CODES
        assert (finding.checker, finding.checker_version) == ("parser", 1)
        assert finding.line is None or 1 <= finding.line <= line_count
        assert "\x00" not in finding.actual + finding.key
        (finding.message + finding.actual + finding.key).encode("utf-8")
    per_code = [f.code for f in findings]
    assert all(per_code.count(code) <= 50 for code in PARSER_CODES - {"PARSE_TOO_MANY_FINDINGS"})
    if "PARSE_TOO_MANY_FINDINGS" not in per_code:
        # every event line is a record or exactly one error finding
        errors = sum(1 for f in findings if f.severity == "error")
        assert len(records) + errors == stats.event_count


@FUZZ
@given(st.lists(st.binary(max_size=300) | st.sampled_from(TOKENS + TERMINATORS), max_size=30).map(b"".join))
def test_it_never_raises_on_arbitrary_bytes(data: bytes) -> None:
    assert_sane(data, *parse(data, read_size=64, max_line=SMALL_MAX_LINE))


@FUZZ
@given(logs, st.sampled_from([3, 7, 64, 333]))
def test_it_never_raises_on_mutated_real_lines_and_ignores_block_boundaries(
    data: bytes, read_size: int
) -> None:
    whole = parse(data, read_size=1 << 20, max_line=SMALL_MAX_LINE)
    assert_sane(data, *whole)
    in_blocks = parse(data, read_size=read_size, max_line=SMALL_MAX_LINE)
    assert repr(in_blocks) == repr(whole)  # repr: NaN values compare unequal to themselves


@FUZZ
@given(logs, st.sampled_from([7, 64, 1 << 20]))
def test_searching_a_block_for_events_gives_what_splitting_it_gives(data: bytes, read_size: int) -> None:
    # scan() searches a block of mostly other output and splits one of mostly events; which one a
    # block takes must never change the result
    results = []
    for mostly_other_output in (True, False):
        with mock.patch.object(
            reader, "mostly_other_output", lambda _data, answer=mostly_other_output: answer
        ):
            results.append(repr(parse(data, read_size=read_size, max_line=SMALL_MAX_LINE)))
    assert results[0] == results[1]


json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**63)
    | st.floats(allow_nan=False)
    | st.text(max_size=20)
)
json_values = st.recursive(
    json_scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)
prefixes = st.sampled_from([b"", b"0: ", b"[1,0]<stdout>:", b"[31] ", b"kk\x08\x08\x08", b"loss=1.5 "])


@settings(FUZZ, max_examples=100)  # generating nested JSON is the slow part
@given(
    st.lists(
        st.tuples(
            prefixes,
            st.text(min_size=1, max_size=30),
            json_values,
            st.dictionaries(st.text(max_size=10), json_values, max_size=4),
            st.integers(0, 2**45) | st.floats(0, 2e12),
        ),
        max_size=8,
    ),
    st.sampled_from([b"\n", b"\r\n"]),
)
def test_it_returns_exactly_the_events_that_were_logged(events: list, end: bytes) -> None:
    data = b"".join(
        prefix
        + b":::MLLOG "
        + json.dumps(
            {"namespace": "", "time_ms": time_ms, "key": key, "value": value, "metadata": metadata}
        ).encode()
        + end
        for prefix, key, value, metadata, time_ms in events
    )
    records, findings, stats = parse(data, read_size=1 << 20)
    assert findings == []
    assert [(r.key, r.value, r.metadata, r.time_ms, r.line, r.index) for r in records] == [
        (key, value, metadata, float(time_ms), n + 1, n)
        for n, (_, key, value, metadata, time_ms) in enumerate(events)
    ]
    assert stats.event_count == len(events)
