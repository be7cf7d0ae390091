"""Clocks (RULES.md, "Clocks"): how long a seat has to move, what the table plays for it
when its time runs out, when it goes on autopilot, and how long a dropped seat is held.

Pure rules, no time source of its own: callers pass ``now`` (seconds), so tests inject
a clock and never sleep. The table service keeps the deadlines in the database and fires
them from one scheduler; every timeout move goes through the same move path as a click.

Decisions where RULES.md is silent:
- Tourney tables are the no-bidding tables: they use the tourney clock whatever their
  tempo; ``tempo: "off"`` (a practice table) and ``"untimed"`` (friends who chose no
  clock) turn clocks off for every other table.
- Looking at one's cards (blind nil tables) runs on the bid clock.
- "Lowest" compares ranks; between equal ranks of different suits the tourney rule takes
  clubs, then diamonds, then hearts (spades only when nothing else may be played).
- A timeout while on autopilot does not happen: the bot moves at once.

Imports: the core only.

>>> turn_seconds(Rules(tempo="fast"), "playing"), turn_seconds(Rules(tempo="relaxed"), "bidding")
(15, 75)
>>> turn_seconds(Rules(tempo="untimed"), "playing") is None, turn_seconds(Rules(tempo="days-1"), "bidding")
(True, 86400)
>>> tourney_timeout_card(["AS", "2S", "9H", "3D", "3C"], led=None)
'3C'
"""

from __future__ import annotations

from dataclasses import dataclass

from .cards import Card
from .rules_config import TURN_BASED, Rules

TEMPO_SECONDS = {
    "relaxed": {"card": 60, "bid": 75},
    "normal": {"card": 30, "bid": 40},
    "fast": {"card": 15, "bid": 25},
    # turn-based tables: a move (and the wait for Continue between hands) may take this long
    "hours-12": {"card": 12 * 3600, "bid": 12 * 3600},
    "days-1": {"card": 24 * 3600, "bid": 24 * 3600},
    "days-3": {"card": 72 * 3600, "bid": 72 * 3600},
}
TOURNEY_SECONDS = 30
TOURNEY_SECONDS_AFTER_TIMEOUT = 15
AUTOPILOT_AFTER = 3  # timeouts in a row
HOLD_SECONDS = 60  # a dropped connection's seat is held this long before a bot plays it
HOLD_SECONDS_CLOSING = 10  # ... when the page said it was closing on purpose

# Suit order for ties between equal ranks: clubs, diamonds, hearts (then spades).
_TIE_ORDER = {3: 0, 2: 1, 1: 2, 0: 3}


def is_tourney(rules: Rules) -> bool:
    """Tourney tables are those playing the tourney rules: no bidding."""
    return rules.mode == "no_bidding"


def is_turn_based(rules: Rules) -> bool:
    """A table that lasts days: a move may take 12 hours to 3 days, or has no clock
    (``untimed``). Its people come back when it is their turn: no seat is held for a
    dropped connection, bots move at once, and between hands the next one is dealt when
    everyone pressed Continue or the move's time ran out.

    >>> is_turn_based(Rules(tempo="days-1")), is_turn_based(Rules(tempo="untimed")), is_turn_based(Rules())
    (True, True, False)
    """
    return rules.tempo in TURN_BASED and not is_tourney(rules)


def turn_seconds(rules: Rules, phase: str, timed_out_before: bool = False) -> int | None:
    """Seconds a seat has for its move in ``phase`` (``"bidding"`` or ``"playing"``);
    None when the table plays without clocks."""
    if is_tourney(rules):
        return TOURNEY_SECONDS_AFTER_TIMEOUT if timed_out_before else TOURNEY_SECONDS
    if rules.tempo not in TEMPO_SECONDS:  # "off" or "untimed"
        return None
    return TEMPO_SECONDS[rules.tempo]["bid" if phase == "bidding" else "card"]


def _lowest(cards: list[Card]) -> Card:
    return min(cards, key=lambda c: (c.rank, _TIE_ORDER[c.suit]))


def tourney_timeout_card(hand: list[str], led: str | None) -> str:
    """The tourney clock's card: the lowest of the led suit; if void, the lowest non-spade
    (the lowest spade when only spades are left); when leading, the lowest non-spade.
    ``led`` is the first card of the trick in progress (None when leading)."""
    cards = [Card.parse(c) for c in hand]
    if not cards:
        raise ValueError("an empty hand has no card to play")
    if led is not None:
        suit = Card.parse(led).suit
        follow = [c for c in cards if c.suit == suit]
        if follow:
            return str(_lowest(follow))
    others = [c for c in cards if c.suit != 0]
    return str(_lowest(others or cards))


@dataclass(frozen=True, slots=True)
class SeatClock:
    """A seat's record with the clock during one match."""

    timeouts_in_row: int = 0
    timed_out: bool = False  # ever, this match (the tourney clock drops to 15 s after)
    autopilot: bool = False

    def after_timeout(self) -> SeatClock:
        """The table moved for the seat; the third in a row puts it on autopilot."""
        n = self.timeouts_in_row + 1
        return SeatClock(n, True, self.autopilot or n >= AUTOPILOT_AFTER)

    def after_own_move(self) -> SeatClock:
        """The player moved (or pressed Take over): autopilot ends, the count starts again."""
        return SeatClock(0, self.timed_out, False)


def hold_until(dropped_at: float, closing: bool) -> float:
    """When a dropped seat's hold ends and a bot takes it over (until the player is back)."""
    return dropped_at + (HOLD_SECONDS_CLOSING if closing else HOLD_SECONDS)


def deadline(rules: Rules, phase: str, clock: SeatClock, now: float) -> float | None:
    """When the seat to act runs out of time, for a turn starting at ``now``."""
    seconds = turn_seconds(rules, phase, clock.timed_out)
    return None if seconds is None else now + seconds


def time_left(deadline: float | None, now: float) -> str:
    """``2 days 3 hours``, ``5 hours``, ``40 minutes``, ``no clock``.

    >>> time_left(None, 0), time_left(2 * 86400 + 3 * 3600 + 5, 0), time_left(5 * 3600, 0), time_left(90, 0)
    ('no clock', '2 days 3 hours', '5 hours', '2 minutes')
    """
    if deadline is None:
        return "no clock"
    s = max(0, int(deadline - now))
    days, hours, minutes = s // 86400, s % 86400 // 3600, -(-(s % 3600) // 60)
    if days:
        return f"{days} day{'s' if days > 1 else ''}" + (f" {hours} hour{'s' if hours > 1 else ''}" if hours else "")
    if hours:
        return f"{hours} hour{'s' if hours > 1 else ''}"
    return f"{max(1, minutes)} minute{'s' if minutes > 1 else ''}"
