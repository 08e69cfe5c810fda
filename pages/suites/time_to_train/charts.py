"""Training charts: a benchmark's time to train, scaling, batch size and Pareto front; a result's
convergence and run times; round over round. Built from plain values (no HTTP, no queries)."""

from __future__ import annotations

import math
from collections import defaultdict

from mlperf_check.rules.facts import version_key
from pages import charts as common
from pages.charts import Chart, benchmark_colour
from pages.normalised import View

STATUS_COLOURS = {"counted": "#0072B2", "dropped_fastest": "#E69F00", "dropped_slowest": "#E69F00",
                  "failed": "#D55E00"}


MINUTES_AXIS = "Minutes to train (log)"


def time_to_train(points: list[dict], benchmark: str, category_order: list[str] | None = None,
                  view: View | None = None) -> Chart:
    """One point per system: minutes (log) per division and category; in a normalised `view`
    its figure (the points' "normalised" value), titled as such.

    points: dicts with result_id, division, category (label), submitter, system, accelerator,
    accelerators, minutes (and normalised). category_order: the category labels in display order.
    """
    y = "normalised" if view and view.normalised else "minutes"
    rows = [p for p in points if common.number(p.get(y)) and p[y] > 0]
    rows.sort(key=lambda p: (p["division"], p["category"], p[y]))
    # Only the categories that hold a point take space on the axis.
    present = {p["category"] for p in rows}
    categories = [c for c in category_order if c in present] if category_order else sorted(present)
    traces = []
    for index, division in enumerate(sorted({p["division"] for p in rows}, key=lambda d: (d != "closed", d))):
        mine = [p for p in rows if p["division"] == division]
        # A strip of points per category, the divisions side by side (scattermode "group").
        traces.append({
            "type": "scatter",
            "mode": "markers",
            "name": f"{common.text(division or 'unknown')} division",
            "x": [p["category"] for p in mine],
            "y": [p[y] for p in mine],
            "text": [_system_hover(p) for p in mine],
            "customdata": [p["result_id"] for p in mine],
            "hovertemplate": "%{text}<br>%{y:.2f} " + (common.text(view.figure) if y == "normalised" else "min")
                             + "<extra></extra>",
            "marker": {"color": common.colour(index), "size": 8, "opacity": 0.7, "line": {"width": 0.5, "color": "#fff"}},
        })
    figure = {
        "data": traces,
        "layout": common.layout(
            f"{benchmark}: time to train by division and category"
            + (f" — normalised: {view.figure}" if y == "normalised" else ""),
            scattermode="group",
            # Category names on two or three short lines, never rotated: rotated, the longest
            # ("Research, development, or internal") took most of a phone-width chart.
            xaxis=common.axis("", categoryorder="array", categoryarray=categories, tickangle=0,
                        tickvals=categories, ticktext=[_wrapped(c) for c in categories]),
            yaxis=common.axis(f"{view.figure} (log)" if y == "normalised" else MINUTES_AXIS, log=True),
        ),
    }
    columns = ["result_id", "division", "category", "submitter", "system", "accelerator", "accelerators", "nodes",
               "minutes"]
    rows = [{k: p.get(k) for k in columns} | ({view.column: p[y]} if y == "normalised" else {}) for p in rows]
    if y == "normalised":
        columns.append(view.column)
    title = f"Time to train, normalised: {view.figure}" if y == "normalised" else "Time to train"
    return Chart("time-to-train", title, figure, columns, rows)


def _wrapped(label: str, width: int = 12) -> str:
    """A tick label broken into lines of about `width` characters (Plotly's <br>), escaped."""
    lines: list[str] = []
    for word in str(label).split():
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word)
    return "<br>".join(common.text(line) for line in lines)


def _system_hover(point: dict) -> str:
    accel = common.text(point.get("accelerator") or "?")
    count = point.get("accelerators") or "?"
    return (f"<b>{common.text(point['system'])}</b><br>{common.text(point['submitter'])} · {count} × {accel}"
            f"<br>{common.text(point['result_id'])}")


SCALING_COLUMNS = ["result_id", "division", "submitter", "system", "accelerator", "framework", "accelerators",
                   "minutes", "family_base_accelerators", "speedup", "efficiency"]


