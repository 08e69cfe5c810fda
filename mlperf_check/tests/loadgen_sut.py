"""Run the real LoadGen (mlcommons-loadgen) against a tiny in-process system under test.

`python -m mlperf_check.tests.loadgen_sut OUTDIR SCENARIO DELAY_MS [setting=value ...]` writes
LoadGen's own mlperf_log_summary.txt and mlperf_log_detail.txt into OUTDIR. The SUT answers a
query after DELAY_MS of simulated work per sample. Settings are LoadGen TestSettings attributes (small
minimum durations and query counts keep a run to a second or two). A subprocess per run: LoadGen
keeps global state and logs to the process's stdout.

An LLM-like SUT: the settings `tokens=N ttft_ms=X tpot_ms=Y` (not TestSettings) make it stream
each sample's answer as LoadGen's token API expects: the first token after X ms
(FirstTokenComplete), then the other N-1 tokens Y ms apart, and the completed sample with its
token count (QuerySamplesComplete). Add use_token_latencies=1 with ttft_latency/tpot_latency (ns)
so that LoadGen judges the run on them.
"""

from __future__ import annotations

import os
import sys
import threading
import time

SAMPLES = 64


LLM_SETTINGS = ("tokens", "ttft_ms", "tpot_ms")


def run(outdir: str, scenario: str, delay_ms: float, settings: dict[str, str]) -> None:
    import mlperf_loadgen as lg  # here: the tests import this module's helper without LoadGen

    os.makedirs(outdir, exist_ok=True)
    llm = {name: float(settings.pop(name)) for name in LLM_SETTINGS if name in settings}

    def stream(sample):
        time.sleep(llm["ttft_ms"] / 1000)
        lg.FirstTokenComplete([lg.QuerySampleResponse(sample.id, 0, 0)])
        tokens = int(llm["tokens"])
        time.sleep(llm["tpot_ms"] * (tokens - 1) / 1000)
        lg.QuerySamplesComplete([lg.QuerySampleResponse(sample.id, 0, 0, tokens)])

    def issue_llm(samples):
        # One sample after another within a query (an Offline query holds many), as issue() does.
        threading.Thread(target=lambda: [stream(sample) for sample in samples]).start()

    def issue(samples):
        def answer():
            # A few ms of simulated work per sample, one sample after another (an Offline query
            # holds many).
            time.sleep(delay_ms * len(samples) / 1000)
            lg.QuerySamplesComplete([lg.QuerySampleResponse(s.id, 0, 0) for s in samples])

        threading.Thread(target=answer).start()

    sut = lg.ConstructSUT(issue_llm if llm else issue, lambda: None)
    qsl = lg.ConstructQSL(SAMPLES, SAMPLES, lambda indices: None, lambda indices: None)
    test = lg.TestSettings()
    test.scenario = getattr(lg.TestScenario, scenario)
    test.mode = lg.TestMode.PerformanceOnly
    for name, value in settings.items():
        setattr(test, name, type(getattr(test, name))(float(value)) if "." in value else int(value))
    output = lg.LogOutputSettings()
    output.outdir = outdir
    output.copy_summary_to_stdout = False
    log = lg.LogSettings()
    log.log_output = output
    log.enable_trace = False
    lg.StartTestWithLogSettings(sut, qsl, test, log)
    lg.DestroyQSL(qsl)
    lg.DestroySUT(sut)


def assert_agrees_with_loadgen(result, expected_verdict: str, finding: str | None) -> set[str]:
    """Our verdict on a result is LoadGen's own; where LoadGen refused the run, our recomputation
    names `finding` too. Returns our error codes. (Timing on a shared machine can tip a run the
    other way: then the agreement still holds and the rest of the test is skipped.)"""
    import pytest

    errors = {f.code for f in result.all_findings() if f.severity == "error"}
    said = result.runs[0].summary.get("Result is")
    assert result.valid == (said == "VALID"), errors
    if said != expected_verdict:
        pytest.skip(f"LoadGen said {said} on this loaded machine (expected {expected_verdict})")
    if finding:
        assert finding in errors and "loadgen_invalid" in errors  # not only LoadGen's word
    return errors


if __name__ == "__main__":
    outdir, scenario, delay = sys.argv[1], sys.argv[2], float(sys.argv[3])
    run(outdir, scenario, delay, dict(arg.split("=", 1) for arg in sys.argv[4:]))
