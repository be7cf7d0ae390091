"""One table's state in memory, and everything read from it, pure.

``TableState`` is the table as the database has it (its row, the current match rebuilt
from its moves and its fair deals, the clocks and holds) plus what only this process
knows: who is connected, who pressed Continue (and the contribution each sent for the
next deal), the last event. The functions here read it without I/O:
each seat's ``snapshot``, the seats' ``presence``, the clock the table should have
(``next_clock``) and the timers it wants (``plan``: a bot's turn, a clock, holds).

Imports: stdlib, ``spades.clocks``, ``spades.storage`` (row types), the core, and the
other ``spades.tables`` value modules.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field

from .. import clocks
from ..bots import DEFAULT_LEVEL
from ..bots.solver import Position, sweeps
from ..cards import Card
from ..clocks import SeatClock
from ..fairness import FairDeals
from ..rules import BIDDING, HAND_OVER, MATCH_OVER, PLAYING, Match
from ..rules_config import TURN_BASED, UNTIMED, Rules, Shape
from ..storage import Op, TableRow, Waiting, WithinTurnTables
from ..views import NOBODY, MatchView, OwnView, SeatView, Trick, hand_of, match_view, own_view, result_json
from .registry import offers
from .values import CLOCK_BOT, MAX_TURN_TABLES, NOTHING, PLAY_DELAYS, TOURNEY_BREAK_S, Around, Event, Snapshot


@dataclass(frozen=True, slots=True)
class Settings:
    """How this server runs its tables (tests make bots instant and clocks short)."""

    play_delays: dict = field(default_factory=lambda: dict(PLAY_DELAYS))
    clock_seconds: float | None = None  # tests only: every turn this long, whatever the tempo


@dataclass
class TableState:
    code: str
    row: TableRow
    match_id: int
    match_number: int
    seed: str
    match: Match
    event: Event = NOTHING
    ready: set[int] = field(default_factory=set)
    ready_for: tuple[int, int] = (0, 0)  # (match number, hand number) the ready set belongs to
    seat_clocks: dict[int, SeatClock] = field(default_factory=dict)  # this match's, as stored
    clock: tuple[int, int, float] | None = None  # the stored clock: (seat, version, deadline)
    holds: dict[int, tuple[float, float, bool]] = field(default_factory=dict)  # seat: (dropped, until, fired)
    closing: dict[int, float] = field(default_factory=dict)  # seat: when its page said it was closing
    left: set[int] = field(default_factory=set)  # seats left for good
    connections: dict[str, int] = field(default_factory=dict)  # person: open connections to this process
    notices: dict[int, Event] = field(default_factory=dict)  # seat: what the table did for its person
    hand_over_at: float | None = None  # when the last hand ended (a tourney table deals after a break)
    seq: int = 0  # published changes
    fair: FairDeals | None = None  # the match's fair deals (None: a match dealt from its seed, from before)
    offers: dict[int, str] = field(default_factory=dict)  # seat: the contribution its person sent for the next deal
    offers_for: tuple[int, int] = (0, 0)  # (match number, hand number) the offers follow
    chat_number: int = 0  # the number of the table's last chat line
    silenced: set[str] = field(default_factory=set)  # people the host silenced here
    speakers: dict[int, tuple[str, str]] = field(default_factory=dict)  # the last lines' number: (person, name)
    talked: dict[str, list[float]] = field(default_factory=dict)  # person: when they last said something
    last_said: dict[str, tuple[str, float]] = field(default_factory=dict)  # person: their last message, when
    waits: tuple = ()  # a turn-based table: whom it waits on, as last stored ((person, turn, deadline), ...)
    claim_checked: tuple[int, int, bool] = (0, -1, False)  # (match number, version, certain) of the last check
    results_shown: tuple[int, list] = (-1, [])  # the match's finished hands as JSON, and how many (views share them)
    tricks_shown: tuple[tuple[int, int], tuple[Trick, ...]] = ((-1, -1), ())  # (match, hand): its tricks taken
    hands_shown: dict[int, tuple[tuple[int, int], tuple[str, ...]]] = field(default_factory=dict)  # seat: sorted

    def results_json(self) -> list:
        """The finished hands of the match as its views show them, made once per hand
        finished (or taken back: an undo at the end of a hand unscores it)."""
        count, shown = self.results_shown
        if count != len(self.match.results):
            shown = [result_json(r) for r in self.match.results]
            self.results_shown = (len(shown), shown)
        return shown

    def tricks(self) -> tuple[Trick, ...]:
        """This hand's tricks taken as the views show them, each made once: a new trick is
        added to those made (an undo, or a new hand, makes them again)."""
        key, shown = self.tricks_shown
        taken = self.match.tricks
        if key != (self.match_number, self.match.hand_number) or len(shown) > len(taken) or (
                shown and shown[-1].cards != tuple(str(c) for c in taken[len(shown) - 1][1])):
            shown = ()
        if len(shown) < len(taken):
            shown += tuple(Trick(leader, tuple(str(c) for c in cards), winner)
                           for leader, cards, winner in taken[len(shown):])
        self.tricks_shown = ((self.match_number, self.match.hand_number), shown)
        return shown

    def match_view(self) -> MatchView:
        """The match as every seat sees it now."""
        return match_view(self.match, self.results_json(), self.tricks())

    def view_for(self, seat: int | None) -> SeatView:
        """What ``seat`` (None: a spectator) sees of the match now, from the parts kept."""
        return SeatView(self.match_view(), self.own_for(seat))

    def own_for(self, seat: int | None) -> OwnView:
        """What ``seat`` alone sees (a spectator: nothing), its cards sorted once per change
        of them (kept by the match and the cards themselves: a card played, a deal, an undo
        makes them anew)."""
        if seat is None:
            return NOBODY
        key = (self.match_number, self.match.held[seat])
        kept = self.hands_shown.get(seat)
        if kept is None or kept[0] != key:
            kept = self.hands_shown[seat] = (key, hand_of(self.match, seat))
        return own_view(self.match, seat, kept[1])

    def seat_of(self, player_id: str | None) -> int | None:
        if player_id is None:
            return None
        for s in self.row.seats:
            if s.kind == "human" and s.player_id == player_id:
                return s.seat
        return None

    def status(self) -> str:
        """``playing`` or ``finished`` (a room is ``waiting``)."""
        return "finished" if self.match.finished else "playing"

    def persons(self) -> tuple[str | None, ...]:
        """Who holds each seat: a person's id, None for a bot."""
        return tuple(s.player_id if s.kind == "human" else None for s in self.row.seats)

    def tourney(self) -> bool:
        """A table of a tourney: it plays on by itself (bots for the absent, a break
        between hands instead of waiting for everyone's Continue)."""
        return self.row.options.get("kind") == "tourney"

    def shared(self) -> bool:
        """A table for friends (practice tables have no clocks, holds or leaving)."""
        return self.row.options.get("kind") != "practice"

    def watchable(self) -> bool:
        """People without a seat may watch (unless the host turned it off)."""
        return self.row.options.get("watch", True) is not False

    def chat_mode(self) -> str:
        """The table's chat now: ``on``, ``reactions`` (the quick reactions only) or
        ``off``, as the host set it; a tourney table's is reactions only (partners may not signal)."""
        mode = self.row.options.get("chat", "on")
        if self.tourney() and mode == "on":
            return "reactions"
        return mode if mode in ("on", "reactions", "off") else "on"

    def watchers(self) -> int:
        """People connected to the table without a seat."""
        seated = {s.player_id for s in self.row.seats if s.kind == "human"}
        return sum(1 for person, n in self.connections.items() if n > 0 and person not in seated)

    def connected(self, seat: int) -> bool:
        s = self.row.seats[seat]
        return s.kind == "human" and self.connections.get(s.player_id or "", 0) > 0

    def hold_over_for(self, seat: int) -> bool:
        """The seat's person is gone: left for good, or away past the hold."""
        hold = self.holds.get(seat)
        return self.row.seats[seat].kind != "human" or (hold is not None and hold[2])

    def controlled(self, seat: int) -> bool:
        """A bot plays this seat now: a bot's seat, a person's on autopilot or away past the hold."""
        return self.hold_over_for(seat) or self.seat_clocks.get(seat, SeatClock()).autopilot

    def everyone_ready(self) -> bool:
        """Between hands: every person is ready, or a bot plays their seat."""
        return all(s.seat in self.ready or self.controlled(s.seat) for s in self.row.seats if s.kind == "human")

    def offer(self, seat: int, contribution: str | None) -> None:
        """Keep the contribution ``seat``'s person sent for the next deal (their first;
        None, an empty or a malformed one adds nothing)."""
        key = (self.match_number, self.match.hand_number)
        if self.offers_for != key:
            self.offers, self.offers_for = {}, key
        if contribution and self.fair is not None:
            self.offers.setdefault(seat, contribution)

    def shares_deals(self) -> bool:
        """Whether other tables play this table's very hands: a circle's week of duplicate
        boards (options ``boards``, ``spades.circles.boards``) or a round of a duplicate
        tourney (options ``duplicate``, ``spades.tourney.duplicate``)."""
        return bool(self.row.options.get("boards") or self.row.options.get("duplicate"))

    def contributions(self) -> tuple[str, ...]:
        """The contributions for the next deal, in seat order; none at a table that shares
        its deals with others (``shares_deals``): its hands were fixed before it began and
        are dealt the same at every table."""
        if self.offers_for != (self.match_number, self.match.hand_number) or self.shares_deals():
            return ()
        return tuple(self.offers[s] for s in sorted(self.offers))

    def ready_now(self) -> set[int]:
        """The seats whose person pressed Continue after this very hand."""
        if self.match.phase == HAND_OVER and self.ready_for == (self.match_number, self.match.hand_number):
            return set(self.ready)
        return set()


