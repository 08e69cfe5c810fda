"""Production settings refuse what is unsafe; `check --deploy` is clean with the documented env."""

from __future__ import annotations

import os
import secrets
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def documented_production_env() -> dict[str, str]:
    """The values .env.example documents (NAME=value  # comment), with a real random key."""
    env = {}
    for line in (REPO / ".env.example").read_text().splitlines():
        if not line or line.startswith(("#", " ")) or "=" not in line:
            continue
        name, _, rest = line.partition("=")
        value = rest.split("  #", 1)[0].strip()
        if value:
            env[name.strip()] = value
    env.pop("TEST_DB_SUFFIX", None)
    env["SECRET_KEY"] = secrets.token_urlsafe(50)
    return env


def manage(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    bare = {"PATH": os.environ["PATH"], "DJANGO_SETTINGS_MODULE": "config.settings", **env}
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=REPO, env=bare, capture_output=True, text=True, timeout=120
    )


def test_check_deploy_with_the_documented_production_env_prints_no_warning(tmp_path):
    env = documented_production_env()
    for name, value in env.items():  # the documented /data folders exist in the image, not here
        if value.startswith("/data/"):
            env[name] = str(tmp_path / value.removeprefix("/data/"))
            Path(env[name]).mkdir(parents=True)
    done = manage(["check", "--deploy", "--fail-level", "WARNING"], env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "WARNING" not in done.stdout + done.stderr
    assert "System check identified no issues" in done.stdout


def test_debug_is_off_when_unset_outside_development():
    env = documented_production_env()
    env.pop("DEBUG")
    done = manage(["shell", "-c", "from django.conf import settings; print(settings.DEBUG)"], env)
    assert done.stdout.split()[-1] == "False", done.stderr


def test_email_use_tls_true_means_tls_and_a_yes_no_typo_refuses_to_start():
    env = {**documented_production_env(), "EMAIL_HOST": "smtp.example.org"}
    show = ["shell", "-c", "from django.conf import settings; print(settings.EMAIL_USE_TLS)"]
    for value, expected in [("true", "True"), ("1", "True"), ("off", "False")]:
        done = manage(show, {**env, "EMAIL_USE_TLS": value})
        assert done.stdout.split()[-1] == expected, done.stderr
    done = manage(show, {**env, "EMAIL_USE_TLS": "ture"})
    assert done.returncode != 0
    assert "EMAIL_USE_TLS='ture': expected one of 1, true, yes, on, 0, false, no, off" in done.stderr


@pytest.mark.parametrize(
    "secret_key, expected",
    [
        (None, "SECRET_KEY (or SECRET_KEY_FILE) is not set"),
        ("change-me", "known development placeholder"),
        ("insecure-local-development-key-change-me", "known development placeholder"),
        ("short-key-1234", "shorter than 50 characters"),
        ("abcde" * 10, "SECRET_KEY is too guessable"),
        ("change-me" * 6, "SECRET_KEY is too guessable"),
        # Issue 36, item 10: accepted before: a sequence, dictionary and site words, a repeat with one
        # character changed.
        ("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWX", "SECRET_KEY is too guessable"),
        ("mlperf-results-database-production-secret-key-2026", "SECRET_KEY is too guessable"),
        ("Zq8#Lm2$Vx" * 4 + "Zq8#Lm2$VY", "SECRET_KEY is too guessable"),
        ("qwertyuiopasdfghjklzxcvbnmQWERTYUIOPASDFGHJKLZXCVB", "SECRET_KEY is too guessable"),
    ],
)
def test_production_refuses_to_start_with_a_missing_short_or_development_key(secret_key, expected):
    env = documented_production_env()
    env.pop("SECRET_KEY")
    if secret_key is not None:
        env["SECRET_KEY"] = secret_key
    done = manage(["check"], env)
    assert done.returncode != 0
    assert "Refusing to start in production" in done.stderr
    assert expected in done.stderr


def test_production_refuses_to_start_with_debug_on():
    env = {**documented_production_env(), "DEBUG": "true"}
    done = manage(["check"], env)
    assert done.returncode != 0
    assert "Refusing to start in production" in done.stderr and "DEBUG is on" in done.stderr


def test_production_refuses_to_start_with_empty_allowed_hosts():
    env = documented_production_env()
    env.pop("ALLOWED_HOSTS")
    done = manage(["check"], env)
    assert done.returncode != 0
    assert "ALLOWED_HOSTS is empty" in done.stderr


def test_gunicorn_refuses_to_serve_with_the_old_example_key():
    env = {**documented_production_env(), "SECRET_KEY": "change-me"}
    bare = {"PATH": os.environ["PATH"], **env}
    done = subprocess.run(
        [str(Path(sys.executable).parent / "gunicorn"), "config.wsgi:application", "--bind", "127.0.0.1:0",
         "--workers", "1", "--timeout", "10"],
        cwd=REPO, env=bare, capture_output=True, text=True, timeout=60,
    )
    assert done.returncode != 0
    assert "Refusing to start in production" in done.stderr


def test_development_env_keeps_debug_and_the_development_key():
    done = manage(
        ["shell", "-c", "from django.conf import settings; print(settings.DEBUG, settings.SECRET_KEY)"],
        {"DJANGO_ENV": "development"},
    )
    assert done.stdout.split()[-2:] == ["True", "insecure-local-development-key-change-me"], done.stderr


def test_keys_from_the_documented_command_and_djangos_generator_are_accepted():
    from django.core.management.utils import get_random_secret_key

    from config.settings import MIN_SECRET_KEY_GUESSES, secret_key_guesses

    command = next(line.split("#", 1)[1].strip() for line in (REPO / ".env.example").read_text().splitlines()
                   if "secrets.token_urlsafe" in line)
    command = command.replace("python", shlex.quote(sys.executable), 1)
    documented = [subprocess.run(command, shell=True, capture_output=True, text=True, check=True).stdout.strip()
                  for _ in range(3)]
    keys = documented + [secrets.token_urlsafe(50) for _ in range(200)] + [get_random_secret_key() for _ in range(200)]
    weakest = min(keys, key=secret_key_guesses)
    assert secret_key_guesses(weakest) >= MIN_SECRET_KEY_GUESSES, weakest
    done = manage(["shell", "-c", "print('started')"], {**documented_production_env(), "SECRET_KEY": documented[0]})
    assert done.stdout.split()[-1] == "started", done.stderr


def test_a_worker_loads_every_view_as_it_starts():
    """config.wsgi loads the URLconf, and so every view module, at import: a new gunicorn worker's
    first visitor no longer pays those imports (115 ms)."""
    env = {**documented_production_env(), "DEBUG": "false"}
    done = manage(["shell", "-c", "import sys, config.wsgi; print('pages.views.results' in sys.modules,"
                   " 'pages.api.views' in sys.modules)"], env)
    assert done.stdout.split()[-2:] == ["True", "True"], done.stdout + done.stderr
