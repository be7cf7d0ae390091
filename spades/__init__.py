"""Spades: the rules core (cards, rules, scoring, views, records) and, above it, the bots,
the table service and the web site.

Importing ``spades`` loads the pure core only (stdlib); the web layer lives in
``spades.web`` and is imported by ``app.py``. Imports point down: web -> tables ->
storage / bots -> core.
"""

from .cards import CARDS, Card, NotationError
from .records import IllegalStep, RecordError, from_record, replay_report, to_record
from .rules import BLIND_NIL, LOOK, NIL, Bid, IllegalAction, Match, parse_action
from .rules_config import PRESETS, Rules, RulesError, Shape, preset_rules
from .scoring import score_hand
from .views import seat_view

__all__ = [
    "CARDS", "Card", "NotationError", "IllegalStep", "RecordError", "from_record", "replay_report",
    "to_record", "BLIND_NIL", "LOOK", "NIL", "Bid", "IllegalAction", "Match", "parse_action",
    "Rules", "RulesError", "Shape", "PRESETS", "preset_rules", "score_hand", "seat_view",
]
