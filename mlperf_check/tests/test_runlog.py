"""analyze_run(): the run summary of one streaming pass, checker feeding, bounded memory."""

from __future__ import annotations

import hashlib
import io
import json

import pytest

from mlperf_check import runlog
from mlperf_check.checkers.base import RunChecker, RunContext
from mlperf_check.finding_sources import CHECKERS, Registered
from mlperf_check.report import ERROR, Finding, RunLog, Seed
from mlperf_check.rules.catalog import get_ruleset
from mlperf_check.runlog import RUN_NO_EVENTS, analyze_run
from mlperf_check.tests.logs import T0, event


def resnet_log(*, status: str = "success", final_accuracy: float = 0.7601) -> list[str]:
    """A small, well-formed v1.0 ResNet log (times in ms from T0)."""
    return [
        "some framework output",
        event("submission_benchmark", "resnet", at=0),
        event("submission_division", "closed", at=0),
        event("submission_org", "NVIDIA", at=0),
        event("submission_platform", "DGXA100", at=0),
        event("submission_status", "onprem", at=0),
        event("cache_clear", True, at=T0),
        event("init_start", at=T0 + 10),
        event("seed", 1234, at=T0 + 20, file="fit.py", lineno=77),
        event("global_batch_size", 3264, at=T0 + 30),
        event("opt_base_learning_rate", 10.5, at=T0 + 40),
        event("opt_name", "lars", at=T0 + 50),
        event("train_samples", 1281167, at=T0 + 60),
        event("init_stop", at=T0 + 60_000),
        event("run_start", at=T0 + 60_010),
        event("opt_base_learning_rate", 99.0, at=T0 + 60_020),  # after run_start: not a hyperparameter
        event("epoch_start", at=T0 + 60_020, epoch_num=1),
        event("eval_accuracy", 0.51234, at=T0 + 600_000, epoch_num=17.12345),
        event("eval_accuracy", final_accuracy, at=T0 + 1_200_000, epoch_num=34.5),
        event("run_stop", at=T0 + 1_200_010, status=status),
    ]


def context(benchmark: str = "resnet", ruleset: str = "1.0.0", file: str = "results/sys/resnet/result_0.txt"):
    return RunContext(
        file=file,
        ruleset=get_ruleset(ruleset),
        system_id="sys",
        benchmark=benchmark,
        system=None,
        submitter="NVIDIA",
        division="closed",
    )


def analyze(lines: list[str] | bytes, checkers=(), **context_args) -> RunLog:
    data = lines if isinstance(lines, bytes) else ("\n".join(lines) + "\n").encode()
    return analyze_run(lambda: io.BytesIO(data), context(**context_args), list(checkers))


def test_it_summarizes_a_well_formed_run():
    lines = resnet_log()
    data = ("\n".join(lines) + "\n").encode()
    run = analyze(data)

    assert (run.file, run.ruleset, run.log_format) == ("results/sys/resnet/result_0.txt", "1.0.0", "mllog")
    assert (run.sha256, run.size_bytes) == (hashlib.sha256(data).hexdigest(), len(data))
    assert (run.line_count, run.event_count) == (20, 19)
    assert (run.benchmark, run.division, run.org, run.platform, run.status) == (
        "resnet",
        "closed",
        "NVIDIA",
        "DGXA100",
        "onprem",
    )
    assert (run.init_start_ms, run.init_stop_ms) == (T0 + 10, T0 + 60_000)
    assert (run.run_start_ms, run.run_start_line, run.run_stop_ms, run.run_stop_line) == (
        T0 + 60_010,
        15,
        T0 + 1_200_010,
        20,
    )
    assert run.run_stop_status == "success"
    assert run.time_to_train_ms == 1_140_000
    assert [(p.epoch, p.value, p.line) for p in run.eval_curve] == [
        (17.12345, 0.51234, 18),
        (34.5, 0.7601, 19),
    ]
    assert not run.eval_curve_truncated
    assert (run.target_reached_ms, run.target_reached_line) == (T0 + 1_200_000, 19)
    assert run.hyperparameters == {
        "global_batch_size": 3264,
        "opt_base_learning_rate": 10.5,
        "opt_name": "lars",
        "train_samples": 1281167,
    }
    assert run.seeds == [Seed(1234, "fit.py:77", 9)]
    assert (run.global_batch_size, run.train_samples, run.epochs_to_converge) == (3264, 1281167, 34.5)
    assert run.findings == []


def test_it_leaves_the_target_unreached_when_no_eval_meets_it():
    run = analyze(resnet_log(final_accuracy=0.7))
    assert (run.target_reached_ms, run.target_reached_line) == (None, None)
    assert [p.value for p in run.eval_curve] == [0.51234, 0.7]


