"""Decoding of one log event (one line, or one carriage-return segment of a line) per format.

Each `decode_*` function takes the bytes of an event line that carries its format's token and
returns `(key, value, metadata, time_ms)`, or raises `EventError` saying what was expected and what
was found. Nothing here reads the stream, counts lines or keeps state.
"""

from __future__ import annotations

import json
import math
import re
import reprlib
from typing import Any

import orjson

MLLOG = "mllog"  # rulesets >= 0.7: ':::MLLOG {json}'
MLL = "mll"  # ruleset 0.6: ':::MLL <seconds> <key>: {"value": .., "metadata": {..}}'
MLP05 = "mlp05"  # ruleset 0.5: ':::MLPv0.5.0 <benchmark> <seconds> (<file>:<lineno>) <key>[: <value>]'

MLLOG_TOKEN = b":::MLLOG "
MLL_TOKEN = b":::MLL"  # also a prefix of ':::MLLOG', so MLLOG is always tested first
MLP_TOKEN = b":::MLP"

PARSE_BAD_JSON = "PARSE_BAD_JSON"
PARSE_MISSING_FIELD = "PARSE_MISSING_FIELD"
PARSE_BAD_TIME = "PARSE_BAD_TIME"
PARSE_BAD_LINE = "PARSE_BAD_LINE"

# The official 0.6 and 0.5 grammars (mlp_parser ruleset_060.py and the v0.5 mlp_parser), as
# anchored byte patterns: the text must match from the token to the end of the stripped line.
MLL_LINE = re.compile(rb":::MLL ([\d.]+) ([A-Za-z0-9_]+) ?:\s+(.+)", re.DOTALL)
MLP05_LINE = re.compile(
    rb":::MLP(v\d+\.\d+\.\d+) ([a-z]+) ([\d.]+) \(([^: ]+):(\d+)\) ([A-Za-z0-9_]+) ?(?::\s+(.+))?", re.DOTALL
)

MLLOG_GRAMMAR = ":::MLLOG {json object}"
MLL_GRAMMAR = ':::MLL <seconds> <key>: {"value": ..., "metadata": {...}}'
MLP05_GRAMMAR = ":::MLPv0.5.0 <benchmark> <seconds> (<file>:<lineno>) <key>[: <value>]"

JSON_TYPE_NAMES = {
    dict: "a JSON object",
    list: "a JSON array",
    str: "a string",
    int: "a number",
    float: "a number",
    bool: "a boolean",
    type(None): "null",
}


SHORT_REPR = reprlib.Repr()
SHORT_REPR.maxlevel = 2
SHORT_REPR.maxstring = SHORT_REPR.maxother = 60


class EventError(Exception):
    """An event line that cannot become a Record; `code` is the finding code."""

    def __init__(self, code: str, message: str, key: str = "") -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.key = key


def decode_mllog(segment: bytes) -> tuple[str, Any, dict, float]:
    """`segment` contains ':::MLLOG'. Like the official parser, the text after the LAST
    ':::MLLOG ' is the JSON object; whatever precedes it (rank prefixes, progress bars) is ignored."""
    at = segment.rfind(MLLOG_TOKEN)
    if at < 0:
        raise EventError(
            PARSE_BAD_LINE, f"expected '{MLLOG_GRAMMAR}', found ':::MLLOG' without a space after it"
        )
    event = loads_json(segment[at + len(MLLOG_TOKEN) :].strip(), "after ':::MLLOG '")
    if type(event) is not dict:
        raise EventError(
            PARSE_BAD_LINE, f"expected a JSON object after ':::MLLOG ', found {json_type(event)}"
        )

    try:
        key = event["key"]
        value = event["value"]
        metadata = event["metadata"]
        # Alibaba's v0.7 logs write float seconds as 'time_s'.
        time_field, scale = ("time_ms", 1.0) if "time_ms" in event else ("time_s", 1000.0)
        raw_time = event[time_field]
    except KeyError:
        raise missing_fields(event, ("time_ms", "key", "value", "metadata")) from None
    if type(key) is not str:
        raise EventError(PARSE_BAD_LINE, f"'key' must be a string, found {json_type(key)} {short_repr(key)}")
    if type(metadata) is not dict:
        raise EventError(
            PARSE_BAD_LINE, f"'metadata' must be a JSON object, found {json_type(metadata)}", key
        )
    return key, value, metadata, to_time(raw_time, time_field, scale, key)


def decode_mll(segment: bytes) -> tuple[str, Any, dict, float]:
    """`segment` contains ':::MLL' (and not ':::MLLOG'); the text from the last ':::MLL' must
    match the 0.6 grammar, with seconds since the epoch."""
    text = segment[segment.rfind(MLL_TOKEN) :].strip()
    match = MLL_LINE.fullmatch(text)
    if match is None:
        raise EventError(PARSE_BAD_LINE, f"expected '{MLL_GRAMMAR}'")
    key = match.group(2).decode("ascii")
    time_ms = seconds_to_ms(match.group(1), key)
    event = loads_json(match.group(3), f"after '{key}:'", key)
    if type(event) is not dict:
        raise EventError(
            PARSE_BAD_LINE, f"expected a JSON object after '{key}:', found {json_type(event)}", key
        )
    if "value" not in event or "metadata" not in event:
        raise missing_fields(event, ("value", "metadata"), key)
    metadata = event["metadata"]
    if type(metadata) is not dict:
        raise EventError(
            PARSE_BAD_LINE, f"'metadata' must be a JSON object, found {json_type(metadata)}", key
        )
    return key, event["value"], metadata, time_ms


