"""Chart builders are pure: values in, Plotly figure dicts and their plotted rows out."""

import pytest

from pages import charts as common
from pages.suites.time_to_train import charts


def point(result_id, minutes, accelerators=8, **extra):
    values = {"result_id": result_id, "division": "closed", "category": "Available on-premise",
              "submitter": "Alpha", "system": f"sys {result_id}", "accelerator": "A100", "accelerators": accelerators,
              "framework": "PyTorch", "minutes": minutes, "batch_size": 256 * accelerators, "converge": 40.0}
    values.update(extra)
    return values


def test_it_plots_one_point_per_system_on_a_log_axis():
    chart = charts.time_to_train([point("1", 10.0), point("2", 2.0, division="open"), point("3", None)], "resnet")
    assert chart.figure["layout"]["yaxis"]["type"] == "log"
    assert [t["name"] for t in chart.figure["data"]] == ["closed division", "open division"]
    assert sum(len(t["y"]) for t in chart.figure["data"]) == len(chart.rows) == 2  # the CSV is what is drawn
    assert "sys 1" in chart.figure["data"][0]["text"][0]


def test_submitters_that_differ_only_in_case_keep_one_order_whatever_order_they_come_in():
    """The record has both "Dell" and "DELL": ordered by a set's iteration, a page's colours and
    filter options changed between processes (PYTHONHASHSEED), so a citable page did too."""
    assert common.caseless_sorted(["Dell", "amd", "DELL"]) == common.caseless_sorted(["DELL", "Dell", "amd"]) \
        == ["amd", "DELL", "Dell"]
    rows = [point("1", 10.0, submitter="Dell"), point("2", 12.0, submitter="DELL", accelerators=16)]
    coloured = [charts.scaling(order, "resnet", colour_by="submitter").figure for order in (rows, rows[::-1])]
    assert coloured[0] == coloured[1]
    assert [trace["name"] for trace in coloured[0]["data"] if trace["name"] in ("Dell", "DELL")] == ["DELL", "Dell"]


def test_it_computes_family_speedup_and_an_ideal_scaling_guide():
    chart = charts.scaling([point("1", 100.0, 8), point("2", 30.0, 32), point("3", 50.0, 16, submitter="Beta")],
                           "resnet")
    rows = {r["result_id"]: r for r in chart.rows}
    assert rows["2"]["speedup"] == pytest.approx(100 / 30, rel=1e-3)
    assert rows["2"]["efficiency"] == pytest.approx(100 / 30 / 4, rel=1e-3)
    assert rows["3"]["speedup"] is None  # a family seen at one scale only
    guide = chart.figure["data"][-1]
    assert guide["name"] == "ideal scaling" and guide["x"] == [8, 32] and guide["y"] == [100.0, 25.0]
    assert chart.figure["layout"]["xaxis"]["type"] == "log"


def test_it_colours_scaling_by_submitter_on_request():
    chart = charts.scaling([point("1", 10.0), point("2", 5.0, 16, submitter="Beta")], "bert", colour_by="submitter")
    assert [t["name"] for t in chart.figure["data"][:2]] == ["Alpha", "Beta"]


def test_it_marks_where_each_run_crosses_the_target():
    runs = [
        {"run": "result_0.txt", "scoring": "counted", "curve": [[1, 0.5, 10], [2, 0.76, 20], [3, 0.78, 30]]},
        {"run": "result_1.txt", "scoring": "dropped_fastest", "curve": [[1, 0.6, 10], [2, "NaN", 20], [3, 0.7, 30]]},
    ]
    chart = charts.convergence(runs, metric="top-1", targets={"": 0.759}, higher_is_better=True)
    crossed = [r for r in chart.rows if r["crossed"]]
    assert [(r["run"], r["x"]) for r in crossed] == [("result_0.txt", 2.0)]
    assert len(chart.rows) == 5  # the NaN point is not plotted, so not in the CSV
    assert chart.figure["layout"]["shapes"][0]["y0"] == 0.759
    assert chart.figure["data"][1]["line"]["dash"] == "dot"  # dropped run


