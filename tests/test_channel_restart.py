"""A sending process killed with SIGKILL in the middle of a channel post: after a restart
every post reaches the channel, each once, but for the one that was in flight, which the
channel got twice (the webhooks take no idempotency key: ``spades.circles.delivery``).

The sender runs in a real subprocess on a SQLite file; the Discord fake on loopback keeps
each post as it comes and is slow to answer, so the process dies before it hears back.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

from helpers.restart import ROOT
from helpers.webhook_fakes import DiscordFake

from spades.circles.delivery import LEASE_S, ChannelSender
from spades.circles.webhooks import tail_of
from spades.storage import Store

SENDER = """
import sys, time
from spades.circles.delivery import ChannelSender
from spades.storage import Store
sender = ChannelSender(Store(sys.argv[1]), via=sys.argv[2], owner="the-killed-one")
while True:
    sender.run_once()
    time.sleep(0.02)
"""


def test_sigkill_mid_post_and_the_restarted_sender_sends_the_rest(tmp_path):
    db = str(tmp_path / "channels.db")
    store = Store(db)
    with DiscordFake(delay=20.0) as fake:  # keeps a post at once, answers 20 s later
        url = fake.url()
        store.put_channel("ann", "discord", url, tail_of(url), ("results",), "ann@example.com")
        bodies = [{"content": f"post {k}"} for k in range(3)]
        for k, body in enumerate(bodies):
            store.queue_post(f"ann:{k}", "ann", "results", json.dumps(body), now=time.time() - 10 + k)
        with open(tmp_path / "sender.log", "wb") as log:
            proc = subprocess.Popen([sys.executable, "-c", SENDER, db, fake.base], cwd=ROOT,
                                    stdout=subprocess.DEVNULL, stderr=log)
        try:
            deadline = time.monotonic() + 20
            while not fake.received and time.monotonic() < deadline:
                assert proc.poll() is None, (tmp_path / "sender.log").read_text()
                time.sleep(0.01)
            assert fake.posts == bodies[:1]  # the first post reached the channel, unanswered
        finally:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(10)
        killed_at = time.time()
        first = store.channel_posts("ann")[0]
        assert first.state == "queued" and first.tries == 0  # still leased to the dead process

        fake.delay = 0.0
        restarted = ChannelSender(store, via=fake.base, owner="restarted")
        assert restarted.run_once(killed_at) == 0  # the lease holds: the channel's first post is taken
        later = killed_at + LEASE_S + 1
        sent = [restarted.run_once(later) for _ in range(4)]
        assert sent == [1, 1, 1, 0]
        assert fake.posts == [bodies[0], *bodies]  # the one in flight twice, the others once
        assert fake.violations == []
        assert [(p.state, p.tries) for p in store.channel_posts("ann")] == [("sent", 1)] * 3
    store.close()
