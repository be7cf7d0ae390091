"""Bid hints are shared fairly, over HTTP. Hints think in their own process, as in
production (no thread pool passed in).

- 16 people ask again and again at their tables while 32 others each ask once at theirs,
  all at once: every one of the 32 gets the hint, in time.
- A person who asks again (another tab) while their hint is on its way is told "busy, try
  again" (503 with Retry-After), and "not your turn" (409) is said only when it is not."""

from __future__ import annotations

import collections
import re
import threading
import time

import pytest
from conftest import csrf_of, start_practice

HX = {"HX-Request": "true"}
BUSY = "The hint helper is busy. Try again in a moment."
HINT = re.compile(r"The Hard bot would bid (nil|\d+)")


@pytest.fixture
def app_config() -> dict:
    return {"BOT_POOL": None, "BOT_WORKERS": 1}  # bots and hints in processes of their own


def person(app, n: int):
    """A browser at client address 10.9.0.n with a practice table where it is to bid."""
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = f"10.9.0.{n + 1}"
    code = start_practice(client, level="easy")
    return client, code, csrf_of(client)


def ask(client, code: str, csrf: str):
    return client.post(f"/g/{code}/hint", data={"csrf": csrf}, headers=HX)


def at_their_turn_to_bid(service, people) -> None:
    assert service.wait_idle(60)
    for client, code, _ in people:
        view = client.get(f"/g/{code}/view.json").get_json()
        assert view["phase"] == "bidding" and view["to_act"] == view["seat"]


def test_people_looping_hint_requests_do_not_keep_others_from_theirs(app, service):
    people = [person(app, n) for n in range(48)]
    at_their_turn_to_bid(service, people)
    loopers, others = people[:16], people[16:]
    stop = threading.Event()
    looped: collections.Counter[int] = collections.Counter()
    counting = threading.Lock()

    def loop(client, code, csrf) -> None:
        while not stop.is_set():
            status = ask(client, code, csrf).status_code
            with counting:
                looped[status] += 1

    answers: list[tuple[int, float, str]] = []

    def once(client, code, csrf) -> None:
        started = time.monotonic()
        r = ask(client, code, csrf)
        answers.append((r.status_code, time.monotonic() - started, r.get_data(as_text=True)))

    flood = [threading.Thread(target=loop, args=p) for p in loopers]
    for t in flood:
        t.start()
    time.sleep(2.0)  # the flood is on: every looper has a hint waiting or being worked out
    asking = [threading.Thread(target=once, args=p) for p in others]
    for t in asking:
        t.start()
    for t in asking:
        t.join(30)
    stop.set()
    for t in flood:
        t.join(30)

    statuses = collections.Counter(status for status, _, _ in answers)
    assert statuses == {200: 32}, (statuses, sorted(round(s, 2) for _, s, _ in answers))
    assert all(HINT.search(body) for _, _, body in answers)
    assert max(seconds for _, seconds, _ in answers) < 5
    assert looped[200] >= 16 and set(looped) <= {200, 503}, looped  # served in turn; never "not your turn"


def test_asking_again_while_the_hint_is_on_its_way_is_busy_and_409_means_not_your_turn(app, service):
    client, code, csrf = person(app, 0)
    at_their_turn_to_bid(service, [(client, code, csrf)])
    tab = app.test_client()  # the same browser's other tab
    tab.environ_base["REMOTE_ADDR"] = client.environ_base["REMOTE_ADDR"]
    tab.set_cookie("session", client.get_cookie("session").value)
    first: list = []
    asking = threading.Thread(target=lambda: first.append(ask(client, code, csrf)))
    asking.start()
    time.sleep(0.1)  # the first hint thinks for Hard's full half second (nobody else waits)
    again = ask(tab, code, csrf)
    asking.join(10)
    assert first[0].status_code == 200 and HINT.search(first[0].get_data(as_text=True))
    assert again.status_code == 503 and BUSY in again.get_data(as_text=True)
    assert 1 <= int(again.headers["Retry-After"]) <= 5
    view = client.get(f"/g/{code}/view.json").get_json()
    assert client.post(f"/g/{code}/act", data={"csrf": csrf, "action": "3", "version": view["version"]},
                       headers=HX).status_code == 200
    late = ask(client, code, csrf)  # the bid is made: no hint now, and it says why
    assert late.status_code == 409 and "only given when it is your turn to bid" in late.get_data(as_text=True)
