"""Inference charts as Plotly dicts from plain values (no queries), each with the rows it plots.

Points are dicts: result_id, division, category, submitter, system, system_id, accelerator,
model, scenario, value, unit, direction, valid, power, power_unit, samples_per_joule (leaderboards.py).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable

from mlperf_check.rules.facts import version_key
from pages import charts as common
from pages.charts import Chart
from pages.normalised import View, throughput_normalised

SCENARIO_ORDER = ["SingleStream", "MultiStream", "Server", "Interactive", "Offline"]
# Where a chart is given the round's own models, the others (an open division's: Krai's hundreds
# in v0.7-v3.0) share this category, last, each named in its hover: a category per model left the
# plot a sliver under their labels.
OTHER_MODELS = "Other models"
LABELLED_SYSTEMS = 30


def _model_axis(models, own: set[str] | None) -> tuple[dict, Callable[[str], str]]:
    """The x-axis's categories for `models` (the round's `own` first, sorted, then OTHER_MODELS for
    the rest; None: each model its own) and the category of a model."""
    def category(model: str) -> str:
        return model if own is None or model in own else OTHER_MODELS

    shown = sorted({category(m) for m in models}, key=lambda c: (c == OTHER_MODELS, c))
    return {"categoryorder": "array", "categoryarray": shown}, category


def _valid(points: list[dict]) -> list[dict]:
    return [p for p in points if p.get("valid") and (common.number(p.get("value")) or 0) > 0]


def server_offline_ratio(points: list[dict], own_models: set[str] | None = None) -> Chart:
    """Per system and model with both: Server queries/s over Offline samples/s (what the latency
    bound costs). Below 1: the bound costs throughput. A bar trace per model; those not in
    `own_models` share one, OTHER_MODELS, each bar naming its model."""
    by_key: dict[tuple, dict[str, dict]] = defaultdict(dict)
    for p in _valid(points):
        if p["scenario"] in ("Server", "Offline"):
            by_key[(p["submitter"], p["system_id"], p["model"])][p["scenario"]] = p
    rows = []
    for (submitter, _system_id, model), pair in sorted(by_key.items()):
        if "Server" in pair and "Offline" in pair:
            server, offline = pair["Server"], pair["Offline"]
            rows.append({
                "submitter": submitter, "system": server["system"], "model": model,
                "server": server["value"], "offline": offline["value"],
                "ratio": round(server["value"] / offline["value"], 4),
                "server_result_id": server["result_id"], "offline_result_id": offline["result_id"],
            })
    categories, category = _model_axis((r["model"] for r in rows), own_models)
    traces = []
    for index, name in enumerate(categories["categoryarray"]):
        mine = [r for r in rows if category(r["model"]) == name]
        trace = {
            "type": "bar", "name": name,
            "x": [f"{r['system']} ({r['submitter']})" for r in mine], "y": [r["ratio"] for r in mine],
            "hovertemplate": "%{x}<br>server/offline %{y:.3f}<extra>" + name + "</extra>",
            "marker": {"color": common.colour(index)},
        }
        if name == OTHER_MODELS:
            trace["text"] = [r["model"] for r in mine]
            trace["textposition"] = "none"
            trace["hovertemplate"] = "%{x}<br>%{text}: server/offline %{y:.3f}<extra>" + name + "</extra>"
        traces.append(trace)
    # Past LABELLED_SYSTEMS the systems' names, rotated, took the plot's height and overlapped
    # (a full round has 60): the axis then says where they are.
    systems = len({(r["system"], r["submitter"]) for r in rows})
    xaxis = common.axis("") if systems <= LABELLED_SYSTEMS else \
        common.axis(f"{systems} systems: point at a bar", showticklabels=False)
    figure = {"data": traces, "layout": common.layout(
        "Server throughput relative to Offline, per system", barmode="group",
        xaxis=xaxis, yaxis=common.axis("Server ÷ Offline throughput"),
        shapes=[{"type": "line", "xref": "paper", "x0": 0, "x1": 1, "y0": 1, "y1": 1,
                 "line": {"dash": "dot", "color": "#888"}}],
    )}
    columns = ["submitter", "system", "model", "server", "offline", "ratio", "server_result_id", "offline_result_id"]
    return Chart("server-offline-ratio", "Server/Offline throughput ratio", figure, columns, rows)


def _per_model_by_scenario(rows: list[dict], y: str, text, hover: str, category: Callable[[str], str]) -> list[dict]:
    """One marker trace per scenario: a point per row at its model's `category` (_model_axis), `y`
    its height, `text(row)` and `hover` (a Plotly template of %{y}) its hover text, the model first
    where the category is not its name; the result id its customdata."""
    traces = []
    for index, scenario in enumerate(s for s in SCENARIO_ORDER if any(r["scenario"] == s for r in rows)):
        mine = [r for r in rows if r["scenario"] == scenario]
        traces.append({
            "type": "scatter", "mode": "markers", "name": scenario,
            "x": [category(r["model"]) for r in mine], "y": [r[y] for r in mine],
            "text": [("" if category(r["model"]) == r["model"] else f"{r['model']}<br>") + text(r) for r in mine],
            "customdata": [r["result_id"] for r in mine],
            "hovertemplate": "%{text}<br>" + hover + "<extra>" + scenario + "</extra>",
            "marker": {"color": common.colour(index), "size": 9, "opacity": 0.85},
        })
    return traces


def relative_performance(points: list[dict], view: View | None = None, own_models: set[str] | None = None) -> Chart:
    """Per model and scenario: each valid result relative to the slowest one (1 = slowest), on a
    log scale. Direction-aware: for a latency, slowest is the highest. In a normalised `view`
    the normalised figures are compared (latencies drop out of a per-accelerator or per-node
    view: they are not normalised), and the title says so. Models not in `own_models` are
    plotted together as OTHER_MODELS (each still against its own slowest)."""
    normalised = view is not None and view.normalised
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for p in _valid(points):
        if normalised:
            figure = throughput_normalised(p, view.per)
            if figure is None or figure <= 0:
                continue
            # Every normalised figure is higher-is-better (a throughput or samples per joule).
            p = {**p, "value": figure, "direction": "higher", "unit": "per joule" if view.per == "watt" else f"{p['unit']} {view.figure}"}
        groups[(p["model"], p["scenario"])].append(p)
    rows = []
    for (model, scenario), mine in sorted(groups.items(), key=lambda kv: (kv[0][0], scenario_rank(kv[0][1]))):
        lower = mine[0]["direction"] == "lower"
        slowest = max(p["value"] for p in mine) if lower else min(p["value"] for p in mine)
        for p in mine:
            speedup = slowest / p["value"] if lower else p["value"] / slowest
            rows.append({"model": model, "scenario": scenario, "result_id": p["result_id"],
                         "submitter": p["submitter"], "system": p["system"], "value": p["value"],
                         "unit": p["unit"], "relative": round(speedup, 4)})
    categories, category = _model_axis((r["model"] for r in rows), own_models)
    traces = _per_model_by_scenario(
        rows, "relative", lambda r: f"{r['system']} ({r['submitter']})<br>{r['value']:.4g} {r['unit']}",
        "%{y:.2f}× the slowest", category,
    )
    what = f"Performance {view.figure} (normalised)" if normalised else "Performance"
    figure = {"data": traces, "layout": common.layout(
        f"{what} relative to the slowest system, per model and scenario",
        xaxis=common.axis("", **categories), yaxis=common.axis("× the slowest (log scale)", log=True),
    )}
    columns = ["model", "scenario", "result_id", "submitter", "system", "value", "unit", "relative"]
    return Chart("relative-performance", f"Relative performance{f' {view.figure} (normalised)' if normalised else ''}",
                 figure, columns, rows)


def performance_per_watt(points: list[dict], own_models: set[str] | None = None) -> Chart:
    """Per model and scenario: each valid result with power, in samples (tokens, queries) per
    joule as the official checker computes it (higher is better), on a log scale. Models not in
    `own_models` are plotted together as OTHER_MODELS."""
    rows = [
        {"model": p["model"], "scenario": p["scenario"], "result_id": p["result_id"], "submitter": p["submitter"],
         "system": p["system"], "value": p["value"], "unit": p["unit"], "power": p["power"],
         "power_unit": p["power_unit"], "samples_per_joule": p["samples_per_joule"]}
        for p in _valid(points) if (common.number(p.get("samples_per_joule")) or 0) > 0
    ]
    rows.sort(key=lambda r: (r["model"], scenario_rank(r["scenario"]), -r["samples_per_joule"]))
    categories, category = _model_axis((r["model"] for r in rows), own_models)
    traces = _per_model_by_scenario(
        rows, "samples_per_joule",
        lambda r: f"{r['system']} ({r['submitter']})<br>{r['value']:.4g} {r['unit']} at {r['power']:.4g} {r['power_unit']}",
        "%{y:.4g} per joule", category,
    )
    figure = {"data": traces, "layout": common.layout(
        "Performance per watt: samples (tokens, queries) per joule",
        xaxis=common.axis("", **categories), yaxis=common.axis("per joule (log scale)", log=True),
    )}
    columns = ["model", "scenario", "result_id", "submitter", "system", "value", "unit", "power", "power_unit",
               "samples_per_joule"]
    return Chart("performance-per-watt", "Performance per watt", figure, columns, rows)


def coverage(points: list[dict], own_models: set[str] | None = None) -> Chart:
    """How many results each model has per scenario (all results, valid or not); the models not in
    `own_models` counted together as OTHER_MODELS."""
    categories, category = _model_axis((p["model"] for p in points), own_models)
    counts = Counter((category(p["model"]), p["scenario"]) for p in points)
    models = categories["categoryarray"]
    scenarios = [s for s in SCENARIO_ORDER if any(s == scenario for _, scenario in counts)]
    rows = [{"model": m, "scenario": s, "results": counts[(m, s)]} for m in models for s in scenarios if counts[(m, s)]]
    traces = [{
        "type": "bar", "name": scenario, "x": models, "y": [counts[(m, scenario)] for m in models],
        "marker": {"color": common.colour(index)},
        "hovertemplate": "%{x}: %{y} results<extra>" + scenario + "</extra>",
    } for index, scenario in enumerate(scenarios)]
    figure = {"data": traces, "layout": common.layout(
        "Results per model and scenario", barmode="stack", xaxis=common.axis("", **categories),
        yaxis=common.axis("Results"),
    )}
    return Chart("coverage", "Coverage", figure, ["model", "scenario", "results"], rows)


def latency_percentiles(latencies_ms: dict[str, float], bound_ms: float | None, percentile: float | None) -> Chart:
    """One result's latency percentiles against its bound."""
    rows = [{"percentile": k, "latency_ms": v} for k, v in sorted(latencies_ms.items(), key=lambda kv: float(kv[0]))]
    shapes = []
    if bound_ms:
        shapes.append({"type": "line", "xref": "paper", "x0": 0, "x1": 1, "y0": bound_ms, "y1": bound_ms,
                       "line": {"dash": "dash", "color": "#D55E00"}})
    figure = {"data": [{
        "type": "bar", "name": "latency", "showlegend": False,
        "x": [f"p{r['percentile']}" for r in rows], "y": [r["latency_ms"] for r in rows],
        "marker": {"color": common.colour(0)}, "hovertemplate": "%{x}: %{y:.3f} ms<extra></extra>",
    }], "layout": common.layout(
        "Latency percentiles" + (f" (bound {bound_ms:g} ms at p{percentile * 100:g})" if bound_ms and percentile else ""),
        xaxis=common.axis(""), yaxis=common.axis("Latency (ms)"), shapes=shapes,
    )}
    return Chart("latency", "Latency percentiles", figure, ["percentile", "latency_ms"], rows)


