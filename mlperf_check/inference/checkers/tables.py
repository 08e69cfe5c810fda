"""The rules of the rounds checked from the official tables (v2.1 on), as that round's official
checker applies them to one result: the benchmark and its category's scenarios, the measurements
folder, every accuracy figure against its bounds, the performance run's settings and LLM token
latencies, and the compliance tests of the model. (v0.5-v2.0 use the accuracy, settings and
compliance checkers instead; the layout, division and performance checkers serve every round.)
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from mlperf_check.inference.checkers.base import InferenceChecker, ResultContext
from mlperf_check.inference.discovery import ACCURACY_LOG, DETAIL, SUMMARY
from mlperf_check.inference.logs import decode_lines, detail_errors, parse_detail, to_number
from mlperf_check.inference.rules import INTERACTIVE, OFFLINE, SERVER
from mlperf_check.report import ERROR, INFO, WARNING, Finding

HASH = re.compile(r"^hash=([\w\d]+)$")
# The verify_accuracy.txt lines of TEST06 (LLM output checks): each must say True (the first-token
# check may say Skipped: Offline runs do not stream a first token).
TEST06_CHECKS = {
    "First token": ("First token check pass: True", "First token check pass: Skipped"),
    "EOS": ("EOS check pass: True",),
    "Sample length": ("Sample length check pass: True",),
}
UNCOMMITTED = "Loadgen built with uncommitted changes"


def _place(template: str, folder) -> Path:
    """A path of the round's layout table (relative to the submitter folder) for one result."""
    relative = template.format(
        system=folder.system, benchmark=folder.model_folder, scenario=folder.scenario_folder
    )
    return folder.submitter_root / relative


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


# Files any folder may hold besides the listed ones (the official files_diff).
ALWAYS_OPTIONAL = ("mlperf_log_trace.json", "results.json", ".gitkeep")


def _file_set(folder: Path, required, optional=()) -> str:
    """ "" when `folder` holds exactly the required files (and any optional ones), else what is
    missing and what is unexpected, as the official checker compares them."""
    present = {p.name for p in folder.iterdir() if p.is_file()} if folder.is_dir() else set()
    missing = sorted(set(required) - present)
    unexpected = sorted(present - set(required) - set(optional) - set(ALWAYS_OPTIONAL))
    parts = ([f"lacks {', '.join(missing)}"] if missing else []) + (
        [f"holds unexpected {', '.join(unexpected)}"] if unexpected else []
    )
    return "; ".join(parts)


def _conf_equal_issue(measurements: Path, model: str, scenario: str) -> bool:
    """`<model>.<scenario>.sample_concatenate_permutation = 1` (model without -99/-99.9, or `*`;
    scenario as the folder spells it, or `*`) in mlperf.conf, then user.conf (which overrides)."""
    reference = model.replace("-99.9", "").replace("-99", "")
    used = False
    for name in ("mlperf.conf", "user.conf"):
        path = measurements / name
        if not path.is_file():
            continue
        for raw in decode_lines(path.read_bytes()):
            line = raw.replace(" ", "")
            if not line or line.startswith("#") or line.count("=") != 1:
                continue
            key, value = line.split("=")
            parts = key.split(".")
            if len(parts) != 3 or parts[2] != "sample_concatenate_permutation":
                continue
            if parts[0] in (reference, "*") and parts[1] in (scenario, "*") and value.isnumeric():
                used = int(value) == 1
                break
    return used


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


def _has_power(context: ResultContext) -> bool:
    return (context.result_dir / "performance" / "power").is_dir()


