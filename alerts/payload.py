"""Alertmanager's webhook payload, version 4 (https://prometheus.io/docs/alerting/latest/configuration/#webhook_config).

Validated with Pydantic rather than DRF serializers because its errors carry the full location of a bad
value (``alerts[1].startsAt``), which is what the 400 must name. Unknown keys are ignored: Alertmanager
may add fields within version 4.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    AwareDatetime,
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    field_validator,
    model_validator,
)
from rest_framework import exceptions

from alerts.models import AlertStatus
from config.api_errors import VALIDATION_CODE

Status = Literal["firing", "resolved"]
#: The alerts of one notification that are read; Alertmanager sends a group's every alert unless its
#: ``max_alerts`` says otherwise, and a notification refused (a 4xx) is never sent again, so more are not
#: refused: they are left out and counted with ``truncatedAlerts``, as Alertmanager's own cut is.
MAX_ALERTS = 1000
MAX_GROUP_KEY_CHARS = 10_000
# No group truncates more alerts than this; a larger count is no Alertmanager's, and its digits alone could
# push the question past the chat limit.
MAX_TRUNCATED_ALERTS = 1_000_000_000
_COUNT = TypeAdapter(int)
LOGGED_GROUP_KEY_CHARS = 200

logger = logging.getLogger(__name__)


#: What is no text to store or show: NUL (which a database refuses), the other control characters (not the
#: tab and line breaks annotations are written with, which the question makes one line), lone surrogates (a
#: JSON ``\ud800`` escape, which no UTF-8 column stores).
_UNSTORABLE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")


def _storable(text: str) -> str:
    """``text`` with what is no text replaced by U+FFFD, not refused: Go's JSON encoder writes a NUL
    in a label value as ``\\u0000``, and a refusal (a 4xx, which Alertmanager never resends) would cost every
    alert of the group its diagnosis for one character."""
    return _UNSTORABLE.sub("\ufffd", text)


Text = Annotated[str, AfterValidator(_storable)]
Labels = dict[Text, Text]


class _Model(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class Alert(_Model):
    status: Status
    labels: Labels
    annotations: Labels = Field(default_factory=dict)
    starts_at: AwareDatetime = Field(alias="startsAt")
    # "0001-01-01T00:00:00Z" while the alert fires: a valid time, not an "unset" marker, so no bound here. With
    # a zone, as Alertmanager writes it: a resolution's end is compared with the group's alerts' starts.
    ends_at: AwareDatetime | None = Field(default=None, alias="endsAt")
    generator_url: Text = Field(default="", alias="generatorURL")
    fingerprint: Text = ""

    @field_validator("starts_at", "ends_at")
    @classmethod
    def _has_a_utc_time(cls, value: datetime | None) -> datetime | None:
        """The question names the incident time in UTC, and a resolution's end is compared with starts: each
        needs a UTC time, which 0001-01-01T00:00:00+01:00 has not."""
        if value is None:
            return None
        try:
            value.astimezone(UTC)
        except OverflowError:
            raise ValueError("has no UTC time (out of range)") from None
        return value

    @property
    def firing(self) -> bool:
        return self.status == AlertStatus.FIRING.value

    @property
    def identity(self) -> str:
        """One occurrence of the alert across notifications: a digest of its label set (what Alertmanager's
        own ``fingerprint`` digests, computed here since another sender may leave that field empty) and of its
        ``startsAt`` (an alert that fires again starts anew; HA peers and retries repeat the same start)."""
        occurrence = json.dumps(
            [sorted(self.labels.items()), self.starts_at.astimezone(UTC).isoformat()], ensure_ascii=False
        )
        return hashlib.sha256(occurrence.encode()).hexdigest()[:16]


class AlertmanagerPayload(_Model):
    version: Literal["4"]
    group_key: Text = Field(alias="groupKey", min_length=1, max_length=MAX_GROUP_KEY_CHARS)
    truncated_alerts: int = Field(default=0, alias="truncatedAlerts", ge=0, le=MAX_TRUNCATED_ALERTS)
    status: Status
    receiver: Text = ""
    group_labels: Labels = Field(default_factory=dict, alias="groupLabels")
    common_labels: Labels = Field(default_factory=dict, alias="commonLabels")
    common_annotations: Labels = Field(default_factory=dict, alias="commonAnnotations")
    external_url: Text = Field(default="", alias="externalURL")
    alerts: list[Alert] = Field(min_length=1, max_length=MAX_ALERTS)
    # How many of ``truncated_alerts`` the intake cut itself (past ``MAX_ALERTS``), never the sender's to say.
    cut_alerts: int = Field(default=0, alias="_cutAlerts", ge=0)

    @model_validator(mode="before")
    @classmethod
    def _keeps_the_first_alerts(cls, data: Any) -> Any:
        """Past ``MAX_ALERTS``, the firing alerts first (they are what a diagnosis asks about), the rest counted."""
        if isinstance(data, dict):
            data = {**data, "_cutAlerts": 0}
        alerts = data.get("alerts") if isinstance(data, dict) else None
        if not isinstance(alerts, list) or len(alerts) <= MAX_ALERTS:
            return data  # within bounds, or not a payload: the fields' own validation speaks
        try:  # read as the field reads it (``true``, ``5.0`` and ``"5"`` are counts to it)
            truncated = _COUNT.validate_python(data.get("truncatedAlerts", 0))
        except ValidationError:
            return data
        # A stable sort: the firing alerts first, each part in Alertmanager's order.
        firing_first = sorted(
            alerts, key=lambda alert: not (isinstance(alert, dict) and alert.get("status") == "firing")
        )
        kept = firing_first[:MAX_ALERTS]
        cut = len(alerts) - len(kept)
        return {**data, "alerts": kept, "truncatedAlerts": truncated + cut, "_cutAlerts": cut}

    @property
    def firing_alerts(self) -> list[Alert]:
        return [alert for alert in self.alerts if alert.firing]

    @property
    def sender_truncated(self) -> bool:
        """Whether the sender cut the list (``max_alerts``) before it computed the status, which its cut
        alerts may then belie; the intake's own cut comes after, and leaves the status Alertmanager's."""
        return self.truncated_alerts > self.cut_alerts


def _location(loc: tuple[int | str, ...]) -> str:
    """``('alerts', 1, 'startsAt')`` as ``alerts[1].startsAt``."""
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "body"


def log_refusal(data: Any, code: str, reason: str) -> None:
    """One WARNING line per refused notification: nothing is written for it (by design), so this is how an
    operator learns which group was refused and why. The group key is cut and quoted (it is the sender's)."""
    group_key = data.get("groupKey") if isinstance(data, dict) else None
    shown = group_key[:LOGGED_GROUP_KEY_CHARS] if isinstance(group_key, str) else group_key
    logger.warning("alert notification refused (%s): %s; groupKey %r", code, reason, shown)


def parse_payload(data: Any) -> AlertmanagerPayload:
    """The validated payload; DRF's ``ValidationError`` naming the first bad field (the API's 400)."""
    if not isinstance(data, dict):
        location, reason = "body", "must be a JSON object (Alertmanager's webhook payload)"
    else:
        try:
            return AlertmanagerPayload.model_validate(data)
        except ValidationError as error:
            first = error.errors(include_url=False)[0]
            location, reason = _location(first["loc"]), first["msg"]
    log_refusal(data, VALIDATION_CODE, f"{location}: {reason}")
    raise exceptions.ValidationError({location: [reason]})