def scenario_rank(scenario: str) -> int:
    return SCENARIO_ORDER.index(scenario) if scenario in SCENARIO_ORDER else len(SCENARIO_ORDER)


PROGRESS_SCENARIOS = ("Offline", "Server")


def _best_per_round(entries: list[dict], per_accelerator: bool) -> dict[tuple[str, str], dict[str, dict]]:
    """{(model, scenario): {round: the entry with its "figure"}}: the first of the best of each."""
    best: dict[tuple[str, str], dict[str, dict]] = defaultdict(dict)
    for entry in entries:
        if entry["scenario"] not in PROGRESS_SCENARIOS:
            continue
        value = common.number(entry.get("value"))
        if per_accelerator:
            count = entry.get("accelerators")
            value = value / count if value and isinstance(count, int) and count > 0 else None
        if not value or value <= 0:
            continue
        mine = best[(entry["model"], entry["scenario"])]
        if entry["round"] not in mine or value > mine[entry["round"]]["figure"]:
            mine[entry["round"]] = {**entry, "figure": value}
    return best


def progress_candidates(entries: list[dict]) -> list[dict]:
    """Those of `entries` (each with a "pk") that `progress` picks in either chart, in their order:
    `progress` of them draws what `progress` of all the entries draws (the first of equal bests
    stays first), so a page over every round needs only these of each round."""
    picked = {entry["pk"] for per_accelerator in (False, True)
              for by_round in _best_per_round(entries, per_accelerator).values() for entry in by_round.values()}
    return [entry for entry in entries if entry["pk"] in picked]


