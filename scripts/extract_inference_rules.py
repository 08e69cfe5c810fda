"""Write mlperf_check/inference/round_tables.py from the official submission checker of each round.

    python scripts/extract_inference_rules.py <git dir of github.com/mlcommons/inference>

Reads each round's checker source at the commit named in SOURCES with `git show`, parses it with
`ast` (nothing of it is run), evaluates only the literal tables (numbers, strings, lists, dicts and
the arithmetic in them, e.g. `76.46 * 0.99`) and writes one table per round, in our own field
names. Rules the official checker keeps in code rather than in tables (which compliance tests a
model needs, the units it prints) are transcribed below, with the commit they come from.
"""

from __future__ import annotations

import ast
import json
import pprint
import subprocess
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "mlperf_check" / "inference" / "round_tables.py"

# round -> (commit, file): the checker of the round's time: the last change to tools/submission/
# before the round's results were published (v6.1: not yet published, the newest master).
SOURCES = {
    "v2.1": ("318cb131", "tools/submission/submission-checker.py"),  # tag v2.1
    "v3.0": ("fd6486a0", "tools/submission/submission_checker.py"),  # tag v3.0
    "v3.1": ("ce189bda", "tools/submission/submission_checker.py"),  # tag v3.1
    "v4.0": ("e39003a9", "tools/submission/submission_checker.py"),  # tag v4.0
    "v4.1": ("c7db1c3f", "tools/submission/submission_checker.py"),  # the corpus reference checker
    "v5.0": ("5e903956", "tools/submission/submission_checker.py"),
    "v5.1": ("e20506b2", "tools/submission/submission_checker.py"),
    "v6.0": ("175ea7ba", "tools/submission/submission_checker/constants.py"),
    "v6.1": ("b66003e1", "tools/submission/submission_checker/constants.py"),
}

# The Power WG's power_checker.py (+ sources_checksums.json) beside each round's checker. From v3.1
# the checker runs it on every power result unless told --skip-power-check; v3.0 only when told
# --more-power-check, and v2.1 ran the power-dev submodule's check.py only when so told: for them the
# check is no part of the round's verdict (None: no file in the checker's tree).
POWER_CHECKERS = {
    "v2.1": None,
    **{v: ("tools/submission/power/", v != "v3.0") for v in ("v3.0", "v3.1", "v4.0", "v4.1", "v5.0", "v5.1")},
    "v6.0": ("tools/submission/submission_checker/checks/power/", True),
    "v6.1": ("tools/submission/submission_checker/checks/power/", True),
}

# power_checker.py's WARNING_NEEDS_TO_BE_ERROR_TESTING_RE (compiled, so not a literal table): the
# ptd_logs.txt warnings that fail a result when logged during its testing run (v3.1 on).
PTD_WARNINGS_THAT_ARE_ERRORS = [r"Uncertainty \d+.\d+%, which is above 1.00% limit for the last sample!"]

_BERT = ["bert-99", "bert-99.9"]
_DLRM1 = ["dlrm-99", "dlrm-99.9"]
_DLRM2 = ["dlrm-v2-99", "dlrm-v2-99.9"]
_UNET = ["3d-unet-99", "3d-unet-99.9"]
_GPTJ = ["gptj-99", "gptj-99.9"]
_LLAMA2 = ["llama2-70b-99", "llama2-70b-99.9"]
_LLAMA2_INT = ["llama2-70b-interactive-99", "llama2-70b-interactive-99.9"]
_SDXL = ["stable-diffusion-xl"]

