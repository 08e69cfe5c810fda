"""Plotly figures as plain dicts, built from plain values (no HTTP, no queries).

Every builder returns a `Chart`: the figure and the rows it plots, so the chart's CSV is exactly
what is drawn. Views gather the values with querysets and embed `chart.figure` with json_script;
static/js/charts.js hands it to Plotly.
"""

from __future__ import annotations

import html
import math
import zlib
from dataclasses import dataclass

# Colour-blind-safe palette (Okabe-Ito), then Plotly's default cycle.
PALETTE = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000",
           "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"]


FONT = {"family": "system-ui, -apple-system, Segoe UI, sans-serif", "size": 12}


# One colour per benchmark in every chart, whatever else is plotted beside it, no two alike
# (progress charts put every round's benchmarks side by side; test_charts measures the distance).
# Benchmarks not listed get a palette colour from a hash of their name: stable across pages.
BENCHMARK_COLOURS = {
    "resnet": "#0072B2", "ssd": "#E69F00", "maskrcnn": "#009E73", "gnmt": "#D55E00", "transformer": "#CC79A7",
    "ncf": "#56B4E9", "minigo": "#8c564b", "bert": "#000000", "dlrm": "#9467bd", "rnnt": "#7f7f7f",
    "unet3d": "#bcbd22", "retinanet": "#17becf", "stable_diffusion": "#d62728", "gpt3": "#393b79",
    "dlrm_dcnv2": "#e7298a", "llama2_70b_lora": "#2ca02c", "rgat": "#637939",
    # MLPerf HPC (hashed, cosmoflow and deepcam drew in the same green on the HPC progress page).
    "cosmoflow": "#b5cf6b", "deepcam": "#3b4cc0", "oc20": "#a6761d", "opencatalyst": "#a6cee3", "openfold": "#fb9a99",
}


@dataclass
class Chart:
    name: str
    title: str
    figure: dict
    columns: list[str]
    rows: list[dict]

    def __post_init__(self) -> None:
        _fit_log_ticks(self.figure)
        _reserve_legend_room(self.figure)
        _reserve_title_room(self.figure)

    @property
    def empty(self) -> bool:
        return not self.rows

    @property
    def legend_entries(self) -> int:
        """The traces the legend lists: on a phone the legend goes below the plot and the chart's
        box is made taller by that many (static/css/site.css)."""
        return len(_legend_names(self.figure))

    @property
    def script_id(self) -> str:
        """The id of the json_script element that holds the figure on a page."""
        return f"figure-{self.name}"

    def outline(self) -> dict:
        """What a page shows of the chart when its figure is fetched as it is drawn
        (templates/results/_chart.html with lazy_data), as JSON: it may be kept in the cache."""
        return {"name": self.name, "title": self.title, "empty": self.empty, "legend_entries": self.legend_entries,
                "script_id": self.script_id, "figure": {"layout": {"height": self.figure.get("layout", {}).get("height")}}}


# Plotly draws its toolbar (the mode bar) over the figure's top right corner (always on a touch
# screen, on hover elsewhere): the title goes below a strip the toolbar has to itself, then a gap
# to the plot. static/js/charts.js places it the same way, wrapped to the chart's width.
TOOLBAR_STRIP = 32  # px: the mode bar's height (about 26) and air
TITLE_TOP = TOOLBAR_STRIP + 19 + 10  # the strip, one line of the 14 px title, the gap


def layout(title: str, **extra) -> dict:
    layout = {
        "title": {"text": title, "x": 0, "xref": "container", "xanchor": "left", "y": 1, "yref": "container",
                  "yanchor": "top", "pad": {"t": TOOLBAR_STRIP, "l": 8}, "font": {"size": 14}},
        "font": FONT,
        "margin": {"l": 60, "r": 20, "t": TITLE_TOP, "b": 50},
        # A chart with a single trace still names it: a lone bar or line is otherwise unlabelled.
        "showlegend": True,
        "hovermode": "closest",
        "plot_bgcolor": "#fff",
        "paper_bgcolor": "#fff",
    }
    layout.update(extra)
    return layout


def axis(title: str, log: bool = False, **extra) -> dict:
    axis = {"title": {"text": title}, "gridcolor": "#e5e8ee", "zeroline": False, "automargin": True}
    if log:
        # Its ticks are set from the data the chart holds (Chart, _fit_log_ticks).
        axis["type"] = "log"
    axis.update(extra)
    return axis


# Width of the legend beside a chart, per character of its longest entry and for the symbol and
# padding: about what Plotly measures for the 12 px font, a little more rather than less.
LEGEND_PX_PER_CHAR = 7.2


LEGEND_PX_EXTRA = 60


def _legend_names(figure: dict) -> list[str]:
    """The names the legend lists: every trace not marked showlegend false."""
    return [str(trace.get("name", "")) for trace in figure.get("data", []) if trace.get("showlegend", True)]


