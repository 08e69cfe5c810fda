"""A result's page at the size of the record's largest (issue 38): an HPC weak-scaling result of
the record has 637 runs (1.26 MB of HTML with every run, its curve inline, and a hyperparameter
column per run), an inference result 1,172 findings of one code (348 KB). The runs and each
severity's findings are paged in the URL; the charts' data is fetched when drawn."""

from __future__ import annotations

import re

import pytest

from results.constants import Scaling, Severity
from results.models import Finding, Result, Run

from .synthetic_time_to_train import make_hpc_round

pytestmark = pytest.mark.django_db

MOST_HTML = 300_000


@pytest.fixture
def weak_result():
    make_hpc_round("1.0", results=4)
    result = Result.objects.filter(scaling=Scaling.WEAK).first() or Result.objects.first()
    Run.objects.bulk_create(
        Run(result=result, file=f"result_{i}.txt", sha256=f"{i:064x}", time_to_train_minutes=30 + i / 100,
            seed=i, global_batch_size=512, hyperparameters={"opt_base_learning_rate": 0.001 * (1 + i % 2),
                                                            "batch_size": 512},
            eval_curve=[[epoch, 0.1 * epoch, 100 + epoch, 1.5 * epoch] for epoch in range(1, 30)])
        for i in range(250)
    )
    Finding.objects.bulk_create(
        Finding(submission=result.submission, result=result, checker="inference", severity=Severity.ERROR,
                code="detail_cas_failed", message=f"the detail log's line {i} is not LoadGen's", file="log.txt", line=i)
        for i in range(1, 1201)
    )
    return result


def html(client, address: str) -> str:
    response = client.get(address)
    assert response.status_code == 200, response.content[:300]
    return response.content.decode()


def test_a_result_of_hundreds_of_runs_and_a_thousand_findings_stays_under_300_kb(client, weak_result):
    address = f"/results/{weak_result.result_id}/"
    page = html(client, address)
    assert len(page.encode()) < MOST_HTML, len(page.encode())
    runs = re.search(r'<table class="results" id="runs">.*?</table>', page, re.S).group(0)
    assert runs.count('<tr class="run-') == 100 and "result_0.txt" in runs and "result_100.txt" not in runs
    assert re.search(r"rows 1–100 of 250", page)
    # A column per run of the page; a value that differs on any run marks its row.
    hyperparameters = re.search(r'id="hyperparameters">.*?</table>', page, re.S).group(0)
    assert hyperparameters.count("<th>result_") == 100
    assert re.search(r'<tr class="differs"><th scope="row"><code>opt_base_learning_rate', hyperparameters)
    # The convergence chart's 250 curves are fetched when drawn, not carried in the page.
    assert 'type="application/json"' not in page
    assert f'data-figure-src="{address}charts/convergence.figure.json"' in page
    assert client.get(f"{address}charts/convergence.json").status_code == 200
    # 1,200 errors, a hundred at a time, each page a link.
    errors = re.search(r'id="findings-error".*?</details>', page, re.S).group(0)
    assert errors.count("detail_cas_failed") == 100 and "Errors: 1200" in errors
    last = html(client, address + "?error_findings_page=12&runs_page=3")
    assert "line 1200 is not" in last and "line 1100 is not" not in last and "result_249.txt" in last
    assert re.search(r'id="findings-error" open', last)


def test_a_malformed_page_of_findings_or_runs_is_refused(client, weak_result):
    for query in ("?error_findings_page=two", "?runs_page=0"):
        response = client.get(f"/results/{weak_result.result_id}/{query}")
        assert response.status_code == 400 and b"must be a whole number" in response.content
