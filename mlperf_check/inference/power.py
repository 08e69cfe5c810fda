"""Power results: the power analyzer's samples (`spl.txt`) of the timed run, inside LoadGen's window.

A result with power has, next to `performance/run_1/` (its timed run, plus `spl.txt`), a ranging
run in `performance/ranging/` (summary, detail, `spl.txt`) and the PTDaemon logs in
`performance/power/` (client/server JSON and logs, `ptd_logs.txt`). The figure, as the official
checker computes it: the mean of the positive samples strictly between the detail log's
`power_begin` and `power_end` (Watts, for Offline, Server and Interactive), or that mean times the
window's length per query (millijoules per query, SingleStream and MultiStream; times 8 samples
for a MultiStream result inferred from a SingleStream run). `spl.txt` is streamed.

`spl.txt` lines: `Time,<MM-DD-YYYY HH:MM:SS.fff>,Watts,<w>,Volts,<v>,Amps,<a>,PF,<pf>,Mark,<mark>`.

The Power WG's own check (power_checker.py, beside each round's checker; its tables are the round's
`power_check`): client.json and server.json name the same session and UUIDs, their phases agree
within the round's tolerance, each LoadGen run (ranging, testing) lies inside its measured phase,
and the testing run's mean power is not more than 5 % below the ranging run's; then
`power_wg_findings`: the PTDaemon client and server sources are a release the round lists (sha1
per file, `sources_checksums.json`), the files of the session hash to what client.json and
server.json recorded (sha1), the client's and server's messages agree, PTDaemon's version,
analyzer model, replies and configuration are supported, and the server did not run in debug
mode; and `ptd_logs.txt` is read as its check_ptd_logs reads it (`_ptd_log_problem`). Where the
round's checker runs that check only on request (v3.0: --more-power-check; v2.1: the power-dev
submodule's check.py, with the same option, so no Power WG table here), its findings and the session
checks are warnings, and v2.1 reports the ERROR lines of `ptd_logs.txt` as a warning. The ranging
comparison came with v3.1's power_checker.py: for v2.1 and v3.0 it is a warning of ours.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import field
from datetime import UTC, datetime
from pathlib import Path

from mlperf_check.lean_dataclass import dataclass

TIME_FORMAT = "%m-%d-%Y %H:%M:%S.%f"
RUN_FILES = ("mlperf_log_summary.txt", "mlperf_log_detail.txt", "spl.txt")
PTD_FILES = ("client.json", "client.log", "ptd_logs.txt", "server.json", "server.log")
SESSION_FIELDS = (
    "version",
    "timezone",
    "modules",
    "sources",
    "messages",
    "uuid",
    "session_name",
    "results",
    "phases",
)
PHASE_TOLERANCE_S = 0.8  # client and server clocks of one phase, where the round has no Power WG table
# Testing-run power may not fall this many percent (or more) below the ranging run's: the Power WG's
# limit from v3.1, applied as a warning of ours where the round's check has none (v2.1, v3.0).
RANGING_DROP_PERCENT = -5


@dataclass
class PowerMeasurement:
    value: float | None = None  # Watts or millijoules per query
    samples: int = 0
    # (code, message, file relative to the performance/ folder)
    errors: list[tuple[str, str, str]] = field(default_factory=list)
    warnings: list[tuple[str, str, str]] = field(default_factory=list)


def _time(text: str) -> datetime | None:
    """`MM-DD-YYYY HH:MM:SS.fff` (the analyzer's and LoadGen's power clock); sliced by hand, as
    spl.txt has a line per sample and strptime is slow."""
    text = text.strip()
    try:
        if len(text) >= 20 and text[2] == text[5] == "-" and text[10] == " " and text[19] == ".":
            fraction = text[20:26].ljust(6, "0")
            return datetime(
                int(text[6:10]), int(text[0:2]), int(text[3:5]),
                int(text[11:13]), int(text[14:16]), int(text[17:19]), int(fraction),
            )  # fmt: skip
        return datetime.strptime(text, TIME_FORMAT)
    except ValueError:
        return None


def measure_power(
    run_dir: Path, detail, scenario: str, inferred_from: str, wg_check: dict | None = None
) -> PowerMeasurement:
    """`run_dir` is performance/run_1; `detail` its parsed detail log; `wg_check` the round's
    Power WG check (official_rules_data `power_check`), None where the round has none."""
    out = PowerMeasurement()
    performance = run_dir.parent
    for folder, names in (
        (run_dir, ("spl.txt",)),
        (performance / "ranging", RUN_FILES),
        (performance / "power", PTD_FILES),
    ):
        for name in names:
            if not (folder / name).is_file():
                out.errors.append(
                    (
                        "power_file_missing",
                        f"{name} missing from {folder.name}/ (power results need it)",
                        folder.name,
                    )
                )
    begin, end = _time(detail.power.get("power_begin", "")), _time(detail.power.get("power_end", ""))
    if begin is None or end is None:
        out.errors.append(
            ("power_window_missing", "the detail log has no power_begin/power_end", run_dir.name)
        )
        return out
    if out.errors:
        return out
    average, out.samples = _mean_power(run_dir / "spl.txt", begin, end)
    if out.samples == 0:
        out.errors.append(
            (
                "power_no_samples",
                f"spl.txt has no power sample between {begin} and {end}",
                f"{run_dir.name}/spl.txt",
            )
        )
        return out
    session = PowerMeasurement()
    try:
        _session_checks(session, performance, run_dir, (begin, end), average, wg_check)
    except (TypeError, KeyError, IndexError, AttributeError, ValueError) as exc:
        # A session file with the fields but not their shape (uuid not an object, a phase not
        # a [time, ...] pair): reported, never a crash.
        session.errors.append(
            ("power_session", f"client.json/server.json are not PTDaemon session files ({exc!r})", "power")
        )
    if wg_check is None or not wg_check["by_default"]:
        # The round's checker runs the Power WG check only when told to (--more-power-check: v3.0
        # its power_checker.py, v2.1 the power-dev submodule's check.py, which has no table here).
        on_request = " (the round's checker runs the Power WG check only with --more-power-check)"
        session.warnings += [(code, message + on_request, file) for code, message, file in session.errors]
        session.errors = []
    out.errors += session.errors
    out.warnings += session.warnings
    if scenario in ("SingleStream", "MultiStream"):
        queries = detail.results.get("result_query_count")
        if not isinstance(queries, int | float) or queries <= 0:
            out.errors.append(
                ("power_no_query_count", "no result_query_count to divide the energy by", run_dir.name)
            )
            return out
        energy_mj = average * (end - begin).total_seconds() * 1000
        per_query = 8 if scenario == "MultiStream" and inferred_from == "SingleStream" else 1
        out.value = energy_mj * per_query / int(queries)
    else:
        out.value = average
    return out


def _mean_power(spl: Path, begin: datetime, end: datetime) -> tuple[float, int]:
    """The mean of the positive Watts samples strictly inside (begin, end), and their count."""
    total, count = 0.0, 0
    with spl.open("rb") as stream:
        for raw in stream:
            if not raw.startswith(b"Time"):
                continue
            parts = raw.decode("utf-8", errors="replace").split(",")
            if len(parts) < 4:
                continue
            stamp = _time(parts[1])
            if stamp is None or not begin < stamp < end:
                continue
            try:
                watts = float(parts[3])
            except ValueError:
                continue
            if watts > 0:
                total += watts
                count += 1
    return (total / count if count else 0.0), count


def _window(path: Path) -> tuple[datetime, datetime] | None:
    """power_begin/power_end of a detail log, read without parsing the whole log."""
    found: dict[str, datetime | None] = {}
    with path.open("rb") as stream:
        for raw in stream:
            for key in (b"power_begin", b"power_end"):
                if key in raw:
                    try:
                        value = json.loads(raw.split(b":::MLLOG ", 1)[-1])["value"]
                    except (ValueError, KeyError, TypeError):
                        continue
                    found[key.decode()] = _time(str(value))
            if len(found) == 2:
                break
    begin, end = found.get("power_begin"), found.get("power_end")
    return (begin, end) if begin and end else None


def _session(path: Path, out: PowerMeasurement) -> dict | None:
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError) as exc:
        out.errors.append(
            ("power_session", f"{path.name} is not readable JSON ({exc})", f"power/{path.name}")
        )
        return None
    absent = (
        [name for name in SESSION_FIELDS if name not in data]
        if isinstance(data, dict)
        else list(SESSION_FIELDS)
    )
    if absent:
        out.errors.append(("power_session", f"{path.name} lacks {', '.join(absent)}", f"power/{path.name}"))
        return None
    return data


def _session_checks(
    out: PowerMeasurement, performance: Path, run_dir: Path, testing, testing_watts: float, wg_check: dict | None
) -> None:
    power = performance / "power"
    client, server = _session(power / "client.json", out), _session(power / "server.json", out)
    if client is None or server is None:
        return
    tolerance_s = wg_check["time_tolerance_ms"] / 1000 if wg_check else PHASE_TOLERANCE_S
    if wg_check is not None:
        out.errors += power_wg_findings(performance, client, server, wg_check)
    for key in ("client", "server"):
        if str(client["uuid"].get(key)) != str(server["uuid"].get(key)):
            out.errors.append(
                ("power_session", f"client.json and server.json differ in the {key} uuid", "power")
            )
    if client["session_name"] != server["session_name"]:
        out.errors.append(("power_session", "client.json and server.json name different sessions", "power"))
    ranging = _window(performance / "ranging" / "mlperf_log_detail.txt")
    for mode, window in (("ranging", ranging), ("testing", testing)):
        phases_c, phases_s = client["phases"].get(mode, []), server["phases"].get(mode, [])
        if len(phases_c) != len(phases_s) or len(phases_c) < 3:
            out.errors.append(
                ("power_phases", f"the {mode} phases of client.json and server.json differ", "power")
            )
            continue
        for number, (c, s) in enumerate(zip(phases_c, phases_s, strict=True), start=1):
            if abs(c[0] - s[0]) > tolerance_s:
                out.errors.append(
                    (
                        "power_phases",
                        f"{mode} phase {number}: client and server clocks differ by more than "
                        f"{tolerance_s * 1000:.0f} ms",
                        "power",
                    )
                )
        if window is None:
            out.errors.append(
                ("power_window_missing", f"the {mode} detail log has no power_begin/power_end", mode)
            )
            continue
        start, stop = phases_c[1][0], phases_c[2][0]
        for what, moment in zip(("begin", "end"), window, strict=True):
            stamp = moment.replace(tzinfo=UTC).timestamp()
            # The Power WG's one-hour allowance for daylight-saving changes.
            if not (start < stamp < stop or start < stamp - 3600 < stop):
                out.errors.append(
                    (
                        "power_outside_phase",
                        f"the LoadGen {mode} run's {what} is outside its measured phase",
                        mode,
                    )
                )
    if ranging is not None:
        ranging_watts, samples = _mean_power(performance / "ranging" / "spl.txt", *ranging)
        round_limit = wg_check["ranging_power_drop_percent"] if wg_check else None
        limit = RANGING_DROP_PERCENT if round_limit is None else round_limit
        if samples and testing_watts:
            delta = round((round(testing_watts, 5) / round(ranging_watts, 5) - 1) * 100, 2)
            if delta <= limit:
                message = (
                    f"testing-run power {testing_watts:.2f} W is {-delta:.2f} % below the ranging run's "
                    f"{ranging_watts:.2f} W (at most {-limit} %)"
                )
                if round_limit is None:
                    message += " (a Power WG rule from v3.1: the round's checker does not compare the runs)"
                    out.warnings.append(("power_below_ranging", message, run_dir.name))
                else:
                    out.errors.append(("power_below_ranging", message, run_dir.name))
    ptd = power / "ptd_logs.txt"
    if wg_check is not None:
        problem = _ptd_log_problem(ptd, str(server["session_name"]), testing, wg_check)
        if problem is not None:
            (out.errors if problem[0] == "power_ptd_log" else out.warnings).append(problem)
        return
    errors = [
        line for line in ptd.read_bytes().decode("utf-8", errors="replace").splitlines() if ": ERROR:" in line
    ]
    if errors:
        out.warnings.append(
            (
                "ptd_errors",
                f"ptd_logs.txt has {len(errors)} ERROR lines (first: {errors[0].strip()[:160]})",
                "power/ptd_logs.txt",
            )
        )


PTD_TIME = re.compile(r"(^\d\d-\d\d-\d\d\d\d \d\d:\d\d:\d\d.\d\d\d)")
PTD_UNCERTAINTY_ON = re.compile(r"Uncertainty checking for Yokogawa\S+ is activated")


def _ptd_log_problem(path: Path, session_name: str, testing, check: dict) -> tuple[str, str, str] | None:
    """ptd_logs.txt as power_checker.py's check_ptd_logs reads it: the ranging run (from "Go with mark
    '<session>_ranging'" to "Completed test") is found, uncertainty checking was on before it, then
    the first WARNING or ERROR line that matters decides: an ERROR outside the ranging run (but a
    USB one) or a listed testing-run WARNING is an error (`power_ptd_log`); an ERROR of the ranging
    run other than the known ones, a USB error or a testing-run WARNING is a warning (`ptd_errors`)
    and ends the reading, as there. The testing window is LoadGen's power_begin/power_end with the
    checker's tolerance added in seconds (its 800 is meant as ms; reproduced)."""
    file = "power/ptd_logs.txt"
    lines = path.read_bytes().decode("utf-8", errors="replace").splitlines()

    def stamp(line: str) -> float | None:
        found = PTD_TIME.search(line)
        moment = _time(found.group(0)) if found else None
        return None if moment is None else moment.replace(tzinfo=UTC).timestamp()

    start = stop = None
    go = f": Go with mark {session_name + '_ranging'!r}"
    for line in lines:
        # Only a line ending in either message can match; stamping every line is the slow part.
        if not line.rstrip().endswith((go, ": Completed test")):
            continue
        at = stamp(line)
        message = line[23:].strip() if at is not None else line
        if start is None and message == go:
            start = at
        if start is not None and message == ": Completed test":
            stop = at
            break
    if start is None or stop is None:
        return ("power_ptd_log", "ptd_logs.txt: cannot find the ranging run (Go with mark ... Completed test)", file)
    uncertainty = next((line for line in lines if PTD_UNCERTAINTY_ON.search(line)), None)
    if uncertainty is None:
        return ("power_ptd_log", "ptd_logs.txt: 'Uncertainty checking for Yokogawa... is activated' is not found", file)
    if stamp(uncertainty) is None or not stamp(uncertainty) < start:
        return ("power_ptd_log", "ptd_logs.txt: uncertainty checking was activated after the ranging run started", file)
    tolerance = check["time_tolerance_ms"]
    load_start, load_stop = (moment.replace(tzinfo=UTC).timestamp() for moment in testing)
    for number, line in enumerate(lines, start=1):
        for marker in ("WARNING:", "ERROR:"):
            found = line.split(marker, 1)[1].strip() if marker in line else ""
            if not found:
                continue
            at = stamp(line)
            where = f"ptd_logs.txt line {number}: {line.strip()[:160]}"
            if at is None:
                return ("power_ptd_log", f"{where} (no time stamp)", file)
            if marker == "WARNING:":
                if load_start + tolerance < at < load_stop - tolerance:
                    if any(re.search(p, found) for p in check["ptd_testing_errors"]):
                        return ("power_ptd_log", f"{where} during the testing run", file)
                    return ("ptd_errors", f"{where} during the testing run", file)
                continue
            if found in check["ptd_common_errors"]:
                return ("ptd_errors", f"{where} (accepted)", file)
            if not start < at < stop:
                return ("power_ptd_log", f"{where} outside the ranging run", file)
            if not any(found.startswith(known) for known in check["ptd_ranging_common_errors"]):
                return ("ptd_errors", f"{where} during the ranging run", file)
    return None