def _reserve_legend_room(figure: dict) -> None:
    """Start the right margin at the width the legend will take. Plotly first draws the figure with
    the margin it is given, then, finding the legend wider, draws it all again with a wider one:
    the second drawing is most of a chart's cost on a first visit (bench/browser.py)."""
    layout = figure.get("layout", {})
    names = _legend_names(figure)
    if not layout.get("showlegend") or not names:
        return
    margin = layout.setdefault("margin", {})
    needed = round(max(len(name) for name in names) * LEGEND_PX_PER_CHAR + LEGEND_PX_EXTRA)
    margin["r"] = max(margin.get("r", 0), needed)


def _reserve_title_room(figure: dict) -> None:
    """A titled figure's top margin holds the toolbar's strip and the title (a builder may ask for
    less); one of a set height grows by what it adds, so that its plot keeps its size and the box
    the page holds for it before it is drawn is the drawn chart's (charts.js)."""
    layout = figure.get("layout", {})
    if not (layout.get("title") or {}).get("text"):
        return
    margin = layout.setdefault("margin", {})
    missing = TITLE_TOP - margin.get("t", 0)
    if missing > 0:
        margin["t"] = TITLE_TOP
        if layout.get("height"):
            layout["height"] += missing


# Plotly pads a log axis beyond its data (markers, text) by about this factor each side; around
# a lone value, or bars (drawn up from far below), by about a decade.
LOG_AXIS_PADDING = 1.25
LOG_AXIS_WIDE_PADDING = 10.0


def _fit_log_ticks(figure: dict) -> None:
    """Label each log axis in plain numbers ("1", "2", "5", "10", "20", ...): where its range
    crosses a power of ten, Plotly's own log ticks label the others as bare small digits
    ("5 2 10 5 2 1 5", "8 9 10 2 3 4"), which read as nonsense. The ticks are set from the range
    Plotly will show: the data and its padding; ticks outside it are not drawn."""
    layout = figure.get("layout", {})
    traces = figure.get("data", [])
    for name, axis in layout.items():
        if not (name[:5] in ("xaxis", "yaxis") and isinstance(axis, dict) and axis.get("type") == "log"):
            continue
        values = [
            value
            for trace in traces
            for value in trace.get(name[0], [])
            if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0
        ]
        if not values:
            continue
        wide = len(set(values)) == 1 or any(trace.get("type") == "bar" for trace in traces)
        padding = LOG_AXIS_WIDE_PADDING if wide else LOG_AXIS_PADDING
        low, high = min(values) / padding, max(values) * padding
        decades = math.log10(high / low)
        # Denser ticks over a short range, so that at least two are labelled; decades over a long one.
        steps = (range(1, 10) if decades < 0.8 else (1, 2, 3, 5) if decades < 1.5
                 else (1, 2, 5) if decades <= 3.5 else (1,))
        ticks = [step * 10.0**power for power in range(math.floor(math.log10(low)), math.floor(math.log10(high)) + 1)
                 for step in steps]
        axis.update({"tickmode": "array", "tickvals": ticks, "ticktext": [_tick_label(tick) for tick in ticks]})


def _tick_label(value: float) -> str:
    """A tick of a log axis as a plain number: 0.05, 2, 500, 20,000."""
    if value >= 1:
        return f"{value:,.0f}"
    return f"{value:.{max(0, -math.floor(math.log10(value)))}f}"


def caseless_sorted(names) -> list[str]:
    """`names` in case-insensitive order; names that differ only in case ("Dell", "DELL": both
    submitters of the record) in a fixed order, not a set's, which changes between processes."""
    return sorted(names, key=lambda name: (name.lower(), name))


def colour(index: int) -> str:
    return PALETTE[index % len(PALETTE)]


def legend_label(value: str, limit: int = 36) -> str:
    """A long name would squeeze the plot beside its legend: cut it (the hover text has it whole)."""
    return value if len(value) <= limit else value[: limit - 1] + "…"


def benchmark_colour(benchmark: str) -> str:
    return BENCHMARK_COLOURS.get(benchmark) or PALETTE[zlib.crc32(benchmark.encode()) % len(PALETTE)]


def text(value) -> str:
    """A submitter-supplied string as Plotly text. Plotly renders a subset of HTML in labels, hover
    text and legend entries (<a href>, <span style>, <b>, <br>, entities): escaped, the string
    shows exactly as typed and can neither link anywhere nor restyle the chart."""
    return html.escape("" if value is None else str(value), quote=False)


def number(value) -> float | None:
    """A finite float, or None (logs may hold strings such as "NaN")."""
    if isinstance(value, bool):
        return None
    try:
        parsed = float(value)
    except (TypeError, ValueError):
        return None
    return parsed if math.isfinite(parsed) else None
