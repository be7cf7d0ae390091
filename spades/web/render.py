"""Rendering a seat's table: one helper for the page, HTMX responses and WebSocket pushes.

``table_context(snapshot)`` turns a seat's ``Snapshot`` (its seat view and the table's
names) into plain values for the templates: what is shown was decided by the view, in
Python; templates only lay it out. ``render_fragments`` renders the table's fragments
(each ``templates/table/_name.html``, one root element with a stable id), with
``hx-swap-oob`` for HTMX responses and WebSocket messages. ``room_context`` and
``render_room`` do the same for a room waiting for its players (``room/_room.html``).

Imports: Flask (templates), ``spades.tables`` (the snapshot type), the core and the web
layer's options.
"""

from __future__ import annotations

import functools
import math
from typing import Any

from flask import Flask, render_template
from markupsafe import Markup, escape

from ..tables import BOT_PARTNER, DEAL, Event, RoomSnapshot, Snapshot
from ..bots.reasons import explain
from ..replays import bid_words, score_sheet
from .charts import score_chart
from .options import DEFAULT_VALUES, OPTION, option_values, rules_line

FRAGMENTS = ("status", "scores", "felt", "hand", "panel", "announce", "lasttrick", "sheet")
SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
SUIT_WORDS = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
RANK_WORDS = {"T": "10", "J": "jack", "Q": "queen", "K": "king", "A": "ace"}
RANK_SHOWN = {"T": "10"}
POSITIONS = ("bottom", "left", "top", "right")
# a seat's person, as every plate shows them (``Snapshot.presence``)
PRESENCE = {"here": "here", "away": "away", "bot": "bot playing", "left": "left · bot playing"}
STAMP_MATCH = 100_000  # more than the moves of a 99-hand match  # seen from the viewer: seat+1 sits on the left


class Obj:
    """Values the templates read by attribute (``p.pos``), found at the first try (Jinja
    tries an attribute before an item, and a dict's miss costs an exception: this is the
    table's hot path, rendered for every seat after every move). ``o["pos"]`` works too."""

    def __init__(self, values: dict[str, Any] | None = None, **more: Any) -> None:
        self.__dict__.update(values or (), **more)

    def __getitem__(self, name: str) -> Any:
        return self.__dict__[name]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Obj) and self.__dict__ == other.__dict__

    def __repr__(self) -> str:
        return f"Obj({self.__dict__!r})"


@functools.lru_cache(maxsize=None)
def card(text: str, legal: bool = False) -> Obj:
    """A card's display values: ``QS`` -> Q, ♠, "queen of spades" (shared: never changed)."""
    rank, suit = text[0], text[1]
    return Obj(text=text, rank=RANK_SHOWN.get(rank, rank), suit=suit, symbol=SUIT_SYMBOLS[suit],
               red=suit in "HD", label=f"{RANK_WORDS.get(rank, rank)} of {SUIT_WORDS[suit]}", legal=legal)


@functools.lru_cache(maxsize=None)
def _face(text: str) -> Markup:
    c = card(text)
    return Markup(f'<span class="face {"red" if c.red else "black"}" data-card="{c.text}" aria-label="{c.label}" '
                  f'role="img"><span class="rank">{c.rank}</span><span class="suit">{c.symbol}</span></span>')


def face(c: Obj) -> Markup:
    """A card face on the felt (a template global)."""
    return _face(c["text"])


@functools.lru_cache(maxsize=None)
def card_button(text: str, legal: bool, playing: bool, strict: bool = False) -> Markup:
    """A card in the hand as a button that plays it (a template global); ``playing``: it
    is this seat's turn to play, so a card that cannot be played now is dimmed and says
    why when tapped, or, at a tourney table (``strict``: no bidding), cannot be tapped."""
    c = card(text)
    state = " legal" if legal else " dim" if playing else ""
    label = c.label + (", not playable now" if playing and not legal else "")
    off = " disabled" if strict and playing and not legal else ""
    return Markup(f'<button class="card {"red" if c.red else "black"}{state}" name="action" value="{c.text}" '
                  f'data-card="{c.text}" aria-label="{label}"{off}><span class="rank">{c.rank}</span>'
                  f'<span class="suit">{c.symbol}</span><span class="pip" aria-hidden="true">{c.symbol}</span>'
                  f'</button>')


