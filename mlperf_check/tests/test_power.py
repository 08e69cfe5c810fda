"""Energy to train: power/ folders checked and scored as the official tools do, and broken power
logs giving findings, never a crash. Uses one real v4.0 run kept in tests/data (see its README)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mlperf_check.package import Package
from mlperf_check.pipeline import check_package
from mlperf_check.power import ROUND_TOOLS, WINDOW, node_energy, read_power_file, switch_energy
from mlperf_check.report import SEVERITIES, RunLog
from mlperf_check.scoring import instance_scale

DATA = Path(__file__).parent / "data" / "power-v4.0-smc-resnet"
RUN = "result_5759-240517075402311260012_2"
FOLDER = "results/1xSMC-H100-SXM-80GB/resnet"
# The official summarizer's energy of this run (4.1.68 and the v4.0 tools agree).
OFFICIAL_ENERGY = 5433589.61836982


def package(tmp_path: Path, runs: int = 1) -> Path:
    """A package holding the real run `runs` times, each with its power folder."""
    root = tmp_path / "smc"
    folder = root / FOLDER
    for index in range(runs):
        name = RUN if index == 0 else f"{RUN}_copy{index}"
        (folder / "power" / name).mkdir(parents=True)
        shutil.copy(DATA / f"{RUN}.txt", folder / f"{name}.txt")
        shutil.copy(DATA / "node_1.txt", folder / "power" / name / "node_1.txt")
    return root


def findings(report, code: str):
    return [f for f in report.all_findings() if f.code == code]


def test_energy_of_a_real_run_matches_the_official_summarizer(tmp_path):
    report = check_package(package(tmp_path), ruleset="4.0.0")
    (result,) = report.results
    (run,) = result.energy.runs
    assert run.energy == OFFICIAL_ENERGY
    assert run.method == WINDOW
    assert run.node_files == [f"{FOLDER}/power/{RUN}/node_1.txt"]
    # node_1 alone: the official checker expects node_0 (it passes the real folder only because it
    # counts a plot named nodes_1_to_1.png as a second node file)
    (numbering,) = findings(report, "POWER_FILE_NUMBERING")
    assert numbering.severity == "warning"
    # one run has no olympic score, so neither has the energy
    assert result.energy.energy is None and result.energy.note == "the result has no time score"
    document = report.to_json()["results"][0]["energy"]
    assert document["runs"][0]["energy"] == OFFICIAL_ENERGY and document["unit"] == "J"


def test_result_energy_is_the_olympic_mean_of_the_counted_runs(tmp_path):
    report = check_package(package(tmp_path, runs=5), ruleset="4.0.0")
    (result,) = report.results
    assert [run.energy for run in result.energy.runs] == [OFFICIAL_ENERGY] * 5
    assert result.energy.mean == (OFFICIAL_ENERGY * 3) / 3
    assert result.energy.energy == result.energy.mean * result.rcp.scaling_factor


def test_missing_power_folder_of_one_run(tmp_path):
    root = package(tmp_path, runs=2)
    shutil.rmtree(root / FOLDER / "power" / f"{RUN}_copy1")
    report = check_package(root, ruleset="4.0.0")
    (missing,) = findings(report, "POWER_FOLDER_MISSING")
    assert missing.severity == "error" and missing.file == f"{FOLDER}/{RUN}_copy1.txt"


def test_inconsistent_node_counts(tmp_path):
    root = package(tmp_path, runs=3)
    shutil.copy(DATA / "node_1.txt", root / FOLDER / "power" / RUN / "node_0.txt")
    report = check_package(root, ruleset="4.0.0")
    (inconsistent,) = findings(report, "POWER_COUNT_INCONSISTENT")
    assert inconsistent.file == f"{FOLDER}/power/{RUN}" and inconsistent.expected == "1"


def write_node(root: Path, text: str) -> None:
    (root / FOLDER / "power" / RUN / "node_1.txt").write_text(text)


START = ':::MLLOG {"namespace": "", "time_ms": 1000, "event_type": "INTERVAL_START", "key": "power_measurement_start", "value": null, "metadata": ""}\n'
STOP = ':::MLLOG {"namespace": "", "time_ms": %d, "event_type": "INTERVAL_END", "key": "power_measurement_stop", "value": null, "metadata": ""}\n'


def reading(time_ms: int, value) -> str:
    return (
        f':::MLLOG {{"namespace": "", "time_ms": {time_ms}, "event_type": "POINT_IN_TIME", '
        f'"key": "power_reading", "value": {value}, "metadata": ""}}\n'
    )


def test_power_log_without_start(tmp_path):
    root = package(tmp_path)
    write_node(root, reading(2000, 100) + STOP % 3000)
    report = check_package(root, ruleset="4.0.0")
    assert findings(report, "POWER_NO_START")[0].severity == "error"
    assert report.results[0].energy.runs[0].energy is None


def test_power_log_with_a_text_reading(tmp_path):
    root = package(tmp_path)
    write_node(root, START + reading(2000, '"high"') + STOP % 3000)
    report = check_package(root, ruleset="4.0.0")
    (bad,) = findings(report, "POWER_BAD_VALUE")
    assert bad.line == 2 and bad.key == "power_reading"


def test_garbage_lines_are_skipped_with_a_warning(tmp_path):
    root = package(tmp_path)
    write_node(root, START + ":::MLLOG {broken\n" + reading(2000, 100) + reading(3000, 100) + STOP % 3000)
    report = check_package(root, ruleset="4.0.0")
    (bad,) = findings(report, "POWER_BAD_LINE")
    assert bad.line == 2 and bad.severity == "warning"
    run = report.results[0].runs[0]
    # 100 W over the whole 2 s window, scaled to the time to train: watts x ms / 1000 = joules
    assert report.results[0].energy.runs[0].energy == 100 * 2000 * run.time_to_train_ms / 2000 / 1000


def test_empty_window_is_computed_as_the_round_tools_did(tmp_path):
    root = package(tmp_path)
    # the real v4.0 defect: the stop line carries the start time, every reading lies after it
    write_node(root, START + reading(2000, 100) + reading(4000, 300) + STOP % 1000)
    report = check_package(root, ruleset="4.0.0")
    (empty,) = findings(report, "POWER_WINDOW_EMPTY")
    assert empty.severity == "warning"
    energy = report.results[0].energy.runs[0]
    run = report.results[0].runs[0]
    assert energy.method == ROUND_TOOLS
    assert energy.energy == (100 * 1000 + 300 * 2000) * run.time_to_train_ms / 3000 / 1000


def test_no_window_at_all_is_an_error(tmp_path):
    root = package(tmp_path)
    write_node(root, START + STOP % 1000)
    report = check_package(root, ruleset="4.0.0")
    assert findings(report, "POWER_WINDOW_EMPTY")[0].severity == "error"
    assert report.results[0].energy.runs[0].energy is None


def test_switch_file_adds_interconnect_power(tmp_path):
    root = package(tmp_path)
    (root / FOLDER / "power" / RUN / "sw_0.txt").write_text(
        ':::MLLOG {"namespace": "", "time_ms": 1, "event_type": "POINT_IN_TIME", '
        '"key": "interconnect_power_est", "value": 16100, "metadata": {"switch_id": "sw_01"}}\n'
    )
    report = check_package(root, ruleset="4.0.0")
    energy = report.results[0].energy.runs[0]
    run = report.results[0].runs[0]
    assert energy.switch_files == [f"{FOLDER}/power/{RUN}/sw_0.txt"]
    assert energy.energy == OFFICIAL_ENERGY + 16100 * run.time_to_train_ms / 1000


def test_reading_too_large_for_a_float(tmp_path):
    root = package(tmp_path)
    write_node(root, START + reading(2000, 10**400) + STOP % 3000)
    report = check_package(root, ruleset="4.0.0")
    assert findings(report, "POWER_BAD_VALUE")


def test_binary_power_file(tmp_path):
    root = package(tmp_path)
    (root / FOLDER / "power" / RUN / "node_1.txt").write_bytes(b"\x00\xff\xfe" * 1000)
    report = check_package(root, ruleset="4.0.0")
    assert findings(report, "POWER_NO_START")


# -- fuzz: power logs and instance sizes as an upload can break them ------------------------------

REAL_NODE_LINES = (DATA / "node_1.txt").read_bytes().splitlines(keepends=True)[:6] + (
    DATA / "node_1.txt"
).read_bytes().splitlines(keepends=True)[-2:]
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=5,
)


def mutated_line(line: bytes, value: object, cut: int) -> bytes:
    """A real line with its value replaced (any JSON) and cut at some byte."""
    text = line.decode()
    if '"value": ' in text:
        head, _, rest = text.partition('"value": ')
        text = head + '"value": ' + json.dumps(value) + rest[rest.index(",") :]
    return text.encode()[: max(cut, 0)] if cut < len(text) else text.encode()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    lines=st.lists(
        st.tuples(st.sampled_from(REAL_NODE_LINES), JSON_VALUES, st.integers(0, 300)), max_size=12
    ),
    junk=st.binary(max_size=40),
    time_to_train=st.floats(min_value=0, max_value=1e9) | st.integers(0, 10**12),
)
def test_power_logs_never_crash(lines, junk, time_to_train, tmp_path):
    data = b"".join(mutated_line(line, value, cut) + b"\r\n" for line, value, cut in lines) + junk
    (tmp_path / "node_0.txt").write_bytes(data)
    (tmp_path / "sw_0.txt").write_bytes(data)
    package = Package(tmp_path, "x", "standard", {}, [], [])
    findings: list = []
    records = read_power_file(package, "node_0.txt", findings)
    energy, _ = node_energy("node_0.txt", records, time_to_train, findings)
    switch = switch_energy("sw_0.txt", records, time_to_train, findings)
    assert energy is None or isinstance(energy, float)
    assert switch is None or isinstance(switch, float | int)
    assert all(
        f.checker == "power" and f.severity in SEVERITIES and f.code.startswith("POWER_") for f in findings
    )


@given(nodes=JSON_VALUES | st.text(max_size=8), accelerators=JSON_VALUES | st.text(max_size=8))
def test_instance_scale_never_crashes(nodes, accelerators):
    run = RunLog(file="r.txt", number_of_nodes=nodes, accelerators_per_node=accelerators)
    scale = instance_scale(run)
    assert scale is None or isinstance(scale, int)
