"""The job page's figures: claimed runs beside re-runs, and GPU telemetry. The builders take plain
values and give pages.charts.Chart (same look, same CSV/JSON downloads as the result pages);
job_charts and telemetry_charts draw a job's stored re-runs and telemetry defensively: what an
older worker or version stored, in whatever shape, is skipped where it does not fit, never a 500."""

from __future__ import annotations

from pages import charts as common
from pages.charts import PALETTE, Chart
from verify import schema
from verify.models import VerificationJob

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


def job_charts(job: VerificationJob) -> list[Chart]:
    """The claimed runs beside the re-runs: times to train and convergence (the job and result pages)."""
    claimed_runs = [
        {"label": run.file.rsplit("/", 1)[-1], "minutes": run.time_to_train_minutes,
         "curve": [[point[0], point[1], point[3] if len(point) > 3 else None] for point in run.eval_curve or []]}
        for run in job.result.runs.order_by("file")
    ]
    return [
        times(claimed_runs, drawable_reruns(job.reruns), job.claimed_minutes, job.rerun_minutes),
        convergence(claimed_runs, drawable_reruns(job.reruns), job.result.benchmark.quality_target),
    ]


def telemetry_charts(job: VerificationJob) -> list[Chart]:
    return telemetry(drawable_telemetry(job.telemetry)) if job.telemetry else []


def drawable_reruns(reruns) -> list[dict]:
    """The stored re-runs the charts can draw: numbered, a number or nothing for minutes, curve
    points of three."""
    drawn = []
    for rerun in reruns if isinstance(reruns, list) else []:
        if not isinstance(rerun, dict) or isinstance(rerun.get("number"), bool) or not isinstance(rerun.get("number"), int):
            continue
        minutes = rerun.get("minutes")
        curve = rerun.get("eval_curve")
        drawn.append({
            "number": rerun["number"],
            "minutes": minutes if isinstance(minutes, int | float) and not isinstance(minutes, bool) else None,
            "curve": [point for point in curve if isinstance(point, list) and len(point) == 3]
            if isinstance(curve, list) else [],
        })
    return drawn


def drawable_telemetry(samples) -> list[dict]:
    """The stored samples that are what verify.schema accepts today (one sample of another shape,
    stored before the schema existed, made the job page answer 500: issue 36)."""
    drawn = []
    for sample in samples if isinstance(samples, list) else []:
        try:
            drawn += schema.telemetry([sample])
        except ValueError:
            continue
    return drawn
