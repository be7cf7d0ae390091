"""The table page, score sheet, replay and record page at every shape of table (RULES.md
"House rules"): three seats, cutthroat, jokers.

The table's fragments are rendered from snapshots of ``spades.rules.Match`` games played
here with the first legal move (as every page and socket gets them); the replay and record
pages are the real routes, shown the house records of tests/records and matches played
out at the table service. No seat's fragments ever hold another seat's cards. The bid box
offers only the bids whiz, mirror, suicide or a minimum bid allow. The new table form says
what the house rules mean, and disables what cannot go together as the choices change.
"""

from __future__ import annotations

import dataclasses
import json
import random
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from conftest import csrf_of
from playwright.sync_api import expect

from spades import bots, replays
from spades.records import from_record
from spades.rules import NIL, Bid, Match
from spades.rules_config import Rules
from spades.storage import SeatRow
from spades.tables import NOTHING, Around, Event, Player, Snapshot, load_state
from spades.views import view_of
from spades.web.matches import replay as replay_web
from spades.web.table.render import public_part, render_fragments, table_context

RECORDS = Path(__file__).parent / "records"
NAMES3 = ("Ann", "Bo", "Cy")
CUT3 = Rules(players=3, partners=False, end="hands", hands=2)
JJDD = Rules(jokers="jjdd", min_bid=4, ten_for_200=True, end="hands", hands=1)
CARD_TOKEN = re.compile(r"(?<![A-Za-z0-9])([2-9TJQKA][SHDC]|BJ|LJ)(?![A-Za-z0-9])")


def snap_of(match: Match, seat: int | None, names: tuple[str, ...] = NAMES3, event: Event | None = None) -> Snapshot:
    """The snapshot a seat (None: a watcher) of ``match`` is shown."""
    n = len(names)
    around = Around("HOUSE1", 1, "easy", "normal", event or NOTHING, names, ("human",) * n, emojis=("",) * n,
                    presence=("here",) * n)
    return Snapshot(around, view_of(match, seat))


def first_move(match: Match) -> tuple[int, object]:
    """The seat to act and its move: a bid of 3 if it may (else its first number), or its first legal card."""
    seat = match.to_act
    legal = match.legal_actions(seat)
    numbers = [a for a in legal if str(a).isdigit()]
    return seat, next((a for a in numbers if str(a) == "3"), numbers[0] if numbers else legal[0])


def play(match: Match, moves: int | None = None, until_hand_over: bool = False) -> Match:
    """Play ``moves`` moves (or to the end of the hand) with the first legal card and a bid of 3."""
    done = 0
    while not match.finished and (moves is None or done < moves):
        if match.phase == "hand_over":
            if until_hand_over:
                break
            match.next_hand()
            continue
        seat, action = first_move(match)
        match.apply(seat, action)
        done += 1
    return match


VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class Node:
    """An element of a page, enough to find elements by tag, id and classes and read their text."""

    def __init__(self, tag: str, attrs: dict[str, str], parent: Node | None) -> None:
        self.tag, self.attrs, self.parent, self.children = tag, attrs, parent, []

    @property
    def classes(self) -> list[str]:
        return self.attrs.get("class", "").split()

    def __getitem__(self, name: str) -> str:
        return self.attrs[name]

    def has(self, name: str) -> bool:
        return name in self.attrs

    def text(self) -> str:
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def words(self) -> str:
        return " ".join(self.text().split())

    def all(self, tag: str | None = None, cls: str | None = None, **attrs: str) -> list[Node]:
        """Every element under this one with the tag, the class and the attributes (``data_card``: data-card)."""
        found = []
        for c in self.children:
            if isinstance(c, str):
                continue
            if ((tag is None or c.tag == tag) and (cls is None or cls in c.classes)
                    and all(c.attrs.get(k.replace("_", "-")) == v for k, v in attrs.items())):
                found.append(c)
            found += c.all(tag, cls, **attrs)
        return found

    def one(self, tag: str | None = None, cls: str | None = None, **attrs: str) -> Node | None:
        found = self.all(tag, cls, **attrs)
        return found[0] if found else None


