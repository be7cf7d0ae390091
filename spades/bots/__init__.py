"""Computer players: Random, Easy, Normal and Hard, and the bid hint.

Entry points (plain module-level functions of JSON values, so a web server can run them
in a ``concurrent.futures.ProcessPoolExecutor`` worker with a deadline):

- ``choose(view, level, seed, budget_s=None)``: the action, in JSON form (``"QS"``,
  ``4``, ``"nil"``, ``"blind_nil"``, ``"look"``), for the seat view of BOTS.md.
- ``hint(view)``: the bid the Hard bot would make for that seat.

A bot sees only the seat view, never the match. Every level is deterministic for a given
(view, level, seed): chance comes from a ``random.Random`` seeded from them. Normal and
Hard bid by the bid model (``bidmodel.choose_bid``; Easy with slips), except that where a
nil has a chance Hard weighs nil against the model's number by play-outs
(``search.choose_bid``); Hard searches its cards, counting its work in simulated card
plays, and its ``budget_s`` is also a wall-clock safety stop. Normal plays by its
heuristics (``policy``), except while an opponent's nil is alive and its side has none:
then it searches as Hard does, with 1,050 card plays of work (``NORMAL_NIL_WORK``, about
3 ms of the Python source), starting from its heuristic card, its play-outs giving every
seat Normal's cards (Hard's give the other team ``punisher``'s). The hot modules run
compiled when they are built (``spades.native``).

Imports: ``spades.cards``, ``spades.rules`` and ``spades.scoring`` (the last two through
the bots' own modules), and ``spades.native``, only; never the web layer, storage or the
table service.
"""

from __future__ import annotations

import random
import time

from .. import native

native.load(__path__)  # the compiled hot modules, when built from today's sources

from ..cards import CARDS  # noqa: E402
from ..rules import legal_mask  # noqa: E402
from ..rules_config import HOUSE_KEYS, Rules  # noqa: E402
from . import bidmodel, house_bid, house_play, house_search, knowledge, policy, search  # noqa: E402
from .slots import bits  # noqa: E402

TABLE_LEVELS = ("easy", "normal", "hard")  # the bots a table may have
DEFAULT_LEVEL = "normal"  # ... when nobody chose
LEVELS = ("random", *TABLE_LEVELS)  # and, in the arena, one that plays at random
HARD_BUDGET_S = 0.5  # default thinking time of Hard; p95 of a decision stays under 1 s
# Normal searches its card, as Hard does, while an opponent's nil is alive: this much work
# in card plays (about 3 ms of the Python source, under 1 ms compiled: ``native``), and a
# wall-clock safety stop far above it, so that the card depends on the work done, not on
# the machine's load or the build; a bag counts at its point there (``bags`` False), as
# when Normal's figures were measured, not at its share of the penalty to come as in Hard's
NORMAL_NIL_WORK = 1_050
NORMAL_SEARCH_STOP_S = 0.03

__all__ = ["DEFAULT_LEVEL", "LEVELS", "TABLE_LEVELS", "HARD_BUDGET_S", "choose", "hint"]


def choose(view: dict, level: str = "normal", seed: int = 0, budget_s: float | None = None) -> int | str:
    """The action (JSON form) a bot of ``level`` takes for the seat view ``view``.

    Raises ValueError when it is not the view's seat's turn or the level is unknown.
    """
    legal = view.get("legal") or []
    if not legal or view.get("to_act") != view.get("seat"):
        raise ValueError("It is not this seat's turn: there is nothing to choose.")
    if level not in LEVELS:
        raise ValueError(f"unknown bot level {level!r}; one of {', '.join(LEVELS)}")
    rng = random.Random(f"{level}/{seed}/{view.get('hand_number')}/{view.get('seat')}/{view.get('version')}"
                        f"/{len(view.get('tricks') or [])}/{legal}")
    if _house(view):
        return house_search.choose(view, level, rng, budget_s, HARD_BUDGET_S)
    if level == "random":
        return rng.choice(legal)
    if len(legal) == 1:
        return legal[0]
    known = knowledge.read(view)
    if "blind_nil" in legal or "look" in legal:
        return _blind_or_look(known, level)
    if isinstance(legal[0], int) or legal[0] == "nil":
        return _bid(known, level, rng, budget_s)
    return str(CARDS[_card(known, level, rng, budget_s)])


