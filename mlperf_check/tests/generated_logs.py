"""Deterministic training logs generated from the official compliance configs of mlperf-logging.

For every ruleset the installed package ships (training_X.Y.Z) and every benchmark its
closed_common.yaml accepts, `conforming_log()` writes a log with `mlperf_logging.mllog` that the
official compliance checker accepts. Nothing here knows the benchmarks: the hyperparameter values
are solved from the configs' own CHECK expressions. The official checker runs on the draft; every
CHECK that fails names the key, the line and the expression, and the other side of each comparison
with the checked value, evaluated in the checker's state at that line, becomes the new value. A
config the checker enqueues brings its required keys. A benchmark whose rules this cannot solve
fails `conforming_log` with the official checker's messages (the tests then fail, never skip).

`mutations()` breaks each rule of a benchmark's configs: a required key missing, a checked value
wrong, the quality target not reached, run_stop without a status, init too long.
"""

from __future__ import annotations

import ast
import contextlib
import copy
import functools
import importlib
import io
import json
import logging
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from mlperf_logging.compliance_checker import mlp_compliance, mlp_parser
from mlperf_logging.mllog.mllog import MLLogger

CONFIG_DIR = Path(mlp_compliance.__file__).parent
T0 = 1_700_000_000_000  # ms
MINUTE = 60_000
EVALS = 2  # eval_accuracy lines of a conforming log; the last one reaches the target
# Keys the generator lays out itself (the run's timeline), with the metadata each line carries.
TIMELINE = {
    "cache_clear",
    "init_start",
    "init_stop",
    "run_start",
    "run_stop",
    "block_start",
    "block_stop",
    "epoch_start",
    "epoch_stop",
    "eval_start",
    "eval_stop",
    "eval_accuracy",
}
# Keys that are not logged: the Stable Diffusion config builds aggregated_eval_accuracy itself
# from eval_accuracy lines that carry a `metric` (FID, CLIP) in their metadata.
VIRTUAL = {"aggregated_eval_accuracy"}
# The keys that say what the log is: never changed to please a config.
IDENTITY = {"submission_division", "submission_benchmark"}
REQUIRED = re.compile(r"EXACTLY_ONE|AT_LEAST_ONE$|AT_LEAST\((\d+)\)")


def shipped_rulesets() -> list[str]:
    """Every training ruleset of the installed package that logs in the :::MLLOG format (0.7.0 on)."""
    versions = []
    for path in CONFIG_DIR.glob("training_*"):
        match = re.fullmatch(r"training_(\d+)\.(\d+)\.(\d+)", path.name)
        if match and (int(match[1]), int(match[2])) >= (0, 7):
            versions.append(tuple(int(part) for part in match.groups()))
    return [".".join(map(str, version)) for version in sorted(versions)]


def config_name(path: str) -> str:
    """ "training_6.1.0/common.yaml" of a config file's path."""
    return "/".join(Path(path).parts[-2:])


@functools.cache
def load(config: str) -> list[dict]:
    """A config as the official checker reads it (BaseLoader: every scalar is a string)."""
    return yaml.load((CONFIG_DIR / config).read_text(), Loader=yaml.BaseLoader) or []


def key_records(config: str) -> dict[str, dict]:
    records = {}
    for item in load(config):
        if "KEY" in item:
            records[item["KEY"]["NAME"]] = item["KEY"]
    return records


def accepted_values(check: str) -> list:
    """The literals of `v['value'] in [...]` in a CHECK: ["closed", "open"]."""
    for node in ast.walk(ast.parse(check.strip(), mode="eval")):
        if isinstance(node, ast.Compare) and isinstance(node.ops[0], ast.In) and is_subject(node.left):
            try:
                return list(ast.literal_eval(node.comparators[0]))
            except ValueError:
                return []
    return []


DIVISIONS = ("closed", "open")


def listed_benchmarks(ruleset: str, division: str = "closed") -> list[str]:
    """What a ruleset's <division>_common.yaml accepts as submission_benchmark."""
    record = key_records(f"training_{ruleset}/{division}_common.yaml")["submission_benchmark"]
    return sorted(accepted_values(record["CHECK"]))


