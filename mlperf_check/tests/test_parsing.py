"""The streaming log parser: every line rule on real corpus lines, the limits, and agreement with
the official mlperf-logging parser on real result files."""

from __future__ import annotations

import hashlib
import io
import math
import tracemalloc
from pathlib import Path

import pytest

from mlperf_check.parsing import MAX_LINE, ParseStats, iter_records, reader
from mlperf_check.report import ERROR, WARNING, Finding, Record

# Real lines from ../shared/corpus (file named in the comment).
# v1.0/NVIDIA/results/dgxa100_ngc21.05_mxnet/resnet/result_*.txt
RESNET_RUN_START = (
    b':::MLLOG {"namespace": "", "time_ms": 1621118646492, "event_type": "INTERVAL_START", "key": "run_start", '
    b'"value": null, "metadata": {"file": "/workspace/image_classification/common/fit.py", "lineno": 1291}}'
)
RESNET_EVAL = (
    b':::MLLOG {"namespace": "", "time_ms": 1621118817102, "event_type": "POINT_IN_TIME", "key": "eval_accuracy", '
    b'"value": 0.3015, "metadata": {"file": "/workspace/image_classification/common/fit.py", "lineno": 999, '
    b'"epoch_num": 3}}'
)
# v1.0 NVIDIA BERT: an srun rank prefix.
BERT_RANK_PREFIX = (
    b'0: :::MLLOG {"namespace": "", "time_ms": 1621399989135, "event_type": "INTERVAL_START", "key": "init_start", '
    b'"value": null, "metadata": {"file": "/workspace/bert/run_pretraining.py", "lineno": 996}}'
)
# v1.0: program output and the event on one line (nettrix BERT), backspaces of a progress display.
BERT_OUTPUT_PREFIX = (
    b"device: cuda:4 n_gpu: 8, distributed training: True, 16-bits training: True"
    b':::MLLOG {"namespace": "", "time_ms": 1621516494375, "event_type": "POINT_IN_TIME", "key": "seed", '
    b'"value": 18634, "metadata": {"file": "/workspace/bert/run_pretraining.py", "lineno": 1006}}'
)
BERT_BACKSPACES = (
    b'kk\x08\x08\x08:::MLLOG {"namespace": "", "time_ms": 1621292561099, "event_type": "POINT_IN_TIME", '
    b'"key": "eval_accuracy", "value": 0.7197868824005127, "metadata": {"file": "/workspace/bert/run_pretraining.py", '
    b'"lineno": 1441, "epoch_num": 1}}'
)
# v1.0 Dell DLRM (CRLF file).
DLRM_CRLF = (
    b':::MLLOG {"namespace": "", "time_ms": 1621462075794, "event_type": "POINT_IN_TIME", "key": "cache_clear", '
    b'"value": true, "metadata": {"file": "<string>", "lineno": 4}}\r\n'
)
# v1.0 Google TPU: no event_type.
GOOGLE_SUBMISSION = (
    b':::MLLOG {"namespace": "main", "time_ms": 0, "key": "submission_org", "value": "Google", '
    b'"metadata": {"lineno": 0, "file": "N/A"}}'
)
# v0.7 Alibaba: seconds in "time_s", fields in another order, a space before the closing brace.
ALIBABA_TIME_S = (
    b':::MLLOG {"value": null, "metadata": {"lineno": 83, "file": "train_imagenet.py"}, "key": "init_start", '
    b'"namespace": "", "time_s": 1593355979.617, "event_type": "INTERVAL_START" }'
)
# v0.6 Google resnet.
MLL_RUN_STOP = (
    b':::MLL 1560723625.989 run_stop: {"value": null, "metadata": {"status": "success", "file": "common/fit.py", '
    b'"lineno": 491}}'
)
MLL_MASK_EVAL = (
    b':::MLL 1558422613.720 eval_accuracy: {"value": [0.12473274022340775, 0.127146378159523], "metadata": '
    b'{"epoch_num": 0, "lineno": 530, "file": "/tmp/code_dir-mask_code_1558420448/staging/models/rough/mask_rcnn/'
    b'train_and_eval_low_level_runner.py"}}'
)
# v0.5 Intel NCF and Intel resnet.
MLP_EVAL = b':::MLPv0.5.0 ncf 1542332455.868 (NCFOptimizer2.scala:363) eval_accuracy: {"epoch": 0, "value": 0.53276336}'
MLP_RUN_START = b":::MLPv0.5.0 resnet 1541411118 (caffe.cpp:248) run_start"
MLP_FLIP = b":::MLPv0.5.0 resnet 1541411118 (skx_8180_4s_4x/train_val.prototxt:17) input_random_flip: true"
# v0.6 Alibaba's own text, which carries no event token.
ALIBABA_V06 = b"MLPerf: resnet [06/13/19 03:52:41], run_start\nMLPerf: resnet [06/13/19 03:52:44], input_batch_size: 256\n"


