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
