"""The LoadGen log parsers on their own: both detail formats, never raising."""

from __future__ import annotations

import json

from mlperf_check.inference.logs import detail_errors, normalize_scenario, parse_detail, parse_summary


def mllog(key, value, time_ms, **metadata) -> bytes:
    event = {"key": key, "value": value, "time_ms": time_ms, "namespace": "mlperf::logging",
             "event_type": "POINT_IN_TIME", "metadata": {"is_error": False, "is_warning": False, **metadata}}
    return b":::MLLOG " + json.dumps(event).encode() + b"\r\n"


def test_mllog_detail_keeps_settings_results_errors_and_a_sane_clock():
    lines = [
        mllog("loadgen_version", "4.0 @ abc", 0.0),
        mllog("effective_scenario", "Server", 0.1),
        mllog("effective_target_latency_ns", 15000000, 0.1),
        mllog("generic_message", "Starting performance mode", 1.0),
        mllog("warning_generic_message", "Logging allocation", 18446744073683.3, is_warning=True),
        mllog("error_invalid_config", "bad \x00 thing", 2.0, is_error=True),
        mllog("result_query_count", 270336, 600001.0),
        b':::MLLOG {"key": "result_validity", "value": "VAL',  # cut off mid-line
    ]
    detail = parse_detail(iter(lines), "d.txt")
    assert detail.log_format == "mllog" and detail.scenario == "Server"
    assert detail.effective["target_latency_ns"] == 15000000
    assert detail.results["result_query_count"] == 270336 and detail.lines["result_query_count"] == 7
    assert [(e.line, e.text) for e in detail.errors] == [(6, "bad \x00 thing")]
    assert len(detail.warnings) == 1
    assert detail.last_ts_ms - detail.first_ts_ms == 600000.0  # the wrapped warning clock is ignored
    assert [(f.code, f.line) for f in detail.findings] == [("detail_bad_json", 8)]
    # The errors-only pass (accuracy runs) finds the same errors.
    assert [(e.line, e.text) for e in detail_errors(iter(lines))] == [(6, "bad \x00 thing")]


def test_text_detail_reads_prefixed_events_only():
    lines = [
        b'"pid": 1, "tid": 1, "ts": 10ns : version : .5a1 @ 33ff466d0a\n',
        b'"pid": 1, "tid": 1, "ts": 10ns : git_log :\n',
        b"abc check for ERROR in detailed logs\n",  # a multi-line value, not an event
        b'"pid": 1, "tid": 1, "ts": 20ns : Effective Settings:\n',
        b'"pid": 1, "tid": 1, "ts": 20ns : Scenario : Single Stream\n',
        b'"pid": 1, "tid": 1, "ts": 20ns : target_latency (ns): 100\n',
        b'"pid": 1, "tid": 1, "ts": 20ns : \n',
        b'"pid": 1, "tid": 1, "ts": 1000000ns : Starting performance mode:\n',
        b'"pid": 1, "tid": 1, "ts": 2000000ns : GeneratedQueries: "queries" : 1, "samples per query" : 24576, "duration" : 5\n',
        b'"pid": 1, "tid": 1, "ts": 3000000ns : ERROR : Loadgen built with uncommitted changes!\r\n',
        b'"pid": 1, "tid": 1, "ts": 61000000000ns : POWER_END: "mode" : Performance\n',
    ]
    detail = parse_detail(iter(lines), "d.txt")
    assert detail.log_format == "text" and detail.scenario == "SingleStream"
    assert detail.loadgen_version == ".5a1 @ 33ff466d0a"
    assert [(e.line, e.text) for e in detail.errors] == [(10, "Loadgen built with uncommitted changes!")]
    assert [(e.line, e.text) for e in detail_errors(iter(lines))] == [(10, "Loadgen built with uncommitted changes!")]
    assert (detail.generated_queries, detail.generated_samples_per_query) == (1, 24576)
    assert detail.last_ts_ms - detail.first_ts_ms == 60999.0


def test_summary_spellings():
    summary = parse_summary(
        b"SUT name : SUT\x00\r\nScenario : Multi Stream\r\nResult is : VALID\r\n"
        b"  Early stopping satisfied: NO\r\n90.0th percentile latency (ns) : 12\r\n",
        "s.txt",
    )
    assert (summary.sut_name, summary.scenario, summary.valid) == ("SUT", "MultiStream", True)
    assert summary.flag("Early stopping satisfied") is False and summary.number("90.0th percentile latency (ns)") == 12
    assert summary.line_of("Result is") == 3
    assert [normalize_scenario(s) for s in ("Single Stream", "singlestream", "Offline", "Serverish")] == [
        "SingleStream", "SingleStream", "Offline", ""
    ]