def benchmarks(ruleset: str, division: str = "closed") -> list[str]:
    """The benchmarks of a ruleset's division: listed in <division>_common.yaml, with a
    <division>_<benchmark>.yaml. (4.0.0 and 4.1.0 still list retired benchmarks whose configs they
    no longer ship.)"""
    return [
        name
        for name in listed_benchmarks(ruleset, division)
        if (CONFIG_DIR / f"training_{ruleset}/{division}_{name}.yaml").exists()
    ]


SUBJECT = re.compile(r"^(?:int|float|len)?\(?v\['(value|metadata)'\]")


def is_subject(node: ast.AST) -> bool:
    """v['value'], v['value']['FID'], v['value'][1], int(v['metadata']['samples_count'])."""
    return bool(SUBJECT.match(ast.unparse(node)))


def subject_path(node: ast.AST) -> tuple:
    """Where a subject sits in a log line: ("value",), ("value", 1), ("metadata", "method")."""
    return tuple(
        text if text else int(number)
        for text, number in re.findall(r"\[(?:'([^']+)'|(\d+))\]", ast.unparse(node).split(")")[0])
    )


def checks_of(record: dict, field_name: str = "CHECK") -> list[str]:
    checks = record.get(field_name, [])
    return [checks] if isinstance(checks, str) else list(checks)


@dataclass
class Event:
    key: str
    value: object = None
    metadata: dict = field(default_factory=dict)
    time_ms: int = T0


def render(events: list[Event]) -> bytes:
    """The log as mlperf_logging.mllog writes it: start/end for *_start/*_stop, event otherwise."""
    stream = io.StringIO()
    logger = logging.Logger("generated_mllog")
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("%(message)s"))
    logger.addHandler(handler)
    mllogger = MLLogger(logger=logger, root_dir=str(Path(__file__).parent))  # file: generated_logs.py
    for item in events:
        write = mllogger.event
        if item.key.endswith("_start"):
            write = mllogger.start
        elif item.key.endswith("_stop"):
            write = mllogger.end
        write(key=item.key, value=item.value, metadata=dict(item.metadata), time_ms=item.time_ms)
    return stream.getvalue().encode()


class RecordingChecker(mlp_compliance.ComplianceChecker):
    """The official checker, also recording each failed CHECK with the state it ran in."""

    def __init__(self, ruleset: str):
        super().__init__("training", ruleset, quiet=True, werror=False)
        self.config = ""
        self.configs: list[str] = []
        self.failed: list[tuple[str, object, str, dict]] = []  # (config, log line, test, s)
        self.state: dict[str, dict] = {}  # config -> its live state s (the last value it had)
        self.crash: str | None = None

    def configured_checks(self, loglines, config_file):
        self.config = config_name(config_file)
        self.configs.append(self.config)
        super().configured_checks(loglines, config_file)

    def run_check_eval(self, ll, tests, state):
        self.state[self.config] = state["s"]
        for test in tests if isinstance(tests, list) else [tests]:
            try:
                passed = eval(test.strip(), state, {"ll": ll, "v": ll.value})  # noqa: S307 - the official rules
            except Exception:  # noqa: BLE001 - a failing CHECK, as the official checker counts it
                passed = False
            if not passed:
                self.failed.append((self.config, ll, test, copy.deepcopy(state["s"])))
        super().run_check_eval(ll, tests, state)

    def run_check_exec(self, ll, code, state, action):
        self.state[self.config] = state["s"]
        super().run_check_exec(ll, code, state, action)


class _ParsedConfigs:
    """Stands in for the `yaml` module inside mlp_compliance: each config parsed once per process
    (the same BaseLoader parse; the checker only reads it). Parsing is 70% of the official
    checker's time on a short log, opening the file again 20% of the rest."""

    BaseLoader = yaml.BaseLoader

    @staticmethod
    def load(stream, Loader):  # noqa: N803 - yaml.load's own signature
        return load(config_name(stream.name))


