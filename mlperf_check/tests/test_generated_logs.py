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

RULESETS = generated_logs.shipped_rulesets()
CASES = [(ruleset, benchmark) for ruleset in RULESETS for benchmark in generated_logs.benchmarks(ruleset)]
# Listed in closed_common.yaml's submission_benchmark but without a config of their own (4.0.0 and
# 4.1.0 still list retired benchmarks): the official checker crashes on their logs.
LISTED_WITHOUT_CONFIG = [
    (ruleset, benchmark)
    for ruleset in RULESETS
    for benchmark in generated_logs.listed_benchmarks(ruleset)
    if benchmark not in generated_logs.benchmarks(ruleset)
]


def renamed_by_overrides(ruleset: str, benchmark: str) -> list[overrides.RuleOverride]:
    configs = {config.split("/")[1] for config in generated_logs.configs_of(ruleset, benchmark)}
    return [
        o
        for o in overrides.OVERRIDES
        if o.ruleset == ruleset and o.config in configs and "NAME" in o.replacement
    ]


def with_renamed_keys(data: bytes, ruleset: str, benchmark: str) -> bytes:
    """The log with each key an override renames logged under both names: valid for both checkers."""
    events = generated_logs.as_events(data)
    for override in renamed_by_overrides(ruleset, benchmark):
        index = next(i for i, item in enumerate(events) if item["key"] == override.key)
        events.insert(index + 1, dict(events[index], key=override.replacement["NAME"]))
    return generated_logs.as_log(events)


def expected_differences(ruleset: str, benchmark: str) -> set[str]:
    """Mutations where our verdict differs from the official one by design: the key an override
    renames is missing (the official checker wants it; we want the name of the round's time)."""
    return {f"no {o.key}" for o in renamed_by_overrides(ruleset, benchmark)}


def differential(case: tuple[str, str]) -> dict:
    """One benchmark: the verdicts of both checkers on its log and on every mutation of it."""
    ruleset, benchmark = case
    first_of_ruleset = benchmark == generated_logs.benchmarks(ruleset)[0]
    base = with_renamed_keys(generated_logs.conforming_log(ruleset, benchmark), ruleset, benchmark)
    logs = [
        ("conforming", base),
        *generated_logs.mutations(ruleset, benchmark, common_too=first_of_ruleset, base=base),
    ]
    outcomes = []
    for name, data in logs:
        run = check_bytes(data, ruleset, benchmark)
        errors = [f for f in run.findings if f.severity == ERROR]
        official = generated_logs.official_failures(data, ruleset)
        ours = {generated_logs.message_key(f.key, f.message) for f in errors}
        outcomes.append((name, official, ours, run.compliant, [f.code for f in errors]))
    return {"outcomes": outcomes}


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


@pytest.mark.parametrize(("ruleset", "benchmark"), CASES, ids=[f"{r}-{b}" for r, b in CASES])
def test_both_checkers_accept_the_generated_log(verdicts, ruleset, benchmark):
    name, official, _, ours, codes = verdicts[(ruleset, benchmark)]["outcomes"][0]
    assert name == "conforming"
    assert official == set()
    assert ours is True, codes


@pytest.mark.parametrize(("ruleset", "benchmark"), CASES, ids=[f"{r}-{b}" for r, b in CASES])
def test_our_verdict_is_the_official_one_on_every_broken_rule(verdicts, ruleset, benchmark):
    """The same verdict, failing on the same keys (both checkers' messages in one spelling:
    generated_logs.message_key)."""
    outcomes = verdicts[(ruleset, benchmark)]["outcomes"][1:]
    expected = expected_differences(ruleset, benchmark)
    disagreements = []
    for name, official, failing, ours, codes in outcomes:
        if official is None:  # the official checker crashed: ours rejects with an error finding
            if ours or not codes:
                disagreements.append((name, "official crashed", codes))
        elif (official != failing) != (name in expected):
            disagreements.append((name, sorted(official), sorted(failing), codes))
    assert disagreements == []
    names = [name for name, *_ in outcomes]
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


@pytest.mark.parametrize(
    ("ruleset", "benchmark"), LISTED_WITHOUT_CONFIG, ids=[f"{r}-{b}" for r, b in LISTED_WITHOUT_CONFIG]
)
def test_a_listed_benchmark_without_a_config_is_a_finding_where_the_official_checker_crashes(
    ruleset, benchmark
):
    data = generated_logs.conforming_log(ruleset, generated_logs.benchmarks(ruleset)[0])
    events = generated_logs.as_events(data)
    data = generated_logs.as_log(
        [dict(item, value=benchmark) if item["key"] == "submission_benchmark" else item for item in events]
    )
    assert generated_logs.official_verdict(data, ruleset) is None
    run = check_bytes(data, ruleset, benchmark)
    assert not run.compliant
    [unknown] = [f for f in run.findings if f.code == "COMPLIANCE_UNKNOWN_CONFIG"]
    assert unknown.severity == ERROR and unknown.key == "submission_benchmark" and unknown.line
    assert f"closed_{benchmark}.yaml" in unknown.message or benchmark in unknown.message


# ---------------------------------------------------------------------------------------------
# A benchmark or ruleset the checker does not know: a finding or a usage error, never a crash.


def package_of(root: Path, benchmark_logs: dict[str, bytes]) -> Path:
    """A submitter folder with one system and five runs per benchmark folder."""
    package = root / "Generated"
    system = {
        "submitter": "Generated",
        "division": "closed",
        "status": "onprem",
        "system_name": "generated-system",
        "number_of_nodes": "1",
        "host_processors_per_node": "2",
        "host_processor_model_name": "CPU",
        "host_processor_core_count": "64",
        "host_memory_capacity": "1 TB",
        "accelerators_per_node": "8",
        "accelerator_model_name": "Accelerator",
        "framework": "framework",
    }
    (package / "systems").mkdir(parents=True)
    (package / "systems" / "generated.json").write_text(json.dumps(system))
    for benchmark, data in benchmark_logs.items():
        folder = package / "results" / "generated" / benchmark
        folder.mkdir(parents=True)
        for index in range(5):
            (folder / f"result_{index}.txt").write_bytes(data + f"run {index}\n".encode())
    return package


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