class _Builder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = self.at = Node("#root", {}, None)

    def handle_starttag(self, tag, attrs):
        node = Node(tag, {k: v or "" for k, v in attrs}, self.at)
        self.at.children.append(node)
        if tag not in VOID:
            self.at = node

    def handle_endtag(self, tag):
        at = self.at
        while at is not None and at.tag != tag:
            at = at.parent
        if at is not None and at.parent is not None:
            self.at = at.parent

    def handle_data(self, data):
        self.at.children.append(data)


def soup(html: str) -> Node:
    b = _Builder()
    b.feed(html)
    return b.root


def held_by_others(match: Match, seat: int | None) -> set[str]:
    return {str(c) for s in range(match.shape.players) if s != seat for c in match.cards(s)}


# -- the table at three seats ------------------------------------------------------------
def test_a_three_seat_table_has_three_plates_and_slots_placed_from_each_side(app):
    match = play(Match(CUT3, 4), moves=5)  # the bids are in, two cards on the trick
    for seat, side in ((0, "from-0 cut-0 seats-3"), (1, "from-1 cut-1 seats-3"), (2, "from-2 cut-2 seats-3"),
                       (None, "watching seats-3")):
        with app.test_request_context():
            page = soup(render_fragments(snap_of(match, seat), "token"))
        assert [p["id"] for p in page.all(cls="plate")] == ["plate-0", "plate-1", "plate-2"]
        trick = page.one(id="trick")
        assert len(trick.all(cls="slot")) == 3 and len(trick.all(cls="face")) == 2
        if seat is not None:
            assert [c for c in page.one(id="told").classes if c != "my-turn"] == ["status-private", *side.split()]
            assert len(page.one(id="hand").all(cls="card")) == len(match.cards(seat))
        else:
            assert page.one(id="hand") is None


def test_cutthroat_score_boxes_show_each_players_score_and_bags_and_the_leader(app):
    match = play(Match(CUT3, 4), until_hand_over=True)
    assert match.phase == "hand_over" and len(set(match.scores)) > 1
    with app.test_request_context():
        page = soup(render_fragments(snap_of(match, 1), "token"))
    scores = page.one(id="scores")
    assert "cutthroat" in scores.classes
    boxes = scores.all(cls="team")
    assert [b.classes[1] for b in boxes] == ["side-0", "side-1", "side-2"]
    for box, name, score, bags in zip(boxes, NAMES3, match.scores, match.bags):
        assert box.one(cls="team-members").words().startswith(name)
        assert box.one(cls="team-score").text() == str(score)
        assert box.one(cls="team-bags").text() == f"{bags} bag{'' if bags == 1 else 's'}"
    top = max(match.scores)
    leaders = [b for b in boxes if "leader" in b.classes]
    assert leaders and all(b.one(cls="team-score").text() == str(top) for b in leaders)
    assert all(b.one(cls="leader-tag").text() == "leads" for b in leaders)
    assert all(b.one(cls="leader-tag") is None for b in boxes if b not in leaders)
    # the hand's result and the score sheet: a column per player
    result = page.one(id="result").one("table")
    assert [th.text() for th in result.one("thead").all("th")][1:] == list(NAMES3)
    sheet = page.one(id="sheet").one("table")
    assert [th.text() for th in sheet.one("thead").one("tr").all("th")][1:] == list(NAMES3)
    # each player's bid (nil too), tricks, points and total: no Nil column, so it stays narrow
    assert [th.text() for th in sheet.one("thead").all("tr")[1].all("th")] == ["Bids", "Tricks", "Points", "Total"] * 3
    assert len(sheet.one("tbody").one("tr").all("td")) == 4 * 3
    assert [td.words() for td in sheet.one("tbody").all("td", cls="running")] == \
        [f"{s} ({b} bag{'' if b == 1 else 's'})" for s, b in zip(match.scores, match.bags)]


def test_a_three_seat_last_trick_and_status_name_three_players(app):
    match = play(Match(CUT3, 5), moves=3 + 3)  # the bids and the first trick
    public = public_part(snap_of(match, 0))
    assert len(public.last_trick.plays) == 3
    assert {p.name for p in public.last_trick.plays} == set(NAMES3)
    assert public.felt.trick_is_last and sum(s.won for s in public.felt.trick) == 1


