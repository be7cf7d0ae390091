"""Match records (RECORD.md): export any match, rebuild the exact state from a record,
and check a record step by step for the ``replay`` command.

A match dealt fairly (``spades.fairness``) adds to each *finished* hand its ``fairness``:
the commitment, the revealed server seed, the contributions and the algorithm (the hand
being played never has it: its seed stays on the server until the hand ends). ``replay``
ignores it, as it ignores every extra key; ``python -m spades verify`` checks it.

A match whose rules use a house rule (``Rules.house``) is written as ``spades-match/2``
(one ``deal``, ``bids`` and ``blind`` entry per seat, jokers where the deck has them);
every other match as ``spades-match/1``, exactly as before. Both are read. In a /1 record
the house keys are extra keys, and ignored as any other: a /1 record is a standard match.

A match in which moves were taken back (undo, at a practice table) says so at the top
level: ``"takebacks": N``, how many times its person took a move back (the ``hands`` hold
only the line finally played). A match without takebacks has no such key, so its record
is what it always was. ``replay`` and ``verify`` ignore the key, as RECORD.md lets them
ignore every extra key.

Imports: the rest of the core only.
"""

from __future__ import annotations

from dataclasses import dataclass

from .cards import Card, NotationError
from .fairness import FairDeals
from .rules import BIDS, BLIND_NIL, HAND_OVER, LOOK, IllegalAction, Match, Rules, RulesError
from .rules_config import FORMAT_1, FORMAT_2, Shape, record_rules
from .views import bid_json

FORMAT = FORMAT_1  # a standard match's format; FORMAT_2 is the house rules' (RECORD.md)
FORMATS = (FORMAT_1, FORMAT_2)
TAKEBACKS = "takebacks"  # the record's extra key: how many times moves were taken back


class RecordError(ValueError):
    """A document that is not a match record at all (exit 2 of ``replay``)."""


@dataclass
class IllegalStep(ValueError):
    """The first step of a record that the rules refuse (exit 1 of ``replay``)."""

    hand: int
    step: str  # "deal", "bid" or "play"
    index: int
    seat: int | None
    card: str | None
    reason: str

    def to_json(self) -> dict:
        return {"ok": False, "hand": self.hand, "step": self.step, "index": self.index,
                "seat": self.seat, "card": self.card, "reason": self.reason}


def to_record(match: Match, seat: int | None = None, takebacks: int = 0) -> dict:
    """The match as a RECORD.md document. With ``seat``, only what that seat has seen:
    other seats' ``deal`` lists hold just the cards they have played so far (in the hand
    in progress; finished hands have shown every card), and so does the seat's own until
    it may see its cards (a blind nil bidder who has not looked). Finished hands of a
    fairly dealt match carry their ``fairness``; ``takebacks`` (moves taken back in the
    match) adds ``"takebacks"`` when there were any."""
    hands = []
    fair = match.deals if isinstance(match.deals, FairDeals) else None
    for r in match.results:
        hands.append(_hand_json(match.rules, r.dealer, r.deal, r.bids, r.blind, r.plays))
        if fair is not None:
            hands[-1]["fairness"] = fair.reveal(r.number)
    if (match.phase not in (HAND_OVER, "match_over") or not match.results
            or match.results[-1].number != match.hand_number):
        deal = match.deal
        if seat is not None:
            played = set(match.plays)
            deal = [cards if s == seat and match.looked[seat] else [c for c in cards if c in played]
                    for s, cards in enumerate(deal)]
        hands.append(_hand_json(match.rules, match.dealer, deal, match.bids, match.blind, match.plays))
    return with_takebacks({"format": record_format(match.rules), "rules": match.rules.to_dict(), "hands": hands},
                          takebacks)


def with_takebacks(record: dict, takebacks: int) -> dict:
    """The record saying that moves were taken back ``takebacks`` times (``"takebacks"``,
    before the hands, where a reader sees it first); the record itself when none were.

    >>> with_takebacks({"format": FORMAT, "rules": {}, "hands": []}, 2)
    {'format': 'spades-match/1', 'rules': {}, 'takebacks': 2, 'hands': []}
    """
    if not takebacks:
        return record
    head = {k: v for k, v in record.items() if k != "hands"}
    return {**head, TAKEBACKS: takebacks, "hands": record["hands"]}


def record_format(rules: Rules) -> str:
    """The format a match with these rules is recorded in: /2 with any house rule, else /1."""
    return FORMAT_2 if rules.house else FORMAT


def _hand_json(rules: Rules, dealer, deal, bids, blind, plays) -> dict:
    out: dict = {"dealer": dealer, "deal": [[str(c) for c in cards] for cards in deal]}
    if rules.bidding:
        out["bids"] = [bid_json(b) for b in bids]
        if any(blind):
            out["blind"] = list(blind)
    out["plays"] = [str(c) for c in plays]
    return out


def from_record(record: object) -> Match:
    """Rebuild the exact state of a match from its record.
    Raises RecordError (not a record) or IllegalStep (the first refused step)."""
    match = None
    for step in replay_steps(record):
        match = step
    assert match is not None
    return match


