#!/usr/bin/env python
"""Django's command-line utility; a bad environment variable stops it with one line naming it."""

import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    from django.conf import settings
    from django.core.exceptions import ImproperlyConfigured
    from django.core.management import execute_from_command_line

    try:
        settings.INSTALLED_APPS  # noqa: B018 - loads and validates the settings before any command
    except ImproperlyConfigured as exc:
        sys.exit(f"configuration error: {exc}")
    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