def test_the_end_of_a_cutthroat_match_names_the_winner_and_offers_no_partner(app):
    match = play(Match(CUT3, 6))
    assert match.finished
    plain = snap_of(match, 0)
    snap = dataclasses.replace(plain, around=dataclasses.replace(plain.around, host_seat=0))
    with app.test_request_context():
        ctx = table_context(snap, "token")
        page = soup(render_fragments(snap, "token"))
    winner = NAMES3[match.winner] if match.winner is not None else None
    assert page.one(id="result").one("h2").text() == (f"{winner} won the match" if winner else "A draw")
    final = page.one(id="result").one("p", cls="final").text()
    assert final == " · ".join(f"{n} {s}" for n, s in zip(NAMES3, match.scores))
    assert ctx["rematch"].partners == ()
    assert page.one(cls="partner-choice") is None
    assert page.one(id="next").one("form", cls="rematch")  # the host's Rematch, without a partner to choose
    # the chart of the score by hand: a line per player, each named beside its line
    chart = page.one(id="result").one("figure", cls="chart-box")
    assert chart is not None
    said = ", ".join(f"{n[:6]} {s}" for n, s in zip(NAMES3, match.scores))
    assert chart.one("svg").attrs["aria-label"] == f"Score by hand: {said}"


def test_a_standard_table_keeps_its_classes_and_two_team_boxes(app):
    match = play(Match(Rules(end="hands", hands=1), 2), moves=6)
    with app.test_request_context():
        page = soup(render_fragments(snap_of(match, 2, ("A", "B", "C", "D")), "token"))
    assert page.one(id="told").classes == ["status-private", "from-2", "us-0"]
    assert page.one(id="scores").classes == ["scores"]
    assert [b.classes for b in page.one(id="scores").all(cls="team")] == [["team", "team-0"], ["team", "team-1"]]
    assert len(page.all(cls="plate")) == 4 and len(page.one(id="trick").all(cls="slot")) == 4


def test_a_three_seat_bid_box_goes_to_17(app):
    match = Match(CUT3, 4)
    with app.test_request_context():
        page = soup(render_fragments(snap_of(match, match.to_act), "token"))
    box = page.one(id="bid-value")
    assert box["max"] == "17" and box["aria-label"] == "Your bid, 1 to 17"


def bid_box(app, match: Match) -> tuple[Node, list[str]]:
    """The bid box the seat to bid is shown, and what its buttons send (``bid``, ``nil``)."""
    with app.test_request_context():
        page = soup(render_fragments(snap_of(match, match.to_act, ("A", "B", "C", "D")[:match.shape.players]),
                                     "token"))
    box = page.one("form", cls="bidbox")
    return box, [b["value"] for b in box.all("button") if b.has("value")]


def number_of(box: Node) -> tuple[str, str, str] | None:
    """The bid box's number: its value, least and most (None: no number to bid)."""
    number = box.one("input", id="bid-value")
    return None if number is None else (number["value"], number["min"], number["max"])


def trumps_of(match: Match, seat: int) -> int:
    return len(set(match.cards(seat)) & set(match.shape.trumps))


def bid_until(match: Match, done, bid=lambda match, seat: None) -> Match:
    """Bid until ``done(match, seat)`` holds for the seat to bid: each seat bids what
    ``bid`` says (a Bid; None: its first legal number, or nil)."""
    while match.phase == "bidding" and not done(match, match.to_act):
        seat = match.to_act
        legal = match.legal_actions(seat)
        match.apply(seat, bid(match, seat) or next((a for a in legal if str(a).isdigit()), legal[0]))
    assert match.phase == "bidding"
    return match


@pytest.mark.parametrize("variant,held", [("whiz", "some"), ("whiz", "none"), ("mirror", "some"), ("mirror", "none")])
def test_the_bid_box_of_whiz_and_mirror_offers_the_trumps_held_or_nil(app, variant, held):
    for seed in range(50):  # the same deals on every run: the first seat to bid holding trumps, or none
        match = Match(Rules(bidding_variant=variant), seed)
        if match.phase == "bidding" and any((trumps_of(match, s) > 0) == (held == "some") for s in range(4)):
            break
    bid_until(match, lambda m, s: (trumps_of(m, s) > 0) == (held == "some"))
    trumps = trumps_of(match, match.to_act)
    box, sent = bid_box(app, match)
    if held == "some":  # the box starts at the only number, with nothing to step through
        assert number_of(box) == (str(trumps),) * 3
        assert box.one("button", cls="step") is None and "bid" in sent
    else:
        assert number_of(box) is None and "bid" not in sent
    assert ("nil" in sent) == (variant == "whiz" or held == "none")