# check_compliance_dir of each commit up to v5.1 (v6.0 on: the models_TESTxx tables):
# (the tests every model starts with, {test: the models it is removed for}, {test: the models it is added for}).
COMPLIANCE_CODE = {
    "v2.1": (["TEST01", "TEST04", "TEST05"], {"TEST04": ["rnnt", *_BERT, *_DLRM1, *_UNET, "retinanet"]}, {}),
    "v3.0": (["TEST01", "TEST04", "TEST05"], {"TEST04": ["rnnt", *_BERT, *_DLRM1, *_UNET, "retinanet"]}, {}),
    "v3.1": (
        ["TEST01", "TEST04", "TEST05"],
        {
            "TEST04": ["rnnt", *_BERT, *_DLRM2, *_UNET, "retinanet", *_GPTJ, "gpt3-99", "gpt3-99.9"],
            "TEST05": [*_GPTJ, "gpt3-99", "gpt3-99.9"],
            "TEST01": [*_GPTJ, "gpt3-99", "gpt3-99.9"],
        },
        {},
    ),
    "v4.0": (
        ["TEST01", "TEST04", "TEST05"],
        {
            "TEST04": ["rnnt", *_BERT, *_DLRM2, *_UNET, "retinanet", *_GPTJ, *_LLAMA2, *_SDXL],
            "TEST05": [*_GPTJ, *_LLAMA2, *_SDXL],
            "TEST01": [*_GPTJ, *_LLAMA2, *_SDXL],
        },
        {"TEST06": _LLAMA2},
    ),
    "v4.1": (
        ["TEST01", "TEST04", "TEST05"],
        {
            "TEST04": ["rnnt", *_BERT, *_DLRM2, *_UNET, "retinanet", *_GPTJ, *_LLAMA2, "mixtral-8x7b"],
            "TEST05": [*_GPTJ, *_LLAMA2, *_SDXL, "mixtral-8x7b"],
            "TEST01": [*_GPTJ, *_LLAMA2, "mixtral-8x7b"],
        },
        {"TEST06": [*_LLAMA2, "mixtral-8x7b"]},
    ),
    "v5.0": (
        ["TEST01", "TEST04"],
        {
            "TEST04": [
                *_BERT,
                *_DLRM2,
                *_UNET,
                "retinanet",
                "rnnt",
                *_GPTJ,
                *_LLAMA2,
                *_LLAMA2_INT,
                "mixtral-8x7b",
                "llama3.1-405b",
                "rgat",
            ],
            "TEST01": [*_GPTJ, *_LLAMA2, *_LLAMA2_INT, "mixtral-8x7b", "llama3.1-405b"],
        },
        {"TEST06": [*_LLAMA2, *_LLAMA2_INT, "mixtral-8x7b", "llama3.1-405b"]},
    ),
    "v5.1": (
        ["TEST01", "TEST04"],
        {
            "TEST04": [
                *_BERT,
                *_DLRM2,
                *_UNET,
                "retinanet",
                "rnnt",
                "llama3.1-8b",
                "llama3.1-8b-edge",
                *_LLAMA2,
                "mixtral-8x7b",
                "llama3.1-405b",
                "rgat",
                "deepseek-r1",
                "whisper",
            ],
            "TEST01": [
                "llama3.1-8b",
                "llama3.1-8b-edge",
                *_LLAMA2,
                "mixtral-8x7b",
                "llama3.1-405b",
                "deepseek-r1",
                *_LLAMA2_INT,
                "llama3.1-8b-interactive",
                "llama3.1-405b-interactive",
            ],
        },
        {
            "TEST06": [
                *_LLAMA2,
                "mixtral-8x7b",
                "llama3.1-405b",
                "llama3.1-8b",
                "deepseek-r1",
                *_LLAMA2_INT,
                "llama3.1-8b-interactive",
                "llama3.1-405b-interactive",
            ]
        },
    ),
}

