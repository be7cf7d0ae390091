"""The values a page is drawn from: one small model per fragment, made by ``spades.web.table.render``.

A seat's ``Picture`` of a table has two parts:

- ``Public``: what everyone at the table and every watcher sees: the status line (whose
  turn, the last move), the scores, each seat's plate with its chips, the trick, a
  finished hand's result, the last trick, the score sheet, the top bar. It names seats by
  name and number, never "you": the page places the seats from its own side (``You.side``).
- ``Private``: what this person alone gets: who they are (their seat, their side, the
  CSRF token of their forms), what they are told (your turn, messages, notices), their
  cards with the bid box and the hint, and their buttons after a hand and after the match.

Fragment by fragment (``templates/table/_name.html``): public ``status`` lays out
``Status``, ``scores`` ``Scores``, ``plate`` a ``Plate`` and ``trick`` the ``Felt``'s
trick, ``result`` ``Result``, ``lasttrick`` ``LastTrick``, ``sheet`` ``Sheet``, ``heard``
the last move for a watcher's screen reader; private ``told`` lays out ``Told``, ``hand``
``Hand``, ``next`` ``Rematch`` and ``NextHand``, ``announce`` ``Told``'s line; the page
around them ``Page`` and ``You``. A room waiting for its players is a ``Room``
(``room/_room.html``).

Every value is frozen: what is shown or left out was decided when it was made, in
Python, from the seat's view; the templates only lay it out.

Imports: ``spades.replays`` (a hand's score table) and markupsafe; never Flask.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

from markupsafe import Markup

from ...cards import JOKER_WORDS, card_words
from ...replays import SheetTeam, score_sheet

SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
RANK_SHOWN = {"T": "10"}
JOKER_SYMBOL = "🃏"


# -- the pieces ------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class CardFace:
    """A card's display values: ``QS`` -> Q, ♠, "queen of spades"; ``legal``: playable now.
    A joker's are its notation and 🃏: ``BJ`` -> BJ, 🃏, "big joker" (its ``suit`` is ``J``)."""

    text: str
    rank: str
    suit: str
    symbol: str
    red: bool
    label: str
    legal: bool = False


@functools.cache
def card(text: str, legal: bool = False) -> CardFace:
    """A card's display values (shared: never changed).

    >>> card("TD").label, card("BJ").label, card("LJ").rank
    ('10 of diamonds', 'big joker', 'LJ')
    """
    if text in JOKER_WORDS:
        return CardFace(text=text, rank=text, suit="J", symbol=JOKER_SYMBOL, red=text == "BJ",
                        label=JOKER_WORDS[text], legal=legal)
    rank, suit = text[0], text[1]
    return CardFace(text=text, rank=RANK_SHOWN.get(rank, rank), suit=suit, symbol=SUIT_SYMBOLS[suit],
                    red=suit in "HD", label=card_words(text), legal=legal)


@dataclass(frozen=True, slots=True)
class Clock:
    """The turn clock of the seat to act: the browser counts down to the server's deadline
    (epoch milliseconds), corrected by the server's now (``Felt.now_ms``)."""

    seat: int
    deadline_ms: int
    seconds: int  # in the whole turn
    left: int  # shown until the browser counts
    words: str = ""  # a turn-based table's move: the time left in words ("11 hours"), not counted down
    short: str = ""  # ... and in short, for a narrow screen's plate ("11h")


# -- the public part -------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Page:
    """The page around the fragments: its top bar."""

    code: str
    rules_line: str
    tourney: str | None  # the tourney this table plays a match of
    watchable: bool  # people without a seat may watch
    watch_link: bool  # the top bar offers the link to send watchers (not at one person's table with bots)
    bidding: bool  # the table bids: a no-bidding table (the tourney rules) has no bids, nil or bags to show
    rules_url: str = "/rules"  # the rules page with this table's options


@dataclass(frozen=True, slots=True)
class Status:
    """The status line as anyone reads it."""

    turn: str  # whose turn it is, the hand over, or the match's result
    last_move: str  # the commentary: the last move in words


@dataclass(frozen=True, slots=True)
class Team:
    """A side's score box: a team's, or one player's in cutthroat."""

    team: int  # the side's number (``Shape.sides``)
    label: str  # its members' names ("Ann & Bea"); each player's page says Us or Them beside (CSS)
    score: int
    bags: int
    progress: str | None  # "3 / 7 tricks" while the hand is played
    leader: bool = False  # cutthroat: the highest score alone (or shared at the top), said on the box


