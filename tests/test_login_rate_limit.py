"""Login rate limiting (issue 14): 25 wrong passwords and then the right one used to log in. Now an
account, or an address, is locked out after AXES_FAILURE_LIMIT failures, on /accounts/login/ and
on the admin's login alike, the right password included."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

pytestmark = pytest.mark.django_db


def attempt(client, url: str, username: str, password: str, address: str = "10.0.0.1"):
    return client.post(url, {"username": username, "password": password}, REMOTE_ADDR=address)


@pytest.mark.parametrize("url", ["/accounts/login/", "/admin/login/"])
def test_25_wrong_passwords_then_the_right_one_does_not_log_in(client, personas, settings, url):
    personas["owner"].is_staff = True  # the admin login wants staff
    personas["owner"].save()
    for _ in range(25):
        attempt(client, url, "owner", "wrong")
    response = attempt(client, url, "owner", "password")
    assert response.status_code in (403, 429)
    assert "_auth_user_id" not in client.session


def test_the_lockout_holds_per_account_from_another_address(client, personas, settings):
    for n in range(settings.AXES_FAILURE_LIMIT):
        attempt(client, "/accounts/login/", "owner", "wrong", address=f"10.0.1.{n}")
    response = attempt(client, "/accounts/login/", "owner", "password", address="10.0.2.1")
    assert response.status_code in (403, 429)


def test_the_lockout_holds_per_address_across_accounts(client, personas, settings):
    for n in range(settings.AXES_FAILURE_LIMIT):
        attempt(client, "/accounts/login/", f"nobody{n}", "wrong", address="10.0.3.1")
    response = attempt(client, "/accounts/login/", "teammate", "password", address="10.0.3.1")
    assert response.status_code in (403, 429)


def test_a_few_mistakes_then_the_right_password_still_logs_in(client, personas, settings):
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        attempt(client, "/accounts/login/", "owner", "wrong")
    response = attempt(client, "/accounts/login/", "owner", "password")
    assert response.status_code == 302
    assert client.session["_auth_user_id"] == str(User.objects.get(username="owner").pk)


def test_behind_the_proxy_one_client_cannot_lock_out_everybody_else(client, personas, settings):
    # Every request comes from the proxy's address; behind one proxy the client is X-Forwarded-For's
    # last entry, and a client cannot pick another's address by sending its own X-Forwarded-For first.
    # Through nginx behind a TLS terminator (two proxies): tests/test_proxy.py.
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    settings.TRUSTED_PROXY_COUNT = 1
    for n in range(settings.AXES_FAILURE_LIMIT):
        client.post("/accounts/login/", {"username": f"nobody{n}", "password": "wrong"}, REMOTE_ADDR="10.9.9.9",
                    HTTP_X_FORWARDED_FOR="198.51.100.7, 203.0.113.66", HTTP_X_FORWARDED_PROTO="https", secure=True)
    response = client.post("/accounts/login/", {"username": "teammate", "password": "password"},
                           REMOTE_ADDR="10.9.9.9", HTTP_X_FORWARDED_FOR="203.0.113.5",
                           HTTP_X_FORWARDED_PROTO="https", secure=True)
    assert response.status_code == 302
    locked = client.post("/accounts/login/", {"username": "owner", "password": "password"}, REMOTE_ADDR="10.9.9.9",
                         HTTP_X_FORWARDED_FOR="203.0.113.66", HTTP_X_FORWARDED_PROTO="https", secure=True)
    assert locked.status_code in (403, 429)


@pytest.mark.parametrize(
    "count, forwarded, expected",
    [
        (0, "198.51.100.7", "10.9.9.9"),  # no proxy: whatever the client writes is not read
        (1, "198.51.100.7, 203.0.113.66", "203.0.113.66"),
        (2, "198.51.100.7, 203.0.113.66, 10.0.0.2", "203.0.113.66"),  # the terminator's entry, then nginx's
        (2, " 203.0.113.66 ,10.0.0.2 ", "203.0.113.66"),
        (2, "10.0.0.2", "10.0.0.2"),  # fewer entries than proxies: the leftmost (DRF's NUM_PROXIES rule)
        (2, "", "10.9.9.9"),
    ],
)
def test_the_client_is_the_entry_trusted_proxy_count_from_the_right(rf, settings, count, forwarded, expected):
    from config.middleware import client_address

    settings.TRUSTED_PROXY_COUNT = count
    assert client_address(rf.get("/", REMOTE_ADDR="10.9.9.9", HTTP_X_FORWARDED_FOR=forwarded)) == expected