def scaling_rows(points: list[dict], colour_by: str = "accelerator") -> list[dict]:
    """The rows the scaling chart plots (SCALING_COLUMNS), in its order (by colour, then scale).
    Within a system family (division, submitter, accelerator, framework) seen at several scales:
    speedup and efficiency relative to the family's smallest scale. Divisions never mix: an
    open-division result may train a different model, so it is no point of comparison for a
    closed one."""
    rows: list[dict] = []
    families: dict[tuple, list[dict]] = defaultdict(list)
    for point in points:
        if common.number(point.get("minutes")) and point["minutes"] > 0 and (point.get("accelerators") or 0) > 0:
            row = {column: point.get(column) for column in SCALING_COLUMNS}
            rows.append(row)
            families[(point["division"], point["submitter"], point["accelerator"], point.get("framework", ""))].append(row)
    for members in families.values():
        base = min(members, key=lambda p: (p["accelerators"], p["minutes"]))
        several = len({m["accelerators"] for m in members}) > 1
        for p in members:
            scale = p["accelerators"] / base["accelerators"]
            p["speedup"] = round(base["minutes"] / p["minutes"], 3) if several else None
            p["efficiency"] = round(p["speedup"] / scale, 3) if several else None
            p["family_base_accelerators"] = base["accelerators"] if several else None
    key = "submitter" if colour_by == "submitter" else "accelerator"
    rows.sort(key=lambda p: (str(p[key]), p["accelerators"], p["minutes"]))
    return rows


def scaling_families(points: list[dict]) -> list[dict]:
    """The scaling rows of the results whose system family is seen at several scales (those with a
    speedup), as the benchmark pages list them: by submitter, accelerator and scale."""
    return sorted((p for p in scaling_rows(points) if p["speedup"] is not None),
                  key=lambda p: (p["submitter"], p["accelerator"], p["accelerators"], p["minutes"], p["result_id"]))


def scaling(points: list[dict], benchmark: str, colour_by: str = "accelerator", minutes_axis: str = MINUTES_AXIS) -> Chart:
    """Time to train against accelerator count (log-log), one trace per accelerator model or
    submitter (scaling_rows), with an ideal-scaling guide from the smallest-scale entry."""
    rows = scaling_rows(points, colour_by)
    key = "submitter" if colour_by == "submitter" else "accelerator"
    traces = []
    for index, group in enumerate(common.caseless_sorted({str(p[key]) for p in rows})):
        mine = [p for p in rows if str(p[key]) == group]
        traces.append({
            "type": "scatter",
            "mode": "markers",
            "name": common.text(common.legend_label(group or "unknown")),
            "x": [p["accelerators"] for p in mine],
            "y": [p["minutes"] for p in mine],
            "text": [_scaling_hover(p) for p in mine],
            "customdata": [p["result_id"] for p in mine],
            "hovertemplate": "%{text}<extra></extra>",
            "marker": {"color": common.colour(index), "size": 9, "opacity": 0.85, "line": {"width": 0.5, "color": "#333"}},
        })
    if rows:
        anchor = min(rows, key=lambda p: (p["accelerators"], p["minutes"]))
        largest = max(p["accelerators"] for p in rows)
        if largest > anchor["accelerators"]:
            traces.append({
                "type": "scatter",
                "mode": "lines",
                "name": "ideal scaling",
                "x": [anchor["accelerators"], largest],
                "y": [anchor["minutes"], anchor["minutes"] * anchor["accelerators"] / largest],
                "hoverinfo": "skip",
                "line": {"dash": "dot", "color": "#777", "width": 1.5},
            })
    figure = {
        "data": traces,
        "layout": common.layout(
            f"{benchmark}: scaling with accelerator count",
            xaxis=common.axis("Accelerators (log scale)", log=True),
            yaxis=common.axis(minutes_axis, log=True),
        ),
    }
    return Chart("scaling", "Scaling", figure, SCALING_COLUMNS, rows)


