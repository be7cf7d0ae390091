"""A circle's channel as the services take it: which webhook URLs are accepted (a Discord
or Slack incoming webhook, nothing else), and one post to one, its answer read.

Only ``https`` on port 443 to exactly Discord's and Slack's webhook hosts is accepted, with
the path each gives its webhooks; redirects are never followed, so no other address is
ever contacted. ``post_once`` sends one JSON body (requests: a timeout on connecting and on
reading) and says what came of it: sent, asked to wait (429: Discord's ``retry_after`` in
its JSON or its ``X-RateLimit-Reset-After``, Slack's ``Retry-After``), gone for good (the
webhook was deleted or refused: 401, 403, 404, 410), or failed for now (5xx, no answer).

``via`` (tests only: the ``CHANNEL_VIA`` setting) sends to that scheme, host and port
instead, the path kept, after the URL itself passed the check: the loopback fakes of the
services stand there.

Imports: stdlib and requests.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from urllib.parse import urlsplit

import requests

DISCORD, SLACK = "discord", "slack"
DISCORD_HOSTS = ("discord.com", "discordapp.com", "canary.discord.com", "ptb.discord.com")
SLACK_HOSTS = ("hooks.slack.com",)
_DISCORD_PATH = re.compile(r"^/api(/v\d+)?/webhooks/\d{5,25}/[A-Za-z0-9_-]{20,100}$")
_SLACK_PATH = re.compile(r"^/services/[A-Z0-9]{5,20}/[A-Z0-9]{5,20}/[A-Za-z0-9]{10,40}$")
MAX_URL = 300
TIMEOUT_S = (3.05, 5.0)  # connecting, reading
GONE = (401, 403, 404, 410)  # the webhook was deleted, or the service refuses it: posting again will not help
TAIL = 6  # the URL's last characters a page may show


class BadWebhook(ValueError):
    """Not a webhook URL the site posts to; ``str(error)`` says why in a sentence."""


def service_of(url: str) -> str:
    """``discord`` or ``slack`` for an accepted incoming-webhook URL. Raises BadWebhook.

    >>> service_of("https://discord.com/api/webhooks/123456789012345678/" + "a" * 68)
    'discord'
    >>> service_of("https://hooks.slack.com/services/T000AAAA/B000BBBB/" + "x" * 24)
    'slack'
    >>> service_of("http://discord.com/api/webhooks/1/2")
    Traceback (most recent call last):
    ...
    spades.circles.webhooks.BadWebhook: That is not a webhook address: it must start with https://.
    """
    url = url.strip()
    if len(url) > MAX_URL:
        raise BadWebhook("That address is too long to be a webhook.")
    parts = urlsplit(url)
    if parts.scheme != "https":
        raise BadWebhook("That is not a webhook address: it must start with https://.")
    if parts.username or parts.password or parts.query or parts.fragment or parts.port not in (None, 443):
        raise BadWebhook("That is not a webhook address: paste the URL the channel's settings give, as it is.")
    host = (parts.hostname or "").lower()
    if host in DISCORD_HOSTS and _DISCORD_PATH.match(parts.path):
        return DISCORD
    if host in SLACK_HOSTS and _SLACK_PATH.match(parts.path):
        return SLACK
    if host in DISCORD_HOSTS or host in SLACK_HOSTS:
        raise BadWebhook("That address is not an incoming webhook: copy the webhook's URL from the channel's "
                         "settings (Discord: Integrations, Webhooks; Slack: an app's Incoming Webhooks).")
    raise BadWebhook("Only a Discord or a Slack channel's webhook can be used (discord.com/api/webhooks/… or "
                     "hooks.slack.com/services/…).")


def tail_of(url: str) -> str:
    """What a page shows of a webhook's URL: its last few characters."""
    return "…" + url.strip()[-TAIL:]


@dataclass(frozen=True, slots=True)
class Outcome:
    """What came of one post: sent (``ok``), asked to wait (``wait``: seconds), gone for good
    (``gone``: stop posting to this webhook), or failed for now; ``words`` say it."""

    ok: bool
    words: str = ""
    wait: float | None = None
    gone: bool = False
    status: int | None = None


def post_once(url: str, body: dict, *, via: str | None = None, timeout: tuple[float, float] = TIMEOUT_S,
              session: requests.Session | None = None) -> Outcome:
    """Send ``body`` (the service's JSON) to the webhook at ``url`` once, and read the answer.
    Raises BadWebhook for an address that is not one (nothing is sent)."""
    service = service_of(url)
    target = url.strip()
    if via is not None:
        parts, base = urlsplit(target), urlsplit(via)
        target = f"{base.scheme}://{base.netloc}{parts.path}"
    if service == DISCORD:
        target += "?wait=true"  # Discord answers with the message it made (200), not 204 at once
    data = json.dumps(body, separators=(",", ":")).encode()
    try:
        answer = (session or requests).post(target, data=data, timeout=timeout, allow_redirects=False,
                                            headers={"Content-Type": "application/json",
                                                     "User-Agent": "Spades (circle channel)"})
    except requests.RequestException as e:
        return Outcome(False, f"The channel could not be reached ({type(e).__name__}).")
    status = answer.status_code
    if 200 <= status < 300:
        return Outcome(True, "Posted.", status=status)
    if status == 429:
        return Outcome(False, "The channel asked to wait before the next post.", wait=_wait(answer), status=status)
    if status in GONE:
        return Outcome(False, f"The channel's webhook answered {status}: it was deleted, or no longer lets the site "
                              "post. Paste a new webhook to post there again.", gone=True, status=status)
    if 300 <= status < 400:
        return Outcome(False, f"The channel's webhook answered {status} (a redirect, not followed).", gone=True,
                       status=status)
    return Outcome(False, f"The channel's service answered {status}.", status=status)


def _wait(answer: requests.Response) -> float:
    """How long a 429 asks to wait, in seconds: Discord's ``retry_after`` (JSON, seconds),
    else its ``X-RateLimit-Reset-After``, else ``Retry-After`` (Slack's, seconds); 1 s when
    none says."""
    try:
        value = answer.json().get("retry_after")
        if isinstance(value, int | float) and value >= 0:
            return float(value)
    except (ValueError, AttributeError):
        pass
    for header in ("X-RateLimit-Reset-After", "Retry-After"):
        try:
            return max(0.0, float(answer.headers.get(header, "")))
        except ValueError:
            continue
    return 1.0


__all__ = ["DISCORD", "SLACK", "BadWebhook", "Outcome", "service_of", "tail_of", "post_once"]
