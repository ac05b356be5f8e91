"""The JSON bodies of each sink format, and how each tells success from failure.

- ``webhook``: this project's own JSON (every field of ``RunMessage``), for any HTTP receiver.
- ``slack``: an incoming webhook's ``{"text": ...}`` in Slack mrkdwn (``<url|label>`` links); Mattermost,
  Rocket.Chat and Discord's ``/slack`` endpoint accept the same body.
- ``wecom``: WeCom (企业微信) group robot, ``{"msgtype": "markdown", "markdown": {"content"}}``; content at most
  4096 bytes; answers ``{"errcode": 0}`` on success.
- ``dingtalk``: DingTalk (钉钉) custom robot, ``{"msgtype": "markdown", "markdown": {"title", "text"}}``;
  answers ``{"errcode": 0}``. A robot secured by keyword needs the keyword in the title (the alert name).
- ``feishu``: Feishu/Lark (飞书) custom bot, ``{"msg_type": "text", "content": {"text"}}``; answers
  ``{"code": 0}``. Robots secured by signature are not supported (use keyword or IP allow-listing).

Robots answer HTTP 200 with an error code in the body, so those codes are read too.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import asdict
from typing import Any

import httpx

from alerts.messages import RunMessage

#: An answer is cut to this many UTF-8 bytes (WeCom's markdown limit is 4096, with the title and links).
ANSWER_BYTES = 3500
TRUNCATED = "\n\n… (cut; the whole answer is on the run's page)"


def _clipped(text: str) -> str:
    data = text.encode()
    if len(data) <= ANSWER_BYTES:
        return text
    return data[:ANSWER_BYTES].decode(errors="ignore") + TRUNCATED


def _markdown(message: RunMessage) -> str:
    links = f"[Run]({message.run_url}) · [Trace]({message.trace_url})"
    return f"**{message.title}**\n\n{_clipped(message.answer_markdown)}\n\n{links}"


def webhook_body(message: RunMessage) -> dict[str, Any]:
    body = asdict(message)
    body["event"] = "diagnosis.finished"
    return body


def slack_body(message: RunMessage) -> dict[str, Any]:
    links = f"<{message.run_url}|Run> · <{message.trace_url}|Trace>"
    return {"text": f"*{message.title}*\n{_clipped(message.answer_markdown)}\n{links}"}


def wecom_body(message: RunMessage) -> dict[str, Any]:
    return {"msgtype": "markdown", "markdown": {"content": _markdown(message)}}


def dingtalk_body(message: RunMessage) -> dict[str, Any]:
    return {"msgtype": "markdown", "markdown": {"title": message.title, "text": _markdown(message)}}


def feishu_body(message: RunMessage) -> dict[str, Any]:
    text = (
        f"{message.title}\n\n{_clipped(message.answer_markdown)}\n\nRun: {message.run_url}\nTrace: {message.trace_url}"
    )
    return {"msg_type": "text", "content": {"text": text}}


#: Keyed by ``settings.ALERT_SINK_KINDS`` (a test holds them equal).
BODIES: Mapping[str, Callable[[RunMessage], dict[str, Any]]] = {
    "webhook": webhook_body,
    "slack": slack_body,
    "wecom": wecom_body,
    "dingtalk": dingtalk_body,
    "feishu": feishu_body,
}
#: The body field a robot reports its error code in (0 is success).
ROBOT_CODE_FIELDS: Mapping[str, str] = {"wecom": "errcode", "dingtalk": "errcode", "feishu": "code"}


def robot_error(sink: str, response: httpx.Response) -> str | None:
    """The robot's refusal in a 2xx answer (``errcode 310000: keywords not in content``), else None."""
    field = ROBOT_CODE_FIELDS.get(sink)
    if field is None:
        return None
    try:
        answer = response.json()
    except ValueError:
        return "the robot's answer is not JSON"
    if not isinstance(answer, dict):
        return "the robot's answer is not a JSON object"
    code = answer.get(field)
    if code == 0:
        return None
    return f"{field} {code}: {answer.get('errmsg') or answer.get('msg') or ''}"[:300]