def _scaling_hover(point: dict) -> str:
    text = f"{_system_hover(point)}<br>{point['minutes']:.2f} min"
    if point.get("speedup") is not None:
        text += (f"<br>speedup {point['speedup']:.2f}× vs {point['family_base_accelerators']} accelerators,"
                 f" efficiency {point['efficiency']:.0%}")
    return text


def batch_size(points: list[dict], benchmark: str, unit: str) -> Chart:
    """Global batch size against epochs (or samples) to converge, one point per result."""
    rows = [p for p in points if (p.get("batch_size") or 0) > 0 and common.number(p.get("converge"))]
    rows.sort(key=lambda p: (p["division"], p["batch_size"]))
    traces = []
    for index, division in enumerate(sorted({p["division"] for p in rows}, key=lambda d: (d != "closed", d))):
        mine = [p for p in rows if p["division"] == division]
        traces.append({
            "type": "scatter",
            "mode": "markers",
            "name": f"{common.text(division or 'unknown')} division",
            "x": [p["batch_size"] for p in mine],
            "y": [p["converge"] for p in mine],
            "text": [_system_hover(p) for p in mine],
            "customdata": [p["result_id"] for p in mine],
            "hovertemplate": "%{text}<br>batch %{x:,}, %{y:,.4~g} " + unit + "<extra></extra>",
            "marker": {"color": common.colour(index), "size": 9, "opacity": 0.85},
        })
    figure = {
        "data": traces,
        "layout": common.layout(
            f"{benchmark}: global batch size against {unit} to converge",
            xaxis=common.axis("Global batch size (log scale)", log=True),
            yaxis=common.axis(f"{unit.capitalize()} to converge (olympic mean)", tickformat=",~g"),
        ),
    }
    columns = ["result_id", "division", "submitter", "system", "accelerator", "accelerators", "batch_size", "converge"]
    return Chart("batch-size", "Batch size", figure, columns, [{k: p.get(k) for k in columns} for p in rows])


def _mark_frontiers(rows: list[dict], cost: str, value: str) -> list[str]:
    """Each division's Pareto frontier, marked as `on_frontier` on `rows`: the rows no other row of
    the division beats on `value` (lower is better) for as much `cost` or less. Sorts `rows` by
    division, cost and value; returns the divisions, closed first."""
    divisions = sorted({p["division"] for p in rows}, key=lambda d: (d != "closed", d))
    for division in divisions:
        best_so_far = math.inf
        for p in sorted((p for p in rows if p["division"] == division), key=lambda p: (p[cost], p[value])):
            p["on_frontier"] = p[value] < best_so_far
            best_so_far = min(best_so_far, p[value])
    rows.sort(key=lambda p: (divisions.index(p["division"]), p[cost], p[value]))
    return divisions


def pareto(points: list[dict], benchmark: str) -> Chart:
    """Time to train against accelerator count, per division, with each division's Pareto frontier:
    the results no other result of the division beats with as many accelerators or fewer."""
    rows = [dict(p) for p in points
            if common.number(p.get("minutes")) and p["minutes"] > 0 and (p.get("accelerators") or 0) > 0]
    divisions = _mark_frontiers(rows, "accelerators", "minutes")
    traces = []
    for index, division in enumerate(divisions):
        mine = [p for p in rows if p["division"] == division]
        frontier = [p for p in mine if p["on_frontier"]]
        colour = common.colour(index)
        label = f"{common.text(division or 'unknown')} division"
        traces.append({
            "type": "scatter", "mode": "markers", "name": label, "legendgroup": label,
            "x": [p["accelerators"] for p in mine], "y": [p["minutes"] for p in mine],
            "text": [_system_hover(p) for p in mine], "customdata": [p["result_id"] for p in mine],
            "hovertemplate": "%{text}<br>%{y:.2f} min<extra></extra>",
            "marker": {"color": colour, "size": 8, "opacity": 0.55},
        })
        traces.append({
            "type": "scatter", "mode": "lines+markers", "name": f"{label}: frontier", "legendgroup": label,
            "x": [p["accelerators"] for p in frontier], "y": [p["minutes"] for p in frontier],
            "text": [_system_hover(p) for p in frontier], "customdata": [p["result_id"] for p in frontier],
            "hovertemplate": "%{text}<br>%{y:.2f} min (on the frontier)<extra></extra>",
            "line": {"color": colour, "shape": "hv", "width": 2}, "marker": {"color": colour, "size": 10},
        })
    figure = {
        "data": traces,
        "layout": common.layout(f"{common.text(benchmark)}: fastest for the accelerators used (Pareto frontier)",
                          xaxis=common.axis("Accelerators (log scale)", log=True),
                          yaxis=common.axis(MINUTES_AXIS, log=True)),
    }
    columns = ["result_id", "division", "submitter", "system", "accelerator", "accelerators", "minutes", "on_frontier"]
    return Chart("pareto", "Pareto frontier", figure, columns, [{k: p.get(k) for k in columns} for p in rows])


