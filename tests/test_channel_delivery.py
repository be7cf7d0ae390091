"""Circles' channel posts sent to Discord's and Slack's webhooks (loopback fakes that check
each request's shape): sent once, in order, paced when asked, tried again later, given up,
the channel turned off when its webhook is gone; one sender per post across processes;
no webhook URL in the log."""

from __future__ import annotations

import json
import logging
import threading

import pytest
from conftest import FakeClock

from spades.circles.delivery import GIVE_UP_S, ChannelSender
from spades.circles.webhooks import tail_of
from spades.storage import Store


@pytest.fixture
def clock():
    return FakeClock()


@pytest.fixture
def store(tmp_path):
    s = Store(str(tmp_path / "spades.db"))
    yield s
    s.close()


def channel(store, circle: str, fake, n: int = 0, now: float = 0.0) -> str:
    """``circle``'s channel set to the fake's webhook number ``n``: its URL."""
    url = fake.url(n)
    store.put_channel(circle, fake.service, url, tail_of(url), ("results",), "owner@example.com", now=now)
    return url


def queue(store, circle: str, texts, now: float, service: str = "discord") -> list[dict]:
    """Posts for ``circle``, in this order, all due at ``now``: their bodies."""
    bodies = []
    for k, text in enumerate(texts):
        body = {"content": text} if service == "discord" else {"text": text}
        assert store.queue_post(f"{circle}:{text}", circle, "results", json.dumps(body), now=now - 1 + k * 0.001)
        bodies.append(body)
    return bodies


def states(store, circle: str) -> list[str]:
    return [p.state for p in store.channel_posts(circle)]


@pytest.mark.parametrize("service", ["discord", "slack"])
def test_a_post_is_sent_once_in_its_service_shape(store, discord, slack, clock, service):
    fake = discord if service == "discord" else slack
    channel(store, "ann", fake, now=clock.now)
    bodies = queue(store, "ann", ["Ann's circle: a match ended", "and another"], clock.now, service)
    sender = ChannelSender(store, via=fake.base, clock=clock)
    assert [sender.run_once() for _ in range(3)] == [1, 1, 0]
    clock.now += 3600
    assert sender.run_once() == 0
    assert fake.posts == bodies and fake.violations == []
    assert states(store, "ann") == ["sent", "sent"]
    assert [p.tries for p in store.channel_posts("ann")] == [1, 1]


def test_a_wait_the_service_asks_for_loses_no_post_and_keeps_the_order(store, discord, clock):
    discord.clock = clock
    channel(store, "ann", discord, now=clock.now)
    bodies = queue(store, "ann", ["one", "two", "three"], clock.now)
    start = clock.now
    discord.then(429, until=start + 60)
    sender = ChannelSender(store, via=discord.base, clock=clock)
    assert sender.run_once() == 0
    assert store.channel("ann").paced_until == pytest.approx(start + 60)
    for later in (1, 30, 59.9):
        clock.now = start + later
        assert sender.run_once() == 0  # nothing is sent, nor asked, before the wait is over
    assert [r.status for r in discord.received] == [429]
    clock.now = start + 60
    while sender.run_once():
        pass
    assert discord.posts == bodies and discord.violations == []
    assert [r.status for r in discord.received] == [429, 200, 200, 200]
    assert all(r.at >= start + 60 for r in discord.received[1:])
    rows = store.channel_posts("ann")
    assert [p.state for p in rows] == ["sent"] * 3 and rows[0].tries == 1  # the wait was not a try


def test_a_slack_wait_reads_its_retry_after(store, slack, clock):
    channel(store, "bo", slack, now=clock.now)
    queue(store, "bo", ["one"], clock.now, "slack")
    slack.then(429, times=1, retry_after=7)
    sender = ChannelSender(store, via=slack.base, clock=clock)
    assert sender.run_once() == 0
    clock.now += 6.9
    assert sender.run_once() == 0
    clock.now += 0.1
    assert sender.run_once() == 1
    assert slack.violations == [] and len(slack.posts) == 1


def test_failing_twice_then_sent_backs_off(store, discord, clock):
    channel(store, "ann", discord, now=clock.now)
    bodies = queue(store, "ann", ["one", "two"], clock.now)
    discord.then(500, times=2)
    sender = ChannelSender(store, via=discord.base, clock=clock)
    start = clock.now
    seen = []
    for at in (0, 29, 30, 89, 90, 90):
        clock.now = start + at
        seen.append(sender.run_once())
    assert seen == [0, 0, 0, 0, 1, 1]  # 30 s after the first try, 60 s after the second
    assert [r.status for r in discord.received] == [500, 500, 200, 200]
    assert discord.posts == bodies and discord.violations == []
    assert [p.tries for p in store.channel_posts("ann")] == [3, 1]


def test_a_post_failing_for_a_day_is_given_up_and_the_next_goes(store, discord, clock):
    url = channel(store, "ann", discord, now=clock.now)
    queue(store, "ann", ["one", "two"], clock.now)
    discord.then(503, webhook=url)
    sender = ChannelSender(store, via=discord.base, clock=clock)
    start = clock.now
    while states(store, "ann")[0] == "queued":
        clock.now = max(clock.now, store.channel_posts("ann")[0].due)
        sender.run_once()
    first = store.channel_posts("ann")[0]
    assert first.state == "failed" and "Given up" in first.error
    assert clock.now - start >= GIVE_UP_S and 25 < len(discord.received) < 40
    assert store.channel("ann").state == "on"
    assert store.channel_posts("ann")[1].state == "queued"  # behind it, still to go


