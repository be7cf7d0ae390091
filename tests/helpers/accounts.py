"""Accounts: a finished match stored move by move, played at random."""

from __future__ import annotations

import random

from spades.rules import DEAL, Match
from spades.rules_config import Rules
from spades.storage import SeatRow, Store


def finished_match(store: Store, code: str, seats: list[SeatRow], seed: str, left: int | None = None,
                   number: int = 1) -> Match:
    """A one-hand match (more if level) played at random, stored move by move like the table service does.
    ``left``: that seat's person leaves before the first move and a bot plays it for good.
    ``number`` > 1: a rematch at an existing table, with these seats."""
    rules = Rules(end="hands", hands=1)
    if number == 1:
        store.create_table(code, None, {"level": "normal"}, seats, seed, rules.to_dict())
    else:
        store.rematch_seats(code, number, seed, rules.to_dict(), seats)
    if left is not None:
        with store.transaction() as db:
            db.execute("UPDATE seats SET kind = 'bot', player_id = NULL, left_player_id = ? "
                       "WHERE table_code = ? AND seat = ?", [seats[left].player_id, code, left])
    return play_stored(store, code, rules, seed)


def play_stored(store: Store, code: str, rules: Rules, seed: str) -> Match:
    """Table ``code``'s current match played out by random legal moves (seeded), stored
    move by move as the table service stores them (the next hand dealt while the lead is
    shared): the match as played."""
    match_id = store.load_table(code).match.id
    match, rng = Match(rules, seed), random.Random(seed)
    while not match.finished:
        if match.phase == "hand_over":  # level after the last hand: the match goes on
            match.next_hand()
            store.append_action(match_id, match.version, None, DEAL)
            continue
        seat = match.to_act
        action = rng.choice(match.legal_actions(seat))
        match.apply(seat, action)
        store.append_action(match_id, match.version, seat, str(action), finished=match.finished, winner=match.winner)
    return match