def energy(points: list[dict], benchmark: str, *, measure: str = "time to train",
           minutes_axis: str = MINUTES_AXIS) -> Chart:
    """Energy to train against time to train (training v4.0+, HPC), one trace per division, with
    each division's Pareto frontier: the results no other result beats on both time and energy."""
    rows = [dict(p) for p in points if common.number(p.get("minutes")) and common.number(p.get("energy"))]
    divisions = _mark_frontiers(rows, "minutes", "energy")
    for p in rows:
        p["megajoules"] = round(p["energy"] / 1e6, 6)
    traces = []
    for index, division in enumerate(divisions):
        mine = [p for p in rows if p["division"] == division]
        frontier = [p for p in mine if p["on_frontier"]]
        colour = common.colour(index)
        label = f"{common.text(division or 'unknown')} division"
        traces.append({
            "type": "scatter", "mode": "markers", "name": label, "legendgroup": label,
            "x": [p["minutes"] for p in mine], "y": [p["megajoules"] for p in mine],
            "text": [_system_hover(p) for p in mine], "customdata": [p["result_id"] for p in mine],
            "hovertemplate": "%{text}<br>%{x:.2f} min, %{y:.3f} MJ<extra></extra>",
            "marker": {"color": colour, "size": 9, "opacity": 0.7},
        })
        traces.append({
            "type": "scatter", "mode": "lines", "name": f"{label}: frontier", "legendgroup": label,
            "x": [p["minutes"] for p in frontier], "y": [p["megajoules"] for p in frontier], "hoverinfo": "skip",
            "line": {"color": colour, "shape": "hv", "width": 1.5, "dash": "dot"},
        })
    figure = {
        "data": traces,
        "layout": common.layout(f"{common.text(benchmark)}: energy against {measure}",
                                xaxis=common.axis(minutes_axis, log=True),
                                yaxis=common.axis("Energy to train (MJ, log)", log=True)),
    }
    columns = ["result_id", "division", "submitter", "system", "accelerator", "accelerators", "minutes", "energy",
               "megajoules", "on_frontier"]
    return Chart("energy", "Energy to train", figure, columns, [{k: p.get(k) for k in columns} for p in rows])


def _epochs_are_degenerate(runs: list[dict]) -> bool:
    """True when no run's evaluations advance in epoch/samples but they carry their time."""
    curves = [run["curve"] for run in runs if len(run["curve"]) > 1]
    return bool(curves) and all(
        len({point[0] for point in curve}) == 1 and all(len(point) >= 4 and point[3] is not None for point in curve)
        for curve in curves
    )