def parse(
    data: bytes, file: str = "results/sys/resnet/result_1.txt"
) -> tuple[list[Record], list[Finding], ParseStats]:
    findings: list[Finding] = []
    stats = ParseStats()
    records = list(iter_records(io.BytesIO(data), file=file, findings=findings, stats=stats))
    return records, findings, stats


def lines(*events: bytes) -> bytes:
    return b"".join(event + b"\n" for event in events)


def codes(findings: list[Finding]) -> list[str]:
    return [finding.code for finding in findings]


# --- :::MLLOG (rulesets >= 0.7) ---------------------------------------------------------------------------


def test_it_reads_a_real_mllog_line() -> None:
    records, findings, stats = parse(lines(RESNET_RUN_START, RESNET_EVAL))
    assert findings == []
    assert records[0] == Record(
        "run_start",
        None,
        {"file": "/workspace/image_classification/common/fit.py", "lineno": 1291},
        1621118646492.0,
        1,
        0,
    )
    assert records[1].key == "eval_accuracy"
    assert records[1].value == 0.3015
    assert records[1].metadata["epoch_num"] == 3
    assert type(records[1].time_ms) is float
    assert stats.log_format == "mllog"


def test_it_ignores_any_prefix_before_the_token() -> None:
    records, findings, _ = parse(
        lines(BERT_RANK_PREFIX, BERT_OUTPUT_PREFIX, BERT_BACKSPACES, b"[1,0]<stdout>:" + RESNET_EVAL)
    )
    assert findings == []
    assert [r.key for r in records] == ["init_start", "seed", "eval_accuracy", "eval_accuracy"]
    assert records[1].value == 18634
    assert records[2].value == 0.7197868824005127


def test_it_uses_the_text_after_the_last_token() -> None:
    broken_then_good = b':::MLLOG {"namespace": "", "time_ms": 16211186' + RESNET_EVAL
    records, findings, _ = parse(lines(broken_then_good))
    assert findings == []
    assert [(r.key, r.time_ms) for r in records] == [("eval_accuracy", 1621118817102.0)]


def test_it_accepts_crlf_line_endings() -> None:
    records, findings, stats = parse(DLRM_CRLF * 3)
    assert findings == []
    assert [(r.key, r.value, r.line) for r in records] == [("cache_clear", True, n) for n in (1, 2, 3)]
    assert stats.line_count == 3


def test_it_splits_lines_at_a_lone_carriage_return_like_the_official_parser() -> None:
    progress = b"epoch 1:  10%|#   | 10/100\repoch 1: 100%|####| 100/100\r"
    records, findings, stats = parse(progress + RESNET_RUN_START + b"\r" + RESNET_EVAL + b"\nnext line\n")
    assert findings == []
    assert [(r.key, r.line, r.index) for r in records] == [("run_start", 1, 0), ("eval_accuracy", 1, 1)]
    assert stats.line_count == 2


def test_it_reads_an_event_without_event_type_or_namespace() -> None:
    records, findings, _ = parse(
        lines(GOOGLE_SUBMISSION, GOOGLE_SUBMISSION.replace(b'"namespace": "main", ', b""))
    )
    assert findings == []
    assert [(r.key, r.value, r.time_ms) for r in records] == [("submission_org", "Google", 0.0)] * 2


