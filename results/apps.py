import re

from django.apps import AppConfig
from django.conf import settings
from django.db.backends.signals import connection_created
from django.utils.autoreload import autoreload_started


class ResultsConfig(AppConfig):
    name = "results"
    verbose_name = "Results database"

    def ready(self):
        autoreload_started.connect(watch_static_manifest, dispatch_uid="watch-static-manifest")
        connection_created.connect(add_sqlite_version_functions, dispatch_uid="sqlite-version-functions")


def watch_static_manifest(sender, **kwargs):
    """`runserver` restarts when collectstatic rewrites the manifest: the static files storage reads
    it once per process, so pages would link to the old hashed names until then."""
    sender.extra_files.add(settings.STATIC_ROOT / "staticfiles.json")


def add_sqlite_version_functions(sender, connection, **kwargs):
    """models.version_order is PostgreSQL SQL: CAST(array_remove(regexp_split_to_array(version,
    '\\D+'), '') AS bigint[]). On SQLite (`make run`'s embedded default) these two stand-ins make the
    same SQL sort versions as versions: the version's numbers packed into one integer, which the
    CAST keeps (SQLite reads `bigint[]` as an integer type)."""
    if connection.vendor == "sqlite":
        connection.connection.create_function("regexp_split_to_array", 2, packed_version_numbers, deterministic=True)
        connection.connection.create_function("array_remove", 2, lambda packed, _empty: packed, deterministic=True)


def packed_version_numbers(version: str | None, _separator: str) -> int:
    """'9.10' -> 9 0010 0000 0000: the first four numbers, four digits each (larger ones capped)."""
    numbers = [min(int(number), 9999) for number in re.findall(r"\d+", version or "")][:4]
    numbers += [0] * (4 - len(numbers))
    return int("".join(f"{number:04d}" for number in numbers))
