"""ComplianceChecker: the official per-run rules, against the official checker as oracle.

The mutation set of the project study of the official tools (its differential-test appendix) is run through our
parser and checker and, where the official tool does not crash, through the official
mlperf_logging compliance checker in-process: the verdicts must agree.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from mlperf_check.checkers.base import RunContext
from mlperf_check.checkers.compliance import ADVISORY_NOTE, ComplianceChecker
from mlperf_check.package import BENCHMARK_ALIASES
from mlperf_check.parsing import iter_record_blocks, iter_records
from mlperf_check.report import ERROR, WARNING, Finding, RunLog
from mlperf_check.rules import overrides
from mlperf_check.rules.catalog import get_ruleset
from mlperf_check.tests.corpus import in_processes, training_rounds
from mlperf_check.tests.generated_logs import message_key, official_failures, official_verdict
from mlperf_check.tests.logs import T0, event

MINUTE = 60_000


def resnet_log(*, accuracies=(0.70, 0.7601), status="success", init_minutes=1.0) -> list[str]:
    """A closed v1.0 ResNet (LARS) log that passes the official 1.0.0 rules."""
    run_start = T0 + init_minutes * MINUTE
    lines = [
        "framework output that is not an event",
        event("cache_clear", True),
        event("init_start"),
        event("submission_org", "Alpha"),
        event("submission_platform", "box"),
        event("submission_division", "closed"),
        event("submission_status", "onprem"),
        event("submission_benchmark", "resnet"),
        event("global_batch_size", 3264),
        event("gradient_accumulation_steps", 1),
        event("train_samples", 1281167),
        event("eval_samples", 50000),
        event("opt_name", "lars"),
        event("lars_opt_base_learning_rate", 10.5),
        event("lars_opt_end_learning_rate", 0.0001),
        event("lars_opt_learning_rate_decay_poly_power", 2),
        event("lars_opt_learning_rate_decay_steps", 1000),
        event("lars_epsilon", 0.0),
        event("lars_opt_learning_rate_warmup_epochs", 2),
        event("lars_opt_momentum", 0.9),
        event("lars_opt_weight_decay", 0.0002),
        event("init_stop", at=run_start),
        event("run_start", at=run_start),
    ]
    at = run_start
    for epoch, accuracy in enumerate(accuracies, start=1):
        at += MINUTE
        lines += [
            event("block_start", at=at, first_epoch_num=epoch, epoch_count=1),
            event("block_stop", at=at + 1, first_epoch_num=epoch),
            event("eval_start", at=at + 2, epoch_num=epoch),
            event("eval_accuracy", accuracy, at=at + 3, epoch_num=epoch),
            event("eval_stop", at=at + 4, epoch_num=epoch),
        ]
    lines.append(event("run_stop", at=at + 5, status=status))
    return lines


def context(ruleset: str = "1.0.0", benchmark: str = "resnet") -> RunContext:
    return RunContext(
        file="results/sys/resnet/result_0.txt",
        ruleset=get_ruleset(ruleset),
        system_id="sys",
        benchmark=benchmark,
        system=None,
        submitter="Alpha",
        division="closed",
    )


def check_bytes(data: bytes, ruleset: str = "1.0.0", benchmark: str = "resnet") -> RunLog:
    """Parse and check like mlperf_check.runlog.analyze_run does: parser findings first."""
    ctx = context(ruleset, benchmark)
    ctx.reopen = lambda: iter_record_blocks(io.BytesIO(data), file=ctx.file, findings=[])
    checker = ComplianceChecker(ctx)
    parser_findings: list[Finding] = []
    for records in iter_record_blocks(io.BytesIO(data), file=ctx.file, findings=parser_findings):
        checker.feed_records(records)
    run = RunLog(file=ctx.file, ruleset=ruleset)
    run.findings.extend(parser_findings)
    run.findings.extend(checker.finish(run))
    return run


def as_bytes(lines: list[str], newline: str = "\n", encoding: str = "utf-8") -> bytes:
    return (newline.join(lines) + newline).encode(encoding)


def codes(run: RunLog) -> list[tuple[str, str]]:
    return [(f.severity, f.code) for f in run.findings]


def replaced(lines: list[str], key: str, new: str) -> list[str]:
    return [new if f'"key": "{key}"' in line else line for line in lines]


def without(lines: list[str], key: str) -> list[str]:
    return [line for line in lines if f'"key": "{key}"' not in line]


def mutate_prefix(lines):
    return ["0: " + line if line.startswith(":::MLLOG") else line for line in lines]


def mutate_two_tokens(lines):
    return [
        event("submission_org", "Wrong") + " " + line if '"eval_samples"' in line else line for line in lines
    ]


def mutate_time_as_string(lines):
    return [line.replace(f'"time_ms": {T0}', f'"time_ms": "{T0}"') for line in lines]


def mutate_no_event_type(lines):
    return [
        line.replace('"namespace": "", ', "").replace('"event_type": "POINT_IN_TIME", ', "") for line in lines
    ]


def mutate_bad_json(lines):
    return [*lines[:5], ":::MLLOG {not json", *lines[5:]]


def drop_field(field: str):
    def mutate(lines):
        out = []
        for line in lines:
            if '"key": "eval_samples"' in line:
                event_object = json.loads(line[len(":::MLLOG ") :])
                del event_object[field]
                line = ":::MLLOG " + json.dumps(event_object)
            out.append(line)
        return out

    return mutate


def mutate_metadata_null(lines):
    return [
        line.replace('"metadata": {"file": "train.py", "lineno": 1, "epoch_num": 2}', '"metadata": null')
        if '"eval_accuracy"' in line
        else line
        for line in lines
    ]


def mutate_nan_eval(lines):
    return [line.replace("0.7601", "NaN") for line in lines]


def duplicate_org(value):
    def mutate(lines):
        return [*lines[:4], event("submission_org", value), *lines[4:]]

    return mutate


def duplicate_opt_name(value):
    def mutate(lines):
        index = lines.index(event("opt_name", "lars"))
        return [*lines[: index + 1], event("opt_name", value), *lines[index + 1 :]]

    return mutate


def mutate_run_start_before_init_stop(lines):
    init_stop = next(line for line in lines if '"init_stop"' in line)
    run_start = next(line for line in lines if '"run_start"' in line)
    rest = [line for line in lines if line not in (init_stop, run_start)]
    index = rest.index(next(line for line in rest if '"block_start"' in line))
    return [*rest[:index], run_start, init_stop, *rest[index:]]


def mutate_duplicated_run_start(lines):
    index = lines.index(next(line for line in lines if '"run_start"' in line))
    return [*lines[: index + 1], event("run_start", at=T0 + 11 * MINUTE), *lines[index + 1 :]]


def mutate_target_after_run_stop(lines):
    lines = resnet_log(accuracies=(0.70, 0.74))
    return [*lines, event("eval_accuracy", 0.7601, at=T0 + 10 * MINUTE, epoch_num=3)]


# (name, mutation of resnet_log(), expected verdict of the official tool: True pass, False fail,
#  None crash; our verdict where it crashes)
MUTATIONS = [
    ("prefix before the token", mutate_prefix, True, True),
    ("two tokens on a line, the last is used", mutate_two_tokens, True, True),
    ("time_ms as a numeric string", mutate_time_as_string, True, True),
    ("no event_type and namespace", mutate_no_event_type, True, True),
    ("bad JSON", mutate_bad_json, False, False),
    ("no metadata", drop_field("metadata"), None, False),
    ("no time_ms", drop_field("time_ms"), None, False),
    ("no value", drop_field("value"), None, False),
    ("metadata null on an eval", mutate_metadata_null, False, False),
    ("NaN eval value", mutate_nan_eval, False, False),
    ("duplicate submission_org, same value", duplicate_org("Alpha"), True, True),
    ("duplicate submission_org, different value", duplicate_org("Beta"), False, False),
    ("no run_stop", lambda lines: without(lines, "run_stop"), False, False),
    ("run_stop status aborted", lambda lines: resnet_log(status="aborted"), True, True),
    ("init 31 minutes", lambda lines: resnet_log(init_minutes=31), False, False),
    (
        "lars_epsilon 0.1",
        lambda lines: replaced(lines, "lars_epsilon", event("lars_epsilon", 0.1)),
        False,
        False,
    ),
    ("no lars_opt_momentum", lambda lines: without(lines, "lars_opt_momentum"), False, False),
    ("run_start before init_stop", mutate_run_start_before_init_stop, False, False),
    ("duplicated run_start", mutate_duplicated_run_start, True, True),
    ("opt_name lars logged twice", duplicate_opt_name("lars"), True, True),
    ("opt_name lars, then sgd", duplicate_opt_name("sgd"), False, False),
    ("target reached only after run_stop", mutate_target_after_run_stop, True, True),
    ("target never reached", lambda lines: resnet_log(accuracies=(0.70, 0.75)), False, False),
    (
        "division 'Closed'",
        lambda lines: replaced(lines, "submission_division", event("submission_division", "Closed")),
        None,
        False,
    ),
    (
        "benchmark 'resnet50'",
        lambda lines: replaced(lines, "submission_benchmark", event("submission_benchmark", "resnet50")),
        None,
        False,
    ),
]


def test_it_accepts_the_base_log_like_the_official_checker():
    data = as_bytes(resnet_log())
    run = check_bytes(data)
    assert run.compliant and run.findings == []
    assert official_verdict(data, "1.0.0") is True


@pytest.mark.parametrize(("name", "mutate", "oracle", "ours"), MUTATIONS, ids=[m[0] for m in MUTATIONS])
def test_it_agrees_with_the_official_checker_on_the_mutation_set(name, mutate, oracle, ours):
    data = as_bytes(mutate(resnet_log()))
    run = check_bytes(data)
    assert run.compliant is ours, [f.message for f in run.findings]
    assert official_verdict(data, "1.0.0") is oracle


def test_it_agrees_on_crlf_latin1_and_empty_files():
    crlf = as_bytes(resnet_log(), newline="\r\n")
    latin1 = as_bytes([*resnet_log(), "caf\xe9 output from the framework"], encoding="latin-1")
    for data in (crlf, latin1):
        assert check_bytes(data).compliant
        assert official_verdict(data, "1.0.0") is True
    empty = check_bytes(b"")
    assert not empty.compliant and ("error", "COMPLIANCE_NO_EVENTS") in codes(empty)
    assert official_verdict(b"", "1.0.0") is False


def test_it_explains_the_failures_of_the_mutation_set():
    run = check_bytes(as_bytes(replaced(resnet_log(), "lars_epsilon", event("lars_epsilon", 0.1))))
    (finding,) = run.findings
    assert finding.code == "COMPLIANCE_CHECK_FAILED" and finding.checker == "compliance"
    assert finding.line == 18 and finding.key == "lars_epsilon"
    assert finding.expected == "value == 0.0" and finding.actual == "0.1"
    assert "training_1.0.0/closed_resnet_lars.yaml" in finding.message

    run = check_bytes(as_bytes(resnet_log(init_minutes=31)))
    (finding,) = run.findings
    assert finding.key == "init_stop" and finding.line == 22
    assert "time - state.first_init_start < (30*60*1e3)" in finding.message
    assert f"state.first_init_start = {float(T0)!r}" in finding.message

    run = check_bytes(as_bytes(without(resnet_log(), "lars_opt_momentum")))
    assert [f.message for f in run.findings] == [
        "Required EXACTLY_ONE occurrence of 'lars_opt_momentum' but found 0 (training_1.0.0/closed_resnet_lars.yaml)"
    ]

    run = check_bytes(as_bytes(resnet_log(accuracies=(0.70, 0.75))))
    (finding,) = run.findings
    assert finding.code == "COMPLIANCE_TARGET_NOT_REACHED" and finding.line == 32
    assert "none of the 2 eval_accuracy lines meets `value >= 0.7590 and value < 1.0`" in finding.message

    run = check_bytes(as_bytes(duplicate_org("Alpha")(resnet_log())))
    assert run.compliant and codes(run) == [(WARNING, "COMPLIANCE_DUPLICATE_KEY")]
    run = check_bytes(as_bytes(duplicate_org("Beta")(resnet_log())))
    assert codes(run) == [(ERROR, "COMPLIANCE_DUPLICATE_KEY")]
    assert "with different values: ['Alpha', 'Beta']" in run.findings[0].message


def test_it_reports_an_unknown_division_instead_of_crashing():
    run = check_bytes(
        as_bytes(replaced(resnet_log(), "submission_division", event("submission_division", "Closed")))
    )
    unknown = [f for f in run.findings if f.code == "COMPLIANCE_UNKNOWN_CONFIG"]
    assert [f.message for f in unknown] == [
        "submission_division 'Closed' on line 6 has no rule set in training 1.0.0; expected one of closed, open"
    ]
    assert unknown[0].line == 6 and unknown[0].key == "submission_division"


def test_it_fails_a_log_with_parse_errors_without_a_finding_of_its_own():
    run = check_bytes(as_bytes(mutate_bad_json(resnet_log())))
    assert not run.compliant
    assert {f.checker for f in run.findings} == {"parser"}


def test_it_reads_the_file_again_for_a_config_asked_for_late(monkeypatch):
    """The replay buffer is bounded; a config enqueued past it re-reads the log (reopen)."""
    from mlperf_check.rules import engine

    monkeypatch.setattr(engine, "MAX_REPLAY_RECORDS", 3)
    lines = replaced(resnet_log(), "lars_epsilon", event("lars_epsilon", 0.1))
    run = check_bytes(as_bytes(lines))
    assert [f.key for f in run.findings] == ["lars_epsilon"]
    assert not run.compliant


# ---------------------------------------------------------------------------------------------
# Round 0.5 (rules as data) and 0.6 (official configs plus the published target)


def mlp05(key: str, value=None, at: float = 1_541_000_000.0, benchmark: str = "resnet") -> str:
    text = f":::MLPv0.5.0 {benchmark} {at:.3f} (train.py:1) {key}"
    return text if value is None else f"{text}: {json.dumps(value)}"


def v05_log(
    benchmark: str = "resnet", accuracies=(0.5, 0.7501), target: float = 0.749, stop=None
) -> list[str]:
    lines = [
        mlp05("run_clear_caches", benchmark=benchmark),
        mlp05("run_start", benchmark=benchmark),
        mlp05("eval_target", target, benchmark=benchmark),
    ]
    for epoch, accuracy in enumerate(accuracies):
        lines.append(mlp05("eval_accuracy", {"epoch": epoch, "value": accuracy}, benchmark=benchmark))
    lines += [
        mlp05("run_stop", stop if stop is not None else {"success": True}, benchmark=benchmark),
        mlp05("run_final", benchmark=benchmark),
    ]
    return lines


def test_it_applies_the_v05_rules():
    run = check_bytes(as_bytes(v05_log()), ruleset="0.5.0")
    assert run.compliant and run.findings == []

    run = check_bytes(as_bytes(v05_log(accuracies=(0.5, 0.7))), ruleset="0.5.0")
    assert codes(run) == [(ERROR, "COMPLIANCE_TARGET_NOT_REACHED")]
    assert "eval_accuracy >= 0.749" in run.findings[0].message and run.findings[0].line == 5

    run = check_bytes(as_bytes([line for line in v05_log() if " run_final" not in line]), ruleset="0.5.0")
    assert not run.compliant
    assert [f.message for f in run.findings] == [
        "Required EXACTLY_ONE occurrence of 'run_final' but found 0 (v0.5 rules)"
    ]


def test_it_reads_v05_bleu_in_points_or_as_a_fraction():
    points = v05_log("gnmt", accuracies=(18.6, 22.25), target=21.8)
    fraction = v05_log("gnmt", accuracies=(0.186, 0.2225), target=21.8)
    short = v05_log("gnmt", accuracies=(18.6, 21.0), target=21.8)
    assert check_bytes(as_bytes(points), "0.5.0", "gnmt").compliant
    assert check_bytes(as_bytes(fraction), "0.5.0", "gnmt").compliant
    assert codes(check_bytes(as_bytes(short), "0.5.0", "gnmt")) == [(ERROR, "COMPLIANCE_TARGET_NOT_REACHED")]


def test_it_rejects_v05_logs_of_unknown_benchmarks_and_odd_values():
    run = check_bytes(as_bytes(v05_log("resnext")), ruleset="0.5.0")
    assert codes(run) == [(ERROR, "COMPLIANCE_UNKNOWN_CONFIG")]
    assert "benchmark 'resnext' on line 1 has no rule set in training 0.5.0" in run.findings[0].message

    lines = [*v05_log()[:3], mlp05("eval_accuracy", {"epoch": 0, "value": "high"}), *v05_log()[3:]]
    run = check_bytes(as_bytes(lines), ruleset="0.5.0")
    assert codes(run) == [(ERROR, "COMPLIANCE_CHECK_FAILED")]
    assert run.findings[0].expected == '{"epoch": N, "value": number}'


def test_it_checks_the_published_v06_target_the_official_configs_leave_out():
    def mll(key, value=None, **metadata):
        return f":::MLL 1558650615.961 {key}: {json.dumps({'value': value, 'metadata': metadata})}"

    lines = [mll("submission_benchmark", "transformer"), mll("eval_accuracy", 24.1, epoch_num=1)]
    run = check_bytes(as_bytes(lines), ruleset="0.6.0", benchmark="transformer")
    target = [f for f in run.findings if f.code == "COMPLIANCE_TARGET_NOT_REACHED"]
    assert len(target) == 1 and "eval_accuracy >= 25 BLEU" in target[0].message
    assert "stricter rule than the official 0.6.0 checker" in target[0].message

    lines[1] = mll("eval_accuracy", [0.378, 0.342], epoch_num=14)
    run = check_bytes(
        as_bytes([mll("submission_benchmark", "mask"), lines[1]]), ruleset="0.6.0", benchmark="maskrcnn"
    )
    assert not [f for f in run.findings if f.code == "COMPLIANCE_TARGET_NOT_REACHED"]


# ---------------------------------------------------------------------------------------------
# Corpus differential: our verdict against the official checker's on real result files


# v0.6: the official 0.6.0 configs leave out the quality target; ours checks the published one
# (test_it_checks_the_published_v06_target_the_official_configs_leave_out), so a v0.6 run that
# stops short of it passes the official checker and fails ours with this code only.
STRICTER_THAN_OFFICIAL = {"0.6.0": "COMPLIANCE_TARGET_NOT_REACHED"}


def corpus_verdict(path: Path, ruleset: str) -> tuple[str, set[str] | None, set[str], list[str], str | None]:
    """One corpus log: (path, what the official checker fails it on or None on its crash, what
    ours fails it on, our codes, the benchmark it logs). "What": generated_logs.message_key."""
    data = path.read_bytes()
    run = check_bytes(data, ruleset, path.parent.name)
    logged = next(
        (
            r.value
            for r in iter_records(io.BytesIO(data), file="", findings=[])
            if r.key == "submission_benchmark"
        ),
        None,
    )
    # Where compliance is advisory (0.6) its rule findings are warnings: ours are then the rules
    # that failed, the official checker's question. The stricter published target is left out.
    counted = [f for f in run.findings if f.severity == ERROR or f.message.endswith(ADVISORY_NOTE)]
    failing = {
        message_key(f.key, f.message) for f in counted if f.code != STRICTER_THAN_OFFICIAL.get(ruleset)
    }
    return str(path), official_failures(data, ruleset), failing, [f.code for f in counted], logged


def round_verdicts(job: tuple[Path, str]) -> list[tuple]:
    folder, ruleset = job
    return [corpus_verdict(path, ruleset) for path in sorted(folder.rglob("result_*.txt"))]


@pytest.fixture(scope="module")
def corpus_verdicts(corpus) -> dict[str, list[tuple]]:
    """Both verdicts on every result file of every training round the official rules cover (0.6.0
    on), each submitter in a process of its own; computed once for the tests below."""
    jobs = [
        (submitter, ruleset)
        for round_, ruleset in training_rounds(corpus, since=(0, 6))
        for submitter in sorted((corpus / round_).iterdir())
        if submitter.is_dir()
    ]
    verdicts: dict[str, list[tuple]] = {}
    for (submitter, _), found in zip(jobs, in_processes(round_verdicts, jobs), strict=True):
        verdicts.setdefault(submitter.parent.name, []).extend(found)
    return verdicts


def test_it_agrees_with_the_official_checker_on_every_corpus_log(corpus, corpus_verdicts):
    rounds = dict(training_rounds(corpus, since=(0, 6)))
    assert set(corpus_verdicts) == set(rounds), "a round of the corpus has no result file"
    # Every disagreement must be an override of mlperf_check.rules.overrides; none applies to these rounds.
    assert not [o for o in overrides.OVERRIDES if o.ruleset in rounds.values()]
    for round_, verdicts in corpus_verdicts.items():
        files = sorted((corpus / round_).rglob("result_*.txt"))
        assert len(verdicts) == len(files), round_
        disagreements = []
        for path, official, failing, codes, _ in verdicts:
            if official is None:
                # The official tool crashes: on an unknown benchmark (v0.6 Google `mask`) where we
                # report it, and on Alibaba's v0.7 `time_s` logs, which its parser cannot read.
                if "COMPLIANCE_UNKNOWN_CONFIG" not in codes and b'"time_s"' not in Path(path).read_bytes():
                    disagreements.append((path, "official crashed", codes))
            elif official != failing:  # the same verdict, failing on the same keys
                disagreements.append((path, sorted(official), sorted(failing), codes))
        assert disagreements == [], round_


def test_every_corpus_log_is_a_benchmark_our_rules_know(corpus, corpus_verdicts):
    """A benchmark the catalog does not know (a new round in the corpus) fails here by name."""
    rounds = dict(training_rounds(corpus, since=(0, 6)))
    for round_, verdicts in corpus_verdicts.items():
        ruleset = get_ruleset(rounds[round_])
        # The benchmark a log names, else its folder's (v0.6 Alibaba logs have no MLPerf events).
        names = {logged or Path(path).parent.name for path, *_, logged in verdicts}
        unknown = sorted(
            name for name in names if ruleset.benchmark(BENCHMARK_ALIASES.get(name, name)) is None
        )
        assert unknown == [], f"{round_}: benchmarks training {ruleset.version} does not have: {unknown}"


def test_it_passes_the_converged_v05_corpus_logs(corpus):
    checked = 0
    for path in sorted((corpus / "v0.5").rglob("result_*.txt"))[::4]:
        data = path.read_bytes()
        run = check_bytes(data, "0.5.0", path.parent.name)
        stop = [r for r in iter_records(io.BytesIO(data), file="", findings=[]) if r.key == "run_stop"]
        success = stop[0].value["success"] in (True, "true")
        # In the corpus the runs that stop with success are exactly those that reach the target.
        assert run.compliant == success, (str(path), codes(run))
        checked += 1
    assert checked >= 40


# ---------------------------------------------------------------------------------------------
# Stable Diffusion: a real v4.0 log (GigaComputing G593-SD1, result_0.txt; data/…/README.md)

STABLE_DIFFUSION_LOG = Path(__file__).parent / "data" / "training-v4.0-stable_diffusion" / "result_0.txt"


def as_ruleset_3_1(data: bytes) -> bytes:
    """Ruleset 3.1.0 counts Stable Diffusion in steps (4.0.0 on in samples): every line that
    carries samples_count in its metadata also gets it as step_num."""
    lines = []
    for line in data.splitlines(keepends=True):
        prefix, marker, body = line.partition(b":::MLLOG ")
        event = json.loads(body) if marker else None
        if event is not None and "samples_count" in event["metadata"]:
            event["metadata"]["step_num"] = event["metadata"]["samples_count"]
            line = prefix + marker + json.dumps(event).encode() + b"\n"
        lines.append(line)
    return b"".join(lines)


@pytest.mark.parametrize("ruleset", ["3.1.0", "4.0.0", "4.1.0"])
def test_it_counts_eval_accuracy_of_stable_diffusion_like_the_official_checker(ruleset):
    # The Stable Diffusion config routes eval_accuracy to its aggregation without defining a rule
    # for it, so common.yaml's AT_LEAST_ONE eval_accuracy must still count every line (a1fe669
    # pruned common's route as if the later config redefined the key: "found 0").
    data = STABLE_DIFFUSION_LOG.read_bytes()
    if ruleset == "3.1.0":
        data = as_ruleset_3_1(data)
    run = check_bytes(data, ruleset, "stable_diffusion")
    assert official_verdict(data, ruleset) is True
    assert codes(run) == []
    assert run.compliant
