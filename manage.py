#!/usr/bin/env python
"""Django's command-line utility; a bad environment variable stops it with one line naming it, a closed
output (``| head -1``) stops it as it stops any Unix tool: quietly, with 141 (128 + SIGPIPE), and so does
Ctrl-C before a command handles it (while Django and the apps load): one line, 130 (128 + SIGINT)."""

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
    try:
        execute_from_command_line(sys.argv)
    except BrokenPipeError:
        # Nothing more can be said on stdout, and Python's own flush at exit would fail again on it.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(141)


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        sys.exit(130)
