"""Compliance (audit) tests TEST01/TEST04/TEST05: present and passed where the round requires them.

`compliance/<system>/<model>/<scenario>/<TEST>/verify_*.txt` ends in `TEST PASS` or `TEST FAIL`.
TEST04-B has no verify file of its own (TEST04-A's compares both). Before v1.0 the official checker
only flagged a missing or failed test; from v1.0 it rejects the result (rules data).
"""

from __future__ import annotations

from mlperf_check.inference.accuracy import parse_accuracy
from mlperf_check.inference.checkers.base import InferenceChecker, ResultContext
from mlperf_check.report import ERROR, INFO, WARNING, Finding

FOLDER_ONLY = ("TEST04-B",)
# TEST01 may fail its byte comparison on non-deterministic outputs; the rules then ask for the
# accuracy of the compliance run's log (compliance_accuracy.txt) next to the baseline's, and the two
# must agree. We accept a relative difference up to this.
TEST01_ACCURACY_TOLERANCE = 0.01


class InferenceComplianceChecker(InferenceChecker):
    name = "inference_compliance"
    description = "required compliance tests present and passed"

    def check(self, context: ResultContext) -> list[Finding]:
        model, folder, rules = context.model, context.folder, context.rules
        # Compliance tests are a closed-division requirement.
        if (
            model is None
            or not model.compliance_tests
            or context.result.division != "closed"
            or rules.from_tables
        ):
            return []  # v2.1+: inference_round_rules
        severity = ERROR if rules.compliance_blocks else WARNING
        if context.result.inferred_from:
            # Its compliance runs are those of the run it is inferred from (every round's checker).
            return [
                self.finding(
                    INFO,
                    "compliance_inferred",
                    f"this {context.result.scenario} result, inferred from a {context.result.inferred_from} run, "
                    "needs no compliance runs of its own",
                    file=context.rel(folder.rel),
                )
            ]
        base = (
            folder.submitter_root
            / rules.compliance_folder
            / folder.system
            / folder.model_folder
            / folder.scenario_folder
        )
        out = []
        for test in model.compliance_tests:
            test_dir = base / test
            rel = context.rel(
                f"{rules.compliance_folder}/{folder.system}/{folder.model_folder}/{folder.scenario_folder}/{test}"
            )
            if not test_dir.is_dir():
                out.append(
                    self.finding(
                        severity, "compliance_missing", f"compliance test {test} is missing", file=rel
                    )
                )
                continue
            if test in FOLDER_ONLY:
                continue
            verdicts = sorted(test_dir.glob("verify_*.txt"))
            if not verdicts:
                out.append(
                    self.finding(severity, "compliance_no_verdict", f"{test} has no verify_*.txt", file=rel)
                )
            for verdict in verdicts:
                text = verdict.read_bytes().replace(b"\0", b"").decode("utf-8", errors="replace")
                if "TEST PASS" not in text:
                    if verdict.name == "verify_accuracy.txt" and self._accuracy_agrees(test_dir, model):
                        out.append(
                            self.finding(
                                INFO,
                                "compliance_accuracy_rerun",
                                f"{test} byte comparison failed; baseline and compliance accuracy agree",
                                file=f"{rel}/{verdict.name}",
                            )
                        )
                        continue
                    out.append(
                        self.finding(
                            severity,
                            "compliance_failed",
                            f"{test} did not pass ({verdict.name} has no 'TEST PASS')",
                            file=f"{rel}/{verdict.name}",
                        )
                    )
        return out

    def _accuracy_agrees(self, test_dir, model) -> bool:
        figures = []
        for name in ("baseline_accuracy.txt", "compliance_accuracy.txt"):
            path = test_dir / "accuracy" / name
            if not path.is_file():
                return False
            figures.append(parse_accuracy(path.read_bytes(), model.accuracy.kind).value)
        baseline, compliance = figures
        if baseline is None or compliance is None or baseline == 0:
            return False
        return abs(compliance - baseline) / abs(baseline) <= TEST01_ACCURACY_TOLERANCE