@dataclass(frozen=True, slots=True)
class Scores:
    """The score boxes, side 0 first (a player's page puts its own side first), and the hand number."""

    teams: tuple[Team, ...]  # one per side
    hand_number: int
    watchers: int
    cutthroat: bool = False  # every player is a side: one box per player


@dataclass(frozen=True, slots=True)
class Plate:
    """A seat's name plate on the felt, with its chips (the bid and the tricks won)."""

    seat: int
    name: str
    team: int
    dealer: bool
    host: bool
    emoji: str
    presence: str
    presence_text: str
    has_bid: bool
    bid: str  # the bid chip's words ("–" before the bid)
    taken: int
    clock: Clock | None  # a turn-based table's clock of the seat to act (its time left in words)


@dataclass(frozen=True, slots=True)
class Slot:
    """A seat's place in the middle of the felt, with the card it played to the trick."""

    seat: int
    card: CardFace | None
    won: bool


@dataclass(frozen=True, slots=True)
class Felt:
    """The felt: a plate per seat and the trick."""

    plates: tuple[Plate, ...]
    trick: tuple[Slot, ...]
    trick_is_last: bool  # the trick shown was just taken: its last card stays in sight
    now_ms: int  # the server's now, for the clocks
    turn: int | None = None  # the seat to act (its plate is lit, by CSS from the ``turn`` fragment)
    clock: Clock | None = None  # its running clock (counted down on its plate's ring)

    @property
    def ringed(self) -> bool:
        """A clock counts down in seconds (its ring goes round the avatar of the seat to act)."""
        return self.clock is not None and not self.clock.words


@dataclass(frozen=True, slots=True)
class Play:
    """A card of the last trick, with who played it."""

    name: str
    card: CardFace
    won: bool


@dataclass(frozen=True, slots=True)
class LastTrick:
    """The last trick taken in this hand."""

    title: str  # "Trick 4: Bea wins"
    plays: tuple[Play, ...]  # in play order


@dataclass(frozen=True, slots=True)
class HandScore:
    """One finished hand's score table (``spades.replays.score_sheet``'s row), a side's column each."""

    number: int
    teams: tuple[SheetTeam, ...]


def hand_score(r: dict, names: tuple[str, ...], first: int) -> HandScore:
    """One finished hand (``spades.views.result_json``) as a score table, side ``first``
    first and the others in turn after it."""
    row = score_sheet([r], names)[0]
    return HandScore(number=row.hand, teams=row.teams[first:] + row.teams[:first])


@dataclass(frozen=True, slots=True)
class Sheet:
    """The score sheet: every finished hand, drawn only where it is shown."""

    columns: tuple[tuple[int, str], ...]  # (side, heading), side 0 first: a team's, or a player's in cutthroat
    results: Sequence[dict]
    names: tuple[str, ...]
    commitment: str = ""  # this hand's deal commitment (docs/fairness.md); "" for a match from before
    cutthroat: bool = False  # a column per player, each bid (nil too) in its own Bids cell

    def rows(self) -> list[HandScore]:
        """Every finished hand's score table, in order."""
        return [hand_score(r, self.names, 0) for r in self.results]


@dataclass(frozen=True, slots=True)
class Final:
    """The end of the match, over the last hand's score table."""

    headline: str
    score_line: str
    chart: Markup | None  # the score by hand of both teams (none in cutthroat)


@dataclass(frozen=True, slots=True)
class Result:
    """A finished hand (and the match, when it was the last one), shown until the next deal."""

    hand: HandScore
    final: Final | None


@dataclass(frozen=True, slots=True)
class Public:
    """What everyone looking from this side of the table sees."""

    stamp: int  # orders updates on the page: an HTTP answer can arrive after a newer push
    page: Page
    status: Status
    scores: Scores
    felt: Felt
    result: Result | None
    last_trick: LastTrick | None
    sheet: Sheet


# -- the private part ------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class You:
    """Who is looking: their seat and what their forms carry."""

    seat: int | None  # None: watching
    csrf: str
    version: int | str  # the table's version the forms were made at (or its mark, ``fragments.VERSION``)
    watching: bool
    host: bool
    my_turn: bool
    can_leave: bool  # Leave for good, at a table of friends
    watch_switch: bool = False  # the host's switch for watching (not at one person's table with bots)
    # the table root's classes: "from-2 us-0" (seat 2, team 0), or "watching"; at a table of
    # another shape also "seats-3" (its seats) and, in cutthroat, "cut-2" (seat 2's own box)
    side: str = "watching"
    between: bool = False  # a hand is over: its result is shown
    finished: bool = False  # the match is over