def decode_mlp05(segment: bytes) -> tuple[str, Any, dict, float]:
    """`segment` contains ':::MLP'; the text from the last ':::MLP' must match the 0.5 grammar.
    The value is JSON, a bare word (kept as a string) or absent (None)."""
    text = segment[segment.rfind(MLP_TOKEN) :].strip()
    match = MLP05_LINE.fullmatch(text)
    if match is None:
        raise EventError(PARSE_BAD_LINE, f"expected '{MLP05_GRAMMAR}'")
    key = match.group(6).decode("ascii")
    time_ms = seconds_to_ms(match.group(3), key)
    try:
        lineno = int(match.group(5))
    except ValueError:  # int() refuses digit strings longer than 4300 characters
        raise EventError(PARSE_BAD_LINE, "the source line number is too long", key) from None
    metadata = {
        "file": decode_text(match.group(4)),
        "lineno": lineno,
        "benchmark": match.group(2).decode("ascii"),
    }
    raw_value = match.group(7)
    if raw_value is None:
        value = None
    elif raw_value[:1] in (b"{", b"[", b'"'):
        value = loads_json(raw_value, f"after '{key}:'", key)
    else:
        try:
            value = loads_json(raw_value, f"after '{key}:'", key)
        except EventError:
            value = decode_text(raw_value)  # a bare word such as 'gaussian'
    return key, value, metadata, time_ms


def missing_fields(event: dict, expected: tuple[str, ...], key: str = "") -> EventError:
    """The error for an event object without some of the `expected` fields ('time_s' stands in
    for a missing 'time_ms')."""
    missing = [
        name for name in expected if name not in event and not (name == "time_ms" and "time_s" in event)
    ]
    if not key and type(event.get("key")) is str:
        key = event["key"]
    return EventError(
        PARSE_MISSING_FIELD,
        f"the event lacks {', '.join(repr(name) for name in missing)}; expected the fields {', '.join(expected)}",
        key,
    )


def loads_json(payload: bytes, where: str, key: str = "") -> Any:
    """JSON as the official parser reads it (Python's json: NaN/Infinity accepted, duplicate keys
    keep the last). orjson decodes the common case several times faster; what its stricter grammar
    or its UTF-8-only input refuses falls back to json on the decoded text. One difference stays:
    orjson reads an integer beyond 64 bits as a float, where json keeps it exact."""
    try:
        return orjson.loads(payload)
    except orjson.JSONDecodeError:
        pass
    text = decode_text(payload).strip()
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        message = f"{exc.msg} (column {exc.colno} of the JSON text)"
    except RecursionError:
        message = "the JSON text is nested too deeply"
    except ValueError as exc:  # for example an integer with more digits than int() accepts
        message = str(exc)
    raise EventError(PARSE_BAD_JSON, f"invalid JSON {where}: {message}", key)


def decode_text(raw: bytes) -> str:
    """UTF-8 when it is, else latin-1 (which is how the official tool reads every file)."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("latin-1")


def to_time(raw: Any, field: str, scale: float, key: str) -> float:
    """A timestamp as float() reads it (numeric strings accepted, like the official parser);
    booleans and non-finite values are refused because no clock writes them."""
    if type(raw) is bool:
        raise EventError(PARSE_BAD_TIME, f"'{field}' must be a number, found a boolean", key)
    try:
        value = float(raw)
    except (TypeError, ValueError, OverflowError):
        raise EventError(
            PARSE_BAD_TIME, f"'{field}' must be a number, found {json_type(raw)} {short_repr(raw)}", key
        ) from None
    if not math.isfinite(value):
        raise EventError(PARSE_BAD_TIME, f"'{field}' must be a finite number, found {short_repr(raw)}", key)
    # round() removes the binary noise of seconds * 1000 (1542332128.492 s -> ...128492.0 ms).
    return value if scale == 1.0 else round(value * scale, 3)


def seconds_to_ms(raw: bytes, key: str) -> float:
    try:
        seconds = float(raw)
    except ValueError:
        raise EventError(
            PARSE_BAD_TIME, f"timestamp {short_repr(raw.decode('ascii'))} is not a number", key
        ) from None
    if not math.isfinite(seconds):
        raise EventError(
            PARSE_BAD_TIME, f"timestamp {short_repr(raw.decode('ascii'))} is not a finite number", key
        )
    return round(seconds * 1000.0, 3)


def json_type(value: Any) -> str:
    return JSON_TYPE_NAMES.get(type(value), type(value).__name__)


def short_repr(value: Any) -> str:
    """A bounded repr for messages: decoded JSON can be large or nested ~1000 levels deep."""
    return SHORT_REPR.repr(value)
