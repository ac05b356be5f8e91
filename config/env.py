"""Typed readers for environment variables.

Every setting comes from the environment. A bad value must stop start-up with one line that names the
variable, so each reader raises ``ConfigError`` (an ``ImproperlyConfigured``) whose message starts with
the variable's name; ``manage.py``, the ASGI module and the Celery app turn it into that one line.
"""

from __future__ import annotations

import os
import re
from decimal import Decimal, InvalidOperation
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import environ
from django.core.exceptions import ImproperlyConfigured
from redis.connection import parse_url

_env = environ.Env()
_UNSET: Any = object()
HEADER_TOKEN = re.compile(r"[\x21-\x7e]+")


class ConfigError(ImproperlyConfigured):
    """A bad or missing environment variable; the message names it."""


def _raw(name: str) -> str | None:
    value = os.environ.get(name)
    if value is None or value.strip() == "":
        return None
    return value.strip()


def string(name: str, default: str | None = _UNSET) -> str:
    value = _raw(name)
    if value is None:
        if default is _UNSET:
            raise ConfigError(f"{name}: required but not set")
        return default  # type: ignore[return-value]
    return value


def choice(name: str, choices: tuple[str, ...], default: str) -> str:
    value = string(name, default).lower()
    if value not in choices:
        raise ConfigError(f"{name}: {value!r} is not one of {', '.join(choices)}")
    return value


def boolean(name: str, default: bool) -> bool:
    value = _raw(name)
    if value is None:
        return default
    lowered = value.lower()
    if lowered in {"1", "true", "yes", "on"}:
        return True
    if lowered in {"0", "false", "no", "off"}:
        return False
    raise ConfigError(f"{name}: {value!r} is not a boolean (use true or false)")


#: No setting needs more (in seconds, over 31 years); a larger one would overflow the ``timedelta`` or the
#: database column it becomes at the first request, not at start-up.
LARGEST = 1_000_000_000


def integer(name: str, default: int, *, minimum: int = 0, maximum: int = LARGEST) -> int:
    value = _raw(name)
    if value is None:
        return default
    try:
        number = int(value)
    except ValueError:
        raise ConfigError(f"{name}: {value!r} is not a whole number") from None
    if not minimum <= number <= maximum:
        raise ConfigError(f"{name}: {number} must be at least {minimum} and at most {maximum}")
    return number


def number(name: str, default: float, *, minimum: float = 0.0) -> float:
    value = _raw(name)
    if value is None:
        return default
    try:
        parsed = float(value)
    except ValueError:
        raise ConfigError(f"{name}: {value!r} is not a number") from None
    if not minimum <= parsed <= LARGEST:  # NaN too
        raise ConfigError(f"{name}: {parsed} must be at least {minimum} and at most {LARGEST}")
    return parsed


def decimal(name: str) -> Decimal | None:
    """An optional exact amount (a price), never a float: money must add up to the cent it is shown as."""
    value = _raw(name)
    if value is None:
        return None
    try:
        parsed = Decimal(value)
    except InvalidOperation:
        raise ConfigError(f"{name}: {value!r} is not a decimal number") from None
    if not parsed.is_finite() or parsed < 0:
        raise ConfigError(f"{name}: {value} must be a finite amount of at least 0")
    return parsed


def string_list(name: str, default: list[str]) -> list[str]:
    value = _raw(name)
    if value is None:
        return list(default)
    return [item.strip() for item in value.split(",") if item.strip()]


