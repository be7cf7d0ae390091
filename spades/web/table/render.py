"""Rendering what a person sees: a seat's table (for the page, HTMX answers and WebSocket
pushes) and a room waiting for its players.

A ``Snapshot`` (a seat view and the table around it) becomes a ``Picture``
(``spades.web.table.pictures``), one small function per model, in two parts:

- the *public part* (the status line, scores, each seat's plate, the trick, the result
  between hands, the last trick, the score sheet) is the same for every player and
  watcher: it names seats by name and number, never "you", so it is rendered once per
  change (``render_public``). Each page places the seats around the felt from its own
  side and marks its own plate and team with CSS, from a class on the table's root
  (``You.side``: ``from-2 us-0``; ``watching``), so this works without JavaScript;
- the *private part* (the person's turn and messages, their cards and bid box, Continue
  or Rematch, the screen readers' line) is rendered per seat (``render_private``) and
  only ever sent to that seat.

What is shown or left out is decided here, in Python, from the view; the templates only
lay the models out. ``table_context`` hands both parts to the page's template; each
fragment (``templates/table/_name.html``) has one root element with a stable id and
``hx-swap-oob`` for HTMX answers and WebSocket messages, drawn with marks for the values
that change with every move and from keys of what each shows (``spades.web.table.fragments``).
``room_context`` and ``render_room`` do the same for a room (``room/_room.html``). A card's markup is made
once per card (template globals: this is the hot path, rendered for every seat after
every move).

Imports: Flask (templates), ``spades.tables`` (the snapshot types), the bots' hint words,
``spades.replays`` and the web layer's pictures, options, chart and fragments.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import operator
import re
from typing import Any

from flask import current_app
from markupsafe import Markup

from ...bots.reasons import explain
from ...cards import Card
from ...clocks import time_left
from ...replays import bid_words, team_names
from ...rules import card_refusal
from ...rules_config import Rules, Shape
from ...tables import Around, Event, Moved, RoomSnapshot, Snapshot, buttons
from ...views import NOBODY, Bid, MatchView, SeatView
from ..matches.charts import score_chart
from ..rooms.options import rules_line, rules_url
from ..rooms.room import render_room, room_context
from .fragments import NOW, SEQ, STAMP, VERSION, Piece, Rendered, drawn
from .pictures import (
    CardFace,
    Clock,
    Felt,
    Final,
    Hand,
    LastTrick,
    NextHand,
    Page,
    Partner,
    Picture,
    Plate,
    Play,
    Private,
    Public,
    Rematch,
    Result,
    Scores,
    Sheet,
    Slot,
    Status,
    Team,
    Told,
    You,
    card,
    hand_score,
)

# a seat's person, as every plate shows them (``Snapshot.presence``)
PRESENCE = {"here": "here", "away": "away", "bot": "bot playing", "left": "left · bot playing"}
STAMP_MATCH = 100_000  # more than the moves of a 99-hand match
SUGGESTED_BID = 3  # the bid box's number when there is no hint
LONG_CLOCK_S = 3600  # a move this long (a turn-based table) is shown as the time left in words


# -- a seat's picture of the table --------------------------------------------------------
def picture_of(snap: Snapshot, csrf: str, message: str | None = None, hint: object = None) -> Picture:
    """This seat's picture of the table; ``csrf`` goes in its forms (passed in: WebSocket
    pushes are rendered outside any request)."""
    return Picture(public_part(snap), private_part(snap, csrf, message, hint))


# -- whose side ------------------------------------------------------------------------
def _bottom(snap: Snapshot) -> int:
    """The seat at the bottom of this page (seat 0's side for a watcher)."""
    return snap.seat if snap.seat is not None else 0


def _you_or(snap: Snapshot, seat: int) -> str:
    return "You" if seat == snap.seat else snap.around.names[seat]


# -- building the public part ----------------------------------------------------------
def public_part(snap: Snapshot) -> Public:
    """What everyone at the table and every watcher sees (whatever seat ``snap`` is for)."""
    if snap.seat is not None:
        snap = Snapshot(snap.around, SeatView(snap.view.match, NOBODY))
    scores = scores_of(snap)
    return Public(stamp=stamp_of(snap), page=page_of(snap), status=status_of(snap),
                  scores=scores, felt=felt_of(snap), result=result_of(snap, scores.teams),
                  last_trick=last_trick_of(snap), sheet=sheet_of(snap, scores.teams))


def page_of(snap: Snapshot) -> Page:
    """The top bar: the table code, its options in a line, its tourney, the Watch link."""
    a = snap.around
    return _page(a.code, snap.view.match.rules, a.tempo, a.play_speed, a.level, a.tourney, a.watchable, a.solo)


@functools.lru_cache(maxsize=4096)  # worded once per table and options, not at every change
def _page(code: str, rules: Rules, tempo: str, play_speed: str, level: str, tourney: str | None, watchable: bool,
          solo: bool) -> Page:
    """``solo``: one person with bots (a practice table): nobody to send a Watch link to,
    nothing to switch off. A tourney's table is watched from its tourney, whoever sits at it."""
    options = {**rules.to_dict(), "tempo": tempo, "play_speed": play_speed}
    return Page(code=code, rules_line=rules_line(options, level), tourney=tourney, watchable=watchable,
                watch_link=watchable and not solo, bidding=options.get("mode") != "no_bidding",
                rules_url=rules_url(options, level))


def status_of(snap: Snapshot) -> Status:
    """The status line as anyone reads it: whose turn it is, and the last move."""
    m = snap.view.match
    if m.finished:
        turn = _match_result(snap)
    elif m.phase == "hand_over":
        turn = "The hand is over."
    elif m.to_act is not None:
        turn = f"{snap.around.names[m.to_act]} is {'bidding' if m.phase == 'bidding' else 'playing'}…"
    else:
        turn = ""
    return Status(turn=turn, last_move=event_text(snap))


def _side_names(snap: Snapshot) -> tuple[str, ...]:
    """Each side's name: "Ann & Bea" for a team, the player's own in cutthroat."""
    return team_names(snap.around.names, snap.view.match.shape.sides)


def _match_result(snap: Snapshot) -> str:
    w = snap.view.match.winner
    return "Draw." if w is None else f"{_side_names(snap)[w]} won."


def scores_of(snap: Snapshot) -> Scores:
    """The score boxes, side 0 first (each page puts its own first): a team's each, or in
    cutthroat one per player, the leader said on theirs."""
    m = snap.view.match
    shape, scores = m.shape, m.scores
    top = max(scores) if len(set(scores)) > 1 else None  # nobody leads while all are level
    teams = tuple(team_of(snap, t, leader=not shape.partners and scores[t] == top) for t in range(shape.side_count))
    return Scores(teams=teams, hand_number=m.hand_number, watchers=snap.around.watchers,
                  cutthroat=not shape.partners)


def team_of(snap: Snapshot, t: int, leader: bool = False) -> Team:
    """Side ``t``'s score box: its members, score, bags and tricks against its contract."""
    m = snap.view.match
    side = m.shape.sides[t]
    taken = sum(m.taken[s] for s in side)
    contract = _contract(m.bids, side)
    progress = f"{taken} / {contract} tricks" if contract is not None and m.phase == "playing" else None
    return Team(t, " & ".join(snap.around.names[s] for s in side), m.scores[t], m.bags[t], progress, leader)


def _contract(bids: tuple[Bid, ...], side: tuple[int, ...]) -> int | None:
    b = [bids[s] for s in side]
    if any(x is None for x in b):
        return None
    return sum(x for x in b if isinstance(x, int))


def felt_of(snap: Snapshot) -> Felt:
    """The felt: each seat's plate and the trick, by seat (each page places them)."""
    clock = clock_of(snap)
    m = snap.view.match
    seats = m.shape.seats
    plates = tuple(plate_of(snap, s, clock) for s in seats)
    cards, winner = _trick_shown(m)
    trick = tuple(Slot(seat=s, card=cards.get(s), won=s == winner) for s in seats)
    return Felt(plates=plates, trick=trick, trick_is_last=winner is not None, now_ms=int(snap.around.now * 1000),
                turn=m.to_act if m.acting else None, clock=clock)


def clock_of(snap: Snapshot) -> Clock | None:
    """The clock of the seat to act, as absolute epoch milliseconds with the server's now:
    the browser counts down to the server's deadline, corrected for its own clock."""
    a = snap.around
    if a.clock is None or snap.view.match.finished:
        return None
    who, deadline, seconds = a.clock
    words = time_left(deadline, a.now) if seconds >= LONG_CLOCK_S else ""
    return Clock(seat=who, deadline_ms=int(deadline * 1000), seconds=seconds,
                 left=max(0, math.ceil(deadline - a.now)), words=words, short=short_time(words))


def short_time(words: str) -> str:
    """The time left in short, for a narrow screen: ``2 days 3 hours`` -> ``2d 3h``.

    >>> short_time("2 days 3 hours"), short_time("23 hours"), short_time("1 minute"), short_time("")
    ('2d 3h', '23h', '1m', '')
    """
    return re.sub(r"(\d+) ([dhm])[a-z]*", r"\1\2", words)


def plate_of(snap: Snapshot, s: int, clock: Clock | None) -> Plate:
    """Seat ``s``'s plate with its chips, the same whoever is to act (the ``turn`` fragment
    lights the plate to act; a turn-based table's time left is said on it, in words)."""
    m, a = snap.view.match, snap.around
    bid = m.bids[s]
    return Plate(
        seat=s, name=a.names[s], team=m.shape.side_of[s], dealer=m.dealer == s,
        # "host" is only worth saying at a table of several people that someone set up (a
        # tourney's tables are made by the tourney: nobody hosts them)
        host=a.host_seat == s and a.kinds.count("human") > 1 and not a.tourney, emoji=a.emojis[s],
        presence=a.presence[s], presence_text=PRESENCE.get(a.presence[s], ""), has_bid=bid is not None,
        bid=bid_words(bid, m.blind[s]) if bid is not None else "–", taken=m.taken[s],
        clock=clock if clock is not None and clock.seat == s and clock.words else None)


def _trick_shown(m: MatchView) -> tuple[dict[int, CardFace], int | None]:
    """The trick in the middle, by seat: the one in progress, or the last one taken (so
    its last card is seen) with its winner."""
    if m.trick and m.trick.cards:
        t = m.trick
    elif m.tricks and m.phase in ("playing", "hand_over", "match_over"):
        t = m.tricks[-1]
    else:
        return {}, None
    players = m.shape.players
    return {t.seat_of(i, players): card(text) for i, text in enumerate(t.cards)}, t.winner


def last_trick_of(snap: Snapshot) -> LastTrick | None:
    """The last trick taken in this hand: each seat's card in play order, and its winner."""
    m = snap.view.match
    if not m.tricks:
        return None
    t = m.tricks[-1]
    players = m.shape.players
    plays = []
    for i, text in enumerate(t.cards):
        seat = t.seat_of(i, players)
        plays.append(Play(name=_you_or(snap, seat), card=card(text), won=seat == t.winner))
    assert t.winner is not None  # a trick taken has its winner
    winner = _you_or(snap, t.winner)
    return LastTrick(title=f"Trick {len(m.tricks)}: {winner} {'win' if winner == 'You' else 'wins'}",
                     plays=tuple(plays))


def sheet_of(snap: Snapshot, teams: tuple[Team, ...]) -> Sheet:
    """The score sheet, headed by the score boxes' sides (a column each: a team's, or a
    player's in cutthroat)."""
    m = snap.view.match
    return Sheet(columns=tuple((t.team, t.label) for t in teams), results=m.results, names=snap.around.names,
                 commitment=snap.around.deal_commitment, cutthroat=not m.shape.partners)


def result_of(snap: Snapshot, teams: tuple[Team, ...]) -> Result | None:
    """The hand just finished (and the match, when it is over), between hands."""
    m = snap.view.match
    if not m.between:
        return None
    final = final_of(snap, teams) if m.finished else None
    return Result(hand=hand_score(m.results[-1], snap.around.names, 0), final=final)


CHART_NAME = 6  # letters of a player's name beside their line of the chart (cutthroat)


def final_of(snap: Snapshot, teams: tuple[Team, ...]) -> Final:
    """Who won the match, the final scores and the chart of the score by hand (two
    teams' lines, "Us" and "Them" from side 0; in cutthroat a line per player, by name)."""
    m = snap.view.match
    w = m.winner
    names = _side_names(snap)
    headline = "A draw" if w is None else f"{names[w]} won the match"
    line = " · ".join(f"{t.label} {t.score}" for t in teams)
    labels = ("Us", "Them") if m.shape.partners else tuple(n[:CHART_NAME] for n in names)
    chart = Markup(score_chart(m.results, 0, labels))
    return Final(headline=headline, score_line=line, chart=chart)


# -- the commentary --------------------------------------------------------------------
def event_text(snap: Snapshot) -> str:
    """The last move in words, for the status line and screen readers: the event draws its
    own line (``spades.tables.values.Event.news``; public information only)."""
    return snap.around.event.news(snap)


# -- building the private part ---------------------------------------------------------
def private_part(snap: Snapshot, csrf: str, message: str | None = None, hint: object = None) -> Private:
    """What this person alone gets."""
    return Private(you=you_of(snap, csrf), told=told_of(snap, message), hand=hand_of(snap, hint),
                   rematch=rematch_of(snap), next_hand=next_hand_of(snap))


def you_of(snap: Snapshot, csrf: str) -> You:
    """Who is looking, from which side, and what their forms carry."""
    m, a = snap.view.match, snap.around
    me = snap.seat
    host = me is not None and a.host_seat == me
    return You(seat=me, csrf=csrf, version=m.version, watching=me is None, host=host, my_turn=snap.view.my_turn,
               can_leave=a.shared and me is not None and not m.finished,
               watch_switch=host and not a.solo and not a.watch_fixed, side=_side_classes(m.shape, me),
               between=m.between, finished=m.finished)


def _side_classes(shape: Shape, me: int | None) -> str:
    """The table root's classes for a page (``You.side``): where it sits (``from-N``; a
    watcher sees seat 0's side), its team (``us-N``) or, in cutthroat, its own score box
    (``cut-N``), and a table of three seats (``seats-3``: the CSS places its plates)."""
    if me is None:
        classes = ["watching"]
    elif shape.partners:
        classes = [f"from-{me}", f"us-{shape.side_of[me]}"]
    else:
        classes = [f"from-{me}", f"cut-{me}"]
    if len(shape.seats) != 4:
        classes.append(f"seats-{len(shape.seats)}")
    return " ".join(classes)


def _notice(snap: Snapshot) -> Event | None:
    """The move the table made for this person that they are still told of: none while a
    bot plays for them (the Take over box says so, once), and a bid's or a look's only
    while the bidding lasts."""
    e = snap.notice
    if e is None or snap.autopilot:
        return None
    if isinstance(e, Moved) and e.bidding_notice and snap.view.match.phase != "bidding":
        return None
    return e


def told_of(snap: Snapshot, message: str | None) -> Told:
    """What this person is told over the public status line, and to screen readers (the
    last move as they would say it: "You bid 3.")."""
    a = snap.around
    me = snap.seat
    notice = _notice(snap)
    # told to the partner as it happens (the commentary), and kept in their status line
    partner = snap.view.match.shape.partner(me) if me is not None else None
    return Told(turn=_your_turn(snap), message=message,
                notice=notice.news(snap) if notice is not None else None,
                partner_left=a.names[partner] if partner is not None and a.presence[partner] == "left" else None,
                autopilot=snap.autopilot, announce=_announce(snap, notice))


def _announce(snap: Snapshot, notice: Event | None) -> str:
    """The screen readers' line (``Told.announce``): the last move as this person would
    say it, unless it is the very move the notice tells them of (``notice``: ``_notice``),
    and their turn."""
    last_move = "" if notice is not None and notice == snap.around.event else event_text(snap)
    prompt = snap.view.my_turn and snap.view.match.acting
    return last_move + (" Your turn." if prompt else "")


def _your_turn(snap: Snapshot) -> str | None:
    m = snap.view.match
    if not snap.view.my_turn or not m.acting:
        return None
    clock = clock_of(snap)
    left = f" You have {clock.words} for this move." if clock is not None and clock.words else ""
    if m.phase == "playing":
        return "Your turn: play a card." + left
    return ("Your turn: bid blind nil or look at your cards." if snap.view.own.hand is None
            else "Your turn to bid.") + left


def hand_of(snap: Snapshot, hint: object) -> Hand:
    """This person's cards (each playable or not), the bid box with the hint, the blind nil choice."""
    m, own = snap.view.match, snap.view.own
    shape = m.shape
    legal = {str(a) for a in own.legal}
    my_turn = snap.view.my_turn
    trick = m.trick.cards if m.trick else ()
    bidding = my_turn and m.phase == "bidding" and own.hand is not None
    numbers = tuple(sorted(a for a in own.legal if type(a) is int)) if bidding else ()
    return Hand(
        cards=tuple(card(t, t in legal) for t in (own.hand or ())),
        choose_blind=own.can_look, blind_now=my_turn and "blind_nil" in legal,
        bidding=bidding, playing=my_turn and m.phase == "playing", strict=not m.rules.bidding,
        refusal=card_refusal(shape.suit_of[Card.parse(trick[0])] if trick else None),
        bid_value=_bid_value(hint, numbers),
        hint=_hint_words(own.hand, hint, shape), hinted=_hinted(hint), offered=buttons(snap.offers),
        legal_suits=_legal_suits(shape, legal), trumps=_odd_trumps(shape, own.hand), bids=numbers,
        nil_allowed=not bidding or "nil" in legal)


def _bid_value(hint: object, numbers: tuple[int, ...]) -> int | float:
    """The bid box's number: the hint's when it may be bid, else the usual bid brought
    within the numbers this seat may bid (the only one, under whiz or mirror).

    >>> _bid_value(None, tuple(range(1, 14))), _bid_value(None, (5,)), _bid_value(6, (4, 5, 6)), _bid_value(2, (4, 5))
    (3, 5, 6, 4)
    """
    if isinstance(hint, int | float) and hint > 0 and (not numbers or hint in numbers):
        return hint
    return min(max(SUGGESTED_BID, numbers[0]), numbers[-1]) if numbers else SUGGESTED_BID


def _legal_suits(shape: Shape, legal: set[str]) -> str:
    """The suits this seat may play now, as play sees them (a joker, and the jjdd 2D, are
    spades): a legal play is a whole suit."""
    if shape.standard:
        return "".join(suit for suit in "SHDC" if any(t[1] == suit for t in legal if len(t) == 2))
    suits = {shape.suit_of[Card.parse(t)] for t in legal if len(t) == 2 and not t.isdigit()}
    return "".join(suit for i, suit in enumerate("SHDC") if i in suits)


def _odd_trumps(shape: Shape, cards: tuple[str, ...] | None) -> frozenset[str]:
    """The cards of this hand that are trumps though not printed as spades (the jokers, the
    jjdd 2D): the page plays them with the spades."""
    if shape.standard or not cards:
        return frozenset()
    return frozenset(t for t in cards if shape.trump_mask >> Card.parse(t) & 1 and t[1] != "S")


def _hinted(hint: object) -> str:
    """Where the bid box puts the hint's bid: its number in the box ("bid"), or on Nil."""
    if isinstance(hint, int | float) and hint > 0:
        return "bid"
    return "nil" if hint == "nil" else ""


ACE_OF_SPADES = Card.parse("AS")


def _hint_words(cards: tuple[str, ...] | None, hint: object, shape: Shape) -> str | None:
    """The Hard bot's bid for these cards, and where its tricks come from (the jokers and
    the jjdd 2D named among the trumps above the ace)."""
    if hint is None:
        return None
    above = tuple(str(c) for c in shape.trumps[:shape.trumps.index(ACE_OF_SPADES)])
    words = explain(list(cards), hint, above) if cards and isinstance(hint, int | str) else None
    return words or str(hint)


def rematch_of(snap: Snapshot) -> Rematch:
    """After the match: the Rematch form (with the host's choice of partner), or the wait for the host."""
    finished, host_seat = snap.view.match.finished, snap.around.host_seat
    me = snap.seat
    host = me is not None and host_seat == me
    form = finished and (host or host_seat is None)
    waiting = None
    if finished and me is not None and not form and host_seat is not None:
        waiting = f"Waiting for {snap.around.names[host_seat]} (the host) to start a rematch."
    return Rematch(form=form, partners=_partners(snap) if finished and host else (), waiting=waiting)


def next_hand_of(snap: Snapshot) -> NextHand:
    """Between hands: Continue, Deal now for the host, and who is still reading."""
    m, a = snap.view.match, snap.around
    me = snap.seat
    # between hands: who has not pressed Continue yet (people only; bots are always ready)
    reading = [s for s in m.shape.seats if a.kinds[s] == "human" and s not in a.ready] \
        if m.phase == "hand_over" else []
    return NextHand(
        form=me is not None and not m.finished,
        can_continue=not (me is not None and m.phase == "hand_over" and me not in reading),
        deal_now=me is not None and a.host_seat == me and any(s != me for s in reading),
        reading=", ".join(_you_or(snap, s) for s in reading) if a.kinds.count("human") > 1 else "",
        commitment=a.next_commitment)


def _partners(snap: Snapshot) -> tuple[Partner, ...]:
    """After the match: the host chooses who sits across for the rematch (the two swap
    seats); a cutthroat table has no partner to choose."""
    shape = snap.view.match.shape
    if not shape.partners:  # partners sit only at four seats (``Rules`` checks)
        return ()
    me, players = _bottom(snap), shape.players
    across = players // 2
    return tuple(Partner(offset=k, name=snap.around.names[(me + k) % players], current=k == across)
                 for k in (across, *(k for k in range(1, players) if k != across)))


# -- rendering --------------------------------------------------------------------------
def table_context(snap: Snapshot, csrf: str, message: str | None = None, hint: object = None) -> dict[str, Any]:
    """Everything the table page shows this person: its picture's two parts, and each of
    their models by name; ``csrf`` goes in its forms."""
    both = picture_of(snap, csrf, message, hint)
    public, private = both.public, both.private
    return {"public": public, "private": private, "now_ms": public.felt.now_ms, "version": private.you.version,
            "seq": snap.around.seq, **_fields(public), **_fields(private)}


def _fields(model: Public | Private) -> dict[str, Any]:
    """A model's values by name (the page's template reads each part's models by name)."""
    return {f.name: getattr(model, f.name) for f in dataclasses.fields(model)}


def _values(snap: Snapshot) -> tuple[tuple[str, str], ...]:
    a = snap.around
    return ((STAMP, str(stamp_of(snap))), (VERSION, str(snap.view.match.version)),
            (NOW, str(int(a.now * 1000))), (SEQ, str(a.seq)))


def render_public(snap: Snapshot, before: Rendered | None = None) -> Rendered:
    """The public fragments of the table (the same whatever seat ``snap`` is for), once
    for everyone: out of band, marked; those that did not change since ``before`` (the
    table's previous change) are taken from it."""
    public = public_part(snap)
    felt, page = public.felt, public.page
    pieces: dict[str, Piece] = {
        "turn": ("table/_turn.html", {"felt": felt}, (felt.turn, felt.clock)),
        "status": ("table/_status.html", {"status": public.status}, public.status),
        "scores": ("table/_scores.html", {"scores": public.scores, "page": page}, (public.scores, page.bidding)),
    }
    for p in felt.plates:
        pieces[f"plate-{p.seat}"] = ("table/_plate.html", {"p": p, "page": page}, (p, page.bidding))
    pieces.update({
        "trick": ("table/_trick.html", {"felt": felt}, (felt.trick, felt.trick_is_last)),
        "result": ("table/_result.html", {"result": public.result, "page": page},
                   (public.result, page.code, page.bidding)),
        "lasttrick": ("table/_lasttrick.html", {"last_trick": public.last_trick}, public.last_trick),
        "sheet": ("table/_sheet.html", {"sheet": public.sheet, "page": page}, (public.sheet, page.bidding)),
    })
    return drawn(pieces, before, _values(snap))


def render_private(snap: Snapshot, csrf: str, message: str | None = None, hint: object = None,
                   before: Rendered | None = None) -> Rendered:
    """This seat's own fragments (a watcher has none but the answer to their post): out
    of band, marked; those that did not change since ``before`` are taken from it, and
    when nothing they show changed (``private_key``, compared before anything is worked
    out: a card changes its player's part and the next player's, not the others') only
    the screen readers' line is told again."""
    if snap.seat is None and message is None:
        return Rendered({}, ())
    own = private_key(snap, csrf) if message is None and hint is None else None
    if own is not None and before is not None and before.keys.get(OWN) == own:
        words = announce_line(snap)
        fragments = before.fragments if before.keys.get(ANNOUNCE) == words \
            else {**before.fragments, ANNOUNCE: _announced(words)}
        return Rendered(fragments, _values(snap), {**before.keys, ANNOUNCE: words})
    private = private_part(snap, csrf, message, hint)
    you, told, hand = dataclasses.replace(private.you, version=VERSION), private.told, private.hand
    page = page_of(snap)
    # each key is what its template shows: the screen readers' line changes with every
    # move, the cards' playability is the page's to mark (from #told), so neither redraws
    # the other fragments
    pieces: dict[str, Piece] = {
        "told": ("table/_told.html", {"you": you, "told": told, "hand": hand, "page": page},
                 (you.side, you.my_turn, you.csrf, told.turn, told.message, told.notice,
                  told.partner_left, told.autopilot,
                  hand.playing and (hand.legal_suits, hand.refusal, hand.strict), page.code)),
        "hand": ("table/_hand.html", {"you": you, "hand": hand, "page": page, "marked": False},
                 (tuple(c.text for c in hand.cards), hand.choose_blind, hand.blind_now, hand.bidding, hand.bid_value,
                  hand.bids, hand.nil_allowed, hand.hint, hand.hinted, hand.offered, you.csrf, page.code)),
        "next": ("table/_next.html", {"you": you, "rematch": private.rematch, "next_hand": private.next_hand,
                                      "page": page},
                 (you.finished, you.between, you.csrf, private.rematch, private.next_hand, page.code)),
    }
    rendered = drawn(pieces, before, _values(snap))
    words = told.announce
    rendered.fragments[ANNOUNCE] = before.fragments[ANNOUNCE] \
        if before is not None and before.keys.get(ANNOUNCE) == words else _announced(words)
    rendered.keys.update({ANNOUNCE: words, OWN: own})
    return rendered


OWN = "own"  # in a seat's own ``Rendered.keys``: what it was drawn from (``private_key``); None: not to reuse
ANNOUNCE = "announce"  # the screen readers' line among a seat's own fragments (its key: the words)
# the match's values that others' moves change and that a seat's own fragments show only
# as ``private_key`` says (whose turn, the trick's first card, whether a hand was scored
# yet) or not at all
_OTHERS_MATCH = frozenset(("bids", "blind", "tricks", "trick", "taken", "spades_broken", "to_act", "version", "scores",
                           "bags", "results"))
# the values of the table around a seat's own fragments do not show, show as marks
# (``fragments``: the stamp, the version, the change number), or show only as
# ``private_key`` says (the clock, the server's now, in "Your turn" at a turn-based table)
_NOT_OWN = frozenset(("event", "clock", "now", "seq", "watchers", "emojis", "match_number", "deal_commitment",
                      "chat", "chat_filter"))
_own_match = operator.attrgetter(*(f.name for f in dataclasses.fields(MatchView) if f.name not in _OTHERS_MATCH))
_own_around = operator.attrgetter(*(f.name for f in dataclasses.fields(Around) if f.name not in _NOT_OWN))


def private_key(snap: Snapshot, csrf: str) -> tuple[Any, ...]:
    """What a seat's own fragments, all but the screen readers' line, are drawn from
    (``render_private`` without a message or a hint): two snapshots of a seat with equal
    keys draw them the same. Made of the snapshot's own values, cheaply: the seat's own
    view and what is its own at the table, and every value of the match and of the table
    around but those known not to be shown (``_OTHERS_MATCH``, ``_NOT_OWN``), so a value
    added to either is in the key until it is known not to be shown; of those, whether it
    is this seat's turn, and then what it is told ("Your turn", the time left) and the
    trick's first card (the suits it may play), and whether a hand was scored yet."""
    m = snap.view.match
    mine = snap.view.my_turn
    return (csrf, snap.view.own, snap.autopilot, snap.notice, snap.offers, _own_around(snap.around), _own_match(m),
            mine, bool(m.results), mine and (_your_turn(snap), m.trick.cards[0] if m.trick and m.trick.cards else None))


def _announced(words: str) -> str:
    """The ``announce`` fragment telling ``words`` (marked): drawn once per app and words,
    for every seat told them (the three who did not move are told the same), a few
    thousand kept."""
    memo: dict[str, str] = current_app.extensions.setdefault("spades.announced", {})
    html = memo.get(words)
    if html is None:
        if len(memo) >= ANNOUNCED_KEPT:
            memo.clear()
        html = memo[words] = drawn({ANNOUNCE: ("table/_announce.html", {"told": {"announce": words}}, words)},
                                   None, ()).fragments[ANNOUNCE]
    return html


ANNOUNCED_KEPT = 4096  # screen readers' lines kept drawn (``_announced``)


def stamp_of(snap: Snapshot) -> int:
    """The stamp of the table's picture at ``snap``: it grows with every change, across matches."""
    return snap.around.match_number * STAMP_MATCH + snap.view.match.version


def announce_line(snap: Snapshot) -> str:
    """The screen readers' line at ``snap`` for its seat (what its ``announce`` fragment tells)."""
    return _announce(snap, _notice(snap))


def render_announcement(lines: list[tuple[int, str]]) -> str:
    """The screen readers' line telling several moves, oldest first, each with its stamp
    (``lines``: stamp and words): a socket that skipped changes tells each one, and the page
    tells only the moves it has not told yet."""
    return drawn({"announce": ("table/_announce.html", {"lines": lines}, None)}, None, ()).fill()


def render_fragments(snap: Snapshot, csrf: str, message: str | None = None, hint: object = None) -> str:
    """Every fragment of this seat's table, out of band (an HTMX answer; a socket's full picture)."""
    return render_public(snap).fill() + render_private(snap, csrf, message, hint).fill()


def render_picture(picture: Snapshot | RoomSnapshot, csrf: str) -> str:
    """One picture of a change as the fragments a socket gets, out of band: a playing
    table's (all of them), or its room's while it waits."""
    if isinstance(picture, RoomSnapshot):
        return render_room(room_context(picture, csrf))  # the room's own (``spades.web.rooms.room``)
    return render_fragments(picture, csrf)