@dataclass
class _ConfigFile:
    """What mlp_compliance's `open(config_file)` gets instead of the file: its name (for load)."""

    name: str

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@contextlib.contextmanager
def official_checker_quietly():
    """The official checker's module state around one check: its config queue emptied, its
    logging off, its YAML parses shared."""
    mlp_compliance.enqueued_configs.clear()  # module-global queue; a crash leaves entries behind
    logging.disable(logging.CRITICAL)
    mlp_compliance.yaml = _ParsedConfigs
    mlp_compliance.open = _ConfigFile  # a module global shadows the builtin: configs only
    try:
        yield
    finally:
        del mlp_compliance.open
        mlp_compliance.yaml = yaml
        logging.disable(logging.NOTSET)
        mlp_compliance.enqueued_configs.clear()


def official_parse(data: bytes, ruleset: str):
    """mlp_parser.parse_file(path, ruleset) on bytes: its ruleset's parse_generator over the text
    as parse_file opens it (latin-1, universal newlines), without a file."""
    module = importlib.import_module(f"{mlp_parser.__name__}.ruleset_{ruleset.replace('.', '')}")
    return module.parse_generator(io.TextIOWrapper(io.BytesIO(data), encoding="latin-1"))


def official_check(data: bytes, ruleset: str, recording: bool = True):
    """The official checker's check_file in-process on `data`; `crash` set where it raises.
    Recording (what failed, in which state) doubles the cost of its CHECKs: verdicts alone do not
    need it."""
    checker = (
        RecordingChecker(ruleset)
        if recording
        else mlp_compliance.make_checker("training", ruleset, True, False)
    )
    checker.crash = None
    with official_checker_quietly():
        try:
            loglines, errors = official_parse(data, ruleset)
            if errors:
                checker.put_message("Log lines had parsing errors.")
            checker.check_loglines(loglines, f"training_{ruleset}/common.yaml")
        except Exception as error:  # noqa: BLE001 - the oracle's own crash, kept for the caller
            checker.crash = f"{type(error).__name__}: {error}"
    return checker


def official_verdict(data: bytes, ruleset: str) -> bool | None:
    """The official checker's verdict, None where it crashes."""
    checker = official_check(data, ruleset, recording=False)
    return None if checker.crash else not checker.has_messages()


NO_EVENTS = "No log lines detected"  # the official message; ours is COMPLIANCE_NO_EVENTS
ALTERNATIVES = re.compile(r"occurrence of ('\w+'(?: or '\w+')+)")


def message_key(key: str | None, message: str) -> str:
    """What a failure message of either checker is about, in one spelling: the key, "a or b" for
    alternatives (AT_LEAST_ONE_OR), "END" for an end-of-log rule."""
    alternatives = ALTERNATIVES.search(message)
    if alternatives:
        return " or ".join(sorted(re.findall(r"'(\w+)'", alternatives[1])))
    if key:
        return key
    target = re.match(r"Failed checks for (\w+)", message)
    if target:
        return target[1]
    if message.startswith("no MLPerf log events"):
        return NO_EVENTS
    ends = ("failed test:", "Failed executing CHECK code", "the end-of-log rule")
    return "END" if message.startswith(ends) else message


def official_failures(data: bytes, ruleset: str) -> set[str] | None:
    """What the official checker fails the log on (message_key of each message), None where it
    crashes; an empty set is its pass."""
    checker = official_check(data, ruleset, recording=False)
    if checker.crash:
        return None
    messages = [*checker.overwritable.items(), *((None, message) for message in checker.not_overwritable)]
    keys = {message_key(key, message) for key, message in messages}
    return {NO_EVENTS} if NO_EVENTS in keys else keys  # every required key is then missing too


NAMES = {"math": math, "is_integer": mlp_compliance.is_integer, "enqueue_config": lambda config: None}
# Starting values of hyperparameters that other keys' rules are relative to, chosen so the
# relations of every shipped config hold (qwen: 72 prompts x 16 generations; llama31_405b: the
# learning rate is 8e-5 at 1152). Every other value is solved from the configs.
SEEDS = {"global_batch_size": 1152, "num_prompts_per_step": 72}


def evaluate(node: ast.AST, s: dict):
    return eval(compile(ast.Expression(node), "<check>", "eval"), {**NAMES, "s": s})  # noqa: S307 - the official rules