def test_it_converts_time_s_seconds_to_milliseconds() -> None:
    records, findings, _ = parse(lines(ALIBABA_TIME_S))
    assert findings == []
    assert records[0].time_ms == 1593355979617.0
    assert records[0].metadata == {"lineno": 83, "file": "train_imagenet.py"}


def test_it_prefers_time_ms_when_both_times_are_given() -> None:
    both = ALIBABA_TIME_S.replace(b'"time_s"', b'"time_ms": 5, "time_s"')
    records, _, _ = parse(lines(both))
    assert records[0].time_ms == 5.0


def test_it_accepts_a_numeric_string_time_ms_like_float_does() -> None:
    records, findings, _ = parse(lines(RESNET_RUN_START.replace(b"1621118646492", b'"1621118646492"')))
    assert findings == []
    assert records[0].time_ms == 1621118646492.0


def test_it_accepts_nan_and_infinity_values_as_python_json_does() -> None:
    nan_eval = RESNET_EVAL.replace(b"0.3015", b"NaN")
    inf_eval = RESNET_EVAL.replace(b"0.3015", b"-Infinity")
    records, findings, _ = parse(lines(nan_eval, inf_eval))
    assert findings == []
    assert math.isnan(records[0].value)
    assert records[1].value == -math.inf


def test_it_keeps_the_last_of_duplicate_json_keys() -> None:
    records, _, _ = parse(lines(RESNET_EVAL.replace(b'"value": 0.3015', b'"value": 0.1, "value": 0.3015')))
    assert records[0].value == 0.3015


def test_it_reports_invalid_json_with_its_position_and_goes_on() -> None:
    broken = RESNET_EVAL.replace(b'"value": 0.3015,', b'"value": 0.3015')
    records, findings, stats = parse(lines(b"some output", RESNET_RUN_START, broken, RESNET_EVAL))
    assert [(r.line, r.index) for r in records] == [(2, 0), (4, 2)]
    assert stats.event_count == 3
    [finding] = findings
    assert finding.severity == ERROR
    assert finding.code == "PARSE_BAD_JSON"
    assert finding.line == 3
    assert finding.file == "results/sys/resnet/result_1.txt"
    assert (finding.checker, finding.checker_version) == ("parser", 1)
    assert finding.message.startswith(
        "line 3: invalid JSON after ':::MLLOG ': Expecting ',' delimiter (column "
    )
    assert finding.actual.startswith(':::MLLOG {"namespace": ""')


@pytest.mark.parametrize(
    ("drop", "missing"),
    [
        (b'"time_ms": 1621118646492, ', "'time_ms'"),
        (b'"key": "run_start", ', "'key'"),
        (b'"value": null, ', "'value'"),
        (
            b', "metadata": {"file": "/workspace/image_classification/common/fit.py", "lineno": 1291}',
            "'metadata'",
        ),
    ],
)
def test_it_reports_each_missing_field_where_the_official_parser_crashes(drop: bytes, missing: str) -> None:
    records, findings, _ = parse(lines(RESNET_RUN_START.replace(drop, b"")))
    assert records == []
    assert codes(findings) == ["PARSE_MISSING_FIELD"]
    assert f"the event lacks {missing}" in findings[0].message


def test_it_names_every_missing_field_at_once() -> None:
    _, findings, _ = parse(lines(b':::MLLOG {"namespace": "", "key": "run_start"}'))
    assert "lacks 'time_ms', 'value', 'metadata'" in findings[0].message
    assert findings[0].key == "run_start"


