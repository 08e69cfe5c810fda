"""Tiny charts as Plotly dicts from plain rows (no queries), each with the rows it plots:
energy against throughput per benchmark (the Tiny trade-off), accuracy against its target, and a
result's measurement windows."""

from __future__ import annotations

from pages import charts as common
from pages.charts import Chart


def _plotted(points: list[dict], figure: str) -> list[dict]:
    return [p for p in points if p["valid"] and (common.number(p.get(figure)) or 0) > 0
            and (common.number(p.get("throughput")) or 0) > 0]


def energy_vs_throughput(points: list[dict], benchmark: str) -> Chart:
    """Each valid result with energy: median energy per inference (sww: average power) against
    median throughput, both on log axes; the best are to the lower right."""
    rows = [{"result_id": p["result_id"], "submitter": p["submitter"], "system": p["system"],
             "throughput": p["throughput"], "energy": p["energy"], "energy_unit": p["energy_unit"]}
            for p in _plotted(points, "energy")]
    unit = rows[0]["energy_unit"] if rows else "uJ/inf."
    label = "Average power (mW)" if unit == "mW" else "Energy per inference (uJ)"
    traces = []
    for index, submitter in enumerate(common.caseless_sorted({r["submitter"] for r in rows})):
        mine = [r for r in rows if r["submitter"] == submitter]
        traces.append({
            "type": "scatter", "mode": "markers", "name": common.legend_label(submitter),
            "x": [r["throughput"] for r in mine], "y": [r["energy"] for r in mine],
            "text": [r["system"] for r in mine], "customdata": [r["result_id"] for r in mine],
            "hovertemplate": "%{text}<br>%{x:.4g} inf./sec.<br>%{y:.4g} " + unit + "<extra>%{customdata}</extra>",
            "marker": {"color": common.colour(index), "size": 10},
        })
    figure = {"data": traces, "layout": common.layout(
        f"{benchmark}: energy against throughput", xaxis=common.axis("Median throughput (inf./sec.)", log=True),
        yaxis=common.axis(label, log=True))}
    return Chart("energy-throughput", f"{benchmark}: energy against throughput", figure,
                 ["result_id", "submitter", "system", "throughput", "energy", "energy_unit"], rows)


def accuracy(points: list[dict], benchmark: str) -> Chart:
    """Each valid result's accuracy (Top-1 %, AUC or F1), one bar per system, beside the target."""
    rows = [{"result_id": p["result_id"], "submitter": p["submitter"], "system": p["system"],
             "accuracy_metric": p["accuracy_metric"], "accuracy": p["accuracy"], "target": p["accuracy_target"]}
            for p in points if p["valid"] and p["accuracy"] is not None]
    metric = rows[0]["accuracy_metric"] if rows else "accuracy"
    figure = {"data": [{
        "type": "bar", "name": metric, "x": [f"{r['system']} ({r['submitter']})" for r in rows],
        "y": [r["accuracy"] for r in rows], "customdata": [r["result_id"] for r in rows],
        "hovertemplate": "%{x}<br>" + metric + " %{y:.4g}<extra>%{customdata}</extra>",
        "marker": {"color": common.benchmark_colour(benchmark)},
    }], "layout": common.layout(f"{benchmark}: accuracy ({metric})", xaxis=common.axis(""), yaxis=common.axis(metric))}
    return Chart("accuracy", f"{benchmark}: accuracy ({metric})", figure,
                 ["result_id", "submitter", "system", "accuracy_metric", "accuracy", "target"], rows)


def windows(details: dict, throughput: float | None) -> Chart:
    """A result's measurement windows: each performance window's throughput and each energy
    window's cost, beside the median the result reports."""
    measured = details.get("windows") or {}
    energy = details.get("energy") or {}
    rows = [{"measure": "throughput (inf./sec.)", "window": i + 1, "value": v, "median": throughput}
            for i, v in enumerate(measured.get("throughput") or [])]
    unit = energy.get("unit") or "uJ/inf."
    rows += [{"measure": f"energy ({unit})", "window": i + 1, "value": v, "median": energy.get("value")}
             for i, v in enumerate(measured.get("energy") or [])]
    traces = []
    for index, (measure, axis_name) in enumerate((("throughput (inf./sec.)", "y"), (f"energy ({unit})", "y2"))):
        mine = [r for r in rows if r["measure"] == measure]
        if mine:
            traces.append({"type": "scatter", "mode": "lines+markers", "name": measure, "yaxis": axis_name,
                           "x": [r["window"] for r in mine], "y": [r["value"] for r in mine],
                           "marker": {"color": common.colour(index)}})
    figure = {"data": traces, "layout": common.layout(
        "Measurement windows", xaxis=common.axis("Window", dtick=1), yaxis=common.axis("Throughput (inf./sec.)"),
        yaxis2=common.axis(f"Energy ({unit})", overlaying="y", side="right"))}
    return Chart("windows", "Measurement windows", figure, ["measure", "window", "value", "median"], rows)