def hidden(version: int, csrf: str) -> Markup:
    """The hidden fields every table form carries (a template global)."""
    return Markup(f'<input type="hidden" name="csrf" value="{escape(csrf)}">'
                  f'<input type="hidden" name="version" value="{int(version)}">')


def event_text(snap: Snapshot) -> str:
    """The last move in words, for the screen-reader live region (public information only)."""
    e = snap.event
    if e.seat is None or not e.action:
        return ""
    who = "You" if e.seat == snap.seat else snap.names[e.seat]
    if e.action == "left":
        partner = snap.seat is not None and e.seat == (snap.seat + 2) % 4
        return f"{'Your partner ' if partner else ''}{who} left the table: a bot plays their seat from now on."
    if e.action == "joined":
        return "You joined the table." if who == "You" else f"{who} joined the table and plays this seat from now on."
    if e.action == "take_over":
        return "You took your seat back." if who == "You" else f"{who} took their seat back from the bot."
    if e.by_clock:
        return _timeout_text(e, snap, who)
    if e.action == DEAL:
        return f"Hand {snap.view['hand_number']} is dealt."
    if e.action == "rematch":
        return "A new match begins."
    if e.action == "ready":
        return f"{who} {'are' if who == 'You' else 'is'} ready for the next hand."
    if e.action == "look":
        return f"{who} looked at {'your' if who == 'You' else 'their'} cards."
    if e.action in ("nil", "blind_nil") or e.action.isdigit():
        return f"{who} bid {e.action.replace('_', ' ')}."
    c = card(e.action)
    text = f"{who} played the {c['label']}."
    if e.trick_winner is not None:
        winner = "You" if e.trick_winner == snap.seat else snap.names[e.trick_winner]
        text += f" {winner} {'win' if winner == 'You' else 'wins'} the trick."
    if e.hand_over:
        text += " The hand is over."
    return text


def _timeout_text(e: Event, snap: Snapshot, who: str) -> str:
    """A move the table made because the seat's time ran out, in words."""
    me = who == "You"
    them = "you" if me else "them"
    text = "Your time ran out: " if me else f"{who}'s time ran out: "
    if e.action == "look":
        text += f"the table looked at {'your' if me else 'their'} cards."
    elif e.action in ("nil", "blind_nil") or e.action.isdigit():
        text += f"the table bid {e.action.replace('_', ' ')} for {them}."
    else:
        text += f"the table played the {card(e.action)['label']} for {them}."
        if e.trick_winner is not None:
            winner = "You" if e.trick_winner == snap.seat else snap.names[e.trick_winner]
            text += f" {winner} {'win' if winner == 'You' else 'wins'} the trick."
    if e.autopilot:
        text += (" Three in a row: a bot plays for you until you take over." if me else
                 f" Three in a row: a bot plays for {who} until they take over.")
    return text