@pytest.mark.parametrize(
    ("event", "code", "text"),
    [
        (
            RESNET_RUN_START.replace(b'"key": "run_start"', b'"key": 7'),
            "PARSE_BAD_LINE",
            "'key' must be a string",
        ),
        (
            RESNET_RUN_START.replace(
                b'{"file": "/workspace/image_classification/common/fit.py", "lineno": 1291}', b"null"
            ),
            "PARSE_BAD_LINE",
            "'metadata' must be a JSON object, found null",
        ),
        (
            b":::MLLOG [1, 2]",
            "PARSE_BAD_LINE",
            "expected a JSON object after ':::MLLOG ', found a JSON array",
        ),
        (b':::MLLOG{"key": "run_start"}', "PARSE_BAD_LINE", "without a space after it"),
        (
            RESNET_RUN_START.replace(b"1621118646492", b'"soon"'),
            "PARSE_BAD_TIME",
            "'time_ms' must be a number",
        ),
        (RESNET_RUN_START.replace(b"1621118646492", b"true"), "PARSE_BAD_TIME", "found a boolean"),
        (RESNET_RUN_START.replace(b"1621118646492", b"null"), "PARSE_BAD_TIME", "found null"),
        (RESNET_RUN_START.replace(b"1621118646492", b"NaN"), "PARSE_BAD_TIME", "must be a finite number"),
        (ALIBABA_TIME_S.replace(b"1593355979.617", b"[]"), "PARSE_BAD_TIME", "'time_s' must be a number"),
        (b":::MLLOG ", "PARSE_BAD_JSON", "Expecting value"),
        (b":::MLLOG " + b"[" * 5000, "PARSE_BAD_JSON", "nested too deeply"),
    ],
)
def test_it_refuses_events_that_cannot_be_records(event: bytes, code: str, text: str) -> None:
    records, findings, stats = parse(lines(event, RESNET_EVAL))
    assert [r.index for r in records] == [1]
    assert codes(findings) == [code]
    assert text in findings[0].message
    assert findings[0].severity == ERROR
    assert stats.event_count == 2


def test_it_reads_latin1_bytes_where_utf8_fails_and_utf8_where_it_works() -> None:
    utf8 = GOOGLE_SUBMISSION.replace(b'"Google"', '"Zürich"'.encode())
    latin1 = GOOGLE_SUBMISSION.replace(b'"Google"', '"Zürich"'.encode("latin-1"))
    records, findings, _ = parse(lines(utf8, latin1))
    assert findings == []
    assert [r.value for r in records] == ["Zürich", "Zürich"]


def test_it_survives_nul_bytes_and_binary_junk_and_keeps_findings_storable() -> None:
    junk = bytes(range(256)) * 4
    bad = b":::MLLOG {\x00\xff}"
    records, findings, stats = parse(junk + b"\n" + bad + b"\n\x00\x00" + RESNET_EVAL + b"\n")
    assert [r.key for r in records] == ["eval_accuracy"]
    assert codes(findings) == ["PARSE_BAD_JSON"]
    assert "\x00" not in findings[0].actual
    findings[0].actual.encode("utf-8")


def test_it_keeps_lone_surrogate_escapes_out_of_findings() -> None:
    _, findings, _ = parse(lines(b':::MLLOG {"key": "\\ud800", "value": 1}'))
    assert codes(findings) == ["PARSE_MISSING_FIELD"]
    findings[0].key.encode("utf-8")


# --- :::MLL (0.6) and :::MLPv0.5.0 (0.5) ------------------------------------------------------------------


def test_it_reads_v06_mll_lines_with_seconds() -> None:
    records, findings, stats = parse(lines(MLL_RUN_STOP, MLL_MASK_EVAL))
    assert findings == []
    assert records[0] == Record(
        "run_stop", None, {"status": "success", "file": "common/fit.py", "lineno": 491}, 1560723625989.0, 1, 0
    )
    assert records[1].value == [0.12473274022340775, 0.127146378159523]
    assert records[1].time_ms == 1558422613720.0
    assert stats.log_format == "mll"