def redacted(url: str) -> str:
    """``url`` without its password or its query's values, fit for an error message or a log line (a
    webhook's ``?access_token=`` is as secret as a password); a URL too broken to split is not quoted."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "(a malformed URL)"
    netloc = parts.netloc
    if parts.password is not None:
        netloc = netloc.replace(f":{parts.password}@", ":***@", 1)
    query = "&".join(f"{field.partition('=')[0]}=***" for field in parts.query.split("&")) if parts.query else ""
    return urlunsplit(parts._replace(netloc=netloc, query=query))


def database(name: str, default: str) -> dict[str, Any]:
    """Parse a database URL (``sqlite:///path``, ``mysql://user:pw@host:port/db``)."""
    return database_url(name, string(name, default))


def database_url(name: str, url: str, *, schemes: tuple[str, ...] = ("sqlite", "mysql")) -> dict[str, Any]:
    """``url`` (the value of ``name``, a variable or an option) as Django's database settings; ``ConfigError``
    naming ``name`` when it is not a URL of one of ``schemes`` naming a database."""
    if url.partition("://")[0] not in schemes:
        supported = " and ".join(f"{scheme}://" for scheme in schemes)
        raise ConfigError(f"{name}: only {supported} URLs are supported, got {redacted(url)!r}")
    try:
        config = _env.db_url_config(url)
    except (ImproperlyConfigured, ValueError, KeyError) as exc:
        raise ConfigError(f"{name}: cannot parse {redacted(url)!r} as a database URL") from exc
    if not config.get("NAME"):
        raise ConfigError(f"{name}: {redacted(url)!r} names no database")
    options = config.get("OPTIONS", {})
    for option, kind in _TIMEOUT_OPTIONS.items():
        if option in options:
            options[option] = _timeout_option(name, option, options[option], kind)
    return config


# The URL's options a driver reads as seconds (SQLite's ``timeout``, mysqlclient's): a word there would pass
# start-up and fail every connection with a TypeError.
_TIMEOUT_OPTIONS: dict[str, type[int] | type[float]] = {
    "timeout": float,
    "connect_timeout": int,
    "read_timeout": int,
    "write_timeout": int,
}


def _timeout_option(name: str, option: str, value: Any, kind: type[int] | type[float]) -> int | float:
    try:
        seconds = kind(value)
    except (TypeError, ValueError):
        seconds = -1
    if not 0 <= seconds <= LARGEST:
        whole = "whole " if kind is int else ""
        raise ConfigError(f"{name}: option {option} must be a {whole}number of seconds, got {value!r}")
    return seconds


def redis_url(name: str) -> str | None:
    """A ``redis://`` or ``rediss://`` URL that redis-py can connect with: a valid host and port, and a path
    that is a database number or nothing (redis-py reads ``/abc`` as database 0 without a word)."""
    value = _raw(name)
    if value is None:
        return None
    if not value.startswith(("redis://", "rediss://")):
        raise ConfigError(f"{name}: {redacted(value)!r} is not a redis:// URL")
    try:
        path = urlsplit(value).path
        options = parse_url(value)
    except ValueError as error:
        raise ConfigError(f"{name}: {redacted(value)!r} is not a valid Redis URL ({error})") from None
    if not re.fullmatch(r"/?\d*", path):
        raise ConfigError(f"{name}: {redacted(value)!r} names no database number (redis://host:6379/0)")
    if value.startswith("rediss://") and "ssl_cert_reqs" not in options:
        # Celery's own refusal, said at start-up in one line rather than as its traceback at the first task.
        raise ConfigError(f"{name}: a rediss:// URL needs ?ssl_cert_reqs=required (or optional, or none)")
    return value


def url(name: str, default: str | None = None, *, credentials: bool = False) -> str | None:
    """An http(s) URL naming a host (its port, if any, a valid one). Credentials have variables of their own
    (``*_BEARER_TOKEN``, ``*_USERNAME``/``*_PASSWORD``, ``LLM_API_KEY``) and are refused in the URL, which
    error messages and httpx's log lines quote, and from which httpx would send them as Basic auth in place
    of the token; ``credentials`` allows them in a URL that is a secret as a whole (a chat-ops webhook's,
    which has no other way to authenticate and is redacted wherever it appears)."""
    value = _raw(name)
    if value is None:
        return default
    try:
        parts = urlsplit(value)
        port_valid = parts.port != 0  # reading the port raises ValueError when it is out of range or no number
    except ValueError:
        port_valid = False
    if not port_valid:
        raise ConfigError(f"{name}: {redacted(value)!r} is not a valid URL")
    if parts.scheme not in ("http", "https") or not parts.hostname or any(c.isspace() for c in parts.netloc):
        raise ConfigError(f"{name}: {redacted(value)!r} is not an http(s) URL")
    if "@" in parts.netloc and not credentials:
        raise ConfigError(f"{name}: put credentials in their own variables, not in the URL")
    return value.rstrip("/")


def token(name: str, default: str = "") -> str:
    """A credential or identifier sent in an HTTP header (a bearer token, a tenant id, an API key): visible
    ASCII without spaces, or no HTTP client could send it, and a call would fail at every request instead of
    once at start-up."""
    value = string(name, default)
    if not HEADER_TOKEN.fullmatch(value or "x"):
        raise ConfigError(f"{name}: must be printable ASCII without spaces (it is sent in an HTTP header)")
    return value
