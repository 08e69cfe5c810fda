"""Accuracy against the round's target, read from the accuracy script's output in the model's format."""

from __future__ import annotations

from mlperf_check.inference.accuracy import parse_accuracy
from mlperf_check.inference.checkers.base import InferenceChecker, ResultContext
from mlperf_check.report import ERROR, INFO, Finding


class InferenceAccuracyChecker(InferenceChecker):
    name = "inference_accuracy"
    description = "accuracy.txt reaches the model's target (99 % / 99.9 % / 98 % of the FP32 reference)"

    def check(self, context: ResultContext) -> list[Finding]:
        folder, model, result = context.folder, context.model, context.result
        if folder.accuracy_dir is None or model is None or context.rules.from_tables:
            return []  # reported by discovery / the division checker; v2.1+: inference_round_rules
        path = folder.accuracy_dir / "accuracy.txt"
        rel = context.rel(path)
        if not path.is_file():
            return [
                self.finding(
                    ERROR, "missing_accuracy_txt", "no accuracy.txt (the accuracy script's output)", file=rel
                )
            ]
        rule = model.accuracy
        output = parse_accuracy(path.read_bytes(), rule.kind)
        result.accuracy_kind = rule.kind
        result.accuracy_target = rule.target
        result.accuracy_value = output.value
        if output.value is None:
            return [
                self.finding(
                    ERROR,
                    "accuracy_not_found",
                    f"no {rule.kind} figure in the output of the {model.name} accuracy script",
                    file=rel,
                    expected=f"a line matching {rule.kind} ({model.name})",
                )
            ]
        if output.value < rule.target:
            # The open division may trade accuracy for speed: the target binds the closed division only.
            closed = context.result.division != "open"
            return [
                self.finding(
                    ERROR if closed else INFO,
                    "accuracy_below_target",
                    f"{rule.kind} {output.value:g} is below the target {rule.target:.4f} "
                    f"({rule.fraction:g} of {rule.reference:g})",
                    file=rel,
                    line=output.line,
                    expected=f">= {rule.target:.4f}",
                    actual=f"{output.value:g}",
                )
            ]
        return []