@pytest.mark.parametrize(
    ("event", "code", "text"),
    [
        (b":::MLL 1560723625.989 run_stop {}", "PARSE_BAD_LINE", "expected ':::MLL <seconds> <key>: "),
        (
            b':::MLL 1.2.3 run_stop: {"value": null, "metadata": {}}',
            "PARSE_BAD_TIME",
            "'1.2.3' is not a number",
        ),
        (
            b':::MLL 1560723625.989 run_stop: {"value": null',
            "PARSE_BAD_JSON",
            "invalid JSON after 'run_stop:'",
        ),
        (b':::MLL 1560723625.989 run_stop: {"value": null}', "PARSE_MISSING_FIELD", "lacks 'metadata'"),
        (
            b':::MLL 1560723625.989 run_stop: {"value": null, "metadata": 3}',
            "PARSE_BAD_LINE",
            "'metadata' must be",
        ),
    ],
)
def test_it_refuses_broken_mll_lines(event: bytes, code: str, text: str) -> None:
    records, findings, _ = parse(lines(event, MLL_RUN_STOP))
    assert [r.index for r in records] == [1]
    assert codes(findings) == [code]
    assert text in findings[0].message


def test_it_reads_v05_lines_with_json_bare_word_and_absent_values() -> None:
    records, findings, stats = parse(
        lines(
            MLP_RUN_START,
            MLP_EVAL,
            MLP_FLIP,
            MLP_EVAL.replace(b'{"epoch": 0, "value": 0.53276336}', b"gaussian"),
        )
    )
    assert findings == []
    assert records[0] == Record(
        "run_start", None, {"file": "caffe.cpp", "lineno": 248, "benchmark": "resnet"}, 1541411118000.0, 1, 0
    )
    assert records[1].value == {"epoch": 0, "value": 0.53276336}
    assert records[1].time_ms == 1542332455868.0
    assert records[1].metadata == {"file": "NCFOptimizer2.scala", "lineno": 363, "benchmark": "ncf"}
    assert records[2].value is True
    assert records[3].value == "gaussian"
    assert stats.log_format == "mlp05"


def test_it_refuses_broken_v05_lines() -> None:
    truncated_json = MLP_EVAL.replace(b"0.53276336}", b"0.53")
    no_source = b":::MLPv0.5.0 ncf 1542332455.868 eval_accuracy: 0.5"
    records, findings, _ = parse(lines(truncated_json, no_source, MLP_RUN_START))
    assert [r.key for r in records] == ["run_start"]
    assert codes(findings) == ["PARSE_BAD_JSON", "PARSE_BAD_LINE"]
    assert (
        "expected ':::MLPv0.5.0 <benchmark> <seconds> (<file>:<lineno>) <key>[: <value>]'"
        in findings[1].message
    )


def test_it_yields_nothing_and_reports_nothing_for_alibaba_v06_text() -> None:
    records, findings, stats = parse(ALIBABA_V06)
    assert (records, findings) == ([], [])
    assert (stats.event_count, stats.log_format, stats.line_count) == (0, "", 2)


def test_it_warns_once_when_formats_are_mixed() -> None:
    records, findings, stats = parse(lines(RESNET_RUN_START, MLL_RUN_STOP, MLP_RUN_START, RESNET_EVAL))
    assert len(records) == 4
    assert codes(findings) == ["PARSE_MIXED_FORMATS"]
    assert findings[0].severity == WARNING
    assert findings[0].line == 2
    assert stats.log_format == "mllog"


def test_it_does_not_count_text_that_only_looks_like_a_token() -> None:
    records, findings, stats = parse(lines(b"echo ':::ML' is our marker", b":::MLX 1 2 3", RESNET_EVAL))
    assert [(r.line, r.index) for r in records] == [(3, 0)]
    assert findings == []
    assert stats.event_count == 1


# --- stream statistics and limits -------------------------------------------------------------------------


def test_it_fills_the_stats_while_streaming() -> None:
    data = lines(b"starting", RESNET_RUN_START, b"", RESNET_EVAL) + b"no newline at the end"
    records, _, stats = parse(data)
    assert stats.size_bytes == len(data)
    assert stats.sha256 == hashlib.sha256(data).hexdigest()
    assert stats.line_count == 5
    assert stats.event_count == 2
    assert [r.line for r in records] == [2, 4]