def comparisons(tree: ast.AST):
    """(subject, operator, other side) of every comparison with a subject, chains split in pairs."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.Compare):
            continue
        operands = [node.left, *node.comparators]
        for left, op, right in zip(operands, node.ops, operands[1:], strict=False):
            if is_subject(right) and not is_subject(left):
                flipped = {ast.Lt: ast.Gt, ast.Gt: ast.Lt, ast.LtE: ast.GtE, ast.GtE: ast.LtE}
                left, right, op = right, left, flipped.get(type(op), type(op))()
            if is_subject(left) and not is_subject(right):
                yield left, op, right


def candidates(test: str, s: dict) -> list[tuple[tuple, object]]:
    """(path, value) pairs that may satisfy `test`: the other side of each comparison with a
    subject evaluated with the state `s` (`v['value'] > 0` gives 1, `in [...]` its first item,
    `abs(v['value'] - X) < eps` gives X), then the numbers the test names."""
    tree = ast.parse(test.strip(), mode="eval")
    found = []
    for subject, op, other in comparisons(tree):
        try:
            value = evaluate(other, s)
        except Exception:  # noqa: BLE001 - depends on state this line does not have
            continue
        path = subject_path(subject)
        step = (
            1
            if isinstance(value, int)
            else max(abs(value) * 0.01, 0.001)
            if isinstance(value, float)
            else None
        )
        if isinstance(subject, ast.Call) and ast.unparse(subject.func) == "len":  # len(v['value']) == 2
            found.append((path, [1] * value))
        elif isinstance(op, ast.In):
            found += [(path, item) for item in list(value)[:1]]
        elif isinstance(op, ast.Gt) and step is not None:
            found.append((path, value + step))
        elif isinstance(op, ast.Lt) and step is not None:
            found.append((path, value - step))
        elif isinstance(op, (ast.Eq, ast.GtE, ast.LtE)):
            found.append((path, value))
    for node in ast.walk(tree):  # 'BBOX' in v['value']: the value is a dict with that key
        if (
            isinstance(node, ast.Compare)
            and isinstance(node.ops[0], ast.In)
            and is_subject(node.comparators[0])
        ):
            if isinstance(node.left, ast.Constant) and isinstance(node.left.value, str):
                found.append(((*subject_path(node.comparators[0]), node.left.value), 0.0))
    subjects = [node for node in ast.walk(tree) if isinstance(node, ast.Subscript) and is_subject(node)]
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Sub, ast.Mult)) and is_subject(node.left):
            try:  # abs(v['value'] - X) < eps, v['value'] * N == X
                other = evaluate(node.right, s)
                found.append((subject_path(node.left), other if isinstance(node.op, ast.Sub) else None))
            except Exception:  # noqa: BLE001
                continue
    numbers = [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and type(node.value) in (int, float)
    ]
    for subject in subjects[:1]:
        found += [(subject_path(subject), number) for number in numbers]
    return [(path, value) for path, value in found if value is not None]


def with_value(original, path: tuple, value):
    """A copy of a log line's {'value', 'metadata'} with `value` at `path`."""
    line = copy.deepcopy(original)
    *parents, last = path
    target = line
    for part in parents:
        if isinstance(last, int) and not isinstance(
            target.get(part) if isinstance(target, dict) else None, list
        ):
            target[part] = [value] * (last + 1)
        elif isinstance(target, dict) and not isinstance(target.get(part), (dict, list)):
            target[part] = {}
        target = target[part]
    target[last] = value
    return line


def passes(test: str, line: dict, s: dict) -> bool:
    try:
        return bool(eval(test.strip(), {**NAMES, "s": copy.deepcopy(s)}, {"v": line, "ll": None}))  # noqa: S307
    except Exception:  # noqa: BLE001
        return False


def solution(test: str, line: dict, s: dict) -> dict | None:
    """The line with the first candidate value that makes `test` pass, None when none does."""
    for path, value in candidates(test, s):
        fixed = with_value(line, path, value)
        if passes(test, fixed, s):
            return fixed
    return None


@dataclass
class Line:
    """What one log line carries; the draft's events share these, so a fix lands in the draft."""

    value: object = None
    metadata: dict = field(default_factory=dict)

    def as_v(self) -> dict:
        return {"value": copy.deepcopy(self.value), "metadata": copy.deepcopy(self.metadata)}


