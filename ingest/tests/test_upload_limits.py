# ruff: noqa: F811 - fixtures imported from upload_fixtures are redefined as arguments
"""Requests that must cost nothing (issue 14): the whole request body is limited, not each part,
and non-members, closed rounds and organizations at their job limit are refused before a byte of
the body is read. Requests go through Django's real WSGI handler with a body that counts its reads."""

from __future__ import annotations

import io
import json

import pytest
from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from django.test.client import BOUNDARY, MULTIPART_CONTENT, encode_multipart
from django.utils import timezone
from rest_framework.authtoken.models import Token

from ingest.constants import JobState
from ingest.models import IngestJob, Upload
from ingest.tests.tarballs import sample_tarball
from ingest.tests.upload_fixtures import client_for, open_round, post_upload, unthrottled  # noqa: F401
from results.models import Round

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("unthrottled")]


class CountingBody(io.BytesIO):
    def __init__(self, data: bytes):
        super().__init__(data)
        self.bytes_read = 0

    def read(self, size=-1):
        chunk = super().read(size)
        self.bytes_read += len(chunk)
        return chunk

    def readline(self, size=-1):
        line = super().readline(size)
        self.bytes_read += len(line)
        return line


def wsgi_post(user, query: str, fields: dict, content_length: int | None = None):
    """POST /api/v1/submissions/?query as `user` (token auth) through the WSGI handler.
    Returns (status, json, bytes of the body read)."""
    body = encode_multipart(BOUNDARY, fields)
    stream = CountingBody(body)
    token = Token.objects.get_or_create(user=user)[0]
    environ = {
        "REQUEST_METHOD": "POST",
        "PATH_INFO": "/api/v1/submissions/",
        "QUERY_STRING": query,
        "CONTENT_TYPE": MULTIPART_CONTENT,
        "CONTENT_LENGTH": str(content_length if content_length is not None else len(body)),
        "SERVER_NAME": "testserver",
        "SERVER_PORT": "80",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "127.0.0.1",
        "HTTP_AUTHORIZATION": f"Token {token.key}",
        "wsgi.input": stream,
        "wsgi.url_scheme": "http",
        "wsgi.errors": io.StringIO(),
        "wsgi.multithread": False,
        "wsgi.multiprocess": False,
        "wsgi.run_once": False,
        "wsgi.version": (1, 0),
    }
    captured = {}
    # As Django's test client does: the test's transaction keeps its connection across the request.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        response = WSGIHandler()(environ, lambda status, headers: captured.update(status=status))
        content = b"".join(response)
        response.close()
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)
    return int(captured["status"].split()[0]), json.loads(content or b"{}"), stream.bytes_read


def archive_part(name: str, size: int) -> io.BytesIO:
    part = io.BytesIO(b"\0" * size)
    part.name = name
    return part


def test_six_150_kb_parts_do_not_pass_a_200_kb_limit(personas, open_round, settings):
    settings.UPLOAD_MAX_BYTES = 200 * 1024
    fields = {"round": "training-v1.0", **{f"file{n or ''}": archive_part(f"p{n}.tar", 150 * 1024) for n in range(6)}}
    status, body, _ = wsgi_post(personas["owner"], "", fields)
    assert status in (400, 413), body
    assert not Upload.objects.exists()


def test_a_body_whose_content_length_is_over_the_limit_is_refused_unread(personas, open_round, settings):
    settings.UPLOAD_MAX_BYTES = 200 * 1024
    status, body, read = wsgi_post(
        personas["owner"], "", {"round": "training-v1.0", "file": archive_part("a.tar", 10)}, content_length=10**9
    )
    assert (status, read) == (413, 0)
    assert "larger than the limit of 204800 bytes" in body["detail"]


def test_a_non_member_is_refused_before_a_byte_of_the_body_is_read(personas, open_round):
    from django.contrib.auth.models import User

    loner = User.objects.create_user("loner", "loner@example.org", "password")
    status, body, read = wsgi_post(loner, "", {"round": "training-v1.0", "file": archive_part("a.tar", 500_000)})
    assert (status, read) == (403, 0)
    assert body["detail"] == "you are not a member of any organization"


