"""Normalised views of a leaderboard (`?per=accelerator`, `node` or `watt` in the URL): the score
set against the system's accelerators, nodes or power, labelled as such and shown beside the
total, never in its place. And the warning a table or chart carries when it sets side by side
what ran under different rules (divisions, availability, rounds).

A time (training and HPC minutes, lower is better) is multiplied: minutes × accelerators are
accelerator-minutes, × nodes node-minutes; "per watt" of a time is its energy (the official
summarizer's joules: time × average power). A throughput (inference, higher is better) is
divided: samples/s per accelerator or per node; per watt it is samples (tokens, queries) per
joule as the official power checker computes it. A latency is not normalised: a single stream
does not run faster on more accelerators.

A training round's scores have two views too (`?factors=` of its downloads and summary,
`export_scores --factors`): with the chairs' recorded scaling-factor decisions (DECIDED, what the
pages show) or with the factor every result's logs give (COMPUTED). Suites without scaling
factors ignore it.
"""

from __future__ import annotations

from dataclasses import dataclass

from pages import charts as common

# The two views of a round's scores: with the recorded scaling-factor decisions, or as the logs give them.
DECIDED = "decided"
COMPUTED = "computed"
FACTOR_VIEWS = (DECIDED, COMPUTED)

PER = ("accelerator", "node", "watt")
PER_LABELS = {"": "Totals", "accelerator": "Per accelerator", "node": "Per node", "watt": "Per watt"}


@dataclass(frozen=True)
class View:
    """The view a page shows: `per` ("" for the totals), the views it offers, and what the
    normalised figure is called and how it is made (empty for the totals)."""

    per: str
    offered: tuple[str, ...]
    figure: str = ""
    how: str = ""
    column: str = ""  # the figure's column in a CSV

    @property
    def normalised(self) -> bool:
        return bool(self.per)

    @property
    def choices(self) -> list[tuple[str, str]]:
        """(per, label) of each view the page offers, the totals first."""
        return [(per, PER_LABELS[per]) for per in ("", *self.offered)]


def chosen_per(query, offered) -> str:
    """The `per` of the URL where the page offers it, else "" (the totals)."""
    per = query.get("per", "")
    return per if per in offered else ""


# (figure, how it is made, CSV column) of each normalised view of a time and of a throughput.
TIME_FIGURES = {
    "accelerator": ("Accelerator-minutes", "minutes × accelerators, lower is better", "accelerator_minutes"),
    "node": ("Node-minutes", "minutes × nodes, lower is better", "node_minutes"),
    "watt": ("Energy to train (MJ)", "minutes × average power: the joules of the official summarizer, lower is better",
             "energy_megajoules"),
}
THROUGHPUT_FIGURES = {
    "accelerator": ("per accelerator", "throughput ÷ accelerators (latencies are not divided)", "per_accelerator"),
    "node": ("per node", "throughput ÷ nodes (latencies are not divided)", "per_node"),
    "watt": ("per joule", "samples (tokens, queries) per joule, i.e. per second per watt, as the official power "
                          "checker computes it", "per_joule"),
}


def _view(query, points: list[dict], power: str, figures: dict) -> View:
    """The view of the URL among those offered: per watt only where a point has its `power`."""
    offered = ("accelerator", "node", *(("watt",) if any(p.get(power) is not None for p in points) else ()))
    per = chosen_per(query, offered)
    return View(per, offered, *figures.get(per, ("", "", "")))


def time_view(query, points: list[dict]) -> View:
    """The view of a leaderboard of times (training, HPC time to solution); per watt where a
    result has its energy."""
    return _view(query, points, "energy", TIME_FIGURES)


def time_normalised(point: dict, per: str) -> float | None:
    """A time's normalised figure (see time_view), or None where the system does not say."""
    minutes = common.number(point.get("minutes"))
    if minutes is None:
        return None
    if per == "accelerator":
        return _times(minutes, point.get("accelerators"))
    if per == "node":
        return _times(minutes, point.get("nodes"))
    if per == "watt":
        energy = common.number(point.get("energy"))
        return None if energy is None else energy / 1e6
    return minutes


def throughput_view(query, points: list[dict]) -> View:
    """The view of inference leaderboards; per watt where a result has power."""
    return _view(query, points, "power", THROUGHPUT_FIGURES)


def throughput_normalised(point: dict, per: str) -> float | None:
    """A metric's normalised figure (see throughput_view), or None: a latency per accelerator or
    node, a result without power per watt, a system that does not give the count."""
    value = common.number(point.get("value"))
    if per == "watt":
        return common.number(point.get("samples_per_joule"))
    if value is None or (per and point.get("direction") == "lower"):
        return None
    if per == "accelerator":
        return _divided(value, point.get("accelerators"))
    if per == "node":
        return _divided(value, point.get("nodes"))
    return value


def models_per_minute_normalised(point: dict, per: str) -> float | None:
    """An HPC weak-scaling throughput (models per minute) per accelerator or per node, or None:
    per watt (the summarizer gives no energy of a weak-scaling result to divide by) or a system
    that does not give the count."""
    value = common.number(point.get("models_per_minute"))
    if value is None or per not in ("accelerator", "node"):
        return None
    return _divided(value, point.get("accelerators" if per == "accelerator" else "nodes"))


def _times(value: float, count) -> float | None:
    return value * count if isinstance(count, int) and count > 0 else None


def _divided(value: float, count) -> float | None:
    return value / count if isinstance(count, int) and count > 0 else None


def mixing_warning(points: list[dict], rounds: bool = False) -> str:
    """A sentence where `points` (dicts with division and category, and round where `rounds`)
    set side by side what ran under different rules or availability; "" where they do not."""
    mixed = []
    if len({p.get("division") for p in points}) > 1:
        mixed.append("divisions (closed results follow the reference model and rules; open ones may change them)")
    if len({p.get("category") for p in points}) > 1:
        mixed.append("availability categories (preview and research systems are not for sale yet)")
    if rounds and len({p.get("round") for p in points}) > 1:
        mixed.append("rounds (rules, quality targets and reference models change between rounds)")
    if not mixed:
        return ""
    return "This compares results across " + "; and ".join(mixed) + ": they are not like for like."


def view_links(query, view: View) -> list[dict]:
    """A link per view the page offers, keeping the URL's other choices (filters, colour)."""
    links = []
    for per, label in view.choices:
        kept = query.copy()
        kept.pop("per", None)
        if per:
            kept["per"] = per
        encoded = kept.urlencode()
        links.append({"label": label, "url": f"?{encoded}" if encoded else "?", "current": per == view.per})
    return links


def factor_view(query) -> str:
    """?factors=computed exports every score with the factor the logs give; anything else, the decided scores."""
    factors = query.get("factors", DECIDED)
    return factors if factors in FACTOR_VIEWS else DECIDED