def test_the_bid_box_of_suicide_holds_each_partner_to_the_teams_one_nil(app):
    rules = Rules(bidding_variant="suicide")
    match = Match(rules, 1)
    first = match.to_act
    partner = rules.shape.partner(first)
    box, sent = bid_box(app, match)  # the team's first bidder: nil, or 4 up
    assert number_of(box) == ("4", "4", "13") and {"bid", "nil"} <= set(sent)
    match.apply(first, NIL)
    bid_until(match, lambda m, s: s == partner)
    box, sent = bid_box(app, match)  # the partner of a nil: 4 up, no nil
    assert number_of(box) == ("4", "4", "13") and "nil" not in sent

    match = Match(rules, 1)
    match.apply(first, Bid(5))
    bid_until(match, lambda m, s: s == partner)
    box, sent = bid_box(app, match)  # the partner of a number: nil alone
    assert number_of(box) is None and sent == ["nil"]


def test_the_bid_box_of_a_minimum_bid_starts_the_teams_second_bidder_where_the_team_reaches_it(app):
    rules = Rules(min_bid=5)
    match = Match(rules, 1)
    first = match.to_act
    box, sent = bid_box(app, match)  # the team's first bidder: any bid
    assert number_of(box) == ("3", "1", "13") and {"bid", "nil"} <= set(sent)
    match.apply(first, Bid(1))
    bid_until(match, lambda m, s: s == rules.shape.partner(first))
    box, sent = bid_box(app, match)  # 1 + 4 reaches 5; nil leaves the team without a minimum
    assert number_of(box) == ("4", "4", "13") and {"bid", "nil"} <= set(sent)


# -- jokers ------------------------------------------------------------------------------
def test_jokers_and_the_jjdd_two_of_diamonds_are_cards_among_the_trumps(app):
    for seed in range(1, 60):
        match = Match(JJDD, seed)
        holder = next((s for s in range(4) if {"BJ", "2D"} <= {str(c) for c in match.cards(s)}), None)
        if holder is not None:
            break
    assert holder is not None, "no deal in 60 seeds holds the big joker and the 2D in one hand"
    with app.test_request_context():
        page = soup(render_fragments(snap_of(match, holder, ("A", "B", "C", "D")), "token"))
    buttons = page.one(id="hand").all("button", cls="card")
    cards = [b["data-card"] for b in buttons]
    order = [str(c) for c in JJDD.shape.trumps]
    trumps = [c for c in cards if c in order]
    assert cards[:len(trumps)] == trumps == sorted(trumps, key=order.index)  # the trumps first, highest first
    assert cards[0] == "BJ" and "2D" in trumps
    for b in buttons:
        words = b.one(cls="sr-only").text()
        if b["data-card"] in ("BJ", "LJ"):
            assert words == {"BJ": "big joker", "LJ": "little joker"}[b["data-card"]]
        if b["data-card"] in ("BJ", "LJ", "2D"):
            assert b["data-suit"] == "S"  # played as a spade: the page marks it with the spades
        else:
            assert not b.has("data-suit")


def test_a_joker_on_the_trick_and_in_the_last_trick_is_a_named_card(app):
    joker = None
    for seed in range(1, 80):
        match = play(Match(JJDD, seed), moves=4)  # the bids
        while match.phase == "playing":
            seat = match.to_act
            jokers = [a for a in match.legal_actions(seat) if str(a) in ("BJ", "LJ")]
            match.apply(seat, jokers[0] if jokers else match.legal_actions(seat)[0])
            if jokers:
                joker = str(jokers[0])
                break
        if joker and match.phase == "playing" and match.trick:
            break
        joker = None
    assert joker, "no joker was played"
    name = {"BJ": "big joker", "LJ": "little joker"}[joker]
    with app.test_request_context():
        page = soup(render_fragments(snap_of(match, None, ("A", "B", "C", "D")), "token"))
    face = page.one(id="trick").one(cls="face", data_card=joker)
    assert face is not None and face["aria-label"] == name
    play(match, moves=4 - len(match.trick))  # the trick is taken
    with app.test_request_context():
        page = soup(render_fragments(snap_of(match, None, ("A", "B", "C", "D")), "token"))
    face = page.one(id="lasttrick").one(cls="face", data_card=joker)
    assert face is not None and face["aria-label"] == name