def test_it_handles_an_empty_stream() -> None:
    records, findings, stats = parse(b"")
    assert (records, findings) == ([], [])
    assert stats == ParseStats(0, 0, 0, "", hashlib.sha256(b"").hexdigest())


def test_it_reads_across_block_boundaries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reader, "READ_SIZE", 7)  # every token and line is cut somewhere
    data = (
        lines(b"x" * 30, BERT_RANK_PREFIX, RESNET_EVAL) + DLRM_CRLF + RESNET_RUN_START + b"\r" + RESNET_EVAL
    )
    records, findings, stats = parse(data)
    assert findings == []
    assert [(r.key, r.line, r.index) for r in records] == [
        ("init_start", 2, 0),
        ("eval_accuracy", 3, 1),
        ("cache_clear", 4, 2),
        ("run_start", 5, 3),
        ("eval_accuracy", 5, 4),
    ]
    assert stats.sha256 == hashlib.sha256(data).hexdigest()
    assert stats.line_count == 5


def test_it_reports_an_overlong_event_line_once_and_goes_on() -> None:
    huge_event = b":::MLLOG " + b"x" * (MAX_LINE + 5 * 1024 * 1024)
    data = lines(RESNET_RUN_START, huge_event, RESNET_EVAL)
    records, findings, stats = parse(data)
    assert [(r.key, r.line, r.index) for r in records] == [("run_start", 1, 0), ("eval_accuracy", 3, 2)]
    assert codes(findings) == ["PARSE_LINE_TOO_LONG"]
    assert findings[0].line == 2
    assert f"an event line of {len(huge_event)} bytes was not parsed" in findings[0].message
    assert stats.size_bytes == len(data)
    assert stats.line_count == 3


def test_it_skips_an_overlong_line_without_token_silently(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reader, "MAX_LINE", 300)  # RESNET_EVAL has 226 bytes
    monkeypatch.setattr(reader, "READ_SIZE", 64)
    records, findings, stats = parse(lines(b"=" * 1000, RESNET_EVAL))
    assert [(r.line, r.index) for r in records] == [(2, 0)]
    assert findings == []
    assert stats.event_count == 1


def test_it_finds_a_token_cut_between_two_blocks_of_an_overlong_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reader, "MAX_LINE", 100)
    monkeypatch.setattr(reader, "READ_SIZE", 64)
    line = b"=" * 253 + b":::MLLOG " + b"=" * 300  # ':::MLL' straddles bytes 255/256
    _, findings, stats = parse(lines(line))
    assert codes(findings) == ["PARSE_LINE_TOO_LONG"]
    assert stats.event_count == 1


def test_it_reads_an_event_after_a_long_run_of_progress_bar_updates(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reader, "MAX_LINE", 300)
    monkeypatch.setattr(reader, "READ_SIZE", 128)
    progress = b"".join(b"step %d/1000 loss 1.5\r" % step for step in range(1000))  # one '\n' line, 23 KB
    records, findings, _ = parse(progress + RESNET_EVAL + b"\n" + RESNET_RUN_START + b"\n")
    assert findings == []
    assert [(r.key, r.line) for r in records] == [("eval_accuracy", 1), ("run_start", 2)]


def test_it_keeps_memory_bounded_on_a_huge_single_line() -> None:
    class Endless(io.RawIOBase):
        """40 MB of one line that starts with a token, produced as it is read."""

        def __init__(self) -> None:
            self.left = 40 * 1024 * 1024

        def readable(self) -> bool:
            return True

        def readinto(self, buffer) -> int:  # type: ignore[no-untyped-def]
            size = min(len(buffer), self.left)
            buffer[:size] = (b":::MLLOG " + b"7" * size)[:size]
            self.left -= size
            return size

    tracemalloc.start()
    try:
        findings: list[Finding] = []
        stats = ParseStats()
        assert list(iter_records(Endless(), file="f", findings=findings, stats=stats)) == []
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert codes(findings) == ["PARSE_LINE_TOO_LONG"]
    assert stats.size_bytes == 40 * 1024 * 1024
    assert peak < 4 * MAX_LINE  # the input is 40 MB