# -- the Power WG's checks of the session files (power_checker.py) ------------------------------


def power_wg_findings(performance: Path, client: dict, server: dict, check: dict) -> list[tuple[str, str, str]]:
    """(code, message, file) for each Power WG check that fails, as power_checker.py decides it;
    `performance` is the session folder (power/, ranging/, run_1/)."""
    out: list[tuple[str, str, str]] = []
    for name, session in (("client.json", client), ("server.json", server)):
        problem = _sources_problem(session.get("sources"), check["sources_checksums"])
        if problem:
            out.append(("power_sources_checksum", f"{name}: {problem}", f"power/{name}"))
    out += [("power_results_checksum", message, "power") for message in _results_problems(performance, client, server, check)]
    out += [("power_messages", message, "power") for message in _messages_problems(client, server)]
    out += [("power_ptd", message, "power/server.json") for message in _ptd_problems(server, check)]
    if server.get("debug", False) is not False:
        out.append(("power_debug", "the PTDaemon server ran in debug mode", "power/server.json"))
    return out


def _sources_problem(sources, releases: list[dict]) -> str:
    """The PTDaemon client/server sources (file -> sha1) must be one release the round lists."""
    if sources in releases:
        return ""
    if not isinstance(sources, dict):
        return "its `sources` is not a file -> sha1 object"
    nearest = min(releases, key=lambda release: len(set(release.items()) ^ set(sources.items())))
    changed = sorted({*nearest, *sources} - {k for k in nearest if nearest.get(k) == sources.get(k)})
    return (
        "the PTDaemon client/server sources are not a release this round accepts (sources_checksums.json); "
        f"nearest release differs in {', '.join(changed[:6])}{' ...' if len(changed) > 6 else ''}"
    )