def late_seat(state: TableState) -> int | None:
    """The seat a person joining after the start takes: with partners, a bot's seat on
    another side than the host's (the nearest to the host's left first), else on the host's
    side; in cutthroat (every player a side alone) any bot's seat, from the host's left.
    None at a practice table, once the match is over, or when the table already has the
    people it was created for (or no bot seat is left). At a table of boards a seat that
    someone left comes first: the joiner plays on for that person's team."""
    if not state.shared() or state.match.finished:
        return None
    seats = state.row.seats
    shape = state.match.rules.shape
    if sum(s.kind == "human" for s in seats) >= int(state.row.options.get("humans", shape.players)):
        return None
    host = state.seat_of(state.row.host)
    host = 0 if host is None else host
    order = join_order(shape, host)
    if state.row.options.get("boards"):
        order = sorted(state.left) + [seat for seat in order if seat not in state.left]
    for seat in order:
        if seats[seat].kind == "bot":
            return seat
    return None


def join_order(shape: Shape, host: int) -> list[int]:
    """The seats other than ``host``'s in the order late joiners take them: from the
    host's left round the table, the host's own side (a partner) last.

    >>> join_order(Rules().shape, 0), join_order(Rules(players=3, partners=False).shape, 1)
    ([1, 3, 2], [2, 0])
    """
    around, seat = [], shape.left[host]
    while seat != host:
        around.append(seat)
        seat = shape.left[seat]
    mine = shape.side_of[host]
    return [s for s in around if shape.side_of[s] != mine] + [s for s in around if shape.side_of[s] == mine]


