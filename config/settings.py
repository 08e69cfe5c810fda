"""One settings module, read from the environment (healthchecks style).

Every setting has a default that works on a bare checkout: SQLite, a folder of message files as
the task broker, local files. Production and the test suite set DATABASE_URL, CELERY_BROKER_URL and REDIS_URL.
Every variable is listed in .env.example.
"""

import os
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from verify.broker import broker_url, local_state_dir, transport, transport_options

BASE_DIR = Path(__file__).resolve().parent.parent
# What the embedded default keeps beside the SQLite file: the folder broker's messages, the logs of
# the processes `make run` starts (scripts/run.sh), the demo package (seed_demo).
LOCAL_STATE_DIR = local_state_dir()


TRUE_WORDS = ("1", "true", "yes", "on")
FALSE_WORDS = ("0", "false", "no", "off")


def env_bool(name: str, default: bool) -> bool:
    """A yes/no setting. A value that is neither (a typo) stops the start: read as False it would
    silently turn off what it names (TLS, HSTS, ...)."""
    value = os.environ.get(name)
    if value is None or not value.strip():
        return default
    word = value.strip().lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise ImproperlyConfigured(f"{name}={value!r}: expected one of {', '.join(TRUE_WORDS + FALSE_WORDS)}")


def env_int(name: str, default: int) -> int:
    value = os.environ.get(name)
    return default if value in (None, "") else int(value)


def env_secret(name: str, default: str = "") -> str:
    """Read NAME_FILE first (Docker secrets), then NAME."""
    path = os.environ.get(f"{name}_FILE")
    if path:
        return Path(path).read_text().strip()
    return os.environ.get(name, default)


# Production unless told otherwise: `make run`, `make test` and the test settings set
# DJANGO_ENV=development, which turns DEBUG on by default and allows the development key.
DJANGO_ENV = os.environ.get("DJANGO_ENV", "production").strip().lower()
PRODUCTION = DJANGO_ENV != "development"
DEBUG = env_bool("DEBUG", not PRODUCTION)
DEVELOPMENT_SECRET_KEY = "insecure-local-development-key-change-me"
SECRET_KEY = env_secret("SECRET_KEY", "" if PRODUCTION else DEVELOPMENT_SECRET_KEY)
SITE_URL = os.environ.get("SITE_URL", "http://127.0.0.1:8000").rstrip("/")
# Whether SITE_URL was given: the Atom feeds' absolute links start with it then, else with the
# address each request came to (a local checkout answers on any host and port).
SITE_URL_SET = bool(os.environ.get("SITE_URL"))
# Where the workers ask for the pages a change touched, so that the page cache holds them before the
# next visitor (pages/warming.py): SITE_URL unless the workers reach the web server another way
# (`make run` sets its own address). The request names SITE_URL's host, as a visitor's would.
PAGE_WARM_URL = (os.environ.get("PAGE_WARM_URL") or SITE_URL).rstrip("/")
SITE_NAME = os.environ.get("SITE_NAME", "MLPerf Results")
ALLOWED_HOSTS = [
    host.strip()
    for host in os.environ.get("ALLOWED_HOSTS", "" if PRODUCTION else "127.0.0.1,localhost,testserver").split(",")
    if host.strip()
]
CSRF_TRUSTED_ORIGINS = [SITE_URL]

# Keys that must never sign production sessions: ours, and the placeholders of old .env examples.
KNOWN_DEVELOPMENT_KEYS = {DEVELOPMENT_SECRET_KEY, "change-me", "changeme", "secret", "build", "bench"}
MIN_SECRET_KEY_LENGTH = 50  # Django's own deploy check asks for 50 characters
# zxcvbn's estimate of the guesses an attacker who knows words, names, sequences, keyboard rows,
# dates and repeats needs; a generated key scores far above it (2^150 and more).
MIN_SECRET_KEY_GUESSES = 2**128
# Words an attacker of this site tries first, besides zxcvbn's dictionaries.
SECRET_KEY_GUESSABLE_WORDS = ["mlperf", "mlcommons", "results", "database", "dashboard", "production", "secret",
                              "key", "django", "training", "inference", "submission"]


