"""The accuracy run of a result: the files of accuracy/, every figure of accuracy.txt within its
bounds (at least the target, at most the upper limit), its hash line, the accuracy log's size, the
run's LoadGen errors and its coverage of the data set, and the sample images a round asks for."""

from __future__ import annotations

import json
import re
from pathlib import Path

from mlperf_check.inference.checkers.base import ResultContext
from mlperf_check.inference.checkers.round_rules.base import UNCOMMITTED, RoundRuleChecker, file_set
from mlperf_check.inference.discovery import ACCURACY_LOG, DETAIL
from mlperf_check.inference.logs import decode_lines, detail_errors, to_number
from mlperf_check.report import ERROR, INFO, WARNING, Finding

HASH = re.compile(r"^hash=([\w\d]+)$")


class RoundAccuracyChecker(RoundRuleChecker):
    name = "inference_round_accuracy"
    description = "v2.1+: accuracy/ files, every figure within its bounds, hash, log size, data-set coverage"

    def check_result(self, context: ResultContext) -> list[Finding]:
        folder, model, table, result = context.folder, context.model, context.rules.table, context.result
        if folder.accuracy_dir is None:
            return []  # discovery's missing_accuracy
        accuracy = folder.accuracy_dir
        rel = context.rel(accuracy)
        problem = file_set(accuracy, table["accuracy_files"])
        if problem:
            return [
                self.finding(
                    ERROR,
                    "accuracy_files",
                    f"accuracy/ {problem}",
                    file=rel,
                    expected=", ".join(table["accuracy_files"]),
                )
            ]
        closed = result.division != "open"
        miss = ERROR if closed else INFO  # the open division's accuracy is taken as it is
        out = []
        targets = model.scenario_accuracy.get(result.scenario, model.accuracy_targets)
        figures, hashed, lines, texts = accuracy_figures(
            accuracy / "accuracy.txt", targets, model.accuracy_upper, table
        )
        result.accuracy_figures = figures
        result.accuracy_printed = "  ".join(f"{metric}: {texts[metric]}" for metric, _ in targets if metric in texts)
        if targets:
            result.accuracy_kind, result.accuracy_target = targets[0]
            result.accuracy_value = figures.get(targets[0][0])
        # Each figure within its bounds: at least the target, at most the upper limit (SDXL FID and
        # CLIP, LLM tokens per sample).
        bounds = [(m, b, "accuracy_below_target", "below the target", ">=") for m, b in targets]
        bounds += [
            (m, b, "accuracy_above_limit", "above the upper limit", "<=") for m, b in model.accuracy_upper
        ]
        for metric, bound, code, words, sign in bounds:
            value = figures.get(metric)
            if value is None:
                if sign == ">=":
                    out.append(
                        self.finding(
                            miss,
                            "accuracy_not_found",
                            f"no {metric} figure in accuracy.txt",
                            file=f"{rel}/accuracy.txt",
                        )
                    )
                continue
            if value < bound if sign == ">=" else value > bound:
                out.append(
                    self.finding(
                        miss,
                        code,
                        f"{metric} {value:g} is {words} {bound:.6g}",
                        file=f"{rel}/accuracy.txt",
                        line=lines.get(metric),
                        expected=f"{sign} {bound:.6g}",
                        actual=f"{value:g}",
                    )
                )
        if not hashed:
            out.append(
                self.finding(
                    ERROR,
                    "accuracy_hash",
                    "accuracy.txt has no hash= line for mlperf_log_accuracy.json",
                    file=f"{rel}/accuracy.txt",
                )
            )
        log = accuracy / ACCURACY_LOG
        if log.stat().st_size > table["max_accuracy_log_bytes"]:
            out.append(
                self.finding(
                    ERROR,
                    "accuracy_log_not_truncated",
                    f"{ACCURACY_LOG} is {log.stat().st_size} bytes; the round keeps at most {table['max_accuracy_log_bytes']}",
                    file=context.rel(log),
                )
            )
        out.extend(self._detail_errors(accuracy / DETAIL, context.rel(accuracy / DETAIL), table))
        out.extend(self._coverage(context, accuracy / DETAIL))
        if model.accuracy_images:
            absent = [n for n in model.accuracy_images if not (accuracy / "images" / f"{n}.png").is_file()]
            if absent:
                out.append(
                    self.finding(
                        miss,
                        "accuracy_images",
                        f"accuracy/images/ lacks the sample images the round asks for ({', '.join(absent)})",
                        file=rel,
                    )
                )
        return out

    def _detail_errors(self, path, rel: str, table) -> list[Finding]:
        with path.open("rb") as stream:
            errors = detail_errors(stream)
        out = []
        for message in errors:
            if UNCOMMITTED in message.text or any(known in message.text for known in table["ignore_errors"]):
                continue
            out.append(
                self.finding(
                    ERROR, "detail_error", f"LoadGen error: {message.text}", file=rel, line=message.line
                )
            )
        return out

    def _coverage(self, context: ResultContext, detail) -> list[Finding]:
        """The accuracy run covers the model's whole data set (v5.1 on)."""
        table, model, scenario = context.rules.table, context.model, context.result.scenario
        expected = table["accuracy_sample_count"].get(model.name)
        if isinstance(expected, dict):
            expected = expected.get(scenario, expected.get(scenario.lower()))
        if expected is None:
            return []
        found = _detail_values(detail, ("effective_accuracy_sample_count", "qsl_reported_total_count"))
        count = found.get("effective_accuracy_sample_count", found.get("qsl_reported_total_count"))
        if count == expected:
            return []
        return [
            self.finding(
                ERROR if table["accuracy_sample_count_rejects"] else WARNING,
                "accuracy_sample_count",
                f"the accuracy run covers {count} samples; {model.name}'s data set has {expected}",
                file=context.rel(detail),
                expected=str(expected),
                actual=str(count),
            )
        ]


def accuracy_figures(path, targets, upper, table) -> tuple[dict[str, float], bool, dict[str, int], dict[str, str]]:
    """Every figure the round's patterns find in an accuracy.txt (the first match of each), whether
    a hash line is there, each figure's line and its text as printed."""
    patterns = {
        metric: re.compile(table["accuracy_patterns"][metric])
        for metric, _ in (*targets, *upper)
        if metric in table["accuracy_patterns"]
    }
    figures: dict[str, float] = {}
    lines: dict[str, int] = {}
    texts: dict[str, str] = {}
    hashed = False
    for number, line in enumerate(decode_lines(path.read_bytes()), start=1):
        for metric, pattern in patterns.items():
            if metric in figures:
                continue
            match = pattern.match(line)
            if match:
                value = to_number(match.group(1))
                if value is not None:
                    figures[metric], lines[metric], texts[metric] = value, number, match.group(1)
        if HASH.match(line):
            hashed = True
    return figures, hashed, lines, texts


def _detail_values(path: Path, keys: tuple[str, ...]) -> dict:
    """The values of a few `:::MLLOG` keys of a detail log, without decoding the other lines."""
    wanted = tuple(f'"key": "{key}"'.encode() for key in keys)
    found = {}
    with path.open("rb") as stream:
        for raw in stream:
            if any(key in raw[:80] for key in wanted):
                try:
                    event = json.loads(raw.split(b":::MLLOG ", 1)[-1])
                except ValueError:
                    continue
                if isinstance(event, dict):
                    found[event.get("key")] = event.get("value")
    return found
