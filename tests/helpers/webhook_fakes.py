"""Discord's and Slack's incoming webhooks on loopback: small threaded HTTP servers that
check every request as the services document it, answer as they do, and keep what came.

Discord (developer docs, Execute Webhook): ``POST /api/webhooks/{id}/{token}`` (also
``/api/v{n}/…``; ``?wait=true`` answers 200 with the message made, else 204), a JSON body
(``Content-Type: application/json``) with at least one of ``content``, ``embeds``,
``components``, ``poll``; ``content`` at most 2000 characters, at most 10 embeds, an
embed's title 256, description 4096, at most 25 fields (name 256, value 1024, both
given), footer 2048, author 256, and all the embeds' text together at most 6000. A 429
carries JSON ``{"message", "retry_after", "global"}``, the ``X-RateLimit-Limit``,
``-Remaining``, ``-Reset``, ``-Reset-After``, ``-Bucket`` headers and ``Retry-After``.

Slack (Sending messages using incoming webhooks): ``POST /services/T…/B…/…``, a JSON body
with ``text`` (the message, and the fallback when ``blocks`` are given) and at most 50
blocks (a section's text at most 3000 characters, a header's 150); it answers 200 with
the body ``ok``, a 429 with ``Retry-After``, and its errors in words (404 ``no_service``,
403 ``invalid_token``, 410 ``channel_is_archived``).

A request that breaks the documented shape is answered 400 (as the service would refuse
it) and kept in ``violations``, a sentence each, so a test can assert ``fake.violations
== []``. Accepted posts are kept in ``posts`` (the parsed JSON bodies, in order) and
every request in ``received``. What the fake answers is scripted with ``then``:

    with DiscordFake(clock=clock) as fake:
        fake.then(429, until=clock() + 60)   # rate limited for a minute of ``clock``
        fake.then(500, times=2)              # then two 500s
        fake.then(404)                       # then 404 for ever
        post_once(fake.url(), {"content": "hi"}, via=fake.base)

With nothing scripted (or the script used up) a post is accepted. ``delay`` makes the fake
slow: it keeps the post at once, then waits that long before answering (a post whose
sender dies meanwhile has reached the channel).

Imports: stdlib only.
"""

from __future__ import annotations

import json
import math
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

# -- what each service documents ------------------------------------------------------------------
DISCORD_PATH = re.compile(r"^/api(/v\d+)?/webhooks/(\d{17,20})/([A-Za-z0-9_-]{60,80})$")
DISCORD_KEYS = {"content", "username", "avatar_url", "tts", "embeds", "allowed_mentions", "components", "files",
                "payload_json", "attachments", "flags", "thread_name", "applied_tags", "poll"}
DISCORD_ERRORS = {  # status: (code, message) as Discord words them
    400: (50006, "Cannot send an empty message"),
    401: (50027, "Invalid Webhook Token"),
    403: (50013, "Missing Permissions"),
    404: (10015, "Unknown Webhook"),
    500: (0, "500: Internal Server Error"),
    502: (0, "502: Bad Gateway"),
    503: (0, "503: Service Unavailable"),
}
SLACK_PATH = re.compile(r"^/services/(T[A-Z0-9]{4,19})/(B[A-Z0-9]{4,19})/([A-Za-z0-9]{10,40})$")
SLACK_KEYS = {"text", "blocks", "attachments", "thread_ts", "mrkdwn", "unfurl_links", "unfurl_media", "username",
              "icon_emoji", "icon_url", "channel", "reply_broadcast", "metadata"}
SLACK_ERRORS = {  # status: the body Slack answers with
    400: "invalid_payload", 403: "invalid_token", 404: "no_service", 410: "channel_is_archived",
    429: "rate_limited", 500: "rollup_error", 503: "service_unavailable",
}


def discord_problems(path: str, query: str, headers: dict[str, str], raw: bytes) -> list[str]:
    """What breaks Discord's documented shape in one request (nothing: an empty list)."""
    if not DISCORD_PATH.match(path):
        return [f"not a webhook's path: {path}"]
    problems = []
    wait = parse_qs(query).get("wait")
    if wait and wait[0] not in ("true", "false"):
        problems.append(f"wait must be true or false, not {wait[0]!r}")
    body, problem = _json_object(headers, raw)
    if problem:
        return problems + [problem]
    unknown = sorted(set(body) - DISCORD_KEYS)
    if unknown:
        problems.append(f"fields Discord does not take: {', '.join(unknown)}")
    content, embeds = body.get("content"), body.get("embeds")
    if content is not None and not isinstance(content, str):
        problems.append("content must be a string")
    elif content is not None and len(content) > 2000:
        problems.append(f"content has {len(content)} characters (at most 2000)")
    if embeds is not None and not isinstance(embeds, list):
        problems.append("embeds must be a list")
        embeds = None
    if not content and not embeds and not body.get("components") and not body.get("poll"):
        problems.append("an empty message: none of content, embeds, components, poll")
    if isinstance(body.get("username"), str) and not 1 <= len(body["username"]) <= 80:
        problems.append("username must be 1 to 80 characters")
    if embeds:
        problems += _embed_problems(embeds)
    return problems