def test_it_times_from_the_last_run_start_before_the_first_run_stop():
    """Like the official summarizer; the timing checker reports the duplicates."""
    lines = resnet_log()
    lines.insert(15, event("run_start", at=T0 + 660_010))  # a copy, 10 minutes later
    lines.append(event("run_stop", at=T0 + 1_500_000, status="aborted"))
    run = analyze(lines)
    assert (run.run_start_ms, run.run_start_line) == (T0 + 660_010, 16)
    assert (run.run_stop_ms, run.run_stop_line, run.run_stop_status) == (T0 + 1_200_010, 21, "success")
    assert run.time_to_train_minutes == pytest.approx(9.0)


def test_it_takes_the_convergence_point_from_the_last_eval_before_run_stop():
    lines = resnet_log()
    lines[18] = event("eval_accuracy", 0.7601, at=T0 + 1_200_000, epoch_num=34.56789, samples_count=440640)
    lines.append(event("eval_accuracy", 0.77, at=T0 + 1_300_000, epoch_num=40))  # after run_stop
    run = analyze(lines)
    assert (run.epochs_to_converge, run.samples_to_converge) == (34.568, 440640)
    assert [p.samples for p in run.eval_curve] == [None, 440640, None]


def test_it_uses_the_earliest_init_start_and_the_first_init_stop():
    lines = resnet_log()
    lines.insert(8, event("init_start", at=T0 + 5))  # another rank, 5 ms earlier
    lines.insert(15, event("init_stop", at=T0 + 70_000))
    run = analyze(lines)
    assert (run.init_start_ms, run.init_stop_ms) == (T0 + 5, T0 + 60_000)


def test_it_keeps_the_first_submission_values_as_text():
    lines = resnet_log()
    lines.insert(2, event("submission_org", 42, at=0))
    lines.insert(3, event("submission_division", "open", at=0))
    run = analyze(lines)
    assert (run.org, run.division) == ("42", "open")


def test_it_leaves_the_batch_size_unset_when_it_is_not_a_whole_number():
    for value in ("3264", 3264.5, True, None):
        lines = resnet_log()
        lines[9] = event("global_batch_size", value, at=T0 + 30)
        assert analyze(lines).global_batch_size is None
    lines = resnet_log()
    lines[9] = event("global_batch_size", 256.0, at=T0 + 30)
    assert analyze(lines).global_batch_size == 256


def test_it_records_every_seed_with_its_source():
    lines = resnet_log()
    lines.insert(9, ":::MLLOG " + json.dumps({"time_ms": T0, "key": "seed", "value": 7, "metadata": {}}))
    run = analyze(lines)
    assert run.seeds == [Seed(1234, "fit.py:77", 9), Seed(7, "", 10)]


def test_it_reads_v05_logs():
    lines = [
        ":::MLPv0.5.0 ncf 1542332120.000 (ncf.py:10) run_start",
        ':::MLPv0.5.0 ncf 1542332455.868 (ncf.py:363) eval_accuracy: {"epoch": 0, "value": 0.53276336}',
        ':::MLPv0.5.0 ncf 1542332666.154 (ncf.py:363) eval_accuracy: {"epoch": 1, "value": 0.6359816}',
        ':::MLPv0.5.0 ncf 1542332666.200 (ncf.py:507) run_stop: {"success": true}',
    ]
    run = analyze(lines, benchmark="ncf", ruleset="0.5.0")
    assert run.log_format == "mlp05"
    assert [(p.epoch, p.value) for p in run.eval_curve] == [(0, 0.53276336), (1, 0.6359816)]
    assert (run.run_stop_status, run.epochs_to_converge) == ("success", 1)
    assert run.time_to_train_ms == pytest.approx(546_200)

    lines[-1] = ':::MLPv0.5.0 ncf 1542332666.200 (ncf.py:507) run_stop: {"success": false}'
    assert analyze(lines, benchmark="ncf", ruleset="0.5.0").run_stop_status == "failure"


def test_it_reports_a_file_without_log_events():
    run = analyze(b"Traceback (most recent call last):\n  nothing logged\n")
    assert [(f.severity, f.code, f.checker, f.file) for f in run.findings] == [
        (ERROR, RUN_NO_EVENTS, "parser", "results/sys/resnet/result_0.txt")
    ]
    assert run.findings[0].message == "no MLPerf log lines (:::MLLOG, :::MLL or :::MLPv0.5.0) found"
    assert run.has_verdict_errors
    assert (run.line_count, run.event_count, run.log_format) == (2, 0, "")


def test_it_does_not_report_missing_events_when_only_broken_events_are_found():
    run = analyze(b":::MLLOG {not json\n")
    assert [f.code for f in run.findings] == ["PARSE_BAD_JSON"]


