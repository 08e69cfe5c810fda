# ruff: noqa: F811 - fixtures imported from upload_fixtures are redefined as arguments
"""Issue 36, items 3 and 4, attacked through the documented proxy: deploy/nginx.conf, with the
real_ip lines deploy/nginx-real-ip.sh writes, in front of this test's live server, configured as
docker-compose.yml runs it behind a TLS terminator (TRUSTED_PROXY_COUNT=2). The test plays the
terminator: every request comes from 127.0.0.1, with the client's address appended to
X-Forwarded-For. Skipped, saying so, where nginx is not installed.

Before: both nginx's per-address limits and the login lockout keyed on the terminator's address,
shared by every client (five wrong passwords from one client locked out another's right one; one
client's flood gave another 503s), and nginx stored any anonymous body up to 5 GB on disk before
Django refused it.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import subprocess

import pytest
from django.conf import settings as django_settings
from django.test.client import BOUNDARY, MULTIPART_CONTENT, encode_multipart
from rest_framework.authtoken.models import Token

from deploy.local_nginx import DEPLOY, NGINX, LocalNginx
from ingest.models import Upload
from ingest.tests.tarballs import sample_tarball
from ingest.tests.upload_fixtures import dead_broker, open_round, unthrottled  # noqa: F401

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(NGINX is None, reason="nginx is not installed (apt-get install nginx-light): the proxy "
                                             "tests put deploy/nginx.conf in front of a live server"),
]

ATTACKER = "198.51.100.7"
VICTIM = "203.0.113.5"
CSRF_TOKEN = "a" * 32  # any well-formed token, the same in the cookie and the header


@pytest.fixture
def proxy(live_server, settings):
    """nginx as deployed (two proxies: the terminator, then nginx) in front of the live server."""
    settings.TRUSTED_PROXY_COUNT = 2
    nginx = LocalNginx(int(live_server.url.rsplit(":", 1)[1]), trusted_proxy_count=2)
    nginx.start()
    yield nginx
    nginx.stop()


def send(proxy, method: str, path: str, client: str, headers: dict | None = None, body: bytes = b""):
    """One request from `client`, as the TLS terminator forwards it. Returns (status, headers, body)."""
    connection = http.client.HTTPConnection("127.0.0.1", proxy.port, timeout=30)
    try:
        connection.request(method, path, body=body or None, headers={"X-Forwarded-For": client, **(headers or {})})
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        connection.close()


def log_in(proxy, client: str, username: str, password: str) -> int:
    """The login form as a browser fills it: its CSRF cookie and token first."""
    _, headers, page = send(proxy, "GET", "/accounts/login/", client)
    cookie = re.search(r"csrftoken=([^;]+)", headers["Set-Cookie"]).group(1)
    token = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1).decode()
    form = f"csrfmiddlewaretoken={token}&username={username}&password={password}".encode()
    status, _, _ = send(proxy, "POST", "/accounts/login/", client, body=form, headers={
        "Content-Type": "application/x-www-form-urlencoded", "Cookie": f"csrftoken={cookie}"})
    return status


def test_one_clients_wrong_passwords_do_not_lock_out_another_client(proxy, personas):
    for n in range(django_settings.AXES_FAILURE_LIMIT):
        assert log_in(proxy, ATTACKER, f"nobody{n}", "wrong") in (200, 429)  # the form again; the last locks out
    assert log_in(proxy, VICTIM, "teammate", "password") == 302
    # The attacker is locked out, whatever it writes in X-Forwarded-For before the terminator's entry.
    assert log_in(proxy, f"{VICTIM}, {ATTACKER}", "owner", "password") in (403, 429)


def test_one_clients_flood_does_not_throttle_another_client(proxy):
    # The cheapest request the app answers (its first middleware refuses it: 400), so that one test
    # client outpaces the 20 requests a second (and 100 more in a burst) the proxy allows a client.
    flood = []
    while 503 not in flood and len(flood) < 2000:
        flood.append(send(proxy, "GET", "/?x=%00", ATTACKER)[0])
    assert 503 in flood, "nginx never limited the flooding client"
    # Still limited, whatever it writes in X-Forwarded-For before the terminator's entry.
    assert 503 in [send(proxy, "GET", "/?x=%00", f"{VICTIM}, {ATTACKER}")[0] for _ in range(5)]
    assert [send(proxy, "GET", "/api/v1/", VICTIM)[0] for _ in range(10)] == [200] * 10


def stream_body(proxy, path: str, headers: dict, declared: int, send_at_most: int) -> tuple[bytes, int, int]:
    """Declare a body of `declared` bytes and send zeros until the proxy answers (or `send_at_most`
    bytes are sent). Returns (the answer, bytes sent, the most bytes of it nginx held on disk)."""
    connection = http.client.HTTPConnection("127.0.0.1", proxy.port, timeout=30)
    connection.putrequest("POST", path)
    for name, value in {**headers, "Content-Length": str(declared)}.items():
        connection.putheader(name, value)
    connection.endheaders()
    sock = connection.sock
    sock.settimeout(0.005)
    chunk, sent, on_disk, answer = b"\0" * 256 * 1024, 0, 0, b""
    try:
        while sent < send_at_most and b"\r\n\r\n" not in answer:
            try:
                sent += sock.send(chunk)
            except TimeoutError:
                pass
            except (BrokenPipeError, ConnectionResetError):
                break
            try:
                answer += sock.recv(65536)
            except TimeoutError:
                pass
            on_disk = max(on_disk, proxy.body_bytes_on_disk())
        sock.settimeout(5)
        while b"\r\n\r\n" in answer and len(answer.split(b"\r\n\r\n", 1)[1]) < content_length(answer):
            answer += sock.recv(65536)
    finally:
        connection.close()
    return answer, sent, on_disk


def content_length(answer: bytes) -> int:
    found = re.search(rb"\r\ncontent-length: *(\d+)", answer.split(b"\r\n\r\n", 1)[0], re.IGNORECASE)
    return int(found.group(1)) if found else 0


def test_an_anonymous_3_gb_upload_is_refused_before_nginx_stores_its_body(proxy):
    answer, sent, on_disk = stream_body(proxy, "/api/v1/submissions/?round=training-v1.0", {
        "Content-Type": "multipart/form-data; boundary=x"}, declared=3 * 1024**3, send_at_most=64 * 1024**2)
    assert answer.startswith(b"HTTP/1.1 403"), (answer[:300], sent, proxy.log()[-2000:])
    assert b'"detail": "Authentication credentials were not provided."' in answer
    assert on_disk == 0 and "buffered to a temporary file" not in proxy.log()
    assert sent < 64 * 1024**2  # answered while the body was still coming


def test_a_body_over_3_mb_anywhere_but_the_upload_is_refused_before_it_is_stored(proxy):
    answer, _, on_disk = stream_body(proxy, "/accounts/login/", {"Content-Type": "application/x-www-form-urlencoded"},
                                     declared=4 * 1024**2, send_at_most=4 * 1024**2)
    assert answer.startswith(b"HTTP/1.1 413") and on_disk == 0


def test_a_member_refused_for_the_round_gets_the_reason_and_its_status_before_sending_the_body(proxy, personas):
    token = Token.objects.create(user=personas["owner"]).key
    answer, _, on_disk = stream_body(proxy, "/api/v1/submissions/?round=no-such-round", {
        "Content-Type": "multipart/form-data; boundary=x", "Authorization": f"Token {token}"},
        declared=3 * 1024**3, send_at_most=64 * 1024**2)
    assert answer.startswith(b"HTTP/1.1 400") and b"no-such-round" in answer and on_disk == 0
    outsider = Token.objects.create(user=personas["outsider"]).key
    status, _, body = send(proxy, "POST", "/api/v1/submissions/?organization=alpha", ATTACKER,
                           headers={"Authorization": f"Token {outsider}"}, body=b"x")
    assert status == 403 and b"not a member of an organization 'alpha'" in body
    # A query the app refuses before any view (a NUL character): not nginx's bare 500, a JSON 502
    # that says where to ask why.
    status, _, body = send(proxy, "POST", "/api/v1/submissions/?round=a%00b", ATTACKER,
                           headers={"Authorization": f"Token {outsider}"}, body=b"x")
    assert status == 502 and "could not be checked" in json.loads(body)["detail"]


@pytest.mark.usefixtures("unthrottled", "dead_broker")
def test_a_member_uploads_through_the_proxy_with_a_token_or_a_session(proxy, personas, open_round, tmp_path, client):
    archive = sample_tarball(tmp_path)
    body = encode_multipart(BOUNDARY, {"file": archive.open("rb")})
    token = Token.objects.create(user=personas["owner"]).key
    status, _, answer = send(proxy, "POST", "/api/v1/submissions/?round=training-v1.0", VICTIM, body=body,
                             headers={"Content-Type": MULTIPART_CONTENT, "Authorization": f"Token {token}"})
    assert status == 201, answer
    client.force_login(personas["teammate"])  # the upload page's way: its session and CSRF token
    cookies = f"sessionid={client.cookies['sessionid'].value}; csrftoken={CSRF_TOKEN}"
    status, _, answer = send(proxy, "POST", "/api/v1/submissions/?round=training-v1.0", VICTIM,
                             body=encode_multipart(BOUNDARY, {"file": archive.open("rb"), "confirm_identical": "true"}),
                             headers={"Content-Type": MULTIPART_CONTENT, "Cookie": cookies, "X-CSRFToken": CSRF_TOKEN})
    assert status == 201, answer
    assert Upload.objects.count() == 2


@pytest.mark.parametrize("count", ["", "0", "3"])
def test_the_proxy_refuses_to_start_on_a_number_of_proxies_it_cannot_express(count, tmp_path):
    """0 (no proxy) with nginx in front would key every limit on nginx's peer; nginx's real_ip
    cannot count more than one proxy in front of it. The container's start fails, saying why."""
    done = subprocess.run([str(DEPLOY / "nginx-real-ip.sh"), str(tmp_path / "real_ip.conf")], capture_output=True,
                          text=True, env={"PATH": os.environ["PATH"], "TRUSTED_PROXY_COUNT": count})
    assert done.returncode != 0 and f"TRUSTED_PROXY_COUNT='{count}'" in done.stderr
    assert not (tmp_path / "real_ip.conf").exists()
