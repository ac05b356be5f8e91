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

Robots answer HTTP 200 with an error code in the body, so those codes are read too; the codes by which a
robot says it is sent too much too fast are worth another try (``RobotRefusal.retryable``).

The alert's name comes from label values (which can carry what a client sent the alerting service) and an
answer quotes log lines: neither may address people or link elsewhere in the chat. An answer's CommonMark
backslash escapes (``\\[``, which the fallback writes before quoted text's markup) mean nothing to Slack or
the robots, so they are dropped first, then: Slack's text is escaped as Slack documents (``&``, ``<``,
``>``), cut before it is escaped so that no cut splits an ``&amp;``; in the robots' formats, where nothing
escapes them, a ``<`` (which opens WeCom's and Feishu's mentions and the robots' tags) is shown as the
full-width ``＜``, and a link's ``](`` in an answer as ``］(``. Everywhere, an ``@`` is followed by a
zero-width joiner, so ``@channel`` notifies no one where Slack-compatible sinks would act on it. The title
is one line (``messages.run_message``), and its markup (``*``, ``_``, ``~``, backquotes; in the robots'
markdown ``#``, ``>`` and square brackets too) is shown full-width, so an alert name cannot restyle it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

import httpx
from django.utils.translation import gettext, pgettext

from alerts.messages import RunMessage

#: An answer is cut to this many UTF-8 bytes, the cut's note included.
ANSWER_BYTES = 3500
#: WeCom's limit on a markdown message's whole content (title, answer and links).
WECOM_CONTENT_BYTES = 4096


def _truncated() -> str:
    return "\n\n" + gettext("… (cut; the whole answer is on the run's page)")


def _links() -> tuple[str, str]:
    """The labels of the links to the run's page and its trace."""
    return pgettext("notification link", "Run"), pgettext("notification link", "Trace")


def _clipped(text: str, limit: int = ANSWER_BYTES) -> str:
    """``text`` within ``limit`` bytes, the cut's note included when there is room for it."""
    if len(text.encode()) <= limit:
        return text
    truncated = _truncated()
    room = limit - len(truncated.encode())
    return _cut(text, limit) if room < 0 else _cut(text, room) + truncated


def _cut(text: str, limit: int) -> str:
    """The longest start of ``text`` within ``limit`` UTF-8 bytes (none below 0), whole characters only."""
    return text.encode()[: max(0, limit)].decode(errors="ignore")


_MARKDOWN_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")


def _unescaped(text: str) -> str:
    """``text`` without CommonMark's backslash escapes, as a reader of the rendered answer sees it."""
    return _MARKDOWN_ESCAPE.sub(r"\1", text)


#: ``@`` with a zero-width joiner after it: Mattermost, Rocket.Chat and Discord's ``/slack`` endpoint notify
#: a channel for a bare ``@channel``, ``@here``, ``@all`` or ``@everyone`` (and a user for ``@name``).
_NO_MENTION = "@\u200d"
#: Slack's escapes (``&``, ``<``, ``>``), and no bare mention.
_SLACK_TEXT = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", "@": _NO_MENTION})
#: Bold, italic, strike and code in Slack's mrkdwn, which has no escape for them, and in the robots' markdown:
#: in a title (which the sinks make bold) they are shown full-width.
_EMPHASIS = {"*": "＊", "_": "＿", "~": "～", "`": "｀"}
_SLACK_TITLE = str.maketrans(_EMPHASIS)
#: In the robots' text, nothing escapes ``<`` (WeCom's and Feishu's mentions, the robots' tags).
_ROBOT_TEXT = str.maketrans({"<": "＜", "@": _NO_MENTION})
#: The robots' markdown has headings (``#``), quotes (``>``) and links (``[…](…)``) as well.
_ROBOT_TITLE = str.maketrans({**_EMPHASIS, "#": "＃", ">": "＞", "[": "［", "]": "］"})


def _slack_text(text: str) -> str:
    return text.translate(_SLACK_TEXT)


def _slack_title(message: RunMessage) -> str:
    return _slack_text(message.title.translate(_SLACK_TITLE))


def _robot_text(text: str) -> str:
    return text.translate(_ROBOT_TEXT)


def _robot_answer(message: RunMessage) -> str:
    # A link is ``[label](url)``: its "](" is broken, and a citation marker "[c1]" stays as it is.
    return _robot_text(_unescaped(message.answer_markdown)).replace("](", "］(")


def _robot_title(message: RunMessage) -> str:
    """The title in the robots' markdown (WeCom, DingTalk); Feishu's text is plain, and takes ``_robot_text``."""
    return _robot_text(message.title).translate(_ROBOT_TITLE)


def _markdown(message: RunMessage, total: int | None = None) -> str:
    """Title, answer and links in the robots' markdown, within ``total`` bytes in all when it is given (the
    answer cut first, then the title; the links, whole or useless, never)."""
    title = _robot_title(message)
    run, trace = _links()
    tail = f"\n\n[{run}]({message.run_url}) · [{trace}]({message.trace_url})"
    if total is not None:
        title = _cut(title, total - len(f"****\n\n{tail}".encode()))
    head = f"**{title}**\n\n"
    room = ANSWER_BYTES if total is None else min(ANSWER_BYTES, total - len((head + tail).encode()))
    return head + _clipped(_robot_answer(message), room) + tail


def webhook_body(message: RunMessage) -> dict[str, Any]:
    body = asdict(message)
    body["event"] = "diagnosis.finished"
    return body


def slack_body(message: RunMessage) -> dict[str, Any]:
    run, trace = _links()
    links = f"<{message.run_url}|{run}> · <{message.trace_url}|{trace}>"
    text = _slack_text(_clipped(_unescaped(message.answer_markdown)))
    return {"text": f"*{_slack_title(message)}*\n{text}\n{links}"}


def wecom_body(message: RunMessage) -> dict[str, Any]:
    return {"msgtype": "markdown", "markdown": {"content": _markdown(message, WECOM_CONTENT_BYTES)}}


def dingtalk_body(message: RunMessage) -> dict[str, Any]:
    return {"msgtype": "markdown", "markdown": {"title": _robot_title(message), "text": _markdown(message)}}


def feishu_body(message: RunMessage) -> dict[str, Any]:
    answer = _clipped(_robot_answer(message))
    run, trace = _links()
    text = f"{_robot_text(message.title)}\n\n{answer}\n\n{run}: {message.run_url}\n{trace}: {message.trace_url}"
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
#: The codes by which a robot says it was sent too much too fast (no 429: the answer is a 200).
ROBOT_THROTTLED: Mapping[str, frozenset[int]] = {
    "wecom": frozenset({45009, -1}),  # api freq out of limit (20 messages a minute per robot); system busy
    "dingtalk": frozenset({130101, -1}),  # send too fast; system busy
    "feishu": frozenset({11232}),  # frequency limited
}


@dataclass(frozen=True)
class RobotRefusal:
    text: str
    """``errcode 310000: keywords not in content``"""
    retryable: bool
    """Throttled: a later try may pass."""


def robot_refusal(sink: str, response: httpx.Response) -> RobotRefusal | None:
    """The robot's refusal in a 2xx answer, else None."""
    field = ROBOT_CODE_FIELDS.get(sink)
    if field is None:
        return None
    try:
        answer = response.json()
    except ValueError:
        return RobotRefusal("the robot's answer is not JSON", retryable=False)
    if not isinstance(answer, dict):
        return RobotRefusal("the robot's answer is not a JSON object", retryable=False)
    code = answer.get(field)
    if type(code) is int and code == 0:  # not ``false``, which equals 0
        return None
    text = f"{field} {code}: {answer.get('errmsg') or answer.get('msg') or ''}"[:300]
    # The code is the robot's JSON: a list or an object is no code, and no set can be asked about it.
    throttled = type(code) is int and code in ROBOT_THROTTLED.get(sink, frozenset())
    return RobotRefusal(text, retryable=throttled)