class InferenceRoundTablesChecker(InferenceChecker):
    name = "inference_round_rules"
    description = "v2.1+: the round's official tables (category scenarios, measurements, accuracy, settings, LLM latency, compliance)"

    def check(self, context: ResultContext) -> list[Finding]:
        if not context.rules.from_tables:
            return []
        out: list[Finding] = []
        model = context.model
        result = context.result
        where = context.rel(context.folder.rel)
        if model is None:
            if result.division == "open":  # closed: the division checker's unknown_model
                out.append(
                    self.finding(
                        ERROR,
                        "model_without_rules",
                        f"'{context.folder.model_folder}' maps to no {context.rules.version} benchmark "
                        "(model_mapping.json names the benchmark an open model stands for)",
                        file=where,
                    )
                )
            return out
        endpoints = context.result_dir / "performance" / "result_summary.json"
        if not result.runs and endpoints.is_file():
            out.append(self._endpoints_result(context, context.rel(endpoints)))
        out.extend(self._system(context))
        out.extend(self._category(context, where))
        out.extend(self._measurements(context, where))
        out.extend(self._accuracy(context))
        out.extend(self._performance(context))
        out.extend(self._network_sut(context))
        if result.division != "open":
            out.extend(self._compliance(context))
        return out

    def _endpoints_result(self, context: ResultContext, file: str) -> Finding:
        """A Loadgen++ result: measured by the MLCommons endpoints harness, which writes
        performance/result_summary.json (and accuracy/accuracy_results.json, config.yaml) instead of
        LoadGen's logs. The v6.1 checker reads it with its own parser for the models it allows; this
        tool does not, so the result is refused with this reason rather than judged on a guess."""
        allowed = context.rules.table["endpoints_models"]
        if context.model.name in allowed:
            reason = (f"{context.rules.version} takes Loadgen++ (endpoints) results for {context.model.name}, "
                      "but this checker does not read them yet: check it with the official checker")
        elif allowed:
            reason = f"{context.rules.version} takes Loadgen++ (endpoints) results only for {', '.join(allowed)}"
        else:
            reason = f"{context.rules.version} takes LoadGen logs only (Loadgen++ endpoints results arrive in v6.1)"
        return self.finding(ERROR, "endpoints_result", f"a Loadgen++ (endpoints) result: {reason}", file=file)

    # -- system description -----------------------------------------------------------------------

    def _system(self, context: ResultContext) -> list[Finding]:
        """systems/<system>.json: availability, category, the round's fields (some with a value), and
        the submitter and division of the folder it sits in. (Missing: the layout checker's.)"""
        system, table, folder = context.system_description, context.rules.table, context.folder
        if system is None:
            return []
        file = context.rel(f"systems/{folder.system}.json")
        out = []

        def wrong(code: str, message: str, key: str = "", expected: str = "", actual: str = "") -> None:
            out.append(
                self.finding(ERROR, code, message, file=file, key=key, expected=expected, actual=actual)
            )

        status = str(system.get("status", "")).lower()
        if status not in table["availabilities"]:
            wrong(
                "system_status",
                f"status '{system.get('status')}' is not one of {', '.join(table['availabilities'])}",
                "status",
                ", ".join(table["availabilities"]),
                str(system.get("status")),
            )
        system_type = system.get("system_type")
        if system_type not in ("datacenter", "edge", "datacenter,edge", "edge,datacenter"):
            wrong(
                "system_type",
                f"system_type '{system_type}' is not datacenter, edge or both",
                "system_type",
                "datacenter, edge, datacenter,edge",
                str(system_type),
            )
        flag = system.get(table["network_flag"])
        network = flag is not None and str(flag).lower() == "true"
        expected_network = {"network": True, "closed": False}.get(folder.division)
        if expected_network is not None and network is not expected_network:
            wrong(
                "network_mode",
                f"a {folder.division}-division system must {'' if expected_network else 'not '}run over the "
                f"network ({table['network_flag']}: {'true' if expected_network else 'false or absent'})",
                table["network_flag"],
                str(expected_network).lower(),
                str(flag),
            )
        fields = table["system_fields"] + (table["network_system_fields"] if network else [])
        missing = [name for name in fields if name not in system]
        if missing:
            wrong("system_fields", f"the system description lacks {', '.join(missing)}")
        empty = [name for name in table["system_fields_meaningful"] if name in system and not system[name]]
        if empty:
            wrong("system_fields_empty", f"the system description leaves {', '.join(empty)} empty")
        if str(system.get("submitter", "")).lower() != folder.submitter.lower():
            wrong(
                "system_submitter",
                "the system description names another submitter",
                "submitter",
                folder.submitter,
                str(system.get("submitter")),
            )
        if folder.division and system.get("division") != folder.division:
            wrong(
                "system_division",
                "the system description names another division",
                "division",
                folder.division,
                str(system.get("division")),
            )
        return out

    def _network_sut(self, context: ResultContext) -> list[Finding]:
        """A system over the network names itself so in LoadGen's SUT name ("Network SUT")."""
        system, table = context.system_description or {}, context.rules.table
        flag = system.get(table["network_flag"])
        if flag is None or str(flag).lower() != "true":
            return []
        out = []
        for run in context.result.runs:
            if run.summary is not None and table["network_sut_name"] not in run.summary.sut_name:
                out.append(
                    self.finding(
                        ERROR,
                        "network_sut_name",
                        f"a network system's SUT name must contain '{table['network_sut_name']}'",
                        file=f"{run.folder}/mlperf_log_summary.txt",
                        expected=table["network_sut_name"],
                        actual=run.summary.sut_name,
                    )
                )
        return out

    # -- benchmark and category ------------------------------------------------------------------

    def _category(self, context: ResultContext, where: str) -> list[Finding]:
        rules, model, result = context.rules, context.model, context.result
        system_type = result.system_type
        required = rules.required_scenarios(model.name, system_type)
        if required is None:
            return [
                self.finding(
                    ERROR,
                    "model_not_in_category",
                    f"{model.name} is not a benchmark of the '{system_type}' category in {rules.version}",
                    file=where,
                    actual=system_type,
                )
            ]
        allowed = required | rules.optional_scenarios(model.name, system_type)
        if result.division != "open" and result.scenario not in allowed:
            return [
                self.finding(
                    ERROR,
                    "scenario_not_allowed",
                    f"{result.scenario} is neither required nor optional for {model.name} on a '{system_type}' system",
                    file=where,
                    expected=", ".join(sorted(allowed)),
                    actual=result.scenario,
                )
            ]
        return []

    # -- measurements ----------------------------------------------------------------------------

    def _measurements(self, context: ResultContext, where: str) -> list[Finding]:
        folder, table = context.folder, context.rules.table
        measurements = _place(table["layout"]["measurements"], folder)
        rel = context.rel(measurements)
        if not measurements.is_dir():
            return [self.finding(ERROR, "missing_measurements", "no measurements folder", file=rel)]
        out = []
        for name in table["measurement_files"]:
            path = measurements / name
            if not path.is_file() or path.stat().st_size == 0:
                out.append(
                    self.finding(
                        ERROR,
                        "measurement_file",
                        f"{name} is {'empty' if path.is_file() else 'missing'}",
                        file=rel,
                        expected=name,
                    )
                )
        implementation = None
        pattern = table["layout"]["implementation_json"].format(system=folder.system)
        for path in sorted(measurements.glob(pattern)):
            implementation = path
            if path.name.endswith(f"_{folder.scenario_folder}.json"):
                break
        if implementation is None:
            out.append(self.finding(ERROR, "missing_implementation_json", f"no {pattern}", file=rel))
            return out
        try:
            data = json.loads(implementation.read_bytes().decode("utf-8", errors="replace"))
        except ValueError as exc:
            data = None
            out.append(
                self.finding(
                    ERROR, "implementation_json", f"not JSON: {exc}", file=context.rel(implementation)
                )
            )
        if isinstance(data, dict):
            empty = [name for name in table["implementation_fields"] if not data.get(name)]
            if empty:
                out.append(
                    self.finding(
                        ERROR,
                        "implementation_fields",
                        f"implementation JSON lacks a value for {', '.join(empty)}",
                        file=context.rel(implementation),
                    )
                )
        if _has_power(context):
            out.extend(self._power_measurements(context, measurements))
        code = _place(table["layout"]["code"], folder)
        if not code.exists():
            out.append(
                self.finding(
                    ERROR, "missing_code", "no code folder for the benchmark", file=context.rel(code)
                )
            )
        return out

    def _power_measurements(self, context: ResultContext, measurements: Path) -> list[Finding]:
        """A power result's analyzer table and power settings, in the measurements folder or up to
        three folders above it (the official checker's search)."""
        folders = [measurements, *list(measurements.parents)[:3]]
        out = []
        for pattern in context.rules.table["power_measurement_files"]:
            prefix = pattern.rstrip("*")  # "analyzer_table.*" matched from the start of the name
            found = [
                p
                for d in folders
                if d.is_dir()
                for p in sorted(d.iterdir())
                if p.is_file() and p.name.startswith(prefix)
            ]
            if not found or found[-1].stat().st_size == 0:
                out.append(
                    self.finding(
                        ERROR,
                        "power_measurement_file",
                        f"a power result needs a non-empty {prefix}* file beside its measurements",
                        file=context.rel(measurements),
                        expected=f"{prefix}*",
                    )
                )
        return out

    # -- accuracy --------------------------------------------------------------------------------

    def _accuracy(self, context: ResultContext) -> list[Finding]:
        folder, model, table, result = context.folder, context.model, context.rules.table, context.result
        if folder.accuracy_dir is None:
            return []  # discovery's missing_accuracy
        accuracy = folder.accuracy_dir
        rel = context.rel(accuracy)
        problem = _file_set(accuracy, table["accuracy_files"])
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
        figures, hashed, lines, texts = self._figures(
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
        out.extend(self._accuracy_coverage(context, accuracy / DETAIL))
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

    def _accuracy_coverage(self, context: ResultContext, detail) -> list[Finding]:
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

    @staticmethod
    def _figures(path, targets, upper, table) -> tuple[dict[str, float], bool, dict[str, int], dict[str, str]]:
        """Every figure the round's patterns find in accuracy.txt (the first match of each), whether
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

    # -- performance -----------------------------------------------------------------------------

    def _performance(self, context: ResultContext) -> list[Finding]:
        result, rules = context.result, context.rules
        run = result.first_run
        if run is None or run.detail is None or not run.detail.effective:
            return []
        file = f"{run.folder}/{DETAIL}"
        out = []
        problem = _file_set(
            run.path_on_disk,
            (
                SUMMARY,
                DETAIL,
                *(("spl.txt",) if result.power_value is not None or _has_power(context) else ()),
            ),
            (ACCURACY_LOG,),
        )
        if problem:
            out.append(self.finding(ERROR, "run_files", f"performance/run_1 {problem}", file=run.folder))
        out.extend(self._settings(context, run.detail, file, rules.seeds))
        out.extend(self._equal_issue(context, run.detail, file))
        ran = str(run.detail.effective.get("scenario") or "")
        if context.model.name in rules.table["llm_models"]:
            out.extend(self._token_latency(context, run, file, ran))
        return out

    def _equal_issue(self, context: ResultContext, detail, file: str) -> list[Finding]:
        """Equal-issue mode (sample_concatenate_permutation) where the round requires it: in the
        run's detail log, or (v4.1) in the measurements' mlperf.conf / user.conf."""
        rule, model, folder = context.rules.table["equal_issue"], context.model, context.folder
        if model.name not in rule["models"] or (rule["closed_only"] and context.result.division == "open"):
            return []
        if rule["source"] == "conf":
            measurements = _place(context.rules.table["layout"]["measurements"], folder)
            used = _conf_equal_issue(measurements, model.name, folder.scenario_folder)
        else:
            used = detail.effective.get("sample_concatenate_permutation") is True
        if used:
            return []
        return [
            self.finding(
                ERROR,
                "equal_issue_off",
                f"{model.name} runs in equal-issue mode (sample_concatenate_permutation = 1) in {context.rules.version}",
                file=file,
                key="sample_concatenate_permutation",
                expected="true",
            )
        ]

    def _settings(self, context: ResultContext, detail, file: str, seeds: dict) -> list[Finding]:
        """The LoadGen settings of one run against the round's rules (the result's run, or a
        compliance test's)."""
        result, model, rules = context.result, context.model, context.rules
        table = rules.table
        out = []

        def setting(key: str):
            return detail.effective.get(key)

        def wrong(rule: str, code: str, message: str, key: str, expected, actual) -> None:
            # Some rounds' checkers only log some of these (settings_reject lists those that reject).
            severity = (
                ERROR if rule in table["settings_reject"] or rule == "performance_sample_count" else WARNING
            )
            out.append(
                self.finding(
                    severity,
                    code,
                    message,
                    file=file,
                    line=detail.lines.get(f"effective_{key}"),
                    key=key,
                    expected=str(expected),
                    actual=str(actual),
                )
            )

        count = to_number(setting("performance_sample_count"))
        if count is not None and count < model.performance_sample_count:
            wrong(
                "performance_sample_count",
                "performance_sample_count",
                f"performance_sample_count below {model.name}'s {model.performance_sample_count}",
                "performance_sample_count",
                f">= {model.performance_sample_count}",
                f"{count:.0f}",
            )
        for seed, value in seeds.items():
            logged = setting(seed)
            if logged is not None and str(logged) != str(value):
                wrong("seeds", "wrong_seed", f"{seed} is not the {rules.version} seed", seed, value, logged)
        ran = str(setting("scenario") or "")
        binds = result.division != "open" or not table["offline_min_closed_only"]
        samples = to_number(setting("samples_per_query"))
        if ran == OFFLINE and binds and samples is not None and samples < model.offline_min_samples:
            wrong(
                "offline_min_samples",
                "too_few_samples",
                f"the Offline query holds {samples:.0f} samples; {model.name} needs at least {model.offline_min_samples}",
                "samples_per_query",
                f">= {model.offline_min_samples}",
                f"{samples:.0f}",
            )
        min_duration = to_number(setting("min_duration_ms"))
        if min_duration is not None and min_duration < rules.min_duration_ms:
            wrong(
                "min_duration",
                "min_duration_setting",
                "min_duration below the round's 600 s",
                "min_duration_ms",
                f">= {rules.min_duration_ms}",
                f"{min_duration:.0f}",
            )
        # Server runs under early stopping: the latency LoadGen targeted must be within the bound
        # (the observed percentile is LoadGen's own early-stopping verdict).
        bound = model.latency_constraint_ns.get(ran)
        target = to_number(setting("target_latency_ns"))
        if bound and target is not None and target > bound:
            wrong(
                "latency_target",
                "latency_target_too_loose",
                f"LoadGen targeted {target / 1e6:g} ms; the {ran} bound of {model.name} is {bound / 1e6:g} ms",
                "target_latency_ns",
                f"<= {bound}",
                f"{target:.0f}",
            )
        return out

    def _token_latency(self, context: ResultContext, run, file: str, ran: str) -> list[Finding]:
        """LLM runs use LoadGen's token latencies; Server and Interactive ones keep TTFT and TPOT at
        the 99th percentile below the round's limits."""
        model, result, detail = context.model, context.result, run.detail
        if not detail.requested.get("use_token_latencies"):
            return [
                self.finding(
                    ERROR,
                    "token_latencies_off",
                    f"{model.name} is measured with use_token_latencies enabled; this run did not enable it",
                    file=file,
                )
            ]
        if result.scenario not in (SERVER, INTERACTIVE):
            return []
        limits = context.rules.token_limits(model, result.scenario, ran)
        if not limits:
            return []
        which = ran if context.rules.table["token_limits_by"] == "loadgen" else result.scenario
        out = []
        for key, limit_key, name in (
            ("result_first_token_99.00_percentile_latency_ns", "ttft_ns", "TTFT"),
            ("result_time_per_output_token_99.00_percentile_ns", "tpot_ns", "TPOT"),
        ):
            value = to_number(detail.results.get(key))
            limit = limits[limit_key]
            if value is None:
                out.append(
                    self.finding(ERROR, "token_latency_missing", f"no {key} in the detail log", file=file)
                )
            elif value >= limit:
                out.append(
                    self.finding(
                        ERROR,
                        "token_latency_over_limit",
                        f"{name} 99th percentile {value / 1e6:.3f} ms is not below the {which} limit {limit / 1e6:g} ms",
                        file=file,
                        line=detail.lines.get(key),
                        key=key,
                        expected=f"< {limit}",
                        actual=f"{value:.0f}",
                    )
                )
        return out

    # -- compliance ------------------------------------------------------------------------------

    def _compliance(self, context: ResultContext) -> list[Finding]:
        folder, model = context.folder, context.model
        if not model.compliance_tests:
            return []
        base = _place(context.rules.table["layout"]["compliance"], folder)
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
                problem = _file_set(run, (SUMMARY, DETAIL), (ACCURACY_LOG,))
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
                        and self._test01_accuracy_agrees(context, test_dir)
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
        out.extend(self._settings(context, detail, rel, seeds))
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

    def _test01_accuracy_agrees(self, context: ResultContext, test_dir) -> bool:
        """TEST01's byte comparison may fail on non-deterministic outputs; the rules then ask the
        baseline and compliance accuracy to be within the model's delta (1 %, 0.1 % for -99.9)."""
        model, table = context.model, context.rules.table
        delta = 0.1 if "99.9" in model.name else 1.0
        figures = []
        for name in ("baseline_accuracy.txt", "compliance_accuracy.txt"):
            path = test_dir / "accuracy" / name
            if not path.is_file():
                return False
            found, *_ = self._figures(path, model.accuracy_targets[:1], (), table)
            figures.append(found.get(model.accuracy_targets[0][0]) if model.accuracy_targets else None)
        baseline, compliance = figures
        if baseline is None or compliance is None or baseline == 0:
            return False
        return abs(compliance - baseline) * 100 / abs(baseline) <= delta