def production_refusals() -> list[str]:
    """Why these settings must not serve production traffic (empty when they may)."""
    refusals = []
    if not SECRET_KEY:
        refusals.append("SECRET_KEY (or SECRET_KEY_FILE) is not set")
    elif SECRET_KEY in KNOWN_DEVELOPMENT_KEYS or SECRET_KEY.startswith("django-insecure"):
        refusals.append("SECRET_KEY is a known development placeholder")
    elif len(SECRET_KEY) < MIN_SECRET_KEY_LENGTH or len(set(SECRET_KEY)) < 5:
        refusals.append(f"SECRET_KEY is shorter than {MIN_SECRET_KEY_LENGTH} characters (or too repetitive)")
    elif secret_key_guesses(SECRET_KEY) < MIN_SECRET_KEY_GUESSES:
        refusals.append(
            "SECRET_KEY is too guessable (words, a sequence, a keyboard row or a repeat: under 2^128 guesses "
            "by zxcvbn's estimate)"
        )
    if DEBUG:
        refusals.append("DEBUG is on (it shows settings and code in error pages; only DJANGO_ENV=development allows it)")
    if not ALLOWED_HOSTS:
        refusals.append("ALLOWED_HOSTS is empty")
    return refusals


def secret_key_guesses(key: str) -> float:
    """zxcvbn's estimate of the guesses `key` takes, with this site's own words (its name, its hosts)
    as known words. zxcvbn reads at most its first 72 characters: the guesses of a prefix are a lower
    bound of the whole key's, so a long key is never judged stronger than it is."""
    from zxcvbn import zxcvbn

    site_words = [*SECRET_KEY_GUESSABLE_WORDS, *SITE_NAME.lower().split(), *(host.split(".")[0] for host in ALLOWED_HOSTS)]
    return float(zxcvbn(key[:72], user_inputs=site_words)["guesses"])


if PRODUCTION and production_refusals():
    from django.core.exceptions import ImproperlyConfigured

    raise ImproperlyConfigured(
        "Refusing to start in production: "
        + "; ".join(production_refusals())
        + ". Generate a key with `python -c 'import secrets; print(secrets.token_urlsafe(50))'`,"
        " or set DJANGO_ENV=development on a development machine."
    )

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    # Before staticfiles: `runserver` leaves /static/ to WhiteNoise, as gunicorn does, instead of
    # Django's development handler (uncompressed, no cache headers).
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "audit",
    "results",
    "ingest",
    "review",
    "verify",
    "pages",
    "axes",
]

MIDDLEWARE = [
    "config.middleware.NulCharacterMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Every text answer built here compressed for clients that accept gzip (signed-in users' pages,
    # the API, a public page's first visitor); outside the ETag, which is then made weak.
    "config.middleware.TextGZipMiddleware",
    # An ETag on every GET (cached answers too) and 304 to a client that has it.
    "django.middleware.http.ConditionalGetMiddleware",
    # Anonymous public pages from the cache, before session, CSRF and authentication work.
    "pages.caching.FrontCacheMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    "config.middleware.PrivateCacheMiddleware",
    "config.middleware.OutageMiddleware",
    "config.middleware.BadPageMiddleware",
    # Last, as django-axes asks: it turns a locked-out login into its lockout response.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "review.context_processors.inbox",
            ],
        },
    },
]

# No DATABASE_URL: a SQLite file, so `make run` works on a bare machine.
# Production keeps each process's connection DB_CONN_MAX_AGE seconds (docker-compose.yml: 60): a new
# PostgreSQL connection starts a server process that reads its catalog again, 10-20 ms of a page
# (bench/RESULTS.md). With the health check a kept connection the server dropped (a restart) is
# replaced before a request uses it, instead of failing that request.
DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL", f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
        conn_max_age=env_int("DB_CONN_MAX_AGE", 0),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # The web server, the worker and beat of `make run` share the file. WAL: pages are read while a
    # worker writes. A writer takes the lock when its transaction begins (IMMEDIATE: two writers never
    # deadlock upgrading a read lock) and waits for it rather than failing at once.
    DATABASES["default"]["OPTIONS"] = {
        "timeout": 60,
        "transaction_mode": "IMMEDIATE",
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL",
    }
else:
    # No JIT: PostgreSQL compiles any query whose estimated cost passes jit_above_cost, and a page's
    # query (a round's 12,000 results, each with its unwaived errors counted) spent ~1 s in LLVM to
    # run 0.15 s (bench/RESULTS.md, "Cold pages without the JIT").
    options = DATABASES["default"].setdefault("OPTIONS", {})
    options["options"] = f"{options.get('options', '')} -c jit=off".strip()
if os.environ.get("TEST_DB_SUFFIX"):
    # Lets several test runs share one PostgreSQL server without clobbering each other.
    DATABASES["default"]["TEST"] = {"NAME": f"test_mlperf_{os.environ['TEST_DB_SUFFIX']}"}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = os.environ.get("REDIS_URL", "")