def test_the_suits_a_jjdd_seat_may_play_count_the_jokers_and_the_2d_as_spades():
    """The page marks the playable cards from the suits in #told: a joker and the 2D are spades."""
    from spades.web.table.render import _legal_suits
    shape = Rules(jokers="jjdd").shape
    assert _legal_suits(shape, {"BJ", "2D", "4S"}) == "S"
    assert _legal_suits(shape, {"3D", "KD"}) == "D"
    assert _legal_suits(Rules().shape, {"2D", "AS", "nil", "10"}) == "SD"


# -- nobody's cards but one's own -----------------------------------------------------------
@pytest.mark.parametrize("rules,seats", [(CUT3, 3), (JJDD, 4)])
def test_no_seat_of_a_house_table_is_sent_another_seats_cards(app, service, rules, seats):
    from watch import watch

    code = f"HSE{seats}{rules.jokers[:2].upper()}"
    players = [f"h{s}" for s in range(seats)]
    service.store.create_table(code, players[0], {"level": "easy"},
                               [SeatRow(s, "human", players[s], f"H{s}") for s in range(seats)],
                               f"seed-{code}", dataclasses.asdict(rules))
    checked = []

    def listener_for(seat):
        def listen(snap):
            with app.app_context():
                html = render_fragments(snap, "token")
            match = load_state(service.store, code).match
            others = held_by_others(match, seat)
            assert not (set(CARD_TOKEN.findall(html)) & others), (seat, set(CARD_TOKEN.findall(html)) & others)
            checked.append(seat)
        return listen

    for s in range(seats):
        watch(service, code, players[s], listener_for(s))
    watch(service, code, None, listener_for(None))
    rng = random.Random(7)
    for _ in range(400):
        v = service.snapshot(code, players[0]).view.to_json()
        if v["finished"] or (v["phase"] == "hand_over"):
            break
        person = players[v["to_act"]]
        sv = service.snapshot(code, person).view.to_json()
        action = next((a for a in map(str, sv["legal"]) if a == "3"), None) if sv["phase"] == "bidding" else None
        if action is None:
            action = str(rng.choice(sv["legal"]))
        service.act(code, Player(person), action, sv["version"])
    assert v["phase"] in ("hand_over", "match_over") or v["finished"]
    assert len(checked) > (seats + 1) * seats * 10


# -- the replay and the record page --------------------------------------------------------
def house_record(name: str) -> dict:
    return json.loads((RECORDS / f"house-{name}.json").read_text())


def show_record(monkeypatch, record: dict, names: tuple[str, ...]) -> None:
    """The replay pages show this finished record as the table's match."""
    match = from_record(record)
    from spades.views import result_json
    shown = replay_web.Shown(1, names, [result_json(r) for r in match.results], match.finished, match.winner,
                             record, True, match.shape.sides)
    monkeypatch.setattr(replay_web, "shown_match", lambda code, number, running_ok: shown)


def test_the_replay_of_a_three_seat_cutthroat_record(client, monkeypatch):
    record = house_record("cutthroat-3")
    show_record(monkeypatch, record, NAMES3)
    page = soup(client.get("/g/ABCDEF/replay?hand=1&trick=0").get_data(as_text=True))
    felt = page.one("section", cls="replay-felt")
    assert "seats-3" in felt.classes and felt["aria-label"] == "The three hands, face up"
    seats = felt.all("div", cls="seat")
    assert [s.classes[1] for s in seats] == ["seat-bottom", "seat-left", "seat-right"]
    assert [len(s.all(cls="face")) for s in seats] == [17, 17, 17]
    assert [b.one("h2").text() for b in page.all(cls="team-box")] == list(NAMES3)
    assert page.one(cls="replay-teams")["aria-label"] == "The players"
    assert page.one(cls="trick-caption").words().startswith("The bids are in:")
    # a card step and the hand's result
    page = soup(client.get("/g/ABCDEF/replay?hand=1&trick=1&card=2").get_data(as_text=True))
    assert len(page.one(cls="replay-trick").all(cls="face")) == 2
    page = soup(client.get("/g/ABCDEF/replay?hand=1&trick=end").get_data(as_text=True))
    assert [th.text() for th in page.one(cls="hand-result").one("thead").all("th")][1:] == list(NAMES3)