def test_it_plots_per_component_curves_against_per_component_targets():
    runs = [{"run": "r0", "scoring": "counted",
             "curve": [[1, {"BBOX": 0.30, "SEGM": 0.2}, 5], [2, {"BBOX": 0.38, "SEGM": 0.35}, 9]]}]
    chart = charts.convergence(runs, metric="mAP", targets={"BBOX": 0.377, "SEGM": 0.339}, higher_is_better=True)
    assert sorted(t["name"] for t in chart.figure["data"][:2]) == ["r0 BBOX", "r0 SEGM"]
    assert {(r["component"], r["x"]) for r in chart.rows if r["crossed"]} == {("BBOX", 2.0), ("SEGM", 2.0)}


def test_it_plots_against_time_when_every_evaluation_has_the_same_epoch():
    # NVIDIA's BERT logs epoch_num 1 at every evaluation.
    runs = [{"run": "r0", "scoring": "counted", "curve": [[1, 0.5, 10, 2.0], [1, 0.6, 20, 4.5], [1, 0.73, 30, 7.25]]}]
    chart = charts.convergence(runs, metric="accuracy", targets={"": 0.72}, higher_is_better=True)
    assert [r["x"] for r in chart.rows] == [2.0, 4.5, 7.25]
    assert [r["x"] for r in chart.rows if r["crossed"]] == [7.25]
    assert chart.figure["layout"]["xaxis"]["title"]["text"] == "Minutes since run_start"


def test_it_handles_lower_is_better_metrics():
    runs = [{"run": "r0", "scoring": "counted", "curve": [[1, 0.9, 1], [2, 0.8, 2], [3, 0.7, 3]]}]
    chart = charts.convergence(runs, metric="loss", targets={"": 0.8}, higher_is_better=False)
    assert [r["x"] for r in chart.rows if r["crossed"]] == [2.0]


def test_it_shows_dropped_and_failed_runs_in_the_run_strip():
    chart = charts.run_times([
        {"run": "a", "minutes": 10, "scoring": "counted"},
        {"run": "b", "minutes": 9, "scoring": "dropped_fastest", "reason": "fastest"},
        {"run": "c", "minutes": None, "scoring": "failed", "reason": "no run_stop"},
    ])
    assert [t["name"] for t in chart.figure["data"]] == ["counted", "dropped fastest"]
    assert [r["run"] for r in chart.rows] == ["a", "b"]


def test_it_plots_batch_size_against_epochs():
    chart = charts.batch_size([point("1", 10, 8), point("2", 5, 64, converge=None)], "resnet", unit="epochs")
    assert chart.rows[0]["batch_size"] == 2048 and len(chart.rows) == 1


def test_it_tracks_progress_across_rounds_and_annotates_target_changes():
    entries = [
        {"round": "0.5", "benchmark": "resnet", "minutes": 100.0, "accelerators": 8, "system": "a", "submitter": "A",
         "result_id": "0.5-1"},
        {"round": "0.5", "benchmark": "resnet", "minutes": 10.0, "accelerators": 512, "system": "b", "submitter": "A",
         "result_id": "0.5-2"},
        {"round": "0.6", "benchmark": "resnet", "minutes": 80.0, "accelerators": 8, "system": "c", "submitter": "B",
         "result_id": "0.6-1"},
        {"round": "0.6", "benchmark": "resnet", "minutes": 2.0, "accelerators": 2048, "system": "d", "submitter": "B",
         "result_id": "0.6-2"},
    ]
    targets = [{"round": "0.5", "benchmark": "resnet", "target": 0.749},
               {"round": "0.6", "benchmark": "resnet", "target": 0.759}]
    best, fixed, scale = charts.round_over_round(entries, targets, fixed_scale=8)
    assert [(r["round"], r["minutes"], r["target_changed"]) for r in best.rows] == [("0.5", 10.0, False),
                                                                                     ("0.6", 2.0, True)]
    trace = best.figure["data"][0]
    assert trace["marker"]["symbol"] == ["circle", "diamond-open"]  # the changed target marks its point
    assert "0.749 → 0.759" in trace["text"][1]
    assert fixed.rows[0]["speedup"] == pytest.approx(1.25) and fixed.rows[0]["target_changed"]
    assert [r["accelerators"] for r in scale.rows] == [512, 2048]


def test_it_returns_empty_charts_without_data():
    assert charts.time_to_train([], "x").empty
    assert charts.scaling([], "x").figure["data"] == []
    assert all(chart.empty for chart in charts.round_over_round([], [], 8))


HOSTILE = '<a href="https://evil.example/">x</a><span style="font-size:90px">big</span> & <b>'