def _sha1(path: Path) -> str:
    digest = hashlib.sha1()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _results_problems(performance: Path, client: dict, server: dict, check: dict) -> list[str]:
    """The session's files hash (sha1) to what client.json and server.json recorded, on the
    files the round requires (client.json and server.json themselves are not recorded)."""
    required = [p for p in check["result_paths"] if p not in ("power/client.json", "power/server.json")]
    recorded_c = {k: v for k, v in dict(client["results"]).items() if k in required}
    recorded_s = {k: v for k, v in dict(server["results"]).items() if k in required}
    on_disk = {p: _sha1(performance / p) for p in required if (performance / p).is_file()}
    out = [f"client.json and server.json record different sha1 for {path}"
           for path in sorted(recorded_c) if path in recorded_s and recorded_c[path] != recorded_s[path]]
    recorded = {**recorded_c, **recorded_s}
    for path in sorted(set(required) - on_disk.keys()):
        where = "recorded in the session" if path in recorded else "required"
        out.append(f"{path} is {where} but not in the result")
    for path in sorted(set(required) - recorded.keys()):
        out.append(f"{path} is not recorded in client.json or server.json")
    for path in sorted(recorded.keys() & on_disk.keys()):
        if recorded[path] != on_disk[path]:
            out.append(f"{path} was changed after the measurement: sha1 {on_disk[path]}, recorded {recorded[path]}")
    return out


