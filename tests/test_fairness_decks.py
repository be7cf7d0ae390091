"""The ``/fairness`` figures count each deal from its own deck and seats: a three-player
table's first hand is 17 cards of its 51, a joker table's trumps are the spades and the
jokers; each kind of deck has its own section, tested against its own exact
probabilities; a deal played at several tables (the same secret) counts once."""

from __future__ import annotations

import re

import pytest

from spades.fairness import FairDeals, first_dealt, shuffled
from spades.rules_config import Rules, shape_of
from spades.storage import SeatRow
from spades.tables import Player
from spades.web.matches.fairness import figures_of, first_hands

ANN = "fair-decks-ann"
ONE_HAND = {"mode": "no_bidding", "end": "hands", "hands": 1, "tempo": "off"}
THREE = Rules(players=3, partners=False, **ONE_HAND)
JOKERS = Rules(jokers="jj", **ONE_HAND)
STANDARD = Rules(**ONE_HAND)


@pytest.fixture
def app_config() -> dict:
    return {"FAIRNESS_CACHE_S": 0}  # the figures afresh for each request


def play_out(service, code: str) -> None:
    """Ann plays her last legal card at each turn until the match is over."""
    for _ in range(300):
        assert service.wait_idle()
        v = service.snapshot(code, ANN).view.to_json()
        if v["finished"]:
            return
        service.act(code, Player(ANN), v["legal"][-1], v["version"])
    raise AssertionError("the match did not end")


def first_hand_of(service, code: str, players: int) -> list[str]:
    """The cards of the seat dealt first (left of the dealer) in the record of the match."""
    hand = service.record(code, ANN)["hands"][0]
    return hand["deal"][(hand["dealer"] + 1) % players]


def play_suit(card: str, jokers: str) -> str:
    """A card's suit as play sees it (RULES.md): the jokers, and the jjdd 2D, are spades."""
    if card in ("LJ", "BJ") or (jokers == "jjdd" and card == "2D"):
        return "S"
    return card[-1]


def section(page: str, slug: str) -> str:
    found = re.search(rf'<section class="fair-deck" id="deck-{slug}".*?</section>', page, re.S)
    assert found, f"no section for the {slug} deck"
    return found.group(0)


def observed(html: str, label: str) -> int:
    """A table row's count of deals."""
    found = re.search(rf'<tr><th scope="row">{re.escape(label)}</th><td>(\d+)</td>', html)
    assert found, label
    return int(found.group(1))


def test_each_kind_of_deck_is_counted_from_its_own_cards_and_seats(client, service):
    client.get("/")
    tables = {slug: (service.create_practice(ANN, "Ann", rules, "easy"), rules)
              for slug, rules in (("4-none", STANDARD), ("3-none", THREE), ("4-jj", JOKERS))}
    for code, _ in tables.values():
        play_out(service, code)

    # the figures' first hands are the ones the records show dealt first
    counted = {(t.players, t.jokers): hands for t, hands in first_hands(service.store).items()}
    assert set(counted) == {(4, "none"), (3, "none"), (4, "jj")}
    for code, rules in tables.values():
        hands = counted[(rules.players, rules.jokers)]
        assert [sorted(h) for h in hands] == [sorted(first_hand_of(service, code, rules.players))]

    page = client.get("/fairness").get_data(as_text=True)
    assert "Over <strong>3</strong> finished deals" in page
    assert "Each kind of deck is counted apart, from its own cards and seats" in " ".join(page.split())
    assert re.findall(r'data-deck="([\w-]+)"', page) == ["4-none", "3-none", "4-jj"]  # standard first
    titles = {
        "4-none": ("Four players: 52 cards, 13 to each seat", "Spades in a hand"),
        "3-none": ("Three players: 51 cards, without 2C; 17 to each seat", "Spades in a hand"),
        "4-jj": ("Four players, jokers (jj): 52 cards, the two jokers in place of 2C and 2D; 13 to each seat",
                 "Trumps in a hand (the spades, BJ and LJ)"),
    }
    for slug, (code, rules) in tables.items():
        part = section(page, slug)
        deck, trumps_title = titles[slug]
        assert f"{deck} <small>(1 deal)</small>" in part and f"<h4>{trumps_title}</h4>" in part
        cards = first_hand_of(service, code, rules.players)
        assert len(cards) == rules.shape.hand_size
        suits = [play_suit(c, rules.jokers) for c in cards]
        trumps = suits.count("S")
        shape = "-".join(str(n) for n in sorted((suits.count(s) for s in "SHDC"), reverse=True))
        assert observed(part, str(trumps)) == 1  # this deal's trumps ...
        rows = re.findall(r'<tr><th scope="row">(\d+(?:-\d+){3}|others)</th><td>(\d+)</td>', part)
        assert sum(int(n) for _, n in rows) == 1
        assert all(sum(map(int, label.split("-"))) == rules.shape.hand_size for label, _ in rows if label != "others")
        assert dict(rows).get(shape, dict(rows)["others"]) == "1"  # ... and its shape, as play sees the suits


def test_a_deal_played_at_several_tables_counts_once(client, service):
    seats = [SeatRow(0, "human", ANN, "Ann", "")] + [SeatRow(s, "bot", None, f"Bot {s}", "") for s in (1, 2)]
    codes = [service.create_seated(seats, THREE, {"kind": "friends", "level": "easy"}, host=ANN, seed="same-deals")
             for _ in range(2)]
    for code in codes:
        play_out(service, code)
    first, second = (service.record(code, ANN)["hands"][0] for code in codes)
    assert first["fairness"] == second["fairness"]  # the same deal at both tables
    page = client.get("/fairness").get_data(as_text=True)
    assert "Over <strong>1</strong> finished deal," in page
    assert "(1 deal)" in section(page, "3-none")


@pytest.mark.parametrize("table", [shape_of(3, False), shape_of(4, True, "jj"), shape_of(4, True, "jjdd")],
                         ids=["three", "jj", "jjdd"])
def test_the_algorithm_fits_each_decks_own_probabilities(table):
    secret = "5a" * 32
    deals = FairDeals(secret, shape=table)
    hands = [first_dealt(deals.server_seed(n), [], n, table) for n in range(1, 601)]
    assert all(len(h) == table.hand_size for h in hands)
    own = figures_of(hands, table)
    assert own.deals == 600 and sum(r.observed for r in own.trumps) == 600 == sum(r.observed for r in own.shapes)
    assert own.trumps_test is not None and own.shapes_test is not None
    assert own.trumps_test.p_value > 0.001 and own.shapes_test.p_value > 0.001
    # the old way, every deal reshuffled as 52 cards and every fourth card taken, is another deal
    reshuffled = [shuffled(deals.server_seed(n), [], n)[0::4] for n in range(1, 11)]
    assert sum(sorted(a) != sorted(b) for a, b in zip(reshuffled, hands)) == 10
    standard = FairDeals(secret)
    assert first_dealt(standard.server_seed(1), [], 1) == shuffled(standard.server_seed(1), [], 1)[0::4]
