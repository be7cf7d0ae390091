"""Circles' channels: the posts kept for them sent, in a thread of their own, and each
answer acted on.

A ``ChannelSender`` takes the posts that are due (``ChannelStore.claim_posts``: at most one
per channel, the channel's oldest, leased to this process), sends each once
(``webhooks.post_once``) and writes down what came of it:

====================================  =====================================================
the service answered                  what happens
====================================  =====================================================
2xx                                   sent (``post_sent``); the channel's next post is due
429 (wait ``w`` seconds)              the channel is paced until now + ``w`` and the post is
                                      due then; the try does not count and the post is
                                      never given up for it
401, 403, 404, 410, a redirect        the webhook is gone: the channel is turned off with a
                                      sentence for its owner, and its posts not sent fail
other 4xx (the post itself refused)   the post fails at once; the channel's next one goes
5xx, no answer, a timeout             sent again later, 30 s after the first try, doubling
                                      up to an hour, until the post is a day old: it fails
====================================  =====================================================

A channel's posts go in order: its next post waits while the one before it waits.

Across processes, the lease sends each post from one process only. A process killed in
the middle of a send leaves its post leased; once the lease lapses (``LEASE_S``) another
sender sends it again. That is the one way a post may reach a channel twice: the service
may have taken it before the process died (or before an answer that never came back, a
timeout). Neither Discord's nor Slack's incoming webhooks take an idempotency key, nor
can a webhook list what it posted, so a post whose answer was lost is sent again rather
than perhaps lost: at least once, and twice only for the post that was in flight.

A webhook's URL is a secret: nothing here logs one (the circle, the post's key and the
answer's status only), and urllib3's own debug lines have webhook paths hidden.

Settings (``create_app``): ``CHANNEL_TICK_S`` (2; 0 in tests unless they set it: no
thread, tests call ``run_once``), how often posts are looked for; ``CHANNEL_VIA`` (tests
only: a loopback fake's base URL the posts go to instead).

Imports: stdlib, ``spades.circles.webhooks`` and ``spades.storage``.
"""

from __future__ import annotations

import json
import logging
import os
import re
import socket
import threading
import time
import uuid
from collections.abc import Callable

import requests

from ..storage import Store
from ..storage.channels import PostRow
from .webhooks import BadWebhook, Outcome, post_once

log = logging.getLogger(__name__)

TICK_S = 2.0  # how often posts are looked for
LEASE_S = 60.0  # a post taken by a sender is another's again this long after, if not done
SEND_BUDGET_S = 45.0  # no new send starts this long after the posts were taken (a send takes at most ~8 s)
BATCH = 20  # posts taken at once (one per channel)
FIRST_BACKOFF_S = 30.0
MAX_BACKOFF_S = 3600.0
GIVE_UP_S = 24 * 3600.0  # a post failing for now is given up this long after it was queued


def backoff(tries: int) -> float:
    """Seconds before a post that failed ``tries`` times (counting this one) is sent again.

    >>> [backoff(n) for n in (1, 2, 3, 8, 20)]
    [30.0, 60.0, 120.0, 3600.0, 3600.0]
    """
    return min(FIRST_BACKOFF_S * 2 ** min(max(tries - 1, 0), 20), MAX_BACKOFF_S)


def gone_sentence(now: float, status: int | None) -> str:
    """What a circle's owner reads when its channel was turned off.

    >>> print(gone_sentence(1_800_000_000, 404))  # doctest: +NORMALIZE_WHITESPACE
    The channel's webhook was deleted or refused the site's posts on 15 January 2027 (it answered 404):
    paste a new one to post there again.
    """
    day = time.strftime("%d %B %Y", time.gmtime(now)).lstrip("0")
    said = f" (it answered {status})" if status else ""
    return (f"The channel's webhook was deleted or refused the site's posts on {day}{said}: paste a new one to "
            "post there again.")