def test_the_record_page_of_a_three_seat_cutthroat_record(client, monkeypatch):
    record = house_record("cutthroat-3")
    show_record(monkeypatch, record, NAMES3)
    match = from_record(record)
    page = soup(client.get("/g/ABCDEF/record").get_data(as_text=True))
    hands = page.all("tbody", cls="sheet-hand")
    assert len(hands) == len(record["hands"])
    assert hands[0].one(cls="hand-cell")["rowspan"] == "3"
    rows = hands[-1].all("tr", cls="team-row")
    assert [r.one(cls="team-name").text() for r in rows] == list(NAMES3)
    for s, r in enumerate(rows):
        assert [b["data-seat"] for b in r.all(cls="seat-bid")] == [str(s)]  # each player's own bid
        assert r.one(data_col="total").text() == str(match.scores[s])
    final = page.one(cls="outcome").words()
    assert all(f"{n} {t}" in final for n, t in zip(NAMES3, match.scores))
    assert [th.text() for th in page.one("thead").all("th")][1] == "Player"


def test_the_replay_of_a_jjdd_record_shows_the_jokers_among_the_trumps(client, monkeypatch):
    from spades.cards import Card

    record = house_record("jjdd-minbid-10for200")
    names = ("Ann", "Rex", "Bea", "Kit")
    show_record(monkeypatch, record, names)
    page = soup(client.get("/g/ABCDEF/replay?hand=1&trick=0").get_data(as_text=True))
    felt = page.one("section", cls="replay-felt")
    shape = Rules.from_dict(record["rules"]).shape
    for s in felt.all("div", cls="seat"):
        cards = [f["data-card"] for f in s.all(cls="face")]
        assert cards == [str(c) for c in shape.display_order([Card.parse(t) for t in cards])]
    jokers = [f for f in felt.all(cls="face") if f["data-card"] in ("BJ", "LJ")]
    assert jokers and all(f["aria-label"] == {"BJ": "big joker", "LJ": "little joker"}[f["data-card"]]
                          for f in jokers)
    # a trick with a joker in it is written with the joker's name
    game = replays.load(record, names)
    for h in game.hands:
        for t, (_, cards, _) in enumerate(h.tricks):
            if any(str(c) in ("BJ", "LJ") for c in cards):
                page = soup(client.get(f"/g/ABCDEF/replay?hand={h.number}&trick={t + 1}").get_data(as_text=True))
                caption = page.one(cls="trick-caption").words()
                assert "big joker" in caption or "little joker" in caption, caption
                return
    pytest.fail("no trick of the record has a joker")


def play_to_the_end(service, code: str, players: list[str], seed: int) -> None:
    """The table's match played out by its people, each move the Easy bot's choice."""
    rng = random.Random(seed)
    for _ in range(200):
        v = service.snapshot(code, None).view.to_json()
        if v["finished"]:
            return
        person = players[v["to_act"]]
        sv = service.snapshot(code, person).view.to_json()
        service.act(code, Player(person), bots.choose(sv, "easy", rng.randrange(1 << 30)), sv["version"])
    pytest.fail("the match did not end in 200 moves")


def test_a_three_seat_match_played_at_the_table_has_its_replay_and_sheet(client, service):
    """A table of three seats played out through the table service: the real pages."""
    code = "REP333"
    players = ["r0", "r1", "r2"]
    service.store.create_table(code, players[0], {"level": "easy"},
                               [SeatRow(s, "human", players[s], n) for s, n in enumerate(NAMES3)],
                               "seed-rep", dataclasses.asdict(Rules(players=3, partners=False, end="hands", hands=1)))
    play_to_the_end(service, code, players, 3)
    page = soup(client.get(f"/g/{code}/replay?hand=1&trick=end").get_data(as_text=True))
    assert [th.text() for th in page.one(cls="hand-result").one("thead").all("th")][1:] == list(NAMES3)
    assert page.one(cls="outcome") is not None
    page = soup(client.get(f"/g/{code}/record").get_data(as_text=True))
    assert [r.one(cls="team-name").text() for r in page.all("tr", cls="team-row")] == list(NAMES3)