# The unit the checker prints per model and scenario where it is not the scenario's default
# (the special_unit_dict in its result logging; a table from v6.0).
_TOKENS = {"Offline": "Tokens/s", "Server": "Tokens/s"}
_TOKENS_INT = {**_TOKENS, "Interactive": "Tokens/s"}
SPECIAL_UNITS_CODE = {
    "v2.1": {},
    "v3.0": {},
    "v3.1": {},
    "v4.0": {},  # v4.0 printed the scenario's unit for every model
    "v4.1": {m: _TOKENS for m in [*_GPTJ, *_LLAMA2, "mixtral-8x7b"]},
    "v5.0": {m: _TOKENS for m in [*_GPTJ, *_LLAMA2, *_LLAMA2_INT, "mixtral-8x7b", "llama3.1-405b"]},
    "v5.1": {
        "llama3.1-8b": _TOKENS,
        "llama3.1-8b-edge": {"Offline": "Tokens/s"},
        **{m: _TOKENS_INT for m in [*_LLAMA2, "mixtral-8x7b", "llama3.1-405b", "deepseek-r1"]},
    },
}
# v4.1 looked the unit up by the result's folder name, not its benchmark (a mapped open model gets
# the scenario's default unit); v5.0 on by the benchmark.
UNITS_BY_FOLDER = {"v4.1"}
DEFAULT_UNITS = {
    "SingleStream": "Latency (ms)",
    "MultiStream": "Latency (ms)",
    "Offline": "Samples/s",
    "Server": "Queries/s",
    "Interactive": "Queries/s",
}
POWER_UNITS = {
    "SingleStream": "millijoules",
    "MultiStream": "millijoules",
    "Offline": "Watts",
    "Server": "Watts",
    "Interactive": "Watts",
}
# Which settings checks of the performance run reject a result; the others the checker only logs
# (check_performance_dir of each commit; v6.0 on: the performance_check module).
_ALL_SETTINGS = ["seeds", "latency_target", "offline_min_samples", "min_duration"]
SETTINGS_REJECT = {
    "v2.1": [],
    "v3.0": [],
    "v3.1": ["seeds", "latency_target", "offline_min_samples"],
    "v4.0": ["seeds", "latency_target", "offline_min_samples"],
}
# v6.0 on: the Offline minimum binds the closed division only.
OFFLINE_MIN_CLOSED_ONLY = {"v6.0", "v6.1"}
# The models whose runs must use LoadGen's token latencies (and meet the TTFT/TPOT limits in Server
# and Interactive), as each checker lists them in code; v6.x: Config.get_llm_models().
_LLM_V51 = [
    *_LLAMA2,
    *_LLAMA2_INT,
    "mixtral-8x7b",
    "llama3.1-405b",
    "llama3.1-8b",
    "llama3.1-8b-edge",
    "deepseek-r1",
]
LLM_MODELS = {
    "v4.1": [*_LLAMA2, "mixtral-8x7b"],
    "v5.0": [*_LLAMA2, *_LLAMA2_INT, "mixtral-8x7b", "llama3.1-405b"],
    "v5.1": _LLM_V51,
    "v6.0": [*_LLM_V51, "gpt-oss-120b"],
    "v6.1": [*_LLM_V51, "gpt-oss-120b"],
}
# Whose scenario picks the TTFT/TPOT limits: the result folder's (v4.1-v5.1: an Interactive folder
# gets the Interactive limits) or the scenario LoadGen ran (v6.0 on: a LoadGen Server run is held
# to the Server limits, whatever its folder).
TOKEN_LIMITS_BY_LOADGEN_SCENARIO = {"v6.0", "v6.1"}
# Equal-issue mode (LoadGen's sample_concatenate_permutation) required of these models'
# performance runs (Config.requires_equal_issue and its use in each commit): v4.1 reads it from
# the measurements' mlperf.conf/user.conf (its detail-log test compares a JSON true with the
# string "true", which never holds), v5.0 (closed) and v5.1 (every division) from the detail log;
# v6.0 on asks it of no model.
_EQUAL_V50 = [*_UNET, *_GPTJ, *_LLAMA2, *_LLAMA2_INT, "mixtral-8x7b", "llama3.1-405b", "rgat"]
_EQUAL_V51 = [
    *_UNET, *_GPTJ, *_LLAMA2, "mixtral-8x7b", "llama3.1-405b", "llama3.1-8b", "llama3.1-8b-edge",
    "deepseek-r1", "rgat", "whisper",
]  # fmt: skip
EQUAL_ISSUE = {
    "v4.1": {"models": [*_UNET, *_GPTJ, *_LLAMA2, "mixtral-8x7b"], "closed_only": True, "source": "conf"},
    "v5.0": {"models": _EQUAL_V50, "closed_only": True, "source": "detail"},
    "v5.1": {"models": _EQUAL_V51, "closed_only": False, "source": "detail"},
}
# Closed submitters document their quantization calibration (calibration.md or
# documentation/calibration.md): checked by v5.1's checker only (added after v5.0; the v6.0
# package has the option but no check).
CALIBRATION_DOC = {"v5.1"}
# Every systems/*.json and measurements/<system>/ of a submitter has results (v5.1's checker).
ALL_SYSTEMS_WITH_RESULTS = {"v5.1"}
# The accuracy run covers the whole data set (its qsl_reported_total_count, or from v6.0
# effective_accuracy_sample_count, equals the table's count): v5.1 only logs a miss, v6.0 on refuse.
ACCURACY_COUNT_REJECTS = {"v6.0", "v6.1"}
# Offline samples in the one query before OFFLINE_MIN_SPQ_SINCE_V4 (v4.0) made it per model.
OFFLINE_MIN_SPQ = 24576