def convergence(runs: list[dict], *, metric: str, targets: dict[str, float], higher_is_better: bool) -> Chart:
    """Evaluation metric against epoch (or samples) for every run, the target line(s) and the point
    where each run first met the target.

    runs: dicts with run (label), scoring, curve ([[x, value, line, minutes], ...]; value may be a number or
    a dict of per-component values, e.g. BBOX/SEGM). targets: component -> target ("" for scalar).
    """
    # Some logs give every evaluation the same epoch (NVIDIA's BERT logs epoch_num 1 throughout):
    # then the evaluations are plotted against the minutes since run_start, which every point has.
    by_time = _epochs_are_degenerate(runs)
    rows: list[dict] = []
    for run in runs:
        for point in run["curve"]:
            if len(point) < 3 or (by_time and (len(point) < 4 or point[3] is None)):
                continue
            x, value, line = (point[3] if by_time else point[0]), point[1], point[2]
            components = value.items() if isinstance(value, dict) else [("", value)]
            for component, number in components:
                if common.number(x) is None or common.number(number) is None:
                    continue
                rows.append({"run": run["run"], "scoring": run["scoring"], "component": component,
                             "x": common.number(x), "value": common.number(number), "line": line, "crossed": False})
    series: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for row in rows:
        series[(row["run"], row["component"])].append(row)
    traces = []
    crossings: list[dict] = []
    run_names = list(dict.fromkeys(run["run"] for run in runs))
    for (run_name, component), points in series.items():
        points.sort(key=lambda r: r["x"])
        target = targets.get(component, targets.get(""))
        if target is not None:
            for point in points:
                if (point["value"] >= target) if higher_is_better else (point["value"] <= target):
                    point["crossed"] = True
                    crossings.append(point)
                    break
        dropped = points[0]["scoring"] != "counted"
        label = common.text(f"{run_name} {component}".strip())
        traces.append({
            "type": "scatter",
            "mode": "lines+markers",
            "name": label,
            "legendgroup": label,
            "x": [p["x"] for p in points],
            "y": [p["value"] for p in points],
            "customdata": [p["line"] for p in points],
            # The run's name comes in as %{fullData.name}: a file name is never read as a template.
            "hovertemplate": "%{fullData.name}<br>x=%{x:,}<br>" + common.text(metric)
                             + "=%{y:.4g}<br>log line %{customdata}<extra></extra>",
            "line": {"color": common.colour(run_names.index(run_name)), "width": 1.5,
                     "dash": "dot" if dropped else "solid"},
            "marker": {"size": 4},
        })
    if crossings:
        traces.append({
            "type": "scatter",
            "mode": "markers",
            "name": "target reached",
            "x": [p["x"] for p in crossings],
            "y": [p["value"] for p in crossings],
            "text": [common.text(f"{p['run']} {p['component']}".strip()) for p in crossings],
            "hovertemplate": "%{text} reached the target at x=%{x}<extra></extra>",
            "marker": {"symbol": "star", "size": 13, "color": "#D55E00", "line": {"width": 1, "color": "#fff"}},
        })
    shapes = []
    annotations = []
    for component, target in targets.items():
        if target is None:
            continue
        shapes.append({"type": "line", "xref": "paper", "x0": 0, "x1": 1, "y0": target, "y1": target,
                       "line": {"color": "#D55E00", "dash": "dash", "width": 1.5}})
        annotations.append({"xref": "paper", "x": 1, "y": target, "xanchor": "right", "yanchor": "bottom",
                            "showarrow": False, "text": f"target {component} {target:g}".replace("  ", " "),
                            "font": {"color": "#D55E00"}})
    figure = {
        "data": traces,
        "layout": common.layout(
            "Convergence of every run",
            xaxis=common.axis("Minutes since run_start" if by_time else "Epoch (or samples) at evaluation"),
            yaxis=common.axis(metric or "evaluation metric"),
            shapes=shapes,
            annotations=annotations,
        ),
    }
    rows.sort(key=lambda r: (run_names.index(r["run"]), r["component"], r["x"]))
    columns = ["run", "scoring", "component", "x", "value", "line", "crossed"]
    return Chart("convergence", "Convergence", figure, columns, rows)