@dataclass(frozen=True, slots=True)
class Told:
    """What this person is told: in the status line, and aloud to screen readers."""

    turn: str | None  # "Your turn: …" (their status line's turn, over the public one)
    message: str | None  # the answer to their last post
    notice: str | None  # what the table did for them (their time ran out), until put away
    partner_left: str | None  # the partner's name, once they left for good
    autopilot: bool  # a bot plays for them: Take over
    announce: str  # the screen readers' line: the last move as they say it ("You bid 3."), and "Your turn."


@dataclass(frozen=True, slots=True)
class Hand:
    """This person's cards, the bid box and the blind nil choice."""

    cards: tuple[CardFace, ...]
    choose_blind: bool  # blind nil is on and the cards are not looked at yet
    blind_now: bool  # ... and it is this seat's turn to bid it
    bidding: bool  # the bid box
    playing: bool  # their turn to play: cards not playable now are dimmed
    strict: bool  # a tourney table (no bidding): cards not playable now cannot be tapped
    refusal: str  # why a dimmed card cannot be played now, said on the page when tapped
    bid_value: int | float  # the bid box's number: the hint, or the usual bid
    hint: str | None  # the hint in words ("3: ♠A, ♥A and a ruff in clubs")
    hinted: str = ""  # the hint's bid, chosen (not sent) in the bid box: "bid" (its number is in the box), "nil"
    # the buttons of the commands this person is offered now (Claim the rest, Undo): each
    # one's template, from its declaration (``spades.tables.registry``)
    offered: tuple[str, ...] = ()
    legal_suits: str = ""  # their turn to play: the suits they may play ("HD"; a legal play is a whole suit)
    trumps: frozenset[str] = frozenset()  # trumps not printed as spades (jokers, the jjdd 2D): played as spades
    # their turn to bid: the numbers they may bid and whether nil is one of them (whiz,
    # mirror, suicide and a minimum bid leave fewer: the bid box offers only those)
    bids: tuple[int, ...] = ()
    nil_allowed: bool = True


@dataclass(frozen=True, slots=True)
class Partner:
    """A choice of partner for the rematch (``offset``: seats from the host)."""

    offset: int
    name: str
    current: bool


@dataclass(frozen=True, slots=True)
class Rematch:
    """After the match: the Rematch form, or a word that the host starts it."""

    form: bool  # the host's (or anyone's, at a table without a host)
    partners: tuple[Partner, ...]  # the host chooses who sits across
    waiting: str | None  # "Waiting for … to start a rematch."


@dataclass(frozen=True, slots=True)
class NextHand:
    """Between hands: Continue, and who has not pressed it yet."""

    form: bool  # a seated person's
    can_continue: bool  # not pressed yet
    deal_now: bool  # the host deals without waiting for the others
    reading: str  # the people who have not pressed Continue yet
    commitment: str = ""  # the next deal's commitment: Continue sends a contribution to that deal


@dataclass(frozen=True, slots=True)
class Private:
    """What this person alone gets."""

    you: You
    told: Told
    hand: Hand
    rematch: Rematch
    next_hand: NextHand


@dataclass(frozen=True, slots=True)
class Picture:
    """A seat's picture of the table, in its two parts."""

    public: Public
    private: Private


# -- a room ----------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class RoomMember:
    """One person in the room, with the host's controls for them (checked again by the
    server on every post). Never a player id: members are known by join number."""

    number: int
    name: str
    emoji: str
    host: bool
    me: bool
    partner: bool
    role: str
    can_pick: bool
    can_remove: bool


@dataclass(frozen=True, slots=True)
class Room:
    """Everything the room shows this person: who is here, where they will sit, and (for
    the host only) the controls."""

    code: str
    csrf: str
    version: int
    go: str | None  # the table's address once the game started (every page follows ``data-go``)
    removed: bool  # the host removed this person
    closed: bool  # everyone left before the start
    members: tuple[RoomMember, ...]
    people: int
    capacity: int
    open: int  # seats still free for people
    teams: str  # who partners the host, in words
    rules_line: str
    host: bool
    host_name: str
    option_values: dict[str, str]  # the host's options form
    can_pick_bot: bool
    note: str  # under the host's buttons: who plays the empty seats
    commitment: str = ""  # the first deal's commitment: the host's Start sends a contribution to that deal
    rules_url: str = "/rules"  # the rules page with the room's options
