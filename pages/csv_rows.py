"""Every CSV the site and its commands write (downloads, snapshots, `export_scores`): plain rows
under named columns, each cell neutralised so that no spreadsheet runs it as a formula.

A download is plain data (a list of row dicts), the same rows as the table on screen, filters
and sorting included.
"""

from __future__ import annotations

import csv
import io
import re

# A cell a spreadsheet would run as a formula (OWASP "CSV injection"): =, +, -, @ (and | %, as
# defusedcsv also guards), tab or carriage return first. Plain numbers such as -1.5 stay numbers.
FORMULA_START = ("=", "+", "-", "@", "|", "%", "\t", "\r")


PLAIN_NUMBER = re.compile(r"^[-+]?[0-9][0-9,]*(\.[0-9]*)?([eE][-+]?[0-9]+)?$")


def neutralise_formula(value):
    """The value as a CSV cell no spreadsheet evaluates: a leading quote on formula-like text."""
    if not isinstance(value, str) or not value.startswith(FORMULA_START) or PLAIN_NUMBER.match(value):
        return value
    return "'" + value


def _cell(value):
    return "" if value is None else neutralise_formula(value)


def rows_to_csv(columns: list[str], rows: list[dict]) -> str:
    """Every CSV the site and the commands write comes from here, formula-neutralised. Each row as
    a list in the columns' order (a missing or None value an empty cell), not through
    csv.DictWriter: a large round's download is 12,000 rows of 40 columns."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([neutralise_formula(key) for key in columns])
    writer.writerows([_cell(row.get(key)) for key in columns] for row in rows)
    return buffer.getvalue()
