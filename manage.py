#!/usr/bin/env python
import os
import sys


def main() -> None:
    if sys.argv[1:2] == ["check_package"]:
        # The offline checker needs no settings, database or broker: run it before Django starts.
        from ingest.cli import main as check_package

        sys.exit(check_package(sys.argv[2:]))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