def bot_seed(seed: str, match_number: int, version: int, seat: int) -> int:
    """A bot's seed for one decision: reproducible from the record, different each move."""
    return zlib.crc32(f"{seed}/{match_number}/{version}/{seat}".encode())


def break_after(state: TableState, settings: Settings) -> float | None:
    """Seconds after a hand ends that the next one is dealt whoever is still reading: a
    tourney table's break, a timed turn-based table's time for a move; None: the table
    waits for everyone's Continue."""
    if state.tourney():
        return TOURNEY_BREAK_S
    rules = state.match.rules
    if clocks.is_turn_based(rules) and timed(state, settings):
        return settings.clock_seconds or clocks.turn_seconds(rules, PLAYING)
    return None


def waiting_on(state: TableState, now: float, settings: Settings) -> tuple[Waiting, ...]:
    """Whom a turn-based table waits on now: the person to move, or between hands each
    person who has not pressed Continue (a seat a bot plays for its person waits on
    nobody); nothing at any other table. Each wait says whether its person had no page
    of the table open as it began (a notice is due)."""
    match = state.match
    if not clocks.is_turn_based(match.rules) or match.finished:
        return ()
    seats = state.row.seats

    def wait(seat: int, turn: str, since: float, deadline: float | None) -> Waiting:
        return Waiting(seats[seat].player_id or "", seat, turn, since, deadline, not state.connected(seat))

    people = [s.seat for s in seats if s.kind == "human" and not state.controlled(s.seat)]
    if match.phase in (BIDDING, PLAYING) and match.to_act in people:
        seat = match.to_act
        clock = state.clock if state.clock is not None and state.clock[:2] == (seat, match.version) else None
        return (wait(seat, f"{state.match_number}/{match.version}", now, clock[2] if clock else None),)
    if match.phase == HAND_OVER:
        pause = break_after(state, settings)
        since = state.hand_over_at if state.hand_over_at is not None else now
        ready = state.ready_now()
        return tuple(wait(s, f"{state.match_number}/hand-{match.hand_number}", since,
                          since + pause if pause is not None else None) for s in people if s not in ready)
    return ()


