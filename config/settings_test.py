"""Test settings: the real settings, with a fast password hasher and local email.

The database, broker and cache stay real (PostgreSQL, Redis) when the environment names them;
`make test` starts throwaway servers and sets DATABASE_URL, CELERY_BROKER_URL and REDIS_URL.
"""

import atexit
import os
import shutil
import tempfile

# Development defaults (DEBUG, the development key); the processes the tests start inherit it.
os.environ.setdefault("DJANGO_ENV", "development")

from .settings import *  # noqa: E402, F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
if DATABASES["default"]["ENGINE"] != "django.db.backends.sqlite3":  # noqa: F405
    # A query the planner gets badly wrong (tables analyzed while nearly empty, then filled in the
    # test's transaction: joined row by row, it once ran 32 minutes) fails its test instead of
    # holding a worker, and the suite, past CI's limit. No test's statement needs a minute.
    DATABASES["default"]["OPTIONS"]["options"] += " -c statement_timeout=120s"  # noqa: F405
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
MEDIA_ROOT = Path(tempfile.mkdtemp(prefix="mlperf-test-media-"))  # noqa: F405
STORAGES["staticfiles"] = {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}  # noqa: F405
STATIC_ROOT = Path(tempfile.mkdtemp(prefix="mlperf-test-static-"))  # noqa: F405  (WhiteNoise wants it to exist)
WHITENOISE_USE_FINDERS = True


def _remove_own_folders(owner: int = os.getpid(), folders=(MEDIA_ROOT, STATIC_ROOT)) -> None:
    # Each process on these settings makes its own folders (a run's uploads and log copies: about
    # 85 MB a worker), and removes them as it ends; not a process forked from it (a server's
    # worker), which shares them.
    if os.getpid() == owner:
        for folder in folders:
            shutil.rmtree(folder, ignore_errors=True)


atexit.register(_remove_own_folders)