# The prefix keeps cache keys apart from the broker's (the workers' Redis user may not touch
# `cache:*`: scripts/services.sh, docker-compose.yml). Test runs sharing one Redis, and the parallel
# workers of one run (pytest-xdist's PYTEST_XDIST_WORKER), each keep their own keys under it: rate
# limits and lockouts count per client address, and every test client is 127.0.0.1.
CACHE_KEY_PREFIX = "cache"
if os.environ.get("TEST_DB_SUFFIX"):
    CACHE_KEY_PREFIX = f"cache:test-{os.environ['TEST_DB_SUFFIX']}-{os.environ.get('PYTEST_XDIST_WORKER', 'main')}"
# Two caches. "default" holds what must not be lost to make room: the upload rate limits (login
# lockouts are in the database, django-axes).
# "pages" holds what pages.caching keeps (whole public pages, rows and figures of rounds), which the
# database rebuilds on any miss and which any visitor can grow by asking for new addresses: in
# production it is a Redis of its own with a memory bound and least-recently-used eviction
# (PAGE_CACHE_URL, docker-compose.yml's `cache`), so it never evicts a rate limit nor fills the
# broker's memory. Without PAGE_CACHE_URL it shares REDIS_URL's server.
PAGE_CACHE_URL = os.environ.get("PAGE_CACHE_URL", "") or REDIS_URL


def cache_at(url: str, name: str, **settings) -> dict:
    """Redis at `url`, values signed JSON rather than pickles, one client per connection pool
    (config/cache.py); with no URL this process's memory (make run: one web process)."""
    if not url:
        return {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": name, **settings}
    return {"BACKEND": "config.cache.RedisCache", "LOCATION": url, "KEY_PREFIX": CACHE_KEY_PREFIX,
            "OPTIONS": {"serializer": "config.cache.SignedJsonSerializer"}, **settings}


CACHES = {
    "default": cache_at(REDIS_URL, "default"),
    # Each version of the code keeps its own pages and rows (config/cache.py: code_version).
    "pages": cache_at(PAGE_CACHE_URL, "pages", KEY_FUNCTION="config.cache.code_versioned_key"),
}

# Review notifications: printed on the console unless EMAIL_HOST names an SMTP server.
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "results@mlcommons.invalid")
if os.environ.get("EMAIL_HOST"):
    EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    EMAIL_HOST = os.environ["EMAIL_HOST"]
    EMAIL_PORT = env_int("EMAIL_PORT", 587)
    EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
    EMAIL_HOST_PASSWORD = env_secret("EMAIL_HOST_PASSWORD") or ""
    EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", True)
else:
    EMAIL_BACKEND = "django.core.mail.backends.console.EmailBackend"

# Celery. With no CELERY_BROKER_URL (the embedded default) the broker is a folder of message files
# under LOCAL_STATE_DIR (verify/broker.py): still a real broker, so the worker and beat that
# `make run` starts beside the web server check uploads, publish rounds and take snapshots.
CELERY_BROKER_URL = broker_url()
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_DEFAULT_QUEUE = "default"
CELERY_TASK_ROUTES = {
    "ingest.*": {"queue": "ingest"},
    "verify.sweep_stale": {"queue": "ingest"},  # needs the database, which GPU workers do not have
    "verify.*": {"queue": "gpu"},
}
CELERY_BROKER_TRANSPORT = transport(CELERY_BROKER_URL)
CELERY_BROKER_TRANSPORT_OPTIONS = transport_options(CELERY_BROKER_URL, env_int("CELERY_VISIBILITY_TIMEOUT", 3600))
CELERY_RESULT_BACKEND = None
# How the web side sends a task (ingest, verify): retry briefly, then give up and let the sweep resend.
PUBLISH_RETRY_POLICY = {"max_retries": 2, "interval_start": 0, "interval_step": 0.2, "interval_max": 0.5}

STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    # In every mode, DEBUG included: hashed names (collectstatic) let WhiteNoise send them with
    # far-future, immutable cache headers; their gzip copies are made at collectstatic time.
    "staticfiles": {"BACKEND": "config.storage.HashedStaticFilesStorage"},
}
MEDIA_ROOT = Path(os.environ.get("MEDIA_ROOT", BASE_DIR / "media"))
MEDIA_URL = "/media/"
STATIC_URL = "/static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
# Without a collectstatic run fall back to the plain file names (config.storage).
WHITENOISE_MANIFEST_STRICT = False
# WhiteNoise's DEBUG defaults stay: it looks files up on each request and also in static/ through
# the finders, which only matters for plain names (a server never collected): the hashed names
# the pages link to exist only in STATIC_ROOT, beside their .gz copies. After editing static/,
# collect again: rerun `make run`, or `manage.py collectstatic --noinput` beside the running
# server, which restarts when the manifest changes (results.apps).

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/"

