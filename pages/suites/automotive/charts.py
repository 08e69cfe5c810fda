"""An automotive round's charts: the latency of each system per model and scenario, accuracy
against latency (with the model's accuracy target), and a result's latency percentiles."""

from __future__ import annotations

from pages.charts import Chart, axis, benchmark_colour, colour, layout, legend_label, text

LATENCY_AXIS = "Latency (ms, lower is better)"


def latency(points: list[dict], title: str = "Latency per system") -> Chart:
    """A bar per result, grouped by model and scenario; the official verdict's rejected results
    are left out (their figures are not results)."""
    shown = [p for p in points if p["value"] is not None and p["official_valid"] is not False]
    shown.sort(key=lambda p: (p["model"], p["scenario"], p["value"]))
    traces = []
    for index, key in enumerate(sorted({(p["model"], p["scenario"]) for p in shown})):
        rows = [p for p in shown if (p["model"], p["scenario"]) == key]
        traces.append({
            "type": "bar", "orientation": "h", "name": legend_label(f"{key[0]} {key[1]}"),
            # The axis names the system briefly (a phone's width); the hover text names it whole.
            "y": [text(legend_label(p["system"], 24)) for p in rows], "x": [p["value"] for p in rows],
            "text": [text(f"{p['system']} ({p['submitter']})") for p in rows], "textposition": "none",
            "marker": {"color": colour(index)},
            "hovertemplate": "%{text}<br>%{x:.4f} ms<extra>" + text(f"{key[0]} {key[1]}") + "</extra>",
        })
    figure = {"data": traces, "layout": layout(title, barmode="group", xaxis=axis(LATENCY_AXIS),
                                                 yaxis=axis("", automargin=True))}
    rows = [{"result_id": p["result_id"], "system": p["system"], "submitter": p["submitter"], "model": p["model"],
             "scenario": p["scenario"], "latency_ms": p["value"]} for p in shown]
    return Chart("latency", title, figure, ["result_id", "system", "submitter", "model", "scenario", "latency_ms"], rows)


def accuracy_latency(points: list[dict], title: str = "Accuracy against latency (● SingleStream, ◆ ConstantStream)") -> Chart:
    """A point per result that has both (its scenario its marker); a dotted line at each model's
    accuracy target."""
    shown = [p for p in points if p["value"] is not None and p["accuracy"] is not None]
    traces, shapes = [], []
    for model in sorted({p["model"] for p in shown}):
        rows = [p for p in shown if p["model"] == model]
        traces.append({
            "type": "scatter", "mode": "markers", "name": legend_label(model),
            "x": [p["value"] for p in rows], "y": [p["accuracy"] for p in rows],
            "marker": {"color": benchmark_colour(model), "size": 10,
                       "symbol": ["circle" if p["scenario"] == "SingleStream" else "diamond" for p in rows]},
            "text": [text(f"{p['system']} · {p['scenario']}") for p in rows],
            "hovertemplate": "%{text}<br>%{x:.4f} ms · accuracy %{y:.4f}<extra>" + text(model) + "</extra>",
        })
        target = rows[0]["accuracy_target"]
        if target is not None:
            shapes.append({"type": "line", "xref": "paper", "x0": 0, "x1": 1, "y0": target, "y1": target,
                           "line": {"dash": "dot", "color": benchmark_colour(model)}})
    kinds = sorted({p["accuracy_kind"] for p in shown if p["accuracy_kind"]})
    figure = {"data": traces, "layout": layout(title, shapes=shapes, xaxis=axis(LATENCY_AXIS),
                                                 yaxis=axis(f"Accuracy ({', '.join(kinds) or 'figure'}; dotted: target)"))}
    rows = [{"result_id": p["result_id"], "system": p["system"], "model": p["model"], "scenario": p["scenario"],
             "latency_ms": p["value"], "accuracy": p["accuracy"], "accuracy_target": p["accuracy_target"]}
            for p in shown]
    return Chart("accuracy-latency", title, figure,
                 ["result_id", "system", "model", "scenario", "latency_ms", "accuracy", "accuracy_target"], rows)


def latency_percentiles(latencies_ms: dict[str, float], reported_ms: float | None) -> Chart:
    """A result's LoadGen latency percentiles, with the figure it is ranked by."""
    keys = sorted(latencies_ms, key=float)
    traces = [{"type": "bar", "name": "LoadGen percentile", "x": [f"p{float(k):g}" for k in keys],
               "y": [latencies_ms[k] for k in keys], "marker": {"color": colour(0)},
               "hovertemplate": "%{x}: %{y:.4f} ms<extra></extra>"}]
    shapes = []
    if reported_ms is not None:
        traces.append({"type": "scatter", "mode": "lines", "name": "reported figure", "x": [None], "y": [None],
                       "line": {"dash": "dash", "color": colour(3)}})
        shapes.append({"type": "line", "xref": "paper", "x0": 0, "x1": 1, "y0": reported_ms, "y1": reported_ms,
                       "line": {"dash": "dash", "color": colour(3)}})
    figure = {"data": traces, "layout": layout("Latency percentiles", shapes=shapes, xaxis=axis("Percentile"),
                                                 yaxis=axis("Latency (ms)"))}
    rows = [{"percentile": k, "latency_ms": latencies_ms[k]} for k in keys]
    return Chart("latency", "Latency percentiles", figure, ["percentile", "latency_ms"], rows)
