"""Rules that limit people hold when the requests come at once, to two processes sharing
one database and one Redis (as two workers, or two machines, do), on SQLite and on
PostgreSQL: five circles a day, one open week of boards per circle, one table of a week
per person, and the tables one person may start in an hour."""

from __future__ import annotations

import concurrent.futures as cf
import itertools
import threading
import time

import pytest
from conftest import INSTANT, csrf_of

from spades.circles.service import PER_DAY
from spades.rules_config import TURN_BASED, Rules
from spades.tables import MAX_TURN_TABLES
from spades.web import close_app, create_app
from spades.web.rooms.lobby import NEW_DEFAULTS
from spades.web.site.allowance import code_budgets, mail_figures, take

BURST = 8


@pytest.fixture
def pair(database, redis_url):
    pool = cf.ThreadPoolExecutor(2)
    seeds = itertools.count(1)
    apps = [create_app({"SEED_SOURCE": lambda: f"burst-{next(seeds)}", "TESTING": True, "DATABASE": database,
                        "SECRET_KEY": "burst-secret", "PLAY_DELAYS": INSTANT, "BOT_POOL": pool, "TOURNEY_TICK_S": 0,
                        "NOTICE_TICK_S": 0, "REDIS_URL": redis_url, "CLUSTER_LEASE_S": 1.0})
            for _ in range(2)]
    yield apps
    for app in apps:
        close_app(app)
    pool.shutdown(wait=False, cancel_futures=True)


def browsers(apps, email: str, name: str) -> list:
    """One signed-in person's browser on each process (the same session cookie)."""
    accounts = apps[0].extensions["spades.accounts"]
    user, _ = accounts.store.sign_in(email, f"u-{name.lower()}", None, name, "🦊", time.time())
    first = apps[0].test_client()
    with first.session_transaction() as s:
        s["pid"] = s["uid"] = user.id
        s["gen"] = user.session_gen
        s["sid"] = accounts.new_session(user.id)
    clients = [first]
    for app in apps[1:]:
        twin = app.test_client()
        twin.set_cookie("session", first.get_cookie("session").value)
        clients.append(twin)
    for c in clients:
        c.csrf = csrf_of(c)
        c.uid = user.id
    return clients


def burst(clients, path: str, fields: dict, n: int = BURST) -> list[int]:
    """``n`` posts of the same form at the same moment, spread over the processes: their
    statuses. Each post has a client of its own (holding the same cookie)."""
    gate = threading.Barrier(n)

    def one(k: int) -> int:
        base = clients[k % len(clients)]
        mine = base.application.test_client()
        mine.set_cookie("session", base.get_cookie("session").value)
        gate.wait()
        return mine.post(path, data={"csrf": base.csrf, **fields}).status_code

    with cf.ThreadPoolExecutor(n) as ex:
        return list(ex.map(one, range(n)))


def test_five_circles_a_day_hold_against_a_burst_to_two_processes(pair):
    ann = browsers(pair, "ann@example.com", "Ann")
    statuses = burst(ann, "/c", {"name": "Burst"})
    assert statuses.count(303) == PER_DAY, statuses
    assert len(pair[0].extensions["spades.circles"].circles_of(ann[0].uid)) == PER_DAY


def test_one_week_of_boards_and_one_table_of_it_per_person_against_bursts(pair):
    ann = browsers(pair, "ann@example.com", "Ann")
    r = ann[0].post("/c", data={"csrf": ann[0].csrf, "name": "Weekly"})
    slug = r.headers["Location"].rsplit("/", 1)[1]
    statuses = burst(ann, f"/c/{slug}/boards", {"boards": "4", "preset": "standard", "start": "now", "days": "7"})
    store = pair[0].extensions["spades.tables"].store
    weeks = store.board_weeks(slug)
    assert statuses.count(303) == 1 and len(weeks) == 1, statuses
    assert set(statuses) <= {303, 409}
    statuses = burst(ann, f"/c/{slug}/boards/{weeks[0].id}/table", {"tempo": "normal"})
    assert statuses.count(303) == 1 and set(statuses) <= {303, 409}, statuses
    assert len(store.board_tables(weeks[0].id)) == 1
    assert list(store.board_week_players(weeks[0].id)) == [ann[0].uid]


@pytest.mark.parametrize("database", ["sqlite"], indirect=True)
def test_the_tables_one_person_may_start_in_an_hour_hold_against_a_burst(pair):
    for app in pair:
        app.config["FRIENDS_TABLES_PER_PERSON"] = "3 per hour"
    ann = browsers(pair, "ann@example.com", "Ann")
    statuses = burst(ann, "/new", {**NEW_DEFAULTS, "name": "Ann", "emoji": "🦊", "humans": "2"})
    assert statuses.count(303) == 3 and set(statuses) <= {303, 429}, statuses


@pytest.mark.parametrize("database", ["sqlite"], indirect=True)
def test_a_mail_share_holds_against_asks_at_once_on_two_processes_and_a_refusal_spends_none(pair):
    """Sign-in codes asked at the same moment through both processes, from one network:
    the network's part (a 25th of the cap) is never passed, and the asks it refuses spend
    nothing of the codes' share behind it."""
    for app in pair:
        app.config["MAIL_HOURLY_CAP"] = 100  # the network's part of the codes: 4
    gate = threading.Barrier(24)

    def ask(k: int) -> bool:
        app = pair[k % 2]
        with app.test_request_context("/signin", environ_base={"REMOTE_ADDR": "198.51.100.7"}):
            own, _ = code_budgets(f"p{k}@example.com")
            gate.wait()
            return take(own) is None

    with cf.ThreadPoolExecutor(24) as ex:
        taken = list(ex.map(ask, range(24)))
    assert taken.count(True) == 4, taken
    with pair[0].test_request_context("/"):
        codes = next(f for f in mail_figures() if f.what.startswith("Sign-in codes to new browsers"))
    assert codes.sent == 4  # the 20 refused asks took nothing of the share


@pytest.mark.parametrize("database", ["sqlite"], indirect=True)
def test_the_turn_based_tables_one_person_may_hold_hold_against_a_burst(pair):
    for app in pair:
        app.config["FRIENDS_TABLES_PER_PERSON"] = app.config["FRIENDS_TABLES_PER_ADDRESS"] = "100 per hour"
    ann = browsers(pair, "ann@example.com", "Ann")
    service = pair[0].extensions["spades.tables"]
    slow = Rules(tempo="days-1")
    for _ in range(MAX_TURN_TABLES - 2):
        service.create_room(ann[0].uid, "Ann", "🦊", slow, "normal", 2)
    statuses = burst(ann, "/new", {**NEW_DEFAULTS, "name": "Ann", "emoji": "🦊", "humans": "2", "tempo": "days-1"})
    assert statuses.count(303) == 2 and set(statuses) <= {303, 409}, statuses
    assert service.store.turn_tables(ann[0].uid, TURN_BASED) == MAX_TURN_TABLES
    bo = browsers(pair, "bo@example.com", "Bo")
    code = service.create_room(bo[0].uid, "Bo", "🐼", slow, "normal", 2)
    r = ann[1].post(f"/j/{code}", data={"csrf": ann[1].csrf, "name": "Ann", "emoji": "🦊"})
    assert r.status_code == 409 and "turn-based tables already" in r.get_data(as_text=True)