def test_a_closed_round_named_in_the_query_is_refused_before_the_body_is_read(personas, open_round):
    Round.objects.filter(pk=open_round.pk).update(submission_deadline=timezone.now() - timezone.timedelta(days=1))
    status, body, read = wsgi_post(
        personas["owner"], "round=training-v1.0", {"file": archive_part("a.tar", 500_000)}
    )
    assert (status, read) == (403, 0)
    assert "deadline" in body["detail"]
    assert not Upload.objects.exists()


def test_an_organization_at_its_job_limit_is_refused_before_the_body_is_read(personas, open_round, tmp_path, settings):
    settings.MAX_CONCURRENT_JOBS_PER_ORG = 1
    assert post_upload(client_for(personas["owner"]), sample_tarball(tmp_path)).status_code == 201
    status, _, read = wsgi_post(personas["teammate"], "round=training-v1.0", {"file": archive_part("a.tar", 500_000)})
    assert (status, read) == (429, 0)


def test_a_429_for_the_job_limit_keeps_nothing_on_disk(personas, open_round, tmp_path, settings):
    from django.core.files.storage import storages

    settings.MEDIA_ROOT = str(tmp_path / "media")  # this test's own storage, to list it
    settings.MAX_CONCURRENT_JOBS_PER_ORG = 1
    first = post_upload(client_for(personas["owner"]), sample_tarball(tmp_path))
    assert first.status_code == 201
    other = sample_tarball(tmp_path, "Graphcore")
    assert post_upload(client_for(personas["teammate"]), other).status_code == 429
    storage = storages["submissions"]
    _, stored = storage.listdir("uploads/training-v1.0/alpha")
    assert stored == [Upload.objects.get().storage_name.rsplit("/", 1)[-1]]


def test_the_query_string_round_works_for_an_open_round(personas, open_round, tmp_path):
    tarball = sample_tarball(tmp_path)
    with open(tarball, "rb") as handle:
        response = client_for(personas["owner"]).post(
            "/api/v1/submissions/?round=training-v1.0", {"file": handle}, format="multipart"
        )
    assert response.status_code == 201, response.content
    assert IngestJob.objects.get().state == JobState.RECEIVED


@pytest.mark.django_db(transaction=True)
def test_an_archive_refused_by_the_safety_checks_is_not_kept(personas, open_round, tmp_path, settings):
    from django.core.files.storage import storages

    from ingest import services
    from ingest.tests.tarballs import tarball_with_symlink
    from ingest.tests.upload_fixtures import celery_broker, free_port

    with celery_broker(f"redis://127.0.0.1:{free_port()}/0"):  # nobody else runs the job
        response = post_upload(client_for(personas["owner"]), tarball_with_symlink(tmp_path))
    assert response.status_code == 201
    upload = Upload.objects.get(pk=response.json()["id"])
    assert storages["submissions"].exists(upload.storage_name)
    assert services.run_ingest(upload.job.pk, token="t").status == "failed"
    upload.job.refresh_from_db()
    assert "symlink" in upload.job.error or "link" in upload.job.error
    assert not storages["submissions"].exists(upload.storage_name)


def test_a_byte_identical_upload_says_identical_to_version_n_and_needs_confirmation(personas, open_round, tmp_path):
    tarball = sample_tarball(tmp_path)
    assert post_upload(client_for(personas["owner"]), tarball).status_code == 201
    refused = post_upload(client_for(personas["owner"]), tarball)
    assert refused.status_code == 409
    assert refused.json()["code"] == "identical" and "identical to version 1" in refused.json()["detail"]
    assert Upload.objects.count() == 1
    confirmed = post_upload(client_for(personas["owner"]), tarball, confirm_identical="true")
    assert confirmed.status_code == 201 and confirmed.json()["version"] == 2
    # Another organization's identical bytes are its own first version.
    assert post_upload(client_for(personas["outsider"]), tarball).status_code == 201