def run_times(runs: list[dict]) -> Chart:
    """A strip of run times, coloured by how scoring treated each run (counted, dropped, failed)."""
    rows = [{"run": r["run"], "minutes": common.number(r.get("minutes")), "scoring": r["scoring"],
             "reason": r.get("reason", "")} for r in runs]
    plotted = [r for r in rows if r["minutes"] is not None]
    traces = []
    for status in ("counted", "dropped_fastest", "dropped_slowest", "failed"):
        mine = [r for r in plotted if r["scoring"] == status]
        if not mine:
            continue
        traces.append({
            "type": "scatter",
            "mode": "markers",
            "name": status.replace("_", " "),
            "x": [r["minutes"] for r in mine],
            "y": ["runs"] * len(mine),
            "text": [f"{common.text(r['run'])}<br>{common.text(r['reason'])}" if r["reason"] else common.text(r["run"]) for r in mine],
            "hovertemplate": "%{text}<br>%{x:.2f} min<extra></extra>",
            "marker": {"color": STATUS_COLOURS[status], "size": 14,
                       "symbol": "circle" if status == "counted" else "x" if status == "failed" else "circle-open",
                       "line": {"width": 2, "color": STATUS_COLOURS[status]}},
        })
    figure = {
        "data": traces,
        "layout": common.layout(
            "Run times (dropped runs hollow, failed runs crossed)",
            height=190,
            margin={"l": 20, "r": 20, "t": 36, "b": 40},
            xaxis=common.axis("Time to train (minutes)"),
            yaxis={"visible": False},
        ),
    }
    return Chart("run-times", "Run times", figure, ["run", "minutes", "scoring", "reason"], plotted)