def default_owner() -> str:
    """This sender's name in the leases: the machine, the process and a random part."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


class ChannelSender:
    """Sends circles' channel posts from ``store``: ``run_once`` is one round, ``start``
    runs rounds every ``every`` seconds in a thread until ``stop``."""

    def __init__(self, store: Store, via: str | None = None, clock: Callable[[], float] = time.time,
                 owner: str | None = None, lease_s: float = LEASE_S, batch: int = BATCH,
                 timeout: tuple[float, float] | None = None) -> None:
        self.store = store
        self.via = via
        self.clock = clock
        self.owner = owner or default_owner()
        self.lease_s = lease_s
        self.batch = batch
        self.timeout = timeout
        self.session = requests.Session()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # -- one round -------------------------------------------------------------------------------
    def run_once(self, now: float | None = None) -> int:
        """Send the posts due at ``now`` (default: the clock), one per channel; how many were sent."""
        now = self.clock() if now is None else now
        posts = self.store.claim_posts(self.owner, now, self.lease_s, self.batch)
        started, sent = time.monotonic(), 0
        for n, post in enumerate(posts):
            if time.monotonic() - started > min(SEND_BUDGET_S, self.lease_s * 0.75):
                for rest in posts[n:]:  # the lease would lapse mid-send: give them back, untried
                    self.store.post_again(rest.key, rest.due, rest.error, count=False)
                break
            try:
                sent += self._send(post, now)
            except Exception as e:  # the database away, say: the lease lapses and it is taken again
                log.error("channel post %s for circle %s: %s; it will be tried again", post.key, post.circle,
                          type(e).__name__)
        return sent

    def _send(self, post: PostRow, now: float) -> int:
        channel = self.store.channel(post.circle)
        if channel is None or channel.state != "on":
            return 0  # turned off or removed since the posts were taken: its posts went with it
        try:
            body = json.loads(post.body)
        except ValueError:
            self.store.post_failed(post.key, "The message could not be read.")
            log.error("channel post %s for circle %s: its body is not JSON; failed", post.key, post.circle)
            return 0
        kwargs = {} if self.timeout is None else {"timeout": self.timeout}
        try:
            outcome = post_once(channel.url, body, via=self.via, session=self.session, **kwargs)
        except BadWebhook:
            outcome = Outcome(False, "The channel's address is not a webhook the site posts to.", gone=True)
        return self._record(post, outcome, now)

    def _record(self, post: PostRow, outcome: Outcome, now: float) -> int:
        key, circle, status = post.key, post.circle, outcome.status
        if outcome.ok:
            self.store.post_sent(key, now)
            log.info("channel post %s for circle %s sent (%s)", key, circle, status)
            return 1
        if outcome.wait is not None:
            until = now + outcome.wait
            self.store.pace_channel(circle, until)
            self.store.post_again(key, until, outcome.words, count=False)
            log.info("channel of circle %s asked to wait %.1f s (%s); post %s then", circle, outcome.wait, status, key)
        elif outcome.gone:
            sentence = gone_sentence(now, status)
            self.store.disable_channel(circle, sentence)
            self.store.post_failed(key, sentence)
            log.warning("channel of circle %s turned off: its webhook answered %s", circle, status)
        elif status is not None and 400 <= status < 500:
            self.store.post_failed(key, outcome.words)
            log.error("channel post %s for circle %s refused (%s); failed", key, circle, status)
        elif now - post.created >= GIVE_UP_S:
            self.store.post_failed(key, f"{outcome.words} Given up after a day of tries.")
            log.warning("channel post %s for circle %s given up after %d tries (%s)", key, circle, post.tries + 1,
                        status or "no answer")
        else:
            wait = backoff(post.tries + 1)
            self.store.post_again(key, now + wait, outcome.words)
            log.info("channel post %s for circle %s failed for now (%s); again in %.0f s", key, circle,
                     status or "no answer", wait)
        return 0

    # -- the thread --------------------------------------------------------------------------------
    def start(self, every: float = TICK_S) -> None:
        """Run a round every ``every`` seconds in a thread of its own (0: never). A failed
        round is logged and the next one tries again."""
        if every <= 0 or self._thread is not None:
            return

        def run() -> None:
            while not self._stop.wait(every):
                try:
                    self.run_once()
                except Exception as e:
                    log.error("channel posts: a round failed (%s); trying again", type(e).__name__)

        self._thread = threading.Thread(target=run, name="channel-posts", daemon=True)
        self._thread.start()

    def stop(self, wait: float = 2.0) -> None:
        """Stop the thread (a send under way ends on its own: its lease covers it)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(wait)
        self.session.close()


# -- urllib3 writes each request's path in its debug lines: a webhook's token is in it --------------
_WEBHOOK_PATH = re.compile(r"(/api(?:/v\d+)?/webhooks/\d+/|/services/[A-Z0-9]+/[A-Z0-9]+/)[A-Za-z0-9_-]+")


class _HideWebhooks(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        try:
            text = record.getMessage()
        except Exception:
            return True
        hidden = _WEBHOOK_PATH.sub(r"\1…", text)
        if hidden != text:
            record.msg, record.args = hidden, ()
        return True


for _name in ("urllib3.connectionpool", "requests"):
    if not any(isinstance(f, _HideWebhooks) for f in logging.getLogger(_name).filters):
        logging.getLogger(_name).addFilter(_HideWebhooks())


__all__ = ["ChannelSender", "backoff", "gone_sentence", "LEASE_S", "GIVE_UP_S", "TICK_S"]