def progress(entries: list[dict], per_accelerator: bool = False) -> Chart:
    """Round over round: per model and throughput scenario (Offline, Server), the best valid
    closed-division result of each round, relative to the model's first round with one (1 = the
    first round; a model's unit stays the same across its rounds, the models' units differ, so
    only the ratio can share an axis). `per_accelerator`: the throughput divided by the system's
    accelerators first (normalised, and titled so).

    entries: dicts with round, model, scenario, value, unit, accelerators, system, submitter, result_id."""
    best = _best_per_round(entries, per_accelerator)
    rows = []
    for (model, scenario), by_round in sorted(best.items(), key=lambda kv: (kv[0][0], scenario_rank(kv[0][1]))):
        ordered = sorted(by_round.values(), key=lambda e: version_key(e["round"]))
        first = ordered[0]["figure"]
        for entry in ordered:
            rows.append({"model": model, "scenario": scenario, "round": entry["round"], "result_id": entry["result_id"],
                         "submitter": entry["submitter"], "system": entry["system"], "value": entry["value"],
                         "unit": entry["unit"], "accelerators": entry["accelerators"],
                         "figure": round(entry["figure"], 6), "relative": round(entry["figure"] / first, 4)})
    rounds = sorted({r["round"] for r in rows}, key=version_key)
    traces = []
    for model, scenario in sorted({(r["model"], r["scenario"]) for r in rows}, key=lambda k: (k[0], scenario_rank(k[1]))):
        mine = [r for r in rows if (r["model"], r["scenario"]) == (model, scenario)]
        traces.append({
            "type": "scatter", "mode": "lines+markers", "name": common.legend_label(f"{model} {scenario}"),
            "x": [f"v{r['round']}" for r in mine], "y": [r["relative"] for r in mine],
            "text": [f"{common.text(r['system'])} ({common.text(r['submitter'])})<br>{r['value']:.4g} {r['unit']}"
                     + (f" on {r['accelerators']} accelerators" if r["accelerators"] else "") for r in mine],
            "customdata": [r["result_id"] for r in mine],
            "hovertemplate": "%{text}<br>%{y:.2f}× the first round<extra>" + common.text(f"{model} {scenario}")
                             + "</extra>",
            "line": {"color": common.benchmark_colour(model), "dash": "solid" if scenario == "Offline" else "dot"},
            "marker": {"color": common.benchmark_colour(model), "size": 8},
        })
    what = "Best throughput per accelerator (normalised)" if per_accelerator else "Best throughput"
    figure = {"data": traces, "layout": common.layout(
        f"{what} per model, relative to its first round",
        xaxis=common.axis("Round", categoryorder="array", categoryarray=[f"v{r}" for r in rounds]),
        yaxis=common.axis("× the model's first round (log)", log=True),
    )}
    columns = ["model", "scenario", "round", "result_id", "submitter", "system", "value", "unit", "accelerators",
               "figure", "relative"]
    return Chart("best-per-accelerator" if per_accelerator else "best-throughput", what, figure, columns, rows)
