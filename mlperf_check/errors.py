"""The two ways a check cannot start, whatever the suite: each suite's own error is one of these,
so a caller (the command, the server's ingestion, `import_results`) catches them once for every
suite (mlperf_check/suites/__init__.py). Imports nothing."""


class PackageUnreadable(Exception):
    """The path cannot be checked at all: not a folder or an archive, an unsafe archive, no
    layout of the suite in it. The message says which and why."""


class UnknownRules(ValueError):
    """A ruleset (or round) the suite has no rules for: checking against another's would be a
    guess. The message lists the ones it has."""
