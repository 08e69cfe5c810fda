"""The job page's figures: claimed runs beside re-runs, and GPU telemetry. Plain values in,
pages.charts.Chart out (same look, same CSV/JSON downloads as the result pages)."""

from __future__ import annotations

from pages import charts as common
from pages.charts import PALETTE, Chart

CLAIMED_COLOUR = "#0072B2"
RERUN_COLOUR = "#D55E00"
TELEMETRY_FIELDS = (
    ("utilization_pct", "GPU utilization (%)"),
    ("memory_used_mib", "GPU memory used (MiB)"),
    ("power_w", "Power (W)"),
    ("sm_clock_mhz", "SM clock (MHz)"),
)


def times(claimed: list[dict], reruns: list[dict], claimed_score: float | None, rerun_score: float | None) -> Chart:
    """Time to train of every claimed run and every re-run, with both olympic means as lines."""
    rows = [{"source": "claimed", "run": run["label"], "minutes": run["minutes"]} for run in claimed] + [
        {"source": "re-run", "run": f"re-run {run['number']}", "minutes": run.get("minutes")} for run in reruns
    ]
    data = []
    for source, colour in (("claimed", CLAIMED_COLOUR), ("re-run", RERUN_COLOUR)):
        mine = [row for row in rows if row["source"] == source and row["minutes"] is not None]
        # Run file names are the submitter's text: escaped, as Plotly renders HTML in tick labels.
        data.append({"type": "bar", "name": source, "x": [common.text(row["run"]) for row in mine],
                     "y": [row["minutes"] for row in mine], "marker": {"color": colour}})
    shapes = []
    for score, colour in ((claimed_score, CLAIMED_COLOUR), (rerun_score, RERUN_COLOUR)):
        if score is not None:
            shapes.append({"type": "line", "xref": "paper", "x0": 0, "x1": 1, "y0": score, "y1": score,
                           "line": {"color": colour, "dash": "dash", "width": 1}})
    figure = {"data": data, "layout": common.layout("Time to train: claimed runs and re-runs (dashed: olympic means)",
                                             xaxis=common.axis("run"), yaxis=common.axis("minutes"), shapes=shapes)}
    return Chart("rerun-times", "Time to train", figure, ["source", "run", "minutes"],
                 [row for row in rows if row["minutes"] is not None])


def convergence(claimed: list[dict], reruns: list[dict], target: float | None) -> Chart:
    """Eval quality against minutes since run_start, claimed runs and re-runs on one chart."""
    rows = []
    data = []
    for source, runs, colour in (("claimed", claimed, CLAIMED_COLOUR), ("re-run", reruns, RERUN_COLOUR)):
        for index, run in enumerate(runs):
            label = run.get("label") or f"re-run {run['number']}"
            points = [(minutes, value) for _epoch, value, minutes in run["curve"]
                      if isinstance(value, int | float) and minutes is not None]
            rows += [{"source": source, "run": label, "minutes": m, "quality": v} for m, v in points]
            data.append({"type": "scatter", "mode": "lines+markers", "name": common.text(f"{source}: {label}"),
                         "legendgroup": source, "x": [m for m, _ in points], "y": [v for _, v in points],
                         "line": {"color": colour, "width": 1.5, "dash": "solid" if source == "re-run" else "dot"},
                         "marker": {"size": 4, "color": colour}, "opacity": 0.5 + 0.5 * (index == 0)})
    shapes = []
    if target is not None:
        shapes.append({"type": "line", "xref": "paper", "x0": 0, "x1": 1, "y0": target, "y1": target,
                       "line": {"color": "#000", "dash": "dash", "width": 1}})
    figure = {"data": data, "layout": common.layout("Convergence: claimed runs (dotted) and re-runs (solid); dashed: target",
                                             xaxis=common.axis("minutes since run_start"), yaxis=common.axis("eval quality"),
                                             shapes=shapes)}
    return Chart("rerun-convergence", "Convergence", figure, ["source", "run", "minutes", "quality"], rows)


def telemetry(samples: list[dict]) -> list[Chart]:
    """One chart per NVML field, one line per GPU."""
    gpus = sorted({sample.get("gpu", 0) for sample in samples})
    charts = []
    for field, title in TELEMETRY_FIELDS:
        rows = [{"t": s.get("t"), "gpu": s.get("gpu", 0), field: s.get(field)} for s in samples if s.get(field) is not None]
        data = [{"type": "scatter", "mode": "lines", "name": f"GPU {gpu}", "line": {"color": PALETTE[gpu % len(PALETTE)]},
                 "x": [row["t"] for row in rows if row["gpu"] == gpu], "y": [row[field] for row in rows if row["gpu"] == gpu]}
                for gpu in gpus]
        figure = {"data": data, "layout": common.layout(title, xaxis=common.axis("seconds into the run"), yaxis=common.axis(title))}
        charts.append(Chart("gpu-" + field.replace("_", "-"), title, figure, ["t", "gpu", field], rows))
    return charts