@dataclass
class Draft:
    """A log under construction: hyperparameters in order, then the timeline of EVALS evals."""

    ruleset: str
    benchmark: str
    division: str
    hyperparameters: dict[str, Line]
    evals: list[Line] = field(default_factory=lambda: [Line(0.0) for _ in range(EVALS)])
    run_stop: Line = field(default_factory=lambda: Line(None, {"status": "success"}))
    init_minutes: float = 1.0
    repeated: dict[str, list[Line]] = field(default_factory=dict)  # key -> its lines (one per tensor)

    def events(self) -> list[tuple[Event, Line | None]]:
        at = T0
        events = [
            (Event("cache_clear", True, time_ms=at), None),
            (Event("init_start", None, time_ms=at), None),
        ]
        for key, line in [
            *self.hyperparameters.items(),
            *((k, x) for k, xs in self.repeated.items() for x in xs),
        ]:
            events.append((Event(key, line.value, line.metadata, at), line))
        run_start = at + int(self.init_minutes * MINUTE)
        events += [
            (Event("init_stop", None, time_ms=run_start), None),
            (Event("run_start", None, time_ms=run_start), None),
        ]
        at = run_start
        for index, line in enumerate(self.evals):
            epoch = index + 1
            steps = {"epoch_num": epoch, "samples_count": line.metadata.get("samples_count", epoch)}
            block = {"first_epoch_num": epoch, "epoch_count": 1, "samples_count": steps["samples_count"]}
            at += MINUTE
            events += [
                (Event("block_start", None, block, at), None),
                (Event("epoch_start", None, steps, at), None),
                (Event("epoch_stop", None, steps, at + 1), None),
                (Event("block_stop", None, block, at + 1), None),
                (Event("eval_start", None, steps, at + 2), None),
            ]
            metadata = {**steps, **line.metadata}
            if (
                isinstance(line.value, dict) and "metric" in line.metadata
            ):  # one line per metric (Stable Diffusion)
                for metric, metric_value in line.value.items():
                    events.append(
                        (Event("eval_accuracy", metric_value, {**metadata, "metric": metric}, at + 3), None)
                    )
            else:
                events.append((Event("eval_accuracy", line.value, metadata, at + 3), line))
            events.append((Event("eval_stop", None, steps, at + 4), None))
        events.append((Event("run_stop", self.run_stop.value, self.run_stop.metadata, at + 5), self.run_stop))
        return events

    def data(self) -> bytes:
        return render([item for item, _ in self.events()])

    def line_at(self, lineno: int) -> Line | None:
        """The draft line the official checker numbered `lineno` (0-based over :::MLLOG lines; every
        event is one)."""
        events = self.events()
        return events[lineno][1] if 0 <= lineno < len(events) else None


def required_keys(config: str) -> dict[str, int]:
    """Key -> how many lines a config requires of it (EXACTLY_ONE 1, AT_LEAST(n) n)."""
    required = {}
    for name, record in key_records(config).items():
        match = REQUIRED.fullmatch(record.get("REQ", ""))
        if match:
            required[name] = int(match[1]) if match[1] else 1
    return required


def repeated_lines(config: str) -> dict[str, list[Line]]:
    """Lines an END check wants one of per item: `sorted(s['initialized_tensors']) == sorted([...])`
    with a KEY whose POST collects `v['metadata']['tensor']` into that list asks for one
    weights_initialization line per tensor."""
    wanted = {}
    for item in load(config):
        for check in checks_of(item.get("END", {})):
            match = re.fullmatch(r"\s*sorted\(s\['(\w+)'\]\) == sorted\((\[.*\])\)\s*", check, re.S)
            if not match:
                continue
            for name, record in key_records(config).items():
                post = record.get("POST", "")
                field_match = re.search(rf"s\['{match[1]}'\] \+= \[v\['metadata'\]\['(\w+)'\]\]", post)
                if field_match:
                    wanted[name] = [
                        Line(None, {field_match[1]: value}) for value in ast.literal_eval(match[2])
                    ]
    return wanted