def timed(state: TableState, settings: Settings) -> bool:
    """A person's turn runs on a clock here (never at a table its friends chose to play
    untimed, whatever clock the tests set)."""
    rules = state.match.rules
    if rules.tempo == UNTIMED:
        return False
    return state.shared() and (settings.clock_seconds is not None or clocks.turn_seconds(rules, PLAYING) is not None)


def next_clock(state: TableState, now: float, settings: Settings) -> tuple[int, int, float] | None:
    """The clock the table should have now: the running one when it still applies, a
    fresh one for a person's new turn, None when nobody's clock runs."""
    match = state.match
    seat = match.to_act
    if not timed(state, settings) or seat is None or match.phase not in (BIDDING, PLAYING) or state.controlled(seat):
        return None
    if state.clock is not None and state.clock[:2] == (seat, match.version):
        return state.clock
    if settings.clock_seconds is not None:
        return seat, match.version, now + settings.clock_seconds
    deadline = clocks.deadline(match.rules, match.phase, state.seat_clocks.get(seat, SeatClock()), now)
    return None if deadline is None else (seat, match.version, deadline)


def presence(state: TableState) -> tuple[str, ...]:
    out = []
    for s in state.row.seats:
        if s.kind != "human":
            out.append("left" if s.seat in state.left else "")
        elif state.controlled(s.seat):
            out.append("bot")
        elif state.connected(s.seat):
            out.append("here")
        elif s.seat in state.holds:
            out.append("away")
        else:
            out.append("")
    return tuple(out)


def around(state: TableState, now: float, settings: Settings) -> Around:
    """The table around the seats' views now: the same for every seat."""
    seats = state.row.seats
    match = state.match
    ready = state.ready_now()
    if match.phase == HAND_OVER:  # a seat a bot plays for its person never keeps the others waiting
        ready |= {s.seat for s in seats if s.kind == "human" and state.controlled(s.seat)}
    host = state.seat_of(state.row.host) if state.row.host else None
    clock = None
    if state.clock is not None and state.clock[1] == match.version:
        who, _, deadline = state.clock
        seconds = settings.clock_seconds or clocks.turn_seconds(
            match.rules, match.phase, state.seat_clocks.get(who, SeatClock()).timed_out) or 0
        clock = (who, deadline, int(round(seconds)))
    deal_commitment, next_commitment = commitments(state)
    options = state.row.options
    return Around(
        code=state.code, match_number=state.match_number, level=options.get("level", DEFAULT_LEVEL),
        play_speed=match.rules.play_speed, tempo=match.rules.tempo, event=state.event, seq=state.seq, now=now,
        names=tuple(s.name for s in seats), kinds=tuple(s.kind for s in seats), emojis=tuple(s.emoji for s in seats),
        host_seat=host, ready=tuple(sorted(ready)), presence=presence(state), clock=clock, shared=state.shared(),
        watchers=state.watchers(), watchable=state.watchable(), watch_fixed=state.shares_deals(),
        tourney=options.get("tourney"),
        deal_commitment=deal_commitment, next_commitment=next_commitment, chat=state.chat_mode(),
        chat_filter=bool(options.get("filter")))


def _seat_part(state: TableState, table: Around, shared: MatchView, seat: int | None) -> Snapshot:
    """``seat``'s snapshot, from the parts every seat shares: its own view and what is its own at the table."""
    own = SeatView(shared, state.own_for(seat))
    if seat is None:
        return Snapshot(table, own, offers=offers(state, None))
    return Snapshot(table, own, autopilot=state.seat_clocks.get(seat, SeatClock()).autopilot,
                    notice=state.notices.get(seat), offers=offers(state, seat))


