"""The dashboard in a real browser: open a round, filter it, open a result, the charts draw,
download a CSV. Screenshots of each page land in test-output/screenshots/ (with TEST_SCREENSHOTS=1)."""

import csv

import pytest

from results.constants import Deployment
from results.tests.factories import make_org, make_result, make_round, make_submission, make_system
from tests.browser.conftest import drawn_traces

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def data():
    round_ = make_round("1.0")
    alpha = make_submission(round_, make_org("Alpha"))
    beta = make_submission(round_, make_org("Beta"))
    log = "\n".join(f":::MLLOG line {n}" for n in range(1, 200))
    for index, count in enumerate([8, 64, 512]):
        system = make_system(alpha, f"dgx{count}", name=f"DGX A100 x{count}", accelerators_count=count,
                             number_of_nodes=max(1, count // 8))
        make_result(system, "resnet", minutes=28.0 * 8 / count * 1.1 ** index, result_id=f"1.0-000{index + 1}",
                    log_text=log)
        make_result(system, "bert", minutes=20.0 * 8 / count, result_id=f"1.0-001{index + 1}")
    cloud = make_system(beta, "tpu", name="Cloud TPU v4 pod", deployment=Deployment.CLOUD,
                        accelerator_model_name="TPU v4", accelerators_count=256)
    make_result(cloud, "resnet", minutes=1.4, result_id="1.0-0020")
    return round_


def test_it_browses_filters_and_downloads(live_server, page, screenshot, data, tmp_path):
    page.goto(f"{live_server.url}/")
    screenshot("home")
    page.click("text=Training v1.0")
    page.wait_for_url("**/rounds/training-v1.0/", wait_until="load")
    assert page.locator("#results-table tbody tr:not(.group)").count() == 4
    screenshot("round")

    page.select_option("select[name=deployment]", "cloud")  # round.js submits on change
    page.wait_for_url("**deployment=cloud**")
    rows = page.locator("#results-table tbody tr:not(.group)")
    assert rows.count() == 1 and "Cloud TPU v4 pod" in rows.first.inner_text()
    screenshot("round-filtered")

    with page.expect_download() as download_info:
        page.click("#download-csv")
    path = tmp_path / "table.csv"
    download_info.value.save_as(path)
    with path.open() as handle:
        assert [row["system"] for row in csv.DictReader(handle)] == ["Cloud TPU v4 pod"]

    page.goto(f"{live_server.url}/rounds/training-v1.0/")
    page.click("a[href='/results/1.0-0001/']")
    page.wait_for_selector(".score-big")
    assert drawn_traces(page, "#chart-convergence .plot") >= 5  # one line per run, plus the crossings
    assert drawn_traces(page, "#chart-run-times .plot") >= 2
    assert page.locator("#chart-convergence .scatterlayer .trace").count() >= 5
    screenshot("result")

    page.click("#runs a:text('log')")
    page.wait_for_selector("#L120")
    screenshot("log")


def test_it_draws_the_benchmark_and_progress_charts(live_server, page, screenshot, data):
    page.goto(f"{live_server.url}/rounds/training-v1.0/resnet/")
    assert drawn_traces(page, "#chart-time-to-train .plot") == 1
    assert drawn_traces(page, "#chart-scaling .plot") == 3  # two accelerator models + the ideal-scaling guide
    assert page.locator("#chart-scaling .scatterlayer .point").count() >= 4
    screenshot("benchmark")
    page.goto(f"{live_server.url}/progress/training/")
    assert drawn_traces(page, "#chart-best-time .plot") == 2
    screenshot("progress")
    page.goto(f"{live_server.url}/systems/alpha/dgx8/")
    assert "host_memory_capacity" in page.inner_text("#description")
    screenshot("system")
    page.goto(f"{live_server.url}/compare/?result=1.0-0001&result=1.0-0020")
    assert page.locator("#compare tr.differs").count() >= 3
    screenshot("compare")
    page.goto(f"{live_server.url}/search/?q=tpu")
    assert "Cloud TPU v4 pod" in page.inner_text("main")
    screenshot("search")