def _literal(node: ast.AST, names: dict):
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.List | ast.Tuple | ast.Set):
        return [_literal(e, names) for e in node.elts]
    if isinstance(node, ast.Dict):
        return {_literal(k, names): _literal(v, names) for k, v in zip(node.keys, node.values, strict=True)}
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult | ast.Add | ast.Sub | ast.Div):
        left, right = _literal(node.left, names), _literal(node.right, names)
        if isinstance(node.op, ast.Add):
            return left + right
        if isinstance(node.op, ast.Sub):
            return left - right
        return left * right if isinstance(node.op, ast.Mult) else left / right
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_literal(node.operand, names)
    if isinstance(node, ast.Name) and node.id in names:
        return names[node.id]
    raise ValueError(f"not a literal table: {ast.dump(node)[:80]}")


def module_tables(source: str) -> dict:
    """Every top-level NAME = <literal> of a module (later names may refer to earlier ones)."""
    names: dict = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                names[node.targets[0].id] = _literal(node.value, names)
            except (ValueError, TypeError, KeyError):
                continue
    return names


def _per_version(table, version):
    if isinstance(table, dict) and version in table:
        return table[version]
    return table


def _pairs(flat) -> list[list] | dict:
    """("ROUGE1", 43.9, "ROUGE2", 21.8) -> [["ROUGE1", 43.9], ["ROUGE2", 21.8]]; a per-scenario table
    ({"Offline": (...), "Interactive": (...)}, v6.1) -> {scenario: pairs}."""
    if isinstance(flat, dict):
        return {scenario: _pairs(value) for scenario, value in flat.items()}
    return [[flat[i], float(flat[i + 1])] for i in range(0, len(flat), 2)]


def _llm_limits(raw: dict) -> dict:
    """v4.1 {"conversational": {ttft, tpot}}, v5.0 {ttft, tpot}, v5.1+ {scenario: {ttft, tpot}} ->
    {scenario: {"ttft_ns", "tpot_ns"}} (v4.1 and v5.0 check Server only)."""
    out = {}
    for model, limits in raw.items():
        if "ttft" in limits:
            limits = {"Server": limits}
        elif "conversational" in limits:
            limits = {"Server": limits["conversational"]}
        out[model] = {s: {"ttft_ns": int(v["ttft"]), "tpot_ns": int(v["tpot"])} for s, v in limits.items()}
    return out


# Where a result's companions sit, relative to the submitter folder, before v6.0 (which moved the
# measurements and compliance runs into the result folder and the code into src/; its checker
# has path tables, read below).
LAYOUT_BEFORE_V6 = {
    "measurements": "measurements/{system}/{benchmark}/{scenario}",
    "implementation_json": "{system}*.json",
    "code": "code/{benchmark}",
    "compliance": "compliance/{system}/{benchmark}/{scenario}",
}


def _layout(version: str, names: dict) -> dict:
    if "COMPLIANCE_PATH" not in names:
        return LAYOUT_BEFORE_V6

    def relative(table: str) -> str:
        return _per_version(names[table], version).removeprefix("{division}/{submitter}/").rstrip("/")

    measurements, _, implementation = relative("MEASUREMENTS_PATH").rpartition("/")
    return {
        "measurements": measurements,
        "implementation_json": "{system}*.json" if implementation == "{file}" else implementation,
        "code": relative("SRC_PATH"),
        "compliance": relative("COMPLIANCE_PATH"),
    }


def _compliance(version: str, config: dict) -> dict:
    models = config["models"]
    if version in COMPLIANCE_CODE:
        base, removed, added = COMPLIANCE_CODE[version]
        out = {}
        for model in models:
            tests = [t for t in base if model not in removed.get(t, [])]
            tests += [t for t, names in added.items() if model in names]
            out[model] = tests
        return out
    tests_of = {
        key.removeprefix("models_"): names for key, names in config.items() if key.startswith("models_TEST")
    }
    return {m: sorted(t for t, names in tests_of.items() if m in names) for m in models}


