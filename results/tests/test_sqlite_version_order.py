"""`make run` keeps SQLite: the PostgreSQL SQL of models.version_order sorts versions there too,
through the stand-in functions results.apps registers on every SQLite connection."""

import sqlite3
from types import SimpleNamespace

from results.apps import add_sqlite_version_functions, packed_version_numbers


def test_the_version_order_sql_sorts_versions_as_versions_on_sqlite():
    raw = sqlite3.connect(":memory:")
    add_sqlite_version_functions(None, SimpleNamespace(vendor="sqlite", connection=raw))
    raw.execute("CREATE TABLE round (version TEXT)")
    raw.executemany("INSERT INTO round VALUES (?)", [(v,) for v in ["2.0", "10.0", "1.1", "9.10", "9.9", "v0.7"]])
    # The SQL Django writes for version_order("version").desc() (see Round.objects.all().query).
    rows = raw.execute(
        r"SELECT version FROM round ORDER BY CAST(array_remove(regexp_split_to_array(version, '\D+'), '')"
        " AS bigint[]) DESC"
    ).fetchall()
    assert [version for (version,) in rows] == ["10.0", "9.10", "9.9", "2.0", "1.1", "v0.7"]


def test_odd_versions_still_pack():
    assert packed_version_numbers("10.0-beta", r"\D+") > packed_version_numbers("3", r"\D+")
    assert packed_version_numbers("", r"\D+") == 0 and packed_version_numbers(None, r"\D+") == 0
    assert packed_version_numbers("1.2.3.4.5", r"\D+") == packed_version_numbers("1.2.3.4", r"\D+")