def table_context(snap: Snapshot, csrf: str, message: str | None = None, hint: object = None) -> dict[str, Any]:
    """Everything the table templates show for this seat; ``csrf`` goes in its forms
    (passed in, as WebSocket pushes render outside any request)."""
    v = snap.view
    me = snap.seat
    base = me if me is not None else 0
    legal = set(str(a) for a in v["legal"])
    to_act = v["to_act"]
    phase = v["phase"]
    bids, blind = v["bids"], v["blind"]
    # the clock of the seat to act, as absolute epoch milliseconds with the server's now:
    # the browser counts down to the server's deadline, corrected for its own clock
    now_ms = int(snap.now * 1000)
    clock = None
    if snap.clock is not None and not v["finished"]:
        who, deadline, seconds = snap.clock
        clock = Obj(seat=who, deadline_ms=int(deadline * 1000), seconds=seconds,
                    left=max(0, math.ceil(deadline - snap.now)))
    plates = []
    for i, pos in enumerate(POSITIONS):
        s = (base + i) % 4
        plates.append(Obj({
            "seat": s, "pos": pos, "name": snap.names[s] + (" (you)" if s == me and snap.names[s] != "You" else ""),
            "bot": snap.kinds[s] == "bot", "team": s % 2, "turn": to_act == s,
            "dealer": v["dealer"] == s, "bid": bid_words(bids[s], blind[s]), "has_bid": bids[s] is not None,
            "taken": v["taken"][s], "partner": me is not None and s == (me + 2) % 4,
            # "host" is only worth saying at a table of several people
            "emoji": snap.emojis[s], "host": snap.host_seat == s and snap.kinds.count("human") > 1,
            "presence": snap.presence[s], "presence_text": PRESENCE.get(snap.presence[s], ""),
            "clock": clock if clock is not None and clock["seat"] == s else None,
        }))
    # the trick in the middle: the one in progress, or the last one taken (so the 4th card is seen)
    trick_cards: dict[int, dict] = {}
    last = False
    winner = None
    if v["trick"] and v["trick"]["cards"]:
        lead = v["trick"]["leader"]
        for i, text in enumerate(v["trick"]["cards"]):
            trick_cards[(lead + i) % 4] = card(text)
    elif v["tricks"] and phase in ("playing", "hand_over", "match_over"):
        t = v["tricks"][-1]
        for i, text in enumerate(t["cards"]):
            trick_cards[(t["leader"] + i) % 4] = card(text)
        last, winner = True, t["winner"]
    trick = [Obj(pos=POSITIONS[(s - base) % 4], seat=s, card=trick_cards.get(s), won=last and s == winner)
             for s in range(4)]
    hand = [card(t, t in legal) for t in (v["hand"] or [])]
    my_turn = me is not None and to_act == me
    if v["finished"]:
        w = v["winner"]
        turn_text = "Draw." if w is None else ("You won the match!" if me is not None and w == me % 2
                                              else "Your team lost the match." if me is not None
                                              else f"{snap.names[w]} & {snap.names[w + 2]} won.")
    elif phase == "hand_over":
        turn_text = "The hand is over."
    elif my_turn:
        turn_text = ("Your turn: play a card." if phase == "playing" else
                     "Your turn: bid blind nil or look at your cards." if v["hand"] is None else "Your turn to bid.")
    elif to_act is not None:
        turn_text = f"{snap.names[to_act]} is {'bidding' if phase == 'bidding' else 'playing'}…"
    else:
        turn_text = ""
    my_team = (me % 2) if me is not None else 0
    teams = []
    for t in (my_team, 1 - my_team):
        members = " & ".join(snap.names[s] for s in (t, t + 2))
        # a watcher sees both teams by name; a player sees Us and Them, with the names beside
        teams.append(Obj({"team": t, "label": members if me is None else "Us" if t == my_team else "Them",
                      "members": "" if me is None else members, "score": v["scores"][t], "bags": v["bags"][t],
                      "contract": _contract(bids, t), "taken": v["taken"][t] + v["taken"][t + 2]}))
    results = v["results"]
    last_result = results[-1] if results and phase in ("hand_over", "match_over") else None
    is_host = me is not None and snap.host_seat == me
    # between hands: who has not pressed Continue yet (people only; bots are always ready)
    reading = [s for s in range(4) if snap.kinds[s] == "human" and s not in snap.ready] if phase == "hand_over" else []
    people = snap.kinds.count("human")
    # after the match: the host chooses who sits across for the rematch (the two swap seats)
    rematch_choices = [{"offset": k, "name": snap.names[(me + k) % 4], "bot": snap.kinds[(me + k) % 4] == "bot",
                        "current": k == 2} for k in (2, 1, 3)] if v["finished"] and is_host else []
    return {
        "code": snap.code, "csrf": csrf, "seat": me, "view": v, "version": v["version"], "phase": phase,
        "plates": plates, "trick": trick, "trick_is_last": last, "hand": hand, "my_turn": my_turn,
        "bidding": phase == "bidding" and me is not None and v["hand"] is not None and my_turn,
        "choose_blind": me is not None and v["can_look"],
        "blind_now": my_turn and "blind_nil" in legal,
        "turn_text": turn_text, "message": message, "hint": hint, "teams": teams,
        "hint_text": explain(v["hand"], hint) if hint is not None and v["hand"] else None,
        "names": snap.names, "rules": v["rules"], "level": snap.level, "play_speed": snap.play_speed,
        "hand_number": v["hand_number"], "last_result": last_result and _result_rows(last_result, snap),
        "finished": v["finished"], "winner": v["winner"], "my_team": my_team,
        "chart": Markup(score_chart(results, my_team)) if v["finished"] else None,
        # the score sheet changes only when a hand ends: pushes during play leave it out
        "sheet": functools.partial(_sheet, results, snap),  # drawn only where shown
        "sheet_labels": [t.label if me is None else f"{t.label} ({t.members})" for t in teams],
        "last_trick": _last_trick(v, snap),
        "watching": me is None, "watchers": snap.watchers, "watchable": snap.watchable, "tourney": snap.tourney,
        # the commentary, unless it is the very move the notice below tells this person of
        "announce": "" if snap.notice is not None and snap.notice == snap.event else event_text(snap),
        "notice": _timeout_text(snap.notice, snap, "You") if snap.notice is not None else None,
        "match_number": snap.match_number,
        # orders updates on the page: an HTTP answer can arrive after a newer WebSocket push
        "stamp": snap.match_number * STAMP_MATCH + v["version"],
        "suggested_bid": 3,
        "is_host": is_host, "tempo": snap.tempo,
        "reading": [("You" if s == me else snap.names[s]) for s in reading] if people > 1 else [],
        "i_am_ready": me is not None and phase == "hand_over" and me not in reading,
        "can_deal_now": is_host and any(s != me for s in reading),
        "rematch_choices": rematch_choices, "can_rematch": v["finished"] and (is_host or snap.host_seat is None),
        "host_name": snap.names[snap.host_seat] if snap.host_seat is not None else None,
        "now_ms": now_ms, "clock": clock, "autopilot": snap.autopilot,
        "rules_line": rules_line({**v["rules"], "tempo": snap.tempo, "play_speed": snap.play_speed}, snap.level),
        "can_leave": snap.shared and me is not None and not v["finished"],
        # told to the partner as it happens (the announcement), and kept in their status line
        "partner_left": snap.names[(me + 2) % 4] if me is not None and snap.presence[(me + 2) % 4] == "left" else None,
    }