def power_check(version: str, commit: str, show) -> dict | None:
    """The Power WG check of the round: what it compares, from its own tables and file."""
    if POWER_CHECKERS[version] is None:
        return None
    folder, by_default = POWER_CHECKERS[version]
    source = show(commit, folder + "power_checker.py")
    names = module_tables(source)
    return {
        "source": folder + "power_checker.py",
        "by_default": by_default,
        "ptd_versions": list(names["SUPPORTED_VERSION"]),
        "analyzer_models": dict(names["SUPPORTED_MODEL"]),
        "result_paths": list(names["RESULT_PATHS"]),
        "time_tolerance_ms": names.get("TIME_DELTA_TOLERANCE", 1000),  # v3.0 wrote 1000 in the code
        # ptd_logs.txt: the ERROR lines taken as known during the ranging run and at any time, and the
        # WARNING lines that are errors during the testing run.
        "ptd_ranging_common_errors": list(names["COMMON_ERROR_RANGING"]),
        "ptd_common_errors": list(names["COMMON_ERROR_TESTING"]),
        "ptd_testing_errors": PTD_WARNINGS_THAT_ARE_ERRORS if "WARNING_NEEDS_TO_BE_ERROR_TESTING_RE" in source else [],
        # Which SR,A commands may set the current range back to its initial value: the third, and
        # from v5.0 the third or the fourth ("sometimes the SR,A,Auto comes from 3rd or 4th response").
        "initial_amps_commands": [3, 4] if "initial_amps_command_4" in source else [3],
        # Each accepted release of the PTDaemon client/server sources: file -> sha1.
        "sources_checksums": json.loads(show(commit, folder + "sources_checksums.json")),
    }