def test_it_caps_findings_per_code_and_says_how_many_it_left_out() -> None:
    records, findings, stats = parse(lines(*[b":::MLLOG {broken"] * 120, RESNET_EVAL))
    assert len(records) == 1
    assert codes(findings) == ["PARSE_BAD_JSON"] * 50 + ["PARSE_TOO_MANY_FINDINGS"]
    assert findings[-1].severity == WARNING
    assert (
        findings[-1].message
        == "70 more PARSE_BAD_JSON findings in this file are not listed (only the first 50 are)"
    )
    assert stats.event_count == 121


def test_it_sets_the_digest_only_when_the_stream_is_exhausted() -> None:
    stats = ParseStats()
    records = iter_records(
        io.BytesIO(lines(RESNET_RUN_START, RESNET_EVAL)), file="f", findings=[], stats=stats
    )
    next(records)
    assert stats.sha256 == ""
    list(records)
    assert len(stats.sha256) == 64


# --- the real corpus ---------------------------------------------------------------------------------------

def expected_formats(round_folder: str) -> set[str]:
    """The log formats of a training round: :::MLPv0.5.0 in 0.5, :::MLL in 0.6, :::MLLOG from 0.7."""
    version = tuple(int(part) for part in round_folder.lstrip("v").split("."))
    if version < (0, 6):
        return {"mlp05"}
    if version < (0, 7):
        return {"mll", ""}
    return {"mllog"}


@pytest.mark.corpus
def test_it_parses_every_corpus_result_file_without_findings(corpus: Path) -> None:
    files = sorted(corpus.glob("v*/**/result_*.txt"))
    assert len(files) > 1000
    for path in files:
        findings: list[Finding] = []
        stats = ParseStats()
        with path.open("rb") as stream:
            records = list(iter_records(stream, file=str(path), findings=findings, stats=stats))
        assert findings == [], path
        assert stats.log_format in expected_formats(path.relative_to(corpus).parts[0]), path
        assert stats.size_bytes == path.stat().st_size
        assert len(records) == stats.event_count
        if stats.log_format == "":
            assert "Alibaba" in path.parts  # v0.6 Alibaba writes its own 'MLPerf: resnet [date], key' text


@pytest.mark.corpus
def test_it_returns_what_the_official_parser_returns_on_v1_0_files(corpus: Path) -> None:
    from mlperf_logging.compliance_checker.mlp_parser import parse_file

    files = sorted(corpus.glob("v1.0/**/result_*.txt"))
    sample = files[:: max(1, len(files) // 40)]
    assert len(sample) >= 40
    for path in sample:
        official, _official_errors = parse_file(str(path), ruleset="1.0.0")  # valid lines, failed lines
        with path.open("rb") as stream:
            records = list(iter_records(stream, file=str(path), findings=[]))
        assert len(records) == len(official), path
        assert [(r.index, r.key, r.time_ms, r.metadata) for r in records] == [
            (line.lineno, line.key, line.timestamp, line.value["metadata"]) for line in official
        ], path
        assert [repr(r.value) for r in records] == [repr(line.value["value"]) for line in official], path


@pytest.mark.corpus
def test_it_returns_what_the_official_0_6_parser_returns_on_v0_6_files(corpus: Path) -> None:
    from mlperf_logging.compliance_checker.mlp_parser import parse_file

    files = [path for path in sorted(corpus.glob("v0.6/**/result_*.txt")) if "Alibaba" not in path.parts]
    for path in files[:: max(1, len(files) // 10)]:
        official, official_errors = parse_file(str(path), ruleset="0.6.0")
        assert official_errors == []
        with path.open("rb") as stream:
            records = list(iter_records(stream, file=str(path), findings=[]))
        assert [(r.index, r.key, r.value, r.metadata) for r in records] == [
            (line.lineno, line.key, line.value["value"], line.value["metadata"]) for line in official
        ], path
        assert [r.time_ms for r in records] == [
            pytest.approx(line.timestamp * 1000, abs=0.01) for line in official
        ]
