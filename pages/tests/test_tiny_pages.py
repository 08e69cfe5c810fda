"""MLPerf Tiny end to end on the bundled real sample (sample_data/tiny-v1.3, a subset of round
v1.3): `import_results --round tiny-v1.3` stores the official verdicts and figures, and the public
pages show them in the suite's own words and units (inf./sec., uJ/inf., mW), with the downloads
(CSV, JSON, the official checker's summary, the final report), the charts and citable ids."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.core.management import call_command

from mlperf_check.tiny.pipeline import check_tiny_package
from mlperf_check.tiny.summary import final_report_csv, summary_csv
from results.models import Result, Round

pytestmark = pytest.mark.django_db


@pytest.fixture
def tiny(sample_data):
    out = io.StringIO()
    call_command("import_results", str(sample_data / "tiny-v1.3"), "--round", "tiny-v1.3", "--publish", "--jobs", "1",
                 stdout=out)
    return out.getvalue()


def rows(response) -> list[dict]:
    return list(csv.DictReader(io.StringIO(response.content.decode())))


def test_the_round_is_stored_with_the_official_verdicts_and_figures(tiny, sample_data):
    round_ = Round.objects.get(suite="tiny", version="1.3")
    assert round_.ruleset_version == "tiny-1.3" and round_.state == "published"
    assert list(round_.benchmarks.order_by("name").values_list("name", flat=True)) == ["ad", "ic", "kws", "sww", "vww"]
    results = Result.objects.current().filter(submission__round=round_)
    assert results.count() == 10
    assert all(r.valid and r.official_valid for r in results)
    ic = results.get(system__system_id="syntiant_9120_0v9_30mhz", benchmark__name="ic")
    assert (ic.metric_value, ic.metric_unit, ic.metric_direction) == (62.598, "inf./sec.", "higher")
    assert ic.inference["energy"] == {"value": 101.833, "unit": "uJ/inf."}
    assert ic.inference["accuracy"]["printed"] == "86.0" and ic.inference["runner"] == "EEMBC"
    assert ic.result_id.startswith("tiny:") and ic.result_id.endswith(":ic")
    sww = results.get(system__system_id="NUCLEO_H7A3ZI_Q", benchmark__name="sww")
    assert sww.inference["energy"] == {"value": 30.4526, "unit": "mW"}
    assert sww.inference["streaming"]["false_positives"] == 4
    # A second import of the same folders changes nothing.
    out = io.StringIO()
    call_command("import_results", str(sample_data / "tiny-v1.3"), "--round", "tiny-v1.3", "--jobs", "1", stdout=out)
    assert "created" not in out.getvalue()


def test_the_round_page_ranks_each_benchmark_by_throughput(client, tiny):
    page = client.get("/rounds/tiny-v1.3/").content.decode()
    assert "Tiny v1.3" in page and "inf./sec." in page and "uJ/inf." in page
    ic = page[page.index('id="board-ic"'):]
    ic = ic[: ic.index("</table>")]
    assert ic.index("62.598") < ic.index("6.036")  # syntiant first, then the STM32
    sww = page[page.index('id="board-sww"'):]
    assert "mW" in sww[: sww.index("</table>")]


def test_the_downloads_are_the_official_tables(client, tiny, sample_data):
    report = check_tiny_package(sample_data / "tiny-v1.3")
    summary = rows(client.get("/rounds/tiny-v1.3/summary.csv"))
    assert summary == list(csv.DictReader(io.StringIO(summary_csv(report.results))))
    exported = rows(client.get("/rounds/tiny-v1.3/table.csv?benchmark=kws"))
    assert [r["system_id"] for r in exported] == ["syntiant_9120_0v9_30mhz", "NUCLEO_L4R5ZI-P"]
    assert exported[0]["throughput_inf_per_s"] == "228.982" and exported[0]["energy_unit"] == "uJ/inf."
    assert json.loads(client.get("/rounds/tiny-v1.3/table.json").content)["rows"]
    final = client.get("/rounds/tiny-v1.3/tables.csv").content.decode()
    assert final == final_report_csv(report.results, version="1.3")


def test_the_benchmark_page_plots_energy_and_accuracy(client, tiny):
    page = client.get("/rounds/tiny-v1.3/ic/").content.decode()
    assert 'id="chart-energy-throughput"' in page and 'id="chart-accuracy"' in page
    chart = rows(client.get("/rounds/tiny-v1.3/ic/charts/energy-throughput.csv"))
    assert {(r["system"], r["energy"]) for r in chart} >= {("NDP9120", "101.833")}


def test_the_result_page_shows_its_windows_and_checks(client, tiny):
    result = Result.objects.current().get(system__system_id="NUCLEO_H7A3ZI_Q", benchmark__name="sww")
    page = client.get(f"/results/{result.result_id}/").content.decode()
    assert "235.22" in page and "30.4526 mW" in page and "False positives" in page
    windows = rows(client.get(f"/results/{result.result_id}/charts/windows.csv"))
    assert windows == [{"measure": "energy (mW)", "window": "1", "value": "30.4526", "median": "30.4526"}]
    assert client.get(f"/r/{result.result_id}").status_code in (301, 302)



def test_a_snapshot_holds_the_results_and_the_official_summary(tiny):
    from pages.snapshots import take_snapshot

    snapshot = take_snapshot(Round.objects.get(suite="tiny", version="1.3"))
    assert snapshot is not None
    names = {f["name"] for f in snapshot.files}
    assert {"results.csv", "results.parquet", "summary.csv", "systems.csv", "README.md", "SHA256SUMS"} <= names


def test_the_shared_pages_speak_of_the_tiny_round(client, tiny):
    home = client.get("/").content.decode()
    assert "Tiny" in home and "microcontrollers" in home
    assert client.get("/progress/tiny/").status_code == 200
    ids = list(Result.objects.current().filter(benchmark__name="kws").values_list("result_id", flat=True))
    compare = client.get("/compare/", {"result": ids})
    assert compare.status_code == 200 and "Median throughput (inf./sec.)" in compare.content.decode()
    api = client.get("/api/v1/rounds/").content.decode()
    assert "tiny-v1.3" in api


def test_one_submitter_in_both_divisions_is_one_version_with_a_system_row_per_division(sample_data, tmp_path):
    """syntiant's folder copied into open/ too: one version, its systems twice (`<id>.open`)."""
    import shutil

    round_folder = tmp_path / "tiny-v1.3"
    shutil.copytree(sample_data / "tiny-v1.3" / "closed" / "syntiant", round_folder / "closed" / "syntiant")
    shutil.copytree(sample_data / "tiny-v1.3" / "closed" / "syntiant", round_folder / "open" / "syntiant")
    call_command("import_results", str(round_folder), "--round", "tiny-v1.3", "--jobs", "1", stdout=io.StringIO())
    results = Result.objects.current().filter(submission__round__suite="tiny", benchmark__name="ic")
    assert sorted(results.values_list("division", "system__system_id")) == [
        ("closed", "syntiant_9120_0v9_30mhz"), ("open", "syntiant_9120_0v9_30mhz.open")]
    assert len({r.result_id for r in results}) == 2


def test_every_link_of_the_tiny_pages_answers(client, tiny):
    """From the round page: every internal link of every Tiny page (round, benchmarks, results,
    their systems, charts and downloads) answers 2xx or 3xx; pages outside the round are fetched,
    not followed."""
    from collections import deque

    from pages.tests.test_crawl import internal_links

    seen, queue = {"/rounds/tiny-v1.3/"}, deque(["/rounds/tiny-v1.3/"])
    while queue:
        path = queue.popleft()
        response = client.get(path)
        assert response.status_code < 400, (path, response.status_code)
        inside = path.startswith(("/rounds/tiny-v1.3/", "/results/tiny:")) and "?" not in path
        if not inside or "html" not in response.get("Content-Type", ""):
            continue
        for link in internal_links("http://testserver" + path, response.content.decode()):
            if link not in seen and not link.startswith(("/admin/", "/accounts/logout/")):
                seen.add(link)
                queue.append(link)
    assert len(seen) > 60