def _messages_problems(client: dict, server: dict) -> list[str]:
    """The client's and the server's message logs agree command by command (replies too, but the
    clock's), and the client and server are the same version."""
    mc, ms = client["messages"], server["messages"]
    if len(mc) != len(ms):
        return [f"client.json has {len(mc)} messages, server.json {len(ms)}"]
    for number, (c, s) in enumerate(zip(mc, ms, strict=True)):
        if c["cmd"] != s["cmd"]:
            return [f"message {number}: the client sent {c['cmd']!r}, the server received {s['cmd']!r}"]
        if c["cmd"] != "time" and c["reply"] != s["reply"]:
            return [f"message {number} ({c['cmd']!r}): the replies differ ({c['reply']!r} against {s['reply']!r})"]
    if not ms:
        return ["server.json has no messages"]
    versions = (re.search(r"mlcommons\/power client v(\d+)$", ms[0]["cmd"]),
                re.search(r"mlcommons\/power server v(\d+)$", ms[0]["reply"]))
    if None in versions:
        return [f"the first message names no client/server version ({ms[0]['cmd']!r} -> {ms[0]['reply']!r})"]
    if versions[0].group(1) != versions[1].group(1):
        return [f"client v{versions[0].group(1)} talked to server v{versions[1].group(1)}"]
    return []


