# ruff: noqa: F811 - fixtures imported from upload_fixtures are redefined as arguments
"""`mlperf-check submit` end to end: a live Django server, a real Celery worker process on its own
Redis, the real API and token auth. The command checks locally, uploads, polls and prints the
server's verdict; its exit status follows that verdict."""

from __future__ import annotations

import io

import pytest
from rest_framework.authtoken.models import Token

from ingest.models import Upload
from ingest.tests.tarballs import SAMPLE_V1, sample_tarball
from ingest.tests.upload_fixtures import open_round, unthrottled, worker  # noqa: F401
from mlperf_check import cli
from results.models import Finding, Result

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("unthrottled")]


@pytest.fixture
def isolated_config(tmp_path, monkeypatch):
    """No config file and no MLPERF_* variables from the machine running the tests."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv("MLPERF_TOKEN", raising=False)
    monkeypatch.delenv("MLPERF_URL", raising=False)
    return tmp_path / "config" / "mlperf-check" / "config.toml"


def submit(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    try:
        status = cli.main(["submit", *args, "--poll-seconds", "0.2"], stdout=out, stderr=err)
    except SystemExit as exc:  # argparse's bad-usage exit
        status = exc.code
    return status, out.getvalue(), err.getvalue()


@pytest.mark.worker
@pytest.mark.slow
def test_it_uploads_waits_and_prints_the_servers_verdict(
    live_server, personas, open_round, worker, isolated_config, monkeypatch, tmp_path
):
    token = Token.objects.create(user=personas["owner"]).key
    # The sample is Fujitsu's real folder: Alpha uploads it under a recorded alias of its own.
    personas["alpha"].aliases = ["Fujitsu"]
    personas["alpha"].save()

    # A clean folder, url and token from the config file: packed, uploaded, scored; exit 0.
    isolated_config.parent.mkdir(parents=True)
    isolated_config.write_text(f'url = "{live_server.url}"\ntoken = "{token}"\n')
    status, out, err = submit(str(SAMPLE_V1 / "Fujitsu"), "--round", "training-v1.0")
    assert status == 0, out + err
    upload = Upload.objects.get()
    assert upload.original_name == "Fujitsu.tar.gz"
    assert "Done" in err and f"upload {upload.pk} received" in err
    (result,) = Result.objects.filter(submission=upload.submission)
    assert f"{result.result_id} " in out and f"{result.score_minutes:.4f}" in out
    assert out.splitlines()[-1] == "0 errors, {} warnings, {} notes".format(
        *(
            Finding.objects.filter(submission=upload.submission, severity=s).count()
            for s in ("warning", "info")
        )
    )

    # A package with errors, forced, as an archive, token from the environment: the server's
    # errors are printed and the exit status is 1.
    monkeypatch.setenv("MLPERF_TOKEN", token)
    isolated_config.write_text(f'url = "{live_server.url}"\n')
    status, out, err = submit(str(sample_tarball(tmp_path, "Intel")), "--round", "training-v1.0", "--force")
    assert status == 1, out + err
    intel = Upload.objects.latest("pk")
    assert intel.original_name == "Intel.tar.gz"
    server_errors = Finding.objects.filter(submission=intel.submission, severity="error")
    assert server_errors.exists()
    verdict = out.split("Server verdict", 1)[1]
    assert "ERROR   [LOG_DIVISION_MISMATCH] results/4-nodes-32s-8376H-pytorch/" in verdict
    assert verdict.splitlines()[-1].startswith(f"{server_errors.count()} errors, ")


def test_it_refuses_to_upload_a_package_with_local_errors(live_server, personas, open_round, isolated_config):
    token = Token.objects.create(user=personas["owner"]).key
    status, out, _ = submit(
        str(SAMPLE_V1 / "Intel"), "--round", "training-v1.0", "--url", live_server.url, "--token", token
    )
    assert status == 1
    assert "[LOG_DIVISION_MISMATCH]" in out  # the local findings are shown
    assert out.splitlines()[-1].startswith("Not uploaded: the local check found errors")
    assert not Upload.objects.exists()


def test_it_says_why_the_server_or_the_settings_refuse(live_server, personas, open_round, isolated_config):
    folder = str(SAMPLE_V1 / "Fujitsu")
    status, _, err = submit(folder, "--round", "training-v1.0", "--url", live_server.url)
    assert status == 2 and "no API token: pass --token, set MLPERF_TOKEN" in err

    status, _, err = submit(folder, "--round", "training-v1.0", "--url", live_server.url, "--token", "wrong")
    assert status == 2 and "the server refused the upload (HTTP 403): Invalid token." in err

    outsider = Token.objects.create(user=personas["outsider"]).key  # a valid token, a round that does not exist
    status, _, err = submit(folder, "--round", "training-v9.9", "--url", live_server.url, "--token", outsider)
    assert status == 2 and "(HTTP 400): there is no round training-v9.9" in err

    status, _, err = submit(folder, "--round", "training-v1.0", "--url", "http://127.0.0.1:9", "--token", "x")
    assert status == 2 and "cannot reach http://127.0.0.1:9/api/v1/submissions/" in err

    status, _, err = submit(
        str(SAMPLE_V1.parent / "training-v1.0"),
        "--round",
        "training-v1.0",
        "--url",
        live_server.url,
        "--token",
        "x",
    )
    assert status == 2 and "is a round folder" in err
    assert not Upload.objects.exists()
