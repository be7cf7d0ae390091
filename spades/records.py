"""Match records (RECORD.md): export any match, rebuild the exact state from a record,
and check a record step by step for the ``replay`` command.

A match dealt fairly (``spades.fairness``) adds to each *finished* hand its ``fairness``:
the commitment, the revealed server seed, the contributions and the algorithm (the hand
being played never has it: its seed stays on the server until the hand ends). ``replay``
ignores it, as it ignores every extra key; ``python -m spades verify`` checks it.

Imports: the rest of the core only.
"""

from __future__ import annotations

from dataclasses import dataclass

from .cards import CARDS, Card, NotationError
from .fairness import FairDeals
from .rules import BIDS, BLIND_NIL, HAND_OVER, LOOK, IllegalAction, Match, Rules, RulesError
from .views import bid_json

FORMAT = "spades-match/1"


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


def to_record(match: Match, seat: int | None = None) -> dict:
    """The match as a RECORD.md document. With ``seat``, only what that seat has seen:
    other seats' ``deal`` lists hold just the cards they have played so far (in the hand
    in progress; finished hands have shown every card), and so does the seat's own until
    it may see its cards (a blind nil bidder who has not looked). Finished hands of a
    fairly dealt match carry their ``fairness``."""
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
    return {"format": FORMAT, "rules": match.rules.to_dict(), "hands": hands}


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
    if fmt != FORMAT:
        raise RecordError(f"unknown format {fmt!r}; expected {FORMAT!r}")
    try:
        rules = Rules.from_dict(record.get("rules") or {})
    except (RulesError, TypeError) as e:
        raise RecordError(f"bad rules: {e}") from None
    hands = record["hands"]
    if not hands:
        raise RecordError("the record has no hands")
    match: Match | None = None
    for h, hand in enumerate(hands):
        if not isinstance(hand, dict):
            raise RecordError(f"hand {h} is not an object")
        dealer = hand.get("dealer")
        if type(dealer) is not int or not 0 <= dealer <= 3:
            raise RecordError(f"hand {h}: dealer must be a seat 0-3")
        deal = _read_deal(h, hand.get("deal"))
        if match is None:
            match = Match(rules, first_dealer=dealer, deal=deal)
        else:
            if match.finished:
                raise IllegalStep(h, "deal", 0, dealer, None, "The match is already over.")
            if match.phase != HAND_OVER:
                raise IllegalStep(h, "deal", 0, dealer, None, "The previous hand is not finished.")
            if dealer != (match.dealer + 1) % 4:
                raise IllegalStep(h, "deal", 0, dealer, None,
                                  f"The deal passes to the left: seat {(match.dealer + 1) % 4} deals this hand.")
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
                                  "The hand is over: 52 cards have been played." if match.phase != "bidding"
                                  else "Bidding is not over yet: wait for the bids before playing.")
            try:
                match.apply(seat, card)
            except IllegalAction as e:
                raise IllegalStep(h, "play", i, seat, str(card), str(e)) from None
        yield match


def _read_deal(h: int, deal: object) -> list[list[Card]]:
    if not isinstance(deal, list) or len(deal) != 4 or not all(isinstance(d, list) for d in deal):
        raise IllegalStep(h, "deal", 0, None, None, "A deal is four lists of 13 cards.")
    seen: set[Card] = set()
    out = []
    for s, cards in enumerate(deal):
        parsed = []
        for text in cards:
            try:
                card = Card.parse(text)
            except NotationError:
                raise IllegalStep(h, "deal", s, s, str(text), f"{text!r} is not a card.") from None
            if card in seen:
                raise IllegalStep(h, "deal", s, s, str(card), f"{card} is dealt twice.")
            seen.add(card)
            parsed.append(card)
        if len(parsed) != 13:
            raise IllegalStep(h, "deal", s, s, None, f"Seat {s} was dealt {len(parsed)} cards; a hand is 13.")
        out.append(parsed)
    missing = [str(c) for c in CARDS if c not in seen]
    if missing:  # cannot happen with 4 x 13 distinct cards, kept for clarity of intent
        raise IllegalStep(h, "deal", 0, None, missing[0], f"{missing[0]} is missing from the deal.")
    return out


def _replay_bids(h: int, match: Match, hand: dict) -> None:
    bids = hand.get("bids", [])
    blind = hand.get("blind") or [False] * 4
    if not isinstance(bids, list) or len(bids) > 4 or not isinstance(blind, list) or len(blind) > 4:
        raise RecordError(f"hand {h}: bids and blind are lists indexed by seat")
    bids = bids + [None] * (4 - len(bids))
    blind = blind + [False] * (4 - len(blind))
    order = [(match.dealer + 1 + i) % 4 for i in range(4)]
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
        elif type(value) is int and 1 <= value <= 13 and not blind[seat]:
            action = BIDS[value]
        else:
            reason = ("Only nil can be bid blind." if blind[seat] is True
                      else "Bids are 1 to 13, or nil.")
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