def snapshot(state: TableState, seat: int | None, now: float, settings: Settings) -> Snapshot:
    """What ``seat`` (None: a spectator) sees of the table now."""
    return _seat_part(state, around(state, now, settings), state.match_view(), seat)


def snapshots(state: TableState, now: float, settings: Settings) -> dict[int | None, Snapshot]:
    """Every seat's snapshot and a spectator's (None), as ``snapshot`` makes each: the table
    around the views and the match as all see it are made once, and each seat adds its own
    (its cards, legal actions, autopilot, notice, what it is offered)."""
    table, shared = around(state, now, settings), state.match_view()
    out: dict[int | None, Snapshot] = {None: _seat_part(state, table, shared, None)}
    for seat in state.match.rules.shape.seats:
        out[seat] = _seat_part(state, table, shared, seat)
    return out


CLAIM_TRICKS = 5  # a claim is looked for only with this many tricks left, or fewer


def claims_offered(rules: Rules) -> bool:
    """Whether a table with these rules offers claims: only the standard table (four
    seats, two teams, 52 cards, spades led once broken). ``spades.bots.solver.sweeps``,
    which proves a claim, plays out the standard table's tricks (four cards, seat + 1 & 3,
    the standard trumps and the broken-spades lead), so at any other shape it could say
    "certain" of a hand that is not: there the cards are played to the end."""
    return rules.shape.standard and rules.spades_lead == "broken"


def claimable(state: TableState, seat: int | None) -> bool:
    """Whether ``seat``'s person may claim the rest now: the table offers claims
    (``claims_offered``), it is their turn to play, a person plays the seat, at most
    ``CLAIM_TRICKS`` tricks are left, their team has no nil bidder (whose own tricks the
    score would tell apart), and their team takes every remaining trick whatever anyone
    plays (``spades.bots.solver.sweeps``, every hand known). Worked out once per version
    of the table."""
    match = state.match
    if seat is None or match.phase != PLAYING or match.to_act != seat or not claims_offered(match.rules):
        return False
    shape = match.rules.shape
    if len(match.tricks) < shape.tricks - CLAIM_TRICKS:
        return False
    if state.row.seats[seat].kind != "human" or state.controlled(seat):
        return False
    side = shape.side_of[seat]
    if match.rules.bidding and any(match.bids[s] == 0 for s in shape.sides[side]):
        return False
    number, version, certain = state.claim_checked
    if (number, version) != (state.match_number, match.version):
        pos = Position(tuple(match.held), tuple(match.trick), match.trick_leader,  # type: ignore[arg-type]
                       tuple(match.taken), match.broken)  # type: ignore[arg-type]
        certain = sweeps(pos, side)
        state.claim_checked = (state.match_number, match.version, certain)
    return certain


def timeout_card(view: SeatView) -> str:
    """The card the tourney clock plays for a seat whose time ran out (RULES.md: the lowest
    of the led suit; if void, the lowest non-spade, the lowest spade when only spades are
    left; when leading, the lowest non-spade). A standard table's is
    ``spades.clocks.tourney_timeout_card``; at any other shape (a no-bidding house table)
    suits and strength are as play sees them there (jokers and the jjdd 2D are spades,
    the trumps' own order), picked among the seat's legal cards: those are the led suit's
    when it can follow, and hold no spade lead that is not allowed."""
    rules, trick = view.match.rules, view.match.trick
    if not rules.house:
        cards = trick.cards if trick else ()
        return clocks.tourney_timeout_card(list(view.own.hand or ()), cards[0] if cards else None)
    shape = rules.shape
    legal = [Card.parse(c) for c in view.own.legal]
    plain = [c for c in legal if not shape.trump_mask >> c & 1]
    return str(min(plain or legal, key=lambda c: (shape.power[c], shape.suit_of[c])))


def commitments(state: TableState) -> tuple[str, str]:
    """This hand's deal commitment, and between hands the next one's ("" where none)."""
    fair, match = state.fair, state.match
    if fair is None:
        return "", ""
    upcoming = fair.commitment(match.hand_number + 1) if match.phase == HAND_OVER else ""
    return fair.commitment(match.hand_number), upcoming


