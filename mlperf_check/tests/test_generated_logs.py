"""Our compliance verdicts against the official checker's on generated logs, for every benchmark of
every ruleset the installed mlperf-logging ships (generated_logs.py says how the logs are made).

The cases come from the package's configs: a new ruleset or benchmark is covered when the package
brings it. For each benchmark, the official checker must accept its generated log, and on every
mutation of it (each rule of its configs broken in turn) our verdict must be the official one.
Where the official checker crashes, ours must reject the log with an error finding (never crash).
The only expected differences are our documented overrides (mlperf_check.rules.overrides).
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from mlperf_check import cli
from mlperf_check.pipeline import check_package
from mlperf_check.report import ERROR
from mlperf_check.rules import overrides
from mlperf_check.rules.catalog import get_ruleset, known_rulesets
from mlperf_check.tests import generated_logs
from mlperf_check.tests.corpus import in_processes
from mlperf_check.tests.test_compliance import check_bytes

pytestmark = pytest.mark.slow(minutes=1.5)  # both checkers on every generated log

RULESETS = generated_logs.shipped_rulesets()
DIVISIONS = generated_logs.DIVISIONS
CASES = [
    (ruleset, division, benchmark)
    for ruleset in RULESETS
    for division in DIVISIONS
    for benchmark in generated_logs.benchmarks(ruleset, division)
]
IDS = [f"{r}-{d}-{b}" for r, d, b in CASES]
# Listed in <division>_common.yaml's submission_benchmark but without a config of their own (4.0.0
# and 4.1.0 still list retired benchmarks), or closed benchmarks the open rules do not list or have
# no config for (3.0.0/3.1.0 open gpt3; 4.0.0/4.1.0 open llama2_70b_lora): the official checker
# crashes on or rejects every such log.
NOT_IN_THE_RULES = sorted(
    {
        (ruleset, division, benchmark)
        for ruleset in RULESETS
        for division in DIVISIONS
        for benchmark in {
            *generated_logs.listed_benchmarks(ruleset, division),
            *generated_logs.benchmarks(ruleset),
        }
        if benchmark not in generated_logs.benchmarks(ruleset, division)
    }
)


def renamed_by_overrides(ruleset: str, division: str, benchmark: str) -> list[overrides.RuleOverride]:
    configs = {config.split("/")[1] for config in generated_logs.configs_of(ruleset, benchmark, division)}
    return [
        o
        for o in overrides.OVERRIDES
        if o.ruleset == ruleset and o.config in configs and "NAME" in o.replacement
    ]


def with_renamed_keys(data: bytes, renamed: list[overrides.RuleOverride]) -> bytes:
    """The log with each key an override renames logged under both names: valid for both checkers."""
    events = generated_logs.as_events(data)
    for override in renamed:
        index = next(i for i, item in enumerate(events) if item["key"] == override.key)
        events.insert(index + 1, dict(events[index], key=override.replacement["NAME"]))
    return generated_logs.as_log(events)


def differential(case: tuple[str, str, str]) -> dict:
    """One benchmark: the verdicts of both checkers on its log and on every mutation of it."""
    ruleset, division, benchmark = case
    first_of_ruleset = benchmark == generated_logs.benchmarks(ruleset, division)[0]
    renamed = renamed_by_overrides(ruleset, division, benchmark)
    base = with_renamed_keys(generated_logs.conforming_log(ruleset, benchmark, division), renamed)
    logs = [
        ("conforming", base),
        *generated_logs.mutations(ruleset, benchmark, first_of_ruleset, base, division),
    ]
    outcomes = []
    for name, data in logs:
        run = check_bytes(data, ruleset, benchmark)
        errors = [f for f in run.findings if f.severity == ERROR]
        official = generated_logs.official_failures(data, ruleset)
        ours = {generated_logs.message_key(f.key, f.message) for f in errors}
        outcomes.append((name, official, ours, run.compliant, [f.code for f in errors]))
    # Where our verdict differs from the official one by design: the key an override renames is
    # missing (the official checker wants it; we want the name of the round's time).
    return {"outcomes": outcomes, "expected": {f"no {o.key}" for o in renamed}}


@pytest.fixture(scope="module")
def verdicts() -> dict[tuple[str, str], dict]:
    """Every case at once, in parallel processes (the official checker dominates: ~8 ms a log)."""
    return dict(zip(CASES, in_processes(differential, CASES), strict=True))


def test_every_ruleset_and_benchmark_the_checker_knows_is_generated():
    # Every :::MLLOG ruleset of our catalog (0.7.0 on) has generated logs, and every benchmark of it
    # that the package gives a config: none is left out, so none is silently unchecked.
    mllog = [version for version in known_rulesets() if get_ruleset(version).log_format == "mllog"]
    assert mllog == RULESETS
    for ruleset in RULESETS:
        assert set(generated_logs.benchmarks(ruleset)) <= set(get_ruleset(ruleset).benchmarks), ruleset


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_both_checkers_accept_the_generated_log(verdicts, case):
    name, official, _, ours, codes = verdicts[case]["outcomes"][0]
    assert name == "conforming"
    assert official == set()
    assert ours is True, codes


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_our_verdict_is_the_official_one_on_every_broken_rule(verdicts, case):
    """The same verdict, failing on the same keys (both checkers' messages in one spelling:
    generated_logs.message_key)."""
    outcomes, expected = verdicts[case]["outcomes"][1:], verdicts[case]["expected"]
    disagreements = []
    for name, official, failing, ours, codes in outcomes:
        if official is None:  # the official checker crashed: ours rejects with an error finding
            if ours or not codes:
                disagreements.append((name, "official crashed", codes))
        elif (official != failing) != (name in expected):
            disagreements.append((name, sorted(official), sorted(failing), codes))
    assert disagreements == []
    names = [name for name, *_ in outcomes]
    ruleset, division, benchmark = case
    if generated_logs.quality_target_keys(ruleset, benchmark, division):
        assert any(name.startswith("target not reached") for name in names)
    assert {"run_stop status None", "init 241 minutes", "no eval_accuracy"} <= set(names)


def test_the_generated_logs_break_the_rules_they_name():
    # The mutations of one benchmark, by kind: every kind is there and fails the official checker.
    names = dict(generated_logs.mutations("5.1.0", "llama31_8b"))
    for name in ("no opt_adamw_beta_1", "opt_adamw_beta_1 0.9 -> 2.8", "no run_stop", "init 241 minutes"):
        assert generated_logs.official_verdict(names[name], "5.1.0") is False, name
        assert check_bytes(names[name], "5.1.0", "llama31_8b").compliant is False, name
    [target] = [name for name in names if name.startswith("target not reached")]
    assert generated_logs.official_verdict(names[target], "5.1.0") is False
    run = check_bytes(names[target], "5.1.0", "llama31_8b")
    assert [f.code for f in run.findings] == ["COMPLIANCE_TARGET_NOT_REACHED"]


def test_the_generated_log_is_deterministic_and_written_by_mllog():
    data = generated_logs.conforming_log("6.1.0", "qwen35_397b_grpo")
    assert data == generated_logs.render(
        [event for event, _ in generated_logs.conforming_draft("6.1.0", "qwen35_397b_grpo").events()]
    )
    first = json.loads(data.splitlines()[0].removeprefix(b":::MLLOG "))
    assert list(first) == ["namespace", "time_ms", "event_type", "key", "value", "metadata"]
    assert first["metadata"] == {"file": "generated_logs.py", "lineno": first["metadata"]["lineno"]}


@pytest.mark.parametrize("case", NOT_IN_THE_RULES, ids=[f"{r}-{d}-{b}" for r, d, b in NOT_IN_THE_RULES])
def test_a_benchmark_its_division_has_no_rules_for_is_rejected_with_a_finding_like_officially(case):
    ruleset, division, benchmark = case
    data = generated_logs.conforming_log(ruleset, generated_logs.benchmarks(ruleset, division)[0], division)
    events = generated_logs.as_events(data)
    data = generated_logs.as_log(
        [dict(item, value=benchmark) if item["key"] == "submission_benchmark" else item for item in events]
    )
    assert generated_logs.official_verdict(data, ruleset) in (None, False)  # a crash or a rejection
    run = check_bytes(data, ruleset, benchmark)
    assert not run.compliant
    [finding] = [f for f in run.findings if f.key == "submission_benchmark"]
    assert finding.severity == ERROR and finding.line
    assert finding.code in ("COMPLIANCE_UNKNOWN_CONFIG", "COMPLIANCE_CHECK_FAILED")
    assert benchmark in finding.message or benchmark in finding.actual


# ---------------------------------------------------------------------------------------------
# A benchmark or ruleset the checker does not know: a finding or a usage error, never a crash.


def package_of(root: Path, benchmark_logs: dict[str, bytes]) -> Path:
    """A submitter folder with one system and five runs (distinct files) per benchmark folder."""
    runs = {
        benchmark: [data + f"run {index}\n".encode() for index in range(5)]
        for benchmark, data in benchmark_logs.items()
    }
    return generated_logs.write_package(root / "Generated", runs)


def findings_in(document) -> list[dict]:
    """Every finding of a `--format json` document, wherever it is nested."""
    if isinstance(document, list):
        return [finding for item in document for finding in findings_in(item)]
    if isinstance(document, dict):
        own = [document] if {"severity", "code", "message", "file"} <= set(document) else []
        return own + [finding for value in document.values() for finding in findings_in(value)]
    return []


def test_a_benchmark_the_ruleset_does_not_have_is_a_finding_in_the_package_and_the_cli(tmp_path):
    # llama31_8b is a 5.1.0 benchmark; under 4.0.0 it is unknown. made_up has no ruleset at all.
    llama = generated_logs.conforming_log("5.1.0", "llama31_8b")
    made_up = llama.replace(b'"llama31_8b"', b'"made_up"')
    package = package_of(tmp_path, {"llama31_8b": llama, "made_up": made_up})
    report = check_package(package, ruleset="4.0.0")
    unknown = [f for f in report.all_findings() if f.code == "LAYOUT_UNKNOWN_BENCHMARK"]
    assert sorted(f.actual for f in unknown) == ["llama31_8b", "made_up"]
    assert all(
        f.file.startswith("results/generated/") and "not a benchmark of training 4.0.0" in f.message
        for f in unknown
    )
    assert not [r for r in report.results if r.score_minutes is not None]

    out, err = io.StringIO(), io.StringIO()
    status = cli.main([str(package), "--ruleset", "4.0.0", "--format", "json"], stdout=out, stderr=err)
    document = json.loads(out.getvalue())
    assert status == 1
    codes = {(f["severity"], f["code"], f["file"]) for f in findings_in(document)}
    assert ("warning", "LAYOUT_UNKNOWN_BENCHMARK", "results/generated/made_up") in codes
    assert ("error", "COMPLIANCE_UNKNOWN_CONFIG", "results/generated/made_up/result_0.txt") in codes

    # Under 5.1.0 llama31_8b is known and scored like the official tools would; made_up is not.
    report = check_package(package, ruleset="5.1.0")
    assert [f.actual for f in report.all_findings() if f.code == "LAYOUT_UNKNOWN_BENCHMARK"] == ["made_up"]


def test_a_ruleset_the_checker_does_not_know_is_a_usage_error_that_names_the_known_ones(tmp_path):
    package = package_of(tmp_path, {"llama31_8b": generated_logs.conforming_log("5.1.0", "llama31_8b")})
    out, err = io.StringIO(), io.StringIO()
    status = cli.main([str(package), "--ruleset", "9.9.0"], stdout=out, stderr=err)
    assert status == 2 and out.getvalue() == ""
    assert "unknown training ruleset 9.9.0; known: 0.5.0" in err.getvalue()
    assert RULESETS[-1] in err.getvalue()