# Login rate limiting (django-axes) on every login form, /accounts/login/ and the admin's alike:
# after AXES_FAILURE_LIMIT wrong passwords for one account, or from one address, that account or
# address is locked out for AXES_COOLOFF_HOURS, the right password included.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = env_int("AXES_FAILURE_LIMIT", 5)
AXES_COOLOFF_TIME = timedelta(hours=env_int("AXES_COOLOFF_HOURS", 1))
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]  # each on its own: per account, per address
AXES_RESET_ON_SUCCESS = True
AXES_VERBOSE = False  # no banner on every start
AXES_CLIENT_IP_CALLABLE = "config.middleware.client_address"  # the client's, not the proxy's

# HTTPS hardening in production (`manage.py check --deploy` is clean with .env.example's values).
if PRODUCTION and not DEBUG:
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 365 * 24 * 3600)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
    SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", True)
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
SESSION_COOKIE_HTTPONLY = True
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
# The header the TLS-terminating proxy sets, as NAME,VALUE: e.g. HTTP_X_FORWARDED_PROTO,https.
if os.environ.get("SECURE_PROXY_SSL_HEADER"):
    header, _, value = os.environ["SECURE_PROXY_SSL_HEADER"].partition(",")
    SECURE_PROXY_SSL_HEADER = (header.strip(), value.strip() or "https")
# How many proxies stand in front of the app, each appending the address it was reached from to
# X-Forwarded-For: docker-compose.yml's chain (the TLS terminator, then nginx) is 2; `make run` is 0.
# The client's address (login lockouts, rate limits) is the entry this many from the right
# (config.middleware.client_address); deploy/nginx-real-ip.sh writes nginx's real_ip lines from the
# same number, so nginx keys its per-client limits on the same address.
TRUSTED_PROXY_COUNT = env_int("TRUSTED_PROXY_COUNT", 0)
if TRUSTED_PROXY_COUNT < 0:
    raise ImproperlyConfigured(f"TRUSTED_PROXY_COUNT={TRUSTED_PROXY_COUNT}: expected 0 (no proxy) or more")

# Content-Security-Policy (django-csp): scripts only from our own static files (the chart figures
# travel as JSON in <script type="application/json">, which is data, not script). No
# 'unsafe-eval': the SVG charts we draw work without it. Plotly injects its own <style> elements
# and sets style attributes, so styles need 'unsafe-inline'.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'", "'unsafe-inline'"],
        "img-src": ["'self'", "data:", "blob:"],
        "font-src": ["'self'", "data:"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "frame-ancestors": ["'none'"],
        "form-action": ["'self'"],
    }
}

REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "rest_framework.authentication.TokenAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.CursorPagination",
    "PAGE_SIZE": 100,
    # DRF's throttles find the client as client_address does (the same rule, the same number).
    "NUM_PROXIES": TRUSTED_PROXY_COUNT,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "MLPerf results API",
    "DESCRIPTION": "Read-only access to published MLPerf results; submission upload for submitters.",
    "VERSION": "1.0.0",
    # Swagger UI from the drf-spectacular-sidecar package, served by the app (no CDN).
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "config.openapi.public_operations_need_no_auth",
    ],
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
}

