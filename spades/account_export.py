"""A person's own data to take away: everything the site keeps about one account, as one
JSON document (``GET /me/data.json``, ``python -m spades account export EMAIL``).

The document (``"format": "spades-account/1"``): ``account`` (email, name, emoji,
created, last seen), then one list per kind of row (``spades.storage.export`` says which
tables each is read from), and ``matches``: every match the person sat in, each with its
``record`` (RECORD.md, as ``python -m spades replay`` reads it), their ``seat``, the seat
names, the ``result`` from their side (won, lost, drawn, or playing) and its
``takebacks``. A finished match's record is complete; a match being played holds only
what the person's seat has seen (their own cards, the bids, the cards played), and one
they left to a bot only the cards played. A table whose deals other tables still play (a
circle's week of boards before it closes, a duplicate tourney's round under way) keeps
its records shut, here as on its pages: ``record`` is null and ``record_shut`` says so.
Records are rebuilt from the stored moves, as the replay page rebuilds an earlier match
(no bot is asked anything).

Never in it: session ids, sign-in code hashes, push keys (a push subscription is named by
its endpoint's host), other people's ids, emails or chat.

Imports: the core (``records``, ``stats``, ``fairness``, ``rules_config``),
``spades.storage``, and ``spades.circles.boards`` and ``spades.tourney.duplicate`` (whose
tables' records are shut).
"""

from __future__ import annotations

import time
from typing import Any
from urllib.parse import urlsplit

from .circles.boards import table_records_open
from .fairness import FairDeals
from .records import to_record
from .rules_config import Rules
from .stats import replay
from .storage import Store
from .storage.export import PlayedMatch
from .tourney.duplicate import records_open as round_records_open

FORMAT = "spades-account/1"
SHUT = "Other tables still play these deals: the record opens when they have finished."


def export_account(store: Store, who: str, now: float | None = None) -> dict[str, Any] | None:
    """Everything the site keeps about the account ``who`` names (its email, in any case,
    or its id) as one JSON-ready document; None when there is no such account."""
    user = store.user_by_email(who.strip().lower()) if "@" in who else store.user(who)
    if user is None:
        return None
    held = store.held_about(user.id, user.email)
    account = held.pop("account")[0]
    held.pop("player", None)  # the name and emoji the account shows are the account's
    held["push_subscriptions"] = [{"host": urlsplit(r["endpoint"]).hostname or "", "created": r["created"]}
                                  for r in held["push_subscriptions"]]
    return {
        "format": FORMAT,
        "exported": time.time() if now is None else now,
        "account": account,
        **held,
        "matches": _matches(store, store.played_matches(user.id)),
    }


def _matches(store: Store, played: list[PlayedMatch]) -> list[dict[str, Any]]:
    """Each match's entry; the checks of shut records asked once per table of boards or of
    a tourney (the other tables never share their deals)."""
    shut = {code for code in {m.table_code for m in played if m.shared_deals}
            if not (table_records_open(store, code) and round_records_open(store, code))}
    return [match_entry(m, m.table_code in shut) for m in played]


def match_entry(m: PlayedMatch, shut: bool = False) -> dict[str, Any]:
    """One match the person sat in, with its record as their seat may see it (none when
    ``shut``). Raises what ``stats.replay`` raises for stored moves the rules refuse (a
    corrupt store)."""
    rules = Rules.from_dict(m.rules)
    match = replay(m.rules, m.seed, m.actions, FairDeals.stored(m.fair, rules.shape))
    if match.finished:
        record = to_record(match, takebacks=m.takebacks)
        side = next(i for i, seats in enumerate(match.shape.sides) if m.seat in seats)
        result = "drawn" if match.winner is None else "won" if match.winner == side else "lost"
    else:
        # a seat left to a bot sees nobody's cards but those played (-1 is no seat)
        record = to_record(match, -1 if m.left else m.seat, takebacks=m.takebacks)
        result = "playing"
    entry = {"table": m.table_code, "number": m.number, "created": m.created, "seat": m.seat,
             "left_to_a_bot": m.left, "names": list(m.names), "result": result, "takebacks": m.takebacks,
             "record": None if shut else record}
    if shut:
        entry["record_shut"] = SHUT
    return entry