def round_over_round(entries: list[dict], targets: list[dict], fixed_scale: int, *, measure: str = "time to train",
                     minutes_axis: str = MINUTES_AXIS) -> list[Chart]:
    """Progress across rounds of one suite, its minutes called `measure` (HPC: "time to solution").

    entries: visible results (at least each round's and benchmark's fastest, overall and at
    `fixed_scale`): round (version), benchmark, minutes, accelerators, system, submitter,
    result_id. targets: round, benchmark, target, metric.
    Returns three charts: best time per benchmark per round; speedup of the best entry at
    `fixed_scale` accelerators over the previous round; accelerator count of the fastest entry.
    Changes of quality target are marked on the first two: a hollow diamond on the line, a hatched
    bar (marks on the data points themselves: text labels of several benchmarks pile up).
    """
    rounds = sorted({e["round"] for e in entries} | {t["round"] for t in targets}, key=version_key)
    target_of = {(t["round"], t["benchmark"]): t["target"] for t in targets}
    best: dict[tuple[str, str], dict] = {}
    best_fixed: dict[tuple[str, str], dict] = {}
    for entry in entries:
        if not common.number(entry.get("minutes")):
            continue
        key = (entry["round"], entry["benchmark"])
        if key not in best or entry["minutes"] < best[key]["minutes"]:
            best[key] = entry
        if entry.get("accelerators") == fixed_scale and (
            key not in best_fixed or entry["minutes"] < best_fixed[key]["minutes"]
        ):
            best_fixed[key] = entry
    benchmarks = common.caseless_sorted({b for _, b in best})

    def target_changed(round_: str, benchmark: str) -> tuple[bool, str]:
        index = rounds.index(round_)
        if index == 0:
            return False, ""
        before, now = target_of.get((rounds[index - 1], benchmark)), target_of.get((round_, benchmark))
        if before is None or now is None or before == now:
            return False, ""
        return True, f"{benchmark}: target {before:g} → {now:g}"

    best_rows, fixed_rows, scale_rows = [], [], []
    best_traces, scale_traces, fixed_traces = [], [], []
    for benchmark in benchmarks:
        colour = benchmark_colour(benchmark)
        name = common.text(benchmark)
        mine = [(r, best[(r, benchmark)]) for r in rounds if (r, benchmark) in best]
        notes = [target_changed(round_, benchmark)[1] for round_, _ in mine]
        for round_, entry in mine:
            changed, note = target_changed(round_, benchmark)
            best_rows.append({"round": round_, "benchmark": benchmark, "minutes": entry["minutes"],
                              "result_id": entry["result_id"], "system": entry["system"],
                              "submitter": entry["submitter"], "accelerators": entry.get("accelerators"),
                              "quality_target": target_of.get((round_, benchmark)), "target_changed": changed})
            scale_rows.append({"round": round_, "benchmark": benchmark, "accelerators": entry.get("accelerators"),
                               "result_id": entry["result_id"], "system": entry["system"]})
        best_traces.append({
            "type": "scatter", "mode": "lines+markers", "name": name,
            "x": [f"v{r}" for r, _ in mine], "y": [e["minutes"] for _, e in mine],
            "text": [f"{common.text(e['system'])} ({common.text(e['submitter'])}), {e.get('accelerators') or '?'} accelerators"
                     + (f"<br>{common.text(note)}" if note else "") for (_, e), note in zip(mine, notes, strict=True)],
            "customdata": [e["result_id"] for _, e in mine],
            "hovertemplate": "%{fullData.name} %{x}: %{y:.2f} min<br>%{text}<extra></extra>",
            "line": {"color": colour},
            "marker": {"color": colour, "size": [11 if note else 6 for note in notes],
                       "symbol": ["diamond-open" if note else "circle" for note in notes]},
        })
        scale_traces.append({
            "type": "scatter", "mode": "lines+markers", "name": name,
            "x": [f"v{r}" for r, _ in mine], "y": [e.get("accelerators") for _, e in mine],
            "text": [common.text(e["system"]) for _, e in mine],
            "customdata": [e["result_id"] for _, e in mine],
            "hovertemplate": "%{fullData.name} %{x}: %{y} accelerators<br>%{text}<extra></extra>",
            "line": {"color": colour},
        })
        xs, ys, texts, hatches = [], [], [], []
        for position in range(1, len(rounds)):
            old, new = rounds[position - 1], rounds[position]
            if (old, benchmark) in best_fixed and (new, benchmark) in best_fixed:
                speedup = best_fixed[(old, benchmark)]["minutes"] / best_fixed[(new, benchmark)]["minutes"]
                changed, note = target_changed(new, benchmark)
                fixed_rows.append({"from_round": old, "to_round": new, "benchmark": benchmark,
                                   "accelerators": fixed_scale,
                                   "minutes_before": best_fixed[(old, benchmark)]["minutes"],
                                   "minutes_after": best_fixed[(new, benchmark)]["minutes"],
                                   "speedup": round(speedup, 3), "target_changed": changed})
                xs.append(f"v{old} → v{new}")
                ys.append(round(speedup, 3))
                texts.append(common.text(note) or "same quality target")
                hatches.append("/" if changed else "")
        if xs:
            fixed_traces.append({"type": "bar", "name": name, "x": xs, "y": ys, "customdata": texts,
                                 "texttemplate": "%{y:.2f}×", "textposition": "outside",
                                 "hovertemplate": "%{fullData.name} %{x}: %{y:.2f}×<br>%{customdata}<extra></extra>",
                                 "marker": {"color": colour, "pattern": {"shape": hatches}}})
    round_labels = [f"v{r}" for r in rounds]
    best_chart = Chart("best-time", f"Best {measure} per round", {
        "data": best_traces,
        "layout": common.layout(f"Best {measure} per benchmark and round",
                          xaxis=common.axis("Round", categoryorder="array", categoryarray=round_labels),
                          yaxis=common.axis(minutes_axis, log=True)),
    }, ["round", "benchmark", "minutes", "result_id", "system", "submitter", "accelerators", "quality_target",
        "target_changed"], best_rows)
    fixed_chart = Chart("fixed-scale-speedup", f"Speedup at {fixed_scale} accelerators", {
        "data": fixed_traces,
        "layout": common.layout(f"Speedup of the best {fixed_scale}-accelerator entry over the previous round",
                          barmode="group",
                          xaxis=common.axis("Rounds compared", categoryorder="array",
                                      categoryarray=[f"v{rounds[i - 1]} → v{rounds[i]}" for i in range(1, len(rounds))]),
                          yaxis=common.axis("Speedup (×)"),
                          shapes=[{"type": "line", "xref": "paper", "x0": 0, "x1": 1, "y0": 1, "y1": 1,
                                   "line": {"color": "#777", "dash": "dot"}}]),
    }, ["from_round", "to_round", "benchmark", "accelerators", "minutes_before", "minutes_after", "speedup",
        "target_changed"], fixed_rows)
    scale_chart = Chart("fastest-scale", "Scale of the fastest entry", {
        "data": scale_traces,
        "layout": common.layout("Accelerator count of the fastest entry",
                          xaxis=common.axis("Round", categoryorder="array", categoryarray=round_labels),
                          yaxis=common.axis("Accelerators (log scale)", log=True)),
    }, ["round", "benchmark", "accelerators", "result_id", "system"], scale_rows)
    return [best_chart, fixed_chart, scale_chart]


