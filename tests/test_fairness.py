"""Provably fair deals (docs/fairness.md): every hand reproduced from its revealed seed and
contributions by an implementation written here from the document alone; the commitment
shown before the first bid (and in the room before the start) is the record's; the seed
of a hand being played is in no page, fragment, view, record or socket frame; ``verify``
refuses a swapped card and a changed seed; a table rebuilt from its moves deals the same
cards; matches from before keep their seeded deals; the ``/fairness`` figures.

The bots answer only when a test settles the table (``ManualPool``), so a test sees each
hand as dealt, before anyone has bid."""

from __future__ import annotations

import hashlib
import hmac
import itertools
import json
import re
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from conftest import OPEN_PANEL, csrf_of, open_ws
from pools import ManualPool
from sqlite_utils import Database
from sqlite_utils.migrations import Migrations

from spades.fairness import FairDeals, chi2_sf, shape_probabilities, shuffled, trump_probabilities
from spades.rules import Match
from spades.rules_config import Rules
from spades.storage import MIGRATION_SET, MIGRATIONS, Conflict, PutHand, SeatRow, Store
from spades.storage.migrations import SqliteSchema
from spades.tables import Continue, Player, Rematch, TableService, load_state
from spades.web.matches.fairness import figures_of

ROOT = Path(__file__).resolve().parent.parent
INSTANT = {"slow": 0.0, "normal": 0.0, "fast": 0.0}
HEX64 = re.compile(r"[0-9a-f]{64}")


# -- spades-deal/1, written again from docs/fairness.md -----------------------------------
def doc_commitment(seed_hex: str) -> str:
    return hashlib.sha256(bytes.fromhex(seed_hex)).hexdigest()


def doc_seed(secret_hex: str, hand: int) -> str:
    """Secrets and seeds: HMAC-SHA256 keyed with the match secret over "spades-deal/1 hand n"."""
    return hmac.new(bytes.fromhex(secret_hex), b"spades-deal/1 hand " + str(hand).encode(), "sha256").hexdigest()


