"""Two sites sharing one database and one Redis, as two workers do: what a person does
through one is what the other sees. A move posted to either process is taken by the
table's owner; signing out on every device on one signs the browser out on the other;
the rate limits count requests to both together."""

from __future__ import annotations

import concurrent.futures as cf
import itertools

import pytest
from conftest import INSTANT, csrf_of, start_practice
from helpers.auth import HX, ask, sign_in

from spades.web import close_app, create_app


@pytest.fixture
def pair(tmp_path, redis_url, smtp):
    pool = cf.ThreadPoolExecutor(2)
    seeds = itertools.count(1)
    apps = [create_app({"SEED_SOURCE": lambda: f"pair-{next(seeds)}", "TESTING": True,
                        "DATABASE": str(tmp_path / "shared.db"), "SECRET_KEY": "pair-secret",
                        "PLAY_DELAYS": INSTANT, "BOT_POOL": pool, "TOURNEY_TICK_S": 0, "REDIS_URL": redis_url,
                        "CLUSTER_LEASE_S": 1.0, **smtp.config()}) for _ in range(2)]
    yield apps
    for app in apps:
        close_app(app)  # the turn notices' thread too: it ticks every minute here
    pool.shutdown(wait=False, cancel_futures=True)


def same_browser(one, other_app):
    """A client of ``other_app`` holding ``one``'s cookie: the same browser on the other process."""
    twin = other_app.test_client()
    twin.set_cookie("session", one.get_cookie("session").value)
    return twin


def test_a_move_posted_to_either_process_is_played_once_at_the_table(pair):
    a, b = pair
    ann = a.test_client()
    code = start_practice(ann)
    assert a.extensions["spades.tables"].wait_idle()
    view = ann.get(f"/g/{code}/view.json").get_json()
    on_b = same_browser(ann, b)
    assert on_b.get(f"/g/{code}/view.json").get_json()["hand"] == view["hand"]  # the same seat, read on b
    answer = on_b.post(f"/g/{code}/act", data={"csrf": csrf_of(on_b), "action": view["legal"][0],
                                               "version": view["version"]}, headers=HX)
    assert answer.status_code == 200
    assert not b.extensions["spades.tables"].in_memory(code)  # b forwarded it to the owner
    again = ann.get(f"/g/{code}/view.json").get_json()
    assert again["version"] > view["version"]
    stale = on_b.post(f"/g/{code}/act", data={"csrf": csrf_of(on_b), "action": view["legal"][0],
                                              "version": view["version"]}, headers=HX)
    assert stale.status_code == 409  # the same click twice is refused, not played twice


def test_signing_out_everywhere_on_one_process_signs_out_the_other(pair, smtp):
    a, b = pair
    first, second = a.test_client(), b.test_client()
    sign_in(first, smtp, "ann@example.com")
    sign_in(second, smtp, "ann@example.com")
    twin = same_browser(first, b)
    assert "Signed in as" in twin.get("/me").get_data(as_text=True)
    assert second.post("/signout/everywhere", data={"csrf": csrf_of(second)}).status_code == 303
    assert "Signed in as" not in first.get("/me").get_data(as_text=True)
    assert "Signed in as" not in twin.get("/me").get_data(as_text=True)


def test_rate_limits_count_the_requests_to_both_processes(pair):
    a, b = pair
    clients = [a.test_client(), b.test_client()]
    answers = [ask(clients[n % 2], f"person{n}@example.com").status_code for n in range(16)]
    assert answers[:15] == [303] * 15  # fifteen asks in ten minutes from one address, whichever process
    assert answers[15] == 429