def test_an_earlier_match_of_a_three_seat_table_dealt_fairly_has_its_replay(client, service):
    """After a rematch, the first match of a three-seat table is rebuilt from its stored
    moves over its own deck (its fair deals deal 17 cards a seat) and shown."""
    from spades.tables import Rematch

    players = ["e0", "e1", "e2"]
    code = service.create_seated([SeatRow(s, "human", players[s], n) for s, n in enumerate(NAMES3)],
                                 Rules(players=3, partners=False, end="hands", hands=1, tempo="untimed"),
                                 {"kind": "friends", "level": "easy", "humans": 3}, host=players[0])
    play_to_the_end(service, code, players, 4)
    service.handle(code, Player(players[0]), Rematch(service.snapshot(code, players[0]).view.to_json()["version"]))
    assert service.snapshot(code, None).around.match_number == 2
    response = client.get(f"/g/{code}/replay?match=1&hand=1&trick=end")
    assert response.status_code == 200
    page = soup(response.get_data(as_text=True))
    assert [th.text() for th in page.one(cls="hand-result").one("thead").all("th")][1:] == list(NAMES3)


# -- the new table form ------------------------------------------------------------------
WHIZ_WITH_A_MINIMUM = "A minimum bid goes with standard bidding only, not with whiz."


def test_the_new_table_form_says_what_whiz_mirror_suicide_and_jjdd_mean_and_what_cannot_go_together(client):
    page = soup(client.get("/new").get_data(as_text=True))
    bidding = page.one("fieldset", data_option="bidding")
    notes = {li.one("strong").text(): li.words() for li in bidding.one("ul", cls="choice-notes").all("li")}
    assert notes == {"Whiz": "Whiz: Each player bids nil or exactly the number of spades they hold.",
                     "Mirror": "Mirror: Each player bids exactly the number of spades they hold, nil with none "
                               "(no blind nil).",
                     "Suicide": "Suicide: In each team one partner bids nil and the other 4 or more."}
    jokers = page.one("fieldset", data_option="jokers").one("ul", cls="choice-notes").words()
    assert "Jokers (JJDD): Joker-Joker-Deuce-Deuce: the 2♣ and 2♥ go out" in jokers
    # what cannot go together, from the rules themselves: each way round, with the rules' words
    assert ["whiz", "min_bid", "4", WHIZ_WITH_A_MINIMUM] in json.loads(bidding["data-fences"])
    assert ["4", "bidding", "whiz", WHIZ_WITH_A_MINIMUM] in \
        json.loads(page.one("label", data_option="min_bid")["data-fences"])
    assert ["on", "bidding", "mirror", "Mirror bidding has no blind nil: each player bids their spades."] in \
        json.loads(page.one("label", data_option="blind_nil")["data-fences"])
    assert ["3", "jokers", "jjdd", "Jokers are played with four players only."] in \
        json.loads(page.one("fieldset", data_option="players")["data-fences"])
    # and the server refuses it still
    refused = client.post("/new", data={"csrf": csrf_of(client), "name": "Hana", "emoji": "🦊", "humans": "1",
                                        "mode": "bidding", "end": "target-500", "tempo": "normal", "level": "easy",
                                        "speed": "fast", "preset": "custom", "bidding": "whiz", "min_bid": "4",
                                        "partners": "on"})
    assert WHIZ_WITH_A_MINIMUM in refused.get_data(as_text=True)


def test_the_new_table_form_disables_what_cannot_go_with_the_choices_made(live_server, page):
    page.goto(live_server + "/new")
    page.get_by_label("Rules the table plays").select_option("jjdd")  # a minimum bid of 4 among them
    page.get_by_text("The house rules one by one").click()
    whiz, why = page.get_by_role("radio", name="Whiz"), page.get_by_text(WHIZ_WITH_A_MINIMUM)
    expect(whiz).to_be_disabled()
    expect(why).to_be_visible()  # under the bidding's choices
    expect(page.get_by_role("radio", name="No bidding")).to_be_disabled()
    page.get_by_label("Minimum bid of a team").select_option("0")
    expect(whiz).to_be_enabled()
    expect(why).to_be_hidden()
    page.locator("label", has_text="Suicide").click()
    partners = page.get_by_role("checkbox", name=re.compile("^Partners"))
    expect(partners).to_be_disabled()  # suicide is played with partners: the box stays ticked, and is sent
    partners.click(force=True)  # a tap on it changes nothing
    expect(partners).to_be_checked()
    expect(page.locator("select[name=min_bid] option[value='4']")).to_be_disabled()
    expect(page.get_by_role("radio", name="3 players")).to_be_disabled()