def doc_deal(seed_hex: str, contributions: list[str], hand: int, dealer: int) -> list[set[str]]:
    """The algorithm, exactly: the key, the draws, the shuffle, the deal."""
    message = bytearray(b"spades-deal/1")
    message += bytes.fromhex(seed_hex)
    message.append(len(contributions))
    for c in contributions:
        message.append(len(c))
        message += c.encode("ascii")
    message += hand.to_bytes(4, "big")
    key = hashlib.sha256(bytes(message)).digest()
    stream = b""
    used = 0

    def draw() -> int:
        nonlocal stream, used
        if used + 4 > len(stream):
            stream += hashlib.sha256(key + (len(stream) // 32).to_bytes(4, "big")).digest()
        used += 4
        return int.from_bytes(stream[used - 4:used], "big")

    deck = [rank + suit for suit in "SHDC" for rank in "23456789TJQKA"]
    for i in reversed(range(1, 52)):
        m = i + 1
        limit = 2**32 - (2**32 % m)
        r = draw()
        while r >= limit:
            r = draw()
        deck[i], deck[r % m] = deck[r % m], deck[i]
    seats: list[set[str]] = [set(), set(), set(), set()]
    for k, card in enumerate(deck):
        seats[(dealer + 1 + k) % 4].add(card)
    return seats


def dealt_sets(hand: dict) -> list[set[str]]:
    return [set(cards) for cards in hand["deal"]]


# -- a bot pool the test drives --------------------------------------------------------------
@pytest.fixture
def bots() -> ManualPool:
    return ManualPool()


THINK = 600.0  # seconds before a bot that has not answered gets a fallback move: never, here


@pytest.fixture
def app_config(bots) -> dict:
    return {"BOT_POOL": bots, "BOT_THINK_LIMIT": THINK, "FAIRNESS_CACHE_S": 0}  # figures afresh for each request


def settle(service: TableService, bots: ManualPool) -> None:
    """Let the bots answer until the table waits for a person."""
    service.wake()
    end = time.monotonic() + 20
    while time.monotonic() < end:
        bots.run_all()
        if service.idle():
            bots.run_all()
            if service.idle():
                return
        time.sleep(0.002)
    raise AssertionError("the table did not settle")


# -- over HTTP ------------------------------------------------------------------------------
class Person:
    """A browser at the site: its client and CSRF token."""

    def __init__(self, client) -> None:
        self.client = client
        self.csrf = csrf_of(client)
        self.location = ""  # where the last post sent the browser

    def text(self, path: str) -> str:
        """The page at ``path`` (each answer closed, as a server closes it)."""
        with self.client.get(path) as r:
            return r.get_data(as_text=True)

    def json(self, path: str) -> dict:
        return json.loads(self.text(path))

    def view(self, code: str) -> dict:
        return self.json(f"/g/{code}/view.json")

    def post(self, path: str, htmx: bool = False, **data) -> str:
        with self.client.post(path, data={"csrf": self.csrf, **data}, headers={"HX-Request": "1"} if htmx else {}) as r:
            assert r.status_code in (200, 303), r.get_data(as_text=True)
            self.location = r.headers.get("Location", "")
            return r.get_data(as_text=True)

    def move(self, code: str, v: dict, htmx: bool = False, **extra) -> str:
        """Bid 3 or play the first legal card."""
        if v["phase"] == "bidding":
            return self.post(f"/g/{code}/act", htmx, action="bid", bid="3", version=v["version"])
        return self.post(f"/g/{code}/act", htmx, action=v["legal"][0], version=v["version"], **extra)


def practice(me: Person, **fields) -> str:
    data = {"level": "easy", "speed": "fast", "end": "hands-5", "bag_penalty": "on", **fields}
    me.post("/practice", **data)
    return me.location.rsplit("/", 1)[1]


def verify(record: object, tmp_path: Path, stdin: bool = False) -> tuple[int, dict | None, str]:
    """``python -m spades verify`` on a record: exit status, its JSON line, standard error."""
    text = record if isinstance(record, str) else json.dumps(record)
    path = tmp_path / "record.json"
    path.write_text(text)
    args = [sys.executable, "-m", "spades", "verify", "-" if stdin else str(path)]
    done = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, input=text if stdin else None, timeout=60)
    lines = done.stdout.strip().splitlines()
    assert len(lines) <= 1
    return done.returncode, json.loads(lines[0]) if lines else None, done.stderr


# -- the tests --------------------------------------------------------------------------------
def test_the_documents_worked_example_is_what_the_site_deals():
    doc = (ROOT / "docs" / "fairness.md").read_text()
    seed = "00" * 32
    site = FairDeals("11" * 32, {1: ("c0ffee",)})
    assert doc_deal(site.server_seed(1), ["c0ffee"], 1, 3) == [set(map(str, c)) for c in site(1, 3)]
    assert site.commitment(1) == doc_commitment(doc_seed("11" * 32, 1))
    example = re.search(r"commitment = (\w+)\n\s+key\s+= (\w+)\n\s+seat 0\s+= ([\w ]+)\n", doc)
    assert example, "docs/fairness.md lost its worked example"
    assert example.group(1) == doc_commitment(seed)
    key = hashlib.sha256(b"spades-deal/1" + bytes(32) + b"\x01\x06c0ffee" + (1).to_bytes(4, "big")).hexdigest()
    assert example.group(2) == key
    listed = example.group(3).split()
    assert set(listed) == doc_deal(seed, ["c0ffee"], 1, 3)[0]
    assert listed == shuffled(seed, ["c0ffee"], 1)[0::4]  # in the order dealt
    snippet = re.search(r"```python\n(.*?)```", doc, re.S).group(1)  # the document's own Python
    scope: dict = {}
    exec(snippet, scope)
    for given, hand, dealer in ((["c0ffee"], 1, 3), ([], 7, 0), (["1", "ab" * 32, "0f"], 42, 2)):
        assert [set(c) for c in scope["deal"](seed, given, hand, dealer)] == doc_deal(seed, given, hand, dealer)
        assert scope["deal"](seed, given, hand, dealer)[(dealer + 1) % 4] == shuffled(seed, given, hand)[0::4]


def test_a_practice_match_is_dealt_from_its_commitments_seeds_and_contributions(client, service, bots, tmp_path):
    me = Person(client)
    code = practice(me, contribution="C0FFEE01")  # capitals are taken lowercased
    sent = {2: "ab" * 32, 3: "not hex!", 4: "a" * 65, 5: "5"}  # for each later hand, with Continue
    contributions = {1: ["c0ffee01"], 2: ["ab" * 32], 3: [], 4: [], 5: ["5"]}  # as the deal takes them
    # (level after five hands, the match goes on: a later hand gets no contribution)
    before_bids: dict[int, str] = {}
    between: dict[int, str] = {}
    for _ in range(400):
        v = me.view(code)
        if v["phase"] == "bidding" and v["hand_number"] not in before_bids:
            assert v["bids"] == [None] * 4  # nobody has bid: the hand as it was dealt
            before_bids[v["hand_number"]] = v["deal_commitment"]
        settle(service, bots)
        v = me.view(code)
        if v["finished"]:
            break
        if v["phase"] == "hand_over":
            upcoming = v["hand_number"] + 1
            between[upcoming] = v["next_deal_commitment"]
            me.post(f"/g/{code}/act", action="deal", version=v["version"], contribution=sent.get(upcoming, ""))
        elif v["to_act"] == 0:
            me.move(code, v)
    else:
        raise AssertionError("the match did not end")
    hands = len(before_bids)
    assert sorted(before_bids) == list(range(1, hands + 1)) and hands >= 5
    assert all(HEX64.fullmatch(c) for c in before_bids.values()) and len(set(before_bids.values())) == hands
    assert all(between[n] == before_bids[n] for n in between)  # shown beside Continue, then before the bids
    record = me.json(f"/g/{code}/record.json")
    assert len(record["hands"]) == hands
    for h, hand in enumerate(record["hands"]):
        n = h + 1
        fair = hand["fairness"]
        assert fair["algorithm"] == "spades-deal/1"
        assert doc_commitment(fair["server_seed"]) == fair["commitment"] == before_bids[n]
        assert fair["contributions"] == contributions.get(n, [])
        assert doc_deal(fair["server_seed"], fair["contributions"], n, hand["dealer"]) == dealt_sets(hand)
    assert verify(record, tmp_path) == (0, {"ok": True, "hands": hands}, "")


def test_the_room_shows_the_first_commitment_and_the_hosts_start_deals_it(app, service, bots):
    host, friend = Person(app.test_client()), Person(app.test_client())
    host.post("/new", name="Hana", emoji="🦊", humans="2", mode="bidding", end="target-500", bag_penalty="on",
              tempo="normal", level="easy", speed="fast")
    code = host.location.rsplit("/", 1)[1]
    room = host.text(f"/g/{code}")
    committed = re.search(r"The first hand's deal is sealed before anyone bids;.*?<code>([0-9a-f]{64})</code>",
                          room).group(1)
    assert re.search(r'action="/g/\w+/start">.*name="contribution"', room)  # Start sends a contribution
    friend.post(f"/j/{code}", name="Ari", emoji="🐼")
    assert f"<code>{committed}</code>" in friend.text(f"/g/{code}")
    assert f"<code>{committed}</code>" in host.text(f"/g/{code}")
    host.post(f"/g/{code}/start", contribution="FEED")
    v = host.view(code)
    assert v["bids"] == [None] * 4 and v["deal_commitment"] == committed
    people = {0: host, friend.view(code)["seat"]: friend}
    while True:
        settle(service, bots)
        v = host.view(code)
        if v["phase"] == "hand_over":
            break
        people[v["to_act"]].move(code, people[v["to_act"]].view(code))
    first = host.json(f"/g/{code}/record.json")["hands"][0]
    fair = first["fairness"]
    assert fair["commitment"] == committed == doc_commitment(fair["server_seed"])
    assert fair["contributions"] == ["feed"]
    assert doc_deal(fair["server_seed"], ["feed"], 1, first["dealer"]) == dealt_sets(first)
    secret = service.store.deal_secret(code, 1)
    assert secret not in room and doc_seed(secret, 1) not in room


def test_a_running_hands_seed_is_in_no_page_fragment_view_record_or_socket_frame(live_server, client, service,
                                                                                  bots):
    me = Person(client)
    code = practice(me, contribution="1234")
    secret = service.store.deal_secret(code, 1)
    deals = FairDeals(secret)
    cookie = client.get_cookie("session").value
    ws = open_ws(live_server, code, cookie)
    running: dict[int, list[str]] = {1: [], 2: []}  # what anyone could see while hand 1, then 2, was played
    between: list[str] = []  # ... and once hand 1 was over
    frames: list[str] = []

    def keep(*texts: str) -> None:
        """Texts that were made while the table was as it is now, or before (a hand's last
        cards may be played by the server itself at once: each text is filed by the table
        as it is just after the text was fetched, so a hand still running then was running
        while it was made)."""
        v = me.view(code)
        (between if v["phase"] == "hand_over" else running[v["hand_number"]]).extend(texts)

    def collect(*answers: str) -> None:
        keep(*answers)
        for path in (f"/g/{code}", f"/g/{code}/watch", f"/g/{code}/view.json", f"/g/{code}/record.json",
                     "/fairness"):
            keep(me.text(path))
        drained = []
        while (frame := ws.receive(timeout=0.3)) is not None:
            drained.append(frame)
        frames.extend(drained)
        keep(*drained)

    try:
        collect()
        moves = 0
        while moves < 4:
            settle(service, bots)
            v = me.view(code)
            if v["phase"] == "hand_over":
                collect()
                me.post(f"/g/{code}/act", action="deal", version=v["version"], contribution="99")
            elif v["to_act"] == 0:
                collect(me.move(code, v, htmx=True))  # with the fragments answering the move
                moves += v["hand_number"] == 2
        settle(service, bots)
        collect()
    finally:
        ws.close()
    assert me.view(code)["hand_number"] == 2 and len(frames) > 10 and len(running[1]) > 50
    assert any(deals.commitment(1) in t for t in running[1]) and any(deals.commitment(2) in t for t in between)
    assert any(deals.commitment(2) in t for t in running[2])
    seen = running[1] + between + running[2]
    assert not any(doc_seed(secret, 1) in t for t in running[1])
    assert any(doc_seed(secret, 1) in t for t in between)  # revealed in the record once the hand is over
    assert not any(doc_seed(secret, 2) in t or secret in t for t in seen)


def play(service: TableService, bots: ManualPool, me: Player, code: str, done) -> dict:
    """Seat 0 bids 3, plays its first legal card and presses Continue (sending ``0d0e``)
    until ``done(view)``; returns that view."""
    for _ in range(500):
        settle(service, bots)
        v = service.snapshot(code, me.id).view.to_json()
        if done(v):
            return v
        if v["phase"] == "hand_over":
            service.handle(code, me, Continue(v["version"], "0d0e"))
        elif v["to_act"] == 0:
            service.act(code, me, 3 if v["phase"] == "bidding" else v["legal"][0], v["version"])
    raise AssertionError("never done")


def test_verify_checks_every_hand_and_refuses_a_swapped_card_and_a_changed_seed(service, bots, tmp_path):
    me = Player("vera")
    code = service.create_practice(me.id, "Vera", Rules(end="hands", hands=2), "easy", contribution="abc123")
    play(service, bots, me, code, lambda v: v["finished"])
    record = service.record(code, me.id)
    hands = len(record["hands"])
    assert verify(record, tmp_path) == (0, {"ok": True, "hands": hands}, "")
    assert verify(record, tmp_path, stdin=True) == (0, {"ok": True, "hands": hands}, "")
    assert record["hands"][1]["fairness"]["contributions"] == ["0d0e"]

    swapped = json.loads(json.dumps(record))
    deal = swapped["hands"][1]["deal"]
    deal[0][0], deal[2][0] = deal[2][0], deal[0][0]
    status, out, _ = verify(swapped, tmp_path)
    assert status == 1 and out["ok"] is False and out["hand"] == 1
    assert out["reason"].startswith(f"Seat 0 holds {deal[0][0]}, which the algorithm deals to seat 2")

    changed = json.loads(json.dumps(record))
    seed = changed["hands"][0]["fairness"]["server_seed"]
    changed["hands"][0]["fairness"]["server_seed"] = ("1" if seed[0] != "1" else "2") + seed[1:]
    assert verify(changed, tmp_path) == (1, {"ok": False, "hand": 0, "reason": "The server seed does not match "
                                             "the commitment: SHA-256 of the seed differs."}, "")
    other = json.loads(json.dumps(record))  # a seed that matches its own commitment, but not this deal
    other["hands"][0]["fairness"] = FairDeals("77" * 32).reveal(1)
    status, out, _ = verify(other, tmp_path)
    assert (status, out["hand"]) == (1, 0) and "which the algorithm deals to seat" in out["reason"]

    bare = json.loads(json.dumps(record))
    del bare["hands"][0]["fairness"]
    assert verify(bare, tmp_path)[:2] == (1, {"ok": False, "hand": 0, "reason": "This hand has no fairness data: "
                                              "its deal cannot be checked."})
    for junk in ("[1, 2]", "not json", '{"hands": []}', '{"hands": [3]}'):
        status, out, err = verify(junk, tmp_path)
        assert (status, out) == (2, None) and err.startswith("verify: not a match record")


def test_a_rematch_is_dealt_fairly_from_a_secret_of_its_own(service, bots, tmp_path):
    me = Player("remy")
    code = service.create_practice(me.id, "Remy", Rules(end="hands", hands=1), "easy")
    v = play(service, bots, me, code, lambda v: v["finished"])
    first = service.snapshot(code, me.id).around.deal_commitment
    service.handle(code, me, Rematch(v["version"]))
    snap = service.snapshot(code, me.id)
    assert snap.around.match_number == 2 and snap.view.to_json()["bids"] == [None] * 4
    assert HEX64.fullmatch(snap.around.deal_commitment) and snap.around.deal_commitment != first
    play(service, bots, me, code, lambda v: v["phase"] == "hand_over" or v["finished"])
    hand = service.record(code, me.id)["hands"][0]
    assert hand["fairness"]["commitment"] == snap.around.deal_commitment and hand["fairness"]["contributions"] == []
    assert doc_deal(hand["fairness"]["server_seed"], [], 1, hand["dealer"]) == dealt_sets(hand)


def test_a_table_rebuilt_from_its_moves_deals_the_same_cards(tmp_path, bots):
    path = str(tmp_path / "fair.db")
    seeds = (f"fair-{n}" for n in itertools.count())
    me = Player("me")
    first = TableService(Store(path), pool=bots, play_delays=INSTANT, think_limit=THINK, new_seed=lambda: next(seeds))
    code = first.create_practice(me.id, "Me", Rules(end="hands", hands=5), "easy", contribution="12ab")
    cards_played = 0
    while cards_played < 3:
        settle(first, bots)
        v = first.snapshot(code, me.id).view.to_json()
        if v["phase"] == "hand_over":
            first.handle(code, me, Continue(v["version"], "FeEd"))
        elif v["to_act"] == 0:
            first.act(code, me, 3 if v["phase"] == "bidding" else v["legal"][0], v["version"])
            cards_played += v["hand_number"] == 2 and v["phase"] == "playing"
    settle(first, bots)
    before, record = first.snapshot(code, me.id), first.record(code, me.id)
    first.close()
    again = TableService(Store(path), pool=bots, play_delays=INSTANT, think_limit=THINK, new_seed=lambda: next(seeds))
    after = again.snapshot(code, me.id)
    assert after.view == before.view and after.around.deal_commitment == before.around.deal_commitment
    assert again.record(code, me.id) == record
    state = load_state(again.store, code)
    secret = again.store.deal_secret(code, 1)
    dealt = doc_deal(doc_seed(secret, 2), ["feed"], 2, state.match.dealer)
    assert [set(map(str, cards)) for cards in state.match.deal] == dealt
    assert record["hands"][0]["fairness"]["contributions"] == ["12ab"]
    again.close()


def test_matches_from_before_fair_deals_keep_their_seeded_deals(tmp_path, bots):
    path = str(tmp_path / "old.db")
    old = Migrations(MIGRATION_SET)
    for fn in MIGRATIONS[:8]:  # the schema as it was before m009_fair_deals
        old(name=fn.__name__)(lambda db, fn=fn: fn(SqliteSchema(db)))
    old.apply(Database(path))
    rules = Rules(end="hands", hands=2)
    match = Match(rules, "old-seed")
    with sqlite3.connect(path) as db:
        db.execute("INSERT INTO tables (code, created, host, options, status) VALUES "
                   "('OLDOLD', 1, 'me', '{\"kind\": \"practice\", \"level\": \"easy\"}', 'playing')")
        for seat, (kind, pid, name) in enumerate([("human", "me", "Me"), ("bot", None, "Rex"), ("bot", None, "Bea"),
                                                  ("bot", None, "Kit")]):
            db.execute("INSERT INTO seats (table_code, seat, kind, player_id, name, emoji) VALUES (?, ?, ?, ?, ?, '')",
                       ["OLDOLD", seat, kind, pid, name])
        db.execute("INSERT INTO matches (table_code, number, seed, rules, version, created, finished, winner) "
                   "VALUES ('OLDOLD', 1, 'old-seed', ?, 0, 1, 0, NULL)", [json.dumps(rules.to_dict())])
    service = TableService(Store(path), pool=bots, play_delays=INSTANT, think_limit=THINK)
    assert "m009_fair_deals" in service.store.migrations()
    snap = service.snapshot("OLDOLD", "me")
    assert set(snap.view.to_json()["hand"]) == {str(c) for c in match.cards(0)} and snap.around.deal_commitment == ""
    assert [set(map(str, cards)) for cards in load_state(service.store, "OLDOLD").match.deal] == \
        [set(map(str, cards)) for cards in match.deal]
    assert service.store.fair_deals("OLDOLD", 1) is None
    service.close()


def test_the_deal_store_on_each_engine(database):
    store = Store(database)
    seats = [SeatRow(0, "human", "p0", "Ann")] + [SeatRow(s, "bot", None, "Bot") for s in (1, 2, 3)]
    store.create_table("FAIRRR", "p0", {}, seats, "s", {"jokers": "jj"}, "ab" * 32, ("c0",))
    store.create_table("PLAINN", "p0", {}, seats, "s", {})
    assert store.fair_deals("FAIRRR", 1) == ("ab" * 32, {1: ("c0",)})
    assert store.fair_deals("PLAINN", 1) is None and store.deal_secret("PLAINN", 1) is None
    with pytest.raises(Conflict):
        store.commit([PutHand("FAIRRR", 1, 1, ("dd",))])
    assert store.ensure_deal_secret("FAIRRR", 1, "cd" * 32) == "ab" * 32  # a secret never changes
    assert store.revealed_hands() == []  # hand 1 is being played
    store.commit([PutHand("FAIRRR", 1, 2, ())])
    assert store.revealed_hands() == [("ab" * 32, 1, ("c0",), {"jokers": "jj"})]  # with its match's rules
    store.close()


def test_the_figures_count_one_hand_per_finished_deal_against_the_exact_probabilities(client, service, bots):
    me = Person(client)
    page = me.text("/fairness")
    assert "How a deal is made (spades-deal/1)" in page and "No hand has been dealt and finished here yet" in page
    code = practice(me)
    while me.view(code)["hand_number"] < 3:
        settle(service, bots)
        v = me.view(code)
        if v["phase"] == "hand_over":
            me.post(f"/g/{code}/act", action="deal", version=v["version"])
        elif v["to_act"] == 0:
            me.move(code, v)
    page = me.text("/fairness")
    assert "Over <strong>2</strong> finished deals" in page  # hands 1 and 2; hand 3 is being played
    assert page.count('<svg class="chart fair-chart"') == 2 and "Too few deals for a chi-square test" in page

    # many deals from the algorithm fit; a dealer who favours spades does not
    hands = [shuffled(FairDeals("5a" * 32).server_seed(n), [], n)[0::4] for n in range(1, 801)]
    fair = figures_of(hands)
    assert fair.deals == 800 and fair.trumps_test is not None and fair.shapes_test is not None
    assert fair.trumps_test.p_value > 0.001 and fair.shapes_test.p_value > 0.001
    assert sum(r.observed for r in fair.trumps) == 800 and sum(r.observed for r in fair.shapes) == 800
    loaded = figures_of([sorted(cards, key=lambda c: c[-1] != "S")[:13] for cards in
                         (shuffled(FairDeals("5a" * 32).server_seed(n), [], n)[:26] for n in range(1, 201))])
    assert loaded.trumps_test is not None and loaded.trumps_test.warning


@pytest.mark.parametrize("x,df,p", [(6.635, 1, 0.01), (5.991, 2, 0.05), (9.488, 4, 0.05), (23.209, 10, 0.01),
                                    (43.773, 30, 0.05), (0.455, 1, 0.5)])
def test_the_chi_square_p_values_match_the_tables(x, df, p):
    assert chi2_sf(x, df) == pytest.approx(p, abs=2e-4)


def test_the_exact_probabilities():
    spades = trump_probabilities()
    assert sum(spades) == pytest.approx(1, abs=1e-12) and spades[0] == pytest.approx(0.012791, abs=1e-6)
    shapes = shape_probabilities()
    assert shapes["4-4-3-2"] == pytest.approx(0.215512, abs=1e-6)
    assert shapes["4-3-3-3"] == pytest.approx(0.105361, abs=1e-6)
    assert shapes["13-0-0-0"] == pytest.approx(4 / 635013559600)


MY_TURN_OR_HAND_OVER = """(prev) => {
  const v = document.getElementById('turn');  // the table's version the page shows
  if (!v || v.dataset.version === prev) return false;
  return !!(document.querySelector('.fan.playable') || document.querySelector('#result > *')
            || document.querySelector('.bidbox'));
}"""


def test_the_page_sends_fresh_random_contributions_with_practice_and_continue(live_server, page, service, bots):
    """In Chromium: the Practice button's and Continue's contributions (static/fair.js), and
    the commitments the page shows."""
    from playwright.sync_api import expect

    stop = threading.Event()

    def answer_bots() -> None:
        while not stop.is_set():
            bots.run_all()
            time.sleep(0.005)

    helper = threading.Thread(target=answer_bots, daemon=True)
    helper.start()
    try:
        page.goto(live_server + "/")
        page.get_by_role("button", name="Practice now").click()
        page.wait_for_url(re.compile(r"/g/[A-Z2-9]{6}$"))
        code = page.url.rsplit("/", 1)[1]
        [first] = service.store.hand_contributions(code, 1)[1]
        assert re.fullmatch(r"[0-9a-f]{32}", first)
        expect(page.locator("#sheet .fair-deal code")).to_have_text(service.snapshot(code, None).around.deal_commitment)
        expect(page.locator(".bidbox")).to_be_visible(timeout=15000)
        version = page.locator("#turn").get_attribute("data-version")
        page.get_by_role("button", name="Bid", exact=True).click()
        for _ in range(14):
            page.wait_for_function(MY_TURN_OR_HAND_OVER, arg=version, timeout=15000)
            if page.locator(OPEN_PANEL).count():
                break
            version = page.locator("#turn").get_attribute("data-version")
            page.locator(".fan.playable .card.legal").first.click()
        upcoming = service.snapshot(code, None).around.next_commitment
        expect(page.locator("#panel .fair-deal code")).to_have_text(upcoming)
        page.get_by_role("button", name="Continue").click()
        expect(page.locator(".hand-no")).to_contain_text("Hand 2")
        expect(page.locator("#sheet .fair-deal code")).to_have_text(upcoming)
        [second] = service.store.hand_contributions(code, 1)[2]
        assert re.fullmatch(r"[0-9a-f]{32}", second) and second != first
    finally:
        stop.set()
        helper.join(5)