# Uploads and ingestion (issue 4)
# Largest accepted upload; the body is streamed to a temporary file (ingest.uploads), never held
# in memory, and the read stops as soon as this is passed.
UPLOAD_MAX_BYTES = env_int("UPLOAD_MAX_BYTES", 5 * 1024**3)
FILE_UPLOAD_MAX_MEMORY_SIZE = 0
FILE_UPLOAD_TEMP_DIR = os.environ.get("FILE_UPLOAD_TEMP_DIR") or None
# Per-organization upload rate (DRF ScopedRateThrottle scope "uploads"); counted in the cache,
# so it holds across web processes only with REDIS_URL set.
REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"] = {"uploads": os.environ.get("UPLOAD_RATE", "30/hour")}
MAX_CONCURRENT_JOBS_PER_ORG = env_int("MAX_CONCURRENT_JOBS_PER_ORG", 3)
# Overrides of mlperf_check.safety.ArchiveLimits fields (its defaults are the sane ones), written as
# ARCHIVE_LIMITS=max_members=100000,max_total_bytes=20000000000
ARCHIVE_LIMITS = {
    name.strip(): int(value)
    for name, _, value in (item.partition("=") for item in os.environ.get("ARCHIVE_LIMITS", "").split(","))
    if name.strip()
}
# Where workers unpack archives (one temporary directory per job, removed afterwards).
INGEST_WORK_DIR = os.environ.get("INGEST_WORK_DIR", "")
# Hard limit = 1.2 x soft, and both well under CELERY_VISIBILITY_TIMEOUT: Redis redelivers an
# unacked task after the visibility timeout even while it still runs (RTD issue #12317).
INGEST_SOFT_TIME_LIMIT_SECONDS = env_int("INGEST_SOFT_TIME_LIMIT_SECONDS", 1800)
INGEST_HARD_TIME_LIMIT_SECONDS = int(INGEST_SOFT_TIME_LIMIT_SECONDS * 1.2)
INGEST_MAX_RETRIES = env_int("INGEST_MAX_RETRIES", 8)
INGEST_RETRY_BACKOFF_MAX_SECONDS = env_int("INGEST_RETRY_BACKOFF_MAX_SECONDS", 300)
INGEST_MAX_ATTEMPTS = env_int("INGEST_MAX_ATTEMPTS", 5)
# A worker refreshes its job's heartbeat this often; a job whose heartbeat is older than
# INGEST_STALE_AFTER_SECONDS is presumed orphaned (worker killed) and may be taken over.
INGEST_HEARTBEAT_SECONDS = float(os.environ.get("INGEST_HEARTBEAT_SECONDS", "10"))
INGEST_STALE_AFTER_SECONDS = float(os.environ.get("INGEST_STALE_AFTER_SECONDS", "90"))
# The sweep re-sends a `received` job whose message may have been lost after this long.
INGEST_RESEND_AFTER_SECONDS = env_int("INGEST_RESEND_AFTER_SECONDS", 600)
CELERY_BEAT_SCHEDULE = {
    "ingest-sweep-pending": {
        "task": "ingest.sweep_pending",
        "schedule": float(os.environ.get("INGEST_SWEEP_SECONDS", "60")),
        "options": {"queue": "ingest", "expires": 60},
    },
    # Runs where the database is (queue `ingest`), never on a GPU worker.
    "verify-sweep-stale": {
        "task": "verify.sweep_stale",
        "schedule": float(os.environ.get("VERIFY_SWEEP_SECONDS", "60")),
        "options": {"queue": "ingest", "expires": 60},
    },
    # Publication at publish_at: exactly once however often it runs (review.services.publish_due_rounds).
    "review-publish-due-rounds": {
        "task": "review.publish_due_rounds",
        "schedule": float(os.environ.get("REVIEW_PUBLISH_CHECK_SECONDS", "60")),
        "options": {"expires": 60},
    },
    # A snapshot of each published round after each public change (pages/snapshots.py).
    "pages-take-snapshots": {
        "task": "pages.take_snapshots",
        "schedule": float(os.environ.get("SNAPSHOT_CHECK_SECONDS", "60")),
        "options": {"expires": 60},
    },
    "review-remind-deadlines": {
        "task": "review.remind_deadlines",
        "schedule": 3600.0,
        "options": {"expires": 3600},
    },
}
# Uploaded tarballs: the "submissions" storage. Local files under MEDIA_ROOT unless
# SUBMISSIONS_S3_BUCKET names a bucket of any S3-compatible store (django-storages; needs boto3).
if os.environ.get("SUBMISSIONS_S3_BUCKET"):
    STORAGES["submissions"] = {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": os.environ["SUBMISSIONS_S3_BUCKET"],
            "endpoint_url": os.environ.get("SUBMISSIONS_S3_ENDPOINT_URL") or None,
            "region_name": os.environ.get("SUBMISSIONS_S3_REGION") or None,
            "access_key": env_secret("SUBMISSIONS_S3_ACCESS_KEY_ID") or None,
            "secret_key": env_secret("SUBMISSIONS_S3_SECRET_ACCESS_KEY") or None,
            "location": os.environ.get("SUBMISSIONS_S3_PREFIX", "submissions"),
            "default_acl": "private",
            "querystring_auth": True,
        },
    }