def _sheet(results: list[dict], snap: Snapshot) -> list[dict]:
    """The score sheet: every finished hand's score table."""
    return [_result_rows(r, snap) for r in results]


def _last_trick(v: dict, snap: Snapshot) -> Obj | None:
    """The last completed trick of this hand: each seat's card in play order, and its winner."""
    if not v["tricks"]:
        return None
    t = v["tricks"][-1]
    plays = [Obj(seat=(t["leader"] + i) % 4, card=card(text)) for i, text in enumerate(t["cards"])]
    for p in plays:
        p.name = "You" if p.seat == snap.seat else snap.names[p.seat]
    winner = "You" if t["winner"] == snap.seat else snap.names[t["winner"]]
    return Obj(number=len(v["tricks"]), plays=plays, winner=winner, winner_seat=t["winner"])


def _contract(bids: list, team: int) -> int | None:
    b = [bids[team], bids[team + 2]]
    if any(x is None for x in b):
        return None
    return sum(x for x in b if isinstance(x, int))


def _result_rows(r: dict, snap: Snapshot) -> Obj:
    """One finished hand's score table for the templates (``spades.replays.score_sheet``'s
    row), this seat's team first."""
    row = score_sheet([r], snap.names)[0]
    first = (snap.seat or 0) % 2
    return Obj(number=row.hand, teams=(row.teams[first], row.teams[1 - first]), team_ids=(first, 1 - first))