PTD_REPLIES = (  # command prefix -> the reply PTDaemon gives in a normal session
    ("SR,A", "Range A changed"),
    ("SR,V", "Range V changed"),
    ("Go,1000,", "Starting untimed measurement, maximum 500000 samples at 1000ms with 0 rampup samples"),
    ("Stop", "Stopping untimed measurement"),
)


def _ptd_problems(server: dict, check: dict) -> list[str]:
    """PTDaemon's version and analyzer are supported, its replies are the expected ones, the
    ranges were set back to the initial ones, and its configuration names a supported device."""
    messages = server.get("ptd_messages")
    if not isinstance(messages, list) or len(messages) < 3:
        return ["server.json has no PTDaemon messages (ptd_messages)"]
    identify = next((m["reply"] for m in messages if m["cmd"] == "Identify"), "")
    if not identify:
        return ["PTDaemon gave no answer to 'Identify'"]
    out = []
    found = re.search(r"(?<=version=)(.+?)-", identify)
    version = found.group(1) if found else ""
    if version not in check["ptd_versions"]:
        out.append(f"PTDaemon version {version!r} is not supported (supported: {', '.join(check['ptd_versions'])})")
    model = identify.split(",")[0]
    if model not in check["analyzer_models"]:
        out.append(f"power analyzer {model!r} is not supported")
    for prefix, reply in PTD_REPLIES:
        stops = 0
        for message in messages:
            if not message["cmd"].startswith(prefix):
                continue
            expected = reply
            if message["cmd"] == "Stop":
                # The third Stop of a normal session finds nothing to stop.
                expected = "Error: no measurement to stop" if stops == 2 else reply
                stops += 1
            if message["reply"] != expected:
                out.append(f"PTDaemon replied {message['reply']!r} to {message['cmd']!r}, expected {expected!r}")
    ranges = messages[2]["reply"].split(",")
    for prefix, index, allowed in (("SR,A", 1, check.get("initial_amps_commands", [3])), ("SR,V", 3, [3])):
        initial = _initial_range(ranges, index)
        commands = [m["cmd"] for m in messages if m["cmd"].startswith(prefix)]
        # The nth command of the prefix (1-based) that may set the range back, as the round reads it.
        if initial is None or not any(commands[n - 1:n] == [f"{prefix},{initial}"] for n in allowed):
            out.append(f"the {prefix[-1]} range was not set back to its initial value ({prefix},{initial})")
    # One analyzer's settings (a dict), or from v5.1 a list of them, each checked (power_checker's
    # check_ptd_config iterates the list there).
    config = server.get("ptd_config") or {}
    for analyzer in config if isinstance(config, list) else [config]:
        analyzer = analyzer if isinstance(analyzer, dict) else {}
        device = analyzer.get("device_type")
        if device not in check["analyzer_models"].values():
            out.append(f"PTDaemon device number {device} is not supported")
        elif device == 77:  # a multichannel analyzer runs on two channels
            command = list(analyzer.get("command") or [])
            channels = command[command.index("-c") + 1] if "-c" in command[:-1] else ""
            if len(channels.split(",")) != 2 or not analyzer.get("channel") or len(analyzer["channel"]) != 2:
                out.append("a multichannel analyzer measured on one channel")
    return out


def _initial_range(reply: list[str], index: int) -> str | None:
    """PTDaemon's initial range from its `RR` reply: the value where the mode is 0, else Auto."""
    try:
        if reply[index] == "0" and float(reply[index + 1]) > 0:
            return reply[index + 1]
    except (ValueError, IndexError):
        return None
    return "Auto"