def test_it_caps_the_eval_curve(monkeypatch):
    monkeypatch.setattr(runlog, "MAX_EVAL_POINTS", 3)
    lines = resnet_log()[:-1]
    lines += [
        event("eval_accuracy", 0.6 + i / 100, at=T0 + 1_300_000 + i, epoch_num=40 + i) for i in range(5)
    ]
    lines.append(event("run_stop", at=T0 + 1_400_000, status="success"))
    run = analyze(lines)
    assert [p.epoch for p in run.eval_curve] == [17.12345, 34.5, 40]
    assert run.eval_curve_truncated
    assert run.epochs_to_converge == 44  # the convergence point does not depend on the cap


def test_it_caps_the_hyperparameters_and_shortens_large_values(monkeypatch):
    monkeypatch.setattr(runlog, "MAX_HYPERPARAMETERS", 2)
    lines = resnet_log()
    lines.insert(9, event("opt_layout", list(range(5000)), at=T0 + 25))
    run = analyze(lines)
    assert list(run.hyperparameters) == ["opt_layout", "global_batch_size"]
    shortened = run.hyperparameters["opt_layout"]
    assert isinstance(shortened, str) and shortened.startswith("[0,1,2,") and shortened.endswith("…")
    assert len(shortened) == runlog.MAX_STORED_VALUE_CHARS + 1


def test_a_key_once_settled_is_skipped_and_the_settled_keys_are_bounded(monkeypatch):
    """Later occurrences of a first-value key or a hyperparameter change nothing (the summary skips
    them); the set of such keys is capped, past which the summary reads every record as before."""
    monkeypatch.setattr(runlog, "MAX_SETTLED_KEYS", 3)
    lines = resnet_log()
    extra = [event(f"knob_{i}", i, at=T0 + 30 + i) for i in range(6)]
    again = [event(f"knob_{i}", 100 + i, at=T0 + 40 + i) for i in range(6)]
    again.append(event("submission_org", "Someone else", at=T0 + 50))
    lines[9:9] = extra + again
    run = analyze(lines)
    assert [run.hyperparameters[f"knob_{i}"] for i in range(6)] == list(range(6))
    assert run.org == "NVIDIA"  # the first value, settled or not


def test_it_skips_interval_and_submission_keys_in_the_hyperparameters():
    keys = [
        "submission_poc_name",
        "init_start",
        "run_clear_caches",
        "epoch_start",
        "block_start",
        "eval_start",
        "cache_clear",
        "weights_initialization",
        "seed",
        "tracked_stats",
        "eval_samples",
        "opt_name",
    ]
    lines = [event(key, 1, at=T0 + i) for i, key in enumerate(keys)] + [event("run_start", at=T0 + 100)]
    assert list(analyze(lines).hyperparameters) == ["eval_samples", "opt_name"]


@pytest.mark.parametrize("ruleset, step_key", [("4.0.0", "samples_count"), ("3.1.0", "step_num")])
def test_it_merges_the_fid_and_clip_lines_of_stable_diffusion(ruleset, step_key):
    """Like the official configs: one point per eval step, the target on the merged values, and
    the RCP convergence point at the smallest step with FID <= 90 and CLIP >= 0.15."""
    steps = ((512_000, 120.0, 0.16), (1_024_000, 85.0, 0.14), (1_536_000, 80.0, 0.151))
    lines = [event("submission_benchmark", "stable_diffusion", at=0), event("run_start", at=T0)]
    # FID and CLIP are computed apart: all FID lines first, then the CLIP lines.
    lines += [
        event("eval_accuracy", fid, at=T0 + step, metric="FID", **{step_key: step}) for step, fid, _ in steps
    ]
    lines += [
        event("eval_accuracy", clip, at=T0 + 2 * step, metric="CLIP", **{step_key: step})
        for step, _, clip in steps
    ]
    lines.append(event("run_stop", at=T0 + 4_000_000, status="success"))
    run = analyze(lines, benchmark="stable_diffusion", ruleset=ruleset)
    assert [(p.samples, p.value, p.time_ms, p.line) for p in run.eval_curve] == [
        (512_000, {"FID": 120.0, "CLIP": 0.16}, T0 + 1_024_000, 6),
        (1_024_000, {"FID": 85.0, "CLIP": 0.14}, T0 + 2_048_000, 7),
        (1_536_000, {"FID": 80.0, "CLIP": 0.151}, T0 + 3_072_000, 8),
    ]
    assert (run.target_reached_ms, run.target_reached_line) == (T0 + 3_072_000, 8)
    assert run.samples_to_converge == 1_536_000