def render_fragments(ctx: dict[str, Any], names: tuple[str, ...] = FRAGMENTS, oob: bool = True) -> str:
    """The named fragments of the table, joined; ``oob`` marks each for an out-of-band swap.
    All of them come from one template render (``table/_fragments.html``, in this order)."""
    if names == FRAGMENTS:
        return render_template("table/_fragments.html", oob=oob, **ctx)
    return "\n".join(render_template(f"table/_{name}.html", oob=oob, **ctx) for name in names)


SEAT_ROLES = {0: "Host", 2: "Partner, across from the host", 1: "Other team", 3: "Other team"}


def room_context(snap: RoomSnapshot, csrf: str) -> dict[str, Any]:
    """Everything the room shows this person: who is here, where they will sit, and (for
    the host only) the controls. Never a player id: members are known by join number."""
    host = next((m for m in snap.members if m.host), None)
    members = []
    for m in snap.members:
        members.append({
            "number": m.number, "name": m.name, "emoji": m.emoji, "host": m.host, "me": m.me,
            "partner": m.number == snap.partner, "seat": m.seat,
            "role": SEAT_ROLES[m.seat] if m.seat is not None else "Waiting for the host to pick a partner",
            # host controls, per joiner: the server checks them again on every post
            "can_pick": snap.is_host and not m.host and m.number != snap.partner,
            "can_remove": snap.is_host and not m.host,
        })
    people = len(snap.members)  # the room never holds more than can be seated
    if snap.partner is None:
        teams = "The host has not picked a partner yet."
    elif snap.partner == BOT_PARTNER:
        teams = "The host plays with a bot as partner."
    else:
        partner = next((m.name for m in snap.members if m.number == snap.partner), "")
        teams = f"{partner} is the host's partner."
    # once started, every page in the room moves to the table (site.js follows ``data-go``)
    go = f"/g/{snap.code}" if snap.status in ("playing", "finished") and snap.me is not None else None
    return {
        "code": snap.code, "csrf": csrf, "status": snap.status, "members": members, "me": snap.me,
        "removed": snap.removed, "is_host": snap.is_host, "host_name": host.name if host else "",
        "people": people, "humans": snap.humans, "capacity": snap.capacity, "open": max(0, snap.capacity - people),
        "teams": teams, "partner_chosen": snap.partner is not None, "bot_partner": snap.partner == BOT_PARTNER,
        "can_pick_bot": snap.is_host and snap.partner != BOT_PARTNER and people <= 3,
        "can_start": snap.is_host and snap.status == "waiting", "bots": 4 - people, "level": snap.level,
        "rules": snap.rules, "go": go, "room_version": snap.version,
        "rules_line": rules_line(snap.rules, snap.level), "option_values": option_values(snap.rules, snap.level),
    }


def render_room(ctx: dict[str, Any], oob: bool = True) -> str:
    """The room's fragment (one root element, ``id="room"``), out of band for the WebSocket."""
    return render_template("room/_room.html", oob=oob, **ctx)


def render_picture(picture: Snapshot | RoomSnapshot, csrf: str) -> str:
    """One picture of a change as the fragments a socket gets, out of band: a playing
    table's, or its room's while it waits."""
    if isinstance(picture, RoomSnapshot):
        return render_room(room_context(picture, csrf))
    return render_fragments(table_context(picture, csrf))


def init_app(app: Flask) -> None:
    """The table's small pieces of markup and the table options' declarations (for the
    options forms), as template globals."""
    app.jinja_env.globals.update(face=face, card_button=card_button, hidden=hidden, table_option=OPTION,
                                 option_defaults=DEFAULT_VALUES)
