"""Normal's card beside its partner's winning card, in positions reached by real play: a
chosen deal dealt by the engine (``spades.rules.Match``), the bids and cards applied one
by one, and the card asked for from the seat's own view (``spades.views.seat_view``, read
by ``spades.bots.knowledge.read`` as the bots read it).

Seat 0 is the seat asked; seat 2 is its partner. With seat 1 dealing, the partner leads
the first trick and seat 0 plays third."""

from __future__ import annotations

from spades.bots import choose, heuristic_card, knowledge
from spades.cards import Card
from spades.rules import Match, Rules, parse_action
from spades.views import seat_view


def _deal(*hands: str) -> list[list[Card]]:
    cards = [[Card.parse(t) for t in h.split()] for h in hands]
    assert all(len(h) == 13 for h in cards)
    assert len({c for h in cards for c in h}) == 52
    return cards


def _play(deal: list[list[Card]], dealer: int, bids: list[object], cards: str) -> Match:
    """The match after ``bids`` (in seat order from the dealer's left) and ``cards`` (in the
    order played), every action applied by the engine to the seat whose turn it is."""
    m = Match(Rules(), seed=0, first_dealer=dealer, deal=deal)
    for b in bids:
        m.apply(m.to_act, parse_action(b))
    for t in cards.split():
        m.apply(m.to_act, parse_action(t))
    return m


def _card(m: Match, seat: int = 0) -> str:
    """The Normal bot's card for ``seat``, and the same from its heuristics alone."""
    assert m.to_act == seat
    v = seat_view(m, seat)
    card = choose(v, "normal", 0)
    assert card == str(Card(heuristic_card(knowledge.read(v))))
    return str(card)


# Seat 0 holds the ace of hearts over its partner's lead; the other hearts are spread.
HEARTS_DEAL = _deal(
    "AH 4H 2C 3C 4C 5C 6C 2D 3D 4D 2S 3S 4S",  # seat 0
    "KH 7H 8H 7C 8C 9C 5D 6D 7D 5S 6S 7S 8S",  # seat 1
    "QH 6H 5H TC JC QC 8D 9D TD 9S TS JS QS",  # seat 2, the partner
    "3H 2H 9H TH JH KC AC JD QD KD AD KS AS",  # seat 3
)
BIDS = [3, 3, 3, 3]  # seat 2 bids first (seat 1 deals), then 3, 0 and 1


def test_over_a_partners_queen_only_the_king_can_beat_the_third_seat_plays_low() -> None:
    """The partner led the queen of hearts with the king still out: a card the last seat
    alone may beat, only with the king. Our ace would win no more than the queen does when
    the king is elsewhere and stays to win a later trick when it is not: the four."""
    m = _play(HEARTS_DEAL, 1, BIDS, "QH 3H")
    assert _card(m) == "4H"


def test_a_partners_low_card_that_the_last_seat_may_beat_is_overtaken() -> None:
    """The partner led the six of hearts: the seven to the king are out behind it, so third
    hand high: our ace, the boss, takes the trick."""
    m = _play(HEARTS_DEAL, 1, BIDS, "6H 3H")
    assert _card(m) == "AH"


def test_no_ruff_of_a_partners_ace_when_nobody_behind_has_shown_out() -> None:
    """The partner leads the ace of diamonds holding eleven of them: one diamond is out,
    with the last seat, which has shown out of nothing. We have no diamond and throw a
    club rather than spend a spade on a trick the partner has."""
    deal = _deal(
        "AH 4H 3H 2C 3C 4C 5C 6C 2S 3S 4S 5S 6S",  # seat 0: no diamonds
        "KH 7H 8H 7C 8C 9C 2D TC 7S 8S 9S TS JS",  # seat 1: one diamond
        "AD KD QD JD TD 9D 8D 7D 6D 5D 4D JC QC",  # seat 2: eleven diamonds
        "QH JH TH 9H 6H 5H 2H KC AC 3D QS KS AS",  # seat 3: one diamond
    )
    m = _play(deal, 1, BIDS, "AD 3D")
    card = _card(m)
    assert not card.endswith("S") and card.endswith("C")


def test_a_partners_card_the_last_seat_may_beat_is_ruffed() -> None:
    """The partner led the eight of diamonds with the ace, king, queen and jack out behind
    it, where the last seat may hold them: void, we ruff with our lowest spade rather than
    leave the trick to the last seat."""
    deal = _deal(
        "AH 4H 3H 2C 3C 4C 5C 6C 2S 3S 4S 5S 6S",  # seat 0: no diamonds
        "KH 7H 8H 7C 8C AD KD QD JD TC 7S 8S 9S",  # seat 1
        "TD 9D 8D 7D 6D 5D 4D 2D 9C JC QC TS JS",  # seat 2
        "QH JH TH 9H 6H 5H 2H KC AC 3D QS KS AS",  # seat 3
    )
    m = _play(deal, 1, BIDS, "8D 3D")
    assert _card(m) == "2S"


def test_the_partners_nil_is_covered() -> None:
    """The partner bid nil and its nine of hearts is winning the trick (seat 0 plays last,
    seat 1 having led): we take it with the cheapest heart that beats the nine."""
    deal = _deal(
        "JH TH 2H 2C 3C 4C 5C 6C 2D 3D 2S 3S 4S",  # seat 0
        "3H 4H 8H 7C 8C 9C 5D 6D 7D 5S 6S 7S 8S",  # seat 1
        "9H TC JC QC 8D 9D TD 4D 9S TS JS QS KC",  # seat 2: the nil
        "5H 6H 7H QH KH AH AC JD QD KD AD KS AS",  # seat 3
    )
    # seat 0 deals: seat 1 bids first, then the partner's nil, seat 3 and seat 0
    m = _play(deal, 0, [3, "nil", 4, 3], "3H 9H 5H")
    assert _card(m) == "TH"