def hint(view: dict) -> int | str:
    """The bid the Hard bot would make for this seat (``"nil"`` or a number) by its count
    of the cards: the bid model's, as Normal's, in a fraction of a millisecond. At the
    table Hard also weighs a nil that has a chance against that number by play-outs
    (``search.choose_bid``, half a second), so for a hand near a nil's line it may bid
    the other; the hint does not search, so that it answers at once in the request.

    Works whenever the seat has looked at its cards and has not bid yet; raises ValueError
    when its cards are not known (not looked yet) or it has already bid.
    """
    if _house(view):
        return house_bid.hint(view)
    known = knowledge.read(view)
    if known.hand is None:
        raise ValueError("The seat has not looked at its cards yet.")
    if known.bids[known.seat] is not None or not known.rules.bidding:
        raise ValueError("The seat has no bid to make.")
    return _bid(known, "normal", random.Random())  # the model's bid draws on no chance


def _house(view: dict) -> bool:
    """Whether the view's table plays house rules (``Rules.house``): then the house bots
    (``spades.bots.house``) answer. A standard table's rules carry no house key, so its
    path is not touched."""
    rules = view.get("rules")
    return isinstance(rules, dict) and any(k in rules for k in HOUSE_KEYS) and Rules.from_dict(rules).house


# -- bidding -----------------------------------------------------------------------------

def _blind_or_look(known: knowledge.Known, level: str) -> str:
    if level in ("normal", "hard") and bidmodel.wants_blind_nil(known.situation()):
        return "blind_nil"
    return "look"


def _bid(known: knowledge.Known, level: str, rng: random.Random, budget_s: float | None = None) -> int | str:
    assert known.hand is not None
    if level == "hard":
        budget = _hard_budget(budget_s)
        bid = search.choose_bid(known, rng, budget, time.monotonic() + budget)
    else:
        bid = bidmodel.choose_bid(known.hand, known.situation())
    if level == "easy":
        bid = _easy_bid(bid, known, rng)
    return "nil" if bid == 0 else bid


def _easy_bid(bid: int, known: knowledge.Known, rng: random.Random) -> int:
    """A casual player's bid: now and then a trick off, and no daring nils."""
    if bid == 0:
        return 0 if rng.random() < 0.6 else 1
    r = rng.random()
    if r < 0.15:
        bid += 1
    elif r < 0.3:
        bid -= 1
    return max(1, min(13, bid))


# -- play --------------------------------------------------------------------------------

def _card(known: knowledge.Known, level: str, rng: random.Random, budget_s: float | None) -> int:
    assert known.hand is not None
    if level == "hard":
        budget = _hard_budget(budget_s)
        return search.choose_card(known, rng, budget, time.monotonic() + budget)
    card = heuristic_card(known)
    if level == "normal" and _against_a_nil(known):
        return search.choose_card(known, rng, NORMAL_NIL_WORK / search.PLAYS_PER_SECOND,
                                  time.monotonic() + NORMAL_SEARCH_STOP_S, default=card, attack=False, bags=False,
                                  read=False)
    if level == "easy":
        legal = legal_mask(known.hand, known.trick, known.broken)
        r = rng.random()
        if r < house_play.EASY_ANY:  # a slip: any legal card (as often as at a house table)
            card = rng.choice(list(bits(legal)))
        elif r < house_play.EASY_ANY + house_play.EASY_HIGH:  # a wasted high card: the highest card it may play
            card = policy.highest_by_rank(legal, spades_last=False)
    return card


def _hard_budget(budget_s: float | None) -> float:
    return HARD_BUDGET_S if budget_s is None else budget_s


def heuristic_card(known: knowledge.Known) -> int:
    """Normal's card by its heuristics alone (``policy.play_card`` with ``keep_lead``):
    Normal's and Easy's card, and where Normal searches, the card its search starts from."""
    return policy.play_card(known.ctx(), known.seat, known.hand or 0, known.trick, known.leader, known.gone,
                            known.taken, known.broken, known.voids, keep_lead=True)


def _against_a_nil(known: knowledge.Known) -> bool:
    """Whether an opponent's nil is alive and our side has none of its own to keep."""
    bids, taken, seat = known.bids, known.taken, known.seat

    def alive(s: int) -> bool:
        return bids[s] == 0 and not taken[s]

    return (alive(seat ^ 1) or alive(seat ^ 3)) and not (alive(seat) or alive(seat ^ 2))