def _embed_problems(embeds: list) -> list[str]:
    problems = []
    if len(embeds) > 10:
        problems.append(f"{len(embeds)} embeds (at most 10)")
    total = 0
    for n, e in enumerate(embeds):
        if not isinstance(e, dict):
            problems.append(f"embed {n} is not an object")
            continue
        parts: list[tuple[str, Any, int]] = [("title", e.get("title"), 256),
                                             ("description", e.get("description"), 4096)]
        if isinstance(e.get("footer"), dict):
            parts.append(("footer text", e["footer"].get("text"), 2048))
        if isinstance(e.get("author"), dict):
            parts.append(("author name", e["author"].get("name"), 256))
        fields = e.get("fields") or []
        if not isinstance(fields, list):
            problems.append(f"embed {n}: fields must be a list")
            fields = []
        if len(fields) > 25:
            problems.append(f"embed {n}: {len(fields)} fields (at most 25)")
        for m, f in enumerate(fields):
            if not isinstance(f, dict) or not f.get("name") or not f.get("value"):
                problems.append(f"embed {n}: field {m} needs a name and a value")
                continue
            parts += [(f"field {m} name", f["name"], 256), (f"field {m} value", f["value"], 1024)]
        if "color" in e and not (isinstance(e["color"], int) and 0 <= e["color"] <= 0xFFFFFF):
            problems.append(f"embed {n}: color must be a number from 0 to 16777215")
        for name, value, most in parts:
            if value is None:
                continue
            if not isinstance(value, str):
                problems.append(f"embed {n}: {name} must be a string")
                continue
            total += len(value)
            if len(value) > most:
                problems.append(f"embed {n}: {name} has {len(value)} characters (at most {most})")
    if total > 6000:
        problems.append(f"the embeds have {total} characters of text together (at most 6000)")
    return problems


def slack_problems(path: str, query: str, headers: dict[str, str], raw: bytes) -> list[str]:
    """What breaks Slack's documented shape in one request (nothing: an empty list)."""
    if not SLACK_PATH.match(path):
        return [f"not a webhook's path: {path}"]
    body, problem = _json_object(headers, raw)
    if problem:
        return [problem]
    problems = []
    unknown = sorted(set(body) - SLACK_KEYS)
    if unknown:
        problems.append(f"fields Slack does not take: {', '.join(unknown)}")
    text = body.get("text")
    if not isinstance(text, str) or not text.strip():
        problems.append("no text (it is required: the message, or the fallback when there are blocks)")
    elif len(text) > 40000:
        problems.append(f"text has {len(text)} characters (at most 40000)")
    blocks = body.get("blocks")
    if blocks is not None:
        if not isinstance(blocks, list):
            problems.append("blocks must be a list")
        else:
            if len(blocks) > 50:
                problems.append(f"{len(blocks)} blocks (at most 50)")
            for n, b in enumerate(blocks):
                problems += [f"block {n}: {p}" for p in _block_problems(b)]
    return problems


def _block_problems(block: Any) -> list[str]:
    if not isinstance(block, dict) or not isinstance(block.get("type"), str):
        return ["a block is an object with a type"]
    kind, problems = block["type"], []
    if len(str(block.get("block_id", ""))) > 255:
        problems.append("block_id longer than 255")
    if kind == "section":
        text, fields = block.get("text"), block.get("fields")
        if text is None and not fields:
            problems.append("a section needs text or fields")
        if text is not None:
            problems += _text_problems(text, 3000, ("plain_text", "mrkdwn"))
        if fields is not None:
            if not isinstance(fields, list) or len(fields) > 10:
                problems.append("a section's fields are a list of at most 10")
            else:
                for f in fields:
                    problems += _text_problems(f, 2000, ("plain_text", "mrkdwn"))
    elif kind == "header":
        problems += _text_problems(block.get("text"), 150, ("plain_text",))
    elif kind == "context":
        elements = block.get("elements")
        if not isinstance(elements, list) or not 1 <= len(elements) <= 10:
            problems.append("a context has 1 to 10 elements")
    elif kind == "actions":
        elements = block.get("elements")
        if not isinstance(elements, list) or not 1 <= len(elements) <= 25:
            problems.append("an actions block has 1 to 25 elements")
    elif kind not in ("divider", "image", "rich_text", "file", "input", "video"):
        problems.append(f"no block of type {kind!r}")
    return problems


