"""A verification job with a multi-megabyte log: appends cost the same at the first line and at
the last, the job page shows one page of the log (as the stored log pages do) in bounded memory,
and the status poll stays a few hundred bytes."""

from __future__ import annotations

import io
import json
import tracemalloc

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from results import logs
from verify import services
from verify.models import VerificationJob
from verify.tests.world import stored_log, verifiable_result

pytestmark = pytest.mark.django_db

SLICE = 256 * 1024  # as the worker ships its output


def log_text(megabytes: int) -> str:
    """Lines of every length from 10 to ~500 characters (some non-ASCII, one a script tag), whose
    line breaks fall anywhere in the worker's slices."""
    lines, size, number = [], 0, 0
    while size < megabytes * 1024 * 1024:
        number += 1
        line = f"{number:08d} :::MLLOG {'é' if number % 7 == 0 else 'x'}" + "-" * (number * 37 % 490)
        if number == 4321:
            line = "<script>alert(1)</script>"
        lines.append(line)
        size += len(line) + 1
    return "\n".join(lines) + "\n"


@pytest.fixture
def running_job(personas, tmp_path):
    result = verifiable_result(personas, tmp_path)
    job = services.request_verification(actor=personas["reviewer"], result=result, runs=1)
    services.start_job(job)
    return job


@pytest.fixture
def big_job(running_job):
    text = log_text(12)
    for start in range(0, len(text), SLICE):
        services.append_output(running_job, text[start : start + SLICE], [])
    running_job.refresh_from_db()
    return running_job, text


def test_each_page_is_the_page_the_stored_log_pages_would_show(big_job):
    job, text = big_job
    whole = text.encode()
    expected_count = logs.read_page(io.BytesIO(whole), 1).page_count
    assert (job.log_chars, job.log_lines) == (len(text), text.count("\n"))
    assert job.log_page(1).page_count == expected_count > 10
    for number in (1, 2, 3, expected_count // 2, expected_count - 1, expected_count):
        assert job.log_page(number) == logs.read_page(io.BytesIO(whole), number), number
    assert job.log_page(0) is None and job.log_page(expected_count + 1) is None


@pytest.mark.parametrize("pieces", [["a\nb", "c\n", "\n\nd"], ["no newline at all"], ["\n"], ["x\n" * 2500, "y" * 10, "\n"]])
def test_pages_are_right_however_the_appends_cut_the_lines(running_job, pieces):
    for piece in pieces:
        services.append_output(running_job, piece, [])
    running_job.refresh_from_db()
    whole = "".join(pieces).encode()
    reference = logs.read_page(io.BytesIO(whole), 1)
    assert running_job.log_lines == reference.line_count
    for number in range(1, reference.page_count + 1):
        assert running_job.log_page(number) == logs.read_page(io.BytesIO(whole), number)


def test_an_empty_log_has_one_empty_page(running_job):
    assert running_job.log_page(1) == logs.read_page(io.BytesIO(b""), 1)
    assert Client().get(f"/verify/jobs/{running_job.pk}/").status_code == 200


def test_appends_neither_read_nor_measure_the_stored_log(big_job):
    job, _ = big_job
    chunk = "more output\n" * 1000
    with CaptureQueriesContext(connection) as queries:
        services.append_output(job, chunk, [])
    reads = [query["sql"] for query in queries if query["sql"].lstrip().upper().startswith("SELECT")]
    assert reads and not any("verificationlogchunk" in sql for sql in reads), reads
    assert not any("LENGTH(" in query["sql"].upper() for query in queries)
    # The same statements, no more, as the first append to an empty log.
    other = VerificationJob.objects.get(pk=job.pk)
    VerificationJob.objects.filter(pk=job.pk).update(log_chars=0, log_newlines=0, log_lines=0)
    job.log_chunks.all().delete()
    with CaptureQueriesContext(connection) as first:
        services.append_output(other, chunk, [])
    assert len(first) == len(queries)
    job.refresh_from_db()
    assert (job.log_chars, job.log_lines, stored_log(job)) == (len(chunk), 1000, chunk)


def test_the_job_page_shows_one_page_in_bounded_memory(big_job, personas):
    job, text = big_job
    client = Client()
    client.force_login(personas["reviewer"])
    client.get(f"/verify/jobs/{job.pk}/")  # templates and code loaded before measuring
    tracemalloc.start()
    try:
        page = client.get(f"/verify/jobs/{job.pk}/?line=4321")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    content = page.content.decode()
    assert page.status_code == 200 and len(text) > 12_000_000
    assert len(page.content) < 1_000_000, len(page.content)
    assert peak < 8_000_000, peak
    assert 'id="L4321"' in content and "&lt;script&gt;alert(1)&lt;/script&gt;" in content
    assert 'id="L4001"' in content and 'id="L6001"' not in content and 'id="L4000"' not in content
    assert "page 3 of" in content and 'href="/verify/jobs/' in content and "lines 4001–6000" in content
    first = client.get(f"/verify/jobs/{job.pk}/").content.decode()
    assert 'id="L1"' in first and 'id="L2001"' not in first
    assert client.get(f"/verify/jobs/{job.pk}/?page=99999").status_code == 404
    assert client.get(f"/verify/jobs/{job.pk}/?page=two").status_code == 404


def test_the_status_poll_is_state_and_counters_only(big_job, personas):
    job, text = big_job
    client = Client()
    client.force_login(personas["reviewer"])
    with CaptureQueriesContext(connection) as queries:
        response = client.get(f"/verify/jobs/{job.pk}/status.json")
    assert response.status_code == 200 and len(response.content) < 400, response.content
    assert json.loads(response.content) == {
        "state": "running", "stage": "starting", "runs_done": 0, "runs": 1, "outcome": "",
        "log_chars": len(text), "log_lines": text.count("\n"),
    }
    assert not any("verificationlogchunk" in query["sql"] or "telemetry" in query["sql"] for query in queries)
    assert Client().get("/verify/jobs/999999/status.json").status_code == 404
