"""Plotly figures as plain dicts, built from plain values (no HTTP, no queries).

Every builder returns a `Chart`: the figure and the rows it plots, so the chart's CSV is exactly
what is drawn. Views gather the values with querysets and embed `chart.figure` with json_script;
static/js/charts.js hands it to Plotly.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass

from mlperf_check.rules.catalog import version_key

# Colour-blind-safe palette (Okabe-Ito), then Plotly's default cycle.
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000",
           "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"]
STATUS_COLOURS = {"counted": "#0072B2", "dropped_fastest": "#E69F00", "dropped_slowest": "#E69F00",
                  "failed": "#D55E00"}
FONT = {"family": "system-ui, -apple-system, Segoe UI, sans-serif", "size": 12}


@dataclass
class Chart:
    name: str
    title: str
    figure: dict
    columns: list[str]
    rows: list[dict]

    @property
    def empty(self) -> bool:
        return not self.rows

    @property
    def script_id(self) -> str:
        """The id of the json_script element that holds the figure on a page."""
        return f"figure-{self.name}"


def _layout(title: str, **extra) -> dict:
    layout = {
        "title": {"text": title, "x": 0, "xanchor": "left", "font": {"size": 14}},
        "font": FONT,
        "margin": {"l": 60, "r": 20, "t": 40, "b": 50},
        "hovermode": "closest",
        "plot_bgcolor": "#fff",
        "paper_bgcolor": "#fff",
    }
    layout.update(extra)
    return layout


def _axis(title: str, log: bool = False, **extra) -> dict:
    axis = {"title": {"text": title}, "gridcolor": "#e5e8ee", "zeroline": False, "automargin": True}
    if log:
        # Label 1, 2 and 5 of each decade only: full minor labels crowd small charts.
        axis.update({"type": "log", "dtick": "D2"})
    axis.update(extra)
    return axis


def _colour(index: int) -> str:
    return PALETTE[index % len(PALETTE)]


def _number(value) -> float | None:
    """A finite float, or None (logs may hold strings such as "NaN")."""
    if isinstance(value, bool):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


# --- Benchmark charts -------------------------------------------------------------------------


def time_to_train(points: list[dict], benchmark: str, category_order: list[str] | None = None) -> Chart:
    """One point per system: minutes (log) per division and category.

    points: dicts with result_id, division, category (label), submitter, system, accelerator,
    accelerators, minutes. category_order: the category labels in display order.
    """
    rows = [p for p in points if _number(p.get("minutes")) and p["minutes"] > 0]
    rows.sort(key=lambda p: (p["division"], p["category"], p["minutes"]))
    traces = []
    for index, division in enumerate(sorted({p["division"] for p in rows}, key=lambda d: (d != "closed", d))):
        mine = [p for p in rows if p["division"] == division]
        traces.append({
            "type": "box",
            "name": f"{division or 'unknown'} division",
            "x": [p["category"] for p in mine],
            "y": [p["minutes"] for p in mine],
            "text": [_system_hover(p) for p in mine],
            "customdata": [p["result_id"] for p in mine],
            "hovertemplate": "%{text}<br>%{y:.2f} min<extra></extra>",
            "boxpoints": "all",
            "jitter": 0.6,
            "pointpos": 0,
            "hoveron": "points",
            "fillcolor": "rgba(0,0,0,0)",
            "line": {"color": "rgba(0,0,0,0)"},
            "marker": {"color": _colour(index), "size": 8, "opacity": 0.85},
        })
    figure = {
        "data": traces,
        "layout": _layout(
            f"{benchmark}: time to train by division and category",
            boxmode="group",
            xaxis=_axis("", **({"categoryorder": "array", "categoryarray": category_order} if category_order else {})),
            yaxis=_axis("Time to train (minutes, log scale)", log=True),
        ),
    }
    columns = ["result_id", "division", "category", "submitter", "system", "accelerator", "accelerators", "minutes"]
    return Chart("time-to-train", "Time to train", figure, columns, [{k: p.get(k) for k in columns} for p in rows])


def _system_hover(point: dict) -> str:
    accel = point.get("accelerator") or "?"
    count = point.get("accelerators") or "?"
    return f"<b>{point['system']}</b><br>{point['submitter']} · {count} × {accel}<br>{point['result_id']}"


def scaling(points: list[dict], benchmark: str, colour_by: str = "accelerator") -> Chart:
    """Time to train against accelerator count (log-log), one trace per accelerator model or
    submitter, with an ideal-scaling guide from the smallest-scale entry. Within a system family
    (submitter, accelerator, framework) seen at several scales: speedup and efficiency relative to
    the family's smallest scale."""
    rows = [dict(p) for p in points
            if _number(p.get("minutes")) and p["minutes"] > 0 and (p.get("accelerators") or 0) > 0]
    families: dict[tuple, list[dict]] = defaultdict(list)
    for p in rows:
        families[(p["submitter"], p["accelerator"], p.get("framework", ""))].append(p)
    for members in families.values():
        base = min(members, key=lambda p: (p["accelerators"], p["minutes"]))
        for p in members:
            scale = p["accelerators"] / base["accelerators"]
            several = len({m["accelerators"] for m in members}) > 1
            p["speedup"] = round(base["minutes"] / p["minutes"], 3) if several else None
            p["efficiency"] = round(p["speedup"] / scale, 3) if several else None
            p["family_base_accelerators"] = base["accelerators"] if several else None
    key = "submitter" if colour_by == "submitter" else "accelerator"
    rows.sort(key=lambda p: (str(p[key]), p["accelerators"], p["minutes"]))
    traces = []
    for index, group in enumerate(sorted({str(p[key]) for p in rows}, key=str.lower)):
        mine = [p for p in rows if str(p[key]) == group]
        traces.append({
            "type": "scatter",
            "mode": "markers",
            "name": group or "unknown",
            "x": [p["accelerators"] for p in mine],
            "y": [p["minutes"] for p in mine],
            "text": [_scaling_hover(p) for p in mine],
            "customdata": [p["result_id"] for p in mine],
            "hovertemplate": "%{text}<extra></extra>",
            "marker": {"color": _colour(index), "size": 9, "opacity": 0.85, "line": {"width": 0.5, "color": "#333"}},
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
        "layout": _layout(
            f"{benchmark}: scaling with accelerator count",
            xaxis=_axis("Accelerators (log scale)", log=True),
            yaxis=_axis("Time to train (minutes, log scale)", log=True),
        ),
    }
    columns = ["result_id", "division", "submitter", "system", "accelerator", "framework", "accelerators", "minutes",
               "family_base_accelerators", "speedup", "efficiency"]
    return Chart("scaling", "Scaling", figure, columns, [{k: p.get(k) for k in columns} for p in rows])


def _scaling_hover(point: dict) -> str:
    text = f"{_system_hover(point)}<br>{point['minutes']:.2f} min"
    if point.get("speedup") is not None:
        text += (f"<br>speedup {point['speedup']:.2f}× vs {point['family_base_accelerators']} accelerators,"
                 f" efficiency {point['efficiency']:.0%}")
    return text


def batch_size(points: list[dict], benchmark: str, unit: str = "epochs") -> Chart:
    """Global batch size against epochs (or samples) to converge, one point per result."""
    rows = [p for p in points if (p.get("batch_size") or 0) > 0 and _number(p.get("converge"))]
    rows.sort(key=lambda p: (p["division"], p["batch_size"]))
    traces = []
    for index, division in enumerate(sorted({p["division"] for p in rows}, key=lambda d: (d != "closed", d))):
        mine = [p for p in rows if p["division"] == division]
        traces.append({
            "type": "scatter",
            "mode": "markers",
            "name": f"{division or 'unknown'} division",
            "x": [p["batch_size"] for p in mine],
            "y": [p["converge"] for p in mine],
            "text": [_system_hover(p) for p in mine],
            "customdata": [p["result_id"] for p in mine],
            "hovertemplate": "%{text}<br>batch %{x}, %{y:.3g} " + unit + "<extra></extra>",
            "marker": {"color": _colour(index), "size": 9, "opacity": 0.85},
        })
    figure = {
        "data": traces,
        "layout": _layout(
            f"{benchmark}: global batch size against {unit} to converge",
            xaxis=_axis("Global batch size (log scale)", log=True),
            yaxis=_axis(f"{unit.capitalize()} to converge (olympic mean)"),
        ),
    }
    columns = ["result_id", "division", "submitter", "system", "accelerator", "accelerators", "batch_size", "converge"]
    return Chart("batch-size", "Batch size", figure, columns, [{k: p.get(k) for k in columns} for p in rows])


# --- Result charts ----------------------------------------------------------------------------


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
                if _number(x) is None or _number(number) is None:
                    continue
                rows.append({"run": run["run"], "scoring": run["scoring"], "component": component,
                             "x": _number(x), "value": _number(number), "line": line, "crossed": False})
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
        label = f"{run_name} {component}".strip()
        traces.append({
            "type": "scatter",
            "mode": "lines+markers",
            "name": label,
            "legendgroup": run_name,
            "x": [p["x"] for p in points],
            "y": [p["value"] for p in points],
            "customdata": [p["line"] for p in points],
            "hovertemplate": f"{label}<br>x=%{{x}}<br>{metric}=%{{y:.4g}}<br>log line %{{customdata}}<extra></extra>",
            "line": {"color": _colour(run_names.index(run_name)), "width": 1.5,
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
            "text": [f"{p['run']} {p['component']}".strip() for p in crossings],
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
        "layout": _layout(
            "Convergence of every run",
            xaxis=_axis("Minutes since run_start" if by_time else "Epoch (or samples) at evaluation"),
            yaxis=_axis(metric or "evaluation metric"),
            shapes=shapes,
            annotations=annotations,
        ),
    }
    rows.sort(key=lambda r: (run_names.index(r["run"]), r["component"], r["x"]))
    columns = ["run", "scoring", "component", "x", "value", "line", "crossed"]
    return Chart("convergence", "Convergence", figure, columns, rows)


def run_times(runs: list[dict]) -> Chart:
    """A strip of run times, coloured by how scoring treated each run (counted, dropped, failed)."""
    rows = [{"run": r["run"], "minutes": _number(r.get("minutes")), "scoring": r["scoring"],
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
            "text": [f"{r['run']}<br>{r['reason']}" if r["reason"] else r["run"] for r in mine],
            "hovertemplate": "%{text}<br>%{x:.2f} min<extra></extra>",
            "marker": {"color": STATUS_COLOURS[status], "size": 14,
                       "symbol": "circle" if status == "counted" else "x" if status == "failed" else "circle-open",
                       "line": {"width": 2, "color": STATUS_COLOURS[status]}},
        })
    figure = {
        "data": traces,
        "layout": _layout(
            "Run times (dropped runs hollow, failed runs crossed)",
            height=190,
            margin={"l": 20, "r": 20, "t": 36, "b": 40},
            xaxis=_axis("Time to train (minutes)"),
            yaxis={"visible": False},
        ),
    }
    return Chart("run-times", "Run times", figure, ["run", "minutes", "scoring", "reason"], plotted)


# --- Round-over-round -------------------------------------------------------------------------


def round_over_round(entries: list[dict], targets: list[dict], fixed_scale: int) -> list[Chart]:
    """Progress across rounds of one suite.

    entries: one per visible result: round (version), benchmark, minutes, accelerators, system,
    submitter, result_id. targets: round, benchmark, target, metric.
    Returns three charts: best time per benchmark per round; speedup of the best entry at
    `fixed_scale` accelerators over the previous round; accelerator count of the fastest entry.
    Changes of quality target are annotated on the first two.
    """
    rounds = sorted({e["round"] for e in entries} | {t["round"] for t in targets}, key=version_key)
    target_of = {(t["round"], t["benchmark"]): t["target"] for t in targets}
    best: dict[tuple[str, str], dict] = {}
    best_fixed: dict[tuple[str, str], dict] = {}
    for entry in entries:
        if not _number(entry.get("minutes")):
            continue
        key = (entry["round"], entry["benchmark"])
        if key not in best or entry["minutes"] < best[key]["minutes"]:
            best[key] = entry
        if entry.get("accelerators") == fixed_scale and (
            key not in best_fixed or entry["minutes"] < best_fixed[key]["minutes"]
        ):
            best_fixed[key] = entry
    benchmarks = sorted({b for _, b in best}, key=str.lower)

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
    annotations, fixed_annotations = [], []
    for index, benchmark in enumerate(benchmarks):
        mine = [(r, best[(r, benchmark)]) for r in rounds if (r, benchmark) in best]
        for round_, entry in mine:
            changed, note = target_changed(round_, benchmark)
            best_rows.append({"round": round_, "benchmark": benchmark, "minutes": entry["minutes"],
                              "result_id": entry["result_id"], "system": entry["system"],
                              "submitter": entry["submitter"], "accelerators": entry.get("accelerators"),
                              "quality_target": target_of.get((round_, benchmark)), "target_changed": changed})
            scale_rows.append({"round": round_, "benchmark": benchmark, "accelerators": entry.get("accelerators"),
                               "result_id": entry["result_id"], "system": entry["system"]})
            if changed:
                annotations.append({"x": f"v{round_}", "y": math.log10(entry["minutes"]), "text": "target ↑↓",
                                    "hovertext": note, "showarrow": True, "arrowhead": 2, "ax": 0, "ay": -28,
                                    "font": {"size": 10, "color": _colour(index)}})
        best_traces.append({
            "type": "scatter", "mode": "lines+markers", "name": benchmark,
            "x": [f"v{r}" for r, _ in mine], "y": [e["minutes"] for _, e in mine],
            "text": [f"{e['system']} ({e['submitter']}), {e.get('accelerators') or '?'} accelerators" for _, e in mine],
            "customdata": [e["result_id"] for _, e in mine],
            "hovertemplate": benchmark + " v%{x}: %{y:.2f} min<br>%{text}<extra></extra>",
            "line": {"color": _colour(index)},
        })
        scale_traces.append({
            "type": "scatter", "mode": "lines+markers", "name": benchmark,
            "x": [f"v{r}" for r, _ in mine], "y": [e.get("accelerators") for _, e in mine],
            "text": [e["system"] for _, e in mine],
            "customdata": [e["result_id"] for _, e in mine],
            "hovertemplate": benchmark + " %{x}: %{y} accelerators<br>%{text}<extra></extra>",
            "line": {"color": _colour(index)},
        })
        xs, ys, texts = [], [], []
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
                texts.append(note or "same quality target")
                if changed:
                    fixed_annotations.append({"x": f"v{old} → v{new}", "y": speedup, "text": "target changed",
                                              "hovertext": note, "showarrow": False, "yshift": 10,
                                              "font": {"size": 10}})
        if xs:
            fixed_traces.append({"type": "bar", "name": benchmark, "x": xs, "y": ys, "text": texts,
                                 "hovertemplate": benchmark + " %{x}: %{y:.2f}×<br>%{text}<extra></extra>",
                                 "marker": {"color": _colour(index)}})
    round_labels = [f"v{r}" for r in rounds]
    best_chart = Chart("best-time", "Best time to train per round", {
        "data": best_traces,
        "layout": _layout("Best time to train per benchmark and round",
                          xaxis=_axis("Round", categoryorder="array", categoryarray=round_labels),
                          yaxis=_axis("Minutes (log scale)", log=True), annotations=annotations),
    }, ["round", "benchmark", "minutes", "result_id", "system", "submitter", "accelerators", "quality_target",
        "target_changed"], best_rows)
    fixed_chart = Chart("fixed-scale-speedup", f"Speedup at {fixed_scale} accelerators", {
        "data": fixed_traces,
        "layout": _layout(f"Speedup of the best {fixed_scale}-accelerator entry over the previous round",
                          barmode="group",
                          xaxis=_axis("Rounds compared", categoryorder="array",
                                      categoryarray=[f"v{rounds[i - 1]} → v{rounds[i]}" for i in range(1, len(rounds))]),
                          yaxis=_axis("Speedup (×)"), annotations=fixed_annotations,
                          shapes=[{"type": "line", "xref": "paper", "x0": 0, "x1": 1, "y0": 1, "y1": 1,
                                   "line": {"color": "#777", "dash": "dot"}}]),
    }, ["from_round", "to_round", "benchmark", "accelerators", "minutes_before", "minutes_after", "speedup",
        "target_changed"], fixed_rows)
    scale_chart = Chart("fastest-scale", "Scale of the fastest entry", {
        "data": scale_traces,
        "layout": _layout("Accelerator count of the fastest entry",
                          xaxis=_axis("Round", categoryorder="array", categoryarray=round_labels),
                          yaxis=_axis("Accelerators (log scale)", log=True)),
    }, ["round", "benchmark", "accelerators", "result_id", "system"], scale_rows)
    return [best_chart, fixed_chart, scale_chart]