def test_it_escapes_submitter_strings_that_plotly_would_render_as_markup():
    hostile = point("1.0-0001", 10.0, 8, submitter=HOSTILE, system=HOSTILE, accelerator=HOSTILE)
    figures = [
        charts.time_to_train([hostile], "resnet").figure,
        charts.scaling([hostile, dict(hostile, result_id="1.0-0002", accelerators=16, minutes=6.0)], "resnet").figure,
        charts.scaling([hostile], "resnet", colour_by="submitter").figure,
        charts.batch_size([hostile], "resnet", unit="epochs").figure,
        charts.convergence([{"run": HOSTILE, "scoring": "counted", "curve": [[1, 0.8, 3]]}], metric=HOSTILE,
                           targets={"": 0.7}, higher_is_better=True).figure,
        charts.run_times([{"run": HOSTILE, "minutes": 3.0, "scoring": "failed", "reason": HOSTILE}]).figure,
        *(c.figure for c in charts.round_over_round(
            [{"round": "1.0", "benchmark": HOSTILE, "minutes": 3.0, "accelerators": 8, "system": HOSTILE,
              "submitter": HOSTILE, "result_id": "1.0-1"}], [], 8)),
    ]
    for figure in figures:
        for trace in figure["data"]:
            for key in ("name", "text", "hovertemplate", "customdata"):
                values = trace.get(key)
                for value in values if isinstance(values, list) else [values]:
                    if isinstance(value, str):
                        assert "<a " not in value and "<span" not in value and "& " not in value, (key, value)
    assert "&lt;a href=" in charts.scaling([hostile], "resnet", colour_by="submitter").figure["data"][0]["name"]


def test_scaling_families_never_mix_divisions():
    chart = charts.scaling([point("1", 10.0, 16), point("2", 12.0, 16, division="open"),
                            point("3", 6.0, 32, division="open")], "bert")
    rows = {r["result_id"]: r for r in chart.rows}
    assert rows["1"]["speedup"] is None  # the closed result has no family at another scale
    assert rows["3"]["speedup"] == pytest.approx(2.0) and rows["3"]["family_base_accelerators"] == 16


def test_time_to_train_gives_axis_space_only_to_categories_with_points():
    chart = charts.time_to_train([point("1", 10.0)], "resnet", category_order=["Available cloud", "Available on-premise"])
    assert chart.figure["layout"]["xaxis"]["categoryarray"] == ["Available on-premise"]


def test_every_chart_gives_a_benchmark_the_same_colour():
    entries = [{"round": r, "benchmark": b, "minutes": m, "accelerators": 8, "system": "s", "submitter": "A",
                "result_id": f"{r}-{b}"} for r, b, m in [("0.7", "bert", 5.0), ("1.0", "bert", 3.0),
                                                         ("1.0", "transformer", 2.0)]]
    best, _, _ = charts.round_over_round(entries, [], 8)
    colours = {t["name"]: t["line"]["color"] for t in best.figure["data"]}
    assert colours["bert"] != colours["transformer"]
    best_alone, _, _ = charts.round_over_round([e for e in entries if e["benchmark"] == "bert"], [], 8)
    assert best_alone.figure["data"][0]["line"]["color"] == colours["bert"]


def test_headlines_compare_the_newest_round_with_the_previous_one():
    def entry(round_, benchmark, minutes):
        return {"round": round_, "benchmark": benchmark, "minutes": minutes, "accelerators": 8, "system": "s",
                "submitter": "A", "result_id": f"{round_}-{benchmark}-{minutes}"}

    entries = [entry("0.7", "bert", 50.0), entry("1.0", "bert", 25.0), entry("1.0", "bert", 30.0),
               entry("0.7", "ssd", 10.0), entry("1.0", "ssd", 8.0), entry("1.0", "unet3d", 40.0)]
    targets = [{"round": "0.7", "benchmark": "ssd", "target": 0.212}, {"round": "1.0", "benchmark": "ssd", "target": 0.23}]
    chart = charts.headlines(entries, targets)
    rows = {r["benchmark"]: r for r in chart.rows}
    assert rows["bert"]["minutes"] == 25.0 and rows["bert"]["change"] == "2.00× faster"
    assert rows["ssd"]["change"] == "quality target changed: not comparable"
    assert rows["unet3d"]["change"] == "new benchmark" and rows["unet3d"]["previous_minutes"] is None
    assert [t["name"] for t in chart.figure["data"]] == ["best in v0.7", "best in v1.0"]
    assert charts.headlines([], []).empty