def initial_line(config: str, name: str) -> Line:
    if name in SEEDS:
        return Line(SEEDS[name])
    line = Line(1)
    for check in checks_of(key_records(config)[name]):
        fixed = solution(check, line.as_v(), {})
        if fixed is not None:
            line = Line(fixed["value"], fixed["metadata"])
    return line


class Unsolvable(AssertionError):
    pass


def draft(ruleset: str, benchmark: str, division: str = "closed") -> Draft:
    submission = {
        "submission_org": "Generated",
        "submission_platform": "generated-system",
        "submission_division": division,
        "submission_status": "onprem",
        "submission_benchmark": benchmark,
    }
    return Draft(ruleset, benchmark, division, {key: Line(value) for key, value in submission.items()})


def target_line(test: str, line: Line, s: dict) -> Line | None:
    """The last eval's line changed so the quality target `test` (ATLEAST_ONE_CHECK) holds."""
    v = line.as_v()
    if passes(test, v, s):
        return None
    fixed = v
    for path, value in candidates(test, s):  # each subject of a multi-metric target in turn
        attempt = with_value(fixed, path, value)
        if passes(test, attempt, s):
            return Line(attempt["value"], attempt["metadata"])
        if len(path) > 1:
            fixed = attempt
    return None


def solve(log: Draft, rounds: int = 16) -> Draft:
    """Fix what the official checker rejects until it accepts the log (or nothing changes)."""
    for _ in range(rounds):
        checker = official_check(log.data(), log.ruleset)
        if not checker.has_messages() and checker.crash is None:
            return log
        changed = False
        for _config, logline, test, s in checker.failed:  # first: line numbers are this draft's
            line = log.line_at(logline.lineno)
            if logline.key in IDENTITY:
                continue  # what the log is stays; a config that rejects it is the finding
            fixed = solution(test, line.as_v(), s) if line is not None else None
            if fixed is not None and fixed != line.as_v():
                line.value, line.metadata = fixed["value"], fixed["metadata"]
                changed = True
        for config in [c for c in checker.configs if (CONFIG_DIR / c).exists()]:  # what they require
            for name, lines in repeated_lines(config).items():
                if name not in log.repeated:
                    log.repeated[name] = lines
                    log.hyperparameters.pop(name, None)
                    changed = True
            for name in required_keys(config):
                if name not in TIMELINE | VIRTUAL | set(log.repeated) | set(log.hyperparameters):
                    log.hyperparameters[name] = initial_line(config, name)
                    changed = True
            for name, record in key_records(config).items():
                # The quality target: on the last eval, or on a key logged with the hyperparameters
                # (open flux1's averaged_validation_loss).
                line = log.evals[-1] if name == "eval_accuracy" else log.hyperparameters.get(name)
                if "ATLEAST_ONE_CHECK" in record and line is not None:
                    state = checker.state.get(config, {})
                    fixed = target_line(record["ATLEAST_ONE_CHECK"], line, state)
                    if fixed is not None:
                        line.value, line.metadata = fixed.value, fixed.metadata
                        changed = True
        if not changed:
            break
    messages = [*checker.overwritable.values(), *checker.not_overwritable, checker.crash]
    raise Unsolvable(f"training {log.ruleset} {log.benchmark}: the official checker still says {messages}")


def shape_evals(log: Draft) -> None:
    """Evals of a benchmark whose config aggregates eval_accuracy by a `metric` in its metadata
    (Stable Diffusion: FID and CLIP) log one line per metric its aggregated key's target names."""
    config = f"training_{log.ruleset}/{log.division}_{log.benchmark}.yaml"
    if not (CONFIG_DIR / config).exists() or "aggregated_eval_accuracy" not in key_records(config):
        return
    target = key_records(config)["aggregated_eval_accuracy"]["ATLEAST_ONE_CHECK"]
    for index, line in enumerate(log.evals):
        value = {}
        for metric in dict.fromkeys(re.findall(r"v\['value'\]\['(\w+)'\]", target)):
            bounds = re.search(rf"\(([\d.]+) <= v\['value'\]\['{metric}'\] <= ([\d.]+)\)", target)
            low, high = (float(bounds[1]), float(bounds[2])) if bounds else (0.0, 1.0)
            value[metric] = (low + high) / 2 if index == len(log.evals) - 1 else high + 1
        line.value, line.metadata = value, {"metric": "", "step_num": index + 1}