def _text_problems(text: Any, most: int, kinds: tuple[str, ...]) -> list[str]:
    if not isinstance(text, dict) or text.get("type") not in kinds or not isinstance(text.get("text"), str):
        return [f"a text object is {{\"type\": {' or '.join(kinds)}, \"text\": …}}"]
    if not 1 <= len(text["text"]) <= most:
        return [f"a text of {len(text['text'])} characters (1 to {most})"]
    return []


def _json_object(headers: dict[str, str], raw: bytes) -> tuple[dict, str]:
    kind = headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/json":
        return {}, f"Content-Type is {kind or 'missing'}, not application/json"
    try:
        body = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return {}, "the body is not JSON"
    if not isinstance(body, dict):
        return {}, "the body is not a JSON object"
    return body, ""


# -- the fakes -------------------------------------------------------------------------------------
@dataclass
class Step:
    """One line of the script: answer ``status`` (``times`` requests, or every request until
    the fake's clock reads ``until``, or for ever), to any webhook or only to ``path``."""

    status: int
    times: int | None = None
    until: float | None = None
    retry_after: float = 1.0
    path: str | None = None


@dataclass(frozen=True)
class Received:
    """One request as it came: its path (query left off), JSON body when it parsed, the
    status it was answered with, and when (the fake's clock)."""

    path: str
    body: Any
    status: int
    at: float