def test_the_pareto_frontier_holds_the_results_nothing_beats_with_as_few_accelerators():
    chart = charts.pareto([point("a", 100.0, 8), point("b", 120.0, 16), point("c", 40.0, 32), point("d", 30.0, 32),
                           point("e", 50.0, 64), point("o", 90.0, 8, division="open")], "resnet")
    frontier = {r["result_id"] for r in chart.rows if r["on_frontier"]}
    assert frontier == {"a", "d", "o"}  # b is slower than a with more; c is beaten by d; e by d with fewer
    names = [t["name"] for t in chart.figure["data"]]
    assert names == ["closed division", "closed division: frontier", "open division", "open division: frontier"]
    assert chart.figure["data"][1]["x"] == [8, 32]


def test_a_log_axis_is_labelled_in_plain_numbers():
    """Plotly's own log ticks label 2 and 5 as bare small digits ("5 2 10 5 2 1 5") where the axis
    crosses a power of ten: every log axis gets plain-number ticks over the range Plotly shows,
    denser over a short range, decades only over a long one."""
    def labels(chart, axis="yaxis"):
        return chart.figure["layout"][axis]["ticktext"]

    short = charts.pareto([point("1", 20.0, accelerators=2), point("2", 45.0, accelerators=6)], "bert")
    assert labels(short) == ["10", "20", "30", "40", "50", "60", "70", "80", "90"]
    crossing = charts.pareto([point("1", 1.7, accelerators=8), point("2", 13.4, accelerators=64)], "bert")
    assert labels(crossing) == ["1", "2", "3", "5", "10", "20", "30", "50"]
    wide = charts.pareto([point("1", 5.0, accelerators=8), point("2", 300.0, accelerators=1024)], "bert")
    assert labels(wide) == ["1", "2", "5", "10", "20", "50", "100", "200", "500"]
    assert wide.figure["layout"]["yaxis"]["tickvals"][:4] == [1.0, 2.0, 5.0, 10.0]
    huge = charts.pareto([point("1", 1.0, accelerators=1), point("2", 9000.0, accelerators=4096)], "bert")
    assert labels(huge) == ["0.1", "1", "10", "100", "1,000", "10,000"]
    tiny = charts.pareto([point("1", 0.05, accelerators=8), point("2", 3.0, accelerators=16)], "bert")
    assert labels(tiny)[:3] == ["0.01", "0.02", "0.05"]
    # A lone value (Plotly shows about a decade each side) gets 1-2-5 ticks around it.
    lone = charts.pareto([point("1", 27.0, accelerators=8)], "bert")
    assert labels(lone) == ["1", "2", "5", "10", "20", "50", "100", "200", "500"]


def test_a_chart_starts_with_room_for_its_legend_and_short_category_lines():
    """Plotly draws a figure twice when the legend needs a wider margin than it was given: the
    margin starts at the legend's width. Category names are wrapped, never rotated."""
    chart = charts.scaling([point("1", 10.0, accelerator="Intel Xeon Platinum 8380"), point("2", 5.0, 16)], "resnet")
    longest = max(len(t["name"]) for t in chart.figure["data"])
    assert chart.figure["layout"]["margin"]["r"] >= longest * common.LEGEND_PX_PER_CHAR
    ttt = charts.time_to_train([point("1", 10.0, category="Research, development, or internal")], "resnet")
    assert ttt.figure["layout"]["xaxis"]["ticktext"] == ["Research,<br>development,<br>or internal"]
    assert ttt.figure["layout"]["xaxis"]["tickangle"] == 0


def test_no_two_benchmarks_share_a_colour():
    """ssd and dlrm_dcnv2 were nearly the same orange, resnet and gpt3 the same blue."""
    from itertools import combinations

    from pages.charts import BENCHMARK_COLOURS

    def rgb(colour):
        return [int(colour[i:i + 2], 16) for i in (1, 3, 5)]

    for (a, x), (b, y) in combinations(BENCHMARK_COLOURS.items(), 2):
        assert sum((p - q) ** 2 for p, q in zip(rgb(x), rgb(y), strict=True)) ** 0.5 > 55, (a, b)
