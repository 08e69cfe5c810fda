"""MLPerf HPC charts: throughput (weak scaling) against the number of model instances. Time to
solution against system size and energy use the builders it shares with training
(pages/suites/time_to_train/charts.py)."""

from __future__ import annotations

from pages import charts as common
from pages.charts import Chart

MINUTES_TO_SOLUTION_AXIS = "Minutes to solution (log)"


def throughput(points: list[dict], benchmark: str) -> Chart:
    """Models per minute (derived: number of models / time to train all) against the number of
    model instances trained at once, one trace per submitter; hover names the instance scale."""
    rows = sorted(
        (dict(p) for p in points if common.number(p.get("models_per_minute")) and (p.get("number_of_models") or 0) > 0),
        key=lambda p: (str(p["submitter"]).lower(), p["number_of_models"]),
    )
    traces = []
    for index, submitter in enumerate(common.caseless_sorted({str(p["submitter"]) for p in rows})):
        mine = [p for p in rows if str(p["submitter"]) == submitter]
        traces.append({
            "type": "scatter",
            "mode": "markers",
            "name": common.text(common.legend_label(submitter or "unknown")),
            "x": [p["number_of_models"] for p in mine],
            "y": [p["models_per_minute"] for p in mine],
            "text": [
                f"{common.text(p['system'])}<br>{p['number_of_models']} models × {p['instance_scale']} accelerators"
                f"<br>{p['time_to_train_all']:.2f} min to train all"
                for p in mine
            ],
            "customdata": [p["result_id"] for p in mine],
            "hovertemplate": "%{text}<br>%{y:.3f} models/min (derived)<extra></extra>",
            "marker": {"color": common.colour(index), "size": 10, "opacity": 0.85, "line": {"width": 0.5, "color": "#333"}},
        })
    figure = {
        "data": traces,
        "layout": common.layout(
            f"{common.text(benchmark)}: throughput against model instances",
            xaxis=common.axis("Model instances trained at once (log)", log=True),
            yaxis=common.axis("Models per minute (derived, log)", log=True),
        ),
    }
    columns = ["result_id", "division", "submitter", "system", "number_of_models", "instance_scale",
               "time_to_train_all", "models_per_minute"]
    return Chart("throughput", "Throughput", figure, columns, [{k: p.get(k) for k in columns} for p in rows])