def round_table(version: str, source: str, commit: str, path: str) -> dict:
    names = module_tables(source)
    config = names["MODEL_CONFIG"][version]
    result_fields = dict(_per_version(names["RESULT_FIELD_NEW"], version))
    result_fields.pop("MultiStreamLegacy", None)
    overrides = _per_version(names.get("RESULT_FIELD_BENCHMARK_OVERWRITE", {}), version)
    if version not in names.get("RESULT_FIELD_BENCHMARK_OVERWRITE", {version: 0}):
        overrides = {}  # the table exists, but not for this round
    if version in SPECIAL_UNITS_CODE:
        units = SPECIAL_UNITS_CODE[version]
    else:
        units = {
            m: {s: u for s, u in v.items() if s[0].isupper()} for m, v in names["SPECIAL_UNIT_DICT"].items()
        }
    images = {
        model: per_round[version]["images"]
        for model, per_round in names.get("REQUIRED_ACC_BENCHMARK", {}).items()
        if version in per_round and "images" in per_round[version]
    }
    offline_min = names.get("OFFLINE_MIN_SPQ_SINCE_V4")
    return {
        "version": version,
        "source": {"repository": "github.com/mlcommons/inference", "commit": commit, "path": path},
        "models": list(config["models"]),
        "model_mapping": dict(config.get("model_mapping", {})),
        "required_scenarios": {
            "datacenter": config["required-scenarios-datacenter"],
            "edge": config["required-scenarios-edge"],
            "datacenter,edge": config["required-scenarios-datacenter-edge"],
        },
        "optional_scenarios": {
            "datacenter": config.get("optional-scenarios-datacenter", {}),
            "edge": config.get("optional-scenarios-edge", {}),
            "datacenter,edge": config.get("optional-scenarios-datacenter-edge", {}),
        },
        "accuracy_targets": {m: _pairs(v) for m, v in config["accuracy-target"].items()},
        "accuracy_upper_limits": {m: _pairs(v) for m, v in config.get("accuracy-upper-limit", {}).items()},
        "accuracy_patterns": dict(names["ACC_PATTERN"]),
        "performance_sample_count": config["performance-sample-count"],
        "seeds": config["seeds"],
        "test05_seeds": config.get("test05_seeds", {}),
        "latency_constraints_ns": config["latency-constraint"],
        "min_queries": config["min-queries"],
        "offline_min_samples": (
            {m: offline_min.get(m, OFFLINE_MIN_SPQ) for m in config["models"]}
            if offline_min
            else {m: OFFLINE_MIN_SPQ for m in config["models"]}
        ),
        "min_duration_ms": names["TEST_DURATION_MS"],
        "result_fields": result_fields,
        "result_field_overrides": overrides,
        "llm_latency_limits": _llm_limits(names.get("LLM_LATENCY_LIMITS", {})),
        "units": units,
        "units_keyed_by": "folder" if version in UNITS_BY_FOLDER else "model",
        "default_units": DEFAULT_UNITS,
        "power_units": POWER_UNITS,
        "compliance_tests": _compliance(version, config),
        "accuracy_images": images,
        "ignore_errors": list(config.get("ignore_errors", [])),
        "settings_reject": SETTINGS_REJECT.get(version, _ALL_SETTINGS),
        "offline_min_closed_only": version in OFFLINE_MIN_CLOSED_ONLY,
        "llm_models": LLM_MODELS.get(version, []),
        "calibration_doc": version in CALIBRATION_DOC,
        # model -> samples (or {scenario: samples}); empty before v5.1
        "accuracy_sample_count": {
            **config.get("dataset-size", {}),
            **config.get("accuracy-sample-count", {}),
        },
        "accuracy_sample_count_rejects": version in ACCURACY_COUNT_REJECTS,
        "all_systems_with_results": version in ALL_SYSTEMS_WITH_RESULTS,
        "equal_issue": EQUAL_ISSUE.get(version, {"models": [], "closed_only": True, "source": "detail"}),
        "token_limits_by": "loadgen" if version in TOKEN_LIMITS_BY_LOADGEN_SCENARIO else "folder",
        "layout": _layout(version, names),
        "availabilities": list(names["VALID_AVAILABILITIES"]),
        # The network division: its systems say `is_network: true` (a closed system may not), describe
        # the network, and their LoadGen SUT name says so; otherwise the closed division's rules.
        "divisions": list(names["VALID_DIVISIONS"]),
        "network_flag": names["SYSTEM_DESC_IS_NETWORK_MODE"],
        "network_system_fields": list(names["SYSTEM_DESC_REQUIRED_FIELDS_NETWORK_MODE"]),
        "network_sut_name": names["NETWORK_MODE_REQUIRED_SUBSTRING_IN_SUT_NAME"],
        # Loadgen++ (v6.1): the models whose results may come from the MLCommons endpoints harness
        # (performance/result_summary.json instead of LoadGen logs); empty before.
        "endpoints_models": list(names.get("ENDPOINTS_ALLOWED_MODELS", [])),
        "system_fields": list(names["SYSTEM_DESC_REQUIRED_FIELDS"]),
        "system_fields_meaningful": list(names.get("SYSTEM_DESC_MEANINGFUL_RESPONSE_REQUIRED_FIELDS", [])),
        "measurement_files": list(names["REQUIRED_MEASURE_FILES"]),
        # Patterns ("analyzer_table.*"); v3.1 on.
        "power_measurement_files": list(names.get("REQUIRED_POWER_MEASURE_FILES", [])),
        "implementation_fields": list(names["SYSTEM_IMP_REQUIRED_FILES"]),
        "accuracy_files": list(names["REQUIRED_ACC_FILES"]),
        "max_accuracy_log_bytes": names["MAX_ACCURACY_LOG_SIZE"],
    }


def main(repo: str) -> None:
    def show(commit: str, path: str) -> str:
        return subprocess.run(
            ["git", "--git-dir", repo, "show", f"{commit}:{path}"], check=True, capture_output=True, text=True
        ).stdout

    tables = {}
    for version, (commit, path) in SOURCES.items():
        tables[version] = round_table(version, show(commit, path), commit, path)
        tables[version]["power_check"] = power_check(version, commit, show)
    header = (
        '"""The official submission checker\'s tables of every inference round from v2.1, as data.\n\n'
        "Generated by scripts/extract_inference_rules.py from github.com/mlcommons/inference (each\n"
        "round's `source` names the commit and file); do not edit by hand: rerun the script.\n"
        '"""\n\n'
        "# fmt: off\n"
    )
    OUT.write_text(header + "ROUND_TABLES = " + pprint.pformat(tables, width=110, sort_dicts=False) + "\n")
    print(f"wrote {OUT} ({', '.join(tables)})")


if __name__ == "__main__":
    main(sys.argv[1])