def test_it_converges_stable_diffusion_like_the_official_rcp_checker():
    """The RCP checker has no sanity bounds (a negative FID converges) and reads the steps
    logged before run_stop only."""
    lines = [
        event("submission_benchmark", "stable_diffusion", at=0),
        event("run_start", at=T0),
        event("eval_accuracy", -1.0, at=T0 + 1, metric="FID", samples_count=100),
        event("eval_accuracy", 0.2, at=T0 + 2, metric="CLIP", samples_count=100),
        event("run_stop", at=T0 + 3, status="success"),
        event("eval_accuracy", 50.0, at=T0 + 4, metric="FID", samples_count=50),
        event("eval_accuracy", 0.2, at=T0 + 5, metric="CLIP", samples_count=50),
    ]
    run = analyze(lines, benchmark="stable_diffusion", ruleset="4.0.0")
    assert run.samples_to_converge == 100
    assert run.target_reached_line == 7  # the merged point of step 50, after run_stop

    lines[4] = event("eval_accuracy", 0.1, at=T0 + 2, metric="CLIP", samples_count=100)
    assert analyze(lines, benchmark="stable_diffusion", ruleset="4.0.0").samples_to_converge is None


def test_it_applies_targets_that_read_a_hyperparameter():
    """BERT 0.7: the target is 0.712, or 0.706 from a global batch size of 8192."""
    lines = [
        event("submission_benchmark", "bert", at=0),
        event("global_batch_size", 8192, at=T0),
        event("run_start", at=T0 + 1),
        event("eval_accuracy", 0.708, at=T0 + 2, epoch_num=1),
        event("run_stop", at=T0 + 3, status="success"),
    ]
    assert analyze(lines, benchmark="bert", ruleset="0.7.0").target_reached_line == 4
    lines[1] = event("global_batch_size", 4096, at=T0)
    assert analyze(lines, benchmark="bert", ruleset="0.7.0").target_reached_line is None


class Recorder(RunChecker):
    """Records what it was fed, re-reads the file in finish() through context.reopen."""

    name = "recorder"

    def __init__(self, context: RunContext) -> None:
        super().__init__(context)
        self.keys: list[str] = []

    def feed_records(self, records) -> None:
        self.keys.extend(record.key for record in records)

    def finish(self, run: RunLog) -> list[Finding]:
        again = [record.key for records in self.context.reopen() for record in records]
        return [
            self.finding(
                "info", "FED", f"{len(self.keys)} fed, {len(again)} again, run_stop {run.run_stop_line}"
            )
        ]


class NotForResnet(Recorder):
    name = "not_for_resnet"

    @classmethod
    def applies_to(cls, context: RunContext) -> bool:
        return context.benchmark != "resnet"


@pytest.fixture
def registered_recorders(monkeypatch):
    """A checker's version comes from the registry: the test checkers are registered there."""
    monkeypatch.setitem(CHECKERS, "recorder", Registered(1, ""))
    monkeypatch.setitem(CHECKERS, "not_for_resnet", Registered(1, ""))


def test_it_feeds_every_applicable_checker_and_lets_it_reread_the_file(registered_recorders):
    lines = resnet_log()
    lines.insert(3, ':::MLLOG {"broken')
    run = analyze(lines, checkers=[Recorder, NotForResnet])
    assert [(f.code, f.checker) for f in run.findings] == [("PARSE_BAD_JSON", "parser"), ("FED", "recorder")]
    assert run.findings[1].message == "19 fed, 19 again, run_stop 21"


def test_it_runs_the_registered_run_checkers_by_default(monkeypatch, registered_recorders):
    scopes = []
    monkeypatch.setattr(runlog, "checkers_of_scope", lambda scope: scopes.append(scope) or [Recorder])
    data = ("\n".join(resnet_log()) + "\n").encode()
    run = analyze_run(lambda: io.BytesIO(data), context())
    assert scopes == ["run"]
    assert [f.code for f in run.findings] == ["FED"]


def test_it_agrees_with_the_official_parser_on_time_to_train(corpus):
    from mlperf_logging.compliance_checker import mlp_parser

    folder = corpus / "v1.0/NVIDIA/results/dgxa100_ngc21.05_mxnet/resnet"
    files = sorted(folder.glob("result_*.txt"))
    assert len(files) == 5
    for path in files:
        run = analyze_run(lambda p=path: p.open("rb"), context(), [])
        loglines, errors = mlp_parser.parse_file(str(path), ruleset="1.0.0")
        starts = [line.timestamp for line in loglines if line.key == "run_start"]
        stops = [line.timestamp for line in loglines if line.key == "run_stop"]
        assert (run.run_start_ms, run.run_stop_ms) == (starts[-1], stops[0])
        assert run.event_count == len(loglines) and not errors
        assert run.run_stop_status in ("success", "aborted")
        assert run.global_batch_size is not None and run.seeds
        assert run.eval_curve and run.epochs_to_converge == round(run.eval_curve[-1].epoch, 3)