def replay_steps(record: object):
    """Replay a record hand by hand, yielding the match after each hand (finished or not)."""
    if not isinstance(record, dict) or not isinstance(record.get("hands"), list):
        raise RecordError("not a match record: it needs a \"hands\" list")
    fmt = record.get("format", FORMAT)
    if fmt not in FORMATS:
        raise RecordError(f"unknown format {fmt!r}; expected {FORMAT!r} or {FORMAT_2!r}")
    try:
        rules = record_rules(fmt, record.get("rules"))
    except RulesError as e:
        raise RecordError(f"bad rules: {e}") from None
    shape = rules.shape
    hands = record["hands"]
    if not hands:
        raise RecordError("the record has no hands")
    match: Match | None = None
    for h, hand in enumerate(hands):
        if not isinstance(hand, dict):
            raise RecordError(f"hand {h} is not an object")
        dealer = hand.get("dealer")
        if type(dealer) is not int or dealer not in shape.seats:
            raise RecordError(f"hand {h}: dealer must be a seat 0-{shape.players - 1}")
        deal = _read_deal(h, hand.get("deal"), shape)
        if match is None:
            match = Match(rules, first_dealer=dealer, deal=deal)
        else:
            if match.finished:
                raise IllegalStep(h, "deal", 0, dealer, None, "The match is already over.")
            if match.phase != HAND_OVER:
                raise IllegalStep(h, "deal", 0, dealer, None, "The previous hand is not finished.")
            if dealer != shape.left[match.dealer]:
                raise IllegalStep(h, "deal", 0, dealer, None,
                                  f"The deal passes to the left: seat {shape.left[match.dealer]} deals this hand.")
            match.next_hand(deal)
        if rules.bidding:
            _replay_bids(h, match, hand)
        plays = hand.get("plays", [])
        if not isinstance(plays, list):
            raise RecordError(f"hand {h}: plays must be a list")
        for i, text in enumerate(plays):
            seat = match.to_act
            try:
                card = Card.parse(text)
            except NotationError as e:
                raise IllegalStep(h, "play", i, seat, str(text), str(e)) from None
            if seat is None or match.phase != "playing":
                raise IllegalStep(h, "play", i, seat, str(card),
                                  f"The hand is over: {len(shape.deck)} cards have been played."
                                  if match.phase != "bidding"
                                  else "Bidding is not over yet: wait for the bids before playing.")
            try:
                match.apply(seat, card)
            except IllegalAction as e:
                raise IllegalStep(h, "play", i, seat, str(card), str(e)) from None
        yield match


def _read_deal(h: int, deal: object, shape: Shape) -> list[list[Card]]:
    """A hand's deal read and checked against the rules' deck: one list per seat of
    ``hand_size`` cards, each card of the deck once (no joker without jokers, no removed card)."""
    n, size = shape.players, shape.hand_size
    if not isinstance(deal, list) or len(deal) != n or not all(isinstance(d, list) for d in deal):
        raise IllegalStep(h, "deal", 0, None, None, f"A deal is {shape.players_word} lists of {size} cards.")
    seen: set[Card] = set()
    out = []
    for s, cards in enumerate(deal):
        parsed = []
        for text in cards:
            try:
                card = Card.parse(text)
            except NotationError:
                raise IllegalStep(h, "deal", s, s, str(text), f"{text!r} is not a card.") from None
            if not shape.deck_mask >> card & 1:
                raise IllegalStep(h, "deal", s, s, str(card), f"{card} is not in this table's deck.")
            if card in seen:
                raise IllegalStep(h, "deal", s, s, str(card), f"{card} is dealt twice.")
            seen.add(card)
            parsed.append(card)
        if len(parsed) != size:
            raise IllegalStep(h, "deal", s, s, None, f"Seat {s} was dealt {len(parsed)} cards; a hand is {size}.")
        out.append(parsed)
    missing = [str(c) for c in shape.deck if c not in seen]
    if missing:  # cannot happen with n x size distinct cards of the deck, kept for clarity of intent
        raise IllegalStep(h, "deal", 0, None, missing[0], f"{missing[0]} is missing from the deal.")
    return out


def _replay_bids(h: int, match: Match, hand: dict) -> None:
    n = match.shape.players
    tricks = match.shape.tricks
    bids = hand.get("bids", [])
    blind = hand.get("blind") or [False] * n
    if not isinstance(bids, list) or len(bids) > n or not isinstance(blind, list) or len(blind) > n:
        raise RecordError(f"hand {h}: bids and blind are lists indexed by seat")
    bids = bids + [None] * (n - len(bids))
    blind = blind + [False] * (n - len(blind))
    order = [(match.dealer + 1 + i) % n for i in range(n)]
    stopped = False
    for seat in order:
        value = bids[seat]
        if value is None:
            stopped = True
            continue
        if stopped:
            raise IllegalStep(h, "bid", seat, seat, None, "It is not your turn.")
        if value == "nil":
            action = BLIND_NIL if blind[seat] is True else BIDS[0]
        elif type(value) is int and 1 <= value <= tricks and not blind[seat]:
            action = BIDS[value]
        else:
            reason = ("Only nil can be bid blind." if blind[seat] is True
                      else f"Bids are 1 to {tricks}, or nil.")
            raise IllegalStep(h, "bid", seat, seat, None, reason)
        try:
            if not action.blind and match.can_look(seat):
                match.apply(seat, LOOK)
            match.apply(seat, action)
        except IllegalAction as e:
            raise IllegalStep(h, "bid", seat, seat, None, str(e)) from None


def replay_report(record: object) -> dict:
    """The ``replay`` command's JSON for a record. Raises RecordError for a non-record."""
    hands_out: list[dict] = []
    match = None
    try:
        for match in replay_steps(record):
            done = match.phase in (HAND_OVER, "match_over") and match.results and \
                match.results[-1].number == match.hand_number
            if done:
                r = match.results[-1]
                hands_out.append({"tricks": list(r.tricks), "score": r.score.points,
                                  "bags": r.score.bags, "total": list(r.totals)})
            else:
                hands_out.append({"tricks": list(match.taken), "score": None, "bags": None, "total": None})
    except IllegalStep as e:
        return e.to_json()
    assert match is not None
    return {"ok": True, "hands": hands_out, "finished": match.finished, "winner": match.winner}