def test_a_refused_post_fails_at_once_and_the_channel_goes_on(store, discord, clock):
    channel(store, "ann", discord, now=clock.now)
    store.queue_post("ann:bad", "ann", "results", json.dumps({"content": "x" * 2001}), now=clock.now)
    bodies = queue(store, "ann", ["two"], clock.now + 1)
    sender = ChannelSender(store, via=discord.base, clock=clock)
    assert sender.run_once() == 0
    assert sender.run_once() == 1
    assert states(store, "ann") == ["failed", "sent"] and discord.posts == bodies
    assert discord.violations == [f"discord {discord.received[0].path}: content has 2001 characters (at most 2000)"]


@pytest.mark.parametrize("status", [404, 401, 410])
def test_a_gone_webhook_turns_the_channel_off(store, discord, clock, status):
    url = channel(store, "ann", discord, now=clock.now)
    channel(store, "bo", discord, n=1, now=clock.now)
    queue(store, "ann", ["one", "two", "three"], clock.now)
    other = queue(store, "bo", ["for bo"], clock.now)
    discord.then(status, webhook=url)
    sender = ChannelSender(store, via=discord.base, clock=clock)
    assert sender.run_once() == 1  # Bo's channel is not Ann's
    ann = store.channel("ann")
    assert ann.state == "off"
    assert ann.reason == ("The channel's webhook was deleted or refused the site's posts on 15 January 2027 "
                          f"(it answered {status}): paste a new one to post there again.")
    assert states(store, "ann") == ["failed"] * 3
    assert {p.error for p in store.channel_posts("ann")} == {ann.reason}
    store.queue_post("ann:later", "ann", "results", json.dumps({"content": "later"}), now=clock.now)
    clock.now += 3600
    assert sender.run_once() == 0
    assert len(discord.received) == 2 and discord.posts == other and discord.violations == []


def test_two_senders_on_each_engine_send_each_post_once(database, discord, clock):
    """Two Store objects on one SQLite file (or one PostgreSQL database), as two processes."""
    stores = [Store(database), Store(database)]
    try:
        sent_each_post_once(stores, discord, clock)
    finally:
        for s in stores:
            s.close()


def sent_each_post_once(stores, discord, clock) -> None:
    """Two processes' senders, each on its own Store, racing over 6 channels' 4 posts."""
    urls = {f"c{n}": channel(stores[0], f"c{n}", discord, n=n, now=clock.now) for n in range(6)}
    bodies = {c: queue(stores[0], c, [f"{c} post {k}" for k in range(4)], clock.now) for c in urls}
    senders = [ChannelSender(s, via=discord.base, clock=clock, owner=f"process-{n}") for n, s in enumerate(stores)]
    go = threading.Barrier(2)
    errors: list[BaseException] = []

    def run(sender) -> None:
        try:
            go.wait()
            for _ in range(60):
                if sender.run_once() == 0 and "queued" not in {p.state for c in urls for p in
                                                               sender.store.channel_posts(c)}:
                    break
        except BaseException as e:  # noqa: BLE001 - shown by the assert below
            errors.append(e)

    threads = [threading.Thread(target=run, args=(s,)) for s in senders]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert errors == []
    assert discord.violations == [] and len(discord.posts) == 24
    for c, url in urls.items():
        assert discord.posts_to(url) == bodies[c]  # each once, in order
        assert states(stores[1], c) == ["sent"] * 4


def test_the_log_never_holds_a_webhook_url(store, discord, slack, clock, caplog):
    caplog.set_level(logging.DEBUG)
    urls = [channel(store, "ann", discord, now=clock.now), channel(store, "cy", discord, n=2, now=clock.now)]
    queue(store, "ann", ["one", "two", "three"], clock.now)
    queue(store, "cy", ["one"], clock.now)
    discord.then(429, times=1, webhook=urls[0]).then(500, times=1, webhook=urls[0]).then(404, webhook=urls[1])
    sender = ChannelSender(store, via=discord.base, clock=clock)
    for _ in range(4):
        sender.run_once()
        clock.now += 60
    with slack:
        urls.append(channel(store, "bo", slack, now=clock.now))
        queue(store, "bo", ["one"], clock.now, "slack")
        slack.then(429, times=1)
        ChannelSender(store, via=slack.base, clock=clock).run_once(clock.now - 3600)  # ann's not due yet
        ChannelSender(store, via=slack.base, clock=clock).run_once(clock.now + 1)
    closed = ChannelSender(store, via="http://127.0.0.1:9", clock=clock, timeout=(0.2, 0.2))  # nobody there
    store.queue_post("ann:four", "ann", "results", json.dumps({"content": "four"}), now=clock.now)
    for _ in range(3):
        closed.run_once()
        clock.now += 3600
    assert "ann" in caplog.text and "429" in caplog.text and "404" in caplog.text and "no answer" in caplog.text
    assert "/api/webhooks/" in caplog.text  # urllib3's own lines are there, their tokens hidden
    for url in urls:
        secret = url.rsplit("/", 1)[1]
        assert url not in caplog.text and secret not in caplog.text


def test_the_app_sends_from_a_thread_of_its_own(tmp_path, discord):
    from spades.web import close_app, create_app

    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "app.db"), "SECRET_KEY": "t",
                      "RESUME_TABLES": False, "TOURNEY_TICK_S": 0, "CHANNEL_TICK_S": 0.05, "CHANNEL_VIA": discord.base})
    try:
        store = app.extensions["spades.tables"].store
        channel(store, "ann", discord)
        bodies = queue(store, "ann", ["one", "two"], 0.0)
        for _ in range(100):
            if states(store, "ann") == ["sent", "sent"]:
                break
            threading.Event().wait(0.02)
        assert discord.posts == bodies and discord.violations == []
    finally:
        close_app(app)
    assert not app.extensions["spades.channel_sender"]._thread.is_alive()