def headlines(entries: list[dict], targets: list[dict], *, measure: str = "time to train",
              minutes_axis: str = MINUTES_AXIS) -> Chart:
    """The newest round's best time per benchmark beside the previous round's best: what changed.

    entries and targets as for round_over_round. Rows: one per benchmark of the newest round, with
    its change ("1.8× faster", "new benchmark", "quality target changed: not comparable").
    """
    rounds = sorted({e["round"] for e in entries if common.number(e.get("minutes"))}, key=version_key)
    if not rounds:
        return Chart("headlines", "Newest round", {"data": [], "layout": common.layout("")}, [], [])
    newest = rounds[-1]
    previous = rounds[-2] if len(rounds) > 1 else None
    target_of = {(t["round"], t["benchmark"]): t["target"] for t in targets}
    best: dict[tuple[str, str], dict] = {}
    for entry in entries:
        key = (entry["round"], entry["benchmark"])
        if common.number(entry.get("minutes")) and (key not in best or entry["minutes"] < best[key]["minutes"]):
            best[key] = entry
    rows = []
    for benchmark in common.caseless_sorted({b for r, b in best if r == newest}):
        now = best[(newest, benchmark)]
        before = best.get((previous, benchmark)) if previous else None
        same_target = before is not None and target_of.get((previous, benchmark)) == target_of.get((newest, benchmark))
        if before is None:
            change = "new benchmark" if previous else ""
        elif not same_target:
            change = "quality target changed: not comparable"
        else:
            change = f"{before['minutes'] / now['minutes']:.2f}× faster" if now["minutes"] <= before["minutes"] \
                else f"{now['minutes'] / before['minutes']:.2f}× slower"
        rows.append({"benchmark": benchmark, "round": newest, "minutes": now["minutes"], "system": now["system"],
                     "submitter": now["submitter"], "accelerators": now.get("accelerators"),
                     "result_id": now["result_id"], "previous_round": previous if before else None,
                     "previous_minutes": before["minutes"] if before else None, "change": change})
    names = [common.text(r["benchmark"]) for r in rows]
    traces = []
    compared = [r for r in rows if r["previous_minutes"] is not None]
    if compared:
        traces.append({
            "type": "bar", "orientation": "h", "name": f"best in v{common.text(previous)}",
            "y": [common.text(r["benchmark"]) for r in compared], "x": [r["previous_minutes"] for r in compared],
            "marker": {"color": "#c5ccd6"}, "hovertemplate": "%{y}: %{x:.2f} min<extra>%{fullData.name}</extra>",
        })
    traces.append({
        "type": "bar", "orientation": "h", "name": f"best in v{common.text(newest)}",
        "y": names, "x": [r["minutes"] for r in rows],
        "text": [f"{r['minutes']:,.2f} min · {common.text(r['change'])}".rstrip(" ·") for r in rows],
        "textposition": "auto",
        "customdata": [r["result_id"] for r in rows],
        "hovertext": [f"{common.text(r['system'])} ({common.text(r['submitter'])}), {r['accelerators'] or '?'} accelerators"
                      for r in rows],
        "hovertemplate": "%{y}: %{x:.2f} min<br>%{hovertext}<extra></extra>",
        "marker": {"color": [benchmark_colour(r["benchmark"]) for r in rows]},
    })
    figure = {
        "data": traces,
        "layout": common.layout(f"v{common.text(newest)}: best {measure} per benchmark" + (f", against v{common.text(previous)}" if previous
                                                                            else ""),
                          barmode="group", height=max(260, 60 + 34 * len(rows)), showlegend=bool(compared),
                          xaxis=common.axis(minutes_axis, log=True),
                          yaxis=common.axis("", autorange="reversed", categoryorder="array", categoryarray=names)),
    }
    columns = ["benchmark", "round", "minutes", "system", "submitter", "accelerators", "result_id", "previous_round",
               "previous_minutes", "change"]
    return Chart("headlines", f"Newest round (v{newest})", figure, columns, rows)
