"""The typed seat view and the JSON view are one view: ``view_of(match, seat).to_json()``
is ``seat_view(match, seat)`` for every seat and a spectator, at every move of random
matches under each preset (blind nil on: a seat that has not looked sees no cards)."""

from __future__ import annotations

import random

import pytest

from spades import Match
from spades.rules_config import PRESETS, preset_rules
from spades.storage import SeatRow
from spades.tables import Player, load_state
from spades.views import seat_view, view_of


@pytest.mark.parametrize("preset", list(PRESETS))
def test_the_typed_view_says_what_the_json_view_says_at_every_move(preset):
    rules = preset_rules(preset, blind_nil=True, end="hands", hands=2)
    rng = random.Random(preset)
    m = Match(rules, seed=f"views-{preset}")
    seats = (*rules.shape.seats, None)
    while not m.finished:
        for seat in seats:
            assert view_of(m, seat).to_json() == seat_view(m, seat), (preset, seat, m.version)
        if m.phase == "hand_over":
            m.next_hand()
            continue
        m.apply(m.to_act, rng.choice(m.legal_actions(m.to_act)))
    assert all(view_of(m, seat).to_json() == seat_view(m, seat) for seat in seats)


@pytest.mark.parametrize("preset", ["standard", "cutthroat-3"])
def test_a_tables_snapshots_show_each_seat_the_view_of_its_stored_match(service, preset):
    """The table keeps each seat's sorted cards, the hand's tricks and the finished hands
    between changes; what each seat and a watcher are shown is still the match's own view,
    through moves, tricks taken, hand ends and an undo-free deal of the next hand."""
    rules = preset_rules(preset, end="hands", hands=2, tempo="untimed")
    people = [f"v{preset}{s}" for s in rules.shape.seats]
    code = service.create_seated([SeatRow(s, "human", people[s], f"P{s}") for s in rules.shape.seats], rules,
                                 {"kind": "friends", "level": "easy", "humans": len(people)}, host=people[0])
    rng = random.Random(preset)
    while True:
        match = load_state(service.store, code).match
        for seat in (*rules.shape.seats, None):
            shown = service.snapshot(code, people[seat] if seat is not None else None).view
            assert shown.to_json() == seat_view(match, seat), (preset, seat, match.version)
        if match.finished:
            break
        if match.phase == "hand_over":
            service.act(code, Player(people[0]), "deal_now", match.version)
            continue
        action = rng.choice(match.legal_actions(match.to_act))
        text = action.to_json() if hasattr(action, "to_json") else str(action)
        service.act(code, Player(people[match.to_act]), str(text), match.version)
