"""The compliance (audit) tests of a result's model, as the round's checker reads them (every
division but the open one): each test's folder, its own LoadGen run checked as the result's run
is, and its verdict files ("TEST PASS"; TEST06's LLM output checks; TEST01's accuracy fallback)."""

from __future__ import annotations

from pathlib import Path

from mlperf_check.inference.checkers.base import ResultContext
from mlperf_check.inference.checkers.round_rules.accuracy import accuracy_figures
from mlperf_check.inference.checkers.round_rules.base import UNCOMMITTED, RoundRuleChecker, file_set, place
from mlperf_check.inference.checkers.round_rules.settings import settings_findings
from mlperf_check.inference.discovery import ACCURACY_LOG, DETAIL, SUMMARY
from mlperf_check.inference.logs import decode_lines, parse_detail
from mlperf_check.report import ERROR, Finding

# The verify_accuracy.txt lines of TEST06 (LLM output checks): each must say True (the first-token
# check may say Skipped: Offline runs do not stream a first token).
TEST06_CHECKS = {
    "First token": ("First token check pass: True", "First token check pass: Skipped"),
    "EOS": ("EOS check pass: True",),
    "Sample length": ("Sample length check pass: True",),
}
# v6.x tests without a performance run of their own, and the file whose "TEST PASS" is their verdict:
# TEST07 (accuracy in performance mode), TEST08 (dlrm-v3 NE), TEST09 (output lengths).
VERDICT_ONLY_TESTS = {
    "TEST07": "verify_accuracy.txt",
    "TEST08": "verify_accuracy.txt",
    "TEST09": "verify_output_len.txt",
}
# The verdict of a compliance test: "TEST PASS" anywhere in its verify file, but TEST08's must be a
# line of its own (the v6.x checker compares stripped lines; the script prints it alone).
VERDICT_ON_ITS_OWN_LINE = ("TEST08",)


def _passes(test: str, verdict: Path) -> bool:
    text = verdict.read_bytes().decode("utf-8", errors="replace")
    if test in VERDICT_ON_ITS_OWN_LINE:
        return "TEST PASS" in (line.strip() for line in text.splitlines())
    return "TEST PASS" in text


class RoundComplianceChecker(RoundRuleChecker):
    name = "inference_round_compliance"
    description = "v2.1+: the model's compliance tests present, their runs valid, their verdicts passed"

    def check_result(self, context: ResultContext) -> list[Finding]:
        folder, model = context.folder, context.model
        if context.result.division == "open" or not model.compliance_tests:
            return []
        base = place(context.rules.table["layout"]["compliance"], folder)
        if not base.is_dir():
            return [self.finding(ERROR, "compliance_missing", "no compliance folder", file=context.rel(base))]
        out = []
        for test in model.compliance_tests:
            test_dir = base / test
            rel = context.rel(test_dir)
            if not test_dir.is_dir():
                out.append(
                    self.finding(ERROR, "compliance_missing", f"compliance test {test} is missing", file=rel)
                )
                continue
            if test == "TEST06":
                out.extend(self._test06(test_dir, rel))
                continue
            if test in VERDICT_ONLY_TESTS:
                verdicts = [test_dir / VERDICT_ONLY_TESTS[test]]
            else:
                run = test_dir / "performance" / "run_1"
                problem = file_set(run, (SUMMARY, DETAIL), (ACCURACY_LOG,))
                if problem:
                    out.append(
                        self.finding(
                            ERROR, "compliance_run_file", f"{test}: performance/run_1 {problem}", file=rel
                        )
                    )
                else:
                    out.extend(self._compliance_run(context, test, run))
                verdicts = [test_dir / "verify_performance.txt"]
                if test == "TEST01":
                    verdicts.append(test_dir / "verify_accuracy.txt")
            for verdict in verdicts:
                if not verdict.is_file():
                    out.append(
                        self.finding(
                            ERROR, "compliance_no_verdict", f"{test} has no {verdict.name}", file=rel
                        )
                    )
                elif not _passes(test, verdict):
                    if (
                        test == "TEST01"
                        and verdict.name == "verify_accuracy.txt"
                        and _test01_accuracy_agrees(context, test_dir)
                    ):
                        continue
                    out.append(
                        self.finding(
                            ERROR,
                            "compliance_failed",
                            f"{test}: {verdict.name} has no 'TEST PASS'",
                            file=f"{rel}/{verdict.name}",
                        )
                    )
        return out

    def _compliance_run(self, context: ResultContext, test: str, run: Path) -> list[Finding]:
        """A compliance test's own LoadGen run, checked as the result's run is (TEST05 with its own
        seeds): LoadGen's verdict, errors, sample count, seeds, the Offline minimum, min_duration."""
        rel = context.rel(run / DETAIL)
        with (run / DETAIL).open("rb") as stream:
            detail = parse_detail(stream, rel)
        out = list(detail.findings)
        if detail.results.get("result_validity") != "VALID":
            out.append(
                self.finding(
                    ERROR,
                    "compliance_run_invalid",
                    f"{test}: LoadGen judged the compliance run {detail.results.get('result_validity') or 'unknown'}",
                    file=rel,
                )
            )
        for message in detail.errors:
            if UNCOMMITTED not in message.text and not any(
                k in message.text for k in context.rules.table["ignore_errors"]
            ):
                out.append(
                    self.finding(
                        ERROR,
                        "detail_error",
                        f"{test}: LoadGen error: {message.text}",
                        file=rel,
                        line=message.line,
                    )
                )
        seeds = context.rules.table["test05_seeds"] if test == "TEST05" else context.rules.seeds
        out.extend(settings_findings(self, context, detail, rel, seeds))
        return out

    def _test06(self, test_dir, rel: str) -> list[Finding]:
        verdict = test_dir / "verify_accuracy.txt"
        if not verdict.is_file():
            return [
                self.finding(ERROR, "compliance_no_verdict", "TEST06 has no verify_accuracy.txt", file=rel)
            ]
        lines = {line.strip() for line in decode_lines(verdict.read_bytes())}
        failed = [check for check, passes in TEST06_CHECKS.items() if not lines & set(passes)]
        if failed:
            return [
                self.finding(
                    ERROR,
                    "compliance_failed",
                    f"TEST06: {', '.join(failed)} check did not pass",
                    file=f"{rel}/verify_accuracy.txt",
                )
            ]
        return []


def _test01_accuracy_agrees(context: ResultContext, test_dir) -> bool:
    """TEST01's byte comparison may fail on non-deterministic outputs; the rules then ask the
    baseline and compliance accuracy to be within the model's delta (1 %, 0.1 % for -99.9)."""
    model, table = context.model, context.rules.table
    delta = 0.1 if "99.9" in model.name else 1.0
    figures = []
    for name in ("baseline_accuracy.txt", "compliance_accuracy.txt"):
        path = test_dir / "accuracy" / name
        if not path.is_file():
            return False
        found, *_ = accuracy_figures(path, model.accuracy_targets[:1], (), table)
        figures.append(found.get(model.accuracy_targets[0][0]) if model.accuracy_targets else None)
    baseline, compliance = figures
    if baseline is None or compliance is None or baseline == 0:
        return False
    return abs(compliance - baseline) * 100 / abs(baseline) <= delta