@functools.cache
def conforming_draft(ruleset: str, benchmark: str, division: str = "closed") -> Draft:
    log = draft(ruleset, benchmark, division)
    shape_evals(log)
    return solve(log)


def conforming_log(ruleset: str, benchmark: str, division: str = "closed") -> bytes:
    return conforming_draft(ruleset, benchmark, division).data()


# ---------------------------------------------------------------------------------------------
# Mutations: each rule of a benchmark's configs broken in turn, on the rendered conforming log.


def as_events(data: bytes) -> list[dict]:
    return [json.loads(line.removeprefix(":::MLLOG ")) for line in data.decode().splitlines()]


def as_log(events: list[dict]) -> bytes:
    """The events as mllog encodes them (its key order, json.dumps)."""
    return "".join(f":::MLLOG {json.dumps(item)}\n" for item in events).encode()


def wrong(value):
    """A value that differs from `value` in kind-preserving way."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value * 2 + 1
    if isinstance(value, str):
        return value + "_wrong"
    if isinstance(value, list):
        return [*value, *value[:1]] if value else [1]
    return None


def missed_target(ruleset: str, benchmark: str, division: str, key: str) -> object | None:
    """A value of `key` that every CHECK of the benchmark on it accepts but its quality target
    (ATLEAST_ONE_CHECK) does not, None when there is none to find."""
    log = conforming_draft(ruleset, benchmark, division)
    events = [item for item in as_events(log.data()) if item["key"] == key]
    line = {"value": events[-1]["value"], "metadata": events[-1]["metadata"]}
    configs = configs_of(ruleset, benchmark, division)
    # The CHECKs on the value (those on the metadata held on the log and depend on its state then)
    checks = [
        test
        for config in configs
        for test in checks_of(key_records(config).get(key, {}))
        if "v['value']" in test
    ]
    for config in configs:
        target = key_records(config).get(key, {}).get("ATLEAST_ONE_CHECK")
        if target is None:
            continue
        s = final_state(ruleset, benchmark, division)[config]
        tries = [{**line, "value": value} for value in (events[0]["value"], 0.0, -1.0, 1e9)]
        for path, value in candidates(target, s):
            if isinstance(value, (int, float)):
                step = max(abs(value) * 0.01, 0.001)
                tries += [with_value(line, path, miss) for miss in (value - step, value + step, -1.0, 1e9)]
        for candidate in tries:
            if not passes(target, candidate, s) and all(passes(test, candidate, s) for test in checks):
                return candidate["value"]
    return None


def quality_target_keys(ruleset: str, benchmark: str, division: str) -> list[str]:
    """The keys with a quality target (ATLEAST_ONE_CHECK) in the benchmark's configs."""
    return [
        name
        for config in configs_of(ruleset, benchmark, division)
        for name, record in key_records(config).items()
        if "ATLEAST_ONE_CHECK" in record
    ]


def missed_target_log(
    ruleset: str, benchmark: str, division: str, events: list[dict]
) -> tuple[str, bytes] | None:
    """The log with every eval short of the quality target: the target's key set to a value its
    CHECKs accept and its target does not, or (Stable Diffusion's aggregated metrics) every eval
    given the first eval's metrics, which miss the target."""
    if "aggregated_eval_accuracy" in quality_target_keys(ruleset, benchmark, division):
        first = {}
        for item in events:
            if item["key"] == "eval_accuracy":
                first.setdefault(item["metadata"].get("metric"), item["value"])
        changed = [
            dict(item, value=first[item["metadata"].get("metric")])
            if item["key"] == "eval_accuracy"
            else item
            for item in events
        ]
        return "target not reached (every eval as the first)", as_log(changed)
    for key in quality_target_keys(ruleset, benchmark, division):  # eval_accuracy, open flux1's loss
        target = missed_target(ruleset, benchmark, division, key)
        if target is not None:
            changed = [dict(item, value=target) if item["key"] == key else item for item in events]
            return f"target not reached ({key} {target!r})", as_log(changed)
    return None