@dataclass
class WebhookFake:
    """A service's webhooks on ``base`` (``http://127.0.0.1:port``). Use ``with`` (or
    ``start``/``stop``)."""

    clock: Callable[[], float] = time.time
    delay: float = 0.0
    base: str = ""
    posts: list[Any] = field(default_factory=list)
    received: list[Received] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)
    script: list[Step] = field(default_factory=list)

    service = ""

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._made = 0

    # -- what a test says ---------------------------------------------------------------------------
    def then(self, status: int, times: int | None = None, until: float | None = None, retry_after: float = 1.0,
             webhook: str | None = None) -> WebhookFake:
        """Add a line to the script (see ``Step``); ``webhook``: only for that webhook's URL.
        With neither ``times`` nor ``until``, for ever."""
        with self._lock:
            self.script.append(Step(status, times, until, retry_after, urlsplit(webhook).path if webhook else None))
        return self

    def url(self, n: int = 0) -> str:
        """A real-looking webhook URL of this service (``n`` tells several apart)."""
        raise NotImplementedError

    def posts_to(self, webhook: str) -> list[Any]:
        """The bodies accepted for one webhook, in order."""
        path = urlsplit(webhook).path
        with self._lock:
            return [r.body for r in self.received if r.path == path and 200 <= r.status < 300]

    # -- the server ----------------------------------------------------------------------------------
    def start(self) -> WebhookFake:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                fake._answer(self, raw)

            def do_GET(self) -> None:  # noqa: N802
                fake._refuse(self, 405, f"{self.command} {self.path}: a webhook takes POST")

            do_PUT = do_PATCH = do_DELETE = do_GET  # noqa: N815

            def log_message(self, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.base = f"http://127.0.0.1:{self._server.server_port}"
        threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> WebhookFake:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- one request ----------------------------------------------------------------------------------
    def problems(self, path: str, query: str, headers: dict[str, str], raw: bytes) -> list[str]:
        raise NotImplementedError

    def _answer(self, handler: BaseHTTPRequestHandler, raw: bytes) -> None:
        parts = urlsplit(handler.path)
        headers = {k.lower(): v for k, v in handler.headers.items()}
        now = self.clock()
        problems = self.problems(parts.path, parts.query, headers, raw)
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        with self._lock:
            if problems:
                self.violations += [f"{self.service} {parts.path}: {p}" for p in problems]
                step = Step(400)
            else:
                step = self._next(parts.path, now)
            self.received.append(Received(parts.path, body, step.status, now))
            if 200 <= step.status < 300:
                self.posts.append(body)
        if self.delay:
            time.sleep(self.delay)
        status, out_headers, out = self.reply(step, now, parts.query, body, "; ".join(problems))
        self._send(handler, status, out_headers, out)

    def _next(self, path: str, now: float) -> Step:
        """The script's answer to a request now (under the lock)."""
        for step in list(self.script):
            if step.path is not None and step.path != path:
                continue
            if step.until is not None and now >= step.until:
                self.script.remove(step)
                continue
            if step.times is not None:
                step.times -= 1
                if step.times <= 0:
                    self.script.remove(step)
            if step.until is not None:
                return Step(step.status, retry_after=round(step.until - now, 3))
            return step
        return Step(200)

    def reply(self, step: Step, now: float, query: str, body: Any, problem: str) -> tuple[int, dict, bytes]:
        raise NotImplementedError

    def _refuse(self, handler: BaseHTTPRequestHandler, status: int, problem: str) -> None:
        with self._lock:
            self.violations.append(f"{self.service}: {problem}")
        self._send(handler, status, {"Content-Type": "text/plain"}, b"method not allowed")

    @staticmethod
    def _send(handler: BaseHTTPRequestHandler, status: int, headers: dict, body: bytes) -> None:
        try:
            handler.send_response(status)
            for k, v in headers.items():
                handler.send_header(k, str(v))
            handler.send_header("Content-Length", str(len(body)))
            handler.end_headers()
            handler.wfile.write(body)
        except OSError:
            pass  # the sender hung up (killed, or timed out) before the answer


class DiscordFake(WebhookFake):
    """Discord's webhooks: ``https://discord.com/api/webhooks/{id}/{token}``."""

    service = "discord"

    def url(self, n: int = 0) -> str:
        token = (f"tok{n}-" + "aB3_x9Kq" * 10)[:68]
        return f"https://discord.com/api/webhooks/{123456789012345678 + n}/{token}"

    def problems(self, path: str, query: str, headers: dict[str, str], raw: bytes) -> list[str]:
        return discord_problems(path, query, headers, raw)

    def reply(self, step: Step, now: float, query: str, body: Any, problem: str) -> tuple[int, dict, bytes]:
        wait = max(step.retry_after, 0.0)
        limits = {"X-RateLimit-Limit": 5, "X-RateLimit-Bucket": "a06de0de2f2c8c5e3b7b6e3e0d5b1c1f",
                  "X-RateLimit-Remaining": 0 if step.status == 429 else 4,
                  "X-RateLimit-Reset": f"{now + (wait if step.status == 429 else 1.0):.3f}",
                  "X-RateLimit-Reset-After": f"{wait if step.status == 429 else 1.0:.3f}"}
        if step.status == 429:
            return 429, {**limits, "Retry-After": math.ceil(wait), "X-RateLimit-Scope": "user",
                         "Content-Type": "application/json"}, _json(
                {"message": "You are being rate limited.", "retry_after": wait, "global": False})
        if 200 <= step.status < 300:
            if parse_qs(query).get("wait") != ["true"]:
                return 204, limits, b""
            with self._lock:
                self._made += 1
                made = self._made
            return 200, {**limits, "Content-Type": "application/json"}, _json({
                "id": str(1100000000000000000 + made), "type": 0, "channel_id": "1000000000000000001",
                "content": body.get("content", ""), "embeds": body.get("embeds", []),
                "webhook_id": "123456789012345678", "timestamp": time.strftime("%Y-%m-%dT%H:%M:%S+00:00",
                                                                             time.gmtime(now))})
        code, message = DISCORD_ERRORS.get(step.status, (0, f"{step.status}"))
        answer: dict[str, Any] = {"message": message, "code": code}
        if step.status == 400 and problem:
            answer = {"message": "Invalid Form Body", "code": 50035, "errors": {"_errors": [{"message": problem}]}}
        return step.status, {**limits, "Content-Type": "application/json"}, _json(answer)


class SlackFake(WebhookFake):
    """Slack's webhooks: ``https://hooks.slack.com/services/T…/B…/…``."""

    service = "slack"

    def url(self, n: int = 0) -> str:
        return f"https://hooks.slack.com/services/T0001AAAA/B{n:04d}BBBB/{'x' * 20}{n:04d}"

    def problems(self, path: str, query: str, headers: dict[str, str], raw: bytes) -> list[str]:
        return slack_problems(path, query, headers, raw)

    def reply(self, step: Step, now: float, query: str, body: Any, problem: str) -> tuple[int, dict, bytes]:
        text = {"Content-Type": "text/html"}
        if 200 <= step.status < 300:
            return 200, text, b"ok"
        if step.status == 429:
            return 429, {**text, "Retry-After": math.ceil(max(step.retry_after, 0.0))}, b"rate_limited"
        if step.status == 400:
            return 400, text, b"no_text" if "no text" in problem else b"invalid_payload"
        return step.status, text, SLACK_ERRORS.get(step.status, "error").encode()


def _json(value: Any) -> bytes:
    return json.dumps(value).encode()


__all__ = ["DiscordFake", "SlackFake", "WebhookFake", "Received", "Step", "discord_problems", "slack_problems"]