else:
    STORAGES["submissions"] = {"BACKEND": "django.core.files.storage.FileSystemStorage"}

# Verification (issue 11): re-runs on GPU workers (queue `gpu`; verify/). Per-run sandbox limits
# are sent to the worker with each job. The whole job's limit is the GPU worker's own
# (VERIFY_SOFT_TIME_LIMIT_SECONDS, read by verify/gpu_worker.py, which loads no Django settings).
VERIFY_RUN_WALL_SECONDS = float(os.environ.get("VERIFY_RUN_WALL_SECONDS", "600"))
VERIFY_MEMORY_BYTES = env_int("VERIFY_MEMORY_BYTES", 32 * 1024**3)
VERIFY_MAX_PROCESSES = env_int("VERIFY_MAX_PROCESSES", 512)
VERIFY_CPU_SECONDS = env_int("VERIFY_CPU_SECONDS", 24 * 3600)
VERIFY_FILE_SIZE_BYTES = env_int("VERIFY_FILE_SIZE_BYTES", 16 * 1024**3)
VERIFY_TMPFS_BYTES = env_int("VERIFY_TMPFS_BYTES", 1024**3)
VERIFY_OUTPUT_BYTES = env_int("VERIFY_OUTPUT_BYTES", 4 * 1024**3)  # /output: a tmpfs, counted in the memory limit
VERIFY_CPUS = float(os.environ.get("VERIFY_CPUS", "8"))  # CPU quota of a run, in CPUs
VERIFY_RUN_SCRIPT = os.environ.get("VERIFY_RUN_SCRIPT", "run_and_time.sh")
# How far a re-run's log may disagree with the worker's clock (verify.reproduce.measure): this many
# seconds plus this fraction of the elapsed time (pipe latency, a loaded host).
VERIFY_TIMING_SLACK_SECONDS = float(os.environ.get("VERIFY_TIMING_SLACK_SECONDS", "2.0"))
VERIFY_TIMING_SLACK_FRACTION = float(os.environ.get("VERIFY_TIMING_SLACK_FRACTION", "0.02"))
# On like hardware, re-runs whose olympic mean is slower than the claimed one by more than this
# fraction are not reproduced (faster is never a failure: verify/reproduce.py decide).
VERIFY_TOLERANCE_VISION = float(os.environ.get("VERIFY_TOLERANCE_VISION", "0.05"))
VERIFY_TOLERANCE_OTHER = float(os.environ.get("VERIFY_TOLERANCE_OTHER", "0.10"))
# Per benchmark, written as VERIFY_TOLERANCES=resnet=0.05,tiny_mlp=0.5
VERIFY_TOLERANCES = {
    name.strip(): float(value)
    for name, _, value in (item.partition("=") for item in os.environ.get("VERIFY_TOLERANCES", "").split(","))
    if name.strip()
}
# A running job whose worker has not reported for this long is finished as "worker lost".
VERIFY_STALE_AFTER_SECONDS = float(os.environ.get("VERIFY_STALE_AFTER_SECONDS", "180"))
# A result is verified again at most this often (GPU hours are scarce), and never while a job runs.
VERIFY_REPEAT_SECONDS = env_int("VERIFY_REPEAT_SECONDS", 24 * 3600)
VERIFY_QUEUED_EXPIRE_SECONDS = env_int("VERIFY_QUEUED_EXPIRE_SECONDS", 7 * 24 * 3600)
VERIFY_MAX_LOG_CHARS = env_int("VERIFY_MAX_LOG_CHARS", 20_000_000)
VERIFY_MAX_REQUEST_BYTES = env_int("VERIFY_MAX_REQUEST_BYTES", 2 * 1024**2)  # under DATA_UPLOAD_MAX_MEMORY_SIZE
# The GPU workers' key (verify/tokens.py): each job's token is derived from it, so the task message
# carries nothing usable. Set the same on the web app and the GPU workers; production refuses
# verification requests without it; development falls back on a key under LOCAL_STATE_DIR.
VERIFY_WORKER_KEY = env_secret("VERIFY_WORKER_KEY")
# What shows that a re-run worked during its timed span (verify/reproduce.py check_work): CPUs busy
# on average (CPU systems), the accelerators' mean utilization in % (accelerator systems).
VERIFY_MIN_CPU_BUSY = float(os.environ.get("VERIFY_MIN_CPU_BUSY", "0.25"))
VERIFY_MIN_GPU_BUSY_PCT = float(os.environ.get("VERIFY_MIN_GPU_BUSY_PCT", "10"))