@functools.cache
def _official_run(ruleset: str, benchmark: str, division: str) -> RecordingChecker:
    return official_check(conforming_log(ruleset, benchmark, division), ruleset)


def configs_of(ruleset: str, benchmark: str, division: str = "closed") -> list[str]:
    """The configs the official checker runs on the benchmark's conforming log, in its order."""
    return list(dict.fromkeys(_official_run(ruleset, benchmark, division).configs))


def final_state(ruleset: str, benchmark: str, division: str) -> dict[str, dict]:
    return _official_run(ruleset, benchmark, division).state


def mutations(
    ruleset: str, benchmark: str, common_too: bool = True, base: bytes | None = None, division: str = "closed"
) -> list[tuple[str, bytes]]:
    """(name, log) for each rule of the benchmark's configs broken in turn: every required key
    missing, every checked key with a wrong value, the quality target missed, run_stop without a
    status or aborted, init too long. `common_too=False` leaves out the keys of common.yaml and
    the division's common config (the same for every benchmark of a ruleset) but those of the
    run's timeline (a benchmark's config may count eval_accuracy in its own way). `base`: the log to
    break, the conforming log by default."""
    events = as_events(base if base is not None else conforming_log(ruleset, benchmark, division))
    keys: dict[str, dict] = {}
    for config in configs_of(ruleset, benchmark, division):
        for name, record in key_records(config).items():
            if common_too or not config.endswith("common.yaml") or name in TIMELINE:
                keys.setdefault(name, {}).update(record)
    found = []
    logged = {item["key"] for item in events}
    for name, record in keys.items():
        if name in logged and (
            REQUIRED.fullmatch(record.get("REQ", "")) or record.get("REQ", "").startswith("AT_LEAST_ONE_OR")
        ):
            found.append((f"no {name}", as_log([item for item in events if item["key"] != name])))
        first = next((item for item in events if item["key"] == name), None)
        if (
            first is not None
            and "CHECK" in record
            and name not in TIMELINE
            and wrong(first["value"]) is not None
        ):
            changed = [dict(item, value=wrong(item["value"])) if item is first else item for item in events]
            found.append((f"{name} {first['value']!r} -> {wrong(first['value'])!r}", as_log(changed)))
    for pair in ({"block_start", "epoch_start"}, {"block_stop", "epoch_stop"}):
        found.append(
            (f"no {' or '.join(sorted(pair))}", as_log([item for item in events if item["key"] not in pair]))
        )
    missed = missed_target_log(ruleset, benchmark, division, events)
    if missed is not None:
        found.append(missed)
    for status in (None, "aborted", "success_wrong"):
        metadata = {} if status is None else {"status": status}
        changed = [
            dict(item, metadata={**{k: v for k, v in item["metadata"].items() if k != "status"}, **metadata})
            if item["key"] == "run_stop"
            else item
            for item in events
        ]
        found.append((f"run_stop status {status!r}", as_log(changed)))
    init_stop = next(item for item in events if item["key"] == "init_stop")["time_ms"]
    late = 241 * MINUTE  # past every ruleset's init limit (20, 30 or 240 minutes)
    changed = [
        dict(item, time_ms=item["time_ms"] + late) if item["time_ms"] >= init_stop else item
        for item in events
    ]
    found.append(("init 241 minutes", as_log(changed)))
    return found


# ---------------------------------------------------------------------------------------------
# Packages of generated logs, for the package checker and the CLI.

SYSTEM = {
    "submitter": "Generated",
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


def write_package(package: Path, logs: dict[str, list[bytes]], division: str = "closed") -> Path:
    """A submitter folder: systems/generated.json and results/generated/<benchmark>/result_<i>.txt
    for each benchmark's logs in order."""
    (package / "systems").mkdir(parents=True)
    (package / "systems" / "generated.json").write_text(json.dumps({**SYSTEM, "division": division}))
    for benchmark, runs in logs.items():
        folder = package / "results" / "generated" / benchmark
        folder.mkdir(parents=True)
        for index, data in enumerate(runs):
            (folder / f"result_{index}.txt").write_bytes(data)
    return package