@dataclass(frozen=True, slots=True)
class BotTurn:
    """A move to think about for ``seat`` at ``version``: a bot's turn, or a person's
    whose clock ran out (``by_clock``). ``tourney``: the tourney clock's card, no thinking."""

    seat: int
    match_number: int
    version: int
    level: str
    view: SeatView  # the bot is given its JSON (BOTS.md)
    seed: int
    delay: float = 0.0  # seconds before the answer is played (the table's play speed)
    by_clock: bool = False
    tourney: bool = False
    urgent: bool = False  # a person is at the table, waiting for this move (thought about first)

    @property
    def key(self) -> tuple[int, int, int, bool]:
        """Which turn this is, and whether for a clock that ran out or for a bot: a clock's
        move that a bot's replaced (the seat's hold ran out meanwhile) is not delivered."""
        return self.match_number, self.version, self.seat, self.by_clock


@dataclass(frozen=True, slots=True)
class Plan:
    """The timers a table wants now: a bot's turn, the clock of the person to act (and
    what to play for them if it runs out), and the holds still running."""

    bot: BotTurn | None = None
    clock: float | None = None  # the deadline of ``clock_turn``
    clock_turn: BotTurn | None = None
    holds: tuple[tuple[int, float], ...] = ()  # (seat, until) of holds that have not run out
    deal_at: float | None = None  # a tourney table's break between hands ends then
    deal_hand: tuple[int, int] = (0, 0)  # the (match, hand) that break follows

    @property
    def empty(self) -> bool:
        return self.bot is None and self.clock is None and not self.holds and self.deal_at is None


def plan(state: TableState, settings: Settings) -> Plan:
    """The timers this table wants, from its state alone."""
    match = state.match
    holds = tuple((seat, until) for seat, (_, until, fired) in sorted(state.holds.items())
                  if not fired and state.row.seats[seat].kind == "human")
    seat = match.to_act
    pause = break_after(state, settings)
    if match.phase == HAND_OVER and pause is not None and state.hand_over_at is not None:
        return Plan(holds=holds, deal_at=state.hand_over_at + pause, deal_hand=(state.match_number, match.hand_number))
    if seat is None or match.phase in (HAND_OVER, MATCH_OVER):
        return Plan(holds=holds)
    if state.controlled(seat):
        if not state.tourney() and not any(s.kind == "human" and not state.hold_over_for(s.seat)
                                           for s in state.row.seats):
            return Plan(holds=holds)  # nobody is at the table any more (all left, or away past the hold): it waits
        # a person's seat is played at the clock's level; the bots' seats at the table's
        level = CLOCK_BOT if state.row.seats[seat].kind == "human" else state.row.options.get("level", DEFAULT_LEVEL)
        turn = BotTurn(seat, state.match_number, match.version, level, state.view_for(seat),
                       bot_seed(state.seed, state.match_number, match.version, seat),
                       # at a turn-based table the bots move at once: nobody sits watching them
                       delay=0.0 if clocks.is_turn_based(match.rules)
                       else settings.play_delays.get(match.rules.play_speed, 0.8),
                       urgent=any(state.connections.get(s.player_id or "", 0) for s in state.row.seats
                                  if s.kind == "human"))
        return Plan(bot=turn, holds=holds)
    if state.clock is not None and state.clock[:2] == (seat, match.version):
        turn = BotTurn(seat, state.match_number, match.version, CLOCK_BOT, state.view_for(seat),
                       bot_seed(state.seed, state.match_number, match.version, seat), by_clock=True,
                       tourney=clocks.is_tourney(match.rules) and match.phase == PLAYING)
        return Plan(clock=state.clock[2], clock_turn=turn, holds=holds)
    return Plan(holds=holds)


def turn_limit(person: str, code: str, tempo: str) -> list[Op]:
    """The op that holds ``person`` within ``MAX_TURN_TABLES`` as they take a place at
    table ``code`` (a new room, a room's member, a seat), when its ``tempo`` is
    turn-based: checked in that change's transaction."""
    return [WithinTurnTables(person, code, MAX_TURN_TABLES, TURN_BASED)] if tempo in TURN_BASED else []
